package configurator

import (
	"context"
	"encoding/binary"
	"errors"
	"iter"
	"slices"
	"time"
)

// MaxReasons is the most minimal reasons an explanation lists. A target
// (a cell, a feature) under many choices can have very many (they grow
// with the subsets of the choices); past this many the search stops and
// says that more may exist.
const MaxReasons = 8

// reasonBudget bounds the search for every reason beyond the first, so
// that a large question under many choices answers in time with the
// reasons found so far. The search also never takes more than half the
// time left to its context, leaving the rest for making room.
const reasonBudget = 2 * time.Second

// reasonSearch finds the minimal reasons of one target: the
// subset-minimal sets of a person's choices (the queens of a board, the
// decisions on a feature model) that rule it (block or force a cell, force
// a feature, refute each other). The feature session's explanations and
// conflicts share it; each says what "rules" means and the search does
// the rest. Sets of choices are increasing lists of indices into the choices,
// 0..n-1.
type reasonSearch struct {
	n int
	// rules reports whether the choices in set rule the target. When they
	// do not, it may return held: the choices of a witness (a solution, a
	// configuration) that keeps set and leaves the target unruled, so
	// that no set inside held rules either. rules is asked once a set.
	rules func(ctx context.Context, set []int) (ok bool, held []int, err error)
	// known are choices that rule the target alone, known without asking
	// (the queens that attack a cell): reasons of one choice each, listed
	// first.
	known []int
	// firstOnly stops run at the first reason: the known ones, or the
	// one split finds.
	firstOnly bool
	// turner, when not nil, gives the search's own work its turns (see
	// Turner); tu holds them while run or room runs.
	turner Turner
	tu     *turns

	found   [][]int         // minimal reasons, the known ones first
	nknown  int             // found[:nknown] are the known ones
	held    [][]int         // sets that do not rule: nothing inside rules
	asked   map[string]bool // the sets asked about (setKey), and whether they rule
	nowhere bool            // the empty set rules: the only reason
	more    bool            // the search ran out of time before trying every set
}

// ask reports whether the choices in set rule the target, asking rules
// once a set and keeping what a witness prunes.
func (rs *reasonSearch) ask(ctx context.Context, set []int) (bool, error) {
	key := setKey(set)
	if ok, seen := rs.asked[key]; seen {
		return ok, nil
	}
	rs.tu.pause() // the space's question takes turns of its own
	ok, held, err := rs.rules(ctx, set)
	if err != nil {
		return false, err
	}
	if !ok && held != nil {
		rs.held = append(rs.held, held)
	}
	if rs.asked == nil {
		rs.asked = make(map[string]bool)
	}
	rs.asked[key] = ok
	return ok, nil
}

// setKey is the key of a set of indices in reasonSearch.asked.
func setKey(set []int) string {
	var b []byte
	for _, j := range set {
		b = binary.AppendUvarint(b, uint64(j))
	}
	return string(b)
}

// run finds the reasons: the empty set, the known ones, one reason by
// halves (split) when none is known, then the rest by size within the budget.
func (rs *reasonSearch) run(ctx context.Context) error {
	rs.tu = &turns{ctx: ctx, t: rs.turner}
	defer rs.tu.pause()
	if rs.n == 0 {
		// The target is ruled with no choice at all: the empty set is
		// the reason, and no question needs asking.
		rs.nowhere, rs.found = true, [][]int{{}}
		return nil
	}
	if ok, err := rs.ask(ctx, nil); err != nil || ok {
		rs.nowhere = ok
		if ok {
			rs.found = [][]int{{}}
		}
		return err
	}
	for j := range rs.n {
		if slices.Contains(rs.known, j) {
			rs.found = append(rs.found, []int{j})
		}
	}
	rs.nknown = len(rs.found)
	if len(rs.found) == 0 {
		r, err := rs.split(ctx, rs.without(nil))
		if err != nil {
			return err
		}
		rs.found = append(rs.found, r)
	}
	if rs.firstOnly {
		return nil
	}
	sctx, cancel := budgeted(ctx, reasonBudget)
	defer cancel()
	err := rs.bySize(sctx, rs.without(rs.known))
	switch {
	case err == nil:
	case ctx.Err() == nil && sctx.Err() != nil:
		rs.more = true
	default:
		return err
	}
	slices.SortStableFunc(rs.found[rs.nknown:], compareReasons) // the known ones stay first
	return nil
}

// split returns a minimal reason inside set, which rules the target, by
// halves (Junker's QuickXplain): a reason of k choices among n costs
// about 2k·log2(n/k) questions where dropping each choice in turn asks n,
// and it finds the reason that dropping them, the last made first, keeps.
func (rs *reasonSearch) split(ctx context.Context, set []int) ([]int, error) {
	var xplain func(base, cands []int, added bool) ([]int, error)
	xplain = func(base, cands []int, added bool) ([]int, error) {
		if added {
			ok, err := rs.ask(ctx, base)
			if err != nil || ok {
				return nil, err
			}
		}
		if len(cands) == 1 {
			return cands, nil
		}
		c1, c2 := cands[:len(cands)/2], cands[len(cands)/2:]
		d2, err := xplain(union(base, c1), c2, true)
		if err != nil {
			return nil, err
		}
		d1, err := xplain(union(base, d2), c1, len(d2) > 0)
		if err != nil {
			return nil, err
		}
		return union(d1, d2), nil
	}
	if len(set) == 0 {
		return nil, nil
	}
	return xplain(nil, slices.Clone(set), false)
}

// union is the increasing list of the elements of the increasing lists a
// and b.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// reasonSets bounds the sets bySize looks at, asked or pruned: pruning
// takes no solver's turn but a core all the same, and the sets of many
// choices are beyond counting.
const reasonSets = 1 << 16

// prunedRun is how many sets in a row bySize prunes before it takes the
// search's turn: a run of sets pruned is work on a core, where a set
// asked about is mostly the space's question, in the space's turns.
const prunedRun = 64

// bySize tries the sets of rest by increasing size, stopping once more
// than MaxReasons are known: the one past the cap proves that more exist.
// Past reasonSets sets it stops too, and says more may exist. A long run
// of sets pruned without a question takes the search's turns (prunedRun).
func (rs *reasonSearch) bySize(ctx context.Context, rest []int) error {
	seen, skipped := 0, 0
	for set := range subsetsBySize(rest, 1) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if skipped > 0 && skipped%prunedRun == 0 {
			if err := rs.tu.hold(); err != nil {
				return err
			}
		}
		if seen++; seen > reasonSets {
			rs.more = true
			return nil
		}
		if len(rs.found) > MaxReasons {
			return nil
		}
		if rs.pruned(set) {
			skipped++
			continue
		}
		skipped = 0
		ok, err := rs.ask(ctx, set)
		if err != nil {
			return err
		}
		if ok {
			rs.found = append(rs.found, slices.Clone(set))
		}
	}
	return nil
}

// pruned reports whether set need not be tried: it holds a reason found
// (so it is not minimal) or lies inside a witness's choices (so it rules
// nothing).
func (rs *reasonSearch) pruned(set []int) bool {
	return slices.ContainsFunc(rs.found, func(r []int) bool { return subset(r, set) }) ||
		slices.ContainsFunc(rs.held, func(h []int) bool { return subset(set, h) })
}

// compareReasons orders sets of choices by size, then by the order the
// choices were made.
func compareReasons(a, b []int) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return slices.Compare(a, b)
}

// room returns a fewest set of choices whose removal frees the target. A
// fewest set meeting every reason found is a lower bound on the answer
// (every set that frees the target meets every reason); when removing it
// frees the target it is the answer. Otherwise the choices it leaves still
// rule the target and hold reasons not yet found: each is found (split)
// and one of its choices added to the set, until the set frees the
// target; then a fewest set meeting the reasons, now more, is sought
// again. The rounds are at most roomRounds and their searches for a
// fewest set share hitNodes nodes (see hittingSet), so that a question
// among many choices costs a bounded amount of work. When the bound is
// reached before a fewest set is proved, room returns the smallest set
// found that frees the target, and atLeast, the size a fewest one has at
// least; atLeast is 0 when set is a fewest one. Its own work takes the
// search's turns (see turns), its questions the space's.
func (rs *reasonSearch) room(ctx context.Context) (set []int, atLeast int, err error) {
	rs.tu = &turns{ctx: ctx, t: rs.turner}
	defer rs.tu.pause()
	all := slices.Clone(rs.found)
	budget, least := hitNodes, 0
	var best []int // the smallest set found that frees the target
	for round := 1; ; round++ {
		if err := rs.tu.hold(); err != nil {
			return nil, 0, err
		}
		hit, lower, used, err := hittingSet(ctx, all, budget, rs.tu.hold)
		if err != nil {
			return nil, 0, err
		}
		budget -= used
		least = max(least, lower)
		grown, fresh := hit, 0
		for {
			kept := rs.without(grown)
			rules, err := rs.ask(ctx, kept)
			if err != nil {
				return nil, 0, err
			}
			if !rules {
				break
			}
			r, err := rs.split(ctx, kept)
			if err != nil {
				return nil, 0, err
			}
			all = append(all, r)
			rs.add(r)
			grown, fresh = union(grown, r[:1]), fresh+1
		}
		if best == nil || len(grown) < len(best) {
			best = grown
		}
		switch {
		case len(best) <= least:
			return best, 0, nil
		case fresh == 0 || round == roomRounds:
			// No reason is left to find that would raise the bound (the
			// fewest set meeting those known frees the target, unproved
			// within the nodes), or the rounds are spent.
			return best, least, nil
		}
	}
}

// roomRounds bounds the rounds of room: each finds the reasons its set
// leaves, one split each.
const roomRounds = 8

// without is the set of every choice not in set, an increasing list.
func (rs *reasonSearch) without(set []int) []int {
	var kept []int
	for j := range rs.n {
		if !slices.Contains(set, j) {
			kept = append(kept, j)
		}
	}
	return kept
}

// add adds r, a minimal reason, to those found unless it is there.
func (rs *reasonSearch) add(r []int) {
	if slices.ContainsFunc(rs.found, func(f []int) bool { return slices.Equal(f, r) }) {
		return
	}
	rs.found = append(rs.found, r)
	rs.more = rs.more || len(rs.found) > MaxReasons
	slices.SortStableFunc(rs.found[rs.nknown:], compareReasons) // the known ones stay first
}

// hitNodes bounds the searches of one room for a fewest hitting set, in
// the nodes of their trees: a few milliseconds of one core. Past it, a
// search returns the smallest set found, so that a question whose answer
// is a large set among many choices costs what a small one does instead
// of its whole deadline on a core.
const hitNodes = 1 << 14

// hittingSet returns a fewest set of indices that meets every set of sets
// (none is empty), the first such set in lexicographic order of its
// increasing list (the choices made earliest go first) when the search
// ends within budget nodes: lower is then the size of set.
//
// The search is a branch and bound on the elements in increasing order,
// each taken before it is left out, so that it meets the sets of each
// size in lexicographic order, and keeps the first set of a size smaller
// than any found (or than the greedy set it starts from). A branch ends
// when the sets not yet met that share no element left allowed, which
// need one element each, show it cannot do better. It calls yield every
// few hundred nodes (the search's turns: see turns) and stops when yield
// fails or ctx ends, with their error.
//
// When the search passes budget nodes it returns the smallest set found
// and lower, a size every set meeting them all has at least: the set is
// proved a fewest one exactly when lower is its size. used is the nodes
// it took.
func hittingSet(ctx context.Context, sets [][]int, budget int, yield func() error) (set []int, lower, used int, err error) {
	if slices.ContainsFunc(sets, func(s []int) bool { return len(s) == 0 }) {
		return nil, 0, 0, errors.New("no set meets every reason") // an empty reason has no hitting set
	}
	h := newHitter(sets)
	h.budget, h.yield, h.ctx = budget, yield, ctx
	h.best = h.greedy()
	lower = h.bound()
	h.search()
	if h.err != nil {
		return nil, 0, h.nodes, h.err
	}
	if !h.stopped {
		lower = len(h.best)
	}
	return h.best, lower, h.nodes, nil
}

// hitter is the state of hittingSet's search.
type hitter struct {
	sets    [][]int // each increasing, fewest elements first
	holding [][]int // by element, the sets that hold it
	met     []int   // by set, how many chosen elements it holds
	banned  []bool  // by element, left out by a branch above
	cur     []int   // the elements chosen, increasing
	best    []int   // the smallest set found, increasing
	// searched: best was found by the search, so no later set of its
	// size comes first.
	searched bool

	ctx     context.Context
	yield   func() error
	budget  int
	nodes   int
	stopped bool  // the search passed its budget or failed
	err     error // why it failed: yield's or ctx's error
	seen    []int // scratch of bound: the epoch an element was last used in
	epoch   int
}

func newHitter(sets [][]int) *hitter {
	n := 0
	for _, s := range sets {
		n = max(n, slices.Max(s)+1)
	}
	sets = slices.Clone(sets)
	slices.SortStableFunc(sets, func(a, b []int) int { return len(a) - len(b) })
	h := &hitter{sets: sets, holding: make([][]int, n), met: make([]int, len(sets)), banned: make([]bool, n), seen: make([]int, n)}
	for i, s := range sets {
		for _, j := range s {
			h.holding[j] = append(h.holding[j], i)
		}
	}
	return h
}

func (h *hitter) choose(j int) {
	h.cur = append(h.cur, j)
	for _, i := range h.holding[j] {
		h.met[i]++
	}
}

func (h *hitter) unchoose(j int) {
	h.cur = h.cur[:len(h.cur)-1]
	for _, i := range h.holding[j] {
		h.met[i]--
	}
}

// greedy returns a set meeting every set: the element that meets the
// most sets not yet met, the smallest on a tie, until every set is met.
// It chooses them as the search does, nothing chosen before or after.
func (h *hitter) greedy() []int {
	defer func() {
		for len(h.cur) > 0 {
			h.unchoose(h.cur[len(h.cur)-1])
		}
	}()
	for {
		bestJ, bestN := -1, 0
		for j, holds := range h.holding {
			n := 0
			for _, i := range holds {
				if h.met[i] == 0 {
					n++
				}
			}
			if n > bestN {
				bestJ, bestN = j, n
			}
		}
		if bestJ < 0 {
			return slices.Sorted(slices.Values(h.cur))
		}
		h.choose(bestJ)
	}
}

// bound returns how many more elements every completion of the chosen
// ones needs at least: the number of sets not yet met, fewest elements
// first, that share no element left allowed; -1 when a set not yet met
// has no element left allowed (no completion exists).
func (h *hitter) bound() int {
	h.epoch++
	n := 0
	for i, s := range h.sets {
		if h.met[i] > 0 {
			continue
		}
		free, clash := 0, false
		for _, j := range s {
			if h.banned[j] {
				continue
			}
			free++
			clash = clash || h.seen[j] == h.epoch
		}
		if free == 0 {
			return -1
		}
		if clash {
			continue
		}
		for _, j := range s {
			h.seen[j] = h.epoch
		}
		n++
	}
	return n
}

// next returns the smallest element left allowed of the sets not yet
// met, -1 when every set is met.
func (h *hitter) next() int {
	e := -1
	for i, s := range h.sets {
		if h.met[i] > 0 {
			continue
		}
		for _, j := range s {
			if !h.banned[j] {
				if e < 0 || j < e {
					e = j
				}
				break
			}
		}
	}
	return e
}

// search explores the completions of the chosen elements: with the
// smallest element left of the sets not yet met, then without it. Every
// element below it is decided (chosen, left out, or in no set not yet
// met), so the chosen elements stay increasing and the sets are met in
// lexicographic order.
func (h *hitter) search() {
	if h.stopped {
		return
	}
	if h.nodes++; h.nodes > h.budget {
		h.stopped = true
		return
	}
	if h.nodes%256 == 0 {
		if h.err = h.ctx.Err(); h.err == nil && h.yield != nil {
			h.err = h.yield()
		}
		if h.err != nil {
			h.stopped = true
			return
		}
	}
	lb := h.bound()
	if lb < 0 || len(h.cur)+lb > len(h.best) || h.searched && len(h.cur)+lb >= len(h.best) {
		return
	}
	e := h.next()
	if e < 0 {
		// Every set is met: smaller than best, or as small and first in
		// order while best is the greedy set.
		h.best, h.searched = slices.Clone(h.cur), true
		return
	}
	h.choose(e)
	h.search()
	h.unchoose(e)
	h.banned[e] = true
	h.search()
	h.banned[e] = false
}

// subset reports whether the increasing list a lies inside the increasing
// list b.
func subset(a, b []int) bool {
	i := 0
	for _, x := range b {
		if i < len(a) && a[i] == x {
			i++
		}
	}
	return i == len(a)
}

// subsetsBySize yields the subsets of from with at least least elements,
// by increasing size and, within a size, in lexicographic order of their
// positions in from. The slice yielded is reused: clone it to keep it.
func subsetsBySize(from []int, least int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		for k := least; k <= len(from); k++ {
			idx := make([]int, k)
			for i := range idx {
				idx[i] = i
			}
			set := make([]int, k)
			for {
				for i, j := range idx {
					set[i] = from[j]
				}
				if !yield(set) {
					return
				}
				if !nextCombination(idx, len(from)) {
					break
				}
			}
		}
	}
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
