package sat

import "math/rand/v2"

// localSearch looks for a solution extending st by min-conflicts: every
// ExactlyOne line without a queen (a group) gets one on an open cell, chosen
// greedily in random order, and then, up to steps times, a random group
// whose queen shares an AtMostOne line with another moves to a cell of its
// line that shares the fewest. Open cells outside every group stay empty.
// It returns the solution's variables (never nil, even without queens), or
// nil when the steps run out. The result still has to be verified; the
// search only proposes.
//
// The greedy start leaves few conflicts on N-Queens, and each move repairs
// about one, so a few moves per rank suffice (see searchSteps).
func (b *board) localSearch(st *state, rng *rand.Rand, steps int) []int32 {
	sb := b.search
	queens := make([]int32, 0, b.n)
	for v, x := range st.val {
		if x == queen {
			queens = append(queens, int32(v))
		}
	}
	// Groups still open and their open cells: dom[domStart[g]:domStart[g+1]].
	domStart := []int32{0}
	var dom []int32
	for _, l := range sb.groupLine {
		if st.queens[l] > 0 {
			continue
		}
		for _, v := range b.Line(l) {
			if st.val[v] == open {
				dom = append(dom, v)
			}
		}
		domStart = append(domStart, int32(len(dom)))
	}
	groups := len(domStart) - 1
	if groups == 0 {
		return queens
	}
	count := make([]int32, len(b.Kind)) // queens of the groups per line
	amo := func(v int32) []int32 { return sb.amoLine[sb.amoStart[v]:sb.amoStart[v+1]] }
	conflicts := func(v int32) int32 {
		var c int32
		for _, l := range amo(v) {
			c += count[l]
		}
		return c
	}
	move := func(v int32, d int32) {
		for _, l := range amo(v) {
			count[l] += d
		}
	}
	// best returns a cell of group g with the fewest conflicts, ties broken
	// uniformly at random.
	best := func(g int) int32 {
		bestV, bestC, ties := int32(-1), int32(0), 0
		for _, v := range dom[domStart[g]:domStart[g+1]] {
			c := conflicts(v)
			switch {
			case bestV < 0 || c < bestC:
				bestV, bestC, ties = v, c, 1
			case c == bestC:
				ties++
				if rng.IntN(ties) == 0 {
					bestV = v
				}
			}
		}
		return bestV
	}
	pick := make([]int32, groups)
	for _, g := range rng.Perm(groups) {
		pick[g] = best(g)
		move(pick[g], 1)
	}
	var bad []int
	for range steps {
		bad = bad[:0]
		for g, v := range pick {
			if conflicts(v) > int32(len(amo(v))) { // more than itself on some line
				bad = append(bad, g)
			}
		}
		if len(bad) == 0 {
			return append(queens, pick...)
		}
		g := bad[rng.IntN(len(bad))]
		move(pick[g], -1)
		pick[g] = best(g)
		move(pick[g], 1)
	}
	return nil
}
