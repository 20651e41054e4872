package modelfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      feature.Format
	}{
		{"m.uvl", "p cnf 1 0\n", feature.UVL}, // the name decides
		{"m.CNF", "features\n\tA\n", feature.DIMACS},
		{"m.dimacs", "", feature.DIMACS},
		{"", "c a comment\nc 1 A\n\np cnf 1 1\n1 0\n", feature.DIMACS},
		{"", "p\tcnf 1 1\n", feature.DIMACS},
		{"upload", "namespace Car\nfeatures\n\tCar\n", feature.UVL},
		{"", "features\n\tc\n", feature.UVL},
		{"", "cars\n", feature.UVL},
		{"", "", feature.UVL},
		{"m.xml", "<?xml version=\"1.0\"?>\n<!-- <feature_model> -->\n<featureModel><struct/></featureModel>", feature.FeatureIDE},
		{"", "\uFEFF  <extendedFeatureModel>", feature.FeatureIDE},
		{"printer.xml", "<!-- made by SPLOT -->\n<feature_model name=\"P\">", feature.SXFM},
		{"", "<?xml version=\"1.0\"?><!DOCTYPE x><feature_model>", feature.SXFM},
		{"", "\uFEFFc 1 A\np cnf 1 0\n", feature.DIMACS}, // a byte order mark is passed over
		{"m.uvl", "<featureModel>", feature.UVL},
	} {
		if got := Detect(tc.name, []byte(tc.src)); got != tc.want {
			t.Errorf("Detect(%q, %q) = %q, want %q", tc.name, tc.src, got, tc.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for s, want := range map[string]feature.Format{"": "", "uvl": feature.UVL, "DIMACS": feature.DIMACS, "cnf": feature.DIMACS,
		"featureide": feature.FeatureIDE, "FeatureIDE": feature.FeatureIDE, "sxfm": feature.SXFM, "splot": feature.SXFM} {
		if got, err := ParseFormat(s); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", s, got, err, want)
		}
	}
	for _, s := range []string{"yaml", "xml"} { // xml: FeatureIDE's or SPLOT's?
		if _, err := ParseFormat(s); err == nil {
			t.Errorf("ParseFormat(%s) accepted", s)
		}
	}
}

// Load reads both formats, a CNF file named after its file; a wrong
// format is the reader's complaint with a position.
func TestLoad(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	m, err := Load(filepath.Join(dir, "dimacs", "berkeleydb.dimacs"), "")
	if err != nil || m.Name != "berkeleydb" || m.Format != feature.DIMACS || len(m.Features) != 117 {
		t.Fatalf("berkeleydb.dimacs: %v, %v", m, err)
	}
	m, err = Load(filepath.Join(dir, "uvl", "axtls.uvl"), "")
	if err != nil || m.Format != feature.UVL || len(m.Features) != 96 {
		t.Fatalf("axtls.uvl: %v", err)
	}
	_, err = Load(filepath.Join(dir, "uvl", "axtls.uvl"), feature.DIMACS)
	var fe *feature.Error
	if !errors.As(err, &fe) || fe.Line < 1 {
		t.Errorf("axtls.uvl read as DIMACS: %v, want a reader's error with its line", err)
	}
	for _, tc := range []struct {
		file     string
		format   feature.Format
		features int
	}{
		{"featureide/tankwar.xml", feature.FeatureIDE, 144},
		{"featureide/printer-sxfm.xml", feature.SXFM, 172},
	} {
		m, err = Load(filepath.Join(dir, tc.file), "")
		if err != nil || m.Format != tc.format || len(m.Features) != tc.features {
			t.Fatalf("%s: %v", tc.file, err)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.uvl"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := Parse("x", []byte("features\n\tA\n"), "xml"); err == nil {
		t.Error("an unknown format parsed")
	}
}

// ParseMax refuses a model of more features than the bound, in every
// format, at the place of the first feature past it; a CNF file at its
// header.
func TestParseMax(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want string
	}{
		{"features\n\tA\n\t\toptional\n\t\t\tB\n\t\t\tC\n", "5:4: expected at most 2 features, found more: C is feature 3"},
		{"<featureModel><struct><and name=\"A\">\n<feature name=\"B\"/>\n<feature name=\"C\"/></and></struct></featureModel>", "3:1: expected at most 2 features, found more: C is feature 3"},
		{"c 1 A\np cnf 3 0\n", "2:1: expected at most 2 variables, found 3"},
	} {
		m, err := ParseMax("", []byte(tc.src), "", 2)
		var fe *feature.Error
		if !errors.As(err, &fe) || !errors.Is(err, feature.ErrLimit) || err.Error() != tc.want || fe.Quote == "" {
			t.Errorf("%q: %v, %v; want %s", tc.src, m, err, tc.want)
		}
		if m, err := ParseMax("", []byte(tc.src), "", 3); err != nil || len(m.Features) != 3 {
			t.Errorf("%q within the bound: %v", tc.src, err)
		}
	}
}
