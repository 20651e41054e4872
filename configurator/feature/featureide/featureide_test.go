package featureide_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featureide"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// equivalent fails t unless a and b have the same features by name and, on
// every assignment, the same verdict (Valid, each model's own meaning);
// it returns the number of configurations.
func equivalent(t *testing.T, a, b *feature.Model) int {
	t.Helper()
	n := len(a.Features)
	if len(b.Features) != n {
		t.Fatalf("%d features and %d", n, len(b.Features))
	}
	at := make([]int, n)
	for i, f := range a.Features {
		j, ok := b.ID(f.Name)
		if !ok {
			t.Fatalf("%q is in one model, not in the other", f.Name)
		}
		at[i] = j
	}
	ca, cb := make([]bool, n), make([]bool, n)
	count := 0
	for bits := range 1 << n {
		for i := range n {
			ca[i] = bits>>i&1 == 1
			cb[at[i]] = ca[i]
		}
		va := a.Valid(ca)
		if vb := b.Valid(cb); va != vb {
			t.Fatalf("configuration %b: valid %v in one model, %v in the other", bits, va, vb)
		}
		if va {
			count++
		}
	}
	return count
}

const carXML = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<featureModel>
	<properties/>
	<struct>
		<and abstract="true" mandatory="true" name="Car">
			<description>A car</description>
			<feature mandatory="true" name="Body"/>
			<alt abstract="true" name="Engine">
				<feature name="Petrol"/>
				<feature name="Electric"/>
			</alt>
			<or name="Extras">
				<graphics key="x" value="y"/>
				<feature name="Radio"/>
				<feature name="Air Con"/>
			</or>
			<feature name="Tow &amp; Hitch"/>
		</and>
	</struct>
	<constraints>
		<rule><description>no towing electric</description><imp><var>Electric</var><not><var>Tow &amp; Hitch</var></not></imp></rule>
		<rule><disj><var>Radio</var><conj><var>Petrol</var><conj><var>Body</var><var>Extras</var></conj></conj></disj></rule>
		<rule>
			<eq>
				<var> Air Con </var>
				<var>Engine</var>
			</eq>
		</rule>
	</constraints>
	<calculations Auto="true"/>
	<comments/>
	<featureOrder userDefined="false"/>
</featureModel>
`

const carUVL = `features
	Car {abstract}
		mandatory
			Body
		optional
			Engine {abstract}
				alternative
					Petrol
					Electric
			Extras
				or
					Radio
					"Air Con"
			"Tow & Hitch"
constraints
	Electric => !"Tow & Hitch"
	Radio | Petrol & Body & Extras
	"Air Con" <=> Engine
`

const phoneSXFM = `<!-- made with SPLOT -->
<feature_model name="Phone">
<meta><data name="creator">someone</data></meta>
<feature_tree>
:r Phone(_r)
	:m Calls(_r_1)
	:o GPS(_r_2)
	:m Screen(_r_3)
		:g (_r_3_4) [1,1]
			: Basic(_r_3_4_5)
			: Color(_r_3_4_6)
			: High resolution(_r_3_4_7)
	:o Media(_r_4)
		:g (_r_4_8) [1,*]
			: Camera(_r_4_8_9)
			: MP3(_r_4_8_10)
	:o Extras(_r_5)
		:g [2,3]
			: Camera(_r_5_1)
			: Games(_r_5_2)
			: Radio(_r_5_3)
</feature_tree>
<constraints>
C1: ~_r_2 or ~_r_3_4_5
C2:~_r_4_8_9 or _r_3_4_7
</constraints>
</feature_model>
`

const phoneUVL = `features
	Phone
		mandatory
			Calls
			Screen
				alternative
					Basic
					Color
					"High resolution"
		optional
			GPS
			Media
				or
					Camera
					MP3
			Extras
				[2..3]
					Camera_1
					Games
					Radio
constraints
	!GPS | !Basic
	!Camera | "High resolution"
`

// A FeatureIDE model and an SXFM model read with the meaning of the same
// model written in UVL: the features in the tree's pre-order, abstract
// ones marked, and the same configurations, counted here by hand.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src, uvl string
		format         feature.Format
		features       []string
		abstract       []string
		configurations int
	}{
		{"FeatureIDE", carXML, carUVL, feature.FeatureIDE,
			[]string{"Car", "Body", "Engine", "Petrol", "Electric", "Extras", "Radio", "Air Con", "Tow & Hitch"},
			[]string{"Car", "Engine"},
			// No engine: Extras with Radio, a hitch or not (2); petrol:
			// Extras with Air Con, Radio and the hitch free (4); electric:
			// Radio, no hitch (1).
			7},
		{"SXFM", phoneSXFM, phoneUVL, feature.SXFM,
			[]string{"Phone", "Calls", "GPS", "Screen", "Basic", "Color", "High resolution", "Media", "Camera", "MP3", "Extras", "Camera_1", "Games", "Radio"},
			nil,
			// Screens 3, media 4 (none, or a non-empty subset of two, the
			// camera needing high resolution), extras 5 (none, or 2 or 3 of
			// three), GPS 2 (not with the basic screen).
			0},
		{"BOM", "\uFEFF" + carXML, carUVL, feature.FeatureIDE, nil, nil, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := featureide.Parse([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			want, err := uvl.Parse([]byte(tc.uvl))
			if err != nil {
				t.Fatal(err)
			}
			if m.Format != tc.format {
				t.Errorf("format %s, want %s", m.Format, tc.format)
			}
			var names, abstract []string
			for _, f := range m.Features {
				names = append(names, f.Name)
				if f.Abstract {
					abstract = append(abstract, f.Name)
				}
			}
			if tc.features != nil && (!slices.Equal(names, tc.features) || !slices.Equal(abstract, tc.abstract)) {
				t.Errorf("features %q, abstract %q; want %q, %q", names, abstract, tc.features, tc.abstract)
			}
			count := equivalent(t, m, want)
			if tc.configurations > 0 && count != tc.configurations {
				t.Errorf("%d configurations, want %d", count, tc.configurations)
			}
		})
	}
}

// The SXFM phone's configurations, counted apart from the readers: the
// screen 3 ways, then GPS, media and extras as the comment in TestParse
// says.
func TestSXFMCount(t *testing.T) {
	m, err := featureide.Parse([]byte(phoneSXFM))
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for screen := range 3 { // Basic, Color, High resolution
		gps := 2
		if screen == 0 {
			gps = 1
		}
		media := 1 + 1 // none, or MP3 alone
		if screen == 2 {
			media += 2 // Camera, Camera and MP3
		}
		want += gps * media * 5
	}
	if got := equivalent(t, m, m); got != want {
		t.Errorf("%d configurations, want %d", got, want)
	}
	if m.Name != "Phone" || m.Features[11].Pos.Line != 19 || m.Features[11].Pos.Column != 6 {
		t.Errorf("name %q, Camera_1 at %s; want Phone, 19:6", m.Name, m.Features[11].Pos)
	}
}

func TestParseRefuses(t *testing.T) {
	fm := func(s string) string { return "<featureModel><struct>" + s + "</struct></featureModel>" }
	var deep strings.Builder
	for i := range featureide.MaxDepth {
		fmt.Fprintf(&deep, `<and name="x%d">`, i)
	}
	long := strings.Repeat("n", feature.MaxNameBytes+1)
	for _, tc := range []struct {
		name, src string
		kind      error
		want      string // the message, or its start
	}{
		{"empty", "", feature.ErrSyntax, "1:1: expected <featureModel> or SPLOT's <feature_model>, found the end of the file"},
		{"BOM, then not a model", "\uFEFF<html/>", feature.ErrSyntax, "1:1: expected <featureModel> or SPLOT's <feature_model>, found <html>"},
		{"not a model", "<html/>", feature.ErrSyntax, "1:1: expected <featureModel> or SPLOT's <feature_model>, found <html>"},
		{"unclosed", "<featureModel>\n<struct>\n  <and name=\"A\">\n</struct>", feature.ErrSyntax, "4:10: expected well-formed XML, found an error: element <and> closed by </struct>"},
		{"document type", "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]>\n<featureModel>&lol2;</featureModel>", feature.ErrUnsupported, "2:1: expected no document type declaration"},
		{"unknown entity", fm(`<feature name="&lol;"/>`), feature.ErrSyntax, "1:38: expected well-formed XML, found an error: invalid character entity &lol;"},
		{"encoding", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><featureModel/>", feature.ErrSyntax, "1:"},
		{"leaf with a child", fm(`<feature name="A"><feature name="B"/></feature>`), feature.ErrInvalid, "1:41: expected a <feature> to be a leaf"},
		{"twice", fm("<and name=\"A\">\n<feature name=\"B\"/>\n<feature name=\"B\"/></and>"), feature.ErrInvalid, "3:16: expected each feature declared once, found B again (first at 2:1)"},
		{"no name", fm(`<feature/>`), feature.ErrInvalid, "1:23: expected a name attribute on <feature>"},
		{"unknown element", fm(`<and name="A"><group/></and>`), feature.ErrUnsupported, "1:37: expected a feature (<and>, <or>, <alt> or <feature>) in <and>, found <group>"},
		{"two roots", fm(`<feature name="A"/><feature name="B"/>`), feature.ErrInvalid, "1:42: expected one root feature in <struct>, found a second, <feature>"},
		{"no tree", "<featureModel><constraints/></featureModel>", feature.ErrInvalid, "1:44: expected a <struct> with the root feature"},
		{"unknown var", "<featureModel><struct><feature name=\"A\"/></struct><constraints>\n<rule><var>B</var></rule></constraints></featureModel>", feature.ErrInvalid, `2:7: expected a feature declared in the tree, found "B"`},
		{"imp of one", "<featureModel><struct><feature name=\"A\"/></struct><constraints>\n<rule><imp><var>A</var></imp></rule></constraints></featureModel>", feature.ErrInvalid, "2:7: expected <imp> with 2 operands, found 1"},
		{"two expressions", "<featureModel><struct><feature name=\"A\"/></struct><constraints><rule><var>A</var><var>A</var></rule></constraints></featureModel>", feature.ErrInvalid, "1:82: expected one expression in a <rule>"},
		{"empty rule", "<featureModel><struct><feature name=\"A\"/></struct><constraints><rule/></constraints></featureModel>", feature.ErrInvalid, "1:64: expected an expression in the <rule>, found none"},
		{"text", fm(`<feature name="A"/>hello`), feature.ErrSyntax, "1:42: expected elements in <struct>, found text"},
		{"deep", fm(deep.String()), feature.ErrLimit, "1:16879: expected at most 1000 levels of nesting"},
		{"large", fm(strings.Repeat(" ", featureide.MaxSize)), feature.ErrLimit, "1:1: expected at most"},
		{"tab in a name", fm(`<feature name="a&#9;b"/>`), feature.ErrInvalid, "1:39: expected a feature's name, found the control character U+0009"},
		{"C1 control in a name", fm("<feature name=\"a\u0085b\"/>"), feature.ErrInvalid, "1:39: expected a feature's name, found the control character U+0085"},
		{"NUL", fm("<feature name=\"a\x00b\"/>"), feature.ErrSyntax, "1:"},
		{"not UTF-8", fm("<feature name=\"a\xffb\"/>"), feature.ErrSyntax, "1:"},
		{"long name", fm(`<feature name="` + long + `"/>`), feature.ErrLimit, "1:38: expected a feature's name, found a name of 257 bytes (at most 256)"},
		{"sxfm member outside a group", "<feature_model><feature_tree>\n:r A(a)\n\t: B(b)\n</feature_tree></feature_model>", feature.ErrInvalid, "3:2: expected a group's member (:) under :g, found it under a feature"},
		{"sxfm cardinality", "<feature_model><feature_tree>\n:r A(a)\n\t:g [2,1]\n\t\t: B(b)\n</feature_tree></feature_model>", feature.ErrInvalid, "3:5: expected a group's cardinality [n,m] with n <= m"},
		{"sxfm unknown id", "<feature_model><feature_tree>\n:r A(a)\n</feature_tree><constraints>\nC1: a or ~b\n</constraints></feature_model>", feature.ErrInvalid, `4:10: expected the id of a feature of the tree, found "b"`},
		{"sxfm clause", "<feature_model><feature_tree>\n:r A(a)\n</feature_tree><constraints>\nC1: a and b\n</constraints></feature_model>", feature.ErrSyntax, `4:7: expected or between the literals of a clause, found "and"`},
		{"sxfm line", "<feature_model><feature_tree>\n:r A(a)\n  B(b)\n</feature_tree></feature_model>", feature.ErrSyntax, "3:3: expected a line of the tree"},
		{"sxfm two roots", "<feature_model><feature_tree>\n:r A(a)\n:r B(b)\n</feature_tree></feature_model>", feature.ErrInvalid, "3:1: expected one root (:r), found a second"},
		{"sxfm control in a name", "<feature_model><feature_tree>\n:r A\u0085B(a)\n</feature_tree></feature_model>", feature.ErrInvalid, "2:5: expected a feature's name, found the control character U+0085"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := featureide.Parse([]byte(tc.src))
			var fe *feature.Error
			if !errors.As(err, &fe) || !errors.Is(err, tc.kind) || !strings.HasPrefix(err.Error(), tc.want) || fe.Line < 1 || fe.Column < 1 {
				t.Fatalf("got %v (model %v), want %v: %s...", err, m != nil, tc.kind, tc.want)
			}
		})
	}
}

// Every FeatureIDE and SXFM model of the real models' folder reads, with
// the features its README counts; written and read back, it is the same
// model: the same features in the same order, under the same parents, and
// the same configurations (its rules and groups the same, compared as
// written out again).
func TestRealModels(t *testing.T) {
	dir := filepath.Join(featuretest.ModelsDir(t), "featureide")
	want := map[string]int{
		"financialservices-2017-05-22.xml": 557, "pc-richmond.xml": 377, "printer-sxfm.xml": 172,
		"soletta-2015-06-30.xml": 101, "tankwar.xml": 144,
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			m, err := featureide.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			if n, ok := want[e.Name()]; ok && len(m.Features) != n {
				t.Errorf("%d features, want %d", len(m.Features), n)
			}
			var out bytes.Buffer
			if err := featureide.Write(&out, m); err != nil {
				t.Fatal(err)
			}
			back, err := featureide.Parse(out.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range m.Features {
				g := back.Features[i]
				if g.Name != f.Name || g.Parent != f.Parent || g.Abstract != f.Abstract {
					t.Fatalf("feature %d: %q under %d, abstract %v; read back %q under %d, %v", i, f.Name, f.Parent, f.Abstract, g.Name, g.Parent, g.Abstract)
				}
			}
			var again bytes.Buffer
			if err := featureide.Write(&again, back); err != nil {
				t.Fatal(err)
			}
			if again.String() != out.String() {
				t.Error("written, read back and written again, the model changed")
			}
		})
	}
}

// Random models written as FeatureIDE XML read back with the same
// configurations (brute force on both models' own meanings).
func TestWriteRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	for round := range rounds {
		src := featuretest.RandomModel(rng, 1+rng.IntN(11)).UVL(rng)
		m, err := uvl.Parse([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := featureide.Write(&out, m); err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, src)
		}
		back, err := featureide.Parse(out.Bytes())
		if err != nil {
			t.Fatalf("round %d: %v\n%s\nwritten:\n%s", round, err, src, out.String())
		}
		equivalent(t, m, back)
	}
}

// A cardinality that would take too many rules is refused by Write, not
// written in part.
func TestWriteRefuses(t *testing.T) {
	var b strings.Builder
	b.WriteString("features\n\tR\n\t\t[20..30]\n")
	for i := range 60 {
		b.WriteString("\t\t\tF" + string(rune('A'+i/26)) + string(rune('a'+i%26)) + "\n")
	}
	m, err := uvl.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := featureide.Write(&out, m); err == nil || out.Len() > 0 {
		t.Fatalf("wrote %d bytes, error %v", out.Len(), err)
	}
}

func FuzzFeatureIDE(f *testing.F) {
	f.Add(carXML)
	f.Add(phoneSXFM)
	rng := rand.New(rand.NewPCG(43, 44))
	for range 10 {
		m, err := uvl.Parse([]byte(featuretest.RandomModel(rng, 1+rng.IntN(8)).UVL(rng)))
		if err != nil {
			f.Fatal(err)
		}
		var out bytes.Buffer
		if featureide.Write(&out, m) == nil {
			f.Add(out.String())
		}
	}
	for _, s := range []string{"", "<featureModel/>", "<feature_model><feature_tree>:r A</feature_tree></feature_model>",
		"<!DOCTYPE x []><featureModel/>", "<featureModel><struct><alt name='a'/></struct></featureModel>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := featureide.Parse([]byte(src))
		if err != nil {
			var fe *feature.Error
			if !errors.As(err, &fe) || fe.Line < 1 || fe.Column < 1 || fe.Msg == "" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := featureide.Write(&out, m); err != nil {
			return // a cardinality too large to write as rules
		}
		back, err := featureide.Parse(out.Bytes())
		if err != nil {
			t.Fatalf("the written model: %v\n%s", err, out.String())
		}
		if len(back.Features) != len(m.Features) {
			t.Fatalf("%d features written, %d read back", len(m.Features), len(back.Features))
		}
		for i, f := range m.Features {
			if back.Features[i].Name != f.Name {
				t.Fatalf("feature %d: %q written, %q read back", i, f.Name, back.Features[i].Name)
			}
		}
		if len(m.Features) <= 10 {
			equivalent(t, m, back)
		}
	})
}

// Large files read in time in proportion to their size, whatever their
// layout: 100,000 features on one line (positions counted on, not from the
// start each time), 100,000 SXFM features of one name (suffixes counted
// on) and a clause of 100,000 literals on one line. Read in quadratic
// time, any of them would take minutes, not the seconds allowed here.
func TestLargeInProportion(t *testing.T) {
	const n = 100_000
	var x strings.Builder
	x.WriteString(`<featureModel><struct><and name="R">`)
	for i := range n {
		fmt.Fprintf(&x, `<feature name="F%d"/>`, i)
	}
	x.WriteString(`</and></struct></featureModel>`)
	var s strings.Builder
	s.WriteString("<feature_model><feature_tree>\n:r R(r)\n\t:g [1,*]\n")
	for i := range n {
		fmt.Fprintf(&s, "\t\t: A(a%d)\n", i)
	}
	s.WriteString("</feature_tree><constraints>\nC:")
	for i := range n {
		if i > 0 {
			s.WriteString(" or")
		}
		fmt.Fprintf(&s, " ~a%d", i)
	}
	s.WriteString("\n</constraints></feature_model>")
	for _, tc := range []struct{ name, src, last string }{
		{"one line", x.String(), "F99999"},
		{"one name", s.String(), "A_99999"},
	} {
		start := time.Now()
		m, err := featureide.Parse([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); len(m.Features) != n+1 || m.Features[n].Name != tc.last || d > 20*time.Second {
			t.Errorf("%s: %d features, the last %q, in %v", tc.name, len(m.Features), m.Features[n].Name, d)
		}
		t.Logf("%s: %d bytes in %v", tc.name, len(tc.src), time.Since(start))
	}
}
