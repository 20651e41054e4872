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
