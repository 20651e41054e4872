package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Model facts on the model page in a browser: the panel opens with the
// keyboard and shows the model's facts as the API has them (the board
// queens-6 on SAT: twelve dead squares, its four solutions the atomic
// sets, no commonality); without JavaScript the link is a page of its
// own, here on the BDD, which counts.
func TestBrowserModelFacts(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	b := newBrowser(t, ts.URL)
	b.open("/?model=queens-6&backend=sat")
	b.do("open the facts by keyboard", chromedp.Focus(chromedp.CSS("#facts > summary")), chromedp.KeyEvent(kb.Enter))
	b.wait("the facts are shown", `document.getElementById("facts-list")`)
	got := b.text("#facts-list")
	for _, want := range []string{"Dead (in none)12 features: a1, f1, b2", "Atomic sets (always the same value)4 sets: {b1, d2, f3, a4, c5, e6}"} {
		if !strings.Contains(strings.Join(strings.Fields(got), ""), strings.Join(strings.Fields(want), "")) {
			t.Errorf("the facts say %q, want %q in them", got, want)
		}
	}
	if strings.Contains(got, "Commonality") {
		t.Errorf("SAT does not count the configurations per feature, yet the facts say %q", got)
	}
	b.do("the facts' own page", chromedp.Navigate(ts.URL+"/model-facts?model=queens-6"), chromedp.WaitVisible(chromedp.ID("facts-list")))
	if got := b.text("#facts-list"); !strings.Contains(got, "Configurations4") && !strings.Contains(strings.Join(strings.Fields(got), ""), "Configurations4") {
		t.Errorf("the facts' page on BDD says %q, want 4 configurations", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
