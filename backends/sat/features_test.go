package sat

import (
	"context"
	"errors"
	"fmt"
	"github.com/crillab/gophersat/solver"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// loadUVL reads a real UVL model.
func loadUVL(t testing.TB, dir, file string) *feature.Model {
	t.Helper()
	m, err := uvl.Load(os.DirFS(dir), file)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The valid domains of the empty configuration of every real UVL model are
// the backbones an independent translation and CryptoMiniSat found
// (shared/README.md: forced on / forced off), and the backbone method
// finds them with tens of solver calls, not one or two per feature.
func TestRealModelBackbones(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	for _, tc := range []struct {
		file    string
		on, off int
	}{
		{"uvl/berkeleydb.uvl", 1, 0},
		{"uvl/axtls.uvl", 24, 11},
		{"uvl/uclibc.uvl", 44, 31},
		{"uvl/busybox-2007-05-20.uvl", 6, 0},
		{"uvl/ecos-xsengine.uvl", 6, 42},
		{"uvl/financialservices-2017-05-22.uvl", 29, 0},
		{"uvl/automotive01.uvl", 94, 185},
		{"uvl/dopler-asej1.uvl", 1, 0},
	} {
		m := loadUVL(t, dir, tc.file)
		sp, err := New(Options{ModelCountCap: 1}).CompileModel(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		d, err := sp.Domains(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		on, off := len(d.In(configurator.ForcedOn)), len(d.In(configurator.ForcedOff))
		if on != tc.on || off != tc.off {
			t.Errorf("%s: %d forced on, %d forced off; want %d and %d", tc.file, on, off, tc.on, tc.off)
		}
		calls := d.Work.SolverCalls
		if len(m.Features) <= featureCountMax {
			calls -= 2 // the count, capped at one: a call for it and one past it
		}
		if calls > 50 {
			t.Errorf("%s: %d solver calls for %d features, want tens at most", tc.file, calls, len(m.Features))
		}
		if sum := d.Work.ByPropagation + d.Work.ByWitness + d.Work.BySolver; sum != len(m.Features) {
			t.Errorf("%s: Work accounts for %d features of %d", tc.file, sum, len(m.Features))
		}
		t.Logf("%-40s %5d features: %3d on, %3d off, %3d solver calls", tc.file, len(m.Features), on, off, d.Work.SolverCalls)
	}
}

// featureCountMax is the largest model the skeleton counts.
const featureCountMax = 200

// optionals is a root with n optional children: 2^n configurations of
// n+1 features.
func optionals(t testing.TB, n int) *feature.Model {
	t.Helper()
	var b strings.Builder
	b.WriteString("features\n\tRoot\n\t\toptional\n")
	for i := range n {
		fmt.Fprintf(&b, "\t\t\tF%d\n", i)
	}
	m, err := uvl.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The count of configurations is exact up to the cap, "at least" the cap
// beyond it, and absent on models too large to count.
func TestModelCount(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		n, cap  int
		want    int64 // -1: not counted
		atLeast bool
	}{
		{10, 2000, 512, false},
		{10, 512, 512, false},
		{10, 511, 511, true},
		{featureCountMax, 10, 10, true},
		{featureCountMax, 0, 1000, true},
		{featureCountMax + 1, 10, -1, false},
	} {
		sp, err := New(Options{ModelCountCap: tc.cap}).CompileModel(ctx, optionals(t, tc.n-1))
		if err != nil {
			t.Fatal(err)
		}
		d, err := sp.Domains(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want < 0 && d.Configurations != nil:
			t.Errorf("%d features: counted %v, want not counted", tc.n, d.Configurations)
		case tc.want >= 0 && (d.Configurations == nil || d.Configurations.Int64() != tc.want || d.AtLeast != tc.atLeast):
			t.Errorf("%d features, cap %d: %v (at least %v), want %d (at least %v)", tc.n, tc.cap, d.Configurations, d.AtLeast, tc.want, tc.atLeast)
		}
	}
}

// A count past the backend's ModelCountTime says "at least" what it
// reached (never less than the one configuration the domains found), and
// one within it is exact.
func TestModelCountTime(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		bound   time.Duration
		want    int64
		atLeast bool
	}{
		{0, 512, false},
		{time.Hour, 512, false},
		{time.Nanosecond, 1, true},
	} {
		sp, err := New(Options{ModelCountTime: tc.bound}).CompileModel(ctx, optionals(t, 9))
		if err != nil {
			t.Fatal(err)
		}
		d, err := sp.Domains(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Configurations == nil || d.Configurations.Int64() != tc.want || d.AtLeast != tc.atLeast {
			t.Errorf("bound %v: %v (at least %v), want %d (at least %v)", tc.bound, d.Configurations, d.AtLeast, tc.want, tc.atLeast)
		}
	}
}

// A question honours its context: one ended before it starts, or whose
// deadline passes, returns the context's error, and the space answers the
// next question.
func TestModelContext(t *testing.T) {
	m := optionals(t, 30)
	sp, err := New(Options{}).CompileModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sp.Domains(ended, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Domains with an ended context: %v", err)
	}
	if _, err := New(Options{}).CompileModel(ended, m); !errors.Is(err, context.Canceled) {
		t.Errorf("CompileModel with an ended context: %v", err)
	}
	if _, err := sp.Configuration(ended, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Configuration with an ended context: %v", err)
	}
	if d, err := sp.Domains(context.Background(), nil); err != nil || len(d.In(configurator.Open)) != 30 {
		t.Errorf("the next question: %v", err)
	}
}

// Many questions at once on one space (run with -race) get the answers
// they get one at a time.
func TestModelConcurrent(t *testing.T) {
	m, err := uvl.Parse([]byte(kernelModel))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(Options{}).CompileModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var lists [][]configurator.Decision
	var wants []string
	for range 40 {
		var ds []configurator.Decision
		for f := range m.Features {
			if rng.IntN(4) == 0 {
				ds = append(ds, configurator.Decision{Feature: f, Select: rng.IntN(2) == 0})
			}
		}
		d, err := sp.Domains(context.Background(), ds)
		want := fmt.Sprint(err)
		if err == nil {
			want = fmt.Sprint(d.States, d.Configurations)
		}
		lists, wants = append(lists, ds), append(wants, want)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range lists {
				i := (k + g*7) % len(lists)
				d, err := sp.Domains(context.Background(), lists[i])
				got := fmt.Sprint(err)
				if err == nil {
					got = fmt.Sprint(d.States, d.Configurations)
				}
				if got != wants[i] && !(err != nil && errors.Is(err, configurator.ErrNoSolution) && strings.Contains(wants[i], "no solution")) {
					t.Errorf("goroutine %d, decisions %v: %s, want %s", g, lists[i], got, wants[i])
				}
			}
		})
	}
	wg.Wait()
}

// kernelModel is a small model for the tests of this file.
const kernelModel = `features
	Kernel
		mandatory
			Arch
				alternative
					Linux
					Bare
		optional
			MMU
			NOMMU
			Debug
			Trace
				or
					Ftrace
					Kprobes
constraints
	Linux => MMU
	MMU => !NOMMU
	Kprobes => Debug
`

// A feature model's space is admitted like a board's: it is an Admitter
// whose Admit takes a request's slot, and it finds the parts of the model
// that refute decisions (configurator.FeatureCorer).
func TestModelFacets(t *testing.T) {
	m, err := uvl.Parse([]byte(kernelModel))
	if err != nil {
		t.Fatal(err)
	}
	b := New(Options{Serve: 1})
	sp, err := b.CompileModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := sp.(configurator.Admitter)
	if !ok {
		t.Fatal("the space is no Admitter")
	}
	done, err := a.Admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Occupancy().Running; got != 1 {
		t.Errorf("admitted: %d running, want 1", got)
	}
	done()
	c, ok := sp.(configurator.FeatureCorer)
	if !ok {
		t.Fatal("the space finds no cores")
	}
	linux, _ := m.ID("Linux")
	nommu, _ := m.ID("NOMMU")
	core, err := c.Core(context.Background(), []configurator.Decision{{Feature: linux, Select: true}, {Feature: nommu, Select: true}})
	want := []feature.Origin{{Kind: feature.OriginConstraint, Index: 0}, {Kind: feature.OriginConstraint, Index: 1}}
	if err != nil || !slices.Equal(core, want) {
		t.Errorf("Core(+Linux, +NOMMU) = %v, %v; want the two constraints", core, err)
	}
	if _, err := c.Core(context.Background(), []configurator.Decision{{Feature: linux, Select: true}}); err == nil {
		t.Error("a core of consistent decisions")
	}
}

// checkBackbone checks the states of m's features under the decisions
// apart from the engine, with gophersat solvers of its own, built afresh
// from m's CNF with the decisions assumed (as its unit clauses, which
// gophersat's Assume would forget otherwise): no configuration gives some
// feature shown forced its other value (one call, the CNF and a clause of
// those other values: unsatisfiable), and for every feature shown open
// and each of its values some configuration, verified with
// feature.Model.Valid, has it (one call per value not yet seen, the
// values not yet seen of the other features preferred). No propagation,
// flip, repair or answer of an earlier question.
func checkBackbone(t testing.TB, m *feature.Model, decisions []configurator.Decision, states []configurator.FeatureState) {
	t.Helper()
	c := m.CNF()
	var clauses [][]int
	var units []solver.Lit
	for _, d := range decisions {
		units = append(units, solver.IntToLit(int32(d.Lit())))
	}
	for i := range c.Len() {
		var cl []int
		taut := false
		for _, l := range c.Clause(i) {
			taut = taut || slices.Contains(cl, -int(l))
			if !slices.Contains(cl, int(l)) {
				cl = append(cl, int(l))
			}
		}
		switch {
		case taut:
		case len(cl) == 1:
			units = append(units, solver.IntToLit(int32(cl[0])))
		default:
			clauses = append(clauses, cl)
		}
	}
	nf := len(m.Features)
	var other []int
	for f, st := range states {
		switch st {
		case configurator.ForcedOn:
			other = append(other, -(f + 1))
		case configurator.ForcedOff:
			other = append(other, f+1)
		}
	}
	if len(other) > 0 {
		s := solver.New(solver.ParseSliceNb(append(slices.Clone(clauses), other), c.Vars))
		if s.Assume(units) != solver.Unsat && s.Solve() == solver.Sat {
			model := s.Model()
			for _, l := range other {
				if model[abs(l)-1] == (l > 0) {
					t.Fatalf("decisions %v: feature %d is %v, but a configuration (valid: %v) gives it the other value", decisions, abs(l)-1, states[abs(l)-1], m.Valid(model[:nf]))
				}
			}
		}
	}
	s := solver.New(solver.ParseSliceNb(clauses, c.Vars))
	seen := make([][2]bool, nf)
	var prefer []solver.Lit
	ask := func(lits ...solver.Lit) bool {
		if s.Assume(append(slices.Clone(units), lits...)) == solver.Unsat {
			return false
		}
		s.Prefer(prefer)
		if s.Solve() != solver.Sat {
			return false
		}
		model := s.Model()
		if !m.Valid(model[:nf]) {
			t.Fatal("gophersat's configuration breaks the model")
		}
		for f := range nf {
			seen[f][b2i(model[f])] = true
		}
		return true
	}
	if !ask() {
		t.Fatalf("no configuration keeps %v", decisions)
	}
	for f, st := range states {
		if st != configurator.Open || seen[f][0] && seen[f][1] {
			continue
		}
		prefer = prefer[:0]
		for g := f + 1; g < nf; g++ {
			if states[g] == configurator.Open && !seen[g][0] {
				prefer = append(prefer, solver.IntToLit(int32(-(g + 1))))
			} else if states[g] == configurator.Open && !seen[g][1] {
				prefer = append(prefer, solver.IntToLit(int32(g+1)))
			}
		}
		if !ask(solver.IntToLit(int32(feature.FeatureLit(f, !seen[f][1])))) {
			t.Fatalf("decisions %v: feature %d is open, but no configuration gives it the value %v", decisions, f, !seen[f][1])
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// On a generated model of the large real ones' shape and size
// (featuretest.LargeModel, largeFeatures features), the valid domains of
// the empty configuration and after each step of a seeded walk of 12 (a
// feature the last answer showed open, selected or deselected at random,
// or one step in four a decision undone) are the backbone's
// (checkBackbone), every feature of them. With
// -short, two walks on two models of 2,000 features, sparse and dense in
// constraints.
func TestLargeModelBackbones(t *testing.T) {
	features, densities, walks := largeFeatures, []int{1}, uint64(1)
	if testing.Short() {
		features, densities, walks = 2000, []int{6, 1}, 2
	}
	ctx := context.Background()
	for _, per := range densities {
		constraints := features / per
		m := largeModel(t, features, constraints)
		sp, err := New(Options{}).CompileModel(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		for walk := range walks {
			rng := rand.New(rand.NewPCG(walk, 34))
			s, err := configurator.NewFeatureSession(ctx, sp, nil)
			if err != nil {
				t.Fatal(err)
			}
			for step := 0; ; step++ {
				checkBackbone(t, m, s.Decisions(), s.Domains().States)
				open := s.Domains().In(configurator.Open)
				if step == 12 || len(open) == 0 {
					break
				}
				if ds := s.Decisions(); len(ds) > 0 && rng.IntN(4) == 0 {
					// An undo: of the last decision, the same decisions as
					// a step before; of another, decisions not asked yet.
					if err := s.Undo(ctx, ds[rng.IntN(len(ds))].Feature); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := s.Decide(ctx, configurator.Decision{Feature: open[rng.IntN(len(open))], Select: rng.IntN(2) == 0}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// A deadline that comes after the backend found a configuration but
// before it settled every feature loses no answer: each feature it
// settled is as an answer without a deadline has it, the others are
// Unsettled. A decision on an unsettled feature forced the other way is
// Excluded, and the session knows the feature forced from then on; one
// on an unsettled feature that is open is taken.
func TestDeadlineLeavesUnsettled(t *testing.T) {
	ctx := context.Background()
	m := largeModel(t, 3000, 3000)
	fresh := func() configurator.Space {
		sp, err := New(Options{}).CompileModel(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	start := time.Now()
	want, err := fresh().Domains(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	partials := 0
	for k := 1; k < 16; k++ {
		sp := fresh() // no answers remembered from the run before
		dctx, cancel := context.WithTimeout(ctx, whole*time.Duration(k)/16)
		s, err := configurator.NewFeatureSession(dctx, sp, nil)
		cancel()
		if err != nil {
			if dctx.Err() == nil {
				t.Fatalf("deadline %d/16 of the whole answer's time: %v", k, err)
			}
			continue // the deadline came before any configuration was found
		}
		got := s.Domains().States
		var unsettled []int
		for f, st := range got {
			switch {
			case st == configurator.Unsettled:
				unsettled = append(unsettled, f)
			case st != want.States[f]:
				t.Errorf("deadline %d/16: %s is %v, %v without a deadline", k, m.Features[f].Name, st, want.States[f])
			}
		}
		if len(unsettled) == 0 {
			continue
		}
		partials++
		if partials > 1 {
			continue
		}
		// Decide unsettled features, without a deadline, each from the
		// partial answer: the value no configuration gives a forced one,
		// and either value of an open one.
		t.Logf("deadline %d/16 of %v: %d unsettled", k, whole, len(unsettled))
		from := partialSpace{sp, s.Domains()}
		tried := map[bool]int{} // by whether the feature is forced
		for _, f := range unsettled {
			st := want.States[f]
			if forced := st != configurator.Open; tried[forced] < 6 {
				tried[forced]++
			} else {
				continue
			}
			s, err := configurator.NewFeatureSession(ctx, from, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = s.Decide(ctx, configurator.Decision{Feature: f, Select: st != configurator.ForcedOn})
			var ex *configurator.Excluded
			switch {
			case st == configurator.Open && err != nil:
				t.Errorf("%s (open) selected: %v", m.Features[f].Name, err)
			case st != configurator.Open && !errors.As(err, &ex):
				t.Errorf("%s (%v) decided the other way: %v, want an *Excluded", m.Features[f].Name, st, err)
			case st != configurator.Open && s.Domains().States[f] != st:
				t.Errorf("%s is %v after its decision was excluded, want %v", m.Features[f].Name, s.Domains().States[f], st)
			}
		}
		if tried[true] == 0 || tried[false] == 0 {
			t.Errorf("the unsettled features hold %d forced and %d open ones, want both", tried[true], tried[false])
		}
	}
	if partials == 0 {
		t.Errorf("no deadline from 1/16 to 15/16 of the whole answer's time (%v) gave an answer with unsettled features", whole)
	}
}

// partialSpace answers the empty configuration with a partial answer, and
// every other question as its space does.
type partialSpace struct {
	configurator.Space
	partial *configurator.Domains
}

func (p partialSpace) Domains(ctx context.Context, ds []configurator.Decision) (*configurator.Domains, error) {
	if len(ds) == 0 {
		d := *p.partial
		d.States = slices.Clone(d.States)
		return &d, nil
	}
	return p.Space.Domains(ctx, ds)
}
