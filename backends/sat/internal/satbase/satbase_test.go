package satbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
)

// TestFlatten: lines keep their cells once each and in order; an
// AtMostOne of fewer than two cells is left out, a one-cell ExactlyOne is
// a line and a unit, and an empty ExactlyOne leaves no solution.
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
	want := Lines{
		Kind:  []configurator.Kind{configurator.ExactlyOne, configurator.ExactlyOne, configurator.AtMostOne},
		Start: []int32{0, 2, 3, 5},
		Var:   []int32{0, 1, 3, 3, 0},
		Units: []int32{3},
		Dead:  true,
	}
	if !slices.Equal(ls.Kind, want.Kind) || !slices.Equal(ls.Start, want.Start) || !slices.Equal(ls.Var, want.Var) || !slices.Equal(ls.Units, want.Units) || ls.Dead != want.Dead {
		t.Errorf("Flatten = %+v\nwant      %+v", ls, want)
	}
}

// TestLiterals: cell v is gophersat variable v+1 in assumptions, models
// and blocking clauses.
func TestLiterals(t *testing.T) {
	if got, want := Assumptions([]int32{4}, []int32{0, 2}, []int32{1}), []solver.Lit{solver.IntToLit(5), solver.IntToLit(1), solver.IntToLit(3), solver.IntToLit(-2)}; !slices.Equal(got, want) {
		t.Errorf("Assumptions = %v, want %v", got, want)
	}
	if got := Queens([]bool{false, true, false, true, true}, 4); !slices.Equal(got, []int32{1, 3}) {
		t.Errorf("Queens = %v, want [1 3]", got)
	}
	if got := Queens([]bool{false, false}, 2); got == nil || len(got) != 0 {
		t.Errorf("Queens of no queen = %#v, want empty, not nil", got)
	}
	tests := []struct {
		partition bool
		want      []int32 // the clause in gophersat's literals
	}{
		{true, []int32{-2, -4}},
		{false, []int32{1, -2, 3, -4}},
	}
	for _, tt := range tests {
		cl := Blocking([]int32{1, 3}, 4, tt.partition)
		var lits []int32
		for i := range cl.Len() {
			lits = append(lits, cl.Get(i).Int())
		}
		if !slices.Equal(lits, tt.want) {
			t.Errorf("Blocking(partition %v) = %v, want %v", tt.partition, lits, tt.want)
		}
	}
}

// TestRun: a panic becomes an error wrapping ErrSolver.
func TestRun(t *testing.T) {
	if err := Run(func() {}); err != nil {
		t.Errorf("Run of a quiet call: %v", err)
	}
	if err := Run(func() { panic("broken") }); !errors.Is(err, ErrSolver) {
		t.Errorf("Run of a panicking call: %v, want ErrSolver", err)
	}
}

// TestOptions: a size beyond the limit is ErrTooLarge, an ended context
// its error, and a field not positive asks for the default.
func TestOptions(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		ctx     context.Context
		n, maxN int
		want    error
	}{
		{context.Background(), 8, 8, nil},
		{context.Background(), 9, 8, configurator.ErrTooLarge},
		{ended, 8, 8, context.Canceled},
	}
	for _, tt := range tests {
		if err := Compilable(tt.ctx, "the test backend", tt.n, tt.maxN); !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
			t.Errorf("Compilable(%d, up to %d) = %v, want %v", tt.n, tt.maxN, err, tt.want)
		}
	}
	if got := Or(0, 5) + Or(-1, 5) + Or(3, 5); got != 13 {
		t.Errorf("Or: 0, -1 and 3 with default 5 sum to %d, want 13", got)
	}
	if got := Or(0, time.Second); got != time.Second {
		t.Errorf("Or(0, 1s) = %v", got)
	}
}

// TestAgree: a count that contradicts the cells decided is caught.
func TestAgree(t *testing.T) {
	format := func(w []int32) string { return fmt.Sprint(w) }
	possible := []bool{true, true, false, true}
	tests := []struct {
		name     string
		sols     [][]int32
		complete bool
		ok       bool
	}{
		{"complete, every possible cell used", [][]int32{{0, 1}, {3}}, true, true},
		{"capped, a possible cell not met", [][]int32{{0, 1}}, false, true},
		{"a blocked cell in a solution", [][]int32{{0, 2}}, false, false},
		{"complete, a possible cell in no solution", [][]int32{{0, 1}}, true, false},
		{"no solution at all", nil, false, false},
	}
	for _, tt := range tests {
		err := Agree(tt.sols, tt.complete, possible, format)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrSolver) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}
