// Package varorder computes static variable orders for decision diagrams
// from the structure of a formula: which variables occur together in its
// clauses or constraints. The size of a diagram depends on its order, and
// variables that occur together are best kept close, so that the diagram
// need not remember many of them at once.
//
// A formula's structure is a hypergraph: variables 0..n-1 and edges, each
// the set of variables of one clause or constraint. An order is a
// permutation of the variables, order[l] the variable at level l (level 0
// at the top), as robdd.Manager.Order gives it.
package varorder

import (
	"cmp"
	"fmt"
	"slices"
)

// Hypergraph is the structure of a formula over N variables: Edges are the
// sets of variables of its clauses or constraints, each a list of
// variables in 0..N-1 (repeats allowed, ignored).
type Hypergraph struct {
	N     int
	Edges [][]int32
}

// Check returns an error when an edge names a variable outside 0..N-1.
func (h *Hypergraph) Check() error {
	for i, e := range h.Edges {
		for _, v := range e {
			if v < 0 || int(v) >= h.N {
				return fmt.Errorf("varorder: edge %d: variable %d of %d", i, v, h.N)
			}
		}
	}
	return nil
}

// Span is the sum over the edges of the distance between the levels of
// their first and last variables in order: the measure FORCE lowers.
func (h *Hypergraph) Span(order []int) int64 {
	level := levels(order)
	var span int64
	for _, e := range h.Edges {
		if len(e) == 0 {
			continue
		}
		lo, hi := level[e[0]], level[e[0]]
		for _, v := range e[1:] {
			lo, hi = min(lo, level[v]), max(hi, level[v])
		}
		span += int64(hi - lo)
	}
	return span
}

// Identity returns the order 0, 1, ..., n-1.
func Identity(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	return order
}

// IsPermutation reports whether order is an order of n variables: each of
// 0..n-1 once.
func IsPermutation(order []int, n int) bool {
	if len(order) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range order {
		if v < 0 || v >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// levels returns the inverse of order: level[v] is the level of v.
func levels(order []int) []int32 {
	level := make([]int32, len(order))
	for l, v := range order {
		level[v] = int32(l)
	}
	return level
}

// forceRounds bounds the rounds of Force: FORCE converges in a number of
// rounds that grows with the logarithm of the variables (Aloul et al.
// take about log n); a few more rounds than any model here needs.
const forceRounds = 64

// Force improves start (an order of h's N variables) by FORCE (Aloul,
// Markov and Sakallah, "FORCE: a fast and easy-to-implement
// variable-ordering heuristic", GLSVLSI 2003): in every round each edge
// pulls its variables towards its centre of gravity, the mean level of its
// variables, each variable moves to the mean of the centres of its edges,
// and the variables are sorted by where they moved (ties keep their
// order). It stops when a round no longer lowers the span (Hypergraph.Span)
// and returns the order of least span met, start itself if no round
// lowered it. Variables in no edge keep their places relative to the
// others. Each round takes time linear in the edges plus a sort.
func Force(h *Hypergraph, start []int) []int {
	best := slices.Clone(start)
	bestSpan := h.Span(best)
	order := slices.Clone(start)
	level := levels(order)
	pos := make([]float64, h.N)
	weight := make([]float64, h.N)
	for range forceRounds {
		clear(pos)
		clear(weight)
		for _, e := range h.Edges {
			if len(e) < 2 {
				continue
			}
			var sum float64
			for _, v := range e {
				sum += float64(level[v])
			}
			cog := sum / float64(len(e))
			for _, v := range e {
				pos[v] += cog
				weight[v]++
			}
		}
		for v := range pos {
			if weight[v] == 0 {
				pos[v] = float64(level[v])
			} else {
				pos[v] /= weight[v]
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pos[a], pos[b]) })
		for l, v := range order {
			level[v] = int32(l)
		}
		span := h.Span(order)
		if span >= bestSpan {
			break
		}
		best, bestSpan = slices.Clone(order), span
	}
	return best
}

// siftRounds bounds the rounds of Sift: most orders settle in two or
// three.
const siftRounds = 4

// siftWork bounds Sift's work, in levels priced and variables of edges
// read: a move prices every level and reads its variable's edges, so a
// round over n variables prices n² levels. A few hundred milliseconds of
// work sifts an order of thousands of variables to its end and one of
// tens of thousands in part (those in the most edges).
const siftWork = 1 << 27

// Sift improves start (an order of h's N variables) as sifting improves
// a diagram's order (Rudell, ICCAD 1993), with the span
// (Hypergraph.Span) for the diagram's size: each variable in turn, those
// in the most edges first, moves to the level where the span is least,
// the others keeping their order, and stays where it is when no level is
// better. A round moves every variable once; Sift stops after a round
// that no longer lowers the span, after siftRounds, or when its work
// reaches siftWork, and returns the order of least span met. It moves no
// variable that is in no edge.
//
// FORCE moves all variables at once to the means of their edges, which
// leaves an edge with one distant variable long; sifting moves one
// variable at a time to its best place, which shortens such edges.
//
// Sift finds a variable's best level without moving it through every
// level. The span is the sum over the gaps between adjacent levels of the
// edges that cross each. Taken out of the order, a variable leaves the
// gaps of the edges without it as they are, but for its own two gaps
// merged into one; put back at a level, it adds one to the span of every
// edge without it that crosses that gap, and its own edges span from it
// to their other variables. So one pass over the gaps prices every level.
func Sift(h *Hypergraph, start []int) []int {
	n := h.N
	order := slices.Clone(start)
	level := levels(order)
	edgesOf := make([][]int32, n)
	for i, e := range h.Edges {
		for k, v := range e {
			if !slices.Contains(e[:k], v) {
				edgesOf[v] = append(edgesOf[v], int32(i))
			}
		}
	}
	var byDegree []int
	reads := make([]int, n) // the variables of v's edges, repeats and all
	for v, edges := range edgesOf {
		if len(edges) > 0 {
			byDegree = append(byDegree, v)
		}
		for _, i := range edges {
			reads[v] += len(h.Edges[i])
		}
	}
	slices.SortStableFunc(byDegree, func(a, b int) int { return cmp.Compare(len(edgesOf[b]), len(edgesOf[a])) })

	// cut[g] is how many edges cross the gap g between levels g-1 and g
	// (none cross the gaps 0 and n); its sum is the span.
	cut := make([]int32, n+1)
	for _, e := range h.Edges {
		if lo, hi, ok := extent(e, level, -1, -1); ok {
			cut[lo+1]++
			cut[hi+1]--
		}
	}
	for g := 1; g <= n; g++ {
		cut[g] += cut[g-1]
	}

	s := sifter{
		without: make([]int32, n),
		cross:   make([]int32, n+2),
		his:     make([]int32, n),
		los:     make([]int32, n),
	}
	work := 0
	for range siftRounds {
		lowered := false
		for _, v := range byDegree {
			if work += n + 2*reads[v]; work > siftWork {
				return order
			}
			from := level[v]
			to, a, b, better := s.best(h, edgesOf[v], int32(v), from, level, cut)
			if !better {
				continue
			}
			lowered = true
			move(order, level, from, to)
			s.recut(h, edgesOf[v], level, min(a, to), max(b, to), to, cut)
		}
		if !lowered {
			break
		}
	}
	return order
}

// sifter is the scratch space of Sift's moves, a slot a gap or a level.
// Between moves, cross, his and los are zero.
type sifter struct {
	without []int32 // the gaps of the order without the variable moved
	cross   []int32 // the variable's edges' crossings of each gap
	his     []int32 // how many of its edges' other variables end at each level
	los     []int32 // ... and begin at each level, levels counted without it
}

// best returns the level, nearest to from among equals, at which v makes
// the span least, whether that span is less than at from, and the levels
// a..b that v's edges reach. It leaves in s.without the edges without v
// that cross each gap of the order without v: gap j lies above the
// variable at level j of that order.
func (s *sifter) best(h *Hypergraph, edges []int32, v, from int32, level []int32, cut []int32) (to, a, b int32, better bool) {
	n := int32(len(level))
	a, b = s.crossings(h, edges, level, from)
	// At level l, an edge of v spans max(hi+1, l) - min(lo, l) (the
	// levels of its other variables counted without v): from l to l+1
	// those that end above l grow by one and those that begin below l
	// shrink by one.
	var cost int64 // the spans of v's edges with v at level l, from l = 0
	var total int32
	for _, i := range edges {
		if lo, hi, ok := extent(h.Edges[i], level, v, from); ok {
			s.los[lo]++
			s.his[hi]++
			total++
			cost += int64(hi) + 1
		}
	}
	to = from
	var bestCost, fromCost int64 = -1, 0
	var past, upTo int32 // v's edges ending above l; beginning at or above l
	for l := range n {
		g := l
		if l > from {
			g++
		}
		s.without[l] = cut[g] - s.cross[g]
		upTo += s.los[l]
		c := cost + int64(s.without[l])
		if l == from {
			fromCost = c
		}
		if bestCost < 0 || c < bestCost || c == bestCost && abs(l-from) < abs(to-from) {
			to, bestCost = l, c
		}
		cost += int64(past - (total - upTo))
		past += s.his[l]
		s.his[l], s.los[l] = 0, 0
	}
	clear(s.cross[a : b+2])
	return to, a, b, bestCost < fromCost
}

// crossings sets s.cross to how many of edges cross each gap, and returns
// the levels a..b they span, from among them.
func (s *sifter) crossings(h *Hypergraph, edges []int32, level []int32, from int32) (a, b int32) {
	a, b = from, from
	for _, i := range edges {
		if lo, hi, ok := extent(h.Edges[i], level, -1, -1); ok {
			s.cross[lo+1]++
			s.cross[hi+1]--
			a, b = min(a, lo), max(b, hi)
		}
	}
	for g := a + 1; g <= b+1; g++ {
		s.cross[g] += s.cross[g-1]
	}
	return a, b
}

// recut sets cut to the gaps of the order after a variable's move to
// level to, from s.without (left by best) and the variable's edges; only
// the gaps a..b+1, around the levels its move and its edges span, change.
func (s *sifter) recut(h *Hypergraph, edges []int32, level []int32, a, b, to int32, cut []int32) {
	s.crossings(h, edges, level, to)
	for g := a; g <= b+1; g++ {
		w := s.without[min(g, to)]
		if g > to {
			w = s.without[g-1]
		}
		cut[g] = w + s.cross[g]
	}
	clear(s.cross[a : b+2])
}

// extent returns the least and greatest levels of e's variables, and
// whether they differ. With skip >= 0 it leaves skip out and counts the
// levels as if it were out of the order (those below at, its level, one
// less).
func extent(e []int32, level []int32, skip, at int32) (lo, hi int32, ok bool) {
	lo, hi = int32(len(level)), -1
	for _, u := range e {
		if u == skip {
			continue
		}
		l := level[u]
		if skip >= 0 && l > at {
			l--
		}
		lo, hi = min(lo, l), max(hi, l)
	}
	return lo, hi, hi > lo || (skip >= 0 && hi >= 0)
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// move moves the variable at level from to level to, the variables
// between shifting by one level towards from, and updates level.
func move(order []int, level []int32, from, to int32) {
	v := order[from]
	if from < to {
		copy(order[from:to], order[from+1:to+1])
	} else {
		copy(order[to+1:from+1], order[to:from])
	}
	order[to] = v
	for l := min(from, to); l <= max(from, to); l++ {
		level[order[l]] = l
	}
}
