package bdd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// randomModel draws a feature model (odd trials) or a CNF file (even
// ones) of up to maxFeatures features, read through its reader, so that
// its meaning is feature.Model.Valid's, decided apart from the diagram.
func randomModel(t testing.TB, rng *rand.Rand, trial, maxFeatures int) *feature.Model {
	t.Helper()
	n := 1 + rng.IntN(maxFeatures)
	var m *feature.Model
	var err error
	if trial%2 == 1 {
		m, err = uvl.Parse([]byte(featuretest.RandomModel(rng, n).UVL(rng)))
	} else {
		text, _ := featuretest.RandomCNF(rng, n, rng.IntN(n+n/2+1))
		m, err = dimacs.Parse([]byte(text))
	}
	if err != nil {
		t.Fatalf("trial %d: %v", trial, err)
	}
	return m
}

// bruteForce lists the configurations of m, by feature.Model.Valid over
// every assignment of its features.
func bruteForce(m *feature.Model) [][]bool {
	n := len(m.Features)
	var out [][]bool
	for bits := range uint64(1) << n {
		config := make([]bool, n)
		for f := range config {
			config[f] = bits>>f&1 == 1
		}
		if m.Valid(config) {
			out = append(out, config)
		}
	}
	return out
}

// keeps reports whether config keeps every decision.
func keeps(config []bool, decisions []configurator.Decision) bool {
	for _, d := range decisions {
		if config[d.Feature] != d.Select {
			return false
		}
	}
	return true
}

// bruteDomains is what Domains must answer, from the configurations: the
// states of the features and the count, nil when none keeps the
// decisions; and the configurations that select each feature.
func bruteDomains(configs [][]bool, n int, decisions []configurator.Decision) (states []configurator.FeatureState, count int64, ones []int64) {
	canOn, canOff := make([]bool, n), make([]bool, n)
	ones = make([]int64, n)
	for _, c := range configs {
		if !keeps(c, decisions) {
			continue
		}
		count++
		for f, on := range c {
			if on {
				canOn[f] = true
				ones[f]++
			} else {
				canOff[f] = true
			}
		}
	}
	if count == 0 {
		return nil, 0, nil
	}
	states = make([]configurator.FeatureState, n)
	for f := range states {
		switch {
		case canOn[f] && canOff[f]:
			states[f] = configurator.Open
		case canOn[f]:
			states[f] = configurator.ForcedOn
		default:
			states[f] = configurator.ForcedOff
		}
	}
	for _, d := range decisions {
		states[d.Feature] = map[bool]configurator.FeatureState{true: configurator.Selected, false: configurator.Deselected}[d.Select]
	}
	return states, count, ones
}

// checkSpace checks every query of sp against brute force along a random
// walk of decisions, ending with one that no configuration keeps.
func checkSpace(t *testing.T, rng *rand.Rand, name string, sp configurator.Space, configs [][]bool) {
	t.Helper()
	ctx := t.Context()
	m := sp.FeatureModel()
	n := len(m.Features)
	var decisions []configurator.Decision
	for {
		want, count, ones := bruteDomains(configs, n, decisions)
		d, err := sp.Domains(ctx, decisions)
		if count == 0 {
			if !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatalf("%s %v: Domains: %v, want ErrNoSolution", name, decisions, err)
			}
			if ok, err := sp.Consistent(ctx, decisions); ok || err != nil {
				t.Fatalf("%s %v: Consistent = %v, %v; want false", name, decisions, ok, err)
			}
			if _, err := sp.Configuration(ctx, decisions); !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatalf("%s %v: Configuration: %v, want ErrNoSolution", name, decisions, err)
			}
			if _, err := sp.(configurator.FeatureMarginaler).FeatureMarginals(ctx, decisions); !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatalf("%s %v: FeatureMarginals: %v, want ErrNoSolution", name, decisions, err)
			}
			if _, err := sp.(configurator.FeatureSampler).SampleConfiguration(ctx, decisions, rng); !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatalf("%s %v: SampleConfiguration: %v, want ErrNoSolution", name, decisions, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s %v: Domains: %v", name, decisions, err)
		}
		if d.Configurations.Cmp(big.NewInt(count)) != 0 || !slices.Equal(d.States, want) {
			t.Fatalf("%s %v: Domains %v, %v configurations; brute force %v, %d", name, decisions, d.States, d.Configurations, want, count)
		}
		if ok, err := sp.Consistent(ctx, decisions); !ok || err != nil {
			t.Fatalf("%s %v: Consistent = %v, %v; want true", name, decisions, ok, err)
		}
		c, err := sp.Configuration(ctx, decisions)
		if err != nil || len(c) != n || !m.Valid(c) || !keeps(c, decisions) {
			t.Fatalf("%s %v: Configuration %v, %v: not a configuration that keeps them", name, decisions, c, err)
		}
		c, err = sp.(configurator.FeatureSampler).SampleConfiguration(ctx, decisions, rng)
		if err != nil || len(c) != n || !m.Valid(c) || !keeps(c, decisions) {
			t.Fatalf("%s %v: SampleConfiguration %v, %v: not a configuration that keeps them", name, decisions, c, err)
		}
		got, err := sp.(configurator.FeatureMarginaler).FeatureMarginals(ctx, decisions)
		if err != nil {
			t.Fatalf("%s %v: FeatureMarginals: %v", name, decisions, err)
		}
		for f := range ones {
			if got[f].Cmp(big.NewInt(ones[f])) != 0 {
				t.Fatalf("%s %v: FeatureMarginals[%d] = %v, brute force %d", name, decisions, f, got[f], ones[f])
			}
		}
		if op, ok := sp.(configurator.FeatureOptimizer); ok {
			checkExtremes(t, name, op, decisions, configs)
		}
		// The next decision: on an open feature mostly, on a forced one
		// against its force (no configuration) now and then.
		open, forced := d.In(configurator.Open), append(d.In(configurator.ForcedOn), d.In(configurator.ForcedOff)...)
		switch {
		case len(forced) > 0 && (len(open) == 0 || rng.IntN(6) == 0):
			f := forced[rng.IntN(len(forced))]
			decisions = append(decisions, configurator.Decision{Feature: f, Select: d.States[f] == configurator.ForcedOff})
		case len(open) > 0:
			decisions = append(decisions, configurator.Decision{Feature: open[rng.IntN(len(open))], Select: rng.IntN(2) == 0})
		default:
			return // every feature decided
		}
	}
}

// checkExtremes checks the fewest and the most features a configuration
// that keeps decisions selects against the brute force's configs.
func checkExtremes(t *testing.T, name string, op configurator.FeatureOptimizer, decisions []configurator.Decision, configs [][]bool) {
	t.Helper()
	fewest, most := -1, -1
	for _, c := range configs {
		if keeps(c, decisions) {
			k := trues(c)
			if fewest < 0 || k < fewest {
				fewest = k
			}
			most = max(most, k)
		}
	}
	for _, tc := range []struct {
		most bool
		want int
	}{{false, fewest}, {true, most}} {
		c, bound, err := op.ExtremeConfiguration(t.Context(), decisions, tc.most)
		if err != nil || bound != tc.want || trues(c) != tc.want || !keeps(c, decisions) || !slices.ContainsFunc(configs, func(x []bool) bool { return slices.Equal(x, c) }) {
			t.Fatalf("%s %v: ExtremeConfiguration(most %v) = %v, %d, %v; want a configuration of %d", name, decisions, tc.most, c, bound, err, tc.want)
		}
	}
}

// trues counts the features a configuration selects.
func trues(c []bool) int {
	n := 0
	for _, on := range c {
		if on {
			n++
		}
	}
	return n
}

// compileWith compiles m as CompileModel does, from order o, with the
// compile cfg.
func compileWith(t testing.TB, m *feature.Model, o ModelOrder, cfg compileConfig) *ModelSpace {
	t.Helper()
	c, err := compileModelFrom(t.Context(), m, o, 0, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.m.Size() != int(c.root)+1 && c.root > robdd.True {
		t.Fatalf("the compile left %d nodes besides the diagram's %d", c.m.Size()-int(c.root)-1, c.root)
	}
	return spaceOf(m, c, o)
}

// spaceOf is the space of model m that compile c made from order o.
func spaceOf(m *feature.Model, c modelCompiled, o ModelOrder) *ModelSpace {
	return &ModelSpace{model: m, diagram: diagram{m: c.m, root: c.root, nodes: c.m.Size() - 2, work: newWorkspace(DefaultScratch, 1)}, bindings: bind(c.red), order: o}
}

// compileConfigs are the compiles the tests try: every schedule, and
// siftings from the smallest diagrams on, alone and in groups.
var compileConfigs = map[string]compileConfig{
	"default":            defaultCompile,
	"unsifted":           unsiftedCompile,
	"sifted at the end":  {schedule: topDown, siftAtEnd: 1 << 20},
	"bottom up":          {schedule: bottomUp},
	"top down":           {schedule: topDown},
	"balanced":           {schedule: bottomUp, tree: true},
	"balanced as read":   {schedule: asRead, tree: true, reorderAt: 1, sifting: robdd.Sifting{MaxVars: 3}},
	"as read":            {schedule: asRead},
	"sifting":            {schedule: bottomUp, reorderAt: 1},
	"group sifting":      {schedule: topDown, reorderAt: 1, groups: true},
	"sifting, re-sorted": {schedule: bottomUp, reorderAt: 1, resort: true},
	"not preprocessed":   {schedule: bottomUp, reorderAt: 1, plain: true},
}

func TestModelSpaceAgreesWithBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 24))
	trials := 60
	if testing.Short() {
		trials = 12
	}
	for trial := range trials {
		m := randomModel(t, rng, trial, 10)
		configs := bruteForce(m)
		for name, cfg := range compileConfigs {
			for _, o := range []ModelOrder{OrderModel, OrderForce} {
				sp := compileWith(t, m, o, cfg)
				checkSpace(t, rng, fmt.Sprintf("trial %d, %s, %v order", trial, name, o), sp, configs)
			}
		}
	}
}

// TestCompileModel compiles through the Backend, in every order, and
// checks the space it returns.
func TestCompileModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	for trial := range 10 {
		m := randomModel(t, rng, trial, 8)
		configs := bruteForce(m)
		for _, o := range []ModelOrder{OrderAuto, OrderModel, OrderForce} {
			sp, err := New(Options{ModelOrder: o}).CompileModel(t.Context(), m)
			if err != nil {
				t.Fatal(err)
			}
			ms := sp.(*ModelSpace)
			if ms.Order() != o.resolve() || ms.Source() != "" || ms.Nodes() != ms.m.NodeCount(ms.root) || ms.Bytes() <= 0 {
				t.Errorf("trial %d, %v: order %v, source %q, %d nodes (%d counted), %d bytes", trial, o, ms.Order(), ms.Source(), ms.Nodes(), ms.m.NodeCount(ms.root), ms.Bytes())
			}
			checkSpace(t, rng, fmt.Sprintf("trial %d, %v order", trial, o), sp, configs)
		}
	}
}

// TestDiagramOverTheKeptVariables: the diagram is over the features the
// compile keeps, and the space answers over every feature: the fixed
// one, the merged one and the free one included.
func TestDiagramOverTheKeptVariables(t *testing.T) {
	// 1 is fixed, 3 equals 2, 2 ∨ 4 is a diagram of two nodes over the
	// variables kept, and no clause mentions 5: the model has 3×2
	// configurations.
	m, err := dimacs.Parse([]byte("p cnf 5 4\n1 0\n-2 3 0\n2 -3 0\n2 4 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(Options{}).CompileModel(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	ms := sp.(*ModelSpace)
	if got := ms.Configurations(); got.Cmp(big.NewInt(6)) != 0 {
		t.Errorf("%v configurations, want 6", got)
	}
	if ms.Nodes() != 2 {
		t.Errorf("%d nodes, want 2", ms.Nodes())
	}
	checkSpace(t, rand.New(rand.NewPCG(1, 2)), "fixed, merged and free", sp, bruteForce(m))
}

func TestParseModelOrder(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want ModelOrder
		err  bool
	}{
		{"auto", OrderAuto, false},
		{"model", OrderModel, false},
		{"force", OrderForce, false},
		{"Force", 0, true},
		{"", 0, true},
	} {
		got, err := ParseModelOrder(tt.in)
		if got != tt.want || (err != nil) != tt.err || err != nil && !errors.Is(err, ErrModelOrder) {
			t.Errorf("ParseModelOrder(%q) = %v, %v", tt.in, got, err)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
	}
}

func TestSampleConfigurationIsUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	tested := 0
	for trial := 0; tested < 4; trial++ {
		m := randomModel(t, rng, trial, 9)
		configs := bruteForce(m)
		k := len(configs)
		if k < 6 || k > 60 {
			continue
		}
		tested++
		sp := compileWith(t, m, OrderForce, compileConfigs["sifting"])
		draws := 250 * k
		seen := map[string]int{}
		for range draws {
			c, err := sp.SampleConfiguration(t.Context(), nil, rng)
			if err != nil {
				t.Fatal(err)
			}
			seen[fmt.Sprint(c)]++
		}
		if len(seen) != k {
			t.Errorf("trial %d: %d distinct samples, want all %d configurations", trial, len(seen), k)
		}
		// Pearson's chi-square with k-1 degrees of freedom, against its
		// 0.9995 quantile (Wilson and Hilferty's approximation).
		exp := float64(draws) / float64(k)
		chi := 0.0
		for _, c := range seen {
			chi += (float64(c) - exp) * (float64(c) - exp) / exp
		}
		df := float64(max(k-1, 1))
		if limit := df * math.Pow(1-2/(9*df)+3.29*math.Sqrt(2/(9*df)), 3); chi > limit {
			t.Errorf("trial %d: chi-square %.1f over %d configurations: not uniform", trial, chi, k)
		}
	}
}

// FuzzCompileModel: siftings at any size during a compile, in any
// schedule, leave the count of every model that of brute force, and the
// order a permutation of the features.
func FuzzCompileModel(f *testing.F) {
	f.Add(uint64(1), uint8(8), uint16(1), uint8(0), false)
	f.Add(uint64(2), uint8(11), uint16(3), uint8(1), true)
	f.Add(uint64(3), uint8(6), uint16(20), uint8(2), true)
	f.Add(uint64(98), uint8(23), uint16(64), uint8(1), true) // a feature no term mentions
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, reorderAt uint16, sched uint8, groups bool) {
		rng := rand.New(rand.NewPCG(seed, seed>>32))
		m := randomModel(t, rng, int(seed%2), 1+int(n%12))
		cfg := compileConfig{schedule: schedule(sched % 4), reorderAt: int(reorderAt), groups: groups, resort: seed&4 != 0}
		sp := compileWith(t, m, ModelOrder(1+seed%2), cfg)
		if got, want := sp.Configurations(), len(bruteForce(m)); got.Cmp(big.NewInt(int64(want))) != 0 {
			t.Fatalf("%+v: %v configurations, brute force %d", cfg, got, want)
		}
		order := sp.m.Order()
		slices.Sort(order)
		for v, w := range order {
			if v != w {
				t.Fatalf("%+v: the order %v is no permutation", cfg, sp.m.Order())
			}
		}
	})
}

// TestCompileModelPastTheBudget: a model whose diagram passes the budget
// in every order (a random 3-CNF of 90 variables near its threshold) is
// refused with ErrTooLarge, saying so in words; equivalences whose
// diagram is exponential in the file's order and linear in FORCE's fit.
func TestCompileModelPastTheBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(90, 3))
	var b strings.Builder
	const vars, clauses = 90, 360
	fmt.Fprintf(&b, "p cnf %d %d\n", vars, clauses)
	for range clauses {
		for range 3 {
			l := 1 + rng.IntN(vars)
			if rng.IntN(2) == 0 {
				l = -l
			}
			fmt.Fprintf(&b, "%d ", l)
		}
		b.WriteString("0\n")
	}
	m, err := dimacs.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(Options{Budget: 1 << 17}).CompileModel(t.Context(), m)
	if !errors.Is(err, configurator.ErrTooLarge) || !errors.Is(err, robdd.ErrNodeLimit) || !strings.Contains(err.Error(), "passes 128 KiB in this order (force): the SAT backend answers it") {
		t.Errorf("CompileModel past the budget: %v", err)
	}

	b.Reset()
	const n = 40
	fmt.Fprintf(&b, "p cnf %d %d\n", n, n)
	for i := 1; i <= n/2; i++ {
		// x_i <=> x_{i+n/2}: in the file's order, the diagram remembers
		// the first half whole, 2^(n/2) nodes.
		fmt.Fprintf(&b, "%d %d 0\n%d %d 0\n", -i, i+n/2, i, -(i + n/2))
	}
	if m, err = dimacs.Parse([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
	sp, err := New(Options{ModelOrder: OrderForce, Budget: 1 << 20}).CompileModel(t.Context(), m)
	if err != nil {
		t.Fatalf("CompileModel in FORCE's order: %v", err)
	}
	// Preprocessing merges each pair into one variable that no term
	// mentions: no node is left, and each pair doubles the count.
	ms := sp.(*ModelSpace)
	if nodes, count := ms.Nodes(), ms.Configurations(); nodes != 0 || count.Cmp(new(big.Int).Lsh(big.NewInt(1), n/2)) != 0 {
		t.Errorf("the equivalences: %d nodes, %v configurations; want 0 and 2^%d", nodes, count, n/2)
	}
}

// TestModelSpaceHoldsWorkSpace checks that the queries of a ModelSpace
// hold work space from their Backend's bound: with it taken, each waits
// and fails with ErrBusy at its deadline; with it free, each answers.
func TestModelSpaceHoldsWorkSpace(t *testing.T) {
	b := New(Options{Scratch: 1 << 20})
	rng := rand.New(rand.NewPCG(4, 4))
	var m *feature.Model
	for m == nil || len(bruteForce(m)) == 0 {
		m = randomModel(t, rng, 1, 10)
	}
	sp, err := b.CompileModel(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	decided := []configurator.Decision{{Feature: 0, Select: true}}
	queries := map[string]func(ctx context.Context) error{
		"Domains":       func(ctx context.Context) error { _, err := sp.Domains(ctx, decided); return err },
		"Domains, none": func(ctx context.Context) error { _, err := sp.Domains(ctx, nil); return err },
		"Consistent":    func(ctx context.Context) error { _, err := sp.Consistent(ctx, decided); return err },
		"Configuration": func(ctx context.Context) error { _, err := sp.Configuration(ctx, decided); return err },
		"SampleConfiguration": func(ctx context.Context) error {
			_, err := sp.(configurator.FeatureSampler).SampleConfiguration(ctx, decided, rng)
			return err
		},
		"FeatureMarginals": func(ctx context.Context) error {
			_, err := sp.(configurator.FeatureMarginaler).FeatureMarginals(ctx, decided)
			return err
		},
	}
	release := takeAll(t, b.work)
	for name, query := range queries {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := query(ctx)
		cancel()
		if !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with the work space taken: %v, want ErrBusy and the deadline", name, err)
		}
	}
	release()
	for name, query := range queries {
		if err := query(context.Background()); err != nil {
			t.Errorf("%s with the work space free: %v", name, err)
		}
	}
	if l := b.Occupancy(); l != (configurator.Occupancy{}) {
		t.Errorf("Occupancy() = %+v after the queries, want nothing", l)
	}
}

// randomCNF is a random 3-CNF of vars variables and clauses clauses, as a
// model: near 4.26 clauses a variable its diagram is exponential in every
// order.
func randomCNF(t testing.TB, rng *rand.Rand, vars, clauses int) *feature.Model {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "p cnf %d %d\n", vars, clauses)
	for range clauses {
		for range 3 {
			l := 1 + rng.IntN(vars)
			if rng.IntN(2) == 0 {
				l = -l
			}
			fmt.Fprintf(&b, "%d ", l)
		}
		b.WriteString("0\n")
	}
	m, err := dimacs.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestHopelessCompileStopsSoon: a compile that cannot end within its
// budget or its deadline stops within a few seconds of passing it, with
// an error that says which, in words and as a value.
func TestHopelessCompileStopsSoon(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles for seconds")
	}
	checkStopsSoon(t, randomCNF(t, rand.New(rand.NewPCG(7, 7)), 400, 1700), []stopCase{
		{"budget", 4 << 20, time.Minute, []error{configurator.ErrTooLarge, robdd.ErrNodeLimit}, "passes 4 MiB"},
		{"deadline", 0, 2 * time.Second, []error{context.DeadlineExceeded}, "stopped at its deadline"},
	})
}

// stopCase is a compile that cannot end: its budget (0: the default), its
// deadline, the errors it must wrap and the words its error must hold.
type stopCase struct {
	name    string
	budget  int64
	timeout time.Duration
	want    []error
	words   string
}

// checkStopsSoon compiles m as each case says and checks that it fails
// with the case's errors and words, saying how far it got, within a few
// seconds of its deadline (a case without a budget of its own) or, for
// every compile of the race that passed the budget, of the last time it
// passed it (a sifting that made room brought it back within the budget
// before).
func checkStopsSoon(t *testing.T, m *feature.Model, cases []stopCase) {
	// What a stop may take past the budget or the deadline, with room
	// for a machine shared with other work.
	const slack = 5 * time.Second
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), tc.timeout)
			defer cancel()
			start := time.Now()
			_, err := New(Options{Budget: tc.budget}).CompileModel(ctx, m)
			took := time.Since(start)
			for _, want := range tc.want {
				if !errors.Is(err, want) {
					t.Errorf("CompileModel after %v: %v, want %v", took, err, want)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.words) || !strings.Contains(err.Error(), "conjunctions") {
				t.Fatalf("CompileModel: %v, want it to say %q and how far it got", err, tc.words)
			}
			if tc.budget == 0 && took > tc.timeout+slack {
				t.Errorf("CompileModel stopped %v after its deadline", took-tc.timeout)
			}
			if tc.budget > 0 {
				// Each compile of the race that passed its share of the
				// budget says how long it went on past it.
				subs := regexp.MustCompile(`last passed (\S+) before it gave up`).FindAllStringSubmatch(err.Error(), -1)
				if subs == nil {
					t.Fatalf("CompileModel: %v, want it to say when it passed the budget", err)
				}
				for _, sub := range subs {
					if d, err := time.ParseDuration(sub[1]); err != nil || d > slack {
						t.Errorf("a compile stopped %s after passing its budget, want %v at most", sub[1], slack)
					}
				}
			}
			t.Logf("%v: %v", took, err)
		})
	}
}

// TestRaceCompiles: the compiles that run side by side give the diagram of
// the one that makes it, whichever fails, a later one starting at once
// when the earlier ones fail; when all fail, the error holds each one's. Equivalences x_i <=> x_{i+n/2} in the file's order take
// 2^(n/2) nodes unless preprocessing merges them.
func TestRaceCompiles(t *testing.T) {
	const n = 40
	var b strings.Builder
	fmt.Fprintf(&b, "p cnf %d %d\n", n, n)
	for i := 1; i <= n/2; i++ {
		fmt.Fprintf(&b, "%d %d 0\n%d %d 0\n", -i, i+n/2, i, -(i + n/2))
	}
	m, err := dimacs.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	hopeless := compileConfig{schedule: asRead, plain: true}
	for _, cfgs := range [][]compileConfig{{hopeless, defaultCompile}, {defaultCompile, hopeless}} {
		start := time.Now()
		c, err := raceCompiles(t.Context(), m, OrderModel, 1<<20, cfgs)
		if err != nil {
			t.Fatalf("a race with a compile that makes it: %v", err)
		}
		// The second compile starts as soon as the first fails.
		if took := time.Since(start); took >= raceDelay {
			t.Errorf("the race took %v", took)
		}
		if got, want := spaceOf(m, c, OrderModel).Configurations(), new(big.Int).Lsh(big.NewInt(1), n/2); got.Cmp(want) != 0 {
			t.Errorf("%v configurations, want %v", got, want)
		}
	}
	_, err = raceCompiles(t.Context(), m, OrderModel, 1<<20, []compileConfig{hopeless, hopeless})
	if !errors.Is(err, robdd.ErrNodeLimit) || strings.Count(err.Error(), "BDD node budget exceeded") != 2 {
		t.Errorf("a race that every compile loses: %v", err)
	}
}

// TestExactCountsBeyondTheWorkSpace: a uniform sample and the marginals,
// which need the exact count below every node, are refused with
// ErrTooLarge when those counts may pass the work space; the facts are
// then given without the shares; the domains and counts still answer.
func TestExactCountsBeyondTheWorkSpace(t *testing.T) {
	m, err := dimacs.Parse([]byte("p cnf 4 3\n1 2 0\n-2 3 0\n3 4 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bound   int64
		refused bool
	}{{DefaultScratch, false}, {64, true}} {
		b := New(Options{Scratch: tc.bound})
		sp, err := b.CompileModel(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		_, merr := sp.(configurator.FeatureMarginaler).FeatureMarginals(t.Context(), nil)
		_, serr := sp.(configurator.FeatureSampler).SampleConfiguration(t.Context(), nil, rand.New(rand.NewPCG(1, 1)))
		if errors.Is(merr, configurator.ErrTooLarge) != tc.refused || errors.Is(serr, configurator.ErrTooLarge) != tc.refused {
			t.Errorf("work space %d: marginals %v, sample %v; refused want %v", tc.bound, merr, serr, tc.refused)
		}
		facts, err := configurator.ModelFacts(t.Context(), sp)
		if err != nil || facts.Configurations.Int64() != 7 || (facts.Selecting == nil) != tc.refused {
			t.Errorf("work space %d: facts %+v, %v; want 7 configurations, shares unless refused", tc.bound, facts, err)
		}
	}
}
