package server

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The model page offers the decision diagram of the configurations left:
// with the BDD, its address answers the reduced diagram, whose paths
// count the configurations (the oracle's brute force), with its profile
// per level summing to its nodes over the whole diagram's; a mode without
// a BDD, and a model beyond the BDD's budget, answer why there is none.
func TestModelDiagram(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	m, id, o := example(t, "computer")
	_, html := get(t, ts, "/?model="+id+"&select=ARM")
	if !strings.Contains(html, `id="dg" data-src="/model-diagram?model=`+id+`&amp;select=ARM"`) {
		t.Fatalf("the page offers no diagram of its configurations")
	}
	for _, tc := range []struct{ sel, desel []string }{
		{nil, nil},
		{[]string{"ARM"}, nil},
		{[]string{"Thunderbolt", "Graphics"}, []string{"Wireless LAN"}},
	} {
		q := "/model-diagram?model=" + id + "&backend=bdd&select=" + strings.Join(tc.sel, ",") + "&deselect=" + strings.Join(tc.desel, ",")
		q = strings.ReplaceAll(q, " ", "+")
		res, body := get(t, ts, q)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", q, res.StatusCode, body)
		}
		var g diagramResponse
		if err := json.Unmarshal([]byte(body), &g); err != nil {
			t.Fatal(err)
		}
		want := o.Analyze(oracleDecisions(t, m, tc.sel, tc.desel)).Configurations
		if g.Truncated || g.View != "bdd" || g.Backend != "bdd" || g.Order == "" || len(g.Nodes) != g.DiagramNodes+1 || g.MaxNodes != s.cfg.DiagramNodes {
			t.Errorf("%s: view %q of %s in %q order, truncated %v, %d nodes drawn of %d (limit %d)",
				q, g.View, g.Backend, g.Order, g.Truncated, len(g.Nodes), g.DiagramNodes, g.MaxNodes)
		}
		if g.Solutions != strconv.Itoa(want) {
			t.Errorf("%s: the diagram holds %s configurations, brute force %d", q, g.Solutions, want)
		}
		sum := func(p []profileEntry) (n int) {
			for _, e := range p {
				n += e.Nodes
			}
			return n
		}
		if sum(g.Profile) != g.DiagramNodes || sum(g.WholeProfile) < g.DiagramNodes || len(g.Profile) != len(g.WholeProfile) || len(g.Profile) == 0 {
			t.Errorf("%s: profile of %d rows sums to %d, whole of %d rows to %d, diagram of %d", q, len(g.Profile), sum(g.Profile), len(g.WholeProfile), sum(g.WholeProfile), g.DiagramNodes)
		}
		for _, name := range g.Layers[:len(g.Layers)-1] {
			if _, ok := m.ID(name); !ok {
				t.Errorf("%s: layer %q is no feature", q, name)
			}
		}
		// The API answers the same diagram for the same decisions.
		res, body = post(t, ts, "/api/v1/diagram", modelBody(id, tc.sel, tc.desel, `,"backend":"bdd"`))
		var a diagramResponse
		if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &a) != nil {
			t.Fatalf("POST /api/v1/diagram %v %v: %d %s", tc.sel, tc.desel, res.StatusCode, body)
		}
		a.ElapsedMS, g.ElapsedMS = 0, 0
		if !reflect.DeepEqual(a, g) {
			t.Errorf("POST /api/v1/diagram %v %v answers another diagram than %s:\n%+v\n%+v", tc.sel, tc.desel, q, a, g)
		}
	}
	// Failures answer as the API's do, for the viewer to show.
	reason := func(body string) string {
		var e apiError
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			t.Errorf("not an API error: %v: %s", err, body)
		}
		return e.Error
	}
	res, body := get(t, ts, "/model-diagram?model="+id+"&backend=sat")
	if res.StatusCode != http.StatusNotFound || !strings.Contains(reason(body), "keeps no decision diagram") {
		t.Errorf("SAT: %d %s", res.StatusCode, body)
	}

	cfg := modelSetup()
	// 512 nodes, fewer than the model's 821 features: far below what its
	// diagram needs, and small enough that the sifting tried before the
	// compile gives up is quick even under the race detector.
	cfg.BDD.Budget = 16 << 10
	s, ts = newTestServer(t, cfg)
	info, _, err := s.models.Add(context.Background(), "big.uvl", []byte(bigModel(20)), "")
	if err != nil {
		t.Fatal(err)
	}
	res, body = get(t, ts, "/model-diagram?model="+info.ID+"&backend=bdd")
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(reason(body), "budget") {
		t.Errorf("a model beyond the BDD's budget: %d %s", res.StatusCode, body)
	}
}

// A model's diagram asked of a backend that keeps none is refused before
// any work on the decisions: the SAT backend opens no session for it (no
// analysis in the metrics), while the BDD opens the one that checks them.
func TestModelDiagramAPIRefusesFirst(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	_, id, _ := example(t, "computer")
	analyses := func(backend string) float64 {
		n, _ := sample(scrape(t, s), "nqueens_analysis_duration_seconds", "backend", backend)
		return n
	}
	res, body := post(t, ts, "/api/v1/diagram", modelBody(id, []string{"ARM"}, nil, `,"backend":"sat"`))
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "keeps no diagram") {
		t.Fatalf("SAT: %d %s", res.StatusCode, body)
	}
	if n := analyses("sat"); n != 0 {
		t.Errorf("SAT refused the diagram after %v analyses; want it refused before any", n)
	}
	res, body = post(t, ts, "/api/v1/diagram", modelBody(id, []string{"ARM"}, nil, `,"backend":"bdd"`))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("BDD: %d %s", res.StatusCode, body)
	}
	if n := analyses("bdd"); n != 1 {
		t.Errorf("the BDD's diagram took %v analyses, want the one that checks the decisions", n)
	}
}
