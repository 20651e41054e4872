package varorder

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomHypergraph draws a hypergraph of n variables and m edges of one to
// five variables, repeats allowed.
func randomHypergraph(rng *rand.Rand, n, m int) *Hypergraph {
	h := &Hypergraph{N: n}
	for range m {
		e := make([]int32, 1+rng.IntN(5))
		for i := range e {
			e[i] = int32(rng.IntN(n))
		}
		h.Edges = append(h.Edges, e)
	}
	return h
}

func TestForceIsAPermutationOfNoMoreSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		h := randomHypergraph(rng, n, rng.IntN(3*n))
		if err := h.Check(); err != nil {
			t.Fatal(err)
		}
		start := rng.Perm(n)
		order := Force(h, start)
		if !IsPermutation(order, n) {
			t.Fatalf("trial %d: Force gave %v, not an order of %d variables", trial, order, n)
		}
		if got, was := h.Span(order), h.Span(start); got > was {
			t.Fatalf("trial %d: Force raised the span from %d to %d", trial, was, got)
		}
		if !IsPermutation(start, n) {
			t.Fatalf("trial %d: Force changed its start", trial)
		}
	}
}

// TestForceUntanglesAChain: the edges {i, i+1} of a chain, its variables
// shuffled, have a span of about n²/3; FORCE brings them down towards the
// chain's n-1 (a local optimum folds it a few times).
func TestForceUntanglesAChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 200
	name := rng.Perm(n) // variable name[i] is the chain's i-th
	h := &Hypergraph{N: n}
	for i := range n - 1 {
		h.Edges = append(h.Edges, []int32{int32(name[i]), int32(name[i+1])})
	}
	start := Identity(n)
	order := Force(h, start)
	if was, got := h.Span(start), h.Span(order); got > was/5 {
		t.Errorf("the shuffled chain: span %d from %d, want a fifth of it at most", got, was)
	}
}

func TestSpan(t *testing.T) {
	h := &Hypergraph{N: 4, Edges: [][]int32{{0, 3}, {1, 2, 1}, {2}, {}}}
	for _, tt := range []struct {
		order []int
		span  int64
	}{
		{[]int{0, 1, 2, 3}, 3 + 1},
		{[]int{0, 3, 1, 2}, 1 + 1},
		{[]int{1, 0, 3, 2}, 1 + 3},
	} {
		if got := h.Span(tt.order); got != tt.span {
			t.Errorf("Span(%v) = %d, want %d", tt.order, got, tt.span)
		}
	}
}

func TestIsPermutation(t *testing.T) {
	for _, tt := range []struct {
		order []int
		n     int
		want  bool
	}{
		{Identity(5), 5, true},
		{[]int{2, 0, 1}, 3, true},
		{[]int{}, 0, true},
		{[]int{0, 0, 1}, 3, false},
		{[]int{0, 1, 3}, 3, false},
		{[]int{-1, 0, 1}, 3, false},
		{[]int{0, 1}, 3, false},
	} {
		if got := IsPermutation(tt.order, tt.n); got != tt.want {
			t.Errorf("IsPermutation(%v, %d) = %v", tt.order, tt.n, got)
		}
	}
	if !slices.Equal(Identity(3), []int{0, 1, 2}) {
		t.Errorf("Identity(3) = %v", Identity(3))
	}
}

func TestCheck(t *testing.T) {
	for _, e := range [][]int32{{3}, {-1}, {0, 4}} {
		h := &Hypergraph{N: 3, Edges: [][]int32{{0, 1}, e}}
		if err := h.Check(); err == nil {
			t.Errorf("Check of an edge %v over 3 variables: no error", e)
		}
	}
}
