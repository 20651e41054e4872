package configurator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Infeasible is the error of a placement that no solution holds. It wraps
// ErrNoSolution and says why as far as the model alone tells: two queens
// that attack each other, when there are such.
type Infeasible struct {
	Queens []Cell
	// Attack holds the first two queens, in placement order, that attack
	// each other; nil when no two do (the ranks left cannot be filled).
	Attack []Cell
}

func (e *Infeasible) Error() string {
	switch {
	case len(e.Queens) == 0:
		return "no solution exists on this board, even without queens"
	case e.Attack != nil:
		return fmt.Sprintf("no solution holds these queens: %v and %v attack each other", e.Attack[0], e.Attack[1])
	}
	return fmt.Sprintf("no solution holds queens on %s together: there is no way to fill the remaining ranks", ListCells(e.Queens))
}

func (e *Infeasible) Unwrap() error { return ErrNoSolution }

// infeasible describes queens that no solution holds, from the model only.
func infeasible(m *Model, queens []Cell) *Infeasible {
	e := &Infeasible{Queens: slices.Clone(queens)}
	for i, a := range queens {
		for _, b := range queens[:i] {
			if m.Attacks(a, b) {
				e.Attack = []Cell{b, a}
				return e
			}
		}
	}
	return e
}

// Refusal is the error of a queen placed on a blocked cell. It wraps
// ErrBlocked; Why says why the cell is blocked by one reason
// (Session.Why: its message names one; nil when the explanation itself
// failed, say for lack of time).
type Refusal struct {
	Cell Cell
	Why  *Explanation
}

func (e *Refusal) Error() string {
	if e.Why == nil {
		return fmt.Sprintf("%v is blocked: no remaining solution has a queen there", e.Cell)
	}
	return fmt.Sprintf("%v is blocked: %s", e.Cell, e.Why)
}

func (e *Refusal) Unwrap() error { return ErrBlocked }

// Play opens the session that results from taking the user's queens on
// remove off queens and then placing one on place (nil: none), with a
// single analysis when the result is sound. It is the whole of one click.
//
// A queen to remove that is not there gives ErrNoQueen and a place that
// holds a queen ErrOccupied. A placement on a cell that the remaining
// queens block gives a *Refusal that explains it; queens that no solution
// holds even before the placement give an *Infeasible.
func Play(ctx context.Context, sp Space, queens, remove []Cell, place *Cell) (*Session, error) {
	next := slices.Clone(queens)
	for _, c := range remove {
		i := slices.Index(next, c)
		if i < 0 {
			return nil, fmt.Errorf("remove %v: %w", c, ErrNoQueen)
		}
		next = slices.Delete(next, i, i+1)
	}
	if place == nil {
		return NewSession(ctx, sp, next)
	}
	if slices.Contains(next, *place) {
		return nil, fmt.Errorf("place %v: %w", *place, ErrOccupied)
	}
	before := slices.Clone(next)
	s, err := NewSession(ctx, sp, append(next, *place))
	if !errors.Is(err, ErrNoSolution) {
		return s, err
	}
	prior, perr := NewSession(ctx, sp, before)
	if perr != nil {
		return nil, perr
	}
	why, werr := prior.Why(ctx, *place)
	if werr != nil && ctx.Err() != nil {
		return nil, werr
	}
	if werr != nil {
		why = nil
	}
	return nil, &Refusal{Cell: *place, Why: why}
}

// ListCells names cells for a sentence: "a1", "a1 and c5", "a1, c5 and e2".
func ListCells(cells []Cell) string {
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = c.String()
	}
	switch len(names) {
	case 0:
		return "no squares"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
