package server

import (
	"regexp"
	"strings"
	"testing"
)

// TestWhyPanelReasons: the Why? panel of a square with one reason says it
// once, in the panel's text, with its proof under it and no numbered list
// (a list of one, or an empty "1."); several reasons stay a numbered list,
// each item with its sentence.
func TestWhyPanelReasons(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	item := regexp.MustCompile(`<li class="reason"[^>]*>`)
	for _, c := range []struct {
		name, path, text string
		items            int  // numbered reasons
		proof            bool // a proof under the text
		texts            []string
	}{
		{"attacked", "/?n=8&q=a1&why=b2&backend=bdd", "Attacked by a1.", 0, false, nil},
		{"no completion", "/?n=8&q=a1&why=c2&backend=bdd", "No solution holds queens on a1 and here.", 0, true, nil},
		{"two reasons", "/?n=8&q=a1,b5&why=d7&backend=bdd", "2 independent reasons keep d7 blocked.", 2, true,
			[]string{"Attacked by b5.", "No solution holds queens on a1 and here."}},
		{"make room keeps its one reason listed", "/?n=8&q=a1&room=b2&backend=bdd", "Removing the queen on a1 frees b2", 1, false,
			[]string{"Attacked by a1."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, body := get(t, ts, c.path)
			if res.StatusCode != 200 {
				t.Fatalf("GET %s: %d", c.path, res.StatusCode)
			}
			i := strings.Index(body, `id="panel"`)
			if i < 0 {
				t.Fatalf("GET %s: no panel", c.path)
			}
			panel := body[i : i+strings.Index(body[i:], "</section>")]
			if !strings.Contains(panel, `<p id="panel-text">`+c.text) {
				t.Errorf("panel text is not %q:\n%s", c.text, panel)
			}
			if got := len(item.FindAllString(panel, -1)); got != c.items {
				t.Errorf("%d numbered reasons, want %d:\n%s", got, c.items, panel)
			}
			if c.items == 0 && strings.Contains(panel, `<ol class="reasons"`) {
				t.Errorf("a list of reasons for one reason:\n%s", panel)
			}
			if got := strings.Contains(panel, `<details class="proof"`); got != c.proof {
				t.Errorf("proof shown %v, want %v:\n%s", got, c.proof, panel)
			}
			for _, w := range c.texts {
				if !strings.Contains(panel, `<p class="reason-text">`+w+`</p>`) {
					t.Errorf("no reason %q in the list:\n%s", w, panel)
				}
			}
			if strings.Count(panel, `<p class="reason-text">`) != len(c.texts) {
				t.Errorf("%d reason texts, want %d", strings.Count(panel, `<p class="reason-text">`), len(c.texts))
			}
		})
	}
}
