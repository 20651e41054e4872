package server

import (
	"net/http"
	"strings"
	"testing"
)

// TestBoardAddressesRedirect: the addresses of the board page that people
// saved (/?n=8&q=a1,c5 with its backend, its Why? and the actions of its
// controls, and /play, where those controls sent their clicks) answer
// with the same board's one page, queens-N with those queens selected:
// a 303 to it, or for htmx the address to load instead. The board page's
// own settings are dropped; a size that is no board, or one no backend
// serves, is a page in words.
func TestBoardAddressesRedirect(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	tests := []struct {
		name, path string
		htmx       bool
		status     int
		to         string // Location, or HX-Redirect for htmx
		says       string // in the body
	}{
		{"the bare address", "/", false, 303, "/?model=queens-8", ""},
		{"a board", "/?n=8&q=a1,c5", false, 303, "/?model=queens-8&select=a1,c5", ""},
		{"a board on SAT", "/?n=8&q=a1,c5&backend=sat", false, 303, "/?model=queens-8&select=a1,c5&backend=sat", ""},
		{"a board on the primary", "/?n=8&q=a1&backend=bdd", false, 303, "/?model=queens-8&select=a1", ""},
		{"a board in Both, its diagram open", "/?n=6&q=b1&backend=both&diagram=1", false, 303, "/?model=queens-6&select=b1&backend=both&diagram=1", ""},
		{"an empty board", "/?n=10", false, 303, "/?model=queens-10", ""},
		{"Why?", "/?n=8&q=a1,c5&backend=sat&why=b3", false, 303, "/?model=queens-8&select=a1,c5&backend=sat&why=b3", ""},
		{"place", "/play?n=8&q=a1&place=e2", false, 303, "/?model=queens-8&select=a1,e2", ""},
		{"remove", "/play?n=8&q=a1,e2&remove=a1", false, 303, "/?model=queens-8&select=e2", ""},
		{"make room", "/play?n=8&q=a1,g2&room=e2", false, 303, "/?model=queens-8&select=a1,g2&room=e2", ""},
		{"the board page's own settings are dropped", "/?n=6&q=b1&order=diag&heat=1&auto=b1&l=open&t=%2Ba1_6_1_1", false, 303, "/?model=queens-6&select=b1", ""},
		{"a click of htmx", "/play?n=8&q=a1&place=e2", true, 200, "/?model=queens-8&select=a1,e2", ""},
		{"htmx asking for a board", "/?n=8&q=a1&backend=both", true, 200, "/?model=queens-8&select=a1&backend=both", ""},
		{"a size in words", "/?n=eight", false, 400, "", "Board size “eight” is not a whole number: pick a size from 1 to 16."},
		{"size zero", "/?n=0", false, 400, "", "Board size 0 is out of range: pick a size from 1 to 16."},
		{"a size past any number", "/?n=99999999999999999999", false, 400, "", "Board size “99999999999999999999” is out of range: pick a size from 1 to 16."},
		{"a size no backend serves", "/?n=17&q=a1", false, 413, "", "A 17×17 board is beyond the limit of the SAT backend (16×16)."},
		{"a bad size through htmx", "/play?n=eight&place=a1", true, 400, "", "Board size “eight” is not a whole number"},
		{"a square off the board", "/?n=8&q=z99", false, 400, "", "“z99” is off the 8×8 board."},
		{"a queen twice", "/?n=8&q=a1,a1", false, 400, "", "a1 is listed twice among the queens."},
		{"a parameter twice", "/?n=8&n=9", false, 400, "", "The parameter &#34;n&#34; appears more than once in the address; give it once."},
		{"a bad square in an action", "/play?n=8&place=z0", false, 400, "", "“z0” is not a square"},
		{"remove, then place", "/play?n=8&q=a1,c2&remove=c2&place=d2", false, 303, "/?model=queens-8&select=a1,d2", ""},
		{"two actions at once", "/play?n=8&q=a1&why=c2&room=c2", false, 400, "", "One action at a time, please: the address asks for why and room."},
		{"remove nothing", "/play?n=8&q=a1&remove=", false, 400, "", "The parameter &#34;remove&#34; names the squares to clear"},
		{"an action of two squares", "/play?n=8&q=a1&why=c2,d2", false, 400, "", "The parameter &#34;why&#34; names one square, like c5."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, ts.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.htmx {
				req.Header.Set("HX-Request", "true")
			}
			res, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, res)
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", res.StatusCode, tt.status, excerpt(body))
			}
			to := res.Header.Get("Location")
			if tt.htmx {
				to = res.Header.Get("HX-Redirect")
			}
			if to != tt.to {
				t.Errorf("sent to %q, want %q", to, tt.to)
			}
			if tt.says != "" && !strings.Contains(body, tt.says) {
				t.Errorf("the answer does not say %q: %s", tt.says, excerpt(body))
			}
			if tt.status >= 400 && !tt.htmx && !strings.Contains(body, `<a href="/models">Open a model</a>`) {
				t.Errorf("a refusal without a way on: %s", excerpt(body))
			}
		})
	}
	// Followed, the saved addresses show their boards.
	for _, tt := range []struct{ path, lands, says string }{
		{"/?n=8&q=a1,e2&backend=sat", "/?model=queens-8&select=a1,e2&backend=sat", `id="count">1 configuration<`},
		{"/?n=8&q=a1&why=b2", "/?model=queens-8&select=a1&why=b2", `Why is “b2” forced off?`},
		{"/play?n=8&q=a1,g2&room=e2", "/?model=queens-8&select=a1", `id="count">4 configurations<`},
	} {
		res, body := get(t, ts, tt.path)
		if got := res.Request.URL.RequestURI(); res.StatusCode != 200 || got != tt.lands || !strings.Contains(body, tt.says) {
			t.Errorf("%s lands on %s (%d), want %s saying %s", tt.path, got, res.StatusCode, tt.lands, tt.says)
		}
	}
}
