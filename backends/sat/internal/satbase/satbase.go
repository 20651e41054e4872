// Package satbase is what the two SAT backends, package sat and its honest
// baseline package plain, share: the skeleton of a backend and of its
// compiled spaces, and the plumbing to gophersat
// (github.com/crillab/gophersat v1.4.0, patched: see
// third_party/gophersat/PATCHES.md).
//
// The skeleton is everything that does not depend on how a backend
// decides. Backend checks a board against the backend's limits, states
// them and what a space costs, and flattens the model into Lines. Space
// answers configurator.Space: it checks the cells it is asked about and
// words the errors, starts each query through the backend's own gate
// (Backend.Begin), and, for Analyze, counts the solutions on boards up to
// CountMaxN (capped, and "at least" the cap beyond it), checks the count
// against the cells decided, and fills configurator.Work. Query is the work
// of one query (an Analyze, a Satisfiable or a Solve): it holds one of the
// space's solvers, kept between queries in a bounded pool, takes a solver turn for each call into
// gophersat (Backend.Turn), verifies every solution gophersat returns
// against the model, and lists solutions with blocking clauses
// (Query.Enumerate).
//
// A backend brings an Engine: its encoding for gophersat and its way of
// deciding the cells, finding one solution and listing them all.
//
// Feature models (package feature) have a skeleton of their own beside
// it: Backend.CompileModel makes a FeatureSpace of a model's CNF (its
// units assumed, never clauses), which answers configurator.FeatureSpace
// and configurator.FeatureCorer (minimal sets of the model's parts that
// refute decisions, by QuickXplain over a selector per part), counts the
// configurations of small models, verifies every configuration gophersat
// returns with feature.Model.Valid, and asks a FeatureEngine, the
// backend's own, for the valid domains. A FeatureQuery is a query on it,
// with the same gates, turns and pool as a board's (Calls).
//
// Like the skeleton, the package states only what the model says: no
// propagation, no search, no symmetry and no implied fact, which stay
// package sat's own. Cell variable v is gophersat variable v+1; a feature
// model's CNF variable v is gophersat's v.
package satbase

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// ErrSolver marks a solver answer that failed verification, or a panic in
// gophersat: a bug in the solver or in the encoding, reported rather than
// believed.
var ErrSolver = errors.New("the SAT solver returned a non-solution")

// assumptions returns the literals that assume a queen on every variable
// of units and of with, and none on any of without.
func assumptions(units, with, without []int32) []solver.Lit {
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

// queens returns the variables, of the nv cells, that a solver's model puts
// a queen on, never nil: nil means "no solution" to the callers, and a
// model may have no queen at all.
func queens(model []bool, nv int) []int32 {
	qs := []int32{}
	for v := range nv {
		if model[v] {
			qs = append(qs, int32(v))
		}
	}
	return qs
}

// blocking returns the clause, over nv cells, that excludes the solution
// queens and no other: some queen of it is missing, or some other cell
// holds a queen. When the ExactlyOne lines partition the board every
// solution has as many queens, so the first half suffices: "not all of
// these queens".
func blocking(queens []int32, nv int, partition bool) *solver.Clause {
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

// tally sums gophersat's work over the solver calls of one query, for
// configurator.Work. The zero value is ready to use.
type tally struct {
	// calls counts the calls; conflicts, decisions and learned are the
	// sums of the differences of the solvers' Stats over them.
	calls, conflicts, decisions, learned int64
}

// under asks s for a solution under the assumptions lits (which replace
// the previous ones), as one call: see solve. The search tries the
// literals of prefer first (solver.Prefer).
func (t *tally) under(ctx context.Context, s *solver.Solver, lits, prefer []solver.Lit) (bool, error) {
	if s.Assume(lits) == solver.Unsat {
		t.calls++
		return false, nil
	}
	s.Prefer(prefer)
	return t.solve(ctx, s)
}

// solve asks s for a solution under its present assumptions and clauses,
// and counts the call. It reports whether s found one; a call that ctx
// ends is interrupted and returns ctx's error (s is then ready for its
// next call, its assumptions to be set again).
func (t *tally) solve(ctx context.Context, s *solver.Solver) (bool, error) {
	before := s.Stats
	status := s.SolveContext(ctx)
	t.calls++
	t.conflicts += int64(s.Stats.NbConflicts - before.NbConflicts)
	t.decisions += int64(s.Stats.NbDecisions - before.NbDecisions)
	t.learned += int64(s.Stats.NbLearned - before.NbLearned)
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

// fill copies t into the solver fields of w.
func (t tally) fill(w *configurator.Work) {
	w.SolverCalls, w.Conflicts, w.Decisions, w.Learned = t.calls, t.conflicts, t.decisions, t.learned
}

// solvers returns the solvers of a space whose Cost is cost, built by
// build. The solvers a space keeps are the memory its cache entry does not
// see: at most one per solver turn, each with learned clauses of at most a
// quarter of the space's cost.
func (b *Backend) solvers(cost int64, build func() *solver.Solver) *solvers {
	return &solvers{b: b, pool: pool{max: solverlock.Turns(), learnedCap: cost / 4}, build: build}
}

// pool keeps the idle solvers of one compiled space between its queries,
// so that each query starts from one that has learned from the
// previous, while queries running at once each hold their own. The memory
// it keeps is bounded: at most max solvers, each dropped when its learned
// clauses hold more than learnedCap bytes. It is safe for concurrent use.
type pool struct {
	max        int
	learnedCap int64

	mu   sync.Mutex
	idle []*solver.Solver
}

// take returns an idle solver, or build's new one. The caller alone uses
// it, within a solver turn, until it gives it back with keep.
func (p *pool) take(build func() *solver.Solver) *solver.Solver {
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

// keep gives s back for the next query, or drops it when it has learned
// too much or max are kept already. A nil s (a solver thrown away after a
// panic) is ignored.
func (p *pool) keep(s *solver.Solver) {
	if s == nil || s.LearnedBytes() > p.learnedCap {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < p.max {
		p.idle = append(p.idle, s)
	}
}
