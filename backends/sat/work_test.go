package sat

import (
	"context"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestWork: the work behind an analysis. Every cell but the user's queens
// is decided by exactly one means, so the three counts sum to them; cells a
// queen attacks are decided by propagation; below 12×12 no local search
// runs, from 12×12 its witnesses decide cells; a cell decided by the
// solver means the solver was called; the count is timed apart, and is 0
// where the backend does not count.
func TestWork(t *testing.T) {
	for _, tc := range []struct {
		n         int
		queens    string
		counted   bool // Count > 0 and Solutions set
		byProp    bool // ByPropagation > 0
		byWitness bool // ByWitness > 0
	}{
		{n: 6, counted: true},
		{n: 8, counted: true},
		{n: 8, queens: "a1", counted: true, byProp: true},
		{n: 10, queens: "e5", counted: true, byProp: true},
		{n: 12, byWitness: true},
		{n: 16, queens: "c3,h9", byProp: true, byWitness: true},
	} {
		sp := nqueens(t, New(Options{}), tc.n)
		queens := configuratortest.Cells(t, tc.queens)
		a, err := sp.Analyze(context.Background(), queens)
		if err != nil {
			t.Fatalf("%d×%d %s: %v", tc.n, tc.n, tc.queens, err)
		}
		w := a.Work
		name := func() string { return configurator.FormatCells(queens) }
		if got, want := w.ByPropagation+w.ByWitness+w.BySolver, tc.n*tc.n-len(queens); got != want {
			t.Errorf("%d×%d %s: %d cells decided (%+v), want %d", tc.n, tc.n, name(), got, w, want)
		}
		if (w.ByPropagation > 0) != tc.byProp || (w.ByWitness > 0) != tc.byWitness {
			t.Errorf("%d×%d %s: by propagation %d, by witness %d; want some: %v, %v", tc.n, tc.n, name(), w.ByPropagation, w.ByWitness, tc.byProp, tc.byWitness)
		}
		if w.BySolver > 0 && w.SolverCalls == 0 {
			t.Errorf("%d×%d %s: %d cells decided by the solver without a call", tc.n, tc.n, name(), w.BySolver)
		}
		if w.SolverCalls < 0 || w.Conflicts < 0 || w.Decisions < 0 || w.Learned < 0 {
			t.Errorf("%d×%d %s: negative work %+v", tc.n, tc.n, name(), w)
		}
		if (w.Count > 0) != tc.counted || (a.Solutions != nil) != tc.counted {
			t.Errorf("%d×%d %s: count took %v, solutions %v; counted: want %v", tc.n, tc.n, name(), w.Count, a.Solutions, tc.counted)
		}
		if w.Domains <= 0 || w.Domains+w.Count > a.Elapsed {
			t.Errorf("%d×%d %s: domains %v and count %v do not fit in the %v elapsed", tc.n, tc.n, name(), w.Domains, w.Count, a.Elapsed)
		}
		if tc.counted && w.SolverCalls <= a.Solutions.Int64()/8 {
			// Each solution counted costs a call, or is the image of one
			// under one of the board's 8 symmetries at most.
			t.Errorf("%d×%d %s: %d solver calls for %v solutions", tc.n, tc.n, name(), w.SolverCalls, a.Solutions)
		}
	}
}

// TestWorkSolverOnly: with the local search and the symmetries off, no cell
// is decided by a witness, and the solver is asked at least once for every
// cell it decides that no earlier solution of it covered: more calls than
// with them.
func TestWorkSolverOnly(t *testing.T) {
	const n = 12
	with := nqueens(t, New(Options{}), n)
	b := New(Options{})
	b.solverOnly = true
	without := nqueens(t, b, n)
	a, err := with.Analyze(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := without.Analyze(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Work.ByWitness != 0 || o.Work.BySolver != n*n || o.Work.SolverCalls <= a.Work.SolverCalls {
		t.Errorf("solver only: %+v; with the shortcuts: %+v", o.Work, a.Work)
	}
}
