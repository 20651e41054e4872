package configurator

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nqueens/configurator/configurator/feature"
)

// BoardFeatures returns sp, the space of a board, as the space of the
// board's feature model (Model.FeatureModel): a selected square is a queen,
// a deselected one a square ruled out. A space that answers feature
// decisions itself (a FeatureSpace, with counts and samples over squares
// ruled out) is returned as it is; any other is answered through the
// board's questions: the analysis of its queens, then a satisfiability
// test for each square those leave open when squares are ruled out
// (answers that are not counted).
func BoardFeatures(sp Space) FeatureSpace {
	if fs, ok := sp.(FeatureSpace); ok {
		return fs
	}
	fm, err := sp.Model().FeatureModel()
	if err != nil {
		// FeatureModel fails only on a model New and Custom refuse.
		panic(fmt.Sprintf("configurator: a board's feature model: %v", err))
	}
	return &boardSpace{sp: sp, fm: fm}
}

// boardSpace is a board's Space answering decisions on its squares.
type boardSpace struct {
	sp Space
	fm *feature.Model
}

// Admit passes the board space's turns on.
func (b *boardSpace) Admit(ctx context.Context) (func(), error) { return Admit(ctx, b.sp) }

func (b *boardSpace) FeatureModel() *feature.Model { return b.fm }

// cells splits decisions into the queens and the squares ruled out.
func (b *boardSpace) cells(decisions []Decision) (queens, without []Cell) {
	m := b.sp.Model()
	for _, d := range decisions {
		if d.Select {
			queens = append(queens, m.Cell(d.Feature))
		} else {
			without = append(without, m.Cell(d.Feature))
		}
	}
	return queens, without
}

func (b *boardSpace) Domains(ctx context.Context, decisions []Decision) (*Domains, error) {
	start := time.Now()
	queens, without := b.cells(decisions)
	an, err := b.sp.Analyze(ctx, queens)
	if err != nil {
		return nil, err
	}
	d := &Domains{States: make([]FeatureState, len(an.Cells)), Work: an.Work}
	if len(without) == 0 {
		d.Configurations, d.AtLeast = an.Solutions, an.AtLeast
	}
	if ok, err := b.sp.Satisfiable(ctx, queens, without); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("no solution keeps these %d decisions: %w", len(decisions), ErrNoSolution)
		}
		return nil, err
	}
	m := b.sp.Model()
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
			on, err := b.sp.Satisfiable(ctx, append(slices.Clone(queens), c), without)
			if err != nil {
				return nil, err
			}
			off := true
			if on {
				off, err = b.sp.Satisfiable(ctx, queens, append(slices.Clone(without), c))
				if err != nil {
					return nil, err
				}
			}
			d.Work.SolverCalls += 2
			switch {
			case !on:
				d.States[v] = ForcedOff
			case !off:
				d.States[v] = ForcedOn
			}
		}
	}
	d.Elapsed = time.Since(start)
	return d, nil
}

func (b *boardSpace) Consistent(ctx context.Context, decisions []Decision) (bool, error) {
	queens, without := b.cells(decisions)
	return b.sp.Satisfiable(ctx, queens, without)
}

// Configuration returns a solution that keeps the decisions: the board's
// own when no square is ruled out, else one built rank by rank, the first
// square of each rank that some solution keeps.
func (b *boardSpace) Configuration(ctx context.Context, decisions []Decision) ([]bool, error) {
	queens, without := b.cells(decisions)
	m := b.sp.Model()
	if len(without) > 0 {
		ok, err := b.sp.Satisfiable(ctx, queens, without)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("no solution keeps these %d decisions: %w", len(decisions), ErrNoSolution)
		}
		for _, c := range m.Constraints() {
			if c.Kind != ExactlyOne || slices.ContainsFunc(c.Cells, func(q Cell) bool { return slices.Contains(queens, q) }) {
				continue
			}
			for _, q := range c.Cells {
				if slices.Contains(without, q) {
					continue
				}
				more := append(slices.Clone(queens), q)
				ok, err := b.sp.Satisfiable(ctx, more, without)
				if err != nil {
					return nil, err
				}
				if ok {
					queens = more
					break
				}
			}
		}
	}
	sol, err := b.sp.Solve(ctx, queens)
	if err != nil {
		return nil, err
	}
	x := make([]bool, m.Vars())
	for _, q := range sol {
		x[m.Var(q)] = true
	}
	return x, nil
}
