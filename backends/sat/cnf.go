package sat

import "github.com/crillab/gophersat/solver"

// Every function of this file calls gophersat: callers hold the turn.

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

// assumptions returns the literals that assume the board's units, a queen
// on every variable of with and none on any of without.
func (b *board) assumptions(with, without []int32) []solver.Lit {
	lits := make([]solver.Lit, 0, len(b.units)+len(with)+len(without))
	for _, v := range b.units {
		lits = append(lits, solver.IntToLit(v+1))
	}
	for _, v := range with {
		lits = append(lits, solver.IntToLit(v+1))
	}
	for _, v := range without {
		lits = append(lits, solver.IntToLit(-(v + 1)))
	}
	return lits
}

// queensOf returns the variables a solver's model puts a queen on, never
// nil: nil means "no solution" to the callers, and a model may have no
// queen at all.
func (b *board) queensOf(model []bool) []int32 {
	queens := make([]int32, 0, b.n)
	for v := range b.nv {
		if model[v] {
			queens = append(queens, int32(v))
		}
	}
	return queens
}

// solveUnder asks s for a solution with a queen on every variable of with
// and none on any of without, and returns its queens, or nil when there is
// none (a solution without queens is an empty slice, not nil). The assumptions replace those of the previous call, so one solver
// serves every question and keeps what it learnt: its learnt clauses keep
// the assumptions they depend on, so they hold whatever is assumed next.
func (b *board) solveUnder(s *solver.Solver, with, without []int32) []int32 {
	if s.Assume(b.assumptions(with, without)) == solver.Unsat {
		return nil
	}
	if s.Solve() != solver.Sat {
		return nil
	}
	return b.queensOf(s.Model())
}

// blocking returns the clause that excludes the solution queens and no
// other: when the ExactlyOne lines partition the board every solution has
// as many queens, so "not all of these queens" suffices; otherwise the
// clause must also name the empty cells.
func (b *board) blocking(queens []int32) *solver.Clause {
	var lits []solver.Lit
	if b.partition {
		lits = make([]solver.Lit, len(queens))
		for i, v := range queens {
			lits[i] = solver.IntToLit(-(v + 1))
		}
		return solver.NewClause(lits)
	}
	isQueen := make([]bool, b.nv)
	for _, v := range queens {
		isQueen[v] = true
	}
	lits = make([]solver.Lit, b.nv)
	for v := range int32(b.nv) {
		if isQueen[v] {
			lits[v] = solver.IntToLit(-(v + 1))
		} else {
			lits[v] = solver.IntToLit(v + 1)
		}
	}
	return solver.NewClause(lits)
}
