package feature_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featureide"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// backbone returns the features every configuration selects (on) and none
// selects (off), by gophersat on the model's CNF: one model, then for each
// feature still constant across the models found a call under the
// assumption of its other value. Unit clauses are passed as assumptions,
// never as clauses (gophersat's Assume forgets the base problem's units).
func backbone(t *testing.T, c *feature.CNF) (on, off []int, sat bool) {
	t.Helper()
	var base [][]int
	unit := map[int]bool{} // variable -> value
	for i := range c.Len() {
		seen := map[feature.Lit]bool{}
		var row []int
		taut := false
		for _, l := range c.Clause(i) {
			taut = taut || seen[-l]
			if !seen[l] {
				seen[l] = true
				row = append(row, int(l))
			}
		}
		switch {
		case taut:
		case len(row) == 0:
			return nil, nil, false
		case len(row) == 1:
			v, b := max(row[0], -row[0]), row[0] > 0
			if old, ok := unit[v]; ok && old != b {
				return nil, nil, false
			}
			unit[v] = b
		default:
			base = append(base, row)
		}
	}
	var units []solver.Lit
	for v, b := range unit {
		units = append(units, solver.IntToVar(int32(v)).SignedLit(!b))
	}
	s := solver.New(solver.ParseSliceNb(base, c.Vars))
	solve := func(extra ...solver.Lit) []bool {
		s.Assume(append(slices.Clone(units), extra...))
		if s.Solve() != solver.Sat {
			return nil
		}
		return s.Model()
	}
	m := solve()
	if m == nil {
		return nil, nil, false
	}
	candidate := slices.Clone(m[:c.Features]) // the value every model found so far gives
	constant := make([]bool, c.Features)
	for i := range constant {
		constant[i] = true
	}
	for v := 1; v <= c.Features; v++ {
		if !constant[v-1] {
			continue
		}
		if b, ok := unit[v]; ok && b == candidate[v-1] {
			continue
		}
		if m := solve(solver.IntToVar(int32(v)).SignedLit(candidate[v-1])); m != nil {
			for w := range constant {
				constant[w] = constant[w] && m[w] == candidate[w]
			}
		}
	}
	for i, k := range constant {
		switch {
		case k && candidate[i]:
			on = append(on, i)
		case k:
			off = append(off, i)
		}
	}
	return on, off, true
}

// realModels are the models of ../shared/models: features as its README
// counts them (exact here where it says "~"), and, for the UVL ones, the
// backbone of the empty configuration that an independent translation and
// CryptoMiniSat found (shared/README.md: forced on / forced off).
var realModels = []struct {
	file               string
	features, clauses  int // clauses: a CNF file's, as its header says
	generated          int // variables marked $ in a CNF file
	constraints        int // a UVL model's
	forcedOn, forcedOf int
}{
	{file: "uvl/berkeleydb.uvl", features: 76, constraints: 20, forcedOn: 1, forcedOf: 0},
	{file: "uvl/axtls.uvl", features: 96, constraints: 14, forcedOn: 24, forcedOf: 11},
	{file: "uvl/uclibc.uvl", features: 313, constraints: 56, forcedOn: 44, forcedOf: 31},
	{file: "uvl/busybox-2007-05-20.uvl", features: 439, constraints: 463, forcedOn: 6, forcedOf: 0},
	{file: "uvl/ecos-xsengine.uvl", features: 1273, constraints: 886, forcedOn: 6, forcedOf: 42},
	{file: "uvl/financialservices-2017-05-22.uvl", features: 557, constraints: 1001, forcedOn: 29, forcedOf: 0},
	{file: "uvl/automotive01.uvl", features: 2513, constraints: 2833, forcedOn: 94, forcedOf: 185},
	{file: "uvl/dopler-asej1.uvl", features: 109, constraints: 96, forcedOn: 1, forcedOf: 0},
	{file: "dimacs/berkeleydb.dimacs", features: 117, clauses: 417},
	{file: "dimacs/printer.dimacs", features: 172, clauses: 309},
	{file: "dimacs/embtoolkit.dimacs", features: 1179, clauses: 5414},
	{file: "dimacs/busybox-1.18.0.dimacs", features: 6796, clauses: 17836},
	{file: "dimacs/uclibc-0.9.33.2.dimacs", features: 5474, clauses: 20361, generated: 4898},
	{file: "dimacs/financialservices-2018-05-09.dimacs", features: 771, clauses: 7238},
	{file: "dimacs/automotive01.dimacs", features: 2513, clauses: 10300},
	// The same model as uvl/financialservices-2017-05-22.uvl, its features
	// named otherwise (TestFeatureIDETwins).
	{file: "featureide/financialservices-2017-05-22.xml", features: 557, constraints: 1001, forcedOn: 29, forcedOf: 0},
	{file: "featureide/pc-richmond.xml", features: 377, constraints: 12},
	{file: "featureide/soletta-2015-06-30.xml", features: 101, constraints: 186},
	{file: "featureide/tankwar.xml", features: 144},
	{file: "featureide/printer-sxfm.xml", features: 172},
}

func read(t *testing.T, dir, file string) *feature.Model {
	t.Helper()
	var m *feature.Model
	var err error
	if strings.HasSuffix(file, ".uvl") {
		m, err = uvl.Load(os.DirFS(dir), file)
	} else {
		var src []byte
		if src, err = os.ReadFile(filepath.Join(dir, file)); err == nil && strings.HasSuffix(file, ".xml") {
			m, err = featureide.Parse(src)
		} else if err == nil {
			m, err = dimacs.Parse(src)
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

// Every real model loads, with the features its README lists; the
// backbone of each UVL model's CNF is the one found independently.
//
// automotive01 is in the folder twice: as UVL (from the UVL models
// collection) and as a CNF file (from the feature-model benchmark). Both name
// the same 2,513 features, but they are not the same version: the CNF file
// has 17 clauses the UVL model does not imply (such as
// !N_100300__F_100330 | N_100300__F_100331), and none of the UVL model's
// relations and constraints is missing from it. So its backbone holds the
// UVL model's, and more: 100 forced on and 195 forced off. With -short the
// backbones of the models of more than 1,000 features are left out.
func TestRealModels(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	known := map[string]bool{}
	type forced struct{ on, off map[string]bool }
	backbones := map[string]forced{}
	for _, rm := range realModels {
		known[rm.file] = true
		t.Run(rm.file, func(t *testing.T) {
			m := read(t, dir, rm.file)
			generated := 0
			for _, f := range m.Features {
				if f.Generated {
					generated++
				}
			}
			if len(m.Features) != rm.features || len(m.Clauses) != rm.clauses || len(m.Constraints) != rm.constraints || generated != rm.generated {
				t.Errorf("%d features (%d generated), %d clauses, %d constraints; want %d (%d), %d, %d",
					len(m.Features), generated, len(m.Clauses), len(m.Constraints), rm.features, rm.generated, rm.clauses, rm.constraints)
			}
			if rm.forcedOn == 0 && !strings.Contains(rm.file, "automotive01") {
				return // no backbone found independently to compare with
			}
			if testing.Short() && len(m.Features) > 1000 {
				t.Log("backbone not computed with -short: a solver call per feature of a large model")
				return
			}
			on, off, sat := backbone(t, m.CNF())
			if !sat {
				t.Fatal("the model has no configuration")
			}
			t.Logf("%d features, forced on %d, forced off %d", len(m.Features), len(on), len(off))
			if rm.forcedOn > 0 && (len(on) != rm.forcedOn || len(off) != rm.forcedOf) {
				t.Errorf("backbone %d on / %d off, want %d / %d", len(on), len(off), rm.forcedOn, rm.forcedOf)
			}
			b := forced{map[string]bool{}, map[string]bool{}}
			for _, i := range on {
				b.on[m.Features[i].Name] = true
			}
			for _, i := range off {
				b.off[m.Features[i].Name] = true
			}
			backbones[rm.file] = b
		})
	}
	t.Run("automotive01 twice", func(t *testing.T) {
		u, d := backbones["uvl/automotive01.uvl"], backbones["dimacs/automotive01.dimacs"]
		if u.on == nil || d.on == nil {
			t.Skip("a backbone is missing")
		}
		for _, set := range []struct {
			from, to map[string]bool
			what     string
		}{{u.on, d.on, "on"}, {u.off, d.off, "off"}} {
			for n := range set.from {
				if !set.to[n] {
					t.Errorf("%s is forced %s by the UVL model, not by the CNF file", n, set.what)
				}
			}
		}
		if len(d.on) != 100 || len(d.off) != 195 {
			t.Errorf("the CNF file forces %d on and %d off, want 100 and 195", len(d.on), len(d.off))
		}
		m := read(t, dir, "dimacs/automotive01.dimacs")
		for _, f := range read(t, dir, "uvl/automotive01.uvl").Features {
			if _, ok := m.ID(f.Name); !ok {
				t.Fatalf("%s is in the UVL model, not in the CNF file", f.Name)
			}
		}
	})
	// A model added to the folder loads too, or is refused with a position
	// and a reason.
	for _, sub := range []string{"uvl", "dimacs", "featureide"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := sub + "/" + e.Name()
			if known[name] {
				continue
			}
			t.Run(name, func(t *testing.T) {
				var m *feature.Model
				var err error
				switch src, rerr := os.ReadFile(filepath.Join(dir, name)); {
				case sub == "uvl":
					m, err = uvl.Load(os.DirFS(dir), name)
				case rerr != nil:
					t.Fatal(rerr)
				case sub == "featureide":
					m, err = featureide.Parse(src)
				default:
					m, err = dimacs.Parse(src)
				}
				var fe *feature.Error
				switch {
				case err == nil:
					t.Logf("not in this test's table: loads, %d features", len(m.Features))
				case errors.As(err, &fe) && fe.Line > 0 && fe.Msg != "":
					t.Logf("not in this test's table: refused: %v", err)
				default:
					t.Errorf("refused without a position: %v", err)
				}
			})
		}
	}
}
