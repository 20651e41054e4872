package crosscheck_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// bruteFacts are the facts of m by its configurations, listed by the
// oracle (feature.Model.Valid over every assignment).
func bruteFacts(t *testing.T, m *feature.Model) *configurator.Facts {
	t.Helper()
	o, err := oracle.NewFeatures(len(m.Features), m.Valid)
	if err != nil {
		t.Fatal(err)
	}
	configs := o.Configurations(nil)
	n := len(m.Features)
	on := make([]int, n)
	for _, c := range configs {
		for f, v := range c {
			if v {
				on[f]++
			}
		}
	}
	facts := &configurator.Facts{}
	for f := range n {
		switch on[f] {
		case len(configs):
			if len(configs) > 0 {
				facts.Core = append(facts.Core, f)
			} else {
				facts.Dead = append(facts.Dead, f)
			}
		case 0:
			facts.Dead = append(facts.Dead, f)
		}
	}
	dead := func(f int) bool { return slices.Contains(facts.Dead, f) }
	for f, ft := range m.Features {
		if ft.Parent < 0 || m.Groups[ft.Group].Kind == feature.GroupMandatory || dead(f) || dead(ft.Parent) {
			continue
		}
		if !slices.ContainsFunc(configs, func(c []bool) bool { return c[ft.Parent] && !c[f] }) {
			facts.FalseOptional = append(facts.FalseOptional, f)
		}
	}
	if len(facts.Core) > 1 {
		facts.AtomicSets = append(facts.AtomicSets, facts.Core)
	}
	column := func(f int) string {
		b := make([]byte, len(configs))
		for i, c := range configs {
			if c[f] {
				b[i] = '1'
			} else {
				b[i] = '0'
			}
		}
		return string(b)
	}
	classes := map[string][]int{}
	var keys []string
	for f := range n {
		if dead(f) || slices.Contains(facts.Core, f) {
			continue
		}
		k := column(f)
		if _, ok := classes[k]; !ok {
			keys = append(keys, k)
		}
		classes[k] = append(classes[k], f)
	}
	for _, k := range keys {
		if len(classes[k]) > 1 {
			facts.AtomicSets = append(facts.AtomicSets, classes[k])
		}
	}
	slices.SortFunc(facts.AtomicSets, func(a, b []int) int { return a[0] - b[0] })
	return facts
}

// checkFacts compares a backend's facts with the brute force's.
func checkFacts(t *testing.T, what string, m *feature.Model, got, want *configurator.Facts, count int) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want []int
	}{{"core", got.Core, want.Core}, {"dead", got.Dead, want.Dead}, {"false-optional", got.FalseOptional, want.FalseOptional}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %s %v, want %v", what, c.name, c.got, c.want)
		}
	}
	if !slices.EqualFunc(got.AtomicSets, want.AtomicSets, slices.Equal) {
		t.Errorf("%s: atomic sets %v, want %v", what, got.AtomicSets, want.AtomicSets)
	}
	if got.Configurations != nil && got.Configurations.Int64() != int64(count) {
		t.Errorf("%s: %v configurations, want %d", what, got.Configurations, count)
	}
	if got.Selecting != nil {
		o, _ := oracle.NewFeatures(len(m.Features), m.Valid)
		for f := range m.Features {
			if w := len(o.Configurations([]oracle.Decision{{Feature: f, Select: true}})); got.Selecting[f].Int64() != int64(w) {
				t.Errorf("%s: %d configurations select %q, want %d", what, got.Selecting[f].Int64(), m.Features[f].Name, w)
			}
		}
	}
}

// TestModelFacts: on random feature models and CNF files (and a model
// without configurations), every backend's facts are the brute force's:
// core, dead, false-optional features, atomic sets, and the counts where
// the backend counts; the BDD counts them all.
func TestModelFacts(t *testing.T) {
	models := 120
	if testing.Short() {
		models = 15
	}
	ctx := context.Background()
	bs := modelBackends()
	sets, falseOpt, void := 0, 0, 0
	for i := range models {
		m := randomModel(t, *seed, i, 10)
		if i == 0 {
			var err error
			if m, err = dimacs.Parse([]byte("p cnf 3 2\n1 0\n-1 0\n")); err != nil {
				t.Fatal(err)
			}
		}
		want := bruteFacts(t, m)
		o, _ := oracle.NewFeatures(len(m.Features), m.Valid)
		for _, sub := range compileFeatures(t, m, bs) {
			got, err := configurator.ModelFacts(ctx, sub.Space)
			if err != nil {
				t.Fatalf("model %d, %s: %v", i, sub.Name, err)
			}
			checkFacts(t, fmt.Sprintf("model %d, %s", i, sub.Name), m, got, want, o.Count())
			if sub.Name == "bdd" && (got.Configurations == nil || o.Count() > 0 && got.Selecting == nil) {
				t.Errorf("model %d: the BDD did not count", i)
			}
		}
		if o.Count() == 0 {
			void++
		}
		sets += len(want.AtomicSets)
		falseOpt += len(want.FalseOptional)
	}
	t.Logf("%d models, %d without configurations: %d atomic sets, %d false-optional features", models, void, sets, falseOpt)
	if sets == 0 || falseOpt == 0 || void > models/2 {
		t.Errorf("%d atomic sets and %d false-optional features in all the models: the test checks little", sets, falseOpt)
	}
}

// TestRealModelsFacts: on real models the BDD compiles, the BDD's facts
// and the SAT backend's (an independent solver) are the same, and the
// BDD's shares add up: the configurations selecting a core feature are
// all of them.
func TestRealModelsFacts(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	files := []string{"uvl/berkeleydb.uvl", "uvl/axtls.uvl", "dimacs/printer.dimacs", "featureide/tankwar.xml", "featureide/pc-richmond.xml"}
	if testing.Short() {
		files = files[:2]
	}
	ctx := context.Background()
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			m := load(t, dir, file)
			subs := compileFeatures(t, m, []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{})})
			start := time.Now()
			ref, err := configurator.ModelFacts(ctx, subs[0].Space)
			if err != nil {
				t.Fatal(err)
			}
			bddTook := time.Since(start)
			start = time.Now()
			got, err := configurator.ModelFacts(ctx, subs[1].Space)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d features: %d core, %d dead, %d false-optional, %d atomic sets; bdd %v, sat %v", len(m.Features), len(ref.Core), len(ref.Dead), len(ref.FalseOptional), len(ref.AtomicSets), bddTook, time.Since(start))
			for _, c := range []struct {
				name      string
				got, want []int
			}{{"core", got.Core, ref.Core}, {"dead", got.Dead, ref.Dead}, {"false-optional", got.FalseOptional, ref.FalseOptional}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s: sat %v, bdd %v", c.name, c.got, c.want)
				}
			}
			if !slices.EqualFunc(got.AtomicSets, ref.AtomicSets, slices.Equal) {
				t.Errorf("atomic sets: sat %v, bdd %v", got.AtomicSets, ref.AtomicSets)
			}
			for _, f := range ref.Core {
				if ref.Selecting[f].Cmp(ref.Configurations) != 0 {
					t.Errorf("core %q: %v of %v configurations select it", m.Features[f].Name, ref.Selecting[f], ref.Configurations)
				}
			}
		})
	}
}
