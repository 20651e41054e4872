package satbase

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestFlatten: lines keep their cells once each and in order; an
// AtMostOne of fewer than two cells is left out, a one-cell ExactlyOne is
// a line and a unit, and an empty ExactlyOne leaves no solution. Each
// variable knows its lines, and a model whose ExactlyOne lines overlap
// does not partition the board.
func TestFlatten(t *testing.T) {
	c := func(r, col int) configurator.Cell { return configurator.Cell{Row: r, Col: col} }
	m, err := configurator.Custom(2, configurator.RowMajor, []configurator.Constraint{
		{Kind: configurator.ExactlyOne, Cells: []configurator.Cell{c(0, 0), c(0, 1), c(0, 0)}},
		{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(1, 0), c(1, 0)}},
		{Kind: configurator.ExactlyOne, Cells: []configurator.Cell{c(1, 1)}},
		{Kind: configurator.AtMostOne, Cells: []configurator.Cell{c(1, 1), c(0, 0)}},
		{Kind: configurator.ExactlyOne},
	})
	if err != nil {
		t.Fatal(err)
	}
	ls := Flatten(m)
	wantKind := []configurator.Kind{configurator.ExactlyOne, configurator.ExactlyOne, configurator.AtMostOne}
	wantLines := [][]int32{{0, 1}, {3}, {3, 0}}
	wantOf := [][]int32{{0, 2}, {0}, nil, {1, 2}} // per variable
	if !slices.Equal(ls.Kind, wantKind) || !slices.Equal(ls.Units, []int32{3}) || !ls.Dead || ls.Partition {
		t.Errorf("Flatten: kinds %v, units %v, dead %v, partition %v; want %v, [3], true, false", ls.Kind, ls.Units, ls.Dead, ls.Partition, wantKind)
	}
	for l, want := range wantLines {
		if got := ls.Line(int32(l)); !slices.Equal(got, want) {
			t.Errorf("Line(%d) = %v, want %v", l, got, want)
		}
	}
	for v, want := range wantOf {
		if got := ls.LinesOf(int32(v)); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("LinesOf(%d) = %v, want %v", v, got, want)
		}
	}
	four := configuratortest.Model(t, 4, configurator.RowMajor)
	if ls := Flatten(four); !ls.Partition || ls.Dead || len(ls.Units) != 0 {
		t.Errorf("4-queens: partition %v, dead %v, units %v; want true, false, none", ls.Partition, ls.Dead, ls.Units)
	}
}

// TestIsSolution: a solution has exactly one queen on every ExactlyOne
// line and at most one on every AtMostOne line, and the scratch is left
// all zero.
func TestIsSolution(t *testing.T) {
	ls := Flatten(configuratortest.Model(t, 4, configurator.RowMajor))
	count := make([]int32, len(ls.Kind))
	for _, tt := range []struct {
		name   string
		queens []int32
		want   bool
	}{
		{"b1 d2 a3 c4", []int32{1, 7, 8, 14}, true},
		{"c1 a2 d3 b4", []int32{2, 4, 11, 13}, true},
		{"three queens", []int32{1, 7, 8}, false},
		{"two on a diagonal", []int32{0, 5, 11, 14}, false},
		{"two on a file", []int32{1, 5, 8, 14}, false},
		{"no queen", []int32{}, false},
	} {
		if got := ls.isSolution(tt.queens, count); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
		if slices.ContainsFunc(count, func(k int32) bool { return k != 0 }) {
			t.Fatalf("%s: scratch left %v", tt.name, count)
		}
	}
}

// TestLiterals: cell v is gophersat variable v+1 in assumptions, models
// and blocking clauses.
func TestLiterals(t *testing.T) {
	if got, want := assumptions([]int32{4}, []int32{0, 2}, []int32{1}), []solver.Lit{solver.IntToLit(5), solver.IntToLit(1), solver.IntToLit(3), solver.IntToLit(-2)}; !slices.Equal(got, want) {
		t.Errorf("assumptions = %v, want %v", got, want)
	}
	if got := queens([]bool{false, true, false, true, true}, 4); !slices.Equal(got, []int32{1, 3}) {
		t.Errorf("queens = %v, want [1 3]", got)
	}
	if got := queens([]bool{false, false}, 2); got == nil || len(got) != 0 {
		t.Errorf("queens of no queen = %#v, want empty, not nil", got)
	}
	tests := []struct {
		partition bool
		want      []int32 // the clause in gophersat's literals
	}{
		{true, []int32{-2, -4}},
		{false, []int32{1, -2, 3, -4}},
	}
	for _, tt := range tests {
		cl := blocking([]int32{1, 3}, 4, tt.partition)
		var lits []int32
		for i := range cl.Len() {
			lits = append(lits, cl.Get(i).Int())
		}
		if !slices.Equal(lits, tt.want) {
			t.Errorf("blocking(partition %v) = %v, want %v", tt.partition, lits, tt.want)
		}
	}
}

// TestRun: a panic becomes an error wrapping ErrSolver, and the query's
// solver, whose state it may have broken, is thrown away; a quiet call
// keeps it.
func TestRun(t *testing.T) {
	q := &Calls{s: solver.New(pigeonhole(2, 1))}
	if err := q.Run(func() {}); err != nil || q.s == nil {
		t.Errorf("Run of a quiet call: %v, solver %p", err, q.s)
	}
	if err := q.Run(func() { panic("broken") }); !errors.Is(err, ErrSolver) || q.s != nil {
		t.Errorf("Run of a panicking call: %v, solver %p; want ErrSolver, none", err, q.s)
	}
}

// TestCompile: a board beyond MaxN is ErrTooLarge and an ended context its
// error, neither with an engine built; a board that fits gets one, made of
// its lines (N-Queens: n ranks, n files and 2n-3 diagonals of two cells
// or more each way), and the space is what wrap makes of the skeleton's, or
// the skeleton's itself. A field not positive asks for the default.
func TestCompile(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	b := &Backend{What: "the test backend", MaxN: 8, PerCube: 64}
	tests := []struct {
		ctx  context.Context
		n    int
		want error
	}{
		{context.Background(), 8, nil},
		{context.Background(), 9, configurator.ErrTooLarge},
		{ended, 8, context.Canceled},
	}
	type wrapped struct{ *Space }
	for _, tt := range tests {
		m := configuratortest.Model(t, tt.n, configurator.RowMajor)
		for _, wrap := range []func(*Space) configurator.Board{nil, func(sp *Space) configurator.Board { return wrapped{sp} }} {
			var built *Lines // the lines the engine is made of; the engine itself is never asked
			sp, err := b.Compile(tt.ctx, m, func(got *configurator.Model, ls *Lines) Engine {
				if got != m {
					t.Errorf("Compile(%d): an engine of another model", tt.n)
				}
				built = ls
				return nil
			}, wrap)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) || (sp == nil) != (tt.want != nil) || (built == nil) != (tt.want != nil) {
				t.Errorf("Compile(%d, up to %d) = %v, %v, engine built of %v; want %v", tt.n, b.MaxN, sp, err, built, tt.want)
			}
			if err != nil {
				continue
			}
			var skeleton *Space
			switch sp := sp.(type) {
			case *Space:
				skeleton = sp
			case wrapped:
				skeleton = sp.Space
			}
			if skeleton == nil || (wrap == nil) != (sp == configurator.Board(skeleton)) {
				t.Errorf("Compile(%d) with wrap %v: %T", tt.n, wrap != nil, sp)
				continue
			}
			if built != &skeleton.lines || skeleton.Model() != m || len(built.Kind) != 6*tt.n-6 {
				t.Errorf("Compile(%d): an engine of %d lines, want %d, the space's", tt.n, len(built.Kind), 6*tt.n-6)
			}
		}
	}
	if got := b.Cost(10); got != (configurator.Cost{Bytes: 4096 + 64000}) {
		t.Errorf("Cost(10) = %+v", got)
	}
	if got := Or(0, 5) + Or(-1, 5) + Or(3, 5); got != 13 {
		t.Errorf("Or: 0, -1 and 3 with default 5 sum to %d, want 13", got)
	}
}

// TestAgree: a count that contradicts the cells decided is caught.
func TestAgree(t *testing.T) {
	q := &Query{sp: &Space{m: configuratortest.Model(t, 2, configurator.RowMajor)}}
	cells := []configurator.State{configurator.Free, configurator.Queen, configurator.Blocked, configurator.Forced}
	tests := []struct {
		name     string
		sols     [][]int32
		complete bool
		ok       bool
	}{
		{"complete, every cell not blocked used", [][]int32{{0, 1}, {3}}, true, true},
		{"capped, a cell not blocked not met", [][]int32{{0, 1}}, false, true},
		{"a blocked cell in a solution", [][]int32{{0, 2}}, false, false},
		{"complete, a cell not blocked in no solution", [][]int32{{0, 1}}, true, false},
		{"no solution at all", nil, false, false},
	}
	for _, tt := range tests {
		err := q.agree(tt.sols, tt.complete, cells)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrSolver) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
