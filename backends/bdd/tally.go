package bdd

import (
	"context"
	"math/big"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nqueens/configurator/configurator"
)

// The answers a memo keeps about the boards of none, one and two queens
// are sums over the board's solutions: how many hold the board, which
// cells some of them fill (the others are blocked) and which all of them
// fill (forced); a heat map counts the solutions that hold each cell as
// well. When the solutions are few enough to visit one by one (millions
// at 16×16), one search of the board (the classic backtracking, rank by
// rank) adds up every one of those sums at once, in seconds, where a
// sweep of the diagram per board takes a second or more each, thousands
// of boards. They are facts about the rules, whoever computes them; the
// memo checks the search against its diagram all the same: both must
// count the same solutions (see memo.keepAll).

// maxTallied is the most solutions a tally visits: a model with more has
// its memo computed by sweeps of the diagram.
const maxTallied = 1 << 27

// sums accumulates, for each of its entries, a count of solutions, their
// union (the cells some solution fills) and their intersection (the cells
// every one fills), as bitsets by variable, words uint64s apiece.
type sums struct {
	words         int
	count         []uint64
	union, common []uint64
}

func newSums(entries, words int) sums {
	s := sums{words: words, count: make([]uint64, entries),
		union: make([]uint64, entries*words), common: make([]uint64, entries*words)}
	for i := range s.common {
		s.common[i] = ^uint64(0)
	}
	return s
}

// add counts the solution sol in entry i.
func (s *sums) add(i int, sol []uint64) {
	s.count[i]++
	u, c := s.union[i*s.words:(i+1)*s.words], s.common[i*s.words:(i+1)*s.words]
	for j, w := range sol {
		u[j] |= w
		c[j] &= w
	}
}

// merge adds o's sums, of as many entries, to s's.
func (s *sums) merge(o *sums) {
	for i, n := range o.count {
		s.count[i] += n
	}
	for i, w := range o.union {
		s.union[i] |= w
		s.common[i] &= o.common[i]
	}
}

// answer is the memo's entry for entry i, the sums of the solutions that
// hold queens: their analysis, on a diagram of nodes nodes, or the error
// that there is none.
func (s *sums) answer(i int, queens []configurator.Cell, model *configurator.Model, nodes int) any {
	if s.count[i] == 0 {
		return noSolution(queens)
	}
	n := model.N()
	an := &configurator.Analysis{N: n, Cells: make([]configurator.State, n*n),
		Solutions: new(big.Int).SetUint64(s.count[i]), Work: configurator.Work{Nodes: int64(nodes)}}
	for v := range an.Cells {
		switch {
		case slices.Contains(queens, model.Cell(v)):
			an.Cells[v] = configurator.Queen
		case !has(s.union, i, s.words, v):
			an.Cells[v] = configurator.Blocked
		case has(s.common, i, s.words, v):
			an.Cells[v] = configurator.Forced
		}
	}
	return an
}

// has reports whether entry i's bitset b holds variable v.
func has(b []uint64, i, words, v int) bool {
	return b[i*words+v>>6]&(1<<(v&63)) != 0
}

// tally is the sums the memo keeps, over the solutions of a board, by
// variable: of the empty board (all), of the boards of one queen on the
// variables the memo keys by (ones, their index in ones from one), of the
// boards of two queens the memo keys by (pairs, their index from pair);
// and the heat maps of the empty board (marginals) and of those boards
// of one queen (heat, vars entries each).
type tally struct {
	vars, words int
	// one[v] is the entry in ones of a queen on variable v, or -1;
	// pair[a*vars+b] (and [b*vars+a]) that in pairs of queens on
	// variables a and b, or -1.
	one, pair []int32
	all       sums
	ones      sums
	pairs     sums
	marginals []uint64
	heat      []uint64
}

// newTally is the empty tally of the boards of one queen on the
// variables ones and of two queens on the pairs of variables pairs.
func newTally(vars, words int, ones []int, pairs [][2]int) *tally {
	t := &tally{vars: vars, words: words,
		one: make([]int32, vars), pair: make([]int32, vars*vars),
		all: newSums(1, words), ones: newSums(len(ones), words), pairs: newSums(len(pairs), words),
		marginals: make([]uint64, vars), heat: make([]uint64, len(ones)*vars)}
	for i := range t.one {
		t.one[i] = -1
	}
	for i := range t.pair {
		t.pair[i] = -1
	}
	for k, v := range ones {
		t.one[v] = int32(k)
	}
	for k, p := range pairs {
		t.pair[p[0]*vars+p[1]], t.pair[p[1]*vars+p[0]] = int32(k), int32(k)
	}
	return t
}

// empty is a tally of no solution with t's entries, sharing t's indices.
func (t *tally) empty() *tally {
	return &tally{vars: t.vars, words: t.words, one: t.one, pair: t.pair,
		all: newSums(1, t.words), ones: newSums(len(t.ones.count), t.words), pairs: newSums(len(t.pairs.count), t.words),
		marginals: make([]uint64, t.vars), heat: make([]uint64, len(t.heat))}
}

// add counts the solution whose queens are on the variables q, the
// bitset sol.
func (t *tally) add(q []int32, sol []uint64) {
	V := t.vars
	t.all.add(0, sol)
	for i, a := range q {
		t.marginals[a]++
		if k := t.one[a]; k >= 0 {
			t.ones.add(int(k), sol)
			h := t.heat[int(k)*V : int(k+1)*V]
			for _, b := range q {
				h[b]++
			}
		}
		row := t.pair[int(a)*V : int(a+1)*V]
		for _, b := range q[i+1:] {
			if k := row[b]; k >= 0 {
				t.pairs.add(int(k), sol)
			}
		}
	}
}

// merge adds o's sums to t's.
func (t *tally) merge(o *tally) {
	t.all.merge(&o.all)
	t.ones.merge(&o.ones)
	t.pairs.merge(&o.pairs)
	for i, n := range o.marginals {
		t.marginals[i] += n
	}
	for i, n := range o.heat {
		t.heat[i] += n
	}
}

// isQueens reports whether model is the N-Queens model of its board (the
// rules configurator.New writes, in any variable order) of at most 64
// files, whose solutions a tallyRun searches; a custom model is not.
func isQueens(model *configurator.Model) bool {
	if model.N() > 64 {
		return false
	}
	want, err := configurator.New(model.N(), model.Order())
	if err != nil {
		return false
	}
	return slices.EqualFunc(model.Constraints(), want.Constraints(), func(a, b configurator.Constraint) bool {
		return a.Kind == b.Kind && slices.Equal(a.Cells, b.Cells)
	})
}

// A tallyRun is a tally under way of the solutions of the n-queens
// board, found rank by rank with the classic three masks (the files,
// diagonals and anti-diagonals the queens above take): only those whose
// first queen is on the left half of the first rank, or in its middle,
// are searched, the others being their mirror images. The search is cut
// into branches, the queens of its first two ranks; any number of callers
// add goroutines to it (work), each taking the next branch not taken, so
// that a caller who comes while it runs helps it end rather than waits.
// A caller whose context ends stops taking branches; those left wait for
// the next caller.
type tallyRun struct {
	n        int
	branches [][]int
	next     atomic.Int64 // the next branch to take
	mu       sync.Mutex
	t        *tally // the sums of the branches added up
	left     int    // branches not yet added to t
	done     chan struct{}
}

// newTallyRun is the run that adds up t's sums, by variable, over the
// solutions of the n-queens board.
func newTallyRun(n int, t *tally) *tallyRun {
	r := &tallyRun{n: n, t: t, done: make(chan struct{})}
	for c0 := range (n + 1) / 2 {
		if n == 1 {
			r.branches = append(r.branches, []int{c0})
			break
		}
		for c1 := range n {
			if d := c1 - c0; d < -1 || d > 1 {
				r.branches = append(r.branches, []int{c0, c1})
			}
		}
	}
	if r.left = len(r.branches); r.left == 0 {
		close(r.done)
	}
	return r
}

// work adds workers goroutines to the run, each branch through run (a
// turn on the cores the Backend's heavy work shares), and waits until the
// run is done or ctx ends, with ctx's error.
func (r *tallyRun) work(ctx context.Context, workers int, run func(n int, f func())) error {
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			q := newQueensSearch(r.n, r.t.empty())
			took := 0
			for ctx.Err() == nil {
				i := int(r.next.Add(1) - 1)
				if i >= len(r.branches) {
					break
				}
				run(1, func() { q.branch(r.branches[i]) })
				took++
			}
			if took == 0 {
				return // nothing to add, to sums that may be read once done
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			r.t.merge(q.t)
			if r.left -= took; r.left == 0 {
				close(r.done)
			}
		})
	}
	wg.Wait()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// queensSearch is the work space of one goroutine of a tallyRun: the
// queens placed, by variable, the solution as a bitset by variable, and
// the same of its mirror image.
type queensSearch struct {
	n         int
	full      uint64
	q, mq     []int32
	sol, msol []uint64
	mirror    bool
	t         *tally
}

func newQueensSearch(n int, t *tally) *queensSearch {
	return &queensSearch{n: n, full: 1<<n - 1, t: t,
		q: make([]int32, n), mq: make([]int32, n),
		sol: make([]uint64, t.words), msol: make([]uint64, t.words)}
}

// branch adds the solutions whose first queens are on the files cols of
// the first ranks, and their mirror images unless the first queen is on
// the middle file.
func (s *queensSearch) branch(cols []int) {
	s.mirror = 2*cols[0]+1 != s.n
	var files, diag, anti uint64
	for r, c := range cols {
		b := uint64(1) << c
		if (files|diag|anti)&b != 0 {
			return
		}
		s.q[r] = int32(r*s.n + c)
		files, diag, anti = files|b, (diag|b)<<1&s.full, (anti|b)>>1
	}
	s.walk(len(cols), files, diag, anti)
}

// walk places the queens of ranks r on, given the files, diagonals and
// anti-diagonals taken on rank r.
func (s *queensSearch) walk(r int, files, diag, anti uint64) {
	if r == s.n {
		s.found()
		return
	}
	for free := s.full &^ (files | diag | anti); free != 0; free &= free - 1 {
		b := free & -free
		s.q[r] = int32(r*s.n + bits.TrailingZeros64(b))
		s.walk(r+1, files|b, (diag|b)<<1&s.full, (anti|b)>>1)
	}
}

// found adds the solution placed, and its mirror image.
func (s *queensSearch) found() {
	n := s.n
	clear(s.sol)
	for _, v := range s.q {
		setBit(s.sol, int(v))
	}
	s.t.add(s.q, s.sol)
	if !s.mirror {
		return
	}
	clear(s.msol)
	for r, v := range s.q {
		m := 2*r*n + n - 1 - int(v)
		s.mq[r] = int32(m)
		setBit(s.msol, m)
	}
	s.t.add(s.mq, s.msol)
}
