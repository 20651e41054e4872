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
// board's questions: the analysis of its queens and, when squares are
// ruled out, solutions that keep the decisions (the space's witnesses when
// it is a Finder), each settling every square it shows, until every
// square is settled (answers that are not counted).
func BoardFeatures(sp Board) Space {
	if fs, ok := sp.(Space); ok {
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
	sp Board
	fm *feature.Model
}

// Admit passes the board space's turns on.
func (b *boardSpace) Admit(ctx context.Context) (func(), error) { return Admit(ctx, b.sp) }

// Lane passes the board space's lane on (see Turner); a space that is no
// Turner has none.
func (b *boardSpace) Lane(ctx context.Context) (func(), error) { return lane(ctx, turnerOf(b.sp)) }

// Turn passes the board space's turns on (see Turner); on a space that is
// no Turner the turn is ctx itself, never wanted by another.
func (b *boardSpace) Turn(ctx context.Context, resumed bool) (context.Context, func(), error) {
	if t := turnerOf(b.sp); t != nil {
		return t.Turn(ctx, resumed)
	}
	return ctx, func() {}, ctx.Err()
}

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
	m := b.sp.Model()
	// canOn and canOff are the squares some solution that keeps the
	// decisions puts a queen on, or leaves empty, as far as known: each
	// witness found settles every square it shows.
	canOn, canOff := make([]bool, len(an.Cells)), make([]bool, len(an.Cells))
	find := func(with, out []Cell) (bool, error) {
		d.Work.SolverCalls++
		w, err := b.find(ctx, with, out)
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

// find is a solution with a queen on every cell of with and none on any
// of without, nil when there is none: the space's witness when it is a
// Finder, else one built rank by rank from satisfiability tests.
func (b *boardSpace) find(ctx context.Context, with, without []Cell) ([]Cell, error) {
	if f, ok := b.sp.(Finder); ok {
		return f.Find(ctx, with, without)
	}
	ok, err := b.sp.Satisfiable(ctx, with, without)
	if err != nil || !ok {
		return nil, err
	}
	queens := slices.Clone(with)
	for _, c := range b.sp.Model().Constraints() {
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
	return b.sp.Solve(ctx, queens)
}

func (b *boardSpace) Consistent(ctx context.Context, decisions []Decision) (bool, error) {
	queens, without := b.cells(decisions)
	return b.sp.Satisfiable(ctx, queens, without)
}

// Configuration returns a solution that keeps the decisions.
func (b *boardSpace) Configuration(ctx context.Context, decisions []Decision) ([]bool, error) {
	queens, without := b.cells(decisions)
	sol, err := b.find(ctx, queens, without)
	if err != nil {
		return nil, err
	}
	if sol == nil {
		return nil, fmt.Errorf("no solution keeps these %d decisions: %w", len(decisions), ErrNoSolution)
	}
	m := b.sp.Model()
	x := make([]bool, m.Vars())
	for _, q := range sol {
		x[m.Var(q)] = true
	}
	return x, nil
}
