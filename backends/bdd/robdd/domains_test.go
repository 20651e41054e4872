package robdd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestValidDomainsMatchBruteForce(t *testing.T) {
	randomCases{seed: 7, trials: 400, perCase: 5, nilOneIn: 4}.run(t, func(trial int, m *Manager, f Node, tf table, a Assignment) {
		want := bruteForce(tf, m.Vars(), a).domains(a)
		if got, _ := m.ValidDomains(f, a); !slices.Equal(got, want) {
			t.Fatalf("trial %d, assignment %v: domains %v, want %v", trial, a, got, want)
		}
	})
}

func TestValidDomainsOverLongEdges(t *testing.T) {
	both := CanBeFalse | CanBeTrue
	m := New(10, 0)
	x0, _ := m.Var(0)
	x9, _ := m.NVar(9)
	f, _ := m.And(ctx, x0, x9) // one edge from x0 to x9 skips levels 1..8
	g, _ := m.Or(ctx, x0, x9)
	free := m.NewAssignment()
	tests := []struct {
		name string
		f    Node
		a    Assignment
		want []Domain
	}{
		{"x0 and not x9", f, free, []Domain{CanBeTrue, both, both, both, both, both, both, both, both, CanBeFalse}},
		{"x0 and not x9, x5 true", f, only(m, 5, 1), []Domain{CanBeTrue, both, both, both, both, CanBeTrue, both, both, both, CanBeFalse}},
		{"x0 and not x9, x9 true", f, only(m, 9, 1), make([]Domain, 10)},
		{"x0 or not x9", g, free, slices.Repeat([]Domain{both}, 10)},
		{"x0 or not x9, x9 true", g, only(m, 9, 1), []Domain{CanBeTrue, both, both, both, both, both, both, both, both, CanBeTrue}},
		{"x0 or not x9, x0 false", g, only(m, 0, 0), []Domain{CanBeFalse, both, both, both, both, both, both, both, both, CanBeFalse}},
		{"true", True, nil, slices.Repeat([]Domain{both}, 10)},
		{"false", False, nil, make([]Domain, 10)},
	}
	for _, tt := range tests {
		if got, _ := m.ValidDomains(tt.f, tt.a); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSparseSweepsMatchBruteForce runs the sweeps of ValidDomains and
// Marginals both ways, over the whole diagram (limit 0) and over only the
// part an assignment allows (no limit), on random formulas with long edges
// and random partial assignments, many of them unsatisfiable, and checks
// both against enumeration.
func TestSparseSweepsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 400 {
		m, f, tf := randomCase(t, rng, trial)
		vars := m.Vars()
		for k := range 6 {
			a := randAssignment(rng, vars)
			if k == 0 { // every level assigned: one point, often no solution
				for l := range a {
					a[l] = int8(rng.IntN(2))
				}
			}
			b := bruteForce(tf, vars, a)
			want := b.domains(a)
			for _, limit := range []int{0, math.MaxInt} {
				name := fmt.Sprintf("trial %d, assignment %v, limit %d", trial, a, limit)
				p := partWithin(m, f, a, limit)
				dom, total := p.ValidDomains()
				if !slices.Equal(dom, want) {
					t.Fatalf("%s: domains %v, want %v", name, dom, want)
				}
				if total.Int64() != int64(b.count) {
					t.Fatalf("%s: count %v, want %d", name, total, b.count)
				}
				ones, total := p.Marginals()
				p.Release()
				checkMarginals(t, name, ones, total, b)
			}
		}
	}
}

// partWithin is f's Part under a as the query methods take it, gathered up
// to limit nodes and whole past them.
func partWithin(m *Manager, f Node, a Assignment, limit int) *Part {
	if p, ok := m.Part(f, a, limit); ok {
		return p
	}
	return m.Whole(f, a)
}

// TestPart checks the part of the diagram Part gathers: the nodes the root
// reaches along the edges an assignment allows, children first, with its
// edges renumbered and the forbidden ones led to False, and that it gives
// up past its limit, with the same work space reused query after query.
func TestPart(t *testing.T) {
	m := New(4, 0)
	x := make([]Node, 4)
	for l := range x {
		x[l], _ = m.Var(l)
	}
	// f = (x0 ∧ x1) ∨ (¬x0 ∧ x2 ∧ x3): the hi branch of x0 tests x1 only.
	a01, _ := m.And(ctx, x[0], x[1])
	a23, _ := m.And(ctx, x[2], x[3])
	nx0, _ := m.Not(ctx, x[0])
	b, _ := m.And(ctx, nx0, a23)
	f, _ := m.Or(ctx, a01, b)
	tests := []struct {
		name  string
		a     Assignment
		limit int
		ok    bool
		want  []int // levels of the collected nodes, in order
	}{
		{"x0 true", only(m, 0, 1), 10, true, []int{1, 0}},
		{"x0 false", only(m, 0, 0), 10, true, []int{3, 2, 0}},
		{"x0 false, limit 2", only(m, 0, 0), 2, false, nil},
		{"nothing assigned", m.NewAssignment(), 10, false, nil},
	}
	for round := range 2 {
		for _, tt := range tests {
			p, ok := m.Part(f, tt.a, tt.limit)
			if ok != tt.ok {
				t.Fatalf("%s, round %d: Part = %v, want %v", tt.name, round, ok, tt.ok)
			}
			if !ok {
				continue
			}
			var levels []int
			for i, n := range p.nodes[2:] {
				levels = append(levels, int(n.level))
				// Children first; a forbidden edge leads to False.
				for _, c := range []uint32{n.lo, n.hi} {
					if c >= uint32(i+2) {
						t.Errorf("%s: node %d has child %d, not before it", tt.name, i+2, c)
					}
				}
				x := tt.a[n.level]
				if x == 1 && n.lo != uint32(False) || x == 0 && n.hi != uint32(False) {
					t.Errorf("%s: node %d at level %d keeps its forbidden edge (%d, %d)", tt.name, i+2, n.level, n.lo, n.hi)
				}
			}
			if !slices.Equal(levels, tt.want) {
				t.Errorf("%s, round %d: levels %v, want %v", tt.name, round, levels, tt.want)
			}
			if p.Visited() != len(tt.want) {
				t.Errorf("%s: Visited = %d, want %d", tt.name, p.Visited(), len(tt.want))
			}
			p.Release()
		}
	}
}
