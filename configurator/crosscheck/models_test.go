package crosscheck_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/crosscheck"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// modelBackends are the backends whose feature model spaces are checked:
// every one that is a configurator.ModelCompiler.
func modelBackends() []configurator.Backend {
	var out []configurator.Backend
	for _, b := range []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{}), plain.New(plain.Options{})} {
		if _, ok := b.(configurator.ModelCompiler); ok {
			out = append(out, b)
		}
	}
	return out
}

// compileFeatures compiles m with every backend of bs.
func compileFeatures(t testing.TB, m *feature.Model, bs []configurator.Backend) []crosscheck.FeatureSubject {
	t.Helper()
	var subjects []crosscheck.FeatureSubject
	for _, b := range bs {
		sp, _, err := configurator.CompileFeatureModel(context.Background(), b, m)
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, crosscheck.FeatureSubject{Name: b.Name(), Space: sp})
	}
	return subjects
}

// randomModel draws model i of a seeded series: random UVL models (every
// kind of group, cardinalities, constraints) and random CNF files, in
// turn, of 1 to maxFeatures features, read by the project's readers.
func randomModel(t testing.TB, seed uint64, i, maxFeatures int) *feature.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(i)))
	n := 1 + rng.IntN(maxFeatures)
	var m *feature.Model
	var err error
	var text string
	if i%2 == 0 {
		text = featuretest.RandomModel(rng, n).UVL(rng)
		m, err = uvl.Parse([]byte(text))
	} else {
		text, _ = featuretest.RandomCNF(rng, n, rng.IntN(2*n+1))
		m, err = dimacs.Parse([]byte(text))
	}
	if err != nil {
		t.Fatalf("random model %d: %v\n%s", i, err, text)
	}
	return m
}

// assertModelAgree fails the test with the disagreements of rep.
func assertModelAgree(t *testing.T, rep *crosscheck.ModelReport) {
	t.Helper()
	if rep.Count == 0 {
		return
	}
	d, _ := rep.Smallest()
	t.Errorf("%d disagreements; smallest: %v", rep.Count, d)
	for _, d := range rep.Disagreements[:min(len(rep.Disagreements), 10)] {
		t.Log(d)
	}
}

// TestRandomModels: on seeded random UVL models and CNF files every
// backend that configures feature models answers every question of a walk
// as the oracle does, which judges every assignment with
// feature.Model.Valid: the domains and counts after every decision, every
// reason of a forced feature minimal and the list complete, the parts of
// the model that carry each, make room a fewest undoing, conflicts
// minimal, configurations valid.
func TestRandomModels(t *testing.T) {
	models, maxFeatures, steps := 40, 12, 15
	if *long {
		models, maxFeatures, steps = 200, 16, 25
	}
	if testing.Short() {
		models = 10
	}
	bs := modelBackends()
	decided := 0
	for i := range models {
		m := randomModel(t, *seed, i, maxFeatures)
		rep, err := crosscheck.WalkModel(context.Background(), m, compileFeatures(t, m, bs), crosscheck.WalkOptions{Walks: 2, Steps: steps, Seed: *seed})
		if err != nil {
			t.Fatal(err)
		}
		decided += rep.Steps
		if rep.Count > 0 {
			t.Logf("random model %d:\n%s", i, describe(m))
		}
		assertModelAgree(t, rep)
	}
	if decided < models {
		t.Errorf("%d steps over %d models: the walks hardly move", decided, models)
	}
}

// searchModels are models whose forced features and conflicts no unit
// propagation shows: the explanations name the parts a search finds
// (configurator.FeatureCorer), which must be minimal.
var searchModels = []string{
	// x is forced on by four clauses over a and b, and only a case
	// split on a and b shows it; c and d are free, e excluded by x.
	"p cnf 5 5\n1 2 3 0\n1 -2 3 0\n1 2 -3 0\n1 -2 -3 0\n-1 -5 0\n",
	// No configuration: the four clauses over a and b, and c free.
	"p cnf 3 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n",
}

func TestSearchModels(t *testing.T) {
	bs := modelBackends()
	for i, text := range searchModels {
		m, err := dimacs.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		rep, err := crosscheck.WalkModel(context.Background(), m, compileFeatures(t, m, bs), crosscheck.WalkOptions{Walks: 4, Steps: 12, Seed: *seed})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Count > 0 {
			t.Logf("model %d", i)
		}
		assertModelAgree(t, rep)
	}
}

// TestLargestRandomModels: random models of the oracle's largest size, 20
// features, a few.
func TestLargestRandomModels(t *testing.T) {
	if testing.Short() {
		t.Skip("the oracle enumerates a million assignments per model")
	}
	bs := modelBackends()
	for i := range 2 {
		rng := rand.New(rand.NewPCG(*seed, 1000+uint64(i)))
		var m *feature.Model
		var err error
		if i == 0 {
			m, err = uvl.Parse([]byte(featuretest.RandomModel(rng, 20).UVL(rng)))
		} else {
			text, _ := featuretest.RandomCNF(rng, 20, 24)
			m, err = dimacs.Parse([]byte(text))
		}
		if err != nil {
			t.Fatal(err)
		}
		rep, err := crosscheck.WalkModel(context.Background(), m, compileFeatures(t, m, bs), crosscheck.WalkOptions{Walks: 1, Steps: 12, Seed: *seed})
		if err != nil {
			t.Fatal(err)
		}
		assertModelAgree(t, rep)
	}
}

// describe writes a model's parts, for the log of a failure.
func describe(m *feature.Model) string {
	var b strings.Builder
	c := m.CNF()
	seen := map[feature.Origin]bool{}
	for i := range c.Len() {
		if o := c.Origin(i); !seen[o] {
			seen[o] = true
			fmt.Fprintf(&b, "  %s\n", m.Describe(o))
		}
	}
	return b.String()
}

// liar is a feature space that answers wrong: it shows the last open
// feature forced off.
type liar struct{ configurator.Space }

func (l liar) Domains(ctx context.Context, ds []configurator.Decision) (*configurator.Domains, error) {
	d, err := l.Space.Domains(ctx, ds)
	if err != nil {
		return nil, err
	}
	lied := *d
	lied.States = append([]configurator.FeatureState(nil), d.States...)
	if open := d.In(configurator.Open); len(open) > 0 {
		lied.States[open[len(open)-1]] = configurator.ForcedOff
	}
	return &lied, nil
}

// plantedModel is a small car: an engine of one kind, options, and a
// constraint across the tree.
const plantedModel = `features
	Car
		mandatory
			Engine
				alternative
					Petrol
					Electric
		optional
			Navigation
			Sunroof
constraints
	Sunroof => Petrol
`

// TestPlantedModelFault: a test of the tester. A space that shows one
// open feature forced off is caught by the walk, and the honest space
// beside it is not blamed.
func TestPlantedModelFault(t *testing.T) {
	m, err := uvl.Parse([]byte(plantedModel))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sat.New(sat.Options{}).CompileModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	subjects := []crosscheck.FeatureSubject{{Name: "sat", Space: sp}, {Name: "liar", Space: liar{sp}}}
	rep, err := crosscheck.WalkModel(context.Background(), m, subjects, crosscheck.WalkOptions{Walks: 2, Steps: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count == 0 {
		t.Fatalf("the planted fault went unnoticed in %d steps", rep.Steps)
	}
	for _, d := range rep.Disagreements {
		if d.Subject != "liar" {
			t.Errorf("an honest space blamed: %v", d)
		}
	}
	t.Logf("%d disagreements, such as %v", rep.Count, rep.Disagreements[0])
}

// TestRealModelsAgree: on the real models, every two backends that
// configure feature models agree on the forced features along seeded walks
// of 20 decisions (the first backend is the reference). The baseline, one
// solver call per feature and polarity, walks the smaller models only; the
// BDD backend those it compiles within seconds, and with -crosscheck.long
// those it compiles in up to half a minute too.
func TestRealModelsAgree(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	bs := modelBackends()
	walks := 2
	if testing.Short() {
		walks = 1
	}
	for _, file := range realModels {
		t.Run(file, func(t *testing.T) {
			m := load(t, dir, file)
			var use []configurator.Backend
			for _, b := range bs {
				switch {
				case b.Name() == "sat-plain" && len(m.Features) > 600:
				case b.Name() == "bdd" && !bddChecks(file):
				default:
					use = append(use, b)
				}
			}
			if len(use) < 2 {
				t.Skipf("%d backend configures this model here; nothing to compare", len(use))
			}
			rep, err := crosscheck.CompareModel(context.Background(), m, compileFeatures(t, m, use), crosscheck.WalkOptions{Walks: walks, Steps: 20, Seed: *seed})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Steps == 0 {
				t.Error("no decision taken")
			}
			assertModelAgree(t, rep)
		})
	}
}

// realModels are the files of ../shared/models.
var realModels = []string{
	"uvl/berkeleydb.uvl", "uvl/axtls.uvl", "uvl/uclibc.uvl", "uvl/busybox-2007-05-20.uvl",
	"uvl/ecos-xsengine.uvl", "uvl/financialservices-2017-05-22.uvl", "uvl/automotive01.uvl",
	"uvl/dopler-asej1.uvl", "dimacs/berkeleydb.dimacs", "dimacs/printer.dimacs",
	"dimacs/embtoolkit.dimacs", "dimacs/busybox-1.18.0.dimacs", "dimacs/uclibc-0.9.33.2.dimacs",
	"dimacs/financialservices-2018-05-09.dimacs", "dimacs/automotive01.dimacs",
	"featureide/financialservices-2017-05-22.xml", "featureide/pc-richmond.xml",
	"featureide/printer-sxfm.xml", "featureide/soletta-2015-06-30.xml", "featureide/tankwar.xml",
}

// bddModels are the real models the BDD backend compiles within seconds
// (backends/bdd's TestRealModels compiles the same); the others pass its
// budget or take minutes.
var bddModels = map[string]bool{
	"uvl/berkeleydb.uvl": true, "uvl/axtls.uvl": true, "uvl/uclibc.uvl": true,
	"uvl/busybox-2007-05-20.uvl": true, "uvl/dopler-asej1.uvl": true,
	"dimacs/printer.dimacs": true, "dimacs/berkeleydb.dimacs": true, "dimacs/embtoolkit.dimacs": true,
	"dimacs/busybox-1.18.0.dimacs": true,
	"featureide/pc-richmond.xml":   true, "featureide/printer-sxfm.xml": true,
	"featureide/soletta-2015-06-30.xml": true, "featureide/tankwar.xml": true,
}

// bddLongModels are the real models the BDD backend compiles in seconds
// to a minute each, and more under the suite's load (automotive01 and
// ecos-xsengine into tens of millions of nodes, each step seconds): too
// long for every run of the suite, walked with -crosscheck.long.
var bddLongModels = map[string]bool{
	"uvl/financialservices-2017-05-22.uvl": true, "featureide/financialservices-2017-05-22.xml": true,
	"dimacs/uclibc-0.9.33.2.dimacs": true, "dimacs/financialservices-2018-05-09.dimacs": true,
	"dimacs/automotive01.dimacs": true, "uvl/ecos-xsengine.uvl": true,
}

// bddChecks reports whether the BDD backend is checked on the real model
// file in this run.
func bddChecks(file string) bool {
	return bddModels[file] || *long && bddLongModels[file]
}

// load reads a real model.
func load(t testing.TB, dir, file string) *feature.Model {
	t.Helper()
	var m *feature.Model
	var err error
	switch {
	case strings.HasSuffix(file, ".uvl"):
		m, err = uvl.Load(os.DirFS(dir), file)
	case strings.HasSuffix(file, ".xml"):
		m, err = modelfile.Load(filepath.Join(dir, file), "") // FeatureIDE or SXFM, told from the content
	default:
		var src []byte
		if src, err = os.ReadFile(filepath.Join(dir, file)); err == nil {
			m, err = dimacs.Parse(src)
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

// TestBoardModels: the boards are feature models like the others. Each
// board from 1×1 to 8×8, as the feature model configurator.Model.FeatureModel
// makes of it, is compiled by every backend (with its own engine for
// boards: configurator.CompileFeatureModel) and walked like any model,
// squares selected and ruled out, against the board oracle's solutions.
func TestBoardModels(t *testing.T) {
	largest := 8
	if testing.Short() {
		largest = 6
	}
	bs := []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{}), plain.New(plain.Options{})}
	for n := 1; n <= largest; n++ {
		board, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			t.Fatal(err)
		}
		m, err := board.FeatureModel()
		if err != nil {
			t.Fatal(err)
		}
		rep, err := crosscheck.WalkModel(context.Background(), m, compileFeatures(t, m, bs), crosscheck.WalkOptions{Walks: 2, Steps: 12, Seed: *seed})
		if err != nil {
			t.Fatalf("%d×%d: %v", n, n, err)
		}
		if n >= 4 && rep.Steps == 0 {
			t.Errorf("%d×%d: the walks took no step", n, n)
		}
		t.Logf("%d×%d: %d walks, %d steps", n, n, rep.Walks, rep.Steps)
		assertModelAgree(t, rep)
	}
}

// TestPlantedBoardFault: a backend that compiled a board missing one of
// its diagonals, answered as the board's feature model, is caught.
func TestPlantedBoardFault(t *testing.T) {
	const n = 6
	board := configuratortest.Model(t, n, configurator.RowMajor)
	m, err := board.FeatureModel()
	if err != nil {
		t.Fatal(err)
	}
	var cs []configurator.Constraint
	for _, c := range board.Constraints() {
		if !strings.HasPrefix(c.Name, "diagonal a1") {
			cs = append(cs, c)
		}
	}
	faulty, err := configurator.Custom(n, configurator.RowMajor, cs)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{})} {
		sp := configuratortest.Space(t, b, faulty)
		rep, err := crosscheck.WalkModel(context.Background(), m, []crosscheck.FeatureSubject{{Name: b.Name(), Space: sp}}, crosscheck.WalkOptions{Walks: 2, Steps: 12, Seed: *seed})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Count == 0 {
			t.Errorf("%s without the long diagonal: no disagreement found", b.Name())
		}
	}
}

// TestRealModelsComplete: on the real models (the FeatureIDE files too),
// every backend's completions by each way of configurator.Finish, under
// seeded random decisions that some configuration keeps, are
// configurations by the model's own meaning (feature.Model.Valid), keep
// the decisions, lie within the bound they state, and, where two backends
// prove their fewest (most) exact, select as many features. The SAT
// backend's search is given a few seconds, the bound it reached is the
// answer past them; sat-plain's is the same search (package satbase), and
// is left out.
func TestRealModelsComplete(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	bs := modelBackends()
	files := append(slices.Clone(realModels), "dimacs/linux-2.6.33.3.dimacs")
	if testing.Short() {
		files = []string{"uvl/berkeleydb.uvl", "dimacs/printer.dimacs", "featureide/tankwar.xml"}
	}
	ctx := context.Background()
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			m := load(t, dir, file)
			rng := rand.New(rand.NewPCG(*seed, 7))
			var ds []configurator.Decision
			exact := map[configurator.How]int{}
			for _, b := range bs {
				if b.Name() == "sat-plain" || b.Name() == "bdd" && !bddChecks(file) {
					continue
				}
				sp, _, err := configurator.CompileFeatureModel(ctx, b, m)
				if errors.Is(err, configurator.ErrTooLarge) {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if ds == nil {
					ds = consistentDecisions(t, sp, rng, 3)
				}
				s, err := configurator.NewFeatureSession(ctx, sp, ds)
				if err != nil {
					t.Fatalf("%s: %v", b.Name(), err)
				}
				for _, how := range []configurator.How{configurator.Uniform, configurator.Fewest, configurator.Most} {
					fctx, cancel := context.WithTimeout(ctx, time.Second)
					c, err := s.Finish(fctx, how, rand.New(rand.NewPCG(*seed, 8)))
					cancel()
					if how == configurator.Uniform && (errors.Is(err, configurator.ErrNoSampler) || errors.Is(err, configurator.ErrTooLarge)) {
						continue // no sampler, or a diagram too large for its exact counts
					}
					if err != nil {
						t.Fatalf("%s, %s: %v", b.Name(), how, err)
					}
					if !m.Valid(c.Selected) {
						t.Errorf("%s, %s: the completion is no configuration of the model", b.Name(), how)
					}
					for _, d := range ds {
						if c.Selected[d.Feature] != d.Select {
							t.Errorf("%s, %s: the completion breaks the decision %s", b.Name(), how, configurator.FormatDecisions(m, []configurator.Decision{d}))
						}
					}
					if how == configurator.Fewest && c.Bound > c.Selections() || how == configurator.Most && c.Bound < c.Selections() {
						t.Errorf("%s, %s: %d features selected, beyond the bound %d", b.Name(), how, c.Selections(), c.Bound)
					}
					if !c.Exact {
						continue
					}
					if k, ok := exact[how]; ok && k != c.Selections() {
						t.Errorf("%s, %s: %d features selected, another backend proved %d", b.Name(), how, c.Selections(), k)
					}
					exact[how] = c.Selections()
				}
			}
			t.Logf("%d features; exact fewest and most: %v", len(m.Features), exact)
		})
	}
}

// consistentDecisions draws up to k decisions on open features of sp, each
// kept only when some configuration keeps them all.
func consistentDecisions(t *testing.T, sp configurator.Space, rng *rand.Rand, k int) []configurator.Decision {
	t.Helper()
	ds := []configurator.Decision{}
	n := len(sp.FeatureModel().Features)
	for range 4 * k {
		if len(ds) == k {
			break
		}
		d := configurator.Decision{Feature: rng.IntN(n), Select: rng.IntN(2) == 0}
		if slices.ContainsFunc(ds, func(e configurator.Decision) bool { return e.Feature == d.Feature }) {
			continue
		}
		ok, err := sp.Consistent(context.Background(), append(slices.Clone(ds), d))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			ds = append(ds, d)
		}
	}
	return ds
}
