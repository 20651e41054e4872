package robdd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestExtremeSatMatchesBruteForce checks the lightest and the heaviest
// solution against every solution listed, over gathered and whole parts,
// long edges and orders other than the variables' included, weighing one
// a variable true (the fewest and the most variables true) and by random
// weights: the weight is the brute force's extreme, and the assignment a
// solution of that weight.
func TestExtremeSatMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for trial := range 400 {
		m, f, tf := randomCase(t, rng, trial)
		vars := m.Vars()
		random := make(Weights, vars)
		for v := range random {
			random[v] = [2]uint32{rng.Uint32N(4), rng.Uint32N(4)}
		}
		for k := range 5 {
			a := randAssignment(rng, vars)
			if k == 0 {
				a = nil
			}
			b := bruteForce(tf, vars, a)
			for _, w := range []Weights{nil, random} {
				weigh := func(sol []bool) int {
					if w == nil {
						return trues(sol)
					}
					n := 0
					for v, on := range sol {
						n += int(w[v][btoi(on)])
					}
					return n
				}
				lightest, heaviest := math.MaxInt, -1
				for _, sol := range b.sols {
					n := weigh(sol)
					lightest, heaviest = min(lightest, n), max(heaviest, n)
				}
				for _, limit := range []int{0, math.MaxInt} {
					for _, wantMost := range []bool{false, true} {
						name := fmt.Sprintf("trial %d, assignment %v, weights %v, limit %d, most %v", trial, a, w, limit, wantMost)
						p := partWithin(m, f, a, limit)
						sol, weight, ok := p.ExtremeSat(wantMost, w)
						p.Release()
						if ok != (b.count > 0) {
							t.Fatalf("%s: ok = %v with %d solutions", name, ok, b.count)
						}
						if !ok {
							continue
						}
						want := lightest
						if wantMost {
							want = heaviest
						}
						if weight != want || weigh(sol) != want {
							t.Fatalf("%s: %v weighs %d (said %d), want %d", name, sol, weigh(sol), weight, want)
						}
						if !b.seen[solutionIndex(sol)] {
							t.Fatalf("%s: %v is no solution", name, sol)
						}
					}
				}
			}
		}
	}
}

func TestExtremeSatOfTerminals(t *testing.T) {
	m := New(3, 0)
	if sol, ones, ok := m.ExtremeSat(True, nil, true); !ok || ones != 3 || trues(sol) != 3 {
		t.Errorf("most of True over 3 variables: %v, %d, %v; want all three", sol, ones, ok)
	}
	if sol, ones, ok := m.ExtremeSat(True, only(m, 1, 1), false); !ok || ones != 1 || !sol[1] {
		t.Errorf("fewest of True with x1 set: %v, %d, %v; want x1 alone", sol, ones, ok)
	}
	if _, _, ok := m.ExtremeSat(False, nil, false); ok {
		t.Error("False has a solution")
	}
}

// trues counts the variables a solution sets true.
func trues(sol []bool) int {
	n := 0
	for _, v := range sol {
		if v {
			n++
		}
	}
	return n
}
