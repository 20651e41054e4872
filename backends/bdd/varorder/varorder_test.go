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

// TestSiftLeavesNoBetterMove: Sift never raises the span, and an order it
// no longer changes is one that no move of a single variable of an edge
// to another level improves, each move tried by brute force. (Moving a
// variable in no edge to an end lowers the span of the edges around it;
// Sift leaves those where they are.)
func TestSiftLeavesNoBetterMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 1 + rng.IntN(25)
		h := randomHypergraph(rng, n, rng.IntN(3*n))
		start := rng.Perm(n)
		order := Sift(h, start)
		if !IsPermutation(order, n) || !IsPermutation(start, n) {
			t.Fatalf("trial %d: Sift gave %v from %v", trial, order, start)
		}
		if got, was := h.Span(order), h.Span(start); got > was {
			t.Fatalf("trial %d: Sift raised the span from %d to %d", trial, was, got)
		}
		for range 100 {
			next := Sift(h, order)
			if h.Span(next) == h.Span(order) {
				break
			}
			order = next
		}
		span := h.Span(order)
		inEdge := make([]bool, n)
		for _, e := range h.Edges {
			for _, v := range e {
				inEdge[v] = true
			}
		}
		for from := range n {
			if !inEdge[order[from]] {
				continue
			}
			for to := range n {
				moved := slices.Clone(order)
				v := moved[from]
				moved = slices.Insert(slices.Delete(moved, from, from+1), to, v)
				if s := h.Span(moved); s < span {
					t.Fatalf("trial %d: Sift settled on %v (span %d), but moving %d to level %d gives %v (span %d)",
						trial, order, span, v, to, moved, s)
				}
			}
		}
	}
}

// TestSiftShortensTheEdgeFORCELeavesLong: variables 0..7 in a chain, and
// variable 8, below them all, in one edge with variable 1 alone. FORCE
// keeps the chain together; sifting moves 8 next to 1, to a span of one
// for its edge and of one more for the chain's edge it splits.
func TestSiftShortensTheEdgeFORCELeavesLong(t *testing.T) {
	h := &Hypergraph{N: 9}
	for i := range 7 {
		h.Edges = append(h.Edges, []int32{int32(i), int32(i + 1)})
	}
	h.Edges = append(h.Edges, []int32{1, 8})
	order := Sift(h, Identity(9))
	if got, want := h.Span(order), int64(7+1+1); got != want {
		t.Errorf("Sift(identity) = %v, span %d, want %d", order, got, want)
	}
	if got := h.Span(Identity(9)); got != 7+7 {
		t.Errorf("the identity's span: %d, want 14", got)
	}
}
