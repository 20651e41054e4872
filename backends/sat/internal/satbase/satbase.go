// Package satbase is the plumbing that the two SAT backends, package sat
// and its honest baseline package plain, share: a model's lines flattened
// into integer slices, the literals and clauses they hand gophersat
// (github.com/crillab/gophersat v1.4.0, patched: see
// third_party/gophersat/PATCHES.md), solver calls stopped when their
// context ends and counted for configurator.Work, a panic in gophersat
// turned into an error, and the reading of their Options.
//
// It states only what the model says: no propagation, no search, no
// symmetry and no implied fact, which stay package sat's own.
//
// Cell variable v is gophersat variable v+1. The functions that build
// gophersat values do not call the solver: they need no turn of package
// solverlock, but their values go to calls that do.
package satbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
)

// Lines are a model's constraints flattened into integer slices. Variables
// are the model's; lines are its constraints, in order, without duplicate
// cells, minus those that constrain nothing (an AtMostOne of fewer than two
// cells).
type Lines struct {
	// Kind is the kind of each line, as the model says.
	Kind []configurator.Kind
	// Line l holds the variables Var[Start[l]:Start[l+1]].
	Start []int32
	Var   []int32
	// Units are the variables of one-cell ExactlyOne lines: every solution
	// holds them. They must never be unit clauses of a solver's base
	// problem, which gophersat's Assume would lose: they are assumed
	// instead (see Assumptions).
	Units []int32
	// Dead is set when an ExactlyOne line has no cell: no solution at all.
	Dead bool
}

// Flatten returns the lines of m's constraints.
func Flatten(m *configurator.Model) Lines {
	ls := Lines{Start: []int32{0}}
	seen := make([]bool, m.Vars())
	var vars []int32
	for _, c := range m.Constraints() {
		vars = vars[:0]
		for _, cell := range c.Cells {
			if v := m.Var(cell); !seen[v] {
				seen[v] = true
				vars = append(vars, int32(v))
			}
		}
		for _, v := range vars {
			seen[v] = false
		}
		exact := c.Kind == configurator.ExactlyOne
		switch {
		case exact && len(vars) == 0:
			ls.Dead = true
			continue
		case exact && len(vars) == 1:
			ls.Units = append(ls.Units, vars[0])
		case !exact && len(vars) < 2:
			continue
		}
		ls.Kind = append(ls.Kind, c.Kind)
		ls.Var = append(ls.Var, vars...)
		ls.Start = append(ls.Start, int32(len(ls.Var)))
	}
	return ls
}

// Assumptions returns the literals that assume a queen on every variable
// of units and of with, and none on any of without.
func Assumptions(units, with, without []int32) []solver.Lit {
	lits := make([]solver.Lit, 0, len(units)+len(with)+len(without))
	for _, v := range units {
		lits = append(lits, solver.IntToLit(v+1))
	}
	for _, v := range with {
		lits = append(lits, solver.IntToLit(v+1))
	}
	for _, v := range without {
		lits = append(lits, solver.IntToLit(-(v + 1)))
	}
	return lits
}

// Queens returns the variables, of the nv cells, that a solver's model puts
// a queen on, never nil: nil means "no solution" to the callers, and a
// model may have no queen at all.
func Queens(model []bool, nv int) []int32 {
	queens := []int32{}
	for v := range nv {
		if model[v] {
			queens = append(queens, int32(v))
		}
	}
	return queens
}

// Blocking returns the clause, over nv cells, that excludes the solution
// queens and no other: some queen of it is missing, or some other cell
// holds a queen. When the ExactlyOne lines partition the board every
// solution has as many queens, so the first half suffices: "not all of
// these queens".
func Blocking(queens []int32, nv int, partition bool) *solver.Clause {
	if partition {
		lits := make([]solver.Lit, len(queens))
		for i, v := range queens {
			lits[i] = solver.IntToLit(-(v + 1))
		}
		return solver.NewClause(lits)
	}
	lits := make([]solver.Lit, nv)
	for v := range int32(nv) {
		lits[v] = solver.IntToLit(v + 1)
	}
	for _, v := range queens {
		lits[v] = solver.IntToLit(-(v + 1))
	}
	return solver.NewClause(lits)
}

// Calls sums gophersat's work over the solver calls of one step, for
// configurator.Work. The zero value is ready to use.
type Calls struct {
	// N counts the calls; Conflicts, Decisions and Learned are the sums of
	// the differences of the solvers' Stats over them.
	N, Conflicts, Decisions, Learned int64
}

// Under asks s for a solution under the assumptions lits (which replace
// the previous ones), as one call: see Solve.
func (c *Calls) Under(ctx context.Context, s *solver.Solver, lits []solver.Lit) (bool, error) {
	if s.Assume(lits) == solver.Unsat {
		c.N++
		return false, nil
	}
	return c.Solve(ctx, s)
}

// Solve asks s for a solution under its present assumptions and clauses,
// and counts the call. It reports whether s found one; a call that ctx
// ends is interrupted and returns ctx's error (s is then ready for its
// next call, its assumptions to be set again).
func (c *Calls) Solve(ctx context.Context, s *solver.Solver) (bool, error) {
	before := s.Stats
	status := s.SolveContext(ctx)
	c.N++
	c.Conflicts += int64(s.Stats.NbConflicts - before.NbConflicts)
	c.Decisions += int64(s.Stats.NbDecisions - before.NbDecisions)
	c.Learned += int64(s.Stats.NbLearned - before.NbLearned)
	switch status {
	case solver.Sat:
		return true, nil
	case solver.Unsat:
		return false, nil
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("solver call stopped: %w", err)
	}
	return false, fmt.Errorf("%w: gophersat answered neither SAT nor UNSAT", ErrSolver)
}

// Fill copies c into the solver fields of w.
func (c Calls) Fill(w *configurator.Work) {
	w.SolverCalls, w.Conflicts, w.Decisions, w.Learned = c.N, c.Conflicts, c.Decisions, c.Learned
}

// Solvers keeps the idle solvers of one compiled space between its
// queries, so that each query starts from one that has learned from the
// previous, while queries running at once each hold their own. The memory
// it keeps is bounded: at most Max solvers, each dropped when its learned
// clauses hold more than LearnedCap bytes. Set both before first use; it
// is safe for concurrent use.
type Solvers struct {
	Max        int
	LearnedCap int64

	mu   sync.Mutex
	idle []*solver.Solver
}

// Take returns an idle solver, or build's new one. The caller alone uses
// it, within a solver turn, until it gives it back with Keep.
func (p *Solvers) Take(build func() *solver.Solver) *solver.Solver {
	p.mu.Lock()
	if k := len(p.idle); k > 0 {
		s := p.idle[k-1]
		p.idle = p.idle[:k-1]
		p.mu.Unlock()
		return s
	}
	p.mu.Unlock()
	return build()
}

// Keep gives s back for the next query, or drops it when it has learned
// too much or Max are kept already. A nil s (a solver thrown away after a
// panic) is ignored.
func (p *Solvers) Keep(s *solver.Solver) {
	if s == nil || s.LearnedBytes() > p.LearnedCap {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < p.Max {
		p.idle = append(p.idle, s)
	}
}

// ErrSolver marks a solver answer that failed verification, or a panic in
// gophersat: a bug in the solver or in the encoding, reported rather than
// believed.
var ErrSolver = errors.New("the SAT solver returned a non-solution")

// Run runs f, which calls gophersat, and returns a panic in it as an error
// wrapping ErrSolver. The caller holds the turn and, on an error, throws
// away the solver whose state the panic may have broken.
func Run(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: gophersat panicked: %v", ErrSolver, p)
		}
	}()
	f()
	return nil
}

// Agree checks a step's count against the cells it decided: every
// solution counted has its queens on possible cells and, when the count is
// complete, every possible cell holds a queen of some solution; a
// satisfiable placement has at least one. Disagreement is a bug, reported
// as an error wrapping ErrSolver; format names a solution's cells.
func Agree(sols [][]int32, complete bool, possible []bool, format func([]int32) string) error {
	seen := make([]bool, len(possible))
	for _, w := range sols {
		for _, v := range w {
			if !possible[v] {
				return fmt.Errorf("%w: the solution %s counted holds a blocked cell", ErrSolver, format(w))
			}
			seen[v] = true
		}
	}
	if complete && !slices.Equal(seen, possible) {
		return fmt.Errorf("%w: the solutions counted and the cells decided disagree", ErrSolver)
	}
	if len(sols) == 0 {
		return fmt.Errorf("%w: no solution counted, one found", ErrSolver)
	}
	return nil
}

// Compilable reports, as an error, why a backend described as what ("the
// SAT backend") and taking boards up to maxN cannot compile an n×n model
// now: the board is larger (an error wrapping configurator.ErrTooLarge),
// or ctx has ended.
func Compilable(ctx context.Context, what string, n, maxN int) error {
	if n > maxN {
		return fmt.Errorf("%d-queens: %s takes boards up to %d: %w", n, what, maxN, configurator.ErrTooLarge)
	}
	return ctx.Err()
}

// Or returns v, or d when v is not positive: an Options field whose zero
// value asks for the default d.
func Or[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}
