package sat

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// Tuning of the work per question, measured on the project's machine.
const (
	// searchMinN is the smallest board on which witnesses are first sought
	// by local search. Below it a solver call costs about 100 µs, less than
	// a search that may fail on a blocked cell.
	searchMinN = 12
	// searchTries and searchSteps bound the local search for one witness:
	// searchTries restarts of searchSteps(n) moves each. When they fail,
	// the solver decides.
	searchTries = 3
	// countMaxN is the largest board on which Analyze counts solutions.
	// Each solution counted costs a solver call: on the empty board the 92
	// of N=8 take 3 ms, the 352 of N=9 16 ms, the 724 of N=10 80 ms (the
	// BenchmarkCount figures); N=12 would reach the default cap of 10,000
	// after seconds, and beyond it the count says little more than "at
	// least the cap".
	countMaxN = 10
)

func searchSteps(n int) int { return 4*n + 100 }

// space is a compiled model. Its fields are immutable except the solvers
// it keeps for the next queries: at most one per solver turn, each with
// learned clauses of at most a quarter of the space's Cost.
type space struct {
	b       *Backend
	m       *configurator.Model
	bd      *board
	root    *state // the empty placement propagated; nil when no solution
	solvers satbase.Solvers
}

func newSpace(b *Backend, m *configurator.Model) *space {
	bd := newBoard(m)
	sp := &space{b: b, m: m, bd: bd, root: bd.root()}
	sp.solvers.Max, sp.solvers.LearnedCap = solverlock.Turns(), b.Cost(m.N(), 0).Bytes/4
	return sp
}

// take returns an idle solver of the space, or a new one; the query that
// takes it alone uses it, and gives it back when it ends.
func (sp *space) take() *solver.Solver {
	return sp.solvers.Take(func() *solver.Solver { return solver.New(sp.bd.problem()) })
}

// Model is the model the space was compiled from.
func (sp *space) Model() *configurator.Model { return sp.m }

// run runs f as one request, bounded by the backend's timeout. The
// request's propagation and local search run at once, in parallel with
// other requests; each of its gophersat calls waits for a solver turn
// (see query.call).
func (sp *space) run(ctx context.Context, f func(ctx context.Context, q *query) error) error {
	ctx, cancel := context.WithTimeout(ctx, sp.b.timeout)
	defer cancel()
	q := &query{sp: sp, bd: sp.bd, rng: rand.New(rand.NewPCG(uint64(sp.bd.nv), 0x5a7))}
	defer func() { sp.solvers.Keep(q.s) }()
	return f(ctx, q)
}

// vars returns the variables of cells, which must be on the board.
func (sp *space) vars(cells []configurator.Cell) []int32 {
	vs := make([]int32, len(cells))
	for i, c := range cells {
		vs[i] = int32(sp.m.Var(c))
	}
	return vs
}

// place returns the root state with queens on with and none on without,
// propagated, or nil when propagation alone shows that no solution has them.
func (sp *space) place(with, without []int32) *state {
	if sp.root == nil {
		return nil
	}
	st := sp.root.clone()
	for _, v := range with {
		if !sp.bd.set(st, v, queen) {
			return nil
		}
	}
	for _, v := range without {
		if !sp.bd.set(st, v, noQueen) {
			return nil
		}
	}
	return st
}

// Analyze classifies every cell under the placement queens.
//
// A cell is possible when a verified solution holding the queens has a
// queen on it, and blocked when propagation or the solver shows that none
// has. Witnesses come from the local search (N >= 12), then from the
// solver, and every witness also marks its images under the board
// symmetries that the model has and that leave the placement in place. A
// possible cell is forced when it is the only possible cell of one of its
// exact lines (ExactlyOne, or implied so, see board.exact). This is exact
// for models made of ExactlyOne and AtMostOne lines: a cell on no exact
// line is never forced (drop its queen from a solution and the rest is
// still one), and a solution holding another possible cell of its exact
// line avoids it.
//
// Counting policy: on boards up to 10×10, once the cells are decided, the
// solutions are enumerated with blocking clauses, up to the backend's
// CountCap, and checked against the cells. Above 10×10 the count is left
// nil: it would cost one solver call per solution and, beyond a few
// thousand, say no more than "at least the cap". Work times the two apart
// (Domains, Count), sums the solver's work and tells how each cell was
// decided.
func (sp *space) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	start := time.Now()
	if err := sp.m.Check(queens); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	var a *configurator.Analysis
	err := sp.run(ctx, func(ctx context.Context, q *query) error {
		var err error
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
// with and none on any cell of without. Every cell is an assumption of the
// one reused solver, after propagation and, on large boards, the local
// search have had their chance to answer.
func (sp *space) Satisfiable(ctx context.Context, with, without []configurator.Cell) (bool, error) {
	if err := sp.m.Check(with); err != nil {
		return false, fmt.Errorf("satisfiable: %w", err)
	}
	for _, c := range without {
		if !sp.m.Contains(c) {
			n := sp.m.N()
			return false, fmt.Errorf("satisfiable: cell %v on a %d×%d board: %w", c, n, n, configurator.ErrOffBoard)
		}
	}
	var ok bool
	err := sp.run(ctx, func(ctx context.Context, q *query) error {
		wv, wov := sp.vars(with), sp.vars(without)
		st := sp.place(wv, wov)
		if st == nil {
			return nil
		}
		w, err := q.witness(ctx, st, wv, wov)
		ok = w != nil
		return err
	})
	if err != nil {
		return false, fmt.Errorf("satisfiable: %w", err)
	}
	return ok, nil
}

// Solve returns the queens of one solution holding queens, row-major. It is
// not uniformly random: the space is no configurator.Sampler.
func (sp *space) Solve(ctx context.Context, queens []configurator.Cell) ([]configurator.Cell, error) {
	if err := sp.m.Check(queens); err != nil {
		return nil, fmt.Errorf("solve: %w", err)
	}
	var sol []configurator.Cell
	err := sp.run(ctx, func(ctx context.Context, q *query) error {
		qv := sp.vars(queens)
		st := sp.place(qv, nil)
		if st == nil {
			return configurator.ErrNoSolution
		}
		w, err := q.witness(ctx, st, qv, nil)
		if err != nil {
			return err
		}
		if w == nil {
			return configurator.ErrNoSolution
		}
		slices.Sort(w)
		for _, v := range w {
			sol = append(sol, sp.m.Cell(int(v)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("solve %s: %w", configurator.FormatCells(queens), err)
	}
	return sol, nil
}

// query is the work of one request. It is not safe for concurrent use.
type query struct {
	sp      *space
	bd      *board
	rng     *rand.Rand
	scratch []int32        // for board.verify, one entry per line
	s       *solver.Solver // the space's solver the query holds, from its first call
	// bySearch reports that the last witness came from the local search,
	// not from the solver.
	bySearch bool
	// calls sums the work of the query's solver calls.
	calls satbase.Calls
	// Statistics, for tests and measurements.
	searches, found, solves int
	slowest                 time.Duration // the longest solver call
}

// witness returns a verified solution that extends st, which holds with and
// excludes without (both also passed to the solver), or nil when there is
// none. A solution without queens is an empty slice, not nil.
func (q *query) witness(ctx context.Context, st *state, with, without []int32) ([]int32, error) {
	bd := q.bd
	if q.scratch == nil {
		q.scratch = make([]int32, len(bd.kind))
	}
	if bd.search != nil && bd.n >= searchMinN && !q.sp.b.solverOnly {
		for range searchTries {
			q.searches++
			if w := bd.localSearch(st, q.rng, searchSteps(bd.n)); w != nil && q.holds(w, with, without) {
				q.found++
				q.bySearch = true
				return w, nil
			}
		}
	}
	q.bySearch = false
	var w []int32
	err := q.callSliced(ctx, func(ctx context.Context) (err error) {
		if q.s == nil {
			q.s = q.sp.take()
		}
		w, err = bd.solveUnder(ctx, q.s, &q.calls, with, without)
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

// call waits in the backend's call line for a solver turn and runs f,
// which calls gophersat under ctx, holding it: a call that ctx ends is
// interrupted (see satbase.Calls), and f returns ctx's error. A panic in
// gophersat becomes an error, and the query's solver, whose state it may
// have broken, is thrown away.
func (q *query) call(ctx context.Context, f func() error) error {
	release, err := q.sp.b.solverTurn(ctx)
	if err != nil {
		return err
	}
	defer release()
	q.solves++
	start := time.Now()
	var ferr error
	if err := satbase.Run(func() { ferr = f() }); err != nil {
		q.s = nil
		return err
	}
	q.slowest = max(q.slowest, time.Since(start))
	return ferr
}

// callSliced is call for f, one question to the solver that f may ask
// again from the start after a stop (its assumptions set again, the
// solver's learned clauses kept): it runs f under a context that ends when
// another client wants the turn (solverlock.AcquireSliced), and then gives
// the turn back, waits for its next one behind the calls asking afresh,
// and runs f again, until f ends by itself or ctx does. So a question that takes seconds shares a core with
// every other client's in slices, instead of holding it to its end.
func (q *query) callSliced(ctx context.Context, f func(ctx context.Context) error) error {
	q.solves++
	for resumed := false; ; resumed = true {
		callCtx, release, err := q.sp.b.solverTurnSliced(ctx, resumed)
		if err != nil {
			return err
		}
		start := time.Now()
		var ferr error
		err = satbase.Run(func() { ferr = f(callCtx) })
		yielded := ctx.Err() == nil && errors.Is(context.Cause(callCtx), solverlock.ErrYield)
		release()
		if err != nil {
			q.s = nil
			return err
		}
		q.slowest = max(q.slowest, time.Since(start))
		if ferr == nil || !yielded {
			return ferr
		}
		q.sp.b.lend(ctx)
	}
}

// holds verifies that w is a solution with a queen on every variable of
// with and none on any of without.
func (q *query) holds(w, with, without []int32) bool {
	if !q.bd.verify(w, q.scratch) {
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

func (q *query) format(w []int32) string {
	cells := make([]configurator.Cell, len(w))
	for i, v := range w {
		cells[i] = q.sp.m.Cell(int(v))
	}
	return configurator.FormatCells(cells)
}

// Means of deciding a cell, for configurator.Work.
const (
	undecided = iota
	byPropagation
	byWitness // a verified solution of the local search
	bySolver  // a solution or a refutation of the solver
)

// analyze does the work of Analyze: first the valid domains, then, on
// boards up to countMaxN, the count, timed apart (see configurator.Work).
func (q *query) analyze(ctx context.Context, queens []int32) (*configurator.Analysis, error) {
	start := time.Now()
	bd := q.bd
	st := q.sp.place(queens, nil)
	if st == nil {
		return nil, configurator.ErrNoSolution
	}
	possible := make([]bool, bd.nv)
	blocked := make([]bool, bd.nv)
	by := make([]uint8, bd.nv)
	for v, x := range st.val {
		blocked[v] = x == noQueen
		if x != open {
			by[v] = byPropagation
		}
	}
	syms := bd.fixing(queens)
	if q.sp.b.solverOnly {
		syms = nil
	}
	decide := func(v int32, means uint8) {
		if by[v] == undecided {
			by[v] = means
		}
	}
	mark := func(w []int32, means uint8) {
		for _, v := range w {
			possible[v] = true
			decide(v, means)
			for _, g := range syms {
				possible[g[v]] = true
				decide(g[v], means)
			}
		}
	}
	witnessed := func() uint8 {
		if q.bySearch {
			return byWitness
		}
		return bySolver
	}
	w, err := q.witness(ctx, st, queens, nil)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, configurator.ErrNoSolution
	}
	mark(w, witnessed())
	with := append(slices.Clone(queens), 0)
	for v := range int32(bd.nv) {
		if possible[v] || blocked[v] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		means := uint8(byPropagation) // when placing a queen on v fails at once
		var w []int32
		if sv := st.clone(); bd.set(sv, v, queen) {
			with[len(with)-1] = v
			var err error
			if w, err = q.witness(ctx, sv, with, nil); err != nil {
				return nil, err
			}
			means = witnessed()
		}
		if w != nil {
			mark(w, means)
			continue
		}
		blocked[v] = true
		decide(v, means)
		for _, g := range syms {
			blocked[g[v]] = true
			decide(g[v], means)
		}
	}
	a := &configurator.Analysis{N: bd.n, Cells: make([]configurator.State, bd.nv)}
	for _, v := range queens {
		a.Cells[v] = configurator.Queen
	}
	for v := range int32(bd.nv) {
		switch {
		case a.Cells[v] == configurator.Queen:
			continue
		case blocked[v]:
			a.Cells[v] = configurator.Blocked
		case bd.forced(v, blocked):
			a.Cells[v] = configurator.Forced
		default:
			a.Cells[v] = configurator.Free
		}
		switch by[v] {
		case byPropagation:
			a.Work.ByPropagation++
		case byWitness:
			a.Work.ByWitness++
		default:
			a.Work.BySolver++
		}
	}
	a.Work.Domains = time.Since(start)
	if bd.n <= countMaxN {
		start := time.Now()
		sols, complete, err := q.enumerate(ctx, st, queens, syms, q.sp.b.countCap)
		if err != nil {
			return nil, err
		}
		if err := satbase.Agree(sols, complete, possible, q.format); err != nil {
			return nil, err
		}
		a.Solutions, a.AtLeast = big.NewInt(int64(len(sols))), !complete
		a.Work.Count = time.Since(start)
	}
	q.calls.Fill(&a.Work)
	return a, nil
}

// forced reports whether v is the only cell of one of its exact lines that
// is not blocked.
func (b *board) forced(v int32, blocked []bool) bool {
lines:
	for _, l := range b.lines(v) {
		if !b.exact[l] {
			continue
		}
		for _, u := range b.line(l) {
			if u != v && !blocked[u] {
				continue lines
			}
		}
		return true
	}
	return false
}

// fixing returns the board's symmetries that map the placement onto
// itself: with them, the image of a solution holding the placement holds it
// too.
func (b *board) fixing(queens []int32) [][]int32 {
	var syms [][]int32
	for _, g := range b.syms {
		ok := true
		for _, v := range queens {
			if !slices.Contains(queens, g[v]) {
				ok = false
				break
			}
		}
		if ok {
			syms = append(syms, g)
		}
	}
	return syms
}

// enumerate lists the solutions extending st (which holds queens), up to
// limit of them; complete reports that none is missing. gophersat's own
// CountModels and Enumerate return duplicates, so each solution found is
// excluded by a blocking clause before the next Solve.
//
// A solver slows down as blocking clauses pile up (at N=10, 1.5 ms a
// solution with 700 of them), so the solutions are split into parts by the
// cell that holds the queen of one open ExactlyOne line, each part
// enumerated by a fresh solver: at N=10 this is five times faster. The
// solvers are thrown away: AppendClause cuts a blocking clause down under
// the assumptions, so it holds only for that part. A symmetry in syms (they
// fix the placement) that maps the cell of one part to the cell of another
// maps the solutions of the first onto those of the second, so that part
// is not enumerated but imaged: on the empty board this halves the work.
func (q *query) enumerate(ctx context.Context, st *state, queens []int32, syms [][]int32, limit int) (sols [][]int32, complete bool, err error) {
	bd := q.bd
	if q.scratch == nil {
		q.scratch = make([]int32, len(bd.kind))
	}
	split := int32(-1) // the open exact line with the most open cells
	for l, x := range bd.exact {
		if x && st.queens[l] == 0 && (split < 0 || st.open[l] > st.open[split]) {
			split = int32(l)
		}
	}
	cells := []int32{-1} // the parts: -1 for a single one
	inSplit := make([]bool, bd.nv)
	if split >= 0 {
		cells = cells[:0]
		for _, v := range bd.line(split) {
			if st.val[v] == open {
				cells = append(cells, v)
				inSplit[v] = true
			}
		}
	}
	done := make([]bool, bd.nv)
	part := slices.Clone(queens)
	// add appends w, reporting false when it would be one over the limit.
	add := func(w []int32) bool {
		if len(sols) == limit {
			return false
		}
		sols = append(sols, w)
		return true
	}
	for _, v := range cells {
		part = part[:len(queens)]
		if v >= 0 {
			if done[v] {
				continue
			}
			done[v] = true
			part = append(part, v)
		}
		first := len(sols)
		var s *solver.Solver
		var w []int32 // the last solution found, to block before the next
		for found := true; ; {
			err := q.call(ctx, func() (err error) {
				switch {
				case s == nil:
					s = solver.New(bd.problem())
					found, err = q.calls.Under(ctx, s, satbase.Assumptions(bd.units, part, nil))
				default:
					s.AppendClause(satbase.Blocking(w, bd.nv, bd.partition))
					found, err = q.calls.Solve(ctx, s)
				}
				if found {
					w = satbase.Queens(s.Model(), bd.nv)
				}
				return err
			})
			if err != nil {
				return nil, false, err
			}
			if !found {
				break
			}
			if !q.holds(w, part, nil) {
				return nil, false, fmt.Errorf("%w: %s", satbase.ErrSolver, q.format(w))
			}
			if !add(w) {
				return sols, false, nil
			}
		}
		if v < 0 {
			break
		}
		last := len(sols)
		for _, g := range syms {
			u := g[v]
			if !inSplit[u] || done[u] {
				continue
			}
			done[u] = true
			for _, w := range sols[first:last] {
				img := make([]int32, len(w))
				for i, x := range w {
					img[i] = g[x]
				}
				if !q.holds(img, append(part[:len(queens):len(queens)], u), nil) {
					return nil, false, fmt.Errorf("symmetry maps %s to the non-solution %s", q.format(w), q.format(img))
				}
				if !add(img) {
					return sols, false, nil
				}
			}
		}
	}
	return sols, true, nil
}
