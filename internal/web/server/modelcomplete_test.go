package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/oracle"
)

// configOf reads a completion's answer back into a configuration of m,
// checking that it names every feature exactly once.
func configOf(t *testing.T, what string, m *feature.Model, sel, desel []string) []bool {
	t.Helper()
	config := make([]bool, len(m.Features))
	seen := make([]bool, len(m.Features))
	for _, list := range []struct {
		names []string
		on    bool
	}{{sel, true}, {desel, false}} {
		for _, name := range list.names {
			f, ok := m.ID(name)
			if !ok || seen[f] {
				t.Fatalf("%s: %q is no feature, or named twice", what, name)
			}
			seen[f], config[f] = true, list.on
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Fatalf("%s: feature %q is missing", what, m.Features[i].Name)
	}
	return config
}

// On the bundled examples, along seeded random decisions that some
// configuration keeps, every backend's completion by each way is a
// configuration keeping them (the oracle's list), and fewest and most
// select as few and as many features as the oracle's fewest and most;
// the SAT backends refuse uniform with a 422.
func TestModelComplete(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	for _, name := range []string{"computer", "smarthome"} {
		id, m := exampleID(t, name)
		o, err := oracle.NewFeatures(len(m.Features), m.Valid)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(33, uint64(len(name))))
		for trial := range 8 {
			var ds []oracle.Decision
			for _, f := range rng.Perm(len(m.Features))[:rng.IntN(4)] {
				if d := (oracle.Decision{Feature: f, Select: rng.IntN(2) == 0}); o.Consistent(append(slices.Clone(ds), d)) {
					ds = append(ds, d)
				}
			}
			fewest, most, _ := o.Selections(ds)
			for _, backend := range modelBackends(s) {
				for _, how := range []string{"uniform", "fewest", "most"} {
					what := fmt.Sprintf("%s, %s on %s, trial %d (%v)", how, backend, name, trial, ds)
					res, out := post(t, ts, "/api/v1/complete", oracleBody(id, m, ds, fmt.Sprintf(`,"backend":%q,"how":%q`, backend, how)))
					if how == "uniform" && backend != "bdd" {
						if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(out, "does not draw configurations uniformly") {
							t.Errorf("%s: %d %s, want 422", what, res.StatusCode, out)
						}
						continue
					}
					var got modelCompleteResponse
					if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &got) != nil {
						t.Fatalf("%s: %d %s", what, res.StatusCode, out)
					}
					config := configOf(t, what, m, got.Select, got.Deselect)
					if !o.IsConfiguration(config) || len(got.Select) != got.Selected {
						t.Fatalf("%s: %v is no configuration (or selected %d)", what, got.Select, got.Selected)
					}
					for _, d := range ds {
						if config[d.Feature] != d.Select {
							t.Fatalf("%s: the completion breaks %v", what, d)
						}
					}
					want := map[string]int{"fewest": fewest, "most": most}
					switch {
					case how == "uniform" && (got.Exact != nil || got.Bound != nil):
						t.Errorf("%s: exact %v, bound %v for a uniform draw", what, got.Exact, got.Bound)
					case how != "uniform" && (got.Selected != want[how] || got.Exact == nil || !*got.Exact || got.Bound == nil || *got.Bound != want[how]):
						t.Errorf("%s: %d selected, exact %v, bound %v; want %d, exact", what, got.Selected, got.Exact, got.Bound, want[how])
					}
				}
			}
		}
	}
}

// A board completed: every way gives a solution holding the queens, of
// eight queens, exact; without "how" the SAT backend finds the fewest.
func TestModelCompleteBoard(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	for _, tc := range []struct{ backend, how, want string }{
		{"bdd", "uniform", "uniform"}, {"bdd", "fewest", "fewest"}, {"sat", "most", "most"}, {"sat", "", "fewest"}, {"bdd", "", "uniform"},
	} {
		body := fmt.Sprintf(`{"model":"queens-8","select":["a1"],"deselect":["c2"],"backend":%q,"how":%q}`, tc.backend, tc.how)
		var got modelCompleteResponse
		if !postOK(t, ts, "/api/v1/complete", body, &got) {
			continue
		}
		queens := strings.Join(got.Select, ",")
		if got.How != tc.want || got.Selected != 8 || !slices.Contains(got.Select, "a1") || slices.Contains(got.Select, "c2") || len(got.Deselect) != 56 {
			t.Errorf("%s %q: %s, queens %s", tc.backend, tc.how, got.How, queens)
		}
		if tc.want != "uniform" && (got.Exact == nil || !*got.Exact || *got.Bound != 8) {
			t.Errorf("%s %q: exact %v bound %v, want exact 8", tc.backend, tc.how, got.Exact, got.Bound)
		}
	}
	// The board's own form is unchanged.
	var b completeResponse
	if postOK(t, ts, "/api/v1/complete", `{"n":8,"queens":[[0,0]]}`, &b) && len(b.Solution) != 8 {
		t.Errorf("the board's complete: %+v", b)
	}
}

func TestModelCompleteErrors(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	id, _ := exampleID(t, "computer")
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{fmt.Sprintf(`{"model":%q,"how":"best"}`, id), 400, `is “best”; use`},
		{fmt.Sprintf(`{"model":%q,"select":["Nothing"]}`, id), 400, "Nothing"},
		{`{"model":"nope","how":"most"}`, 404, "no model"},
		{fmt.Sprintf(`{"model":%q,"how":"most","feature":"x"}`, id), 400, "Unknown field"},
	} {
		res, out := post(t, ts, "/api/v1/complete", tc.body)
		if res.StatusCode != tc.status || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.body, res.StatusCode, out, tc.status, tc.want)
		}
	}
}

// The page's Complete without JavaScript: the choice is a page of its own,
// with the way back; a way that is none is a 400 that says so.
func TestModelCompletePage(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	id, _ := exampleID(t, "computer")
	res, body := get(t, ts, "/?model="+id+"&select=ARM")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `id="complete"`) || !strings.Contains(body, `href="/model-complete?model=`+id+`&amp;select=ARM&amp;how=most"`) {
		t.Fatalf("the model page: %d, no Complete choices", res.StatusCode)
	}
	res, body = get(t, ts, "/model-complete?model="+id+"&select=ARM&how=most")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "<!doctype html>") || !strings.Contains(body, "Most features: ") ||
		!strings.Contains(body, `href="/?model=`+id+`&amp;select=ARM"`) || !strings.Contains(body, `id="apply-completion"`) ||
		!strings.Contains(body, `href="/model-configuration?model=`+id+`&amp;select=ARM,`) {
		t.Errorf("Complete without JavaScript: %d\n%s", res.StatusCode, body)
	}
	res, body = get(t, ts, "/model-complete?model="+id+"&how=best")
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "is not a way to complete") {
		t.Errorf("an unknown way: %d\n%s", res.StatusCode, body)
	}
}
