package configurator

import (
	"math/rand/v2"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// TestUnitPropSound: on random models, under random decisions, every
// literal unit propagation derives from one or two literals holds in every
// configuration that keeps the decisions and those literals (listed by
// brute force), and a conflict it finds leaves no such configuration; the
// literals it derives include the decisions' forced ones it must (a
// feature's parent under the feature).
func TestUnitPropSound(t *testing.T) {
	checked := 0
	for i := range 80 {
		rng := rand.New(rand.NewPCG(7, uint64(i)))
		m, err := uvl.Parse([]byte(featuretest.RandomModel(rng, 1+rng.IntN(9)).UVL(rng)))
		if err != nil {
			t.Fatal(err)
		}
		n := len(m.Features)
		var configs [][]bool
		for x := range 1 << n {
			c := make([]bool, n)
			for f := range c {
				c[f] = x>>f&1 == 1
			}
			if m.Valid(c) {
				configs = append(configs, c)
			}
		}
		if len(configs) == 0 {
			continue // void: unit propagation's start may conflict
		}
		keeps := func(c []bool, lits []feature.Lit) bool {
			for _, l := range lits {
				if c[l.Var()-1] != (l > 0) {
					return false
				}
			}
			return true
		}
		var ds []Decision
		var dl []feature.Lit
		if f := rng.IntN(n); rng.IntN(2) == 0 {
			d := Decision{Feature: f, Select: rng.IntN(2) == 0}
			for _, c := range configs {
				if keeps(c, []feature.Lit{d.Lit()}) {
					ds, dl = []Decision{d}, []feature.Lit{d.Lit()}
					break
				}
			}
		}
		u := newUnitProp(m, ds)
		for range 20 {
			lits := []feature.Lit{feature.FeatureLit(rng.IntN(n), rng.IntN(2) == 0)}
			if rng.IntN(2) == 0 {
				lits = append(lits, feature.FeatureLit(rng.IntN(n), rng.IntN(2) == 0))
			}
			trail, ok := u.implied(lits...)
			var keep [][]bool
			for _, c := range configs {
				if keeps(c, append(dl, lits...)) {
					keep = append(keep, c)
				}
			}
			if !ok {
				if len(keep) > 0 {
					t.Fatalf("model %d under %v: %v conflict, and %d configurations keep them", i, dl, lits, len(keep))
				}
				continue
			}
			for _, l := range trail {
				if l.Var() > n {
					continue
				}
				for _, c := range keep {
					if c[l.Var()-1] != (l > 0) {
						t.Fatalf("model %d under %v: %v imply %d, and configuration %v does not take it", i, dl, lits, l, c)
					}
				}
				checked++
			}
			base := map[int]int8{}
			for _, l := range u.base {
				base[l.Var()] = int8(map[bool]int{true: 1, false: -1}[l > 0])
			}
			for v := 1; v < len(u.value); v++ {
				if u.value[v] != base[v] {
					t.Fatalf("model %d: variable %d is %d after implied, %d under the decisions", i, v, u.value[v], base[v])
				}
			}
		}
		// Under a feature, unit propagation finds its parent selected.
		for f, ft := range m.Features {
			if ft.Parent < 0 {
				continue
			}
			trail, ok := u.implied(feature.FeatureLit(f, true))
			found := false
			for _, l := range trail {
				found = found || l == feature.FeatureLit(ft.Parent, true)
			}
			if ok && !found && u.lit(feature.FeatureLit(ft.Parent, true)) != 1 {
				t.Errorf("model %d: %s selected does not propagate to its parent %s", i, ft.Name, m.Features[ft.Parent].Name)
			}
		}
	}
	if checked < 200 {
		t.Errorf("%d derived literals checked: the test checks little", checked)
	}
}
