package server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// analyzeWork is the "work" object of /api/v1/analyze as a client reads
// it: absent fields stay nil.
type analyzeWork struct {
	N         int      `json:"n"`
	Queens    [][2]int `json:"queens"`
	Forced    [][2]int `json:"forced"`
	ElapsedMS float64  `json:"elapsed_ms"`
	Work      struct {
		DomainsMS     *float64 `json:"domains_ms"`
		CountMS       *float64 `json:"count_ms"`
		Nodes         *int64   `json:"nodes"`
		NodesVisited  *int64   `json:"nodes_visited"`
		SolverCalls   *int64   `json:"solver_calls"`
		Conflicts     *int64   `json:"conflicts"`
		Decisions     *int64   `json:"decisions"`
		Learned       *int64   `json:"learned"`
		ByPropagation *int     `json:"by_propagation"`
		ByWitness     *int     `json:"by_witness"`
		BySolver      *int     `json:"by_solver"`
	} `json:"work"`
}

// TestAPIWork checks the "work" object of /api/v1/analyze: each backend
// gives its own kind of figures and only those, and the figures hold
// together.
func TestAPIWork(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	for _, tt := range []struct {
		name, body string
		diagram    bool
		nodes      int64 // of the compiled diagram
		// remembered: the BDD keeps the analyses of the empty board and of
		// one queen; once computed it answers them again visiting no node.
		remembered bool
	}{
		{"bdd empty 8×8", `{"n":8}`, true, 2451, true},
		{"bdd 8×8 a1", `{"n":8,"queens":[[0,0]]}`, true, 2451, true},
		{"bdd 8×8 a1 c5", `{"n":8,"queens":[[0,0],[4,2]]}`, true, 2451, false},
		{"bdd 10×10 a1 c2", `{"n":10,"queens":[[0,0],[1,2]]}`, true, 25945, false},
		{"sat empty 8×8", `{"n":8,"backend":"sat"}`, false, 0, false},
		{"sat 12×12 a1 c2", `{"n":12,"backend":"sat","queens":[[0,0],[1,2]]}`, false, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got analyzeWork
			if !postOK(t, ts, "/api/v1/analyze", tt.body, &got) {
				return
			}
			w := got.Work
			if w.DomainsMS == nil || w.CountMS == nil || *w.DomainsMS < 0 || *w.CountMS < 0 {
				t.Fatalf("domains_ms %v, count_ms %v: want both, never negative", w.DomainsMS, w.CountMS)
			}
			if *w.DomainsMS+*w.CountMS > got.ElapsedMS+0.001 {
				t.Errorf("domains_ms %g and count_ms %g add up to more than the step's elapsed_ms %g", *w.DomainsMS, *w.CountMS, got.ElapsedMS)
			}
			if tt.diagram {
				if w.Nodes == nil || w.NodesVisited == nil {
					t.Fatalf("a BDD answer without nodes or nodes_visited: %+v", w)
				}
				if w.SolverCalls != nil || w.ByWitness != nil {
					t.Errorf("a BDD answer with a solver's figures: %+v", w)
				}
				if *w.Nodes != tt.nodes {
					t.Errorf("nodes = %d, want %d (the compiled diagram)", *w.Nodes, tt.nodes)
				}
				lo := int64(1)
				if tt.remembered {
					lo = 0
				}
				if *w.NodesVisited < lo || *w.NodesVisited > *w.Nodes {
					t.Errorf("nodes_visited = %d, want from %d to nodes = %d", *w.NodesVisited, lo, *w.Nodes)
				}
				return
			}
			if w.SolverCalls == nil || w.Conflicts == nil || w.Decisions == nil || w.Learned == nil ||
				w.ByPropagation == nil || w.ByWitness == nil || w.BySolver == nil {
				t.Fatalf("a SAT answer without a solver's figures: %+v", w)
			}
			if w.Nodes != nil || w.NodesVisited != nil {
				t.Errorf("a SAT answer with a diagram's figures: %+v", w)
			}
			if *w.SolverCalls < 0 || *w.Conflicts < 0 || *w.Decisions < 0 || *w.Learned < 0 {
				t.Errorf("negative solver figures: %+v", w)
			}
			decided := *w.ByPropagation + *w.ByWitness + *w.BySolver
			if decided == 0 && *w.SolverCalls == 0 {
				t.Skip("the SAT backend reports no work yet (configurator.Work not filled in)")
			}
			if undecided := got.N*got.N - len(got.Queens); decided > undecided {
				t.Errorf("%d squares decided by propagation, witness and solver, more than the %d without a queen", decided, undecided)
			}
			if *w.BySolver > 0 && *w.SolverCalls == 0 {
				t.Errorf("%d squares decided by the solver without a solver call", *w.BySolver)
			}
		})
	}
}

// ordersAnswer is the answer of /api/v1/orders as a client reads it.
type ordersAnswer struct {
	N       int    `json:"n"`
	Backend string `json:"backend"`
	Orders  []struct {
		Order     string  `json:"order"`
		Nodes     int     `json:"nodes"`
		Bytes     int64   `json:"bytes"`
		CompileMS float64 `json:"compile_ms"`
		PerRank   []int   `json:"per_rank"`
		Error     string  `json:"error"`
	} `json:"orders"`
}

// TestAPIOrders checks /api/v1/orders against the known diagram sizes:
// every order's nodes, its profile per rank summing to them, and an order
// beyond the node budget answered with an error of its own.
func TestAPIOrders(t *testing.T) {
	tight := testConfig()
	tight.BDD.Budget = 900 << 10 // holds 10×10 by rank (25,945 nodes), not by diagonal (29,688)
	_, ts := newTestServer(t, testConfig())
	_, tightTS := newTestServer(t, tight)
	for _, tt := range []struct {
		name string
		url  string
		n    int
		want map[string]int // nodes by order; 0: an error
	}{
		{"8×8", ts.URL, 8, map[string]int{"row": 2451, "col": 2451, "diag": 2787, "middle": 2648}},
		{"10×10", ts.URL, 10, map[string]int{"row": 25945, "col": 25945, "diag": 29688, "middle": 27095}},
		{"10×10 in 900 KiB", tightTS.URL, 10, map[string]int{"row": 25945, "col": 25945, "diag": 0, "middle": 27095}},
		{"1×1", ts.URL, 1, map[string]int{"row": 1, "col": 1, "diag": 1, "middle": 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got ordersAnswer
			server := ts
			if tt.url == tightTS.URL {
				server = tightTS
			}
			if !postOK(t, server, "/api/v1/orders", `{"n":`+strconv.Itoa(tt.n)+`}`, &got) {
				return
			}
			if got.N != tt.n || got.Backend != "bdd" || len(got.Orders) != len(tt.want) {
				t.Fatalf("answer for n=%d: n=%d backend=%q, %d orders", tt.n, got.N, got.Backend, len(got.Orders))
			}
			for _, o := range got.Orders {
				want, ok := tt.want[o.Order]
				switch {
				case !ok:
					t.Errorf("unknown order %q", o.Order)
				case want == 0:
					if !strings.Contains(o.Error, "node budget") || o.Nodes != 0 || o.PerRank != nil {
						t.Errorf("%s: error %q, nodes %d, per_rank %v; want the node budget's error alone", o.Order, o.Error, o.Nodes, o.PerRank)
					}
				default:
					if o.Error != "" || o.Nodes != want {
						t.Errorf("%s: %d nodes (error %q), want %d", o.Order, o.Nodes, o.Error, want)
					}
					if len(o.PerRank) != tt.n || sum(o.PerRank) != o.Nodes {
						t.Errorf("%s: per_rank %v (%d ranks, sum %d), want %d ranks summing to %d", o.Order, o.PerRank, len(o.PerRank), sum(o.PerRank), tt.n, o.Nodes)
					}
					if o.Bytes <= 0 || o.CompileMS <= 0 {
						t.Errorf("%s: bytes %d, compile_ms %g; want both measured", o.Order, o.Bytes, o.CompileMS)
					}
				}
			}
		})
	}
	for _, tt := range []struct {
		body   string
		status int
		want   string
	}{
		{`{}`, 400, `is required`},
		{`{"n":0}`, 400, `is 0; it must be from 1 to 10`},
		{`{"n":11}`, 413, `beyond the limit of the BDD backend`},
		{`{"n":8,"backend":"sat"}`, 422, `The SAT backend ignores the variable order`},
		{`{"n":8,"backend":"both"}`, 400, `is not a backend`},
		{`{"n":8,"order":"row"}`, 400, `Unknown field`},
	} {
		res, body := post(t, ts, "/api/v1/orders", tt.body)
		if res.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %s, want %d with %q", tt.body, res.StatusCode, body, tt.status, tt.want)
		}
	}
	if res, _ := get(t, ts, "/api/v1/orders"); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/v1/orders: %d, want 405", res.StatusCode)
	}
}

// sum adds up ints.
func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
