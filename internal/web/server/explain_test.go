package server

import (
	"regexp"
	"strings"
	"testing"
)

// TestWhyPanelReasons: the Why? panel of a board's square on the one page
// says how many reasons force it and lists each with its sentence, and
// under it the board's proof or the lines that carry it; Make room names
// the fewest queens it takes back, one from every reason.
func TestWhyPanelReasons(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	item := regexp.MustCompile(`<li class="reason"[^>]*>`)
	for _, c := range []struct {
		name, path, text string
		texts            []string // each reason's sentence
		proofs           int      // reasons proved by the board's own proof
		carry            []string // the lines that carry a reason
		room             string
	}{
		{"attacked", "/?model=queens-8&select=a1&why=b2&backend=bdd", "1 reason, each a smallest set of your decisions that forces it",
			[]string{"You selected “a1”"}, 0, []string{"diagonal a1-h8: at most one of a1, b2, c3, d4, e5, f6, g7, h8"}, "Make room: undo &#43;a1"},
		{"no completion", "/?model=queens-8&select=a1&why=c2&backend=bdd", "1 reason, each a smallest set of your decisions that forces it",
			[]string{"You selected “a1”"}, 1, nil, "Make room: undo &#43;a1"},
		{"two reasons", "/?model=queens-8&select=a1,b5&why=d7&backend=bdd", "2 reasons, each a smallest set of your decisions that forces it",
			[]string{"You selected “a1”", "You selected “b5”"}, 1, []string{"diagonal a4-e8: at most one of a4, b5, c6, d7, e8"}, "Make room: undo &#43;a1, &#43;b5"},
		{"a forced queen, by two queens together", "/?model=queens-8&select=a1,g2&why=c8&backend=bdd", "1 reason, each a smallest set of your decisions that forces it",
			[]string{"You selected “a1” and selected “g2”"}, 1, nil, "Make room: undo &#43;a1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, body := get(t, ts, c.path)
			if res.StatusCode != 200 {
				t.Fatalf("GET %s: %d", c.path, res.StatusCode)
			}
			panel := between(body, `id="panel"`, "</section>")
			if panel == "" {
				t.Fatalf("GET %s: no panel", c.path)
			}
			if !strings.Contains(panel, `<p id="panel-text">`+c.text) {
				t.Errorf("panel text is not %q:\n%s", c.text, panel)
			}
			if got := len(item.FindAllString(panel, -1)); got != len(c.texts) {
				t.Errorf("%d reasons, want %d:\n%s", got, len(c.texts), panel)
			}
			for _, w := range c.texts {
				if !strings.Contains(panel, `<p class="reason-text">`+w+`</p>`) {
					t.Errorf("no reason %q in the list:\n%s", w, panel)
				}
			}
			if got := strings.Count(panel, `<details class="proof">`); got != c.proofs {
				t.Errorf("%d proofs shown, want %d:\n%s", got, c.proofs, panel)
			}
			for _, w := range c.carry {
				if !strings.Contains(panel, `<ul class="carry"><li>`+w+`</li></ul>`) {
					t.Errorf("no line %q carries a reason:\n%s", w, panel)
				}
			}
			if !strings.Contains(panel, `id="make-room" name="room"`) || !strings.Contains(panel, ">"+c.room+"</button>") {
				t.Errorf("Make room is not %q:\n%s", c.room, panel)
			}
		})
	}
}
