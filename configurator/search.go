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

// bySize tries the sets of rest by increasing size, stopping once more
// than MaxReasons are known: the one past the cap proves that more exist.
func (rs *reasonSearch) bySize(ctx context.Context, rest []int) error {
	for set := range subsetsBySize(rest, 1) {
		if err := ctx.Err(); err != nil {
			return err
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
// before trying again.
func (rs *reasonSearch) room(ctx context.Context) ([]int, error) {
	all := slices.Clone(rs.found)
	for {
		hit, err := hittingSet(ctx, all)
		if err != nil {
			return nil, err
		}
		var kept []int
		for j := range rs.n {
			if !slices.Contains(hit, j) {
				kept = append(kept, j)
			}
		}
		ok, err := rs.ask(ctx, kept)
		if err != nil {
			return nil, err
		}
		if !ok {
			return hit, nil
		}
		r, err := rs.shrink(ctx, kept)
		if err != nil {
			return nil, err
		}
		all = append(all, r)
		if !slices.ContainsFunc(rs.found, func(f []int) bool { return slices.Equal(f, r) }) {
			rs.found = append(rs.found, r)
			rs.more = rs.more || len(rs.found) > MaxReasons
			rs.sort()
		}
	}
}

// hittingSet returns a fewest set of indices that meets every set of sets
// (none is empty), the first such set in increasing lexicographic order
// of its size: the choices made earliest go first.
func hittingSet(ctx context.Context, sets [][]int) ([]int, error) {
	var universe []int
	for _, s := range sets {
		for _, j := range s {
			if !slices.Contains(universe, j) {
				universe = append(universe, j)
			}
		}
	}
	slices.Sort(universe)
	for set := range subsetsBySize(universe, 0) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if hitsAll(set, sets) {
			return slices.Clone(set), nil
		}
	}
	return nil, errors.New("no set meets every reason") // an empty reason has no hitting set
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
