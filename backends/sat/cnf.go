package sat

import (
	"context"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
)

// Every function of this file calls gophersat: callers hold a turn.

// problem encodes the board for gophersat with its native cardinality
// constraints: a line is one constraint "at least len-1 of the negated
// cells", and an exact line (see board.exact) adds the clause "at least
// one". Measured here, one N=50 solution took 42 ms this way against
// 0.28 s with the pairwise CNF (1.6 million clauses at N=100) and 1.4 s
// with a sequential counter; with the exact files, 24 ms at N=50 and 0.6 s
// at N=200 (4.5 minutes without them). The problem has no unit clause,
// whatever the model (one-cell ExactlyOne lines are assumed instead, see
// board.units), so Assume cannot lose one.
func (b *board) problem() *solver.Problem {
	var cs []solver.CardConstr
	for l, x := range b.exact {
		vars := b.line(int32(l))
		if len(vars) < 2 {
			continue
		}
		lits := make([]int, len(vars))
		for i, v := range vars {
			lits[i] = int(v) + 1
		}
		cs = append(cs, solver.AtMost1(lits...))
		if x {
			cs = append(cs, solver.AtLeast1(lits...))
		}
	}
	pb := solver.ParseCardConstrs(cs)
	// Cells on no line still need a variable, or Model would be short.
	for pb.NbVars < b.nv {
		pb.NbVars++
	}
	for len(pb.Model) < pb.NbVars {
		pb.Model = append(pb.Model, 0)
	}
	return pb
}

// solveUnder asks s for a solution with a queen on every variable of with
// and none on any of without, and returns its queens, or nil when there is
// none (a solution without queens is an empty slice, not nil). The
// assumptions replace those of the previous call, so one solver serves
// every question and keeps what it learnt: its learnt clauses keep the
// assumptions they depend on, so they hold whatever is assumed next.
//
// The call counts in calls, and is interrupted when ctx ends: it then
// returns ctx's error.
func (b *board) solveUnder(ctx context.Context, s *solver.Solver, calls *satbase.Calls, with, without []int32) ([]int32, error) {
	ok, err := calls.Under(ctx, s, satbase.Assumptions(b.units, with, without))
	if !ok || err != nil {
		return nil, err
	}
	return satbase.Queens(s.Model(), b.nv), nil
}
