package satbase

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
)

// CountMaxN is the largest board on which Space.Analyze counts solutions.
// Each solution counted costs a solver call, and on larger boards the
// count would soon say no more than "at least the cap".
const CountMaxN = 10

// DefaultCountCap is the default of Backend.CountCap.
const DefaultCountCap = 10000

// Or returns v, or d when v is not positive: an Options field whose zero
// value asks for the default d.
func Or[T int | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// Backend is the skeleton of a SAT backend: its limits, what it charges a
// space, and the two gates a query meets, which each backend sets. A
// Backend is not changed after the backend that holds it is made.
type Backend struct {
	// What names the backend in errors: "the SAT backend".
	What string
	// MaxN is the largest board compiled.
	MaxN int
	// CountCap caps the count of solutions: see Space.Analyze.
	CountCap int
	// ModelCountCap caps the count of a feature model's configurations:
	// see FeatureSpace.Domains.
	ModelCountCap int
	// ModelCountTime bounds the time a feature model's count may take
	// once the domains are decided; 0 means no bound but the cap. Past it
	// the configurations counted so far are reported as "at least".
	ModelCountTime time.Duration
	// PerCube is what a space of an n×n board is charged per n³, in
	// bytes, beyond 4 KiB (see Cost).
	PerCube int64
	// Begin starts one query (an Analyze, a Satisfiable or a Solve) and
	// returns the context it runs under and the function that ends it, or
	// the error that refuses it.
	Begin func(ctx context.Context) (context.Context, func(), error)
	// Turn waits for a solver turn (package solverlock) for one call into
	// gophersat and returns the function that gives it back.
	Turn func(ctx context.Context) (release func(), err error)
}

// Limits states the largest board; the variable order means nothing to a
// SAT solver.
func (b *Backend) Limits() configurator.Limits { return configurator.Limits{MaxN: b.MaxN} }

// Cost estimates the memory of an n×n space, its solvers and what they
// learn included: 4 KiB and PerCube bytes per n³. Compiles are cheap,
// never heavy.
func (b *Backend) Cost(n int) configurator.Cost {
	return configurator.Cost{Bytes: 4096 + b.PerCube*int64(n)*int64(n)*int64(n)}
}

// Compile returns the space of m, whose questions the Engine that
// newEngine makes of m and its lines answers, as wrap makes it of the
// skeleton's Space (nil wrap: the Space itself). A board larger than MaxN
// fails with an error wrapping configurator.ErrTooLarge, and an ended ctx
// with its error. Compile calls no solver: a space builds its first on its
// first question.
func (b *Backend) Compile(ctx context.Context, m *configurator.Model, newEngine func(*configurator.Model, *Lines) Engine, wrap func(*Space) configurator.Board) (configurator.Board, error) {
	if n := m.N(); n > b.MaxN {
		return nil, fmt.Errorf("%d-queens: %s takes boards up to %d: %w", n, b.What, b.MaxN, configurator.ErrTooLarge)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sp := &Space{m: m, lines: Flatten(m)}
	sp.Squares = configurator.NewSquares(sp)
	sp.engine = newEngine(m, &sp.lines)
	sp.solvers = b.solvers(b.Cost(m.N()).Bytes, func() *solver.Solver { return solver.New(sp.engine.Problem()) })
	if wrap == nil {
		return sp, nil
	}
	return wrap(sp), nil
}

// Engine is a backend's own part of a compiled space: its encoding and its
// way of deciding. The Space calls it within one query, with its Query,
// on placements it has checked, of a model that is not Dead; an Engine
// calls gophersat only through the Query.
type Engine interface {
	// Problem returns the space's problem for gophersat, a new one for
	// each solver built from it. It has no unit clause (see Lines.Units).
	Problem() *solver.Problem
	// Decide classifies every cell under the placement queens (variables)
	// and tells in Work how each was decided, or fails with an error
	// wrapping configurator.ErrNoSolution when no solution holds queens.
	// The Space adds the count and the rest of the Work.
	Decide(ctx context.Context, q *Query, queens []int32) (*configurator.Analysis, error)
	// Find returns a solution, verified, with a queen on every variable of
	// with and none on any of without, or nil when there is none.
	Find(ctx context.Context, q *Query, with, without []int32) ([]int32, error)
	// Enumerate lists the solutions that hold queens, a placement that
	// Decide has classified, up to limit of them; complete reports that
	// none is missing.
	Enumerate(ctx context.Context, q *Query, queens []int32, limit int) (sols [][]int32, complete bool, err error)
}

// Space is a compiled model: its lines, the pool of its solvers, and the
// Engine that answers its questions. It implements configurator.Board,
// answering the decisions on its squares through them (Squares), and is
// safe for concurrent use.
type Space struct {
	configurator.Squares
	m       *configurator.Model
	lines   Lines
	engine  Engine
	solvers *solvers
}

// Model is the model the space was compiled from.
func (sp *Space) Model() *configurator.Model { return sp.m }

// Analyze classifies every cell under the placement queens, as the
// Engine decides them.
//
// Counting policy: on boards up to CountMaxN, once the cells are decided,
// the solutions are listed (Engine.Enumerate), up to the backend's
// CountCap, and checked against the cells. Above it the count is left nil.
// Work times the two apart (Domains, Count) and sums the solver's work.
func (sp *Space) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	start := time.Now()
	if err := sp.m.Check(queens); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	var a *configurator.Analysis
	err := sp.do(ctx, func(ctx context.Context, q *Query) (err error) {
		a, err = q.analyze(ctx, sp.vars(queens))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("analyze %s: %w", configurator.FormatCells(queens), err)
	}
	a.Elapsed = time.Since(start)
	return a, nil
}

// Satisfiable reports whether some solution has a queen on every cell of
// with and none on any cell of without.
func (sp *Space) Satisfiable(ctx context.Context, with, without []configurator.Cell) (bool, error) {
	w, err := sp.Find(ctx, with, without)
	if err != nil {
		return false, fmt.Errorf("satisfiable: %w", err)
	}
	return w != nil, nil
}

// Find returns the queens of a solution that has a queen on every cell of
// with and none on any cell of without, row-major: the witness of
// Satisfiable, nil when there is none (configurator.Finder).
func (sp *Space) Find(ctx context.Context, with, without []configurator.Cell) ([]configurator.Cell, error) {
	if err := sp.m.Check(with); err != nil {
		return nil, fmt.Errorf("find: %w", err)
	}
	for _, c := range without {
		if !sp.m.Contains(c) {
			n := sp.m.N()
			return nil, fmt.Errorf("find: cell %v on a %d×%d board: %w", c, n, n, configurator.ErrOffBoard)
		}
	}
	var w []int32
	err := sp.do(ctx, func(ctx context.Context, q *Query) (err error) {
		w, err = q.find(ctx, sp.vars(with), sp.vars(without))
		return err
	})
	if err != nil || w == nil {
		return nil, err
	}
	slices.Sort(w)
	return sp.cells(w), nil
}

// Solve returns the queens of one solution holding queens, row-major: the
// first the Engine finds, not a uniformly random one (the space is no
// configurator.FeatureSampler).
func (sp *Space) Solve(ctx context.Context, queens []configurator.Cell) ([]configurator.Cell, error) {
	if err := sp.m.Check(queens); err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	var w []int32
	err := sp.do(ctx, func(ctx context.Context, q *Query) (err error) {
		w, err = q.find(ctx, sp.vars(queens), nil)
		if err == nil && w == nil {
			err = configurator.ErrNoSolution
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("solve %s: %w", configurator.FormatCells(queens), err)
	}
	slices.Sort(w)
	return sp.cells(w), nil
}

// do runs f as one query (solvers.query) with a Query of its own.
func (sp *Space) do(ctx context.Context, f func(ctx context.Context, q *Query) error) error {
	return sp.solvers.query(ctx, func(ctx context.Context, c *Calls) error {
		return f(ctx, &Query{Calls: c, sp: sp})
	})
}

// vars returns the variables of cells, which must be on the board.
func (sp *Space) vars(cells []configurator.Cell) []int32 {
	vs := make([]int32, len(cells))
	for i, c := range cells {
		vs[i] = int32(sp.m.Var(c))
	}
	return vs
}

// cells returns the cells of variables.
func (sp *Space) cells(vars []int32) []configurator.Cell {
	cells := make([]configurator.Cell, len(vars))
	for i, v := range vars {
		cells[i] = sp.m.Cell(int(v))
	}
	return cells
}

// Query is the work of one query on a board's space: its solver calls
// (Calls) and the space it asks about. It is not safe for concurrent use.
type Query struct {
	*Calls
	sp      *Space
	scratch []int32 // one entry per line, for Lines.isSolution
}

// analyze does the work of Space.Analyze: the Engine's decision, then, on
// boards up to CountMaxN, the count, timed apart (see configurator.Work).
func (q *Query) analyze(ctx context.Context, queens []int32) (*configurator.Analysis, error) {
	sp := q.sp
	if sp.lines.Dead {
		return nil, configurator.ErrNoSolution
	}
	start := time.Now()
	a, err := sp.engine.Decide(ctx, q, queens)
	if err != nil {
		return nil, err
	}
	a.Work.Domains = time.Since(start)
	if sp.m.N() <= CountMaxN {
		start := time.Now()
		sols, complete, err := sp.engine.Enumerate(ctx, q, queens, sp.solvers.b.CountCap)
		if err != nil {
			return nil, err
		}
		if err := q.agree(sols, complete, a.Cells); err != nil {
			return nil, err
		}
		a.Solutions, a.AtLeast = big.NewInt(int64(len(sols))), !complete
		a.Work.Count = time.Since(start)
	}
	q.work.fill(&a.Work)
	return a, nil
}

// find asks the Engine for a solution with a queen on every variable of
// with and none on any of without.
func (q *Query) find(ctx context.Context, with, without []int32) ([]int32, error) {
	if q.sp.lines.Dead {
		return nil, nil
	}
	return q.sp.engine.Find(ctx, q, with, without)
}

// Ask asks the query's solver, within a solver turn the caller holds, for
// a solution with a queen on every variable of with and none on any of
// without, and returns its queens, verified, or nil when there is none (a
// solution without queens is an empty slice, not nil). The assumptions
// replace those of the previous question, so one solver serves every
// question and keeps what it learnt: its learnt clauses keep the
// assumptions they depend on, so they hold whatever is assumed next. A
// question that ctx ends is interrupted and returns ctx's error.
func (q *Query) Ask(ctx context.Context, with, without []int32) ([]int32, error) {
	s := q.solver()
	found, err := q.work.under(ctx, s, assumptions(q.sp.lines.Units, with, without), nil)
	if !found || err != nil {
		return nil, err
	}
	w := queens(s.Model(), q.sp.m.Vars())
	if !q.Holds(w, with, without) {
		return nil, fmt.Errorf("%w: %s", ErrSolver, q.Format(w))
	}
	return w, nil
}

// Enumerate appends to sols the solutions with a queen on every variable
// of with, found by a solver of its own, until sols holds limit of them;
// complete reports that none is missing. gophersat's own CountModels and Enumerate return duplicates,
// so each solution found is excluded by a blocking clause before the next
// Solve. The solver is thrown away after: AppendClause cuts a blocking
// clause down under the assumptions, so it holds only for with. Each
// solver call takes a turn (see Call), and each solution is verified.
func (q *Query) Enumerate(ctx context.Context, with []int32, sols [][]int32, limit int) (_ [][]int32, complete bool, _ error) {
	nv := q.sp.m.Vars()
	var s *solver.Solver
	var w []int32 // the last solution found, blocked before the next Solve
	for {
		found := false
		err := q.Call(ctx, func() (err error) {
			if s == nil {
				s = q.sv.build()
				found, err = q.work.under(ctx, s, assumptions(q.sp.lines.Units, with, nil), nil)
			} else {
				s.AppendClause(blocking(w, nv, q.sp.lines.Partition))
				found, err = q.work.solve(ctx, s)
			}
			if found {
				w = queens(s.Model(), nv)
			}
			return err
		})
		if err != nil {
			return nil, false, err
		}
		if !found {
			return sols, true, nil
		}
		if !q.Holds(w, with, nil) {
			return nil, false, fmt.Errorf("%w: %s", ErrSolver, q.Format(w))
		}
		if len(sols) == limit {
			return sols, false, nil
		}
		sols = append(sols, w)
	}
}

// Holds reports whether w (variables, each at most once) is a solution of
// the model with a queen on every variable of with and none on any of
// without.
func (q *Query) Holds(w, with, without []int32) bool {
	if q.scratch == nil {
		q.scratch = make([]int32, len(q.sp.lines.Kind))
	}
	if !q.sp.lines.isSolution(w, q.scratch) {
		return false
	}
	for _, v := range with {
		if !slices.Contains(w, v) {
			return false
		}
	}
	for _, v := range without {
		if slices.Contains(w, v) {
			return false
		}
	}
	return true
}

// Format names the cells of variables, for errors.
func (q *Query) Format(vars []int32) string { return configurator.FormatCells(q.sp.cells(vars)) }

// agree checks a query's count against the cells it decided: every
// solution counted has its queens on cells not blocked and, when the
// count is complete, every cell not blocked holds a queen of some
// solution; a satisfiable placement has at least one. Disagreement is a
// bug, reported as an error wrapping ErrSolver.
func (q *Query) agree(sols [][]int32, complete bool, cells []configurator.State) error {
	seen := make([]bool, len(cells))
	for _, w := range sols {
		for _, v := range w {
			if cells[v] == configurator.Blocked {
				return fmt.Errorf("%w: the solution %s counted holds a blocked cell", ErrSolver, q.Format(w))
			}
			seen[v] = true
		}
	}
	if complete {
		for v, st := range cells {
			if seen[v] != (st != configurator.Blocked) {
				return fmt.Errorf("%w: the solutions counted and the cells decided disagree", ErrSolver)
			}
		}
	}
	if len(sols) == 0 {
		return fmt.Errorf("%w: no solution counted, one found", ErrSolver)
	}
	return nil
}
