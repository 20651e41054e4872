package robdd

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestAnySat(t *testing.T) {
	randomCases{seed: 8, trials: 300, perCase: 5, nilOneIn: 4}.run(t, func(trial int, m *Manager, f Node, tf table, a Assignment) {
		b := bruteForce(tf, m.Vars(), a)
		sol, ok := m.AnySat(f, a)
		if ok != (b.count > 0) {
			t.Fatalf("trial %d, %v: AnySat ok = %v with %d solutions", trial, a, ok, b.count)
		}
		if ok && !b.seen[solutionIndex(sol)] {
			t.Fatalf("trial %d, %v: AnySat gave %v, not a solution", trial, a, sol)
		}
	})
}

func TestSolutionsEnumeratesExactlyTheSolutions(t *testing.T) {
	randomCases{seed: 9, trials: 300, perCase: 3, nilOneIn: 3}.run(t, func(trial int, m *Manager, f Node, tf table, a Assignment) {
		want := bruteForce(tf, m.Vars(), a).sols
		// Solutions go in the lexicographic order of the levels.
		order := m.Order()
		slices.SortFunc(want, func(x, y []bool) int {
			return compareSolutions(permuted(x, order), permuted(y, order))
		})
		got := slices.Collect(m.Solutions(f, a))
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("trial %d, %v: Solutions gave %d, brute force %d (or another order)", trial, a, len(got), len(want))
		}
	})
	// Breaking out early stops the enumeration.
	m := New(20, 0)
	var n int
	for range m.Solutions(True, nil) {
		if n++; n == 3 {
			break
		}
	}
	if n != 3 {
		t.Errorf("break after 3 of 2^20 solutions: %d", n)
	}
}

// chiSquare is Pearson's statistic of counts against a uniform
// distribution over their keys.
func chiSquare(counts map[int]int, draws int) float64 {
	expected := float64(draws) / float64(len(counts))
	var chi float64
	for _, c := range counts {
		d := float64(c) - expected
		chi += d * d / expected
	}
	return chi
}

func TestRandomSatIsUniform(t *testing.T) {
	// x0 or (x3 and not x7) over 8 variables: 128 + 32 = 160 solutions,
	// through long edges. Under x5 = 1: 80.
	m := New(8, 0)
	x0, _ := m.Var(0)
	x3, _ := m.Var(3)
	n7, _ := m.NVar(7)
	g, _ := m.And(ctx, x3, n7)
	f, _ := m.Or(ctx, x0, g)
	tf := tableOf(m, f)
	a := only(m, 5, 1)
	type sampler func(rng *rand.Rand, a Assignment) ([]bool, bool)
	tests := []struct {
		name   string
		a      Assignment
		sample sampler
	}{
		{"uint64", nil, func(rng *rand.Rand, a Assignment) ([]bool, bool) { return m.RandomSat(f, a, rng) }},
		{"uint64, x5 true", a, func(rng *rand.Rand, a Assignment) ([]bool, bool) { return m.RandomSat(f, a, rng) }},
		{"big", nil, func(rng *rand.Rand, a Assignment) ([]bool, bool) {
			p := m.part(f, a)
			defer p.Release()
			return p.randomSat(rng, 0)
		}},
		{"big, x5 true", a, func(rng *rand.Rand, a Assignment) ([]bool, bool) {
			p := m.part(f, a)
			defer p.Release()
			return p.randomSat(rng, 0)
		}},
	}
	for _, tt := range tests {
		b := bruteForce(tf, 8, tt.a)
		rng := rand.New(rand.NewPCG(10, 10))
		draws := 100 * b.count
		counts := make(map[int]int)
		for x := range b.seen {
			counts[x] = 0
		}
		for range draws {
			sol, ok := tt.sample(rng, tt.a)
			x := solutionIndex(sol)
			if !ok || !b.seen[x] {
				t.Fatalf("%s: drew %v, not a solution", tt.name, sol)
			}
			counts[x]++
		}
		for x, c := range counts {
			if c == 0 {
				t.Errorf("%s: solution %b never drawn in %d draws", tt.name, x, draws)
			}
		}
		// 99.9% quantile of chi-square with k-1 degrees of freedom, by the
		// Wilson–Hilferty approximation: about 231 for 159, 126 for 79.
		limit := map[int]float64{160: 231, 80: 126}[b.count]
		if chi := chiSquare(counts, draws); chi > limit {
			t.Errorf("%s: chi-square %.1f over %d solutions, limit %.0f", tt.name, chi, b.count, limit)
		}
	}
	if _, ok := m.RandomSat(False, nil, rand.New(rand.NewPCG(1, 1))); ok {
		t.Error("RandomSat(False) found a solution")
	}
}

func TestRandomSatMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 300 {
		m, f, tf := randomCase(t, rng, trial)
		a := randAssignment(rng, m.Vars())
		b := bruteForce(tf, m.Vars(), a)
		sol, ok := m.RandomSat(f, a, rng)
		if ok != (b.count > 0) || ok && !b.seen[solutionIndex(sol)] {
			t.Fatalf("trial %d, %v: RandomSat = %v, %v with %d solutions", trial, a, sol, ok, b.count)
		}
	}
	// Beyond 64 bits of solutions the draw goes through math/big.
	m := New(100, 0)
	x, _ := m.Var(40)
	sol, ok := m.RandomSat(x, nil, rng)
	if !ok || !sol[40] {
		t.Fatalf("RandomSat(x40) over 100 variables: %v, %v", sol, ok)
	}
	if big := randBelow(rng, m.SatCount(x)); big.Sign() < 0 || big.Cmp(m.SatCount(x)) >= 0 {
		t.Errorf("randBelow(2^99) = %v", big)
	}
}

// TestAnySatWithin checks that the bounded search gives AnySat's answer
// when its limit lets it finish, and gives up past it: on x0 ∧ ... ∧ x9 a
// solution is ten nodes deep, and under x9 = 0 the search meets every
// node before it knows there is none.
func TestAnySatWithin(t *testing.T) {
	m := New(10, 0)
	f := True
	for l := 9; l >= 0; l-- {
		x, _ := m.Var(l)
		f, _ = m.And(ctx, x, f)
	}
	tests := []struct {
		name        string
		a           Assignment
		limit       int
		found, done bool
	}{
		{"no limit", nil, 0, true, true},
		{"limit of the path", nil, 10, true, true},
		{"one node short", nil, 9, false, false},
		{"x9 false, no limit", only(m, 9, 0), 0, false, true},
		{"x9 false, every node", only(m, 9, 0), 10, false, true},
		{"x9 false, one node short", only(m, 9, 0), 9, false, false},
	}
	for _, tt := range tests {
		x, found, done := m.AnySatWithin(f, tt.a, tt.limit)
		if found != tt.found || done != tt.done {
			t.Errorf("%s: found %v, done %v; want %v, %v", tt.name, found, done, tt.found, tt.done)
		}
		if found && !slices.Equal(x, slices.Repeat([]bool{true}, 10)) {
			t.Errorf("%s: solution %v, want all true", tt.name, x)
		}
	}
	if got := m.AnySatBytes(1000); got < 16*1000 {
		t.Errorf("AnySatBytes(1000) = %d, less than the memo's two 8-byte slots a node", got)
	}
}

// permuted is x in the given order: x[order[0]], x[order[1]], ...
func permuted(x []bool, order []int) []bool {
	out := make([]bool, len(x))
	for l, v := range order {
		out[l] = x[v]
	}
	return out
}
