package crosscheck_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// validPairs counts the pairs of values of two features free under ds
// that some configuration keeping ds takes, by the oracle's list, and
// checks that the sample takes each.
func checkPairwise(t *testing.T, what string, m *feature.Model, o *oracle.Features, ds []configurator.Decision, p *configurator.Pairwise, pairsChecked *int) {
	t.Helper()
	keep := o.Configurations(odecisions(ds))
	for i, c := range p.Configurations {
		if !o.IsConfiguration(c) {
			t.Fatalf("%s: configuration %d is not one of the model", what, i)
		}
		for _, d := range ds {
			if c[d.Feature] != d.Select {
				t.Fatalf("%s: configuration %d breaks %v", what, i, d)
			}
		}
	}
	a := o.Analyze(odecisions(ds))
	var free []int
	for f := range m.Features {
		decided := false
		for _, d := range ds {
			decided = decided || d.Feature == f
		}
		if !decided && a.On[f] && a.Off[f] {
			free = append(free, f)
		}
	}
	valid := 0
	for x := range free {
		for y := x + 1; y < len(free); y++ {
			for v := range 4 {
				va, vb := v&2 != 0, v&1 != 0
				takes := func(c []bool) bool { return c[free[x]] == va && c[free[y]] == vb }
				ok := false
				for _, c := range keep {
					if ok = takes(c); ok {
						break
					}
				}
				if !ok {
					continue
				}
				valid++
				covered := false
				for _, c := range p.Configurations {
					if covered = takes(c); covered {
						break
					}
				}
				if !covered {
					t.Fatalf("%s: the pair %s=%v, %s=%v is valid, and no configuration of the sample takes it", what, m.Features[free[x]].Name, va, m.Features[free[y]].Name, vb)
				}
			}
		}
	}
	*pairsChecked += valid
	checkNoSpare(t, what, m, free, p.Configurations)
	if !p.Complete || p.Pairs != valid || p.Covered != valid || p.Coverage() != 1 {
		t.Errorf("%s: %d pairs, %d covered, complete %v; want %d, all", what, p.Pairs, p.Covered, p.Complete, valid)
	}
}

// TestPairwiseSample: on random models, under random decisions that some
// configuration keeps, every backend's pairwise sample covers every valid
// pair of the free features (checked against every configuration the
// oracle lists), with configurations of the model that keep the
// decisions; and the BDD's uniform samples are configurations keeping
// them.
func TestPairwiseSample(t *testing.T) {
	models := 40
	if testing.Short() {
		models = 10
	}
	ctx := context.Background()
	bs := modelBackends()
	pairs := 0
	defer func() {
		if pairs < 100 {
			t.Errorf("%d valid pairs checked in all: the test checks little", pairs)
		}
	}()
	for i := range models {
		m := randomModel(t, *seed, i, 12)
		o, err := oracle.NewFeatures(len(m.Features), m.Valid)
		if err != nil {
			t.Fatal(err)
		}
		if o.Count() == 0 {
			continue
		}
		rng := rand.New(rand.NewPCG(*seed, uint64(i)))
		var ds []configurator.Decision
		for _, f := range rng.Perm(len(m.Features))[:rng.IntN(3)] {
			d := configurator.Decision{Feature: f, Select: rng.IntN(2) == 0}
			if o.Consistent(odecisions(append(ds, d))) {
				ds = append(ds, d)
			}
		}
		for _, sub := range compileFeatures(t, m, bs) {
			what := fmt.Sprintf("model %d, %s, %v", i, sub.Name, ds)
			p, err := configurator.PairwiseSample(ctx, sub.Space, ds)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			checkPairwise(t, what, m, o, ds, p, &pairs)
			u, err := configurator.UniformSample(ctx, sub.Space, ds, 5, rng)
			if _, ok := sub.Space.(configurator.FeatureSampler); !ok {
				if err != configurator.ErrNoSampler {
					t.Errorf("%s: uniform without a sampler: %v", what, err)
				}
				continue
			}
			if err != nil || len(u) != 5 {
				t.Fatalf("%s: uniform: %d, %v", what, len(u), err)
			}
			for _, c := range u {
				if !o.IsConfiguration(c) {
					t.Fatalf("%s: a uniform draw is no configuration", what)
				}
			}
		}
	}
}

// checkNoSpare checks that each configuration takes a pair of values of
// two of the features free that no other configuration takes: the sample
// holds no configuration it could do without.
func checkNoSpare(t *testing.T, what string, m *feature.Model, free []int, configs [][]bool) {
	t.Helper()
	count := map[[4]int]int{}
	pairs := func(c []bool, f func([4]int)) {
		for x := range free {
			for y := x + 1; y < len(free); y++ {
				f([4]int{x, y, b2i(c[free[x]]), b2i(c[free[y]])})
			}
		}
	}
	for _, c := range configs {
		pairs(c, func(p [4]int) { count[p]++ })
	}
	for i, c := range configs {
		alone := false
		pairs(c, func(p [4]int) { alone = alone || count[p] == 1 })
		if !alone && len(free) > 1 {
			t.Errorf("%s: every pair configuration %d of %d takes, another takes too", what, i, len(configs))
		}
	}
}

// b2i is 1 for true, 0 for false.
func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// odecisions are decisions in the oracle's terms.
func odecisions(ds []configurator.Decision) []oracle.Decision {
	out := make([]oracle.Decision, len(ds))
	for i, d := range ds {
		out[i] = oracle.Decision{Feature: d.Feature, Select: d.Select}
	}
	return out
}

// TestRealModelsPairwise: on the real models of up to 200 features, the
// BDD's pairwise sample and the SAT backend's each cover every valid pair
// of values of two features, every pair judged by the other backend (an
// independent solver), exhaustively.
func TestRealModelsPairwise(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	files := []string{"uvl/berkeleydb.uvl", "uvl/axtls.uvl", "dimacs/printer.dimacs", "featureide/tankwar.xml", "dimacs/berkeleydb.dimacs"}
	if testing.Short() {
		files = files[:2]
	}
	ctx := context.Background()
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			m := load(t, dir, file)
			if len(m.Features) > 200 {
				t.Fatalf("%d features: more than this test covers exhaustively", len(m.Features))
			}
			subs := compileFeatures(t, m, []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{})})
			for i, sub := range subs {
				judge := subs[1-i].Space
				start := time.Now()
				p, err := configurator.PairwiseSample(ctx, sub.Space, nil)
				if err != nil {
					t.Fatal(err)
				}
				took := time.Since(start)
				for j, c := range p.Configurations {
					if !m.Valid(c) {
						t.Fatalf("%s: configuration %d is not one of the model", sub.Name, j)
					}
				}
				d, err := judge.Domains(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				free := d.In(configurator.Open)
				valid := 0
				for x := range free {
					for y := x + 1; y < len(free); y++ {
						for v := range 4 {
							va, vb := v&2 != 0, v&1 != 0
							covered := slices.ContainsFunc(p.Configurations, func(c []bool) bool { return c[free[x]] == va && c[free[y]] == vb })
							if covered {
								valid++
								continue
							}
							ok, err := judge.Consistent(ctx, []configurator.Decision{{Feature: free[x], Select: va}, {Feature: free[y], Select: vb}})
							if err != nil {
								t.Fatal(err)
							}
							if ok {
								t.Fatalf("%s: the pair %s=%v, %s=%v is valid, and the sample misses it", sub.Name, m.Features[free[x]].Name, va, m.Features[free[y]].Name, vb)
							}
						}
					}
				}
				checkNoSpare(t, sub.Name, m, free, p.Configurations)
				if p.Pairs != valid || p.Coverage() != 1 || !p.Complete {
					t.Errorf("%s: %d pairs said, %d valid", sub.Name, p.Pairs, valid)
				}
				t.Logf("%s: %d features, %d free, %d valid pairs: %d configurations in %v", sub.Name, len(m.Features), len(free), valid, len(p.Configurations), took)
			}
		})
	}
}
