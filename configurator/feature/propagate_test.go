package feature

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// cnfModel returns the model of a CNF file with the given clauses over
// vars features, and its CNF.
func cnfModel(t *testing.T, vars int, clauses [][]int) (*Model, *CNF) {
	t.Helper()
	parts := Model{Format: DIMACS, Root: -1}
	for v := range vars {
		parts.Features = append(parts.Features, Feature{Name: fmt.Sprintf("x%d", v+1), Parent: -1, Group: -1})
	}
	for i, c := range clauses {
		cl := Clause{Line: i + 1}
		for _, l := range c {
			cl.Lits = append(cl.Lits, Lit(l))
		}
		parts.Clauses = append(parts.Clauses, cl)
	}
	m, err := New(parts)
	if err != nil {
		t.Fatal(err)
	}
	return m, m.CNF()
}

// extends reports whether some model of the clauses makes every literal
// of lits true, by brute force over vars variables.
func extends(clauses [][]int, vars int, lits []Lit) bool {
	config := make([]bool, vars)
	for bits := range 1 << vars {
		for i := range config {
			config[i] = bits>>i&1 == 1
		}
		ok := featuretest.Satisfies(clauses, config)
		for _, l := range lits {
			ok = ok && config[l.Var()-1] == (l > 0)
		}
		if ok {
			return true
		}
	}
	return false
}

// The propagator is sound and its proofs are proofs: on random CNFs under
// random assumptions, every literal it sets holds in every model keeping
// the assumptions; a conflict means no model keeps them, and the clauses
// of its proof alone, propagated from the same assumptions, reach a
// conflict too, each line setting the literal it says. Undo takes back
// exactly what was set since the mark.
func TestPropagator(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	conflicts, sets := 0, 0
	for range 400 {
		vars := 1 + rng.IntN(8)
		_, clauses := featuretest.RandomCNF(rng, vars, rng.IntN(3*vars+1))
		_, c := cnfModel(t, vars, clauses)
		p := NewPropagator(c)
		var lits []Lit
		for v := 1; v <= vars; v++ {
			if rng.IntN(3) == 0 {
				l := Lit(v)
				if rng.IntN(2) == 0 {
					l = -l
				}
				lits = append(lits, l)
			}
		}
		ok := p.Assume(lits...)
		if !ok {
			conflicts++
			if extends(clauses, vars, lits) {
				t.Fatalf("%v under %v: a conflict, but a model keeps them", clauses, lits)
			}
			proof := p.Proof()
			if len(proof) == 0 || proof[len(proof)-1].Lit != 0 {
				t.Fatalf("%v under %v: the proof %v does not end in a conflict", clauses, lits, proof)
			}
			var sub [][]int
			for _, st := range proof {
				var cl []int
				for _, l := range c.Clause(st.Clause) {
					cl = append(cl, int(l))
				}
				sub = append(sub, cl)
			}
			_, sc := cnfModel(t, vars, sub)
			q := NewPropagator(sc)
			if q.Assume(lits...) {
				t.Fatalf("%v under %v: the proof's clauses %v alone reach no conflict", clauses, lits, sub)
			}
			for _, st := range proof[:len(proof)-1] {
				if q.Value(st.Lit) != 1 {
					t.Fatalf("%v under %v: the proof says clause %d sets %d; replayed it does not", clauses, lits, st.Clause, st.Lit)
				}
			}
			continue
		}
		for v := 1; v <= vars; v++ {
			for _, l := range []Lit{Lit(v), -Lit(v)} {
				if p.Value(l) == 1 {
					sets++
					if extends(clauses, vars, append(slices.Clone(lits), -l)) {
						t.Fatalf("%v under %v: propagation sets %d, but a model keeps them without it", clauses, lits, l)
					}
				}
			}
		}
		mark := p.Mark()
		before := slices.Clone(p.val)
		p.Assume(Lit(1 + rng.IntN(vars)))
		p.Undo(mark)
		if !slices.Equal(before, p.val) || p.conflict >= 0 {
			t.Fatalf("%v under %v: Undo left %v, want %v", clauses, lits, p.val, before)
		}
	}
	if conflicts < 40 || sets < 200 {
		t.Errorf("%d conflicts and %d literals set in 400 CNFs: the test draws too few of either", conflicts, sets)
	}
}

// A proof tells a chain in the model's order: a → b, b → c, and the
// assumption ¬c with a refute a by two lines and the conflict.
func TestPropagatorChain(t *testing.T) {
	_, c := cnfModel(t, 3, [][]int{{-1, 2}, {-2, 3}, {1, 2, 3}})
	p := NewPropagator(c)
	if p.Assume(1, -3) {
		t.Fatal("a, ¬c and a → b → c: no conflict")
	}
	want := []Step{{Clause: 0, Lit: 2}, {Clause: 1}}
	if got := p.Proof(); !slices.Equal(got, want) {
		t.Errorf("proof %v, want %v", got, want)
	}
	p.Undo(0)
	if !p.Assume(1) || p.Value(3) != 1 || p.Proof() != nil {
		t.Errorf("after Undo, a alone: c is %d, want 1 and no proof", p.Value(3))
	}
	p.Undo(0)
	if p.Assume(-3, 3) || p.Proof() != nil {
		t.Error("c and ¬c assumed: want a conflict without a proof")
	}
	// An assumption that the clauses made false already: the clause that
	// did is the conflict.
	_, c = cnfModel(t, 2, [][]int{{-1}, {1, -2}})
	p = NewPropagator(c)
	want = []Step{{Clause: 0, Lit: -1}, {Clause: 1}}
	if p.Assume(2) || !slices.Equal(p.Proof(), want) {
		t.Errorf("¬a, a ∨ ¬b, and b assumed: proof %v, want %v", p.Proof(), want)
	}
}
