package plain

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// space is a compiled model: its lines, flattened, and one solver reused
// under assumptions for every question. Everything but the solver is
// immutable after newSpace.
type space struct {
	b     *Backend
	m     *configurator.Model
	n, nv int
	// Line l holds the variables lineVar[lineStart[l]:lineStart[l+1]],
	// without duplicates; exact[l] marks an ExactlyOne line. Lines that
	// constrain nothing (an AtMostOne of fewer than two cells) are left out.
	exact     []bool
	lineStart []int32
	lineVar   []int32
	// units are the variables of one-cell ExactlyOne lines: assumed by
	// every call, never clauses of the problem, which gophersat's Assume
	// would lose.
	units []int32
	// dead is set when an ExactlyOne line has no cell: no solution at all.
	dead bool
	// cnf is the problem every solver of the space starts from.
	cnf [][]int
	// partition is set when every variable is on exactly one ExactlyOne
	// line (the ranks of N-Queens): then every solution has as many
	// queens, and no solution holds another's queens and more, so a
	// blocking clause names the queens alone. The short clause keeps the
	// enumeration fast (the empty 10×10 board: 0.7 s instead of 1.4 s,
	// before the split of enumerate).
	partition bool

	// solvers keeps the space's idle solvers for the next queries (each
	// call assumes afresh what it asks): at most one per solver turn, each
	// with learned clauses of at most a quarter of the space's Cost.
	solvers satbase.Solvers
}

// query is the work of one query on a space: the solver it holds, from
// its first call until it ends, and the work of its calls. It is not safe
// for concurrent use.
type query struct {
	*space
	s     *solver.Solver
	calls satbase.Calls
}

// do admits one query (see Backend.enter), runs f with it, and gives the
// query's solver back to the space.
func (sp *space) do(f func(q *query) error) error {
	leave, err := sp.b.enter()
	if err != nil {
		return err
	}
	defer leave()
	q := &query{space: sp}
	defer func() { sp.solvers.Keep(q.s) }()
	return f(q)
}

func newSpace(b *Backend, m *configurator.Model) *space {
	ls := satbase.Flatten(m)
	sp := &space{b: b, m: m, n: m.N(), nv: m.Vars(), lineStart: ls.Start, lineVar: ls.Var, units: ls.Units, dead: ls.Dead}
	sp.exact = make([]bool, len(ls.Kind))
	for l, k := range ls.Kind {
		sp.exact[l] = k == configurator.ExactlyOne
	}
	exactLines := make([]int, sp.nv) // per variable
	for l, exact := range sp.exact {
		for _, v := range sp.line(l) {
			if exact {
				exactLines[v]++
			}
		}
	}
	sp.partition = !slices.ContainsFunc(exactLines, func(k int) bool { return k != 1 })
	sp.writeCNF()
	sp.solvers.Max, sp.solvers.LearnedCap = solverlock.Turns(), b.Cost(sp.n, 0).Bytes/4
	return sp
}

// line returns the variables of line l.
func (sp *space) line(l int) []int32 { return sp.lineVar[sp.lineStart[l]:sp.lineStart[l+1]] }

// writeCNF writes the pairwise CNF of the lines for gophersat: cell v is
// variable v+1. It has no unit clause (see units). The clauses are views
// of one flat slice.
func (sp *space) writeCNF() {
	var lits []int
	ends := []int{0}
	for l, exact := range sp.exact {
		vars := sp.line(l)
		if len(vars) < 2 {
			continue // a unit, assumed instead
		}
		if exact {
			for _, v := range vars {
				lits = append(lits, int(v)+1)
			}
			ends = append(ends, len(lits))
		}
		for i, u := range vars {
			for _, v := range vars[i+1:] {
				lits = append(lits, -int(u)-1, -int(v)-1)
				ends = append(ends, len(lits))
			}
		}
	}
	sp.cnf = make([][]int, len(ends)-1)
	for i := range sp.cnf {
		sp.cnf[i] = lits[ends[i]:ends[i+1]:ends[i+1]]
	}
}

// newSolver returns a solver of the CNF, under no assumption.
func (sp *space) newSolver() *solver.Solver {
	return solver.New(solver.ParseSliceNb(sp.cnf, sp.nv))
}

// call runs f, which calls gophersat under ctx, holding a turn of package
// solverlock. A caller whose ctx has ended gets its error and f does not
// run; a Solve that ctx ends is interrupted, and f returns ctx's error. A
// panic in gophersat becomes an error, and the query's solver, whose state
// it may have broken, is thrown away.
func (q *query) call(ctx context.Context, f func() error) error {
	release, err := solverlock.Acquire(ctx)
	if err != nil {
		return err
	}
	defer release()
	var ferr error
	if err := satbase.Run(func() { ferr = f() }); err != nil {
		q.s = nil
		return err
	}
	return ferr
}

// find asks the space's solver for a solution with a queen on every
// variable of with and none on any of without, and returns its queens,
// verified, or nil when there is none.
func (q *query) find(ctx context.Context, with, without []int32) ([]int32, error) {
	if q.dead {
		return nil, ctx.Err()
	}
	var w []int32
	err := q.call(ctx, func() error {
		if q.s == nil {
			q.s = q.solvers.Take(q.newSolver)
		}
		found, err := q.calls.Under(ctx, q.s, satbase.Assumptions(q.units, with, without))
		if found {
			w = satbase.Queens(q.s.Model(), q.nv)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if w != nil && !q.holds(w, with, without) {
		return nil, fmt.Errorf("%w: %s", satbase.ErrSolver, q.format(w))
	}
	return w, nil
}

// holds reports whether w (variables, each at most once) is a solution of
// the model with a queen on every variable of with and none on any of
// without: every ExactlyOne line holds exactly one of w, every AtMostOne
// line at most one, and the units are in it.
func (sp *space) holds(w, with, without []int32) bool {
	queen := make([]bool, sp.nv)
	for _, v := range w {
		queen[v] = true
	}
	for l, exact := range sp.exact {
		k := 0
		for _, v := range sp.line(l) {
			if queen[v] {
				k++
			}
		}
		if k > 1 || exact && k == 0 {
			return false
		}
	}
	for _, v := range sp.units {
		if !queen[v] {
			return false
		}
	}
	for _, v := range with {
		if !queen[v] {
			return false
		}
	}
	for _, v := range without {
		if queen[v] {
			return false
		}
	}
	return true
}

func (sp *space) format(w []int32) string { return configurator.FormatCells(sp.cells(w)) }

// cells returns the cells of variables.
func (sp *space) cells(vars []int32) []configurator.Cell {
	cells := make([]configurator.Cell, len(vars))
	for i, v := range vars {
		cells[i] = sp.m.Cell(int(v))
	}
	return cells
}

// vars returns the variables of cells, which must be on the board.
func (sp *space) vars(cells []configurator.Cell) []int32 {
	vs := make([]int32, len(cells))
	for i, c := range cells {
		vs[i] = int32(sp.m.Var(c))
	}
	return vs
}

// Model is the model the space was compiled from.
func (sp *space) Model() *configurator.Model { return sp.m }

// Analyze classifies every cell under the placement queens, each by the
// solver: a cell is possible when a solution holding the queens has a queen
// on it, blocked when none has, and forced when it is possible and no
// solution holding the queens lacks it. A question is asked only of a cell
// that no solution found so far decides.
//
// Counting policy, as in package sat: on boards up to 10×10, once the
// cells are decided, the solutions are enumerated with blocking clauses, up
// to the backend's CountCap, and checked against the cells. Above 10×10
// the count is left nil. Work times the two apart and sums the solver's
// work; every cell is decided by the solver.
func (sp *space) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	start := time.Now()
	var a *configurator.Analysis
	err := sp.query("analyze", queens, func(q *query, queens []int32) (err error) {
		a, err = q.analyze(ctx, queens)
		return err
	})
	if err != nil {
		return nil, err
	}
	a.Elapsed = time.Since(start)
	return a, nil
}

// query checks the placement queens, admits one query (see space.do) and
// runs f on the queens' variables. Its errors tell what the query was (op,
// such as "analyze") and on which queens.
func (sp *space) query(op string, queens []configurator.Cell, f func(q *query, queens []int32) error) error {
	if err := sp.m.Check(queens); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	err := sp.do(func(q *query) error { return f(q, sp.vars(queens)) })
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, configurator.FormatCells(queens), err)
	}
	return nil
}

func (q *query) analyze(ctx context.Context, queens []int32) (*configurator.Analysis, error) {
	start := time.Now()
	// possible[v]: a solution found has a queen on v; absent[v]: a solution
	// found has none.
	possible := make([]bool, q.nv)
	absent := make([]bool, q.nv)
	witness := func(w []int32) {
		queen := make([]bool, q.nv)
		for _, v := range w {
			queen[v] = true
		}
		for v, x := range queen {
			possible[v] = possible[v] || x
			absent[v] = absent[v] || !x
		}
	}
	w, err := q.find(ctx, queens, nil)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, configurator.ErrNoSolution
	}
	witness(w)
	with := append(slices.Clone(queens), 0)
	for v := range int32(q.nv) {
		if possible[v] {
			continue
		}
		with[len(with)-1] = v
		w, err := q.find(ctx, with, nil)
		if err != nil {
			return nil, err
		}
		if w != nil {
			witness(w)
		}
	}
	for v := range int32(q.nv) {
		if !possible[v] || absent[v] || slices.Contains(queens, v) || slices.Contains(q.units, v) {
			continue // a unit is in every solution; assumed away, gophersat would miss the contradiction
		}
		w, err := q.find(ctx, queens, []int32{v})
		if err != nil {
			return nil, err
		}
		if w != nil {
			witness(w)
		}
	}
	a := &configurator.Analysis{N: q.n, Cells: make([]configurator.State, q.nv)}
	for v := range q.nv {
		switch {
		case !possible[v]:
			a.Cells[v] = configurator.Blocked
		case !absent[v]:
			a.Cells[v] = configurator.Forced
		}
	}
	for _, v := range queens {
		a.Cells[v] = configurator.Queen
	}
	a.Work.BySolver = q.nv - len(queens)
	a.Work.Domains = time.Since(start)
	if q.n <= countMaxN {
		start := time.Now()
		sols, all, err := q.enumerate(ctx, queens, q.b.countCap)
		if err != nil {
			return nil, err
		}
		if err := satbase.Agree(sols, all, possible, q.format); err != nil {
			return nil, err
		}
		a.Solutions, a.AtLeast = big.NewInt(int64(len(sols))), !all
		a.Work.Count = time.Since(start)
	}
	q.calls.Fill(&a.Work)
	return a, nil
}

// enumerate lists the solutions with a queen on every variable of queens,
// up to limit of them; all reports that none is missing. gophersat's own
// CountModels returns duplicates, so each solution found is excluded by a
// blocking clause before the next Solve.
//
// A solver slows down as blocking clauses pile up, and a fresh one costs a
// parse of the CNF. Most placements have few solutions: one solver lists
// them. Beyond fewSolutions the list starts again, split into parts (see
// enumerateSplit).
func (q *query) enumerate(ctx context.Context, queens []int32, limit int) (sols [][]int32, all bool, err error) {
	if q.dead {
		return nil, true, ctx.Err()
	}
	sols, all, err = q.enumerateSplit(ctx, queens, 0, min(limit, fewSolutions))
	if err != nil || all || len(sols) == limit {
		return sols, all, err
	}
	return q.enumerateSplit(ctx, queens, splitLines, limit)
}

// enumerateSplit lists the solutions as enumerate does, split into parts
// by the cells that hold the queens of the given number of ExactlyOne
// lines free of queens (the longest), each part enumerated by a fresh
// solver.
func (q *query) enumerateSplit(ctx context.Context, queens []int32, lines, limit int) (sols [][]int32, all bool, err error) {
	// parts lists the assumptions of each part: queens and one cell of
	// each split line.
	parts := [][]int32{queens}
	used := make([]bool, len(q.exact))
	for range lines {
		split := -1
		for l, exact := range q.exact {
			if vars := q.line(l); exact && !used[l] && (split < 0 || len(vars) > len(q.line(split))) && !slices.ContainsFunc(vars, func(v int32) bool { return slices.Contains(queens, v) }) {
				split = l
			}
		}
		if split < 0 {
			break
		}
		used[split] = true
		var next [][]int32
		for _, p := range parts {
			for _, v := range q.line(split) {
				next = append(next, append(slices.Clone(p), v))
			}
		}
		parts = next
	}
	for _, part := range parts {
		got, all, err := q.enumeratePart(ctx, part, limit-len(sols))
		if err != nil {
			return nil, false, err
		}
		sols = append(sols, got...)
		if !all {
			return sols, false, nil
		}
	}
	return sols, true, nil
}

// enumeratePart lists the solutions with a queen on every variable of
// with, up to limit of them, with a fresh solver; all reports that none is
// missing.
func (q *query) enumeratePart(ctx context.Context, with []int32, limit int) (sols [][]int32, all bool, err error) {
	var s *solver.Solver
	var w []int32 // the last solution found, blocked before the next Solve
	for {
		found := false
		err := q.call(ctx, func() (err error) {
			if s == nil {
				s = q.newSolver()
				found, err = q.calls.Under(ctx, s, satbase.Assumptions(q.units, with, nil))
			} else {
				s.AppendClause(satbase.Blocking(w, q.nv, q.partition))
				found, err = q.calls.Solve(ctx, s)
			}
			if found {
				w = satbase.Queens(s.Model(), q.nv)
			}
			return err
		})
		if err != nil {
			return nil, false, err
		}
		if !found {
			return sols, true, nil
		}
		if !q.holds(w, with, nil) {
			return nil, false, fmt.Errorf("%w: %s", satbase.ErrSolver, q.format(w))
		}
		if len(sols) == limit {
			return sols, false, nil
		}
		sols = append(sols, w)
	}
}

// Satisfiable reports whether some solution has a queen on every cell of
// with and none on any cell of without: one call of the solver.
func (sp *space) Satisfiable(ctx context.Context, with, without []configurator.Cell) (bool, error) {
	if err := sp.m.Check(with); err != nil {
		return false, fmt.Errorf("satisfiable: %w", err)
	}
	for _, c := range without {
		if !sp.m.Contains(c) {
			return false, fmt.Errorf("satisfiable: cell %v on a %d×%d board: %w", c, sp.n, sp.n, configurator.ErrOffBoard)
		}
		// No solution has a queen on a cell and none there; gophersat
		// misses such contradictory assumptions on a cell of no clause.
		if slices.Contains(with, c) {
			return false, ctx.Err()
		}
	}
	var w []int32
	err := sp.do(func(q *query) (err error) {
		w, err = q.find(ctx, sp.vars(with), sp.vars(without))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("satisfiable: %w", err)
	}
	return w != nil, nil
}

// Solve returns the queens of one solution holding queens, row-major: the
// first gophersat finds, not a uniformly random one.
func (sp *space) Solve(ctx context.Context, queens []configurator.Cell) ([]configurator.Cell, error) {
	var w []int32
	err := sp.query("solve", queens, func(q *query, queens []int32) (err error) {
		w, err = q.find(ctx, queens, nil)
		if err == nil && w == nil {
			err = configurator.ErrNoSolution
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(w)
	return sp.cells(w), nil
}
