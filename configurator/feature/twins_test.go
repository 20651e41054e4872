package feature_test

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// isomorphism returns, for each feature of a, the feature of b at the same
// place in the tree: the same kinds of groups under the same parent, the
// children of a group in the same order. It fails t where the trees
// differ.
func isomorphism(t *testing.T, a, b *feature.Model) []int {
	t.Helper()
	groups := func(m *feature.Model) map[int][]int {
		g := map[int][]int{}
		for i, x := range m.Groups {
			g[x.Parent] = append(g[x.Parent], i)
		}
		return g
	}
	ga, gb := groups(a), groups(b)
	to := make([]int, len(a.Features))
	var walk func(x, y int)
	walk = func(x, y int) {
		to[x] = y
		if len(ga[x]) != len(gb[y]) || a.Features[x].Abstract != b.Features[y].Abstract {
			t.Fatalf("%s has %d groups (abstract %v), %s %d (%v)", a.Features[x].Name, len(ga[x]), a.Features[x].Abstract,
				b.Features[y].Name, len(gb[y]), b.Features[y].Abstract)
		}
		for _, gx := range ga[x] {
			i := slices.IndexFunc(gb[y], func(g int) bool { return b.Groups[g].Kind == a.Groups[gx].Kind })
			if i < 0 {
				t.Fatalf("%s has a %s group, %s none", a.Features[x].Name, a.Groups[gx].Kind, b.Features[y].Name)
			}
			cx, cy := a.Groups[gx].Children, b.Groups[gb[y][i]].Children
			if len(cx) != len(cy) {
				t.Fatalf("%s: a %s group of %d, of %d", a.Features[x].Name, a.Groups[gx].Kind, len(cx), len(cy))
			}
			for j := range cx {
				walk(cx[j], cy[j])
			}
		}
	}
	walk(a.Root, b.Root)
	return to
}

// The FeatureIDE XML and the UVL files of FinancialServices (2017-05-22)
// are one model whose features are named otherwise (a hash in two
// encodings): the same tree, place for place, and the same 1,001
// constraints once the names are mapped, so the same configurations; and
// the same backbone, the one found independently (TestRealModels checks
// both against it). SPLOT's printer and the benchmark's CNF file of it have
// the same 172 features (the CNF's names are SXFM's without blanks, a
// hyphen made an underscore) and the same backbone but for one feature
// that the export lost.
func TestFeatureIDETwins(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	t.Run("financialservices", func(t *testing.T) {
		x := read(t, dir, "featureide/financialservices-2017-05-22.xml")
		u := read(t, dir, "uvl/financialservices-2017-05-22.uvl")
		if len(x.Features) != len(u.Features) || len(x.Constraints) != len(u.Constraints) {
			t.Fatalf("%d features and %d constraints, %d and %d", len(x.Features), len(x.Constraints), len(u.Features), len(u.Constraints))
		}
		to := isomorphism(t, x, u)
		texts := map[string]int{}
		for _, c := range x.Constraints {
			texts[uvl.FormatExpr(c.Expr, func(f int) string { return u.Features[to[f]].Name })]++
		}
		for _, c := range u.Constraints {
			text := uvl.FormatExpr(c.Expr, func(f int) string { return u.Features[f].Name })
			if texts[text] == 0 {
				t.Fatalf("the UVL constraint %s is not in the XML", text)
			}
			texts[text]--
		}
	})
	t.Run("printer", func(t *testing.T) {
		s := read(t, dir, "featureide/printer-sxfm.xml")
		d := read(t, dir, "dimacs/printer.dimacs")
		if len(s.Features) != len(d.Features) {
			t.Fatalf("%d features and %d", len(s.Features), len(d.Features))
		}
		cnfName := strings.NewReplacer(" ", "", "-", "_")
		names := func(m *feature.Model, fs []int, rename func(string) string) []string {
			var out []string
			for _, f := range fs {
				out = append(out, rename(m.Features[f].Name))
			}
			slices.Sort(out)
			return out
		}
		for _, f := range s.Features {
			if _, ok := d.ID(cnfName.Replace(f.Name)); !ok {
				t.Fatalf("%q (%q) is not in the CNF file", f.Name, cnfName.Replace(f.Name))
			}
		}
		son, soff, sat1 := backbone(t, s.CNF())
		don, doff, sat2 := backbone(t, d.CNF())
		same := func(s string) string { return s }
		// One difference, FeatureIDE's: SXFM's group [1,1] of the one
		// feature Duplex under Printed Sides, exactly one of one, forces
		// Duplex with its parent; the CNF file, FeatureIDE's export, took
		// a group of one child for an optional child.
		wantOn := names(d, don, same)
		wantOn = append(wantOn, "Duplex")
		slices.Sort(wantOn)
		if !sat1 || !sat2 || !slices.Equal(names(s, son, cnfName.Replace), wantOn) ||
			!slices.Equal(names(s, soff, cnfName.Replace), names(d, doff, same)) {
			t.Fatalf("backbones %d on / %d off and %d / %d differ otherwise:\n%q\n%q", len(son), len(soff), len(don), len(doff), names(s, son, cnfName.Replace), wantOn)
		}
		t.Logf("%d features, forced on %d (SXFM) and %d (CNF), forced off %d", len(s.Features), len(son), len(don), len(soff))
	})
}

// Every real model, written in each format and read back, keeps its
// features and its backbone (by gophersat, on the features it had), and
// the same number of configurations where it has none (a backbone found
// by a solver call per feature, a far stronger check than equal counts
// on models too large to count). With -short, models of more than 600
// features are left out.
func TestRealModelsWriteRead(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	for _, rm := range realModels {
		t.Run(rm.file, func(t *testing.T) {
			m := read(t, dir, rm.file)
			if len(m.Features) > 600 && testing.Short() || len(m.Features) > 3000 {
				t.Skip("a solver call per feature, per format")
			}
			forced := func(m *feature.Model, c *feature.CNF) map[string]bool {
				on, off, sat := backbone(t, c)
				if !sat {
					t.Fatal("no configuration")
				}
				b := map[string]bool{}
				for _, f := range on {
					b[m.Features[f].Name] = true
				}
				for _, f := range off {
					b[m.Features[f].Name] = false
				}
				return b
			}
			want := forced(m, m.CNF())
			for _, f := range []feature.Format{feature.UVL, feature.DIMACS, feature.FeatureIDE} {
				var out bytes.Buffer
				if err := modelfile.Write(&out, m, f); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				back, err := modelfile.Parse("", out.Bytes(), f)
				if err != nil {
					t.Fatalf("%s: read back: %v", f, err)
				}
				for _, ft := range m.Features {
					if _, ok := back.ID(ft.Name); !ok {
						t.Fatalf("%s: %q is missing", f, ft.Name)
					}
				}
				got := forced(back, back.CNF())
				maps.DeleteFunc(got, func(name string, _ bool) bool { _, ok := m.ID(name); return !ok })
				if !maps.Equal(got, want) {
					t.Fatalf("%s: %d features forced read back, %d before", f, len(got), len(want))
				}
			}
			t.Logf("%d features, %d forced, in each format", len(m.Features), len(want))
		})
	}
}
