package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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

// Reason says why a cell is blocked or forced.
type Reason uint8

const (
	// Attack: a single user queen attacks the cell.
	Attack Reason = iota
	// NoCompletion: no queen attacks the cell, but no solution holds the
	// queens in Because together with a queen on the cell.
	NoCompletion
	// Forcing: every solution holding the queens in Because has a queen on
	// the cell.
	Forcing
)

var reasonNames = [...]string{Attack: "attack", NoCompletion: "no-completion", Forcing: "forced"}

func (r Reason) String() string { return nameIn(reasonNames[:], int(r), "Reason(?)") }

// Explanation says why a cell is blocked or forced, in terms of the user's
// own queens only: Because is subset-minimal, so removing any one of them
// makes the reason disappear.
type Explanation struct {
	Cell    Cell
	State   State // Blocked or Forced
	Reason  Reason
	Because []Cell
	Elapsed time.Duration
}

// String says the explanation in words, as the page shows it.
func (e *Explanation) String() string {
	names := make([]string, len(e.Because))
	for i, c := range e.Because {
		names[i] = c.String()
	}
	switch {
	case e.Reason == Attack:
		return "attacked by " + strings.Join(names, ", ")
	case e.Reason == NoCompletion && len(names) == 0:
		return "no solution has a queen here, whatever else is placed"
	case e.Reason == NoCompletion:
		return "no solution holds queens on " + strings.Join(names, ", ") + " and here"
	case len(names) == 0:
		return "every solution has a queen here"
	default:
		return "every solution with queens on " + strings.Join(names, ", ") + " has a queen here"
	}
}

// Explain says why c is blocked or forced. A cell that is neither gives
// ErrNotExplained. The minimal set is found by deletion: each queen in turn
// is dropped if the rest still rules the cell, one satisfiability question
// a queen.
func (s *Session) Explain(ctx context.Context, c Cell) (*Explanation, error) {
	if err := s.onBoard(c); err != nil {
		return nil, err
	}
	start := time.Now()
	e := &Explanation{Cell: c, State: s.analysis.At(c)}
	m := s.space.Model()
	// still reports whether the queens keep ruling c as it is ruled now.
	var still func(queens []Cell) (bool, error)
	switch e.State {
	case Blocked:
		for _, q := range s.queens {
			if !m.Attacks(q, c) {
				continue
			}
			// An attack is the reason unless no solution uses c at all
			// (four corners of 4×4, for one): then no queen is needed,
			// and the deletion below finds the empty set.
			used, err := s.space.Satisfiable(ctx, []Cell{c}, nil)
			if err != nil {
				return nil, fmt.Errorf("explain %v: %w", c, err)
			}
			if used {
				e.Reason, e.Because, e.Elapsed = Attack, []Cell{q}, time.Since(start)
				return e, nil
			}
			break
		}
		e.Reason = NoCompletion
		still = func(queens []Cell) (bool, error) {
			ok, err := s.space.Satisfiable(ctx, append(queens, c), nil)
			return !ok, err
		}
	case Forced:
		e.Reason = Forcing
		still = func(queens []Cell) (bool, error) {
			ok, err := s.space.Satisfiable(ctx, queens, []Cell{c})
			return !ok, err
		}
	default:
		return nil, fmt.Errorf("explain %v (%v): %w", c, e.State, ErrNotExplained)
	}
	because := slices.Clone(s.queens)
	for i := len(because) - 1; i >= 0; i-- {
		rest := slices.Delete(slices.Clone(because), i, i+1)
		ok, err := still(rest)
		if err != nil {
			return nil, fmt.Errorf("explain %v: %w", c, err)
		}
		if ok {
			because = rest
		}
	}
	e.Because, e.Elapsed = because, time.Since(start)
	return e, nil
}

// MakeRoom returns the fewest user queens whose removal frees the blocked
// cell c (a minimum correction set), in placement order. The queens that
// attack c must go; the rest is searched by increasing size, so the answer
// is minimum, not merely minimal. The session is not changed: pass the
// result to Remove.
func (s *Session) MakeRoom(ctx context.Context, c Cell) ([]Cell, error) {
	if err := s.onBoard(c); err != nil {
		return nil, err
	}
	if st := s.analysis.At(c); st != Blocked {
		return nil, fmt.Errorf("make room on %v (%v): %w", c, st, ErrNotExplained)
	}
	m := s.space.Model()
	var must, rest []Cell
	for _, q := range s.queens {
		if m.Attacks(q, c) {
			must = append(must, q)
		} else {
			rest = append(rest, q)
		}
	}
	// Try every subset of rest of size k, k = 0, 1, ...; kept lists the
	// queens that stay when the subset chosen by idx goes.
	for k := 0; k <= len(rest); k++ {
		idx := make([]int, k)
		for i := range idx {
			idx[i] = i
		}
		for {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("make room on %v: %w", c, err)
			}
			var kept, gone []Cell
			for i, q := range rest {
				if slices.Contains(idx, i) {
					gone = append(gone, q)
				} else {
					kept = append(kept, q)
				}
			}
			ok, err := s.space.Satisfiable(ctx, append(kept, c), nil)
			if err != nil {
				return nil, fmt.Errorf("make room on %v: %w", c, err)
			}
			if ok {
				remove := append(slices.Clone(must), gone...)
				slices.SortFunc(remove, func(a, b Cell) int {
					return slices.Index(s.queens, a) - slices.Index(s.queens, b)
				})
				return remove, nil
			}
			if !nextCombination(idx, len(rest)) {
				break
			}
		}
	}
	// Unreachable for a consistent space: with every queen gone, c is
	// blocked only if no solution uses it, which Analyze reports as such
	// and the empty set cannot cure.
	return nil, fmt.Errorf("make room on %v: %w", c, ErrNoSolution)
}

// nextCombination advances idx, a strictly increasing k-subset of 0..n-1,
// to the next one in lexicographic order, reporting false after the last.
func nextCombination(idx []int, n int) bool {
	k := len(idx)
	i := k - 1
	for i >= 0 && idx[i] == n-k+i {
		i--
	}
	if i < 0 {
		return false
	}
	idx[i]++
	for j := i + 1; j < k; j++ {
		idx[j] = idx[j-1] + 1
	}
	return true
}
