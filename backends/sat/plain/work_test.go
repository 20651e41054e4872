package plain_test

import (
	"context"
	"testing"

	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

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
