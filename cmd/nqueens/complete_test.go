package main

import (
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// complete -model finishes the kernel's configuration: its fewest and most
// features (3 and 6; under Linux the fewest is Kernel, Arch, Linux, MMU),
// exact on every backend, every feature once; uniform on the bdd backend.
func TestCompleteModel(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	for _, tc := range []struct {
		backend, how, sel string
		want              int
		selected          []string
	}{
		{"bdd", "fewest", "", 3, []string{"Kernel", "Arch", "Bare"}},
		{"sat", "fewest", "Linux", 4, []string{"Kernel", "Arch", "Linux", "MMU"}},
		{"sat-plain", "most", "", 6, nil},
		{"bdd", "most", "Linux", 6, []string{"Kernel", "Arch", "Linux", "MMU", "Debug", "Trace, full"}},
		{"sat", "", "", 3, []string{"Kernel", "Arch", "Bare"}},
	} {
		args := []string{"complete", "-json", "-backend", tc.backend, "-model", kernel}
		if tc.how != "" {
			args = append(args, "-how", tc.how)
		}
		if tc.sel != "" {
			args = append(args, "-select", tc.sel)
		}
		code, out, errOut := runArgs(args...)
		var r modelCompleteResult
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %s%s", args, code, out, errOut)
		}
		if r.Selected != tc.want || len(r.Select) != tc.want || len(r.Select)+len(r.Deselect) != 8 || r.Exact == nil || !*r.Exact || *r.Bound != tc.want {
			t.Errorf("%q: %+v, want %d selected, exact", args, r, tc.want)
		}
		if tc.selected != nil && !slices.Equal(r.Select, tc.selected) {
			t.Errorf("%q: selects %v, want %v", args, r.Select, tc.selected)
		}
	}
	code, out, errOut := runArgs("complete", "-model", kernel, "-how", "uniform", "-select", "Debug", "-seed", "3")
	if code != 0 || !strings.Contains(out, "features selected, drawn uniformly") || !strings.Contains(out, "Debug") {
		t.Errorf("uniform: exit %d, %s%s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"complete", "-n", "8"}, 2, "-model is required"},
		{[]string{"complete", "-model", kernel, "-how", "best"}, 2, "-how"},
		{[]string{"complete", "-model", kernel, "-backend", "sat", "-how", "uniform"}, 1, "does not draw configurations uniformly"},
		{[]string{"complete", "-model", kernel, "-select", "Linux,NOMMU"}, 1, "no configuration keeps +Linux, +NOMMU"},
	} {
		code, out, errOut := runArgs(tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d saying %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}

// analyze -model -config takes the decisions of a configuration file, in
// any format, before -select and -deselect; a file that names unknown
// features is the command line's mistake, one whose decisions conflict or
// that does not read the work's, each said in one line.
func TestAnalyzeModelConfig(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	for _, tc := range []struct{ name, text string }{
		{"c.json", `{"select":["Linux"],"forced_on":["MMU"]}`},
		{"c.config", "CONFIG_Linux=y\n# Forced by these decisions and the model\nCONFIG_MMU=y\n"},
		{"c.csv", "feature,manual,automatic\nLinux,selected,\nMMU,,selected\n"},
		{"c.xml", `<configuration><feature manual="selected" name="Linux"/><feature automatic="selected" name="MMU"/></configuration>`},
	} {
		path := writeModel(t, tc.name, tc.text)
		code, out, errOut := runArgs("analyze", "-json", "-backend", "sat", "-model", kernel, "-config", path, "-deselect", "Debug")
		var r modelAnalyzeResult
		if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
			t.Fatalf("%s: exit %d, %s%s", tc.name, code, out, errOut)
		}
		if !slices.Equal(r.Select, []string{"Linux"}) || !slices.Equal(r.Deselect, []string{"Debug"}) || !slices.Equal(r.ForcedOn, []string{"Kernel", "Arch", "MMU"}) {
			t.Errorf("%s: %+v, want Linux selected (MMU forced, not a decision), Debug deselected", tc.name, r)
		}
	}
	conflict := writeModel(t, "conflict.json", `{"select":["Linux","NOMMU","Debug"]}`)
	unknown := writeModel(t, "unknown.json", `{"select":["Linux","Wings"]}`)
	broken := writeModel(t, "broken.xml", "<configuration>\n<feature name=\"Linux\" manual=\"on\"/>\n</configuration>")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"analyze", "-backend", "sat", "-model", kernel, "-config", conflict}, 1, "no configuration keeps +Linux, +NOMMU"},
		{[]string{"analyze", "-backend", "sat", "-model", kernel, "-config", unknown}, 2, `"Wings"`},
		{[]string{"analyze", "-backend", "sat", "-model", kernel, "-config", broken}, 1, "2:1: expected manual="},
		{[]string{"analyze", "-backend", "sat", "-model", kernel, "-config", conflict, "-select", "Linux"}, 2, "decided twice"},
		{[]string{"analyze", "-backend", "sat", "-model", kernel, "-config", conflict, "-config-format", "yaml"}, 2, "-config-format"},
		{[]string{"analyze", "-config", conflict}, 2, "-config needs -model"},
	} {
		code, out, errOut := runArgs(tc.args...)
		if code != tc.code || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d saying %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}

// sample -model prints the sample as CSV, a row per configuration, every
// configuration one of the kernel's keeping the decisions, and says its
// coverage in one line on stderr; -uniform draws on the bdd backend.
func TestSampleModel(t *testing.T) {
	kernel := writeModel(t, "kernel.uvl", kernelUVL)
	m, err := uvl.Parse([]byte(kernelUVL))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"sample", "-backend", "sat", "-model", kernel, "-select", "Debug"},
		{"sample", "-model", kernel, "-select", "Debug", "-uniform", "4", "-seed", "2"},
	} {
		code, out, errOut := runArgs(args...)
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if code != 0 || err != nil || len(rows) < 2 || !slices.Equal(rows[0], []string{"configuration", "Kernel", "Arch", "Linux", "Bare", "MMU", "NOMMU", "Debug", "Trace, full"}) {
			t.Fatalf("%q: exit %d, %v\n%s%s", args, code, err, out, errOut)
		}
		for _, row := range rows[1:] {
			config := make([]bool, len(m.Features))
			for f := range config {
				config[f] = row[f+1] == "1"
			}
			if !m.Valid(config) || !config[6] {
				t.Errorf("%q: row %v is no configuration keeping Debug", args, row)
			}
		}
		if args[len(args)-1] == "Debug" && !strings.Contains(errOut, "(100.0 %)") {
			t.Errorf("%q: stderr %q, want the full coverage said", args, errOut)
		}
		if args[len(args)-1] == "2" && len(rows) != 5 {
			t.Errorf("%q: %d rows, want 4 configurations", args, len(rows)-1)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"sample", "-model", kernel, "-t", "3"}, 2, "only pairs"},
		{[]string{"sample", "-model", kernel, "-backend", "sat", "-uniform", "2"}, 1, "does not draw configurations uniformly"},
		{[]string{"sample", "-n", "8"}, 2, "-model is required"},
	} {
		code, out, errOut := runArgs(tc.args...)
		if code != tc.code || out != "" || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d saying %q", tc.args, code, out, errOut, tc.code, tc.msg)
		}
	}
}
