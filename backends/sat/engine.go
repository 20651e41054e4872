package sat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
)

// Bounds of the local search for one witness.
const (
	// searchMinN is the smallest board on which witnesses are first sought
	// by local search. On smaller boards a solver call costs less than a
	// search that may fail on a blocked cell.
	searchMinN = 12
	// searchTries is how many times the search starts afresh, each for
	// searchSteps(n) moves, before the solver decides.
	searchTries = 3
)

// searchSteps bounds the moves of one local search on an n×n board.
func searchSteps(n int) int { return 4*n + 100 }

// engine answers the questions of a compiled space for the skeleton
// (satbase.Engine): propagation first, then witnesses from the local search
// and the board's symmetries, then the solver. It is immutable after
// newEngine.
type engine struct {
	b    *Backend
	bd   *board
	root *state // the empty placement propagated; nil when no solution
}

// newEngine returns the engine of m's space, of the lines the skeleton
// flattened.
func (b *Backend) newEngine(m *configurator.Model, ls *satbase.Lines) satbase.Engine {
	bd := newBoard(m.N(), *ls)
	return &engine{b: b, bd: bd, root: bd.root()}
}

// Problem encodes the board with cardinality constraints (board.problem).
func (e *engine) Problem() *solver.Problem { return e.bd.problem() }

// newRand returns the random source of one question's local search: the
// same for every question, so that answers and their Work repeat.
func (e *engine) newRand() *rand.Rand { return rand.New(rand.NewPCG(uint64(e.bd.nv), 0x5a7)) }

// place returns the root state with queens on with and none on without,
// propagated, or nil when propagation alone shows that no solution has them.
func (e *engine) place(with, without []int32) *state {
	if e.root == nil {
		return nil
	}
	st := e.root.clone()
	for _, v := range with {
		if !e.bd.set(st, v, queen) {
			return nil
		}
	}
	for _, v := range without {
		if !e.bd.set(st, v, noQueen) {
			return nil
		}
	}
	return st
}

// Find returns a solution with a queen on every variable of with and none
// on any of without, after propagation and, on large boards, the local
// search have had their chance to answer; then every cell is an assumption
// of the space's solver.
func (e *engine) Find(ctx context.Context, q *satbase.Query, with, without []int32) ([]int32, error) {
	st := e.place(with, without)
	if st == nil {
		return nil, nil
	}
	w, _, err := e.witness(ctx, q, e.newRand(), st, with, without)
	return w, err
}

// Means of deciding a cell, for configurator.Work.
const (
	undecided = iota
	byPropagation
	byWitness // a verified solution of the local search
	bySolver  // a solution or a refutation of the solver
)

// witness returns a verified solution that extends st, which holds with and
// excludes without (both also passed to the solver), or nil when there is
// none, and the means that found it or refuted it (byWitness or
// bySolver). A solution without queens is an empty slice, not nil.
func (e *engine) witness(ctx context.Context, q *satbase.Query, rng *rand.Rand, st *state, with, without []int32) ([]int32, uint8, error) {
	bd := e.bd
	if bd.search != nil && bd.n >= searchMinN && !e.b.solverOnly {
		for range searchTries {
			if w := bd.localSearch(st, rng, searchSteps(bd.n)); w != nil && q.Holds(w, with, without) {
				return w, byWitness, nil
			}
		}
	}
	var w []int32
	err := e.b.callSliced(ctx, q.Calls, func(ctx context.Context) (err error) {
		w, err = q.Ask(ctx, with, without)
		return err
	})
	if err != nil {
		return nil, bySolver, err
	}
	return w, bySolver, nil
}

// symmetries returns the board's symmetries that map the placement queens
// onto itself (board.fixing), or none when the backend is solver only.
func (e *engine) symmetries(queens []int32) [][]int32 {
	if e.b.solverOnly {
		return nil
	}
	return e.bd.fixing(queens)
}

// Decide classifies every cell under the placement queens.
//
// A cell is possible when a verified solution holding the queens has a
// queen on it, and blocked when propagation or the solver shows that none
// has. Witnesses come from the local search (N >= searchMinN), then from
// the solver, and every witness also marks its images under the board
// symmetries that the model has and that leave the placement in place. A
// possible cell is forced when it is the only possible cell of one of its
// exact lines (ExactlyOne, or implied so, see board.exact). This is exact
// for models made of ExactlyOne and AtMostOne lines: a cell on no exact
// line is never forced (drop its queen from a solution and the rest is
// still one), and a solution holding another possible cell of its exact
// line avoids it. Work tells how each cell was decided.
func (e *engine) Decide(ctx context.Context, q *satbase.Query, queens []int32) (*configurator.Analysis, error) {
	bd := e.bd
	st := e.place(queens, nil)
	if st == nil {
		return nil, configurator.ErrNoSolution
	}
	rng := e.newRand()
	possible := make([]bool, bd.nv)
	blocked := make([]bool, bd.nv)
	by := make([]uint8, bd.nv)
	for v, x := range st.val {
		blocked[v] = x == noQueen
		if x != open {
			by[v] = byPropagation
		}
	}
	syms := e.symmetries(queens)
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
	w, means, err := e.witness(ctx, q, rng, st, queens, nil)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, configurator.ErrNoSolution
	}
	mark(w, means)
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
			if w, means, err = e.witness(ctx, q, rng, sv, with, nil); err != nil {
				return nil, err
			}
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
	return a, nil
}

// forced reports whether v is the only cell of one of its exact lines that
// is not blocked.
func (b *board) forced(v int32, blocked []bool) bool {
lines:
	for _, l := range b.LinesOf(v) {
		if !b.exact[l] {
			continue
		}
		for _, u := range b.Line(l) {
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

// Enumerate lists the solutions that hold queens, up to limit of them.
//
// A solver slows down as blocking clauses pile up, so the solutions are
// split into parts by the cell that holds the queen of one open exact
// line, each part enumerated by a fresh solver (satbase.Query.Enumerate).
// A symmetry that fixes the placement and maps the cell of one part to
// the cell of another maps the solutions of the first onto those of the
// second, so that part is not enumerated but imaged: on the empty board
// this halves the work.
func (e *engine) Enumerate(ctx context.Context, q *satbase.Query, queens []int32, limit int) (sols [][]int32, complete bool, err error) {
	bd := e.bd
	st := e.place(queens, nil)
	if st == nil {
		return nil, true, nil
	}
	syms := e.symmetries(queens)
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
		for _, v := range bd.Line(split) {
			if st.val[v] == open {
				cells = append(cells, v)
				inSplit[v] = true
			}
		}
	}
	done := make([]bool, bd.nv)
	part := slices.Clone(queens)
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
		if sols, complete, err = q.Enumerate(ctx, part, sols, limit); err != nil || !complete {
			return sols, complete, err
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
				if !q.Holds(img, append(part[:len(queens):len(queens)], u), nil) {
					return nil, false, fmt.Errorf("symmetry maps %s to the non-solution %s", q.Format(w), q.Format(img))
				}
				if len(sols) == limit {
					return sols, false, nil
				}
				sols = append(sols, img)
			}
		}
	}
	return sols, true, nil
}
