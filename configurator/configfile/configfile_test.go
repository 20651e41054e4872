package configfile

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// randomConfiguration gives each feature of m a manual value, an
// automatic one or none, at random.
func randomConfiguration(rng *rand.Rand, m *feature.Model) *Configuration {
	c := &Configuration{Manual: make([]Value, len(m.Features)), Automatic: make([]Value, len(m.Features))}
	for f := range m.Features {
		v := Value(1 + rng.IntN(2))
		switch rng.IntN(3) {
		case 0:
			c.Manual[f] = v
		case 1:
			c.Automatic[f] = v
		}
	}
	return c
}

// roundTrip writes c in every format and reads it back: the same
// configuration, manual and automatic values apart; Kconfig only for a
// model whose names are symbols, ErrNotKconfig otherwise.
func roundTrip(t *testing.T, what string, m *feature.Model, c *Configuration) {
	t.Helper()
	symbols := Kconfig.Fits(m)
	if want := !slices.ContainsFunc(m.Features, func(ft feature.Feature) bool { return !regexp.MustCompile(`^[A-Za-z0-9_]+$`).MatchString(ft.Name) }); symbols != want {
		t.Errorf("%s: Kconfig fits %v, want %v", what, symbols, want)
	}
	for _, f := range Formats {
		var b bytes.Buffer
		err := Write(&b, m, c, f)
		if f == Kconfig && !symbols {
			if !errors.Is(err, ErrNotKconfig) {
				t.Errorf("%s, %s: %v, want ErrNotKconfig", what, f, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s, write %s: %v", what, f, err)
		}
		got, err := Read(b.Bytes(), m, f)
		if err != nil {
			t.Fatalf("%s, read %s back: %v\n%s", what, f, err, b.String())
		}
		if d := Detect(b.Bytes()); d != f {
			t.Errorf("%s: a %s file detected as %s", what, f, d)
		}
		if !slices.Equal(got.Manual, c.Manual) || !slices.Equal(got.Automatic, c.Automatic) {
			t.Fatalf("%s, %s: read back\nmanual %v\nauto   %v\nwant\nmanual %v\nauto   %v\n%s", what, f, got.Manual, got.Automatic, c.Manual, c.Automatic, b.String())
		}
	}
}

// Random models (names with spaces, quotes, dots and non-ASCII letters
// among them) and random CNF files, each with random configurations, go
// through every format and back unchanged.
func TestRoundTripRandomModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 200 {
		n := 1 + rng.IntN(30)
		var m *feature.Model
		var err error
		if trial%2 == 0 {
			m, err = uvl.Parse([]byte(featuretest.RandomModel(rng, n).UVL(rng)))
		} else {
			text, _ := featuretest.RandomCNF(rng, n, n)
			m, err = modelfile.Parse("random.dimacs", []byte(text), feature.DIMACS)
		}
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			roundTrip(t, "random model "+string(rune('0'+trial%10)), m, randomConfiguration(rng, m))
		}
	}
}

// The real models go through every format and back with random
// configurations; the Kconfig names of the Linux-like models among them
// (CONFIG_ symbols) included.
func TestRoundTripRealModels(t *testing.T) {
	dir := featuretest.ModelsDir(t)
	rng := rand.New(rand.NewPCG(6, 6))
	for _, file := range []string{"uvl/busybox-2007-05-20.uvl", "uvl/axtls.uvl", "uvl/automotive01.uvl", "dimacs/embtoolkit.dimacs", "featureide/tankwar.xml"} {
		m, err := modelfile.Load(filepath.Join(dir, file), "")
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(t, file, m, randomConfiguration(rng, m))
	}
}

// kernel is the model the examples below configure.
const kernel = `features
	Kernel
		mandatory
			Arch
				alternative
					Linux
					Bare
		optional
			MMU
			NOMMU
constraints
	Linux => MMU
	MMU => !NOMMU
`

func kernelModel(t *testing.T) *feature.Model {
	t.Helper()
	m, err := uvl.Parse([]byte(kernel))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The files as written: the decisions (+Linux, -NOMMU) apart from what
// they force (Kernel, Arch, MMU on, Bare off).
func TestWrite(t *testing.T) {
	m := kernelModel(t)
	ds := []configurator.Decision{{Feature: 2, Select: true}, {Feature: 5, Select: false}}
	d := &configurator.Domains{States: []configurator.FeatureState{configurator.ForcedOn, configurator.ForcedOn, configurator.Selected,
		configurator.ForcedOff, configurator.ForcedOn, configurator.Deselected}}
	c := New(m, ds, d)
	want := map[Format]string{
		FeatureIDE: `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<configuration>
	<feature automatic="selected" manual="undefined" name="Kernel"/>
	<feature automatic="selected" manual="undefined" name="Arch"/>
	<feature automatic="undefined" manual="selected" name="Linux"/>
	<feature automatic="unselected" manual="undefined" name="Bare"/>
	<feature automatic="selected" manual="undefined" name="MMU"/>
	<feature automatic="undefined" manual="unselected" name="NOMMU"/>
</configuration>
`,
		Kconfig: `# Kernel: a configuration written by the BDD/SAT configurator
# Your decisions
CONFIG_Linux=y
# CONFIG_NOMMU is not set
# Forced by these decisions and the model
CONFIG_Kernel=y
CONFIG_Arch=y
# CONFIG_Bare is not set
CONFIG_MMU=y
`,
		CSV: "feature,manual,automatic\nKernel,,selected\nArch,,selected\nLinux,selected,\nBare,,unselected\nMMU,,selected\nNOMMU,unselected,\n",
		JSON: `{
  "model": "Kernel",
  "select": [
    "Linux"
  ],
  "deselect": [
    "NOMMU"
  ],
  "forced_on": [
    "Kernel",
    "Arch",
    "MMU"
  ],
  "forced_off": [
    "Bare"
  ]
}
`,
	}
	for _, f := range Formats {
		var b bytes.Buffer
		if err := Write(&b, m, c, f); err != nil || b.String() != want[f] {
			t.Errorf("%s: %v\n%s\nwant\n%s", f, err, b.String(), want[f])
		}
		got, err := Read(b.Bytes(), m, f)
		if err != nil || !slices.Equal(got.Decisions(), []configurator.Decision{{Feature: 2, Select: true}, {Feature: 5, Select: false}}) {
			t.Errorf("%s read back: %v, %v; want the decisions +Linux, -NOMMU", f, got, err)
		}
	}
}

// Files of other tools read: FeatureIDE's own (undefined values left out,
// a byte order mark), a Linux .config (no forced section: every value a
// decision; m is a module, selected).
func TestReadOthers(t *testing.T) {
	m := kernelModel(t)
	for _, tc := range []struct {
		f         Format
		src       string
		manual    []Value
		automatic []Value
	}{
		{FeatureIDE, "\uFEFF<?xml version=\"1.0\"?>\n<configuration>\n<feature automatic=\"selected\" name=\"Kernel\"/>\n<feature manual=\"selected\" name=\"Bare\"/>\n<feature name=\"MMU\"/>\n</configuration>",
			[]Value{0, 0, 0, Selected, 0, 0}, []Value{Selected, 0, 0, 0, 0, 0}},
		{Kconfig, "#\n# Automatically generated file; DO NOT EDIT.\n#\nCONFIG_Kernel=y\r\nCONFIG_MMU=m\n# CONFIG_NOMMU is not set\nCONFIG_Bare=n\n",
			[]Value{Selected, 0, 0, Deselected, Selected, Deselected}, []Value{0, 0, 0, 0, 0, 0}},
		{CSV, "Feature,Manual,Automatic\r\n\"Linux\",selected,\nNOMMU,,unselected\n", []Value{0, 0, Selected, 0, 0, 0}, []Value{0, 0, 0, 0, 0, Deselected}},
		{JSON, `{"select":["Linux"]}`, []Value{0, 0, Selected, 0, 0, 0}, []Value{0, 0, 0, 0, 0, 0}},
	} {
		c, err := Read([]byte(tc.src), m, tc.f)
		if err != nil || !slices.Equal(c.Manual, tc.manual) || !slices.Equal(c.Automatic, tc.automatic) {
			t.Errorf("%s: %+v, %v; want manual %v, automatic %v", tc.f, c, err, tc.manual, tc.automatic)
		}
	}
}

// Files that do not read are refused at their line and column, with the
// kind of error; unknown names are named, all of them, never dropped.
func TestReadErrors(t *testing.T) {
	m := kernelModel(t)
	bomb := `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
<configuration><feature name="&lol2;"/></configuration>`
	for _, tc := range []struct {
		f         Format
		src       string
		kind      error
		line, col int
		msg       string
	}{
		{FeatureIDE, bomb, feature.ErrUnsupported, 2, 1, "no document type declaration"},
		{FeatureIDE, "<! >", feature.ErrUnsupported, 1, 1, "no document type declaration"},
		{FeatureIDE, "<configuration>\n<feature name=\"Linux\" manual=\"maybe\"/>\n</configuration>", feature.ErrSyntax, 2, 1, `found "maybe"`},
		{FeatureIDE, "<configuration>\n<feature name=\"Linux\">\n</configuration>", feature.ErrSyntax, 3, 17, "closed by </configuration>"},
		{FeatureIDE, "<featureModel/>", feature.ErrSyntax, 1, 1, "expected <configuration>"},
		{FeatureIDE, "", feature.ErrSyntax, 1, 1, "found the end of the file"},
		{FeatureIDE, "<configuration><feature manual=\"selected\"/></configuration>", feature.ErrSyntax, 1, 16, "name attribute"},
		{FeatureIDE, "<configuration>\n<feature name=\"Linux\"/>\n<feature name=\"Linux\"/>\n</configuration>", feature.ErrInvalid, 3, 1, `"Linux" again`},
		{FeatureIDE, "<configuration>" + strings.Repeat("<a>", maxDepth) + strings.Repeat("</a>", maxDepth) + "</configuration>", feature.ErrLimit, 1, 16 + 3*(maxDepth-1), "levels of nesting"},
		{Kconfig, "CONFIG_Linux=y\nCONFIG_MMU=\"yes\"\n", feature.ErrUnsupported, 2, 12, "y, m or n"},
		{Kconfig, "CONFIG_Linux=y\nLinux\n", feature.ErrSyntax, 2, 1, "expected CONFIG_NAME=y"},
		{CSV, "feature,manual\nLinux,selected\n", feature.ErrSyntax, 1, 1, "comma-separated fields"},
		{CSV, "name,manual,automatic\nLinux,selected,\n", feature.ErrSyntax, 1, 1, "expected the header"},
		{CSV, "feature,manual,automatic\nLinux,on,\n", feature.ErrSyntax, 2, 7, `found "on"`},
		{CSV, "feature,manual,automatic\nLinux,selected\n", feature.ErrSyntax, 2, 1, "comma-separated fields"},
		{JSON, "{\"select\":[\"Linux\"],\n \"chosen\":[]}", feature.ErrSyntax, 2, 14, "unknown field"},
		{JSON, "{\"select\":\"Linux\"}", feature.ErrSyntax, 1, 18, "cannot unmarshal"},
	} {
		_, err := Read([]byte(tc.src), m, tc.f)
		var fe *feature.Error
		if !errors.As(err, &fe) || !errors.Is(err, tc.kind) || fe.Line != tc.line || fe.Column != tc.col || !strings.Contains(fe.Msg, tc.msg) {
			t.Errorf("%s %q: %v, want %v at %d:%d saying %q", tc.f, tc.src, err, tc.kind, tc.line, tc.col, tc.msg)
		}
	}
	var names []string
	for i := range 25 {
		names = append(names, `"X`+string(rune('a'+i))+`"`)
	}
	_, err := Read([]byte(`{"select":["Linux","Wings",`+strings.Join(names, ",")+`],"deselect":["Wings"]}`), m, JSON)
	var ue *UnknownError
	if !errors.As(err, &ue) || !errors.Is(err, configurator.ErrUnknownFeature) || len(ue.Names) != maxUnknown || ue.Names[0] != "Wings" || ue.More != 6 {
		t.Errorf("unknown names: %v", err)
	}
	if _, err := Read([]byte("CONFIG_Wings=y\n"), m, Kconfig); !errors.As(err, &ue) || !slices.Equal(ue.Names, []string{"CONFIG_Wings"}) {
		t.Errorf("an unknown symbol: %v", err)
	}
	if _, err := ParseFormat("yaml"); !errors.Is(err, ErrFormat) {
		t.Errorf("ParseFormat(yaml): %v", err)
	}
}

func TestWriteSample(t *testing.T) {
	m := kernelModel(t)
	var b bytes.Buffer
	if err := WriteSample(&b, m, [][]bool{{true, true, true, false, true, false}, {true, true, false, true, false, false}}); err != nil {
		t.Fatal(err)
	}
	want := "configuration,Kernel,Arch,Linux,Bare,MMU,NOMMU\n1,1,1,1,0,1,0\n2,1,1,0,1,0,0\n"
	if b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
