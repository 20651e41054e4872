package server

import (
	"html"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
)

// renamed is a registered backend under another name: a third backend
// that the server knows nothing about but what the interfaces say.
type renamed struct {
	configurator.Backend
	name string
}

func (r renamed) Name() string { return r.name }

// TestThirdBackend registers a third backend and checks that the one
// page, the API and the comparison take it with no change to the server:
// it is a mode of its own, "both" runs all three against the primary, and
// the words of a board too large for the primary name the backend that
// takes it.
func TestThirdBackend(t *testing.T) {
	cfg := testConfig()
	third := cfg.engines()[1]
	third.Backend = renamed{Backend: third.Backend, name: "sat-two"}
	third.Title = "The SAT backend again, under another name"
	cfg.extra = []Engine{third}
	_, ts := newTestServer(t, cfg)

	tests := []struct {
		path   string
		status int
		want   []string
	}{
		{"/?model=queens-8&select=a1&backend=sat-two", 200, []string{`id="count">4 configurations<`, `<th scope="col">SAT-TWO</th>`, `>SAT-TWO<`, "The SAT backend again"}},
		{"/?model=queens-8&select=a1,g2&backend=both", 200, []string{`id="count">2 configurations<`, `BDD, SAT and SAT-TWO agree on every feature`,
			`<dt>SAT</dt>`, `<dt>SAT-TWO</dt>`}},
		{"/?model=queens-11&backend=sat-two", 200, []string{`aria-label="11 by 11 board"`}},
		{"/?model=queens-11", 200, []string{"BDD cannot answer this model, so SAT answers it instead: ", "The SAT backend handles boards up to 16×16: switch to SAT."}},
		{"/?model=queens-8&backend=zdd", 400, []string{"“zdd” is not a backend: choose bdd, sat, sat-two or both."}},
	}
	for _, tt := range tests {
		res, body := get(t, ts, tt.path)
		body = html.UnescapeString(body)
		if res.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d: %s", tt.path, res.StatusCode, tt.status, excerpt(body))
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q", tt.path, w)
			}
		}
	}
	if _, body := get(t, ts, "/?model=queens-6&backend=both"); countIn(body, "compiled in") != 3 {
		t.Errorf("%d compile times in Both, want one per backend", countIn(body, "compiled in"))
	}
	res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"queens":[[0,0]],"backend":"sat-two"}`)
	if res.StatusCode != 200 || !strings.Contains(body, `"backend":"sat-two"`) || !strings.Contains(body, `"solutions":"4"`) {
		t.Errorf("the API on the third backend: %d %s", res.StatusCode, body)
	}
	if res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"backend":"zdd"}`); res.StatusCode != 400 ||
		!strings.Contains(body, `is not a backend: use \"bdd\", \"sat\" or \"sat-two\".`) {
		t.Errorf("an unknown backend: %d %s", res.StatusCode, body)
	}
}
