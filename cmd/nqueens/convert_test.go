package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// convert writes the model in each format; what it writes reads back with
// the same features and the same configurations, each assignment judged by
// both models' own meaning (the kernel model has 16, as count says).
func TestConvert(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	m, err := modelfile.Load(kernel, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"uvl", "dimacs", "featureide"} {
		code, out, errOut := runArgs("convert", "-model", kernel, "-to", to)
		if code != 0 || errOut != "" {
			t.Fatalf("-to %s: exit %d, %s", to, code, errOut)
		}
		back, err := modelfile.Parse("", []byte(out), "")
		if err != nil || string(back.Format) != to {
			t.Fatalf("-to %s: read back as %v: %v\n%s", to, back, err, out)
		}
		if to == "dimacs" && !strings.Contains(out, "c 8 Trace, full\n") {
			t.Errorf("-to dimacs: no name line for feature 8:\n%s", out)
		}
		n := len(m.Features)
		at := make([]int, n)
		for i, f := range m.Features {
			j, ok := back.ID(f.Name)
			if !ok || len(back.Features) != n {
				t.Fatalf("-to %s: %d features, %q among them %v", to, len(back.Features), f.Name, ok)
			}
			at[i] = j
		}
		count := 0
		a, b := make([]bool, n), make([]bool, n)
		for bits := range 1 << n {
			for i := range n {
				a[i] = bits>>i&1 == 1
				b[at[i]] = a[i]
			}
			if m.Valid(a) != back.Valid(b) {
				t.Fatalf("-to %s: configuration %b judged otherwise", to, bits)
			}
			if m.Valid(a) {
				count++
			}
		}
		if count != 16 {
			t.Errorf("-to %s: %d configurations, want 16", to, count)
		}
	}
}

// A real FeatureIDE model converts to UVL with its features; SPLOT's
// printer to FeatureIDE XML.
func TestConvertRealModels(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	for _, tc := range []struct {
		file, to string
		features int
		format   feature.Format
	}{
		{"featureide/financialservices-2017-05-22.xml", "uvl", 557, feature.UVL},
		{"featureide/printer-sxfm.xml", "featureide", 172, feature.FeatureIDE},
		{"uvl/axtls.uvl", "featureide", 96, feature.FeatureIDE},
	} {
		code, out, errOut := runArgs("convert", "-model", filepath.Join(dir, tc.file), "-to", tc.to)
		if code != 0 {
			t.Fatalf("%s: exit %d, %s", tc.file, code, errOut)
		}
		m, err := modelfile.Parse("", []byte(out), "")
		if err != nil || m.Format != tc.format || len(m.Features) != tc.features {
			t.Fatalf("%s -to %s: read back: %v", tc.file, tc.to, err)
		}
	}
}

// The real models the bdd backend counts at once keep their number of
// configurations through each conversion, counted by count -backend bdd on
// the file and on what convert wrote (a CNF file written as UVL or XML gets
// a root, which every configuration selects; a model written as DIMACS
// needs no auxiliary variable that could change the count here, and the
// count says so by being equal).
func TestConvertKeepsCounts(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	tmp := t.TempDir()
	count := func(path string) string {
		code, out, errOut := runArgs("count", "-model", path, "-backend", "bdd", "-cache-dir", "off", "-json")
		var r struct{ Configurations *string }
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Configurations == nil {
			t.Fatalf("count %s: exit %d, %s%s", path, code, out, errOut)
		}
		return *r.Configurations
	}
	for _, file := range []string{"featureide/tankwar.xml", "featureide/printer-sxfm.xml", "featureide/soletta-2015-06-30.xml",
		"featureide/pc-richmond.xml", "uvl/berkeleydb.uvl", "uvl/axtls.uvl", "dimacs/berkeleydb.dimacs"} {
		want := count(filepath.Join(dir, file))
		for _, to := range []string{"uvl", "dimacs", "featureide"} {
			code, out, errOut := runArgs("convert", "-model", filepath.Join(dir, file), "-to", to)
			if code != 0 {
				t.Fatalf("%s -to %s: exit %d, %s", file, to, code, errOut)
			}
			path := filepath.Join(tmp, "converted."+map[string]string{"uvl": "uvl", "dimacs": "dimacs", "featureide": "xml"}[to])
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := count(path); got != want {
				t.Errorf("%s -to %s: %s configurations, %s before", file, to, got, want)
			}
		}
		t.Logf("%s: %s configurations in each format", file, want)
	}
}

// Mistakes on convert's command line are the command line's (status 2),
// a model the format cannot hold the work's (status 1): one line, nothing
// on stdout.
func TestConvertErrors(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	quote := writeModel(t, "quote.dimacs", "c 1 say \"hi\"\np cnf 1 0\n")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"convert", "-to", "uvl"}, 2, "-model is required"},
		{[]string{"convert", "-model", kernel}, 2, `-to "": want uvl, dimacs or featureide`},
		{[]string{"convert", "-model", kernel, "-to", "sxfm"}, 2, `-to "sxfm": want uvl, dimacs or featureide`},
		{[]string{"convert", "-model", kernel, "-to", "uvl", "-n", "8"}, 2, "flag provided but not defined: -n"},
		{[]string{"convert", "-model", filepath.Join(t.TempDir(), "none.uvl"), "-to", "uvl"}, 2, "no such file"},
		{[]string{"convert", "-model", quote, "-to", "uvl"}, 1, "UVL has no way to write a double quote in a name"},
	} {
		code, out, errOut := runArgs(tc.args...)
		if code != tc.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d and one line saying %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}
