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
// a feature, refute each other). The board's sessions and the feature
// models' share it; each says what "rules" means and the search does the
// rest. Sets of choices are increasing lists of indices into the choices,
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
	// one shrink finds.
	firstOnly bool

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
// deletion when none is known, then the rest by size within the budget.
func (rs *reasonSearch) run(ctx context.Context) error {
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
	var rest []int
	for j := range rs.n {
		if slices.Contains(rs.known, j) {
			rs.found = append(rs.found, []int{j})
			continue
		}
		rest = append(rest, j)
	}
	rs.nknown = len(rs.found)
	if rs.firstOnly && len(rs.found) > 0 {
		return nil
	}
	if len(rs.found) == 0 {
		r, err := rs.shrink(ctx, rs.all())
		if err != nil {
			return err
		}
		rs.found = append(rs.found, r)
	}
	if rs.firstOnly {
		return nil
	}
	budget := reasonBudget
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(d)/2)
	}
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	err := rs.bySize(sctx, rest)
	switch {
	case err == nil:
	case ctx.Err() == nil && sctx.Err() != nil:
		rs.more = true
	default:
		return err
	}
	rs.sort()
	return nil
}

// all is the set of every choice.
func (rs *reasonSearch) all() []int {
	all := make([]int, rs.n)
	for j := range all {
		all[j] = j
	}
	return all
}

// shrink returns a minimal reason inside set, which rules the target:
// each choice in turn, the last made first, is dropped while the rest
// still rule.
func (rs *reasonSearch) shrink(ctx context.Context, set []int) ([]int, error) {
	set = slices.Clone(set)
	for i := len(set) - 1; i >= 0; i-- {
		rest := slices.Delete(slices.Clone(set), i, i+1)
		ok, err := rs.ask(ctx, rest)
		if err != nil {
			return nil, err
		}
		if ok {
			set = rest
		}
	}
	return set, nil
}

// split returns a minimal reason inside set, which rules the target, by
// halves (Junker's QuickXplain): a reason of k choices among n costs
// about 2k·log2(n/k) questions where shrink asks n, which counts when
// room finds reason after reason among many choices.
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

// bySize tries the sets of rest by increasing size, stopping once more
// than MaxReasons are known: the one past the cap proves that more exist.
// Past reasonSets sets it stops too, and says more may exist.
func (rs *reasonSearch) bySize(ctx context.Context, rest []int) error {
	seen := 0
	for set := range subsetsBySize(rest, 1) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if seen++; seen > reasonSets {
			rs.more = true
			return nil
		}
		if len(rs.found) > MaxReasons {
			return nil
		}
		if rs.pruned(set) {
			continue
		}
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
	for _, r := range rs.found {
		if subset(r, set) {
			return true
		}
	}
	for _, h := range rs.held {
		if subset(set, h) {
			return true
		}
	}
	return false
}

// sort puts the known reasons first, then the others by size, then by
// the order the choices were made.
func (rs *reasonSearch) sort() {
	slices.SortStableFunc(rs.found[rs.nknown:], func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
}

// capped reports the reasons to list, at most MaxReasons, and whether
// more exist or may exist.
func (rs *reasonSearch) capped() (reasons [][]int, more bool) {
	return rs.found[:min(len(rs.found), MaxReasons)], rs.more || len(rs.found) > MaxReasons
}

// room returns a fewest set of choices whose removal frees the target. A
// fewest set meeting every reason found is a lower bound on the answer
// (every set that frees the target meets every reason); when removing it
// frees the target it is the answer, and otherwise the choices it leaves
// still rule the target and hold a reason not yet found, which is added
// before trying again. When the search for a fewest set meeting the
// reasons runs out of its budget (see hittingSet), room returns the
// smallest set it found that frees the target, and atLeast, the size a
// fewest one has at least; atLeast is 0 when set is a fewest one.
func (rs *reasonSearch) room(ctx context.Context) (set []int, atLeast int, err error) {
	all := slices.Clone(rs.found)
	least, exact := 0, true
	for {
		hit, ok, lower, err := hittingSet(ctx, all)
		if err != nil {
			return nil, 0, err
		}
		least = max(least, lower)
		exact = exact && ok
		var kept []int
		for j := range rs.n {
			if !slices.Contains(hit, j) {
				kept = append(kept, j)
			}
		}
		rules, err := rs.ask(ctx, kept)
		if err != nil {
			return nil, 0, err
		}
		if !rules {
			if exact || least >= len(hit) {
				return hit, 0, nil
			}
			return hit, least, nil
		}
		r, err := rs.split(ctx, kept)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, r)
		if !slices.ContainsFunc(rs.found, func(f []int) bool { return slices.Equal(f, r) }) {
			rs.found = append(rs.found, r)
			rs.more = rs.more || len(rs.found) > MaxReasons
			rs.sort()
		}
	}
}

// hitNodes bounds the search for a fewest hitting set, in the nodes of
// its tree: a few milliseconds of one core. Past it, the search returns
// the smallest set found, so that a question whose answer is a large set
// among many choices (a fix that undoes sixty of a hundred and twenty
// decisions, whose subsets by size are beyond counting) costs what a
// small one does instead of its whole deadline on a core.
const hitNodes = 1 << 14

// hittingSet returns a fewest set of indices that meets every set of sets
// (none is empty), the first such set in increasing lexicographic order
// of its size when the search ends within its budget: the choices made
// earliest go first; exact is true. The
// search is a branch and bound (on the elements of a set not yet met with
// the fewest elements left, each branch forbidding the elements of the
// branches before it; bounded by the sets not yet met that share no
// element, which need one element each), started from a greedy set. When
// it passes hitNodes nodes it returns the smallest set found, exact false,
// and lower, a size that every set meeting them all has at least (exact
// still when that is the size found); exact, lower is the size of set.
func hittingSet(ctx context.Context, sets [][]int) (set []int, exact bool, lower int, err error) {
	if slices.ContainsFunc(sets, func(s []int) bool { return len(s) == 0 }) {
		return nil, false, 0, errors.New("no set meets every reason") // an empty reason has no hitting set
	}
	h := newHitter(sets)
	h.best = h.greedy()
	lower = h.bound()
	h.search(ctx)
	if err := ctx.Err(); err != nil {
		return nil, false, 0, err
	}
	if !h.stopped || lower == len(h.best) {
		return h.best, true, len(h.best), nil
	}
	return h.best, false, lower, nil
}

// hitter is the state of hittingSet's search.
type hitter struct {
	sets    [][]int // each increasing
	holding [][]int // by element, the sets that hold it
	met     []int   // by set, how many chosen elements it holds
	banned  []int   // by element, how many branches above forbid it
	cur     []int   // the elements chosen, in the order chosen
	best    []int   // the smallest set found, increasing
	nodes   int
	stopped bool  // the search passed hitNodes (or its context ended)
	seen    []int // scratch of bound: the epoch an element was last used in
	epoch   int
}

func newHitter(sets [][]int) *hitter {
	n := 0
	for _, s := range sets {
		n = max(n, slices.Max(s)+1)
	}
	h := &hitter{sets: sets, holding: make([][]int, n), met: make([]int, len(sets)), banned: make([]int, n), seen: make([]int, n)}
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
func (h *hitter) greedy() []int {
	defer func() {
		for _, j := range slices.Clone(h.cur) {
			h.unchoose(j)
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
			out := slices.Clone(h.cur)
			slices.Sort(out)
			return out
		}
		h.choose(bestJ)
	}
}

// bound returns how many more elements every completion of the chosen
// ones needs at least: the number of sets not yet met, taken smallest
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
			if h.banned[j] > 0 {
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

// search explores the completions of the chosen elements, keeping the
// smallest found (the first in increasing lexicographic order among the
// smallest).
func (h *hitter) search(ctx context.Context) {
	if h.stopped {
		return
	}
	if h.nodes++; h.nodes > hitNodes || (h.nodes%256 == 0 && ctx.Err() != nil) {
		h.stopped = true
		return
	}
	// The set not yet met with the fewest elements left allowed.
	pick, fewest := -1, 0
	for i, s := range h.sets {
		if h.met[i] > 0 {
			continue
		}
		free := 0
		for _, j := range s {
			if h.banned[j] == 0 {
				free++
			}
		}
		if free == 0 {
			return
		}
		if pick < 0 || free < fewest {
			pick, fewest = i, free
		}
	}
	if pick < 0 {
		found := slices.Clone(h.cur)
		slices.Sort(found)
		if len(found) < len(h.best) || (len(found) == len(h.best) && slices.Compare(found, h.best) < 0) {
			h.best = found
		}
		return
	}
	if lb := h.bound(); lb < 0 || len(h.cur)+lb > len(h.best) {
		return
	}
	var tried []int
	for _, j := range h.sets[pick] {
		if h.banned[j] > 0 {
			continue
		}
		h.choose(j)
		h.search(ctx)
		h.unchoose(j)
		h.banned[j]++
		tried = append(tried, j)
	}
	for _, j := range tried {
		h.banned[j]--
	}
}

// hitsAll reports whether set shares an element with every one of sets.
func hitsAll(set []int, sets [][]int) bool {
	for _, s := range sets {
		if !slices.ContainsFunc(s, func(j int) bool { return slices.Contains(set, j) }) {
			return false
		}
	}
	return true
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
