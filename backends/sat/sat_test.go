package sat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// nqueens compiles the N-Queens model of an n×n board, row-major, with b.
func nqueens(t testing.TB, b *Backend, n int) configurator.Board {
	t.Helper()
	return configuratortest.Space(t, b, configuratortest.Model(t, n, configurator.RowMajor))
}

// withoutLine returns the N-Queens model of an n×n board with the named
// constraint left out: a planted fault.
func withoutLine(t testing.TB, n int, name string) *configurator.Model {
	t.Helper()
	var cs []configurator.Constraint
	found := false
	for _, c := range configuratortest.Model(t, n, configurator.RowMajor).Constraints() {
		if c.Name == name {
			found = true
			continue
		}
		cs = append(cs, c)
	}
	if !found {
		t.Fatalf("no constraint %q", name)
	}
	m, err := configurator.Custom(n, configurator.RowMajor, cs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameAnalysis reports how got differs from want (states and count), or "".
func sameAnalysis(got, want *configurator.Analysis, counted bool) string {
	if !slices.Equal(got.Cells, want.Cells) {
		for v := range got.Cells {
			if got.Cells[v] != want.Cells[v] {
				c := configurator.Cell{Row: v / got.N, Col: v % got.N}
				return fmt.Sprintf("cell %v is %v, want %v", c, got.Cells[v], want.Cells[v])
			}
		}
	}
	switch {
	case !counted && got.Solutions != nil:
		return fmt.Sprintf("counted %v solutions above the counting limit", got.Solutions)
	case counted && (got.Solutions == nil || got.Solutions.Cmp(want.Solutions) != 0 || got.AtLeast):
		return fmt.Sprintf("solutions %v (at least: %v), want exactly %v", got.Solutions, got.AtLeast, want.Solutions)
	}
	return ""
}

// analysisDiff reports how Analyze of queens on sp differs from the
// oracle's answer, or "": the states and the count (see sameAnalysis), or
// the error, which is ErrNoSolution exactly when the oracle finds no
// solution holding the queens.
func analysisDiff(sp configurator.Board, o *oracle, queens []configurator.Cell, counted bool) string {
	want := o.analyze(queens)
	got, err := sp.Analyze(context.Background(), queens)
	switch {
	case want == nil && !errors.Is(err, configurator.ErrNoSolution):
		return fmt.Sprintf("got %v, want ErrNoSolution", err)
	case want == nil:
		return ""
	case err != nil:
		return err.Error()
	}
	return sameAnalysis(got, want, counted)
}

// TestCountsOEIS counts the solutions of the empty board by blocking-clause
// enumeration: OEIS A000170.
func TestCountsOEIS(t *testing.T) {
	want := []int64{1, 0, 0, 2, 10, 4, 40, 92, 352, 724}
	b := New(Options{})
	for n := 1; n <= len(want); n++ {
		a, err := nqueens(t, b, n).Analyze(context.Background(), nil)
		if want[n-1] == 0 {
			if !errors.Is(err, configurator.ErrNoSolution) {
				t.Errorf("N=%d: got %v, want ErrNoSolution", n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("N=%d: %v", n, err)
		}
		if a.Solutions == nil || a.Solutions.Int64() != want[n-1] || a.AtLeast {
			t.Errorf("N=%d: %v solutions (at least: %v), want %d", n, a.Solutions, a.AtLeast, want[n-1])
		}
	}
}

// TestCountCap: above the cap the count is the cap and a lower bound; at
// the cap exactly it is exact.
func TestCountCap(t *testing.T) {
	tests := []struct {
		n, cap  int
		want    int64
		atLeast bool
	}{
		{8, 50, 50, true},
		{8, 91, 91, true},
		{8, 92, 92, false},
		{8, 93, 92, false},
		{6, 1, 1, true},
	}
	for _, tt := range tests {
		a, err := nqueens(t, New(Options{CountCap: tt.cap}), tt.n).Analyze(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if a.Solutions.Int64() != tt.want || a.AtLeast != tt.atLeast {
			t.Errorf("N=%d cap %d: %v (at least: %v), want %d (at least: %v)", tt.n, tt.cap, a.Solutions, a.AtLeast, tt.want, tt.atLeast)
		}
		// A capped count must not change the cells.
		full, _ := nqueens(t, New(Options{}), tt.n).Analyze(context.Background(), nil)
		if !slices.Equal(a.Cells, full.Cells) {
			t.Errorf("N=%d cap %d: cells differ from the uncapped analysis", tt.n, tt.cap)
		}
	}
}

// TestAnalyzeKnown pins a few analyses by hand.
func TestAnalyzeKnown(t *testing.T) {
	tests := []struct {
		n                     int
		queens                string
		solutions             int64 // -1: not counted
		free, blocked, forced string
	}{
		// 1×1: the only cell is forced.
		{1, "", 1, "", "", "a1"},
		// 4×4: two solutions, b1 c1 a2 d2 a3 d3 b4 c4 between them.
		{4, "", 2, "b1,c1,a2,d2,a3,d3,b4,c4", "a1,d1,b2,c2,b3,c3,a4,d4", ""},
		// 4×4 with b1: one solution, b1 d2 a3 c4.
		{4, "b1", 1, "", "a1,c1,d1,a2,b2,c2,b3,c3,d3,a4,b4,d4", "d2,a3,c4"},
		// 6×6: the four solutions never use the corners or the centre.
		{6, "", 4, "b1,c1,d1,e1,a2,c2,d2,f2,a3,b3,e3,f3,a4,b4,e4,f4,a5,c5,d5,f5,b6,c6,d6,e6", "a1,f1,b2,e2,c3,d3,c4,d4,b5,e5,a6,f6", ""},
	}
	for _, tt := range tests {
		sp := nqueens(t, New(Options{}), tt.n)
		a, err := sp.Analyze(context.Background(), configuratortest.Cells(t, tt.queens))
		if err != nil {
			t.Fatalf("N=%d %q: %v", tt.n, tt.queens, err)
		}
		if got := a.Solutions.Int64(); got != tt.solutions {
			t.Errorf("N=%d %q: %d solutions, want %d", tt.n, tt.queens, got, tt.solutions)
		}
		for st, want := range map[configurator.State]string{configurator.Free: tt.free, configurator.Blocked: tt.blocked, configurator.Forced: tt.forced} {
			if got := configurator.FormatCells(a.In(st)); got != configurator.FormatCells(configuratortest.Cells(t, want)) {
				t.Errorf("N=%d %q: %v cells %s, want %s", tt.n, tt.queens, st, got, want)
			}
		}
	}
}

// TestAnalyzeBruteForce compares Analyze with the brute-force oracle on
// random placements, attacking ones included, on every board up to 7×7
// (solver and counting path), 11×11 (solver, no count) and 12×12 (local
// search first); with -short, to 7×7.
func TestAnalyzeBruteForce(t *testing.T) {
	tests := []struct {
		n, placements, maxQueens int
	}{
		{1, 3, 1}, {2, 10, 2}, {3, 10, 3}, {4, 40, 4}, {5, 60, 5}, {6, 80, 5}, {7, 80, 5},
		{11, 12, 5}, {12, 16, 7},
	}
	rng := rand.New(rand.NewPCG(7, 3))
	b := New(Options{})
	for _, tt := range tests {
		if testing.Short() && tt.n > 7 {
			break
		}
		m := configuratortest.Model(t, tt.n, configurator.RowMajor)
		o := queensOracle(m)
		sp := configuratortest.Space(t, b, m)
		mismatches := 0
		for i := range tt.placements {
			k := i % (tt.maxQueens + 1)
			queens := randomCells(rng, tt.n, k)
			if k > 1 && len(o.sols) > 0 && rng.IntN(2) == 0 {
				// Half the larger placements are taken from a solution, so
				// that not all are inconsistent.
				s := o.sols[rng.IntN(len(o.sols))]
				queens = queens[:0]
				for _, j := range rng.Perm(len(s))[:min(k, len(s))] {
					queens = append(queens, m.Cell(s[j]))
				}
			}
			if d := analysisDiff(sp, o, queens, tt.n <= satbase.CountMaxN); d != "" {
				t.Errorf("N=%d %v: %s", tt.n, queens, d)
				mismatches++
			}
			if mismatches > 3 {
				t.Fatal("too many mismatches")
			}
		}
	}
}

// TestNoSolution: placements that no solution holds give ErrNoSolution from
// every method that needs one.
func TestNoSolution(t *testing.T) {
	tests := []struct {
		n      int
		queens string
	}{
		{2, ""},
		{3, ""},
		{8, "a1,b2"}, // same diagonal
		{8, "a1,a5"}, // same file
		{8, "a1,h1"}, // same rank
		{4, "a1"},    // no 4×4 solution uses a corner
		{6, "c3"},    // nor a central 6×6 cell
		{8, "a1,b3,c5,d2"},
	}
	// Add placements that no propagation refutes: non-attacking queens on
	// a 12×12 board (the local-search path) whose refutation is the
	// solver's.
	rng := rand.New(rand.NewPCG(12, 12))
	o12 := queensOracle(configuratortest.Model(t, 12, configurator.RowMajor))
	for len(tests) < 14 {
		queens := randomCells(rng, 12, 5)
		if attacking(configuratortest.Model(t, 12, configurator.RowMajor), queens) || o12.analyze(queens) != nil {
			continue
		}
		tests = append(tests, struct {
			n      int
			queens string
		}{12, configurator.FormatCells(queens)})
	}
	for _, tt := range tests {
		m := configuratortest.Model(t, tt.n, configurator.RowMajor)
		queens := configuratortest.Cells(t, tt.queens)
		if tt.n <= 8 && queensOracle(m).analyze(queens) != nil {
			t.Fatalf("N=%d %s: the oracle finds a solution; fix the table", tt.n, tt.queens)
		}
		sp := configuratortest.Space(t, New(Options{}), m)
		if _, err := sp.Analyze(context.Background(), queens); !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("Analyze N=%d %s: got %v, want ErrNoSolution", tt.n, tt.queens, err)
		}
		if _, err := sp.Solve(context.Background(), queens); !errors.Is(err, configurator.ErrNoSolution) {
			t.Errorf("Solve N=%d %s: got %v, want ErrNoSolution", tt.n, tt.queens, err)
		}
		if ok, err := sp.Satisfiable(context.Background(), queens, nil); ok || err != nil {
			t.Errorf("Satisfiable N=%d %s: got %v, %v; want false", tt.n, tt.queens, ok, err)
		}
	}
}

// TestSatisfiable compares Satisfiable with the oracle on random sets of
// required and forbidden cells.
func TestSatisfiable(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	for _, n := range []int{1, 4, 5, 6, 7, 8, 12} {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		o := queensOracle(m)
		sp := configuratortest.Space(t, New(Options{}), m)
		for i := range 60 {
			k := min(i%4+i%3, n*n)
			cs := randomCells(rng, n, k)
			split := rng.IntN(k + 1)
			with, without := cs[:split], cs[split:]
			want := o.satisfiable(with, without)
			got, err := sp.Satisfiable(context.Background(), with, without)
			if err != nil || got != want {
				t.Errorf("N=%d with %v without %v: got %v, %v; want %v", n, with, without, got, err, want)
			}
		}
	}
}

// TestSolve: every solution returned is one of the oracle's and holds the
// placement.
func TestSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	for _, n := range []int{1, 4, 6, 8, 12} {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		o := queensOracle(m)
		sp := configuratortest.Space(t, New(Options{}), m)
		for range 20 {
			s := o.sols[rng.IntN(len(o.sols))]
			var queens []configurator.Cell
			for _, v := range s[:rng.IntN(len(s)/2+1)] {
				queens = append(queens, m.Cell(v))
			}
			sol, err := sp.Solve(context.Background(), queens)
			if err != nil {
				t.Fatalf("N=%d %v: %v", n, queens, err)
			}
			if !o.isSolution(sol) || !o.holds(varsOf(m, sol), queens, nil) {
				t.Errorf("N=%d %v: %v is not a solution holding the placement", n, queens, sol)
			}
		}
	}
}

func attacking(m *configurator.Model, queens []configurator.Cell) bool {
	for i, a := range queens {
		for _, b := range queens[i+1:] {
			if m.Attacks(a, b) {
				return true
			}
		}
	}
	return false
}

func varsOf(m *configurator.Model, cs []configurator.Cell) []int {
	vs := make([]int, len(cs))
	for i, c := range cs {
		vs[i] = m.Var(c)
	}
	slices.Sort(vs)
	return vs
}

// TestLargeBoards: on boards far beyond brute force, every cell of the
// empty board is free (true for N >= 7), the solution returned verifies,
// and a placement's attacked cells are blocked.
func TestLargeBoards(t *testing.T) {
	for _, n := range []int{30, 64} {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		sp := configuratortest.Space(t, New(Options{}), m)
		a, err := sp.Analyze(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(a.In(configurator.Free)); got != n*n || a.Solutions != nil {
			t.Errorf("N=%d: %d free cells, count %v; want %d, nil", n, got, a.Solutions, n*n)
		}
		queens := []configurator.Cell{{Row: 0, Col: 0}, {Row: 1, Col: 2}, {Row: n - 1, Col: n / 2}}
		a, err = sp.Analyze(context.Background(), queens)
		if err != nil {
			t.Fatal(err)
		}
		for v, st := range a.Cells {
			c := m.Cell(v)
			attacked := false
			for _, q := range queens {
				attacked = attacked || m.Attacks(q, c)
			}
			if attacked && st != configurator.Blocked {
				t.Errorf("N=%d: %v is attacked but %v", n, c, st)
			}
			if !attacked && !slices.Contains(queens, c) && st == configurator.Blocked {
				// Not wrong in principle, but with three queens on a board
				// this size every other cell has a completion; check it.
				if ok, _ := sp.Satisfiable(context.Background(), append(slices.Clone(queens), c), nil); ok {
					t.Errorf("N=%d: %v blocked but satisfiable", n, c)
				}
			}
		}
		sol, err := sp.Solve(context.Background(), queens)
		if err != nil {
			t.Fatal(err)
		}
		if len(sol) != n {
			t.Fatalf("N=%d: solution of %d queens", n, len(sol))
		}
		for i, a := range sol {
			for _, b := range sol[i+1:] {
				if m.Attacks(a, b) {
					t.Errorf("N=%d: solution queens %v and %v attack each other", n, a, b)
				}
			}
		}
	}
}

// TestBoard: the flattened N-Queens board knows that its files, like its
// ranks, hold exactly one queen, and has all eight symmetries; a model
// without rank constraints has neither.
func TestBoard(t *testing.T) {
	for _, n := range []int{4, 8, 13} {
		bd := newBoard(n, satbase.Flatten(configuratortest.Model(t, n, configurator.RowMajor)))
		exact := 0
		for l, x := range bd.exact {
			if x {
				exact++
				if v := bd.Line(int32(l)); len(v) != n {
					t.Errorf("N=%d: exact line of %d cells", n, len(v))
				}
			}
		}
		if exact != 2*n || len(bd.syms) != 7 || !bd.Partition || bd.search == nil {
			t.Errorf("N=%d: %d exact lines, %d symmetries, partition %v; want %d, 7, true", n, exact, len(bd.syms), bd.Partition, 2*n)
		}
	}
	files, err := configurator.Custom(3, configurator.RowMajor, []configurator.Constraint{
		{Kind: configurator.AtMostOne, Cells: []configurator.Cell{{Row: 0, Col: 0}, {Row: 1, Col: 0}, {Row: 2, Col: 0}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if bd := newBoard(3, satbase.Flatten(files)); slices.Contains(bd.exact, true) || bd.Partition {
		t.Errorf("files only: exact %v, partition %v", bd.exact, bd.Partition)
	}
}

// TestCustomModel: a model missing one anti-diagonal (a planted fault) is
// honoured exactly, on the counting path and on the local-search path, and
// loses the symmetries the anti-diagonal breaks.
func TestCustomModel(t *testing.T) {
	tests := []struct {
		n        int
		drop     string
		symmetry int // symmetries of the faulty model besides the identity
	}{
		{5, "anti-diagonal d1-a4", 1},
		{6, "anti-diagonal e1-a5", 1},
		{6, "anti-diagonal f1-a6", 3},
		{8, "anti-diagonal h1-a8", 3},
		{12, "anti-diagonal d1-a4", 1},
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tt := range tests {
		m := withoutLine(t, tt.n, tt.drop)
		o := newOracle(m)
		if len(o.sols) == len(queensOracle(configuratortest.Model(t, tt.n, configurator.RowMajor)).sols) {
			t.Fatalf("N=%d without %s: the fault changes nothing; pick another line", tt.n, tt.drop)
		}
		sp := configuratortest.Space(t, New(Options{}), m)
		// N-Queens has all eight symmetries (files are exact like ranks).
		// The reflection in the main diagonal maps every anti-diagonal onto
		// itself and survives; the half turn and the reflection in the
		// long anti-diagonal survive only when the dropped line is that
		// one; the rest map an anti-diagonal onto a diagonal.
		if got := len(newBoard(tt.n, satbase.Flatten(m)).syms); got != tt.symmetry {
			t.Errorf("N=%d without %s: %d symmetries, want %d", tt.n, tt.drop, got, tt.symmetry)
		}
		for i := range 15 {
			queens := randomCells(rng, tt.n, i%4)
			if d := analysisDiff(sp, o, queens, tt.n <= satbase.CountMaxN); d != "" {
				t.Errorf("N=%d without %s, %v: %s", tt.n, tt.drop, queens, d)
			}
		}
	}
}

// TestOddModels: constraints the N-Queens rules never produce still get
// exact answers: no rank constraint at all (solutions of any size, so the
// blocking clause must name the empty cells too), a cell on no line, and a
// one-cell ExactlyOne line (a unit, which must never reach the solver's
// base problem).
func TestOddModels(t *testing.T) {
	c := func(r, col int) configurator.Cell { return configurator.Cell{Row: r, Col: col} }
	tests := []struct {
		name string
		n    int
		cs   []configurator.Constraint
	}{
		{"files only", 3, []configurator.Constraint{
			{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(0, 0), c(1, 0), c(2, 0)}},
			{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(0, 1), c(1, 1), c(2, 1)}},
		}},
		{"unit and loose cells", 3, []configurator.Constraint{
			{Kind: configurator.ExactlyOne, Cells: []configurator.Cell{c(1, 1)}},
			{Kind: configurator.ExactlyOne, Cells: []configurator.Cell{c(0, 0), c(0, 1), c(0, 2)}},
			{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(0, 0), c(1, 1), c(2, 2)}},
			{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(0, 1), c(1, 1)}},
		}},
		{"overlapping exactly-one lines", 3, []configurator.Constraint{
			{Kind: configurator.ExactlyOne, Cells: []configurator.Cell{c(0, 0), c(0, 1), c(0, 2)}},
			{Kind: configurator.ExactlyOne, Cells: []configurator.Cell{c(0, 0), c(1, 0), c(2, 0)}},
			{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(2, 0), c(2, 1), c(2, 2), c(2, 1)}},
		}},
		{"empty exactly-one line", 2, []configurator.Constraint{
			{Kind: configurator.ExactlyOne},
		}},
	}
	for _, tt := range tests {
		m, err := configurator.Custom(tt.n, configurator.RowMajor, tt.cs)
		if err != nil {
			t.Fatal(err)
		}
		o := newOracle(m)
		sp := configuratortest.Space(t, New(Options{}), m)
		for k := 0; k <= 2; k++ {
			for _, queens := range placements(tt.n, k) {
				if d := analysisDiff(sp, o, queens, true); d != "" {
					t.Errorf("%s %v: %s", tt.name, queens, d)
				}
			}
		}
		for k := 0; k <= 2; k++ {
			for _, cs := range placements(tt.n, k) {
				for split := range len(cs) + 1 {
					with, without := cs[:split], cs[split:]
					want := o.satisfiable(with, without)
					if got, err := sp.Satisfiable(context.Background(), with, without); got != want || err != nil {
						t.Errorf("%s: Satisfiable(%v, %v) = %v, %v; want %v", tt.name, with, without, got, err, want)
					}
				}
			}
		}
	}
}

// placements lists every set of k distinct cells of an n×n board.
func placements(n, k int) [][]configurator.Cell {
	var all [][]configurator.Cell
	var rec func(from int, cur []configurator.Cell)
	rec = func(from int, cur []configurator.Cell) {
		if len(cur) == k {
			all = append(all, slices.Clone(cur))
			return
		}
		for v := from; v < n*n; v++ {
			rec(v+1, append(cur, configurator.Cell{Row: v / n, Col: v % n}))
		}
	}
	rec(0, nil)
	return all
}

// TestLimits: boards above MaxN are refused with ErrTooLarge; bad cells
// are refused before any solving.
func TestLimits(t *testing.T) {
	tests := []struct {
		opts Options
		n    int
		ok   bool
	}{
		{Options{}, DefaultMaxN, true},
		{Options{}, DefaultMaxN + 1, false},
		{Options{MaxN: 10}, 10, true},
		{Options{MaxN: 10}, 11, false},
	}
	for _, tt := range tests {
		_, err := New(tt.opts).Compile(context.Background(), configuratortest.Model(t, tt.n, configurator.RowMajor))
		if tt.ok && err != nil || !tt.ok && !errors.Is(err, configurator.ErrTooLarge) {
			t.Errorf("MaxN %d, N=%d: got %v", tt.opts.MaxN, tt.n, err)
		}
	}
	sp := nqueens(t, New(Options{}), 8)
	if _, err := sp.Analyze(context.Background(), configuratortest.Cells(t, "a1,a1")); !errors.Is(err, configurator.ErrDuplicate) {
		t.Errorf("duplicate queen: got %v", err)
	}
	if _, err := sp.Analyze(context.Background(), []configurator.Cell{{Row: 8, Col: 0}}); !errors.Is(err, configurator.ErrOffBoard) {
		t.Errorf("queen off the board: got %v", err)
	}
	if _, err := sp.Satisfiable(context.Background(), nil, []configurator.Cell{{Row: 0, Col: -1}}); !errors.Is(err, configurator.ErrOffBoard) {
		t.Errorf("excluded cell off the board: got %v", err)
	}
	if got := New(Options{}).Name(); got != "sat" {
		t.Errorf("Name() = %q", got)
	}
	if _, ok := sp.(configurator.FeatureSampler); ok {
		t.Error("the SAT space claims to sample uniformly")
	}
}

// TestStatedLimits: the backend states the largest board it compiles,
// ignores the variable order, and charges a space 4 KiB and 64 bytes per N³,
// never heavy.
func TestStatedLimits(t *testing.T) {
	tests := []struct {
		opts Options
		n    int
		want configurator.Limits
		cost configurator.Cost
	}{
		{Options{}, 8, configurator.Limits{MaxN: DefaultMaxN}, configurator.Cost{Bytes: 36864}},
		{Options{MaxN: 10}, 10, configurator.Limits{MaxN: 10}, configurator.Cost{Bytes: 68096}},
		{Options{}, 120, configurator.Limits{MaxN: DefaultMaxN}, configurator.Cost{Bytes: 110596096}},
	}
	for _, tt := range tests {
		b := New(tt.opts)
		if got := b.Limits(); got != tt.want {
			t.Errorf("MaxN %d: Limits() = %+v, want %+v", tt.opts.MaxN, got, tt.want)
		}
		for _, o := range configurator.Orders() {
			if got := b.Cost(tt.n, o); got != tt.cost {
				t.Errorf("Cost(%d, %v) = %+v, want %+v", tt.n, o, got, tt.cost)
			}
		}
	}
}

// holdTurn takes every solver turn of the process, as long requests would,
// and returns the function that gives them back; they are given back when
// the test ends at the latest.
func holdTurn(t *testing.T) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var held []func()
	for range solverlock.Turns() {
		release, err := solverlock.Acquire(ctx)
		if err != nil {
			t.Fatalf("the solver's turns are held elsewhere: %v", err)
		}
		held = append(held, release)
	}
	release := sync.OnceFunc(func() {
		for _, r := range held {
			r()
		}
	})
	t.Cleanup(release)
	return release
}

// waitQueue waits until exactly k requests wait in b's lines.
func waitQueue(t *testing.T, b *Backend, k int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for b.Occupancy().Waiting != int64(k) {
		if time.Now().After(deadline) {
			t.Fatalf("%d requests wait, want %d", b.Occupancy().Waiting, k)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestQueue: while the solver is busy, requests wait in a queue of bounded
// length; the next one fails at once with ErrBusy; a waiter whose context
// ends leaves the queue, making room; the rest are served once the solver
// is free.
func TestQueue(t *testing.T) {
	const size = 3
	// Serve at most size: the call queue holds max(Queue, Serve) calls.
	b := New(Options{Queue: size, Serve: 1})
	sp := nqueens(t, b, 6)
	release := holdTurn(t)

	type result struct {
		a   *configurator.Analysis
		err error
	}
	results := make(chan result, size+1)
	ctxs := make([]context.CancelFunc, size)
	for i := range size {
		ctx, cancel := context.WithCancel(context.Background())
		ctxs[i] = cancel
		go func() {
			a, err := sp.Analyze(ctx, nil)
			results <- result{a, err}
		}()
	}
	waitQueue(t, b, size)

	if _, err := sp.Analyze(context.Background(), nil); !errors.Is(err, configurator.ErrBusy) {
		t.Fatalf("with a full queue: got %v, want ErrBusy", err)
	}
	if _, err := sp.Satisfiable(context.Background(), nil, nil); !errors.Is(err, configurator.ErrBusy) {
		t.Fatalf("Satisfiable with a full queue: got %v, want ErrBusy", err)
	}

	ctxs[0]() // one waiter gives up
	if r := <-results; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled waiter: got %v, want context.Canceled", r.err)
	}
	waitQueue(t, b, size-1)
	go func() {
		a, err := sp.Analyze(context.Background(), nil)
		results <- result{a, err}
	}()
	waitQueue(t, b, size)

	release()
	for range size {
		r := <-results
		if r.err != nil || r.a.Solutions.Int64() != 4 {
			t.Errorf("served after the wait: %v solutions, %v", r.a, r.err)
		}
	}
	for _, cancel := range ctxs {
		cancel()
	}
	waitQueue(t, b, 0)
}

// TestAdmit: requests are admitted Serve at a time, one per client; a
// slot that frees goes to the next client in turn, not to the request
// that came first; each client's queue is bounded (its next request gets
// ErrBusy at once) while other clients' stay open, and a request whose
// context ends leaves its queue.
func TestAdmit(t *testing.T) {
	b := New(Options{Serve: 1, Queue: 2})
	sp := nqueens(t, b, 6)
	bg := context.Background()
	client := func(ctx context.Context, id string) context.Context { return configurator.WithClient(ctx, id) }
	done, err := configurator.Admit(client(bg, "a"), sp)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(bg)
	for i, who := range []string{"a1", "a2", "b1", "c1"} {
		c := bg
		if who == "c1" {
			c = ctx // gives up
		}
		wg.Go(func() {
			done, err := configurator.Admit(client(c, who[:1]), sp)
			if err != nil {
				if who != "c1" || !errors.Is(err, context.Canceled) {
					t.Errorf("request %s: %v", who, err)
				}
				return
			}
			mu.Lock()
			order = append(order, who)
			mu.Unlock()
			done()
		})
		waitQueue(t, b, i+1)
	}
	if got := b.Occupancy(); got != (configurator.Occupancy{Waiting: 4, Running: 1}) {
		t.Errorf("with one request served and four waiting: Load() = %+v", got)
	}
	if _, err := configurator.Admit(client(bg, "a"), sp); !errors.Is(err, configurator.ErrBusy) {
		t.Errorf("with the client's queue full: %v, want ErrBusy", err)
	}
	short, cancelShort := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancelShort()
	if _, err := configurator.Admit(client(short, "d"), sp); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("another client, while one's queue is full: %v, want it to wait (DeadlineExceeded)", err)
	}
	cancel()
	waitQueue(t, b, 3) // the request that gave up leaves
	if _, err := configurator.Admit(ctx, sp); !errors.Is(err, context.Canceled) {
		t.Errorf("a request whose context is over: %v", err)
	}
	done()
	wg.Wait()
	if fmt.Sprint(order) != "[a1 b1 a2]" {
		t.Errorf("admitted in the order %v, want [a1 b1 a2]: round robin among clients", order)
	}
	if got := b.Occupancy(); got != (configurator.Occupancy{}) {
		t.Errorf("once every request is done: Load() = %+v", got)
	}
}

// TestAdmitTwoClients: with two slots, two clients are served at once,
// while a client's second request waits for its first.
func TestAdmitTwoClients(t *testing.T) {
	b := New(Options{Serve: 2})
	sp := nqueens(t, b, 6)
	bg := context.Background()
	doneA, err := configurator.Admit(configurator.WithClient(bg, "a"), sp)
	if err != nil {
		t.Fatal(err)
	}
	defer doneA()
	short, cancel := context.WithTimeout(bg, 30*time.Millisecond)
	defer cancel()
	if _, err := configurator.Admit(configurator.WithClient(short, "a"), sp); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the same client's second request: %v, want it to wait (DeadlineExceeded)", err)
	}
	soon, cancelSoon := context.WithTimeout(bg, time.Second)
	defer cancelSoon()
	doneB, err := configurator.Admit(configurator.WithClient(soon, "b"), sp)
	if err != nil {
		t.Fatalf("another client, a slot free: %v", err)
	}
	doneB()
}

// TestAdmittedQueries: queries inside an admitted turn run (the turn is not
// asked for again), and the solver calls of the Serve requests admitted
// fit in the call queue even when Serve exceeds Queue: only the requests
// beyond them are refused.
func TestAdmittedQueries(t *testing.T) {
	b := New(Options{Serve: 2, Queue: 1})
	sp := nqueens(t, b, 6)
	release := holdTurn(t)
	errs := make(chan error, 2)
	for range 2 {
		done, err := configurator.Admit(context.Background(), sp)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer done()
			a, err := sp.Analyze(context.Background(), nil)
			if err == nil && a.Solutions.Int64() != 4 {
				err = fmt.Errorf("%v solutions, want 4", a.Solutions)
			}
			errs <- err
		}()
	}
	waitQueue(t, b, 2) // both queries wait for the solver, neither refused
	if got := b.Occupancy(); got != (configurator.Occupancy{Waiting: 2, Running: 2}) {
		t.Errorf("two requests served, both waiting for the solver: Load() = %+v", got)
	}
	if _, err := sp.Analyze(context.Background(), nil); !errors.Is(err, configurator.ErrBusy) {
		t.Errorf("a query without a slot, the call queue full: %v, want ErrBusy", err)
	}
	release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("admitted query: %v", err)
		}
	}
	waitQueue(t, b, 0)
}

// TestTimeout: a request that waits longer than the backend's timeout
// gives up with context.DeadlineExceeded and leaves the queue.
func TestTimeout(t *testing.T) {
	b := New(Options{Timeout: 100 * time.Millisecond})
	sp := nqueens(t, b, 8)
	release := holdTurn(t)
	_, err := sp.Analyze(context.Background(), nil)
	release()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want DeadlineExceeded", err)
	}
	waitQueue(t, b, 0)
	if ok, err := sp.Satisfiable(context.Background(), configuratortest.Cells(t, "a1"), nil); !ok || err != nil {
		t.Errorf("after the timeout: %v, %v", ok, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sp.Solve(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v, want context.Canceled", err)
	}
}

// pigeonholes returns a model of p pigeons in h holes (p > h) on a p×p
// board: pigeon r sits in exactly one of the first h cells of rank r, and
// no two pigeons in one file. It has no solution, and no shortcut of the
// backend sees it (the ranks do not partition the board, and the board is too
// small for the local search): the refutation is gophersat's, far longer
// than any test waits from ten pigeons on.
func pigeonholes(t testing.TB, p, h int) *configurator.Model {
	t.Helper()
	var cs []configurator.Constraint
	for r := range p {
		c := configurator.Constraint{Kind: configurator.ExactlyOne}
		for f := range h {
			c.Cells = append(c.Cells, configurator.Cell{Row: r, Col: f})
		}
		cs = append(cs, c)
	}
	for f := range h {
		c := configurator.Constraint{Kind: configurator.AtMostOne}
		for r := range p {
			c.Cells = append(c.Cells, configurator.Cell{Row: r, Col: f})
		}
		cs = append(cs, c)
	}
	m, err := configurator.Custom(p, configurator.RowMajor, cs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInterrupted: a solver call past its request's deadline is stopped,
// not left running: the request returns soon after the deadline, the
// solver's turns and the backend's call queue are all free at once, and
// the space answers again.
func TestInterrupted(t *testing.T) {
	const deadline = 50 * time.Millisecond
	b := New(Options{Timeout: deadline})
	hard := configuratortest.Space(t, b, pigeonholes(t, 11, 10))
	start := time.Now()
	_, err := hard.Analyze(context.Background(), nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past its deadline: got %v", err)
	}
	// Uninterrupted, the call runs for minutes; the bound leaves room for a
	// loaded machine (satbase's TestInterrupt measures the latency itself).
	if late := time.Since(start) - deadline; late > time.Second {
		t.Errorf("the call stopped %v after its deadline, want at once", late)
	}
	holdTurn(t)() // every turn is free
	// Two pigeons in one hole: propagation refutes it, with no solver call.
	if ok, err := hard.Satisfiable(context.Background(), configuratortest.Cells(t, "a1,a2"), nil); ok || err != nil {
		t.Errorf("after the interrupted call, two pigeons in one hole: %v, %v", ok, err)
	}
	waitQueue(t, b, 0)
	if a, err := nqueens(t, New(Options{}), 8).Analyze(context.Background(), nil); err != nil || a.Solutions.Int64() != 92 {
		t.Errorf("after the interrupted call: %v, %v", a, err)
	}
}

// TestConcurrent issues queries from many goroutines on two spaces of two
// backends at once; under -race it proves that solvers running in parallel
// share nothing, and every answer must match the sequential one.
func TestConcurrent(t *testing.T) {
	type job struct {
		sp     configurator.Board
		queens []configurator.Cell
		want   *configurator.Analysis
		err    error
	}
	rng := rand.New(rand.NewPCG(3, 3))
	var jobs []job
	for _, n := range []int{7, 11} { // both answered by gophersat, not the local search
		sp := nqueens(t, New(Options{Queue: 64}), n)
		for k := range 8 {
			queens := randomCells(rng, n, k%3)
			a, err := sp.Analyze(context.Background(), queens)
			jobs = append(jobs, job{sp, queens, a, err})
		}
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 12 {
				j := jobs[(g*5+i)%len(jobs)]
				switch i % 3 {
				case 0:
					a, err := j.sp.Analyze(context.Background(), j.queens)
					if (err == nil) != (j.err == nil) || err == nil && !slices.Equal(a.Cells, j.want.Cells) {
						t.Errorf("concurrent Analyze %v: %v, differs from sequential", j.queens, err)
					}
				case 1:
					ok, err := j.sp.Satisfiable(context.Background(), j.queens, nil)
					if err != nil || ok != (j.err == nil) {
						t.Errorf("concurrent Satisfiable %v: %v, %v", j.queens, ok, err)
					}
				case 2:
					sol, err := j.sp.Solve(context.Background(), j.queens)
					if (err == nil) != (j.err == nil) || err == nil && len(sol) != j.sp.Model().N() {
						t.Errorf("concurrent Solve %v: %v, %v", j.queens, sol, err)
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestSession drives the configurator's session logic over the SAT space,
// answered as the board's feature model: a queen on an attacked square is
// refused, the domains after a placement are the oracle's, every blocked
// square's reasons rule it out and are minimal, and a completion is a
// solution.
func TestSession(t *testing.T) {
	ctx := context.Background()
	sp := nqueens(t, New(Options{}), 8)
	m := sp.Model()
	s, err := configurator.NewFeatureSession(ctx, sp, configurator.BoardDecisions(m, configuratortest.Cells(t, "a1")))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Decide(ctx, configurator.BoardDecisions(m, configuratortest.Cells(t, "b2"))[0]); !errors.Is(err, configurator.ErrExcluded) {
		t.Errorf("placing on an attacked square: %v", err)
	}
	if err := s.Decide(ctx, configurator.BoardDecisions(m, configuratortest.Cells(t, "e2"))[0]); err != nil {
		t.Fatal(err)
	}
	want := queensOracle(m).analyze(configuratortest.Cells(t, "a1,e2"))
	for f, st := range s.Domains().States {
		if got, w := configurator.BoardState(st), want.Cells[f]; got != w {
			t.Errorf("a1 e2: %v is %v, want %v", m.Cell(f), got, w)
		}
	}
	for _, f := range s.Domains().In(configurator.ForcedOff) {
		c := m.Cell(f)
		e, err := s.Explain(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		// Every reason holds with its queens and with no smaller set.
		for _, r := range e.Reasons {
			queens := configurator.BoardQueens(m, r.Decisions)
			if ok, _ := sp.Satisfiable(ctx, append(slices.Clone(queens), c), nil); ok {
				t.Errorf("reason %v of %v does not rule it out", queens, c)
			}
			for i := range queens {
				rest := slices.Delete(slices.Clone(queens), i, i+1)
				if ok, _ := sp.Satisfiable(ctx, append(rest, c), nil); !ok {
					t.Errorf("reason %v of %v not minimal", queens, c)
				}
			}
		}
	}
	config, err := s.Complete(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sol []configurator.Cell
	for f, on := range config {
		if on {
			sol = append(sol, m.Cell(f))
		}
	}
	if a, err := sp.Analyze(ctx, sol); err != nil || len(sol) != 8 || a.Solutions.Int64() != 1 {
		t.Errorf("the completion %v is no solution (%v)", sol, err)
	}
}

// TestLend: a request's slot lent early (its question sliced) goes to the
// next client at once; the request's own done afterwards gives back
// nothing more, so the slot the next client took stays taken.
func TestLend(t *testing.T) {
	b := New(Options{Serve: 1})
	ctxA := configurator.WithClient(context.Background(), "192.0.2.1")
	ctxB := configurator.WithClient(context.Background(), "192.0.2.2")
	ctxC := configurator.WithClient(context.Background(), "192.0.2.3")
	doneA, err := b.admit(ctxA)
	if err != nil {
		t.Fatal(err)
	}
	admitted := make(chan string, 2)
	dones := make(chan func(), 2)
	wait := func(name string, ctx context.Context) {
		done, err := b.admit(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		dones <- done
		admitted <- name
	}
	go wait("B", ctxB)
	waitQueue(t, b, 1)
	b.lend(ctxA)
	select {
	case <-admitted:
	case <-time.After(5 * time.Second):
		t.Fatal("B was not admitted when A lent its place")
	}
	go wait("C", ctxC)
	waitQueue(t, b, 1)
	doneA() // A ends: its place was lent already
	select {
	case name := <-admitted:
		t.Fatalf("%s admitted when A ended, though B holds the only place", name)
	case <-time.After(100 * time.Millisecond):
	}
	(<-dones)() // B ends
	select {
	case <-admitted:
	case <-time.After(5 * time.Second):
		t.Fatal("C was not admitted when B ended")
	}
	(<-dones)()
	b.lend(ctxB) // a client with no request admitted: nothing to lend
	if held := b.Occupancy().Running; held != 0 {
		t.Errorf("%d requests admitted after every one ended, want 0", held)
	}
}
