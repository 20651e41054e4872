package configurator

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// fewestHitting is the reference: the first set, by size and then in
// lexicographic order, of the elements of sets that meets every one.
func fewestHitting(sets [][]int) []int {
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
		if hitsAll(set, sets) {
			return slices.Clone(set)
		}
	}
	return nil
}

// randomSets are m random increasing sets of 1 to k of the elements
// 0..n-1.
func randomSets(rng *rand.Rand, n, m, k int) [][]int {
	sets := make([][]int, m)
	for i := range sets {
		size := 1 + rng.IntN(k)
		for range size {
			j := rng.IntN(n)
			if !slices.Contains(sets[i], j) {
				sets[i] = append(sets[i], j)
			}
		}
		slices.Sort(sets[i])
	}
	return sets
}

// hittingSet finds what trying every set by size finds, on instances
// small enough for that.
func TestHittingSetExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 400 {
		n, m, k := 2+rng.IntN(12), 1+rng.IntN(10), 1+rng.IntN(4)
		sets := randomSets(rng, n, m, k)
		got, lower, _, err := hittingSet(context.Background(), sets, hitNodes, nil)
		exact := lower == len(got)
		want := fewestHitting(sets)
		if err != nil || !exact || lower != len(want) || !slices.Equal(got, want) {
			t.Fatalf("trial %d, %v: %v exact %v lower %d, %v; want %v", trial, sets, got, exact, lower, err, want)
		}
	}
}

// A fix that needs sixty of a hundred and twenty choices is found at
// once, exact (its subsets by size are beyond counting); a hard instance
// gets, within the search's budget, a set that meets every set and a
// lower bound on the fewest, said to be inexact.
func TestHittingSetBounded(t *testing.T) {
	var pairs [][]int
	for i := range 60 {
		pairs = append(pairs, []int{2 * i, 2*i + 1})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	got, lower, _, err := hittingSet(ctx, pairs, hitNodes, nil)
	exact := lower == len(got)
	if err != nil || !exact || len(got) != 60 || lower != 60 || got[0] != 0 || got[59] != 118 {
		t.Fatalf("sixty pairs: %v exact %v lower %d, %v", got, exact, lower, err)
	}

	rng := rand.New(rand.NewPCG(3, 4))
	hard := randomSets(rng, 120, 400, 3)
	hard = slices.DeleteFunc(hard, func(s []int) bool { return len(s) < 3 })
	got, lower, _, err = hittingSet(ctx, hard, hitNodes, nil)
	exact = lower == len(got)
	if err != nil || !hitsAll(got, hard) || lower < 1 || lower > len(got) {
		t.Fatalf("a hard instance: %d elements, exact %v, lower %d, %v", len(got), exact, lower, err)
	}
	if exact {
		t.Errorf("a hard instance: said exact after at most %d nodes", hitNodes)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("both took %v, want the search's budget (milliseconds)", took)
	}
}

// split finds a minimal reason inside a set that rules, asking far fewer
// questions than there are choices when the reason is small.
func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 200 {
		n := 1 + rng.IntN(120)
		reasons := randomSets(rng, n, 1+rng.IntN(6), 1+rng.IntN(3))
		asked := 0
		rs := &reasonSearch{n: n, rules: func(_ context.Context, set []int) (bool, []int, error) {
			asked++
			return slices.ContainsFunc(reasons, func(r []int) bool { return subset(r, set) }), nil, nil
		}}
		got, err := rs.split(context.Background(), rs.without(nil))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(reasons, func(r []int) bool { return subset(r, got) }) {
			t.Fatalf("trial %d: %v rules nothing of %v", trial, got, reasons)
		}
		for i := range got {
			less := slices.Delete(slices.Clone(got), i, i+1)
			if slices.ContainsFunc(reasons, func(r []int) bool { return subset(r, less) }) {
				t.Fatalf("trial %d: %v is not minimal (%v rules) among %v", trial, got, less, reasons)
			}
		}
		if n >= 64 && len(got) <= 2 && asked > 32 {
			t.Errorf("trial %d: %d questions for a reason of %d among %d", trial, asked, len(got), n)
		}
	}
}

// triangles are the edges of t disjoint triangles on the elements
// 0..3t-1: a set meets them all when it holds two corners of each
// triangle (one corner leaves the edge between the other two unmet), so
// the fewest has 2t elements, by construction.
func triangles(t int) [][]int {
	var sets [][]int
	for i := range t {
		a, b, c := 3*i, 3*i+1, 3*i+2
		sets = append(sets, []int{a, b}, []int{b, c}, []int{a, c})
	}
	return sets
}

// A search that runs out of its nodes says so (exact false), and the
// size it gives every set meeting them all is a true lower bound: at most
// the fewest, which the instance's construction knows; the set it returns
// meets them all. Where the bound proves the set found, it is exact
// however few the nodes.
func TestHittingSetLowerBound(t *testing.T) {
	if got := fewestHitting(triangles(3)); len(got) != 6 {
		t.Fatalf("three triangles: the fewest set is %v, want 6 elements", got)
	}
	for _, tt := range []struct {
		triangles, budget int
	}{{4, 8}, {10, 100}, {20, 1000}, {20, hitNodes}} {
		sets, fewest := triangles(tt.triangles), 2*tt.triangles
		got, lower, used, err := hittingSet(context.Background(), sets, tt.budget, nil)
		exact := lower == len(got)
		switch {
		case err != nil:
			t.Fatalf("%d triangles: %v", tt.triangles, err)
		case !hitsAll(got, sets):
			t.Errorf("%d triangles: %v misses a set", tt.triangles, got)
		case exact:
			t.Errorf("%d triangles in %d nodes: said exact (%d elements) without the nodes to prove it", tt.triangles, tt.budget, len(got))
		case lower < 1 || lower > fewest || len(got) < fewest:
			t.Errorf("%d triangles: %d elements, at least %d; the fewest has %d", tt.triangles, len(got), lower, fewest)
		case used > tt.budget+1:
			t.Errorf("%d triangles: %d nodes, budget %d", tt.triangles, used, tt.budget)
		}
	}
	var pairs [][]int
	for i := range 60 {
		pairs = append(pairs, []int{2 * i, 2*i + 1})
	}
	if got, lower, _, err := hittingSet(context.Background(), pairs, 1, nil); err != nil || lower != len(got) || lower != 60 || !hitsAll(got, pairs) {
		t.Errorf("sixty pairs in one node: %v lower %d, %v; want a set of 60, proved by the bound", got, lower, err)
	}
}

// The search calls yield as it goes, and stops with yield's error: its
// work takes turns, and gives its turn up (or fails) when told.
func TestHittingSetYields(t *testing.T) {
	sets := triangles(20)
	calls := 0
	_, _, used, err := hittingSet(context.Background(), sets, hitNodes, func() error { calls++; return nil })
	if err != nil || calls < used/256 || calls == 0 {
		t.Fatalf("%d nodes, yield called %d times, %v; want once every 256 nodes", used, calls, err)
	}
	stop := errors.New("stop")
	calls = 0
	_, _, used, err = hittingSet(context.Background(), sets, hitNodes, func() error {
		if calls++; calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 || used > 3*256 {
		t.Fatalf("yield failing at its third call: %d calls, %d nodes, %v; want the search stopped with its error", calls, used, err)
	}
}

// room under a bound it cannot prove within: the reasons are the edges
// of twenty triangles among sixty choices (the fewest set to undo has
// forty), asked of a rules that knows them; room returns a set that frees
// the target and a true lower bound, said (atLeast > 0).
func TestRoomAtLeast(t *testing.T) {
	reasons := triangles(20)
	rs := &reasonSearch{n: 60, rules: func(_ context.Context, set []int) (bool, []int, error) {
		return slices.ContainsFunc(reasons, func(r []int) bool { return subset(r, set) }), nil, nil
	}}
	ctx := context.Background()
	if err := rs.run(ctx); err != nil {
		t.Fatal(err)
	}
	set, atLeast, err := rs.room(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !hitsAll(set, reasons) {
		t.Fatalf("room %v leaves a reason whole", set)
	}
	if atLeast < 1 || atLeast > 40 || len(set) < 40 {
		t.Fatalf("room: %d choices, at least %d; the fewest has 40, and the search cannot prove it in %d nodes", len(set), atLeast, hitNodes)
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
