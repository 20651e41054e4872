package plain_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// a000170 is OEIS A000170, the number of solutions of N-Queens, N = 1..12.
var a000170 = []int64{1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// compile compiles the N-Queens model of an n×n board with a backend of
// the given options.
func compile(t testing.TB, n int, opts plain.Options) configurator.Board {
	t.Helper()
	return configuratortest.Space(t, plain.New(opts), configuratortest.Model(t, n, configurator.RowMajor))
}

func toOracle(cells []configurator.Cell) []oracle.Cell {
	out := make([]oracle.Cell, len(cells))
	for i, c := range cells {
		out[i] = oracle.Cell{Row: c.Row, Col: c.Col}
	}
	return out
}

// states maps the oracle's states to the configurator's.
var states = [...]configurator.State{
	oracle.Free:    configurator.Free,
	oracle.Blocked: configurator.Blocked,
	oracle.Queen:   configurator.Queen,
	oracle.Forced:  configurator.Forced,
}

// checkAnalysis compares Analyze of queens with the oracle: every cell's
// state, and the count as the options make it (exact up to the cap, a
// lower bound at the cap, nil above 10×10).
func checkAnalysis(t *testing.T, sp configurator.Board, board *oracle.Board, queens []configurator.Cell, countCap int) {
	t.Helper()
	n := board.N()
	want := board.Analyze(toOracle(queens))
	got, err := sp.Analyze(context.Background(), queens)
	if want.Solutions == 0 {
		if !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("N=%d [%s]: %v, want ErrNoSolution", n, configurator.FormatCells(queens), err)
		}
		return
	}
	if err != nil {
		t.Errorf("N=%d [%s]: %v", n, configurator.FormatCells(queens), err)
		return
	}
	for v, st := range want.Cells {
		if got.Cells[v] != states[st] {
			t.Errorf("N=%d [%s]: cell %v is %v, want %v", n, configurator.FormatCells(queens), configurator.Cell{Row: v / n, Col: v % n}, got.Cells[v], st)
		}
	}
	var count *big.Int
	atLeast := false
	switch {
	case n > 10:
	case want.Solutions > countCap:
		count, atLeast = big.NewInt(int64(countCap)), true
	default:
		count = big.NewInt(int64(want.Solutions))
	}
	if (got.Solutions == nil) != (count == nil) || count != nil && got.Solutions.Cmp(count) != 0 || got.AtLeast != atLeast {
		t.Errorf("N=%d [%s]: %v solutions (at least: %v), want %v (at least: %v)", n, configurator.FormatCells(queens), got.Solutions, got.AtLeast, count, atLeast)
	}
}

// capped are the option sets the oracle tests run with: the default count
// decides every cell on small boards, a count capped at one solution leaves
// the cells to one question each.
var capped = []struct {
	name string
	cap  int
}{
	{"counted", plain.DefaultCountCap},
	{"cap=1", 1},
}

// TestReachable: Analyze agrees with the oracle on every placement
// reachable by legal clicks (every subset of every solution, and the empty
// board) on boards up to 6×6.
func TestReachable(t *testing.T) {
	want := map[int]int{1: 2, 2: 1, 3: 1, 4: 31, 5: 286, 6: 253}
	for _, c := range capped {
		for n := 1; n <= 6; n++ {
			board := configuratortest.Board(t, n)
			sp := compile(t, n, plain.Options{CountCap: c.cap})
			seen := map[string]bool{"": true}
			checkAnalysis(t, sp, board, nil, c.cap)
			for i := range board.Count() {
				sol := board.Solution(i)
				for mask := 1; mask < 1<<n; mask++ {
					var queens []configurator.Cell
					for r, q := range sol {
						if mask&(1<<r) != 0 {
							queens = append(queens, configurator.Cell{Row: q.Row, Col: q.Col})
						}
					}
					key := configurator.FormatCells(queens)
					if seen[key] {
						continue
					}
					seen[key] = true
					checkAnalysis(t, sp, board, queens, c.cap)
				}
			}
			if len(seen) != want[n] {
				t.Errorf("%s N=%d: %d placements, want %d", c.name, n, len(seen), want[n])
			}
		}
	}
}

// TestRandom: Analyze agrees with the oracle on random placements of 0 to
// N distinct cells, most of which no solution holds, on 7×7, 8×8 and (with
// no count) 11×11 (not with -short).
func TestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{7, 8, 11} {
		if testing.Short() && n > 8 {
			break
		}
		board := configuratortest.Board(t, n)
		for _, c := range capped {
			sp := compile(t, n, plain.Options{CountCap: c.cap})
			for range 40 {
				var queens []configurator.Cell
				for _, v := range rng.Perm(n * n)[:rng.IntN(n+1)] {
					queens = append(queens, configurator.Cell{Row: v / n, Col: v % n})
				}
				checkAnalysis(t, sp, board, queens, c.cap)
			}
		}
	}
}

// TestCountsA000170: the empty board's count is OEIS A000170 up to 10×10
// and not counted above.
func TestCountsA000170(t *testing.T) {
	for n := 1; n <= 12; n++ {
		a, err := compile(t, n, plain.Options{}).Analyze(context.Background(), nil)
		switch {
		case a000170[n-1] == 0:
			if !errors.Is(err, configurator.ErrNoSolution) {
				t.Errorf("N=%d: %v, want ErrNoSolution", n, err)
			}
		case err != nil:
			t.Errorf("N=%d: %v", n, err)
		case n > 10:
			if a.Solutions != nil {
				t.Errorf("N=%d: %v solutions, want none counted", n, a.Solutions)
			}
		case a.Solutions == nil || a.AtLeast || a.Solutions.Int64() != a000170[n-1]:
			t.Errorf("N=%d: %v solutions (at least: %v), want %d", n, a.Solutions, a.AtLeast, a000170[n-1])
		}
	}
}

// TestSatisfiableSolve: Satisfiable and Solve on the 8×8 board answer as
// the oracle does.
func TestSatisfiableSolve(t *testing.T) {
	board := configuratortest.Board(t, 8)
	sp := compile(t, 8, plain.Options{})
	tests := []struct {
		with, without string
		want          bool
	}{
		{"", "", true},
		{"a1", "", true},
		{"a1,c5", "", true},                // one solution holds them
		{"a1,c5", "e2", false},             // and it has e2
		{"a1,b3", "", false},               // attacking
		{"a1", "a1", false},                // a queen and none on one cell
		{"", "a1,b1,c1,d1,e1,f1,g1", true}, // h1 is left
		{"", "a1,b1,c1,d1,e1,f1,g1,h1", false},
		{"d1", "a2,b2,c2,d2,e2,f2,g2", true}, // h2 is left
	}
	for _, tt := range tests {
		with, without := configuratortest.Cells(t, tt.with), configuratortest.Cells(t, tt.without)
		got, err := sp.Satisfiable(context.Background(), with, without)
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("Satisfiable(%s, %s) = %v, want %v", tt.with, tt.without, got, tt.want)
		}
		if got != board.Satisfiable(toOracle(with), toOracle(without)) {
			t.Errorf("Satisfiable(%s, %s) = %v, the oracle disagrees", tt.with, tt.without, got)
		}
	}
	for _, queens := range []string{"", "a1", "a1,c5", "d1,h2"} {
		q := configuratortest.Cells(t, queens)
		sol, err := sp.Solve(context.Background(), q)
		if err != nil {
			t.Errorf("Solve(%s): %v", queens, err)
			continue
		}
		if !board.IsSolution(toOracle(sol)) || !board.Satisfiable(toOracle(q), nil) || !containsAll(sol, q) {
			t.Errorf("Solve(%s) = %s, not a solution holding them", queens, configurator.FormatCells(sol))
		}
	}
	if _, err := sp.Solve(context.Background(), configuratortest.Cells(t, "a1,b3")); !errors.Is(err, configurator.ErrNoSolution) {
		t.Errorf("Solve(a1,b3): %v, want ErrNoSolution", err)
	}
}

func containsAll(sol, queens []configurator.Cell) bool {
	for _, q := range queens {
		if !slices.Contains(sol, q) {
			return false
		}
	}
	return true
}

// TestCustom: models other than N-Queens: a line of one cell is a queen
// every solution holds (assumed, never a unit clause), and an ExactlyOne
// line with no cell leaves no solution.
func TestCustom(t *testing.T) {
	a1, b1, a2, b2 := configurator.Cell{Row: 0, Col: 0}, configurator.Cell{Row: 0, Col: 1}, configurator.Cell{Row: 1, Col: 0}, configurator.Cell{Row: 1, Col: 1}
	tests := []struct {
		name string
		cs   []configurator.Constraint
		want string // Analyze of the empty board: cells row-major and count, or the error
	}{
		{"one queen on a1", []configurator.Constraint{
			{Kind: configurator.ExactlyOne, Name: "a1", Cells: []configurator.Cell{a1}},
			{Kind: configurator.AtMostOne, Name: "all", Cells: []configurator.Cell{a1, b1, a2, b2}},
		}, "forced blocked blocked blocked 1"},
		// A cell twice on a line is still one cell: no clause "not both
		// a1 and a1" blocks it.
		{"a duplicated cell", []configurator.Constraint{
			{Kind: configurator.ExactlyOne, Name: "rank 1", Cells: []configurator.Cell{a1, b1, a1}},
			{Kind: configurator.AtMostOne, Name: "a1 twice", Cells: []configurator.Cell{a1, a1}},
			{Kind: configurator.AtMostOne, Name: "all", Cells: []configurator.Cell{a1, b1, a2, b2}},
		}, "free free blocked blocked 2"},
		{"an empty line", []configurator.Constraint{
			{Kind: configurator.ExactlyOne, Name: "none"},
			{Kind: configurator.AtMostOne, Name: "all", Cells: []configurator.Cell{a1, b1, a2, b2}},
		}, "no solution"},
		// Cells on no line are free, and any subset of them completes a
		// solution.
		{"free cells", []configurator.Constraint{
			{Kind: configurator.ExactlyOne, Name: "rank 1", Cells: []configurator.Cell{a1, b1}},
		}, "free free free free 8"},
	}
	for _, tt := range tests {
		m, err := configurator.Custom(2, configurator.RowMajor, tt.cs)
		if err != nil {
			t.Fatal(err)
		}
		sp := configuratortest.Space(t, plain.New(plain.Options{}), m)
		var got string
		switch a, err := sp.Analyze(context.Background(), nil); {
		case errors.Is(err, configurator.ErrNoSolution):
			got = "no solution"
		case err != nil:
			got = err.Error()
		default:
			got = fmt.Sprint(a.Cells[0], a.Cells[1], a.Cells[2], a.Cells[3], a.Solutions)
		}
		if got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLimits: the backend states its limits, and refuses a board beyond
// them with ErrTooLarge.
func TestLimits(t *testing.T) {
	b := plain.New(plain.Options{MaxN: 9})
	if got := b.Limits(); got != (configurator.Limits{MaxN: 9}) {
		t.Errorf("Limits() = %+v", got)
	}
	if got := plain.New(plain.Options{}).Limits().MaxN; got != plain.DefaultMaxN {
		t.Errorf("default MaxN %d, want %d", got, plain.DefaultMaxN)
	}
	if b.Name() != "sat-plain" {
		t.Errorf("Name() = %q", b.Name())
	}
	if _, err := b.Compile(context.Background(), configuratortest.Model(t, 10, configurator.RowMajor)); !errors.Is(err, configurator.ErrTooLarge) {
		t.Errorf("Compile of 10×10 with MaxN 9: %v, want ErrTooLarge", err)
	}
	if c := b.Cost(8, configurator.RowMajor); c.Heavy || c.Bytes <= 0 {
		t.Errorf("Cost(8) = %+v, want light and positive", c)
	}
}

// TestContext: a query whose context has ended, or ends while it waits for
// the solver's turn, returns the context's error.
func TestContext(t *testing.T) {
	sp := compile(t, 8, plain.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sp.Analyze(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Analyze with a cancelled context: %v, want context.Canceled", err)
	}
	hold(t)
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := sp.Satisfiable(ctx, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Satisfiable while the turn is held elsewhere: %v, want context.DeadlineExceeded", err)
	}
}

// hold takes every turn of solverlock until the test ends, or until the
// function it returns is called.
func hold(t testing.TB) (release func()) {
	t.Helper()
	var held []func()
	for range solverlock.Turns() {
		r, err := solverlock.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, r)
	}
	release = sync.OnceFunc(func() {
		for _, r := range held {
			r()
		}
	})
	t.Cleanup(release)
	return release
}

// TestConcurrent: queries on one space from many goroutines take turns on
// its solver and each gets its own answer (run with -race).
func TestConcurrent(t *testing.T) {
	const n = 8
	board := configuratortest.Board(t, n)
	sp := compile(t, n, plain.Options{CountCap: 1})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 10 {
				sol := board.Solution(rng.IntN(board.Count()))
				var queens []configurator.Cell
				for _, q := range sol[:rng.IntN(n)] {
					queens = append(queens, configurator.Cell{Row: q.Row, Col: q.Col})
				}
				checkAnalysis(t, sp, board, queens, 1)
			}
		})
	}
	wg.Wait()
}

// TestWork: the work behind an analysis of sat-plain. Every cell but the
// user's queens is decided by the solver, none by propagation or a
// witness; the solver is asked at least once for the placement, once for
// every blocked cell (no solution can witness it) and once for every
// forced one (no solution without it), and, when it counts, once more for
// every solution; the count is timed apart, and is 0 where there is none.
func TestWork(t *testing.T) {
	for _, tc := range []struct {
		n       int
		queens  string
		counted bool
	}{
		{6, "", true},
		{8, "", true},
		{8, "a1", true},
		{10, "e5,a4", true},
		{12, "", false},
		{14, "c3,h9", false},
	} {
		sp := configuratortest.Space(t, plain.New(plain.Options{}), configuratortest.Model(t, tc.n, configurator.RowMajor))
		queens := configuratortest.Cells(t, tc.queens)
		a, err := sp.Analyze(context.Background(), queens)
		if err != nil {
			t.Fatalf("%d×%d %s: %v", tc.n, tc.n, tc.queens, err)
		}
		w := a.Work
		if w.BySolver != tc.n*tc.n-len(queens) || w.ByPropagation != 0 || w.ByWitness != 0 {
			t.Errorf("%d×%d %s: decided %+v, want all %d cells by the solver", tc.n, tc.n, tc.queens, w, tc.n*tc.n-len(queens))
		}
		asked := int64(1 + len(a.In(configurator.Blocked)) + len(a.In(configurator.Forced)))
		if tc.counted {
			asked += a.Solutions.Int64()
		}
		if w.SolverCalls < asked {
			t.Errorf("%d×%d %s: %d solver calls, want at least %d", tc.n, tc.n, tc.queens, w.SolverCalls, asked)
		}
		if w.Decisions == 0 {
			t.Errorf("%d×%d %s: no decision in %d calls", tc.n, tc.n, tc.queens, w.SolverCalls)
		}
		if (w.Count > 0) != tc.counted || (a.Solutions != nil) != tc.counted {
			t.Errorf("%d×%d %s: count took %v, solutions %v; counted: want %v", tc.n, tc.n, tc.queens, w.Count, a.Solutions, tc.counted)
		}
		if w.Domains <= 0 || w.Domains+w.Count > a.Elapsed {
			t.Errorf("%d×%d %s: domains %v and count %v do not fit in the %v elapsed", tc.n, tc.n, tc.queens, w.Domains, w.Count, a.Elapsed)
		}
	}
}
