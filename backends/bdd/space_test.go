package bdd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
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

// The Space must satisfy the interfaces the configurator discovers.
var (
	_ configurator.Backend           = (*Backend)(nil)
	_ configurator.Occupier          = (*Backend)(nil)
	_ configurator.Board             = (*Space)(nil)
	_ configurator.FeatureSampler    = (*Space)(nil)
	_ configurator.FeatureMarginaler = (*Space)(nil)
	_ configurator.Diagrammer        = (*Space)(nil)
	_ configurator.Sizer             = (*Space)(nil)
)

func compileSpace(t testing.TB, n int, o configurator.Order, method Method) *Space {
	t.Helper()
	return configuratortest.Space(t, New(Options{Method: method}), configuratortest.Model(t, n, o)).(*Space)
}

func TestParseMethod(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Method
		err  bool
	}{
		{"direct", Direct, false},
		{"apply", Apply, false},
		{"Direct", 0, true},
		{"", 0, true},
	} {
		got, err := ParseMethod(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseMethod(%q) = %v, %v", tt.in, got, err)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
		if tt.err && !errors.Is(err, ErrMethod) {
			t.Errorf("ParseMethod(%q): %v, want ErrMethod", tt.in, err)
		}
	}
}

func TestCompileReportsSizeAndNodes(t *testing.T) {
	b := New(Options{})
	if b.Name() != "bdd" {
		t.Errorf("Name() = %q", b.Name())
	}
	for _, method := range []Method{Direct, Apply} {
		sp := compileSpace(t, 8, configurator.RowMajor, method)
		if sp.Nodes() != queensNodes[8] {
			t.Errorf("%v: %d nodes, want %d", method, sp.Nodes(), queensNodes[8])
		}
		if sp.Manager().NodeCount(sp.Root()) != sp.Nodes() {
			t.Errorf("%v: Root reaches %d nodes, Nodes() = %d", method, sp.Manager().NodeCount(sp.Root()), sp.Nodes())
		}
		// 20 to 40 bytes a node, with the unique table and the slack of
		// the slices.
		if b := sp.Bytes(); b < 16*int64(sp.Nodes()) || b > 1<<20 {
			t.Errorf("%v: Bytes() = %d for %d nodes", method, b, sp.Nodes())
		}
	}
}

func TestCompileBeyondTheBudgetIsTooLarge(t *testing.T) {
	for _, method := range []Method{Direct, Apply} {
		_, err := New(Options{Budget: 64 << 10, Method: method}).Compile(context.Background(), configuratortest.Model(t, 10, configurator.RowMajor))
		if !errors.Is(err, robdd.ErrNodeLimit) || !errors.Is(err, configurator.ErrTooLarge) {
			t.Errorf("%v: 10-queens in 64 KiB: %v, want robdd.ErrNodeLimit and ErrTooLarge", method, err)
		}
	}
	// The largest board: its constraints alone, as the direct path's
	// bitsets, would take 126 GB, so it fails at once.
	model := configuratortest.Model(t, configurator.MaxN, configurator.RowMajor)
	start := time.Now()
	_, err := New(Options{}).Compile(context.Background(), model)
	if !errors.Is(err, configurator.ErrTooLarge) {
		t.Errorf("%d-queens: %v, want ErrTooLarge", configurator.MaxN, err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("%d-queens: ErrTooLarge after %v", configurator.MaxN, elapsed)
	}
}

func TestCompileHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, method := range []Method{Direct, Apply} {
		_, err := New(Options{Method: method}).Compile(ctx, configuratortest.Model(t, 8, configurator.RowMajor))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v: compile with a cancelled context: %v", method, err)
		}
	}
}

// TestAnalyzeExamples spells out small boards: a queen on b1 of the 4×4
// board leaves one solution and forces its three queens; the empty 6×6
// board already has cells in no solution.
func TestAnalyzeExamples(t *testing.T) {
	tests := []struct {
		n                int
		queens           string
		solutions        int64
		forced, blocked  string
		noSolution       bool
		blockedCountOnly int
	}{
		{n: 4, queens: "", solutions: 2, forced: "", blocked: "a1,d1,a4,d4,b2,c2,b3,c3"},
		{n: 4, queens: "b1", solutions: 1, forced: "d2,a3,c4", blocked: "a1,c1,d1,a2,b2,c2,b3,c3,d3,a4,b4,d4"},
		{n: 4, queens: "a1", noSolution: true},
		{n: 6, queens: "", solutions: 4, blockedCountOnly: 12},
		{n: 8, queens: "a1", solutions: 4},
		{n: 8, queens: "a1,b2", noSolution: true},
	}
	for _, tt := range tests {
		for _, method := range []Method{Direct, Apply} {
			t.Run(fmt.Sprintf("%v/n=%d/%s", method, tt.n, tt.queens), func(t *testing.T) {
				sp := compileSpace(t, tt.n, configurator.RowMajor, method)
				a, err := sp.Analyze(context.Background(), configuratortest.Cells(t, tt.queens))
				if tt.noSolution {
					if !errors.Is(err, configurator.ErrNoSolution) {
						t.Fatalf("Analyze: %v, want ErrNoSolution", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if a.Solutions.Cmp(big.NewInt(tt.solutions)) != 0 || a.AtLeast {
					t.Errorf("%v solutions (at least: %v), want %d", a.Solutions, a.AtLeast, tt.solutions)
				}
				if got := configurator.FormatCells(a.In(configurator.Queen)); got != sortedCells(t, tt.queens) {
					t.Errorf("queens %s, want %s", got, tt.queens)
				}
				if got := configurator.FormatCells(a.In(configurator.Forced)); got != sortedCells(t, tt.forced) {
					t.Errorf("forced %s, want %s", got, tt.forced)
				}
				if tt.blockedCountOnly > 0 {
					if got := len(a.In(configurator.Blocked)); got != tt.blockedCountOnly {
						t.Errorf("%d blocked cells, want %d", got, tt.blockedCountOnly)
					}
				} else if tt.blocked != "" || tt.queens == "" {
					if got := configurator.FormatCells(a.In(configurator.Blocked)); got != sortedCells(t, tt.blocked) {
						t.Errorf("blocked %s, want %s", got, tt.blocked)
					}
				}
			})
		}
	}
}

// sortedCells puts a list of cells in chess notation in row-major order,
// the order of Analysis.In.
func sortedCells(t testing.TB, s string) string {
	cs := configuratortest.Cells(t, s)
	slices.SortFunc(cs, func(a, b configurator.Cell) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	return configurator.FormatCells(cs)
}

// solutionSet is every solution of a model of at most 64 variables, each a
// bit set of variables, found by backtracking over the model's constraints.
func solutionSet(model *configurator.Model) []uint64 {
	V := model.Vars()
	attack := make([]uint64, V)
	lastOf := make([][]uint64, V) // the ExactlyOne lines whose last variable is v
	for _, c := range model.Constraints() {
		var mask uint64
		last := -1
		for _, cell := range c.Cells {
			v := model.Var(cell)
			mask |= 1 << v
			last = max(last, v)
		}
		for _, cell := range c.Cells {
			attack[model.Var(cell)] |= mask &^ (1 << model.Var(cell))
		}
		if c.Kind == configurator.ExactlyOne {
			if last >= 0 {
				lastOf[last] = append(lastOf[last], mask)
			}
		}
	}
	var out []uint64
	var search func(v int, chosen, blocked uint64)
	search = func(v int, chosen, blocked uint64) {
		if v > 0 {
			for _, line := range lastOf[v-1] {
				if chosen&line == 0 {
					return
				}
			}
		}
		if v == V {
			out = append(out, chosen)
			return
		}
		search(v+1, chosen, blocked)
		if blocked&(1<<v) == 0 {
			search(v+1, chosen|1<<v, blocked|attack[v])
		}
	}
	search(0, 0, 0)
	return out
}

func maskOf(model *configurator.Model, cs []configurator.Cell) uint64 {
	var m uint64
	for _, c := range cs {
		m |= 1 << model.Var(c)
	}
	return m
}

// randomPlacement draws distinct cells: half of the time some queens of a
// solution (a placement that some solution holds), otherwise any cells.
func randomPlacement(rng *rand.Rand, model *configurator.Model, sols []uint64) []configurator.Cell {
	var pool []int
	if len(sols) > 0 && rng.IntN(2) == 0 {
		s := sols[rng.IntN(len(sols))]
		for ; s != 0; s &= s - 1 {
			pool = append(pool, bits.TrailingZeros64(s))
		}
	} else {
		pool = rng.Perm(model.Vars())
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	k := rng.IntN(min(len(pool), model.N()/2+2) + 1)
	var cs []configurator.Cell
	for _, v := range pool[:k] {
		cs = append(cs, model.Cell(v))
	}
	return cs
}

// TestSpaceMatchesBruteForce checks every query of both compile methods,
// in row-major and diagonal order, against the list of all solutions for
// random placements on boards up to 8×8.
func TestSpaceMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	for _, o := range []configurator.Order{configurator.RowMajor, configurator.Diagonal} {
		for n := 1; n <= 8; n++ {
			model := configuratortest.Model(t, n, o)
			sols := solutionSet(model)
			if int64(len(sols)) != queensSolutions[n-1] {
				t.Fatalf("the test's enumerator finds %d solutions of %d-queens", len(sols), n)
			}
			for _, method := range []Method{Direct, Apply} {
				sp := compileSpace(t, n, o, method)
				rng := rand.New(rand.NewPCG(uint64(n), uint64(method)))
				t.Run(fmt.Sprintf("order=%v/method=%v/n=%d", o, method, n), func(t *testing.T) {
					for range 40 {
						queens := randomPlacement(rng, model, sols)
						checkPlacement(t, ctx, sp, model, sols, queens)
						without := randomPlacement(rng, model, nil)
						want := false
						for _, s := range sols {
							if s&maskOf(model, queens) == maskOf(model, queens) && s&maskOf(model, without) == 0 {
								want = true
								break
							}
						}
						if got, err := sp.Satisfiable(ctx, queens, without); err != nil || got != want {
							t.Errorf("Satisfiable(%s, %s) = %v, %v; want %v", configurator.FormatCells(queens), configurator.FormatCells(without), got, err, want)
						}
					}
				})
			}
		}
	}
}

// TestBoardsOfNoneOrOneQueenMatchBruteForce checks every board of none or
// one queen up to 8×8, in row and diagonal order: their marginals are
// summed over the boards of one more queen and their samples drawn in two
// steps (see marginalsByRank and Sample), so each is checked against the
// brute-force answer, on the first call and on the kept one.
func TestBoardsOfNoneOrOneQueenMatchBruteForce(t *testing.T) {
	ctx := context.Background()
	for _, o := range []configurator.Order{configurator.RowMajor, configurator.Diagonal} {
		for n := 1; n <= 8; n++ {
			model := configuratortest.Model(t, n, o)
			sols := solutionSet(model)
			sp := compileSpace(t, n, o, Direct)
			boards := [][]configurator.Cell{nil}
			for v := range model.Vars() {
				boards = append(boards, []configurator.Cell{model.Cell(v)})
			}
			for range 2 {
				for _, queens := range boards {
					checkPlacement(t, ctx, sp, model, sols, queens)
				}
			}
		}
	}
}

// checkPlacement compares Analyze, Solve, Sample and Marginals on queens
// with the solutions that hold them.
func checkPlacement(t *testing.T, ctx context.Context, sp *Space, model *configurator.Model, sols []uint64, queens []configurator.Cell) {
	t.Helper()
	q := maskOf(model, queens)
	var holding []uint64
	var all, any uint64 = ^uint64(0), 0
	for _, s := range sols {
		if s&q == q {
			holding = append(holding, s)
			all &= s
			any |= s
		}
	}
	name := configurator.FormatCells(queens)
	a, err := sp.Analyze(ctx, queens)
	if len(holding) == 0 {
		if !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("Analyze(%s): %v, want ErrNoSolution", name, err)
		}
		if _, err := sp.Solve(ctx, queens); !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("Solve(%s): %v, want ErrNoSolution", name, err)
		}
		if _, err := sp.Sample(ctx, queens, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("Sample(%s): %v, want ErrNoSolution", name, err)
		}
		if _, err := sp.Marginals(ctx, queens); !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("Marginals(%s): %v, want ErrNoSolution", name, err)
		}
		if ok, err := sp.Satisfiable(ctx, queens, nil); ok || err != nil {
			t.Errorf("Satisfiable(%s, none) = %v, %v; want false", name, ok, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Analyze(%s): %v", name, err)
	}
	if a.N != model.N() || a.Solutions.Cmp(big.NewInt(int64(len(holding)))) != 0 {
		t.Errorf("Analyze(%s): N %d, %v solutions; want %d, %d", name, a.N, a.Solutions, model.N(), len(holding))
	}
	for v := range model.Vars() {
		bit := uint64(1) << v
		want := configurator.Free
		switch {
		case q&bit != 0:
			want = configurator.Queen
		case any&bit == 0:
			want = configurator.Blocked
		case all&bit != 0:
			want = configurator.Forced
		}
		if got := a.Cells[v]; got != want {
			t.Errorf("Analyze(%s): %v is %v, want %v", name, model.Cell(v), got, want)
		}
	}
	sol, err := sp.Solve(ctx, queens)
	if err != nil || !slices.Contains(holding, maskOf(model, sol)) {
		t.Errorf("Solve(%s) = %s, %v: not a solution holding them", name, configurator.FormatCells(sol), err)
	}
	sample, err := sp.Sample(ctx, queens, rand.New(rand.NewPCG(2, 3)))
	if err != nil || !slices.Contains(holding, maskOf(model, sample)) {
		t.Errorf("Sample(%s) = %s, %v: not a solution holding them", name, configurator.FormatCells(sample), err)
	}
	marg, err := sp.Marginals(ctx, queens)
	if err != nil {
		t.Fatalf("Marginals(%s): %v", name, err)
	}
	for v := range model.Vars() {
		want := 0
		for _, s := range holding {
			if s&(1<<v) != 0 {
				want++
			}
		}
		if marg[v].Cmp(big.NewInt(int64(want))) != 0 {
			t.Errorf("Marginals(%s): %v in %v solutions, want %d", name, model.Cell(v), marg[v], want)
		}
	}
	if ok, err := sp.Satisfiable(ctx, queens, nil); !ok || err != nil {
		t.Errorf("Satisfiable(%s, none) = %v, %v; want true", name, ok, err)
	}
}

func TestSatisfiableContradiction(t *testing.T) {
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	c := configuratortest.Cells(t, "a2")
	if ok, err := sp.Satisfiable(context.Background(), c, c); ok || err != nil {
		t.Errorf("Satisfiable(a2, without a2) = %v, %v; want false", ok, err)
	}
}

func TestQueriesRejectBadCells(t *testing.T) {
	sp := compileSpace(t, 4, configurator.RowMajor, Direct)
	ctx := context.Background()
	off := []configurator.Cell{{Row: 4, Col: 0}}
	if _, err := sp.Analyze(ctx, off); !errors.Is(err, configurator.ErrOffBoard) {
		t.Errorf("Analyze(off board): %v", err)
	}
	if _, err := sp.Satisfiable(ctx, nil, off); !errors.Is(err, configurator.ErrOffBoard) {
		t.Errorf("Satisfiable(off board): %v", err)
	}
	twice := configuratortest.Cells(t, "b1,b1")
	if _, err := sp.Solve(ctx, twice); !errors.Is(err, configurator.ErrDuplicate) {
		t.Errorf("Solve(b1,b1): %v", err)
	}
	// Excluding a cell twice is no error.
	if ok, err := sp.Satisfiable(ctx, configuratortest.Cells(t, "b1"), configuratortest.Cells(t, "a2,a2")); !ok || err != nil {
		t.Errorf("Satisfiable(b1, without a2,a2) = %v, %v; want true", ok, err)
	}
}

// TestMarginalsSumToQueensPerSolution: every solution of N-Queens holds N
// queens, so the marginals add up to N times the count.
func TestMarginalsSumToQueensPerSolution(t *testing.T) {
	for _, n := range []int{5, 8, 10} {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		for _, queens := range []string{"", "c1", "c1,a2"} {
			qs := configuratortest.Cells(t, queens)
			a, err := sp.Analyze(context.Background(), qs)
			if errors.Is(err, configurator.ErrNoSolution) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			marg, err := sp.Marginals(context.Background(), qs)
			if err != nil {
				t.Fatal(err)
			}
			sum := new(big.Int)
			for _, m := range marg {
				sum.Add(sum, m)
			}
			if want := new(big.Int).Mul(a.Solutions, big.NewInt(int64(n))); sum.Cmp(want) != 0 {
				t.Errorf("%d-queens, %q: marginals sum to %v, want %v", n, queens, sum, want)
			}
		}
	}
}

// TestSampleIsUniform draws 250 samples per solution of 6-queens (4
// solutions), of 8-queens with a queen on c1 (16 solutions) and of boards
// of none and one queen off the first rank, drawn in two steps (see
// Sample): each should come up about as often as the others. With
// -short, the first two.
func TestSampleIsUniform(t *testing.T) {
	for i, tt := range []struct {
		n      int
		queens string
	}{{6, ""}, {8, "c1"}, {7, ""}, {8, "d4"}, {8, "h8"}, {9, "e5"}} {
		if testing.Short() && i >= 2 {
			break
		}
		sp := compileSpace(t, tt.n, configurator.RowMajor, Direct)
		qs := configuratortest.Cells(t, tt.queens)
		a, err := sp.Analyze(context.Background(), qs)
		if err != nil {
			t.Fatal(err)
		}
		k := int(a.Solutions.Int64())
		rng := rand.New(rand.NewPCG(7, 11))
		draws := 250 * k
		seen := map[string]int{}
		for range draws {
			s, err := sp.Sample(context.Background(), qs, rng)
			if err != nil {
				t.Fatal(err)
			}
			seen[configurator.FormatCells(s)]++
		}
		if len(seen) != k {
			t.Errorf("%d-queens %q: %d distinct samples, want all %d solutions", tt.n, tt.queens, len(seen), k)
		}
		// Pearson's chi-square with k-1 degrees of freedom, against its
		// 0.9995 quantile (Wilson and Hilferty's approximation: 17.7 for
		// 3 degrees, 39.7 for 15).
		exp := float64(draws) / float64(k)
		chi := 0.0
		for _, c := range seen {
			chi += (float64(c) - exp) * (float64(c) - exp) / exp
		}
		df := float64(max(k-1, 1))
		if limit := df * math.Pow(1-2/(9*df)+3.29*math.Sqrt(2/(9*df)), 3); chi > limit {
			t.Errorf("%d-queens %q: chi-square %.1f over %d solutions: not uniform (%v)", tt.n, tt.queens, chi, k, seen)
		}
	}
}

func TestDiagram(t *testing.T) {
	sp := compileSpace(t, 4, configurator.RowMajor, Direct)
	ctx := context.Background()
	tests := []struct {
		queens   string
		maxNodes int
		nodes    int
		text     bool
	}{
		{"", 100, 29, true},
		{"", 28, 29, false},
		// b1 true and a1, c1, d1 false: the one solution b1 d2 a3 c4
		// over the 12 cells of ranks 2 to 4, one node each.
		{"b1", 100, 12, true},
		{"a1", 100, 0, true}, // no solution: the constant false
	}
	for _, tt := range tests {
		dot, nodes, err := sp.Diagram(ctx, configuratortest.Cells(t, tt.queens), tt.maxNodes)
		if err != nil {
			t.Fatalf("Diagram(%q): %v", tt.queens, err)
		}
		if nodes != tt.nodes || (dot != "") != tt.text {
			t.Errorf("Diagram(%q, %d): %d nodes, text %v; want %d, %v", tt.queens, tt.maxNodes, nodes, dot != "", tt.nodes, tt.text)
		}
		if dot == "" {
			continue
		}
		if !strings.HasPrefix(dot, "digraph") {
			t.Errorf("Diagram(%q) is not DOT: %.40q", tt.queens, dot)
		}
		if got := strings.Count(dot, "[style=dashed]"); got != tt.nodes {
			t.Errorf("Diagram(%q): %d low edges in the DOT, want one per node, %d", tt.queens, got, tt.nodes)
		}
	}
	dot, _, _ := sp.Diagram(ctx, configuratortest.Cells(t, "b1"), 100)
	for _, name := range []string{`"d2"`, `"a3"`, `"c4"`} {
		if !strings.Contains(dot, name) {
			t.Errorf("Diagram(b1) has no node %s:\n%s", name, dot)
		}
	}
	// The shared diagram was only read.
	if sp.Manager().Size()-2 != queensNodes[4] {
		t.Errorf("the Space's robdd.Manager holds %d nodes after Diagram, want %d", sp.Manager().Size()-2, queensNodes[4])
	}
}

// TestSpaceIsSafeForConcurrentUse runs every query from many goroutines on
// one Space (run it with -race) and compares with the answers given
// sequentially.
func TestSpaceIsSafeForConcurrentUse(t *testing.T) {
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	ctx := context.Background()
	placements := []string{"", "a1", "c1", "c1,a2", "d1,b2", "a1,b2", "e4"}
	want := map[string]string{}
	for _, p := range placements {
		want[p] = summary(ctx, sp, configuratortest.Cells(t, p))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := range 16 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			for i := range 30 {
				p := placements[(g+i)%len(placements)]
				if got := summary(ctx, sp, configuratortest.Cells(t, p)); got != want[p] {
					errs <- fmt.Sprintf("%q: %s, want %s", p, got, want[p])
					return
				}
				if _, err := sp.Sample(ctx, configuratortest.Cells(t, p), rng); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
					errs <- err.Error()
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// summary renders every deterministic answer for a placement.
func summary(ctx context.Context, sp *Space, queens []configurator.Cell) string {
	var b strings.Builder
	if a, err := sp.Analyze(ctx, queens); err != nil {
		fmt.Fprintf(&b, "analyze: %v;", err)
	} else {
		fmt.Fprintf(&b, "analyze: %v %v;", a.Solutions, a.Cells)
	}
	sol, err := sp.Solve(ctx, queens)
	fmt.Fprintf(&b, "solve: %v %v;", sol, err)
	marg, err := sp.Marginals(ctx, queens)
	fmt.Fprintf(&b, "marginals: %v %v;", marg, err)
	ok, err := sp.Satisfiable(ctx, queens, []configurator.Cell{{Row: 7, Col: 7}})
	fmt.Fprintf(&b, "sat: %v %v;", ok, err)
	_, nodes, err := sp.Diagram(ctx, queens, 10)
	fmt.Fprintf(&b, "diagram: %d %v", nodes, err)
	return b.String()
}

func TestCompileRefusesBoardsBeyondTheBudgetAtOnce(t *testing.T) {
	tests := []struct {
		n      int
		budget int64
	}{
		{16, DefaultBudget}, // about 260 million nodes
		{40, DefaultBudget}, // far beyond any machine
		{13, 32 << 20},      // 2,044,394 nodes need 65 MB
		{configurator.MaxN, 1 << 40},
	}
	for _, tt := range tests {
		model := configuratortest.Model(t, tt.n, configurator.RowMajor)
		start := time.Now()
		_, err := New(Options{Budget: tt.budget}).Compile(context.Background(), model)
		if !errors.Is(err, configurator.ErrTooLarge) || !errors.Is(err, robdd.ErrNodeLimit) {
			t.Errorf("n=%d budget=%d: err = %v, want ErrTooLarge and robdd.ErrNodeLimit", tt.n, tt.budget, err)
		}
		// Refusing is arithmetic, not a compile: far below a second even
		// under the race detector on a loaded machine.
		if d := time.Since(start); d > time.Second {
			t.Errorf("n=%d: refused after %v, want at once", tt.n, d)
		}
	}
}

// TestBudgetEstimate keeps Cost and Limits honest against the compiler: a
// board compiles within its estimated bytes, and not within 90 % of them
// (so callers neither refuse boards that fit nor let through ones that
// would fail only after a long compile); Limits names the largest board
// the budget holds, and says so when the budget, not MaxN, is the bound.
// If the engine's memory use changes, update compileBytes.
func TestBudgetEstimate(t *testing.T) {
	for n := 7; n <= 11; n++ {
		model := configuratortest.Model(t, n, configurator.RowMajor)
		need := New(Options{}).Cost(n, configurator.RowMajor).Bytes
		sp, err := New(Options{Budget: need}).Compile(context.Background(), model)
		if err != nil {
			t.Errorf("%d×%d within its estimate of %d bytes: %v", n, n, need, err)
			continue
		}
		if got := sp.(*Space).Nodes(); float64(got) != knownNodes[n-1] {
			t.Errorf("%d×%d has %d nodes; the table says %.0f", n, n, got, knownNodes[n-1])
		}
		if _, err := New(Options{Budget: need * 9 / 10}).Compile(context.Background(), model); !errors.Is(err, configurator.ErrTooLarge) {
			t.Errorf("%d×%d within 90%% of its estimate: %v, want ErrTooLarge (the estimate is wasteful)", n, n, err)
		}
	}
	for _, tt := range []struct {
		maxN   int
		budget int64
		want   int
		why    string
	}{
		{14, 2 << 30, 14, ""},
		{14, 256 << 20, 13, "its node budget of 256 MiB holds boards up to 13×13"},
		{14, 64 << 20, 13, "its node budget of 64 MiB holds boards up to 13×13"},
		{14, 62 << 20, 12, "its node budget of 62 MiB holds boards up to 12×12"},
		{12, 62 << 20, 12, ""},
		{16, 1 << 40, 16, ""},
		{16, 2 << 30, 15, "its node budget of 2 GiB holds boards up to 15×15"},
	} {
		l := New(Options{MaxN: tt.maxN, Budget: tt.budget}).Limits()
		if l.MaxN != tt.want || l.Bound != tt.why || !l.Ordered {
			t.Errorf("Limits() with MaxN %d and a budget of %d bytes = %+v; want MaxN %d, %q, ordered", tt.maxN, tt.budget, l, tt.want, tt.why)
		}
	}
}

// TestRankProfile checks the shape of the diagram against the two
// independent compilers and the known node counts: for every order the
// ranks' nodes sum to the whole diagram, and both compilers give the same
// shape, which a reduced diagram (canonical for its order) must.
func TestRankProfile(t *testing.T) {
	for n := 4; n <= 8; n++ {
		for _, order := range configurator.Orders() {
			direct := compileSpace(t, n, order, Direct)
			apply := compileSpace(t, n, order, Apply)
			got := direct.RankProfile()
			if len(got) != n {
				t.Fatalf("%d-queens %v: %d ranks", n, order, len(got))
			}
			sum := 0
			for _, k := range got {
				sum += k
			}
			if sum != direct.Nodes() {
				t.Errorf("%d-queens %v: ranks sum to %d, the diagram has %d nodes", n, order, sum, direct.Nodes())
			}
			if order == configurator.RowMajor && sum != queensNodes[n] {
				t.Errorf("%d-queens row order: %d nodes, want %d", n, sum, queensNodes[n])
			}
			if want := apply.RankProfile(); !slices.Equal(got, want) {
				t.Errorf("%d-queens %v: direct compiler %v, apply compiler %v", n, order, got, want)
			}
		}
	}
}
