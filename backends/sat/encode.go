package sat

import "github.com/crillab/gophersat/solver"

// problem encodes the board for gophersat with its native cardinality
// constraints: a line is one constraint "at least len-1 of the negated
// cells", and an exact line (see board.exact) adds the clause "at least
// one". The problem grows with the cells of the lines, where the pairwise
// CNF of package plain grows with their pairs, and the exact files let
// unit propagation refute what clause learning would search long for. It
// has no unit clause, whatever the model (one-cell ExactlyOne lines are
// assumed instead, see satbase.Lines.Units), so Assume cannot lose one.
func (b *board) problem() *solver.Problem {
	var cs []solver.CardConstr
	for l, x := range b.exact {
		vars := b.Line(int32(l))
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
