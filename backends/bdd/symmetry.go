package bdd

import (
	"math/big"
	"slices"

	"github.com/nqueens/configurator/configurator"
)

// symmetry is one of the eight symmetries of the square board: a
// transposition, then reflections of the ranks and of the files. A queen
// attacks the same cells in every image, so each maps the solutions of
// the N-Queens model onto themselves, and the answers about a placement
// are those about its image, read through the symmetry.
type symmetry struct{ transpose, flipRanks, flipFiles bool }

// symmetries lists the eight symmetries of the board, the identity first.
func symmetries() [8]symmetry {
	var all [8]symmetry
	for i := range all {
		all[i] = symmetry{i&1 != 0, i&2 != 0, i&4 != 0}
	}
	return all
}

// apply is the image of c on the n×n board.
func (g symmetry) apply(c configurator.Cell, n int) configurator.Cell {
	if g.transpose {
		c.Row, c.Col = c.Col, c.Row
	}
	if g.flipRanks {
		c.Row = n - 1 - c.Row
	}
	if g.flipFiles {
		c.Col = n - 1 - c.Col
	}
	return c
}

// variable is the variable of model of the image of variable v under g.
func (g symmetry) variable(model *configurator.Model, v int) int {
	return model.Var(g.apply(model.Cell(v), model.N()))
}

// readThrough returns a copy of an read through g: the analysis of the
// board whose image under g is an's, its cell c being an's g(c).
func (g symmetry) readThrough(model *configurator.Model, an *configurator.Analysis) *configurator.Analysis {
	out := clone(an)
	for v := range out.Cells {
		out.Cells[v] = an.Cells[g.variable(model, v)]
	}
	return out
}

// canonical returns the symmetry that maps c to the first of its images,
// row-major.
func canonical(c configurator.Cell, n int) symmetry {
	var best symmetry
	first := c
	for _, g := range symmetries() {
		if d := g.apply(c, n); d.Row < first.Row || d.Row == first.Row && d.Col < first.Col {
			best, first = g, d
		}
	}
	return best
}

// clone copies an analysis, so that callers never share one.
func clone(an *configurator.Analysis) *configurator.Analysis {
	c := *an
	c.Cells = slices.Clone(an.Cells)
	if an.Solutions != nil {
		c.Solutions = new(big.Int).Set(an.Solutions)
	}
	return &c
}
