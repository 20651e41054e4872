package bdd

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestValidDomainsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 400 {
		m, f, tf := randomCase(t, rng, trial)
		for range 5 {
			a := randAssignment(rng, m.Vars())
			if rng.IntN(4) == 0 {
				a = nil
			}
			want := bruteForce(tf, m.Vars(), a).dom
			if b := bruteForce(tf, m.Vars(), a); b.count > 0 {
				// An assigned variable's domain is its value.
				for l, v := range a {
					if v == 0 || v == 1 {
						want[l] = Domain(1 << v)
					}
				}
			}
			if got := m.ValidDomains(f, a); !slices.Equal(got, want) {
				t.Fatalf("trial %d, assignment %v: domains %v, want %v", trial, a, got, want)
			}
		}
	}
}

func TestValidDomainsOverLongEdges(t *testing.T) {
	both := CanBeFalse | CanBeTrue
	m := NewManager(10, 0)
	x0, _ := m.Var(0)
	x9, _ := m.NVar(9)
	f, _ := m.And(x0, x9) // one edge from x0 to x9 skips levels 1..8
	g, _ := m.Or(x0, x9)
	free := m.NewAssignment()
	x5true := m.NewAssignment()
	x5true[5] = 1
	x9true := m.NewAssignment()
	x9true[9] = 1
	x0false := m.NewAssignment()
	x0false[0] = 0
	tests := []struct {
		name string
		f    Node
		a    Assignment
		want []Domain
	}{
		{"x0 and not x9", f, free, []Domain{CanBeTrue, both, both, both, both, both, both, both, both, CanBeFalse}},
		{"x0 and not x9, x5 true", f, x5true, []Domain{CanBeTrue, both, both, both, both, CanBeTrue, both, both, both, CanBeFalse}},
		{"x0 and not x9, x9 true", f, x9true, make([]Domain, 10)},
		{"x0 or not x9", g, free, slices.Repeat([]Domain{both}, 10)},
		{"x0 or not x9, x9 true", g, x9true, []Domain{CanBeTrue, both, both, both, both, both, both, both, both, CanBeTrue}},
		{"x0 or not x9, x0 false", g, x0false, []Domain{CanBeFalse, both, both, both, both, both, both, both, both, CanBeFalse}},
		{"true", True, nil, slices.Repeat([]Domain{both}, 10)},
		{"false", False, nil, make([]Domain, 10)},
	}
	for _, tt := range tests {
		if got := m.ValidDomains(tt.f, tt.a); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
