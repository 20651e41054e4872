package crosscheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/oracle"
)

// WalkOptions says how many random walks to take and how long.
type WalkOptions struct {
	Walks, Steps int
	// Seed makes the walks reproducible: walk w on board N draws from a
	// generator seeded with (Seed, N<<32 | w).
	Seed uint64
}

// Walk takes seeded random walks on the subjects' board. A step places a
// queen (now and then on a blocked or occupied cell, which must be
// refused), removes one, explains a blocked or forced cell, makes room for
// a blocked cell (and sometimes takes the advice), completes the placement,
// or asks a random satisfiability question; after every change each
// subject's analysis is compared with the oracle's. A disagreement is
// reduced to a smallest placement that still shows it.
func Walk(ctx context.Context, subjects []Subject, opt WalkOptions) (*Report, error) {
	c, err := newChecker(subjects)
	if err != nil {
		return nil, err
	}
	for w := range opt.Walks {
		c.walk = w
		if err := c.walkOnce(ctx, rand.New(rand.NewPCG(opt.Seed, uint64(c.n)<<32|uint64(w))), opt.Steps); err != nil {
			return c.rep, fmt.Errorf("crosscheck N=%d walk %d: %w", c.n, w, err)
		}
		c.rep.Walks++
	}
	return c.rep, nil
}

// walker is the state of one walk: the placement the oracle holds true and
// every subject's session on it (nil when a subject has dropped out of
// this walk after a disagreement it could not recover from).
type walker struct {
	*checker
	queens   []configurator.Cell
	want     *oracle.Analysis
	sessions []*configurator.Session
}

func (c *checker) walkOnce(ctx context.Context, rng *rand.Rand, steps int) error {
	w := &walker{checker: c, sessions: make([]*configurator.Session, len(c.subjects))}
	w.want = c.truth(nil)
	c.step = 0
	for i := range c.subjects {
		s, err := c.session(ctx, i, nil, w.want)
		if err != nil {
			return err
		}
		w.sessions[i] = s
	}
	if err := c.settle(ctx); err != nil {
		return err
	}
	for step := 1; step <= steps; step++ {
		c.step = step
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.move(ctx, rng); err != nil {
			return err
		}
		c.rep.Steps++
		if err := c.settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// settle shrinks and records the disagreements of the step just taken.
func (c *checker) settle(ctx context.Context) error {
	found := c.found
	c.found = nil
	for k, d := range found {
		i := slices.Index(c.rep.Subjects, d.Subject)
		first := k == 0 || d.Check != found[k-1].Check || d.Subject != found[k-1].Subject
		if first && c.shrinks < maxShrinks {
			c.shrinks++
			var err error
			if d, err = c.shrink(ctx, i, d); err != nil {
				return err
			}
		}
		c.record([]Disagreement{d})
	}
	return nil
}

// random returns a random element of cells, false when it is empty.
func random(rng *rand.Rand, cells []configurator.Cell) (configurator.Cell, bool) {
	if len(cells) == 0 {
		return configurator.Cell{}, false
	}
	return cells[rng.IntN(len(cells))], true
}

// move takes one random step of the walk.
func (w *walker) move(ctx context.Context, rng *rand.Rand) error {
	free := append(cellsIn(w.want, oracle.Free), cellsIn(w.want, oracle.Forced)...)
	blocked := cellsIn(w.want, oracle.Blocked)
	forced := cellsIn(w.want, oracle.Forced)
	switch p := rng.IntN(100); {
	case p < 35 && len(free) > 0:
		cell, _ := random(rng, free)
		return w.apply(ctx, append(slices.Clone(w.queens), cell), func(s *configurator.Session) error { return s.Place(ctx, cell) })
	case p < 42:
		// A refused click: a blocked cell, or a queen already there.
		for i, s := range w.sessions {
			if s == nil {
				continue
			}
			if cell, ok := random(rng, blocked); ok && s.Analysis().At(cell) == configurator.Blocked {
				w.checkRefusals(ctx, i, s, []configurator.Cell{cell}, configurator.ErrBlocked)
			}
			if cell, ok := random(rng, w.queens); ok {
				w.checkRefusals(ctx, i, s, []configurator.Cell{cell}, configurator.ErrOccupied)
			}
		}
		return nil
	case p < 60 && len(w.queens) > 0:
		cell, _ := random(rng, w.queens)
		queens := slices.DeleteFunc(slices.Clone(w.queens), func(q configurator.Cell) bool { return q == cell })
		return w.apply(ctx, queens, func(s *configurator.Session) error { return s.Remove(ctx, cell) })
	case p < 75:
		// Explain a blocked or forced cell (or, rarely, a free one,
		// which must be refused).
		pool := append(slices.Clone(blocked), forced...)
		if rng.IntN(10) == 0 {
			pool = append(pool, free...)
		}
		cell, ok := random(rng, pool)
		if !ok {
			return nil
		}
		for i, s := range w.sessions {
			if s != nil && s.Analysis().At(cell) == state(w.want.At(ocell(cell))) {
				if err := w.checkExplain(ctx, i, s, cell, w.want.At(ocell(cell))); err != nil {
					return err
				}
			}
		}
		return nil
	case p < 88:
		cell, ok := random(rng, blocked)
		if !ok {
			return nil
		}
		var advice []configurator.Cell
		for i, s := range w.sessions {
			if s == nil || s.Analysis().At(cell) != configurator.Blocked {
				continue
			}
			remove, err := w.checkMakeRoom(ctx, i, s, cell)
			if err != nil {
				return err
			}
			if advice == nil {
				advice = remove
			}
		}
		// Take the (verified) advice of the first subject half the time:
		// every session removes those queens.
		if len(advice) > 0 && rng.IntN(2) == 0 {
			queens := slices.DeleteFunc(slices.Clone(w.queens), func(q configurator.Cell) bool { return slices.Contains(advice, q) })
			return w.apply(ctx, queens, func(s *configurator.Session) error { return s.Remove(ctx, advice...) })
		}
		return nil
	case p < 93:
		return w.complete(ctx, rng)
	default:
		return w.probe(ctx, rng)
	}
}

// apply performs the same change on every session and checks that each
// now holds queens and analyzes it as the oracle does. A session that
// fails is reported and reopened on queens.
func (w *walker) apply(ctx context.Context, queens []configurator.Cell, change func(*configurator.Session) error) error {
	before := w.queens
	w.queens, w.want = queens, w.truth(queens)
	for i, s := range w.sessions {
		if s == nil {
			if err := w.reopen(ctx, i); err != nil {
				return err
			}
			continue
		}
		var err error
		w.timed(i, func() { err = change(s) })
		if stop(ctx, err) {
			return err
		}
		if err != nil || !slices.Equal(s.Queens(), queens) {
			w.disagree(i, before, "session", nil, fmt.Sprintf("[%s], error %v", configurator.FormatCells(s.Queens()), err), "["+configurator.FormatCells(queens)+"]")
			if err := w.reopen(ctx, i); err != nil {
				return err
			}
			continue
		}
		w.compareAnalysis(i, queens, s.Analysis(), w.want)
	}
	return nil
}

// reopen gives subject i a fresh session on the walk's placement.
func (w *walker) reopen(ctx context.Context, i int) error {
	s, err := w.session(ctx, i, w.queens, w.want)
	w.sessions[i] = s
	return err
}

// complete asks every session to complete the placement and checks each
// answer; the walk then goes on from one random completion the oracle
// picks, every session reopened on it.
func (w *walker) complete(ctx context.Context, rng *rand.Rand) error {
	for i, s := range w.sessions {
		if s == nil {
			continue
		}
		before := s.Queens()
		var err error
		w.timed(i, func() { err = s.Complete(ctx, rand.New(rand.NewPCG(rng.Uint64(), 0))) })
		if stop(ctx, err) {
			return err
		}
		after := s.Queens()
		if err != nil || !w.isSolutionWith(after, before) || !slices.Equal(after[:len(before)], before) {
			w.disagree(i, before, "complete", nil, fmt.Sprintf("[%s], error %v", configurator.FormatCells(after), err), "a solution extending the queens, theirs first")
		} else if a := s.Analysis(); len(a.In(configurator.Queen)) != w.n {
			w.disagree(i, after, "analyze", nil, fmt.Sprintf("%d queens", len(a.In(configurator.Queen))), fmt.Sprintf("%d queens", w.n))
		}
	}
	var ext []int
	w.ask(func() { ext = w.board.Extending(ocells(w.queens)) })
	if len(ext) == 0 {
		return nil
	}
	queens := slices.Clone(w.queens)
	for _, q := range w.board.Solution(ext[rng.IntN(len(ext))]) {
		if cell := (configurator.Cell{Row: q.Row, Col: q.Col}); !slices.Contains(queens, cell) {
			queens = append(queens, cell)
		}
	}
	w.queens, w.want = queens, w.truth(queens)
	for i := range w.sessions {
		if err := w.reopen(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// probe asks every space a random satisfiability question around the
// placement, and for a solution of it.
func (w *walker) probe(ctx context.Context, rng *rand.Rand) error {
	var with, without []configurator.Cell
	for _, q := range w.queens {
		if rng.IntN(2) == 0 {
			with = append(with, q)
		}
	}
	for range rng.IntN(3) {
		cell := configurator.Cell{Row: rng.IntN(w.n), Col: rng.IntN(w.n)}
		if slices.Contains(with, cell) || slices.Contains(without, cell) {
			continue
		}
		if rng.IntN(2) == 0 {
			with = append(with, cell)
		} else {
			without = append(without, cell)
		}
	}
	for i := range w.subjects {
		if err := w.checkSatisfiable(ctx, i, w.queens, with, without); err != nil {
			return err
		}
		if err := w.checkSolve(ctx, i, w.queens, w.want); err != nil {
			return err
		}
	}
	return nil
}
