package configurator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nqueens/configurator/configurator/feature"
)

// Squares answers a board's feature decisions (its Model.FeatureModel: a
// selected square is a queen, a deselected one a square ruled out) from the
// board's questions in squares: the analysis of its queens and, when
// squares are ruled out, solutions that keep the decisions (the board's
// witnesses, as a Finder), each settling every square it shows, until
// every square is settled (answers that are not counted). A board whose
// backend answers in squares alone embeds the Squares of itself
// (NewSquares) to be a Space; one that answers feature decisions itself,
// with counts over squares ruled out, needs none.
type Squares struct {
	b interface {
		Board
		Finder
	}
}

// NewSquares returns the Squares that answer b's feature decisions. It
// asks b nothing until they are asked, so b may be a board under
// construction that embeds the result.
func NewSquares(b interface {
	Board
	Finder
}) Squares {
	return Squares{b: b}
}

// FeatureModel is the board's feature model, a feature per square.
func (s Squares) FeatureModel() *feature.Model {
	fm, err := s.b.Model().FeatureModel()
	if err != nil {
		// FeatureModel fails only on a model New and Custom refuse.
		panic(fmt.Sprintf("configurator: a board's feature model: %v", err))
	}
	return fm
}

// Domains classifies every square under the decisions; it counts the
// solutions only when no square is ruled out.
func (s Squares) Domains(ctx context.Context, decisions []Decision) (*Domains, error) {
	start := time.Now()
	queens, without := boardCells(s.b.Model(), decisions)
	an, err := s.b.Analyze(ctx, queens)
	if err != nil {
		return nil, err
	}
	d := &Domains{States: make([]FeatureState, len(an.Cells)), Work: an.Work}
	if len(without) == 0 {
		d.Configurations, d.AtLeast = an.Solutions, an.AtLeast
	}
	m := s.b.Model()
	// canOn and canOff are the squares some solution that keeps the
	// decisions puts a queen on, or leaves empty, as far as known: each
	// witness found settles every square it shows.
	canOn, canOff := make([]bool, len(an.Cells)), make([]bool, len(an.Cells))
	find := func(with, out []Cell) (bool, error) {
		d.Work.SolverCalls++
		w, err := s.b.Find(ctx, with, out)
		if w == nil || err != nil {
			return false, err
		}
		on := make([]bool, len(an.Cells))
		for _, q := range w {
			on[m.Var(q)] = true
		}
		for v, x := range on {
			canOn[v] = canOn[v] || x
			canOff[v] = canOff[v] || !x
		}
		return true, nil
	}
	if len(without) > 0 {
		ok, err := find(queens, without)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("no solution keeps these %d decisions: %w", len(decisions), ErrNoSolution)
		}
	}
	for v, st := range an.Cells {
		c := m.Cell(v)
		switch {
		case st == Queen:
			d.States[v] = Selected
		case slices.Contains(without, c):
			d.States[v] = Deselected
		case st == Blocked:
			d.States[v] = ForcedOff
		case st == Forced:
			// Forced by the queens alone, so by every further restriction.
			d.States[v] = ForcedOn
		case len(without) > 0:
			if !canOn[v] {
				ok, err := find(append(slices.Clone(queens), c), without)
				if err != nil {
					return nil, err
				}
				if !ok {
					d.States[v] = ForcedOff
					continue
				}
			}
			if !canOff[v] {
				ok, err := find(queens, append(slices.Clone(without), c))
				if err != nil {
					return nil, err
				}
				if !ok {
					d.States[v] = ForcedOn
				}
			}
		}
	}
	d.Elapsed = time.Since(start)
	return d, nil
}

// Consistent reports whether some solution keeps the decisions.
func (s Squares) Consistent(ctx context.Context, decisions []Decision) (bool, error) {
	queens, without := boardCells(s.b.Model(), decisions)
	return s.b.Satisfiable(ctx, queens, without)
}

// Configuration returns a solution that keeps the decisions.
func (s Squares) Configuration(ctx context.Context, decisions []Decision) ([]bool, error) {
	queens, without := boardCells(s.b.Model(), decisions)
	sol, err := s.b.Find(ctx, queens, without)
	if err != nil {
		return nil, err
	}
	if sol == nil {
		return nil, fmt.Errorf("no solution keeps these %d decisions: %w", len(decisions), ErrNoSolution)
	}
	m := s.b.Model()
	x := make([]bool, m.Vars())
	for _, q := range sol {
		x[m.Var(q)] = true
	}
	return x, nil
}
