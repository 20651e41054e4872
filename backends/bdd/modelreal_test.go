package bdd

import (
	"context"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// realModels are the real models (../shared/models) that CompileModel
// compiles in its default order within seconds, with the backbone of the
// UVL ones (shared/README.md: forced on / forced off, found by an
// independent translation and CryptoMiniSat) and, for the CNF files, the
// count BuDDy finds (-1 when BuDDy compiles none).
var realModels = []struct {
	file    string
	on, off int
	count   string
}{
	{"uvl/berkeleydb.uvl", 1, 0, ""},
	{"uvl/axtls.uvl", 24, 11, ""},
	{"uvl/uclibc.uvl", 44, 31, ""},
	{"uvl/busybox-2007-05-20.uvl", 6, 0, ""},
	{"uvl/dopler-asej1.uvl", 1, 0, ""},
	{"dimacs/printer.dimacs", -1, -1, ""},
	{"dimacs/berkeleydb.dimacs", -1, -1, "32"},
	{"dimacs/embtoolkit.dimacs", -1, -1, ""},
	{"dimacs/busybox-1.18.0.dimacs", -1, -1, ""},
}

// TestRealModels compiles the real models and checks the valid domains of
// the empty configuration against their known backbones, the count of
// the domains against the diagram's and BuDDy's where known, and the first
// configuration by feature.Model.Valid.
func TestRealModels(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	for _, tc := range realModels {
		t.Run(tc.file, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(tc.file, "dimacs/") && tc.file != "dimacs/berkeleydb.dimacs" && tc.file != "dimacs/printer.dimacs" {
				t.Skip("the largest compiles")
			}
			m, err := modelfile.Load(filepath.Join(dir, tc.file), "")
			if err != nil {
				t.Fatal(err)
			}
			sp, err := New(Options{}).CompileModel(t.Context(), m)
			if err != nil {
				t.Fatal(err)
			}
			d, err := sp.Domains(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			on, off := len(d.In(configurator.ForcedOn)), len(d.In(configurator.ForcedOff))
			if tc.on >= 0 && (on != tc.on || off != tc.off) {
				t.Errorf("forced on %d, off %d; want %d, %d", on, off, tc.on, tc.off)
			}
			ms := sp.(*ModelSpace)
			if got := ms.Configurations(); got.Cmp(d.Configurations) != 0 {
				t.Errorf("Domains counts %v, the diagram %v", d.Configurations, got)
			}
			if want, ok := new(big.Int).SetString(tc.count, 10); ok && d.Configurations.Cmp(want) != 0 {
				t.Errorf("%v configurations, want %v", d.Configurations, want)
			}
			c, err := sp.Configuration(t.Context(), nil)
			if err != nil || !m.Valid(c) {
				t.Errorf("Configuration: %v, valid %v", err, err == nil && m.Valid(c))
			}
		})
	}
}

// TestRealModelCounts compiles the real models whose diagrams need no
// preprocessing to compile both ways, and checks that the two count the
// same configurations and agree on every feature's valid domain; where the
// SAT backend counts (few configurations), that it counts the same.
func TestRealModelCounts(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	for _, file := range []string{
		"uvl/berkeleydb.uvl", "uvl/axtls.uvl", "uvl/uclibc.uvl", "uvl/busybox-2007-05-20.uvl",
		"uvl/dopler-asej1.uvl", "dimacs/printer.dimacs", "dimacs/berkeleydb.dimacs", "dimacs/embtoolkit.dimacs",
	} {
		t.Run(file, func(t *testing.T) {
			m, err := modelfile.Load(filepath.Join(dir, file), "")
			if err != nil {
				t.Fatal(err)
			}
			plainCfg := defaultCompile
			plainCfg.plain = true
			sp := compileWith(t, m, OrderForce, defaultCompile)
			plain := compileWith(t, m, OrderForce, plainCfg)
			d, err := sp.Domains(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			pd, err := plain.Domains(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Configurations.Cmp(pd.Configurations) != 0 || !slices.Equal(d.States, pd.States) {
				t.Errorf("preprocessed: %v configurations, %v; not: %v, %v", d.Configurations, d.States, pd.Configurations, pd.States)
			}
			if d.Configurations.Cmp(big.NewInt(20_000)) > 0 {
				return // past what the SAT backend counts
			}
			ssp, err := sat.New(sat.Options{ModelCountCap: 200_000}).CompileModel(t.Context(), m)
			if err != nil {
				t.Fatal(err)
			}
			sd, err := ssp.Domains(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if sd.AtLeast || sd.Configurations == nil || sd.Configurations.Cmp(d.Configurations) != 0 || !slices.Equal(d.States, sd.States) {
				t.Errorf("the diagram: %v configurations, %v; SAT: %v (at least %v), %v", d.Configurations, d.States, sd.Configurations, sd.AtLeast, sd.States)
			}
		})
	}
}

// TestRealModelStopsSoon: a real model that no compile makes within its
// deadline or its budget (automotive01, whose siftings of large diagrams
// take seconds each) stops within a few seconds of passing either, with
// the error that says which.
func TestRealModelStopsSoon(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles for tens of seconds")
	}
	m, err := modelfile.Load(filepath.Join(featuretest.ModelsDir(t), "dimacs/automotive01.dimacs"), "")
	if err != nil {
		t.Fatal(err)
	}
	checkStopsSoon(t, m, []stopCase{
		{"deadline", 0, 5 * time.Second, []error{context.DeadlineExceeded}, "stopped at its deadline"},
		{"budget", 2 << 20, 2 * time.Minute, []error{configurator.ErrTooLarge, robdd.ErrNodeLimit}, "passes 2 MiB"},
	})
}
