package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// kernelUVL is a small feature model: Linux needs MMU, which excludes
// NOMMU.
const kernelUVL = `namespace Kernel
features
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
			"Trace, full"
constraints
	Linux => MMU
	MMU => !NOMMU
`

// writeModel writes text to a file named name in a new directory and
// returns its path.
func writeModel(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// count -model -json prints exactly the fields of its contract, the count
// as a decimal string; a CNF file without a name of its own is named after
// its file, and its format told from its content.
func TestCountModelJSON(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	cnf := writeModel(t, "three", "c 1 a\nc 2 b\np cnf 3 1\n1 2 0\n")
	for _, tc := range []struct {
		args     []string
		model    string
		format   string
		features int
		count    string
	}{
		{[]string{"-model", kernel, "-backend", "sat"}, "Kernel", "uvl", 8, "16"},
		{[]string{"-model", kernel, "-backend", "sat-plain"}, "Kernel", "uvl", 8, "16"},
		{[]string{"-model", cnf, "-backend", "sat"}, "three", "dimacs", 3, "6"},
		{[]string{"-model", cnf, "-backend", "sat", "-format", "dimacs"}, "three", "dimacs", 3, "6"},
		{[]string{"-model", "example:computer", "-backend", "sat"}, "Computer", "uvl", 20, "606"},
		{[]string{"-model", "example:smarthome", "-backend", "sat-plain"}, "smarthome", "dimacs", 14, "135"},
		{[]string{"-model", "queens-8", "-backend", "sat"}, "8-queens", "board", 64, "92"},
		{[]string{"-model", "queens-6", "-backend", "sat-plain"}, "6-queens", "board", 36, "4"},
	} {
		code, out, errOut := runArgs(append([]string{"count", "-json"}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.args, code, errOut)
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%q: %v: %s", tc.args, err, out)
		}
		var keys []string
		for k := range r {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := []string{"backend", "compile_ms", "configurations", "count_ms", "features", "format", "model", "peak_bytes"}
		if !slices.Equal(keys, want) {
			t.Errorf("%q: fields %v, want %v", tc.args, keys, want)
		}
		if r["model"] != tc.model || r["format"] != tc.format || r["features"] != float64(tc.features) || r["configurations"] != tc.count {
			t.Errorf("%q: %s", tc.args, out)
		}
	}
	// A board as a model on the bdd: its engine for boards, the diagram
	// of the board's row order.
	if code, out, errOut := runArgs("count", "-json", "-model", "queens-8", "-backend", "bdd", "-cache-dir", "off"); code != 0 ||
		!strings.Contains(out, `"configurations":"92","nodes":2451,`) {
		t.Errorf("queens-8 on bdd: exit %d, %s%s", code, out, errOut)
	}
	// The bdd backend in each of its orders: the same count, and the
	// diagram's size besides.
	for _, order := range []string{"auto", "model", "force"} {
		code, out, errOut := runArgs("count", "-json", "-model", kernel, "-backend", "bdd", "-model-order", order, "-cache-dir", "off")
		var r map[string]any
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || r["configurations"] != "16" || r["nodes"] == nil {
			t.Errorf("bdd, -model-order %s: exit %d, %s%s", order, code, out, errOut)
		}
	}
	// A bundled example that is not there is a usage error that lists them.
	if code, _, errOut := runArgs("count", "-model", "example:plane", "-backend", "sat"); code != 2 || !strings.Contains(errOut, `no bundled example "plane" (there are car, computer, smarthome)`) {
		t.Errorf("example:plane: exit %d: %s", code, errOut)
	}
}

// The real models count (berkeleydb's CNF has 10^1.51 configurations by
// BuDDy: shared/README.md), or say they are not counted.
func TestCountRealModel(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	code, out, errOut := runArgs("count", "-backend", "sat", "-model", filepath.Join(dir, "dimacs", "berkeleydb.dimacs"))
	if code != 0 || !strings.Contains(out, "configurations  32\n") || !strings.Contains(out, "features        117") {
		t.Errorf("berkeleydb: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runArgs("count", "-backend", "sat", "-json", "-model", filepath.Join(dir, "uvl", "automotive01.uvl"))
	if code != 0 || !strings.Contains(out, `"configurations":null`) || !strings.Contains(out, `"features":2513`) {
		t.Errorf("automotive01: exit %d\n%s", code, out)
	}
}

// analyze -model -json lists every feature once across its five lists.
func TestAnalyzeModelJSON(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	code, out, errOut := runArgs("analyze", "-json", "-backend", "sat", "-model", kernel, "-select", "Linux", "-deselect", `"Trace, full"`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r modelAnalyzeResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	lists := map[string][]string{"select": r.Select, "deselect": r.Deselect, "forced_on": r.ForcedOn, "forced_off": r.ForcedOff, "free": r.Free}
	want := map[string][]string{
		"select": {"Linux"}, "deselect": {"Trace, full"},
		"forced_on": {"Kernel", "Arch", "MMU"}, "forced_off": {"Bare", "NOMMU"}, "free": {"Debug"},
	}
	for k, l := range lists {
		if !slices.Equal(l, want[k]) {
			t.Errorf("%s: %v, want %v", k, l, want[k])
		}
	}
	if r.Configurations == nil || *r.Configurations != "2" || r.AtLeast {
		t.Errorf("configurations %v, want 2", r.Configurations)
	}
}

// explain -model says why a feature is forced, every reason with the
// parts of the model that carry it, in the model's words.
func TestExplainModel(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	code, out, errOut := runArgs("explain", "-backend", "sat", "-model", kernel, "-select", "Linux,MMU", "-feature", "NOMMU")
	want := `"NOMMU" is forced off by your decisions
reasons    1. +Linux
              constraint at 15:2: Linux => MMU: so "MMU" is selected
              constraint at 16:2: MMU => !NOMMU: violated
           2. +MMU
              constraint at 16:2: MMU => !NOMMU: violated
make room  undo +Linux, +MMU
`
	if code != 0 || !strings.HasPrefix(out, want) {
		t.Errorf("exit %d\n%s%s\nwant it to start\n%s", code, out, errOut, want)
	}
	code, out, _ = runArgs("explain", "-json", "-backend", "sat", "-model", kernel, "-feature", "Kernel")
	var r modelExplainResult
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil || !r.Core || r.State != "forced_on" || r.MakeRoom != nil ||
		len(r.Reasons) != 1 || len(r.Reasons[0].Select)+len(r.Reasons[0].Deselect) != 0 || len(r.Constraints) != 1 {
		t.Errorf("the root: exit %d, %s", code, out)
	}
}

// Mistakes with -model are the command line's (status 2), decisions no
// configuration keeps and files that do not parse the work's (status 1),
// each one line.
func TestModelErrors(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	broken := writeModel(t, "broken.uvl", "features\n\tA\n\t\tsometimes\n\t\t\tB\n")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"count", "-model", filepath.Join(t.TempDir(), "none.uvl")}, 2, "no such file"},
		{[]string{"count", "-model", kernel, "-n", "8"}, 2, "-n is for boards"},
		{[]string{"count", "-format", "uvl"}, 2, "-format needs -model"},
		{[]string{"count", "-model", kernel, "-format", "xml"}, 2, `format "xml"`},
		{[]string{"analyze", "-select", "Linux"}, 2, "-select needs -model"},
		{[]string{"analyze", "-model", kernel, "-backend", "sat", "-select", "Linux,Nope"}, 2, `feature "Nope": no such feature`},
		{[]string{"analyze", "-model", kernel, "-backend", "sat", "-select", "Linux", "-deselect", "Linux"}, 2, "decided twice"},
		{[]string{"analyze", "-model", kernel, "-backend", "bdd", "-model-order", "tree"}, 2, `-model-order "tree": want auto, model or force`},
		{[]string{"explain", "-model", kernel, "-backend", "sat"}, 2, "-feature is required"},
		{[]string{"explain", "-feature", "Linux"}, 2, "-feature needs -model"},
		{[]string{"analyze", "-model", kernel, "-backend", "sat", "-select", "Linux,NOMMU"}, 1, "no configuration keeps +Linux, +NOMMU: constraint at 15:2: Linux => MMU; constraint at 16:2: MMU => !NOMMU"},
		{[]string{"explain", "-model", kernel, "-backend", "sat", "-feature", "Debug"}, 1, `"Debug" is free: nothing to explain`},
		{[]string{"count", "-model", broken, "-backend", "sat"}, 1, "3:3:"},
	} {
		code, out, errOut := runArgs(tc.args...)
		if code != tc.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and one line saying %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}

// crosscheck -model walks a small model against the oracle with every
// backend that configures feature models.
func TestCrosscheckModel(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	code, out, errOut := runArgs("crosscheck", "-model", kernel, "-walks", "3", "-steps", "10")
	if code != 0 || !strings.Contains(out, "no disagreements") || !strings.Contains(out, "sat-plain") || !strings.Contains(out, "against the oracle") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}
