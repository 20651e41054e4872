package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Compile compiles m with b and measures how long that took.
func Compile(ctx context.Context, b Backend, m *Model) (Space, time.Duration, error) {
	start := time.Now()
	sp, err := b.Compile(ctx, m)
	if err != nil {
		return nil, 0, fmt.Errorf("compile %d-queens with %s: %w", m.N(), b.Name(), err)
	}
	return sp, time.Since(start), nil
}

// Session is one person's configuration: the queens they placed, in order,
// and the analysis of that placement. Forced queens are derived by every
// analysis and never stored as choices. Every method leaves the session as
// it was when it returns an error. A Session is not safe for concurrent use;
// its Space is.
type Session struct {
	space    Space
	queens   []Cell
	analysis *Analysis
}

// NewSession checks and analyzes a placement: the queens must be on the
// board, distinct, and held together by some solution (else an
// *Infeasible).
func NewSession(ctx context.Context, sp Space, queens []Cell) (*Session, error) {
	if err := sp.Model().Check(queens); err != nil {
		return nil, err
	}
	s := &Session{space: sp}
	if err := s.set(ctx, slices.Clone(queens)); err != nil {
		if errors.Is(err, ErrNoSolution) {
			return nil, infeasible(sp.Model(), queens)
		}
		return nil, err
	}
	return s, nil
}

// set analyzes queens and, when that succeeds, makes them the placement.
func (s *Session) set(ctx context.Context, queens []Cell) error {
	start := time.Now()
	a, err := s.space.Analyze(ctx, queens)
	if err != nil {
		return err
	}
	a.Elapsed = time.Since(start)
	s.queens, s.analysis = queens, a
	return nil
}

// Space is the compiled model the session queries.
func (s *Session) Space() Space { return s.space }

// Queens returns the user's queens in the order they were placed.
func (s *Session) Queens() []Cell { return slices.Clone(s.queens) }

// Analysis is the analysis of the current placement.
func (s *Session) Analysis() *Analysis { return s.analysis }

// Place puts a user queen on c. A blocked cell gives ErrBlocked and a cell
// with a user queen ErrOccupied. A forced cell may be placed on: the queen
// becomes the user's own.
func (s *Session) Place(ctx context.Context, c Cell) error {
	if err := s.onBoard(c); err != nil {
		return err
	}
	switch s.analysis.At(c) {
	case Queen:
		return fmt.Errorf("place %v: %w", c, ErrOccupied)
	case Blocked:
		return fmt.Errorf("place %v: %w", c, ErrBlocked)
	}
	return s.set(ctx, append(slices.Clone(s.queens), c))
}

// Remove takes the user's queens off the given cells, whichever they are;
// forced queens are recomputed.
func (s *Session) Remove(ctx context.Context, cells ...Cell) error {
	queens := slices.Clone(s.queens)
	for _, c := range cells {
		i := slices.Index(queens, c)
		if i < 0 {
			return fmt.Errorf("remove %v: %w", c, ErrNoQueen)
		}
		queens = slices.Delete(queens, i, i+1)
	}
	return s.set(ctx, queens)
}

// Complete replaces the placement by a full solution that contains it,
// drawn uniformly when the space is a Sampler. The user's queens keep their
// order and the others follow rank by rank.
func (s *Session) Complete(ctx context.Context, rng *rand.Rand) error {
	var sol []Cell
	var err error
	if sm, ok := s.space.(Sampler); ok {
		sol, err = sm.Sample(ctx, s.queens, rng)
	} else {
		sol, err = s.space.Solve(ctx, s.queens)
	}
	if err != nil {
		return fmt.Errorf("complete: %w", err)
	}
	queens := slices.Clone(s.queens)
	for _, c := range sol {
		if !slices.Contains(queens, c) {
			queens = append(queens, c)
		}
	}
	return s.set(ctx, queens)
}

func (s *Session) onBoard(c Cell) error {
	if !s.space.Model().Contains(c) {
		n := s.space.Model().N()
		return fmt.Errorf("cell %v on a %d×%d board: %w", c, n, n, ErrOffBoard)
	}
	return nil
}
