package examples_test

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/configurator/oracle"
)

// bruteCount counts the configurations of m by judging with m.Valid
// every assignment that keeps the tree's rules: the root selected, no
// feature without its parent, the children of a mandatory group with
// their parent (every other assignment breaks the tree, so skipping it
// skips no configuration).
func bruteCount(m *feature.Model) int {
	config := make([]bool, len(m.Features))
	n := 0
	var walk func(f int)
	walk = func(f int) {
		if f == len(m.Features) {
			if m.Valid(config) {
				n++
			}
			return
		}
		ft := m.Features[f]
		parent := ft.Parent < 0 || config[ft.Parent]
		mandatory := ft.Parent >= 0 && m.Groups[ft.Group].Kind == feature.GroupMandatory
		if f != m.Root && !(mandatory && parent) {
			config[f] = false
			walk(f + 1)
		}
		if parent {
			config[f] = true
			walk(f + 1)
			config[f] = false
		}
	}
	walk(0)
	return n
}

// The examples, as the specification of what they are: their shape, and
// their counts by brute force, which the SAT backend's count (exact up to
// its cap, "at least" beyond) and the oracle's, where it can enumerate
// them, agree with.
func TestExamples(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name                  string
		format                feature.Format
		features, constraints int
		groups                []feature.GroupKind // the kinds it must have
		configurations        int
		forcedOn              []string
	}{
		{"car", feature.UVL, 32, 8, []feature.GroupKind{feature.GroupMandatory, feature.GroupOptional, feature.GroupOr, feature.GroupAlternative},
			55072, []string{"Car", "Body", "Engine", "Transmission", "Wheels"}},
		{"computer", feature.UVL, 20, 4, []feature.GroupKind{feature.GroupAlternative, feature.GroupCardinality},
			606, []string{"Computer", "Processor", "Memory", "Storage"}},
		{"smarthome", feature.DIMACS, 14, 24, nil, 135, []string{"SmartHome", "Hub"}},
	} {
		ex, ok := examples.Lookup(tc.name)
		if !ok {
			t.Fatalf("no example %s", tc.name)
		}
		m, err := ex.Model()
		if err != nil {
			t.Fatal(err)
		}
		if m.Format != tc.format || len(m.Features) != tc.features || len(m.Constraints)+len(m.Clauses) != tc.constraints {
			t.Errorf("%s: %s, %d features, %d constraints; want %s, %d, %d", tc.name, m.Format, len(m.Features),
				len(m.Constraints)+len(m.Clauses), tc.format, tc.features, tc.constraints)
		}
		for _, k := range tc.groups {
			if !slices.ContainsFunc(m.Groups, func(g feature.Group) bool { return g.Kind == k }) {
				t.Errorf("%s: no %s group", tc.name, k)
			}
		}
		if n := bruteCount(m); n != tc.configurations {
			t.Errorf("%s: %d configurations by brute force, want %d", tc.name, n, tc.configurations)
		}
		if len(m.Features) <= oracle.MaxFeatures {
			o, err := oracle.NewFeatures(len(m.Features), m.Valid)
			if err != nil || o.Count() != tc.configurations {
				t.Errorf("%s: the oracle counts %d, want %d (%v)", tc.name, o.Count(), tc.configurations, err)
			}
		}
		sp, err := sat.New(sat.Options{}).CompileModel(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		d, err := sp.Domains(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := big.NewInt(int64(tc.configurations))
		switch c := d.Configurations; {
		case c == nil:
			t.Errorf("%s: SAT did not count", tc.name)
		case d.AtLeast && c.Cmp(want) > 0, !d.AtLeast && c.Cmp(want) != 0:
			t.Errorf("%s: SAT counts %v (at least: %v), want %v", tc.name, c, d.AtLeast, want)
		}
		var forced []string
		for _, f := range d.In(configurator.ForcedOn) {
			forced = append(forced, m.Features[f].Name)
		}
		if !slices.Equal(forced, tc.forcedOn) || len(d.In(configurator.ForcedOff)) != 0 {
			t.Errorf("%s: forced on %q, %d forced off; want %q and none", tc.name, forced, len(d.In(configurator.ForcedOff)), tc.forcedOn)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"car", "car.uvl", "smarthome.dimacs"} {
		if _, ok := examples.Lookup(name); !ok {
			t.Errorf("Lookup(%q) found nothing", name)
		}
	}
	if _, ok := examples.Lookup("car.dimacs"); ok {
		t.Error("Lookup(car.dimacs) found one")
	}
}

func Example() {
	for _, ex := range examples.All() {
		m, err := ex.Model()
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s, %s, %d features\n", ex.File, m.Name, m.Format, len(m.Features))
	}
	// Output:
	// car.uvl: Car, uvl, 32 features
	// computer.uvl: Computer, uvl, 20 features
	// smarthome.dimacs: smarthome, dimacs, 14 features
}
