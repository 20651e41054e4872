package benchmarks

import (
	"context"
	"fmt"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

// BaselineStep is what a baseline made of one placement.
type BaselineStep struct {
	// Cells are the states of the cells, row-major; nil unless Done.
	Cells []configurator.State
	// Elapsed is the time spent on the step; for RestrictPerCell it
	// excludes garbage collection, which Collect reports.
	Elapsed time.Duration
	Collect time.Duration
	// CellsDone of Cells cells were decided before the step ended, by
	// Tests satisfiability tests (restricts or solver runs).
	CellsDone, CellsTotal, Tests int
	// Done is false when the context ended the step early; Estimate then
	// extrapolates its time.
	Done bool
}

// Estimate is the time the whole step took, or would have taken at the
// rate of the cells decided when the context ended it.
func (s BaselineStep) Estimate() time.Duration {
	if s.Done || s.CellsDone == 0 {
		return s.Elapsed
	}
	return time.Duration(float64(s.Elapsed) * float64(s.CellsTotal) / float64(s.CellsDone))
}

// decide is the per-cell loop both baselines share. It marks the queens'
// cells Queen and decides every other cell in variable order: Blocked when
// sat(v, true) finds no solution with a queen on cell v, else Forced when
// sat(v, false) finds none without one, else Free. It counts the cells it
// decides in s.CellsDone and the calls to sat in s.Tests, and stops at
// sat's first error. It looks at ctx between cells; when ctx ends first,
// it returns nil cells and no error.
func (s *BaselineStep) decide(ctx context.Context, model *configurator.Model, queens []configurator.Cell, sat func(v int, queen bool) (bool, error)) ([]configurator.State, error) {
	cells := make([]configurator.State, model.Vars())
	for _, q := range queens {
		cells[model.Var(q)] = configurator.Queen
	}
	for v := range cells {
		if cells[v] == configurator.Queen {
			s.CellsDone++
			continue
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		s.Tests++
		with, err := sat(v, true)
		if err == nil && with {
			s.Tests++
			var without bool
			if without, err = sat(v, false); err == nil && !without {
				cells[v] = configurator.Forced
			}
		} else {
			cells[v] = configurator.Blocked
		}
		if err != nil {
			return nil, err
		}
		s.CellsDone++
	}
	return cells, nil
}

// RestrictPerCell is the valid-domain computation of the original project
// reports, on this project's engine: after every click, restrict the
// diagram of all solutions by the placement (the queens true), then for
// each of the N*N cells restrict the result by "a queen here" and test
// it for satisfiability (in a reduced diagram: is it the False node?);
// a cell that passes is then restricted by "no queen here", and fails that
// test only when it is forced. It gives the same states as the bdd Space's
// Analyze, without the solution count.
//
// It owns a private copy of the diagram (Restrict makes nodes, and the
// Space's Manager is shared read-only), and collects the nodes it made
// by compaction when they outgrow the diagram; that collection is timed
// apart and left out of the step's time, which favours the baseline.
type RestrictPerCell struct {
	model *configurator.Model
	m     *robdd.Manager
	root  robdd.Node
	limit int // store size that triggers a collection
	a     robdd.Assignment
}

// NewRestrictPerCell copies the diagram of sp into a Manager of its own.
func NewRestrictPerCell(sp *bdd.Space) (*RestrictPerCell, error) {
	m, root, err := sp.Manager().Extract(context.Background(), sp.Root(), nil, 0)
	if err != nil {
		return nil, fmt.Errorf("restrict-per-cell baseline: copy the diagram: %w", err)
	}
	return &RestrictPerCell{
		model: sp.Model(),
		m:     m,
		root:  root,
		limit: 2*m.Size() + 4<<20,
		a:     m.NewAssignment(),
	}, nil
}

// Analyze computes the states of every cell under queens. When ctx ends
// first it returns the step unfinished (Done false) and no error.
func (b *RestrictPerCell) Analyze(ctx context.Context, queens []configurator.Cell) (BaselineStep, error) {
	model := b.model
	step := BaselineStep{CellsTotal: model.Vars()}
	// The step looks at ctx between cells, as the original did; a
	// Restrict under way always finishes.
	whole := context.WithoutCancel(ctx)
	start := time.Now()
	a := b.a
	for _, q := range queens {
		a[model.Level(model.Var(q))] = 1
	}
	r, err := b.m.Restrict(whole, b.root, a)
	for _, q := range queens {
		a[model.Level(model.Var(q))] = robdd.Unassigned
	}
	step.Tests++
	if err != nil {
		return step, fmt.Errorf("restrict-per-cell: %w", err)
	}
	if r == robdd.False {
		return step, fmt.Errorf("queens %s: %w", configurator.FormatCells(queens), configurator.ErrNoSolution)
	}
	sat := func(v int, queen bool) (bool, error) {
		if queen && b.m.Size() > b.limit {
			// Between two cells (a cell's first test puts a queen on
			// it): collect, timed apart from the step.
			step.Elapsed += time.Since(start)
			t := time.Now()
			roots := b.m.Compact(b.root, r)
			b.root, r = roots[0], roots[1]
			start = time.Now()
			step.Collect += start.Sub(t)
		}
		l := model.Level(v)
		a[l] = 0
		if queen {
			a[l] = 1
		}
		got, err := b.m.Restrict(whole, r, a)
		a[l] = robdd.Unassigned
		if err != nil {
			return false, fmt.Errorf("restrict-per-cell: %w", err)
		}
		return got != robdd.False, nil
	}
	cells, err := step.decide(ctx, model, queens, sat)
	if err != nil {
		return step, err
	}
	step.Elapsed += time.Since(start)
	step.Cells, step.Done = cells, cells != nil
	return step, nil
}
