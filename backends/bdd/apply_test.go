package bdd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// OEIS A000170: the number of solutions of N-Queens, N = 1..12.
var oeisA000170 = []int64{1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// Canonical ROBDD sizes of N-Queens, row-major, terminals excluded, as
// BuDDy's bdd_nodecount gives them (N = 1..3 by hand: x0, False, False).
var buddyNodeCounts = []int{1, 0, 0, 29, 167, 129, 1099, 2451, 9557, 25945, 94822, 435170}

func compile(t testing.TB, n int, order configurator.Order) (*configurator.Model, *robdd.Manager, robdd.Node) {
	t.Helper()
	model := configuratortest.Model(t, n, order)
	m, root := compileFresh(t, CompileApply, model)
	return model, m, root
}

func TestCompileApplyRowMajor(t *testing.T) {
	top := 10
	if testing.Short() {
		top = 9
	}
	for n := 1; n <= top; n++ {
		_, m, root := compile(t, n, configurator.RowMajor)
		if got := m.SatCount(root); got.Int64() != oeisA000170[n-1] {
			t.Errorf("N=%d: %v solutions, want %d", n, got, oeisA000170[n-1])
		}
		if got := m.NodeCount(root); got != buddyNodeCounts[n-1] {
			t.Errorf("N=%d: %d nodes, want %d", n, got, buddyNodeCounts[n-1])
		}
		// The call collected its garbage: the store is the diagram.
		if got, want := m.Size(), buddyNodeCounts[n-1]+2; got != want {
			t.Errorf("N=%d: %d nodes left in the store, want %d", n, got, want)
		}
	}
}

func TestCompileApplyOtherOrders(t *testing.T) {
	for _, order := range []configurator.Order{configurator.ColMajor, configurator.Diagonal, configurator.MiddleOut} {
		for n := 1; n <= 8; n++ {
			model, m, root := compile(t, n, order)
			if got := m.SatCount(root); got.Int64() != oeisA000170[n-1] {
				t.Errorf("%v N=%d: %v solutions, want %d", order, n, got, oeisA000170[n-1])
			}
			// Every solution has one queen per rank and respects the model.
			for sol := range m.Solutions(root, nil) {
				if err := checkQueens(model, sol); err != nil {
					t.Fatalf("%v N=%d: %v", order, n, err)
				}
			}
		}
	}
}

// checkQueens checks a solution, indexed by level, against the model's
// constraints.
func checkQueens(model *configurator.Model, sol []bool) error {
	for _, c := range model.Constraints() {
		k := 0
		for _, cell := range c.Cells {
			if sol[model.Level(model.Var(cell))] {
				k++
			}
		}
		if k > 1 || c.Kind == configurator.ExactlyOne && k != 1 {
			return fmt.Errorf("constraint %s holds %d queens", c.Name, k)
		}
	}
	return nil
}

// modelSolutions enumerates the solutions of a model by backtracking over
// its variables in row-major order, checking its constraints as each
// closes: the brute force the diagrams are compared with. Solutions are
// indexed by level.
func modelSolutions(model *configurator.Model) [][]bool {
	vars := model.Vars()
	cs := model.Constraints()
	in := make([][]int, vars)     // variable -> constraints holding it
	closes := make([][]int, vars) // variable -> constraints it is the last of
	for i, c := range cs {
		last := -1
		for _, cell := range c.Cells {
			v := model.Var(cell)
			in[v] = append(in[v], i)
			last = max(last, v)
		}
		if last >= 0 {
			closes[last] = append(closes[last], i)
		}
	}
	queens := make([]int, len(cs))
	x := make([]bool, vars)
	var sols [][]bool
	var search func(v int)
	search = func(v int) {
		if v == vars {
			for _, c := range cs {
				if c.Kind == configurator.ExactlyOne && len(c.Cells) == 0 {
					return
				}
			}
			sol := make([]bool, vars)
			for u, q := range x {
				sol[model.Level(u)] = q
			}
			sols = append(sols, sol)
			return
		}
		for _, q := range []bool{false, true} {
			ok := true
			if q {
				for _, i := range in[v] {
					if queens[i]++; queens[i] > 1 {
						ok = false
					}
				}
			}
			for _, i := range closes[v] {
				if cs[i].Kind == configurator.ExactlyOne && queens[i] != 1 {
					ok = false
				}
			}
			x[v] = q
			if ok {
				search(v + 1)
			}
			if q {
				for _, i := range in[v] {
					queens[i]--
				}
			}
		}
		x[v] = false
	}
	search(0)
	return sols
}

func TestCompileApplyCustomModels(t *testing.T) {
	full4 := configuratortest.Model(t, 4, configurator.RowMajor)
	full3 := configuratortest.Model(t, 3, configurator.ColMajor)
	var noDiagonals, onlyAtMostOne, twoRows []configurator.Constraint
	for _, c := range full4.Constraints() {
		if !strings.Contains(c.Name, "diagonal") {
			noDiagonals = append(noDiagonals, c)
		}
	}
	for _, c := range full3.Constraints() {
		c.Kind = configurator.AtMostOne
		onlyAtMostOne = append(onlyAtMostOne, c)
	}
	for i, c := range full4.Constraints() {
		if c.Kind == configurator.ExactlyOne && i >= 2 {
			c.Kind = configurator.AtMostOne
		}
		twoRows = append(twoRows, c)
	}
	tests := []struct {
		name  string
		n     int
		order configurator.Order
		cs    []configurator.Constraint
		want  int // solutions, when known by heart
	}{
		{"rooks: rows and files of 4", 4, configurator.RowMajor, noDiagonals, 24},
		{"no exactly-one: independent sets of the 3x3 queens graph", 3, configurator.ColMajor, onlyAtMostOne, -1},
		{"two ranks exactly one, the others at most one", 4, configurator.Diagonal, twoRows, -1},
		{"no constraints", 2, configurator.RowMajor, nil, 16},
		{"an empty exactly-one", 2, configurator.RowMajor, []configurator.Constraint{{Kind: configurator.ExactlyOne, Name: "empty"}}, 0},
	}
	for _, tt := range tests {
		model, err := configurator.Custom(tt.n, tt.order, tt.cs)
		if err != nil {
			t.Fatal(err)
		}
		m, root := compileFresh(t, CompileApply, model)
		want := modelSolutions(model)
		if tt.want >= 0 && len(want) != tt.want {
			t.Fatalf("%s: brute force found %d solutions, expected %d", tt.name, len(want), tt.want)
		}
		got := slices.Collect(m.Solutions(root, nil))
		byText := func(x, y []bool) int { return strings.Compare(fmt.Sprint(x), fmt.Sprint(y)) }
		slices.SortFunc(want, byText)
		slices.SortFunc(got, byText)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: %d solutions, brute force %d", tt.name, len(got), len(want))
		}
	}
}

func TestCompileApplyNodeLimit(t *testing.T) {
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	m := robdd.New(model.Vars(), 1500*robdd.BytesPerNode) // N=8 ends at 2451 nodes
	start := time.Now()
	_, err := CompileApply(context.Background(), m, model)
	if !errors.Is(err, robdd.ErrNodeLimit) {
		t.Fatalf("N=8 in 1500 nodes: err = %v, want robdd.ErrNodeLimit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the failure took %v", d)
	}
	if m.Size() != 2 {
		t.Errorf("after the failure the store holds %d nodes, want the 2 terminals", m.Size())
	}
	// The manager is healthy: the 8 ranks alone (8^8 placements) fit.
	var ranks []configurator.Constraint
	for _, c := range model.Constraints() {
		if c.Kind == configurator.ExactlyOne {
			ranks = append(ranks, c)
		}
	}
	rooks, _ := configurator.Custom(8, configurator.RowMajor, ranks)
	root, err := CompileApply(context.Background(), m, rooks)
	if err != nil {
		t.Fatalf("one queen per rank after the failure: %v", err)
	}
	if got := m.SatCount(root); got.Int64() != 1<<24 {
		t.Errorf("one queen per rank of 8: %v, want 8^8", got)
	}
	// A model of another size does not fit this manager.
	small := configuratortest.Model(t, 5, configurator.RowMajor)
	if _, err := CompileApply(context.Background(), m, small); err == nil {
		t.Error("a 25-variable model compiled into a 64-variable manager")
	}
}

func TestCompileApplyKeepsEarlierNodes(t *testing.T) {
	model := configuratortest.Model(t, 6, configurator.RowMajor)
	m := robdd.New(model.Vars(), 0)
	x, _ := m.Var(7)
	first, err := CompileApply(context.Background(), m, model)
	if err != nil {
		t.Fatal(err)
	}
	second, err := CompileApply(context.Background(), m, model)
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("the same model compiled twice: nodes %d and %d", first, second)
	}
	if y, _ := m.Var(7); y != x || m.Level(x) != 7 {
		t.Errorf("a node made before the compile moved: %d, now %d", x, y)
	}
	if got := m.SatCount(second).Int64(); got != 4 {
		t.Errorf("6-queens: %d solutions", got)
	}
}

// placement draws a random partial assignment of a board: a few queens
// (some of them clashing) and a few cells kept empty.
func placement(rng *rand.Rand, model *configurator.Model) robdd.Assignment {
	a := make(robdd.Assignment, model.Vars())
	for i := range a {
		a[i] = robdd.Unassigned
	}
	for range rng.IntN(3) + rng.IntN(2) {
		a[rng.IntN(len(a))] = 1
	}
	for range rng.IntN(4) {
		a[rng.IntN(len(a))] = 0
	}
	return a
}

func TestQueensQueriesMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for _, order := range []configurator.Order{configurator.RowMajor, configurator.MiddleOut} {
		for n := 4; n <= 8; n++ {
			model, m, root := compile(t, n, order)
			all := modelSolutions(model)
			for trial := range 40 {
				a := placement(rng, model)
				name := fmt.Sprintf("%v N=%d trial %d", order, n, trial)
				var sols [][]bool
				for _, s := range all {
					if agreesSlice(a, s) {
						sols = append(sols, s)
					}
				}
				ones := make([]int, m.Vars())
				dom := make([]robdd.Domain, m.Vars())
				for _, s := range sols {
					for l, q := range s {
						if q {
							ones[l]++
							dom[l] |= robdd.CanBeTrue
						} else {
							dom[l] |= robdd.CanBeFalse
						}
					}
				}
				if got := m.Count(root, a); got.Int64() != int64(len(sols)) {
					t.Fatalf("%s: Count %v, want %d", name, got, len(sols))
				}
				if got, _ := m.ValidDomains(root, a); !slices.Equal(got, dom) {
					t.Fatalf("%s: domains differ from brute force", name)
				}
				gotOnes, total := m.Marginals(root, a)
				if total.Int64() != int64(len(sols)) {
					t.Fatalf("%s: Marginals total %v, want %d", name, total, len(sols))
				}
				for l := range ones {
					if gotOnes[l].Int64() != int64(ones[l]) {
						t.Fatalf("%s: level %d true in %v solutions, want %d", name, l, gotOnes[l], ones[l])
					}
				}
				any, ok := m.AnySat(root, a)
				if ok != (len(sols) > 0) || ok && !slices.ContainsFunc(sols, func(s []bool) bool { return slices.Equal(s, any) }) {
					t.Fatalf("%s: AnySat = %v, %v", name, any, ok)
				}
				r, ok := m.RandomSat(root, a, rng)
				if ok != (len(sols) > 0) || ok && !slices.ContainsFunc(sols, func(s []bool) bool { return slices.Equal(s, r) }) {
					t.Fatalf("%s: RandomSat = %v, %v", name, r, ok)
				}
			}
		}
	}
}

func agreesSlice(a robdd.Assignment, sol []bool) bool {
	for l, v := range a {
		if v == 0 && sol[l] || v == 1 && !sol[l] {
			return false
		}
	}
	return true
}

// TestConcurrentReaders runs every read-only query from many goroutines on
// one diagram; under -race it proves they do not write to the Manager, and
// the answers must equal the sequential ones.
func TestConcurrentReaders(t *testing.T) {
	model, m, root := compile(t, 8, configurator.RowMajor)
	a := make(robdd.Assignment, model.Vars())
	for i := range a {
		a[i] = robdd.Unassigned
	}
	a[model.Level(model.Var(configurator.Cell{Row: 0, Col: 0}))] = 1
	wantDom, _ := m.ValidDomains(root, a)
	wantOnes, wantTotal := m.Marginals(root, a)
	var wantDOT strings.Builder
	m.WriteDOT(&wantDOT, root, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 13))
			for range 20 {
				if dom, _ := m.ValidDomains(root, a); !slices.Equal(dom, wantDom) {
					errs <- errors.New("ValidDomains differs")
				}
				ones, total := m.Marginals(root, a)
				if total.Cmp(wantTotal) != 0 || ones[20].Cmp(wantOnes[20]) != 0 {
					errs <- errors.New("Marginals differs")
				}
				if m.Count(root, nil).Int64() != 92 || m.NodeCount(root) != 2451 {
					errs <- errors.New("Count or NodeCount differs")
				}
				if s, ok := m.RandomSat(root, a, rng); !ok || checkQueens(model, s) != nil {
					errs <- errors.New("RandomSat gave a non-solution")
				}
				if s, ok := m.AnySat(root, a); !ok || checkQueens(model, s) != nil {
					errs <- errors.New("AnySat gave a non-solution")
				}
				k := 0
				for range m.Solutions(root, a) {
					k++
				}
				if k != 4 { // 4 of the 92 solutions have a queen on a1
					errs <- fmt.Errorf("Solutions with a1: %d", k)
				}
				var dot strings.Builder
				if m.WriteDOT(&dot, root, nil); dot.String() != wantDOT.String() {
					errs <- errors.New("WriteDOT differs")
				}
				if _, r, err := m.Extract(context.Background(), root, a, 0); err != nil || r <= robdd.True {
					errs <- fmt.Errorf("Extract: %v", err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func BenchmarkCompileApply(b *testing.B) {
	benchCompile(b, CompileApply, 8, 9, 10, 11)
}

// benchQueries measures a query on the N-Queens diagram under a placement
// of one queen, and reports its time per node of the diagram.
func benchQueries(b *testing.B, query func(m *robdd.Manager, root robdd.Node, a robdd.Assignment)) {
	for _, n := range []int{8, 10, 11} {
		model, m, root := compile(b, n, configurator.RowMajor)
		a := make(robdd.Assignment, model.Vars())
		for i := range a {
			a[i] = robdd.Unassigned
		}
		a[model.Level(model.Var(configurator.Cell{Row: n / 2, Col: n / 3}))] = 1
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			for b.Loop() {
				query(m, root, a)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m.NodeCount(root)), "ns/node")
		})
	}
}

func BenchmarkValidDomains(b *testing.B) {
	benchQueries(b, func(m *robdd.Manager, root robdd.Node, a robdd.Assignment) { m.ValidDomains(root, a) })
}

func BenchmarkMarginals(b *testing.B) {
	benchQueries(b, func(m *robdd.Manager, root robdd.Node, a robdd.Assignment) { m.Marginals(root, a) })
}

func BenchmarkRandomSat(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	benchQueries(b, func(m *robdd.Manager, root robdd.Node, a robdd.Assignment) { m.RandomSat(root, a, rng) })
}

func BenchmarkAnySat(b *testing.B) {
	benchQueries(b, func(m *robdd.Manager, root robdd.Node, a robdd.Assignment) { m.AnySat(root, a) })
}
