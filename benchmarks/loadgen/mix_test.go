package loadgen

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

func TestMixRefuses(t *testing.T) {
	for _, m := range []Mix{
		{},
		{BDD: []int{8}},
		{BDD: []int{8}, Weights: map[Kind]float64{Analyze: 0}},
		{BDD: []int{8}, Weights: map[Kind]float64{Analyze: -1}},
		{BDD: []int{8}, Weights: map[Kind]float64{"solve": 1}},
		{BDD: []int{0}, Weights: map[Kind]float64{Analyze: 1}},
		{SAT: []int{configurator.MaxN + 1}, Weights: map[Kind]float64{Analyze: 1}},
	} {
		if _, err := m.Generator(); err == nil {
			t.Errorf("Mix %+v accepted", m)
		}
	}
}

// TestSoakMix draws many requests of the soak's workload and checks them:
// kinds in the proportions of their weights, sizes and backends as asked,
// well-formed bodies and addresses, placements that Model.Attacks allows,
// the statuses each expects, and the same requests for the same seed.
func TestSoakMix(t *testing.T) {
	mix := SoakMix(12, 20)
	gen := mix.MustGenerator()
	rng := rand.New(rand.NewPCG(1, 1))
	const draws = 20000
	kinds := map[string]int{}
	sizes := map[string]map[int]bool{"bdd": {}, "sat": {}}
	models := map[int]*configurator.Model{}
	model := func(n int) *configurator.Model {
		if models[n] == nil {
			m := configuratortest.Model(t, n, configurator.RowMajor)
			models[n] = m
		}
		return models[n]
	}
	checkQueens := func(r Request, n int, queens []configurator.Cell) {
		m := model(n)
		for i, q := range queens {
			if !m.Contains(q) {
				t.Fatalf("%s: queen %v off the %d×%d board", r.Path, q, n, n)
			}
			for _, p := range queens[:i] {
				if m.Attacks(p, q) || p == q {
					t.Fatalf("%s: queens %v and %v attack each other", r.Path, p, q)
				}
			}
		}
	}
	for range draws {
		r := gen(rng)
		kind, backend, _ := strings.Cut(r.Label, " ")
		kind = strings.TrimSuffix(kind, ":")
		kinds[kind]++
		if len(r.Want) == 0 {
			t.Fatalf("%s: no expected statuses", r.Label)
		}
		for _, st := range r.Want {
			if st >= 500 {
				t.Fatalf("%s expects %d", r.Label, st)
			}
		}
		switch kind {
		case "analyze", "explain", "complete":
			var b apiBody
			dec := json.NewDecoder(strings.NewReader(string(r.Body)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&b); err != nil || r.Method != http.MethodPost || r.Path != "/api/v1/"+kind {
				t.Fatalf("%s %s: %v: %s", r.Method, r.Path, err, r.Body)
			}
			if b.Backend != backend || (kind == "explain") != (b.Cell != nil) {
				t.Fatalf("%s: body %s", r.Label, r.Body)
			}
			if b.Order != "" && (backend != "bdd" || b.N > mix.Orders) {
				t.Fatalf("%s: order %q on %d×%d", r.Label, b.Order, b.N, b.N)
			}
			sizes[backend][b.N] = true
			var queens []configurator.Cell
			for _, p := range b.Queens {
				queens = append(queens, configurator.Cell{Row: p[0], Col: p[1]})
			}
			checkQueens(r, b.N, queens)
		case "page", "play", "diagram":
			u, err := url.Parse(r.Path)
			if err != nil {
				t.Fatal(err)
			}
			v := u.Query()
			n, ok := configurator.ParseBoardID(v.Get("model"))
			if !ok {
				t.Fatalf("%s: no board", r.Path)
			}
			queens, err := configurator.ParseCells(v.Get("select"))
			if err != nil {
				t.Fatalf("%s: %v", r.Path, err)
			}
			checkQueens(r, n, queens)
			if kind == "diagram" && (n > 5 || len(queens) > 1 || u.Path != "/model-diagram") {
				t.Fatalf("diagram request %s", r.Path)
			}
			if b := v.Get("backend"); kind != "diagram" && b != "both" && b != "bdd" && b != "sat" {
				t.Fatalf("%s: backend %q", r.Path, b)
			}
			if kind == "play" && u.Path != "/" && u.Path != "/model-complete" {
				t.Fatalf("%s: a step of no page", r.Path)
			}
			if kind == "play" && r.Header.Get("HX-Request") != "true" && !strings.HasPrefix(r.Label, "play nojs") {
				t.Fatalf("%s: an htmx control without HX-Request", r.Path)
			}
		case "bad":
			for _, st := range r.Want {
				if st < 400 {
					t.Fatalf("%s expects %d", r.Label, st)
				}
			}
		default:
			t.Fatalf("unknown label %q", r.Label)
		}
	}
	var total float64
	for _, w := range mix.Weights {
		total += w
	}
	for k, w := range mix.Weights {
		want := draws * w / total
		if got := float64(kinds[string(k)]); got < 0.85*want || got > 1.15*want {
			t.Errorf("%s: %v of %d draws, want about %.0f", k, got, draws, want)
		}
	}
	for backend, maxN := range map[string]int{"bdd": 12, "sat": 20} {
		for n := 1; n <= maxN; n++ {
			if !sizes[backend][n] {
				t.Errorf("%s %d×%d never asked", backend, n, n)
			}
		}
		if sizes[backend][maxN+1] {
			t.Errorf("%s asked beyond its largest size", backend)
		}
	}

	// The same seed gives the same requests.
	a, b := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
	for range 200 {
		if ra, rb := gen(a), gen(b); !reflect.DeepEqual(ra, rb) {
			t.Fatalf("one seed, two requests:\n%+v\n%+v", ra, rb)
		}
	}
}

// TestBenchmarkMix checks a mix of one kind on one board, as the server
// benchmarks use: every request is an analysis of that board.
func TestBenchmarkMix(t *testing.T) {
	gen := Mix{SAT: []int{20}, Weights: map[Kind]float64{Analyze: 1}}.MustGenerator()
	rng := rand.New(rand.NewPCG(3, 3))
	for range 500 {
		r := gen(rng)
		var b apiBody
		if err := json.Unmarshal(r.Body, &b); err != nil || r.Label != "analyze sat" || b.N != 20 || b.Backend != "sat" {
			t.Fatalf("%+v: %s", r, r.Body)
		}
	}
}

func TestDiagramPaths(t *testing.T) {
	paths := DiagramPaths(Mix{BDD: []int{4}})
	// 1 + 1, 1 + 4, 1 + 9, 1 + 16 drawings for the boards 1×1 to 4×4.
	if len(paths) != 34 || paths[0] != "/model-diagram?model=queens-1" || !slices.Contains(paths, "/model-diagram?model=queens-4&select=d4") {
		t.Errorf("%d paths: %v", len(paths), paths)
	}
	if n := len(DiagramPaths(Mix{BDD: []int{14}})); n != 5+1+4+9+16+25 {
		t.Errorf("%d paths up to 5×5", n)
	}
}
