package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Complete on the model page in a browser: each of the three choices,
// taken with the mouse and with the keyboard, shows a configuration that
// keeps the decisions (as many features as the oracle's fewest and most),
// and Apply it decides every feature so, a configuration by the oracle; on a phone's
// width the choices stay on the screen.
func TestBrowserModelComplete(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	b := newBrowser(t, ts.URL)
	m, id, o := example(t, "computer")
	sel := []string{"ARM"}
	fewest, most, _ := o.Selections(oracleDecisions(t, m, sel, nil))
	for _, tc := range []struct {
		how, label string
		want       int // features selected; 0: any
		keyboard   bool
	}{{"fewest", "Fewest features", fewest, false}, {"most", "Most features", most, true}, {"uniform", "At random", 0, false}} {
		b.open("/?model=" + id + "&select=ARM")
		link := fmt.Sprintf(`#complete a[href*="how=%s"]`, tc.how)
		if tc.keyboard {
			b.do("focus "+tc.how, chromedp.Focus(chromedp.CSS(link)), chromedp.KeyEvent(kb.Enter))
		} else {
			b.do("click "+tc.how, chromedp.Click(chromedp.CSS(link), chromedp.NodeVisible))
		}
		b.wait("the completion is shown", `document.getElementById("completion-result")`)
		head := b.text(".completion-head")
		if !strings.HasPrefix(head, tc.label) || tc.want > 0 && !strings.Contains(head, fmt.Sprintf(": %d of %d features selected", tc.want, len(m.Features))) {
			t.Errorf("%s: the completion says %q, want %d of %d", tc.how, head, tc.want, len(m.Features))
		}
		if b.location() != "/?model="+id+"&select=ARM" {
			t.Errorf("%s: the address changed to %s before Apply", tc.how, b.location())
		}
		b.click("apply-completion")
		q := b.query()
		names := append(strings.Split(q.Get("select"), ","), strings.Split(q.Get("deselect"), ",")...)
		if len(names) != len(m.Features) || !strings.HasPrefix(q.Get("select"), "ARM") {
			t.Errorf("%s: applied, the address decides %d features (%q), want all %d, ARM first", tc.how, len(names), q.Encode(), len(m.Features))
		}
		states := rowStates(b)
		free := 0
		for _, st := range states {
			if st == "free" {
				free++
			}
		}
		selected := strings.Count(q.Get("select"), ",") + 1
		if free > 0 || tc.want > 0 && selected != tc.want {
			t.Errorf("%s: applied, %d features free and %d selected, want none free and %d", tc.how, free, selected, tc.want)
		}
		config := make([]bool, len(m.Features))
		for _, d := range oracleDecisions(t, m, strings.Split(q.Get("select"), ","), strings.Split(q.Get("deselect"), ",")) {
			config[d.Feature] = d.Select
		}
		if !o.IsConfiguration(config) || b.text("#count") != "1 configuration" {
			t.Errorf("%s: applied, %v is no configuration of the model, or the page counts %q", tc.how, q.Get("select"), b.text("#count"))
		}
	}
	// A phone's width: the choices are on the screen, none past its edge.
	b.do("phone width", chromedp.EmulateViewport(375, 740, chromedp.EmulateMobile, chromedp.EmulateTouch))
	b.open("/?model=" + id)
	if right := eval[float64](b, `Math.max.apply(null, Array.from(document.querySelectorAll('#complete a')).map(function (a) { return a.getBoundingClientRect().right; }))`); right > 375 {
		t.Errorf("on a phone the Complete choices reach %.0f px of 375", right)
	}
	b.do("tap fewest", chromedp.Click(chromedp.CSS(`#complete a[href*="how=fewest"]`), chromedp.NodeVisible))
	b.wait("the completion is shown", `document.getElementById("completion-result")`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
