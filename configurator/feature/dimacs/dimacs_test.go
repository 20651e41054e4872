package dimacs_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// show writes what a model read from a CNF file holds: its variables
// (names, $ after generated ones) and its clauses with their lines.
func show(m *feature.Model) string {
	var b strings.Builder
	for _, f := range m.Features {
		b.WriteString(f.Name)
		if f.Generated {
			b.WriteString("$")
		}
		b.WriteString(" ")
	}
	for _, c := range m.Clauses {
		fmt.Fprintf(&b, "|%d:%v", c.Line, c.Lits)
	}
	return b.String()
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"plain", "p cnf 3 2\n1 -3 0\n2 3 -1 0\n", "x1 x2 x3 |2:[1 -3]|3:[2 3 -1]"},
		{"names", "c 1 MMU\nc 2 NOMMU\nc 3$ _X7_m\nc a comment\np cnf 3 1\n-1 -2 0\n", "MMU NOMMU _X7_m$ |6:[-1 -2]"},
		{"names with blanks", "c 2   two words \np cnf 2 0\n", "x1 two words "},
		{"a clause over lines, two on a line", "p cnf 4 3\n1\n2\n\n3 0 -4 0 4\n0\n", "x1 x2 x3 x4 |2:[1 2 3]|5:[-4]|5:[4]"},
		{"comments between clauses", "p cnf 2 2\n1 0\nc between\n  c indented\n-2 0\n", "x1 x2 |2:[1]|5:[-2]"},
		{"CRLF, tabs", "c 1 a\r\np  cnf\t2 1\r\n\t1\t-2 0\r\n", "a x2 |3:[1 -2]"},
		{"empty clause", "p cnf 1 2\n0\n1 0\n", "x1 |2:[]|3:[1]"},
		{"no clauses", "p cnf 2 0\n", "x1 x2 "},
		{"SATLIB end", "p cnf 1 1\n1 0\n%\n0\n\n", "x1 |2:[1]"},
		{"default name taken", "c 2 x1\np cnf 2 0\n", "x1_ x1 "},
		{"no final line break", "p cnf 1 1\n-1 0", "x1 |2:[-1]"},
		{"byte order mark", "\uFEFFc 1 Ä\np cnf 1 1\n-1 0", "Ä |3:[-1]"},
		{"names beyond ASCII", "c 1 Größe\nc 2 日本\np cnf 2 0\n", "Größe 日本 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dimacs.Parse([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := show(m); got != tc.want {
				t.Errorf("read %q, want %q", got, tc.want)
			}
			if m.Format != feature.DIMACS || m.Root != -1 || len(m.Groups) != 0 || len(m.Constraints) != 0 {
				t.Errorf("format %q, root %d, %d groups, %d constraints", m.Format, m.Root, len(m.Groups), len(m.Constraints))
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		kind      error
		want      string
	}{
		{"empty", "", feature.ErrSyntax, "1:1: expected the header p cnf <variables> <clauses>, found the end of the file"},
		{"clause before header", "c x\n1 0\np cnf 1 1\n", feature.ErrSyntax, `2:1: expected the header p cnf <variables> <clauses> before the clauses, found "1"`},
		{"bad header", "p cnf 3\n", feature.ErrSyntax, `1:1: expected the header p cnf <variables> <clauses>, found "p cnf 3"`},
		{"wcnf", "p wcnf 3 1\n", feature.ErrSyntax, `1:1: expected the header p cnf <variables> <clauses>, found "p wcnf 3 1"`},
		{"negative count", "p cnf 3 -1\n", feature.ErrSyntax, `1:1: expected the number of clauses in the header, found "-1"`},
		{"two headers", "p cnf 1 0\np cnf 1 0\n", feature.ErrSyntax, "2:1: expected one header line, found a second one (the first on line 1)"},
		{"too many variables", "p cnf 2000000 0\n", feature.ErrLimit, "1:1: expected at most 1048576 variables, found 2000000"},
		{"huge variables", "p cnf 99999999999999999999999 0\n", feature.ErrLimit, "1:1: expected at most 1048576 variables, found 99999999999999999999999"},
		{"more clauses than bytes", "p cnf 1 1000\n", feature.ErrLimit, "1:1: expected at most 7 clauses, found 1000"},
		{"literal out of range", "p cnf 3 1\n1 -4 0\n", feature.ErrInvalid, "2:3: expected a variable from 1 to 3 (the header's count), found -4"},
		{"not a number", "p cnf 3 1\n1 x 0\n", feature.ErrSyntax, `2:3: expected a literal (a non-zero integer) or 0 to end the clause, found "x"`},
		{"glued", "p cnf 3 1\n1 2a 0\n", feature.ErrSyntax, `2:3: expected a literal (a non-zero integer) or 0 to end the clause, found "2a"`},
		{"minus zero", "p cnf 3 1\n1 -0\n", feature.ErrSyntax, "2:3: expected a literal (a non-zero integer) or 0 to end the clause, found -0"},
		{"unterminated", "p cnf 3 1\n1 2\n3", feature.ErrSyntax, "3:2: expected 0 to end the clause begun on line 2, found the end of the file"},
		{"fewer clauses", "p cnf 3 2\n1 0\n", feature.ErrInvalid, "3:1: expected 2 clauses (the header's count), found 1"},
		{"more clauses", "p cnf 3 1\n1 0\n2 0\n", feature.ErrInvalid, "3:1: expected 1 clauses (the header's count), found more"},
		{"name out of range", "c 4 four\np cnf 3 0\n", feature.ErrInvalid, "1:1: expected a variable from 1 to 3 (the header's count) to name, found 4"},
		{"two names", "c 1 a\nc 1 b\np cnf 3 0\n", feature.ErrInvalid, "2:1: expected one name for variable 1, found a second one, b"},
		{"name twice", "c 1 a\nc 2 a\np cnf 3 0\n", feature.ErrInvalid, "2:1: expected each name once, found a for variables 1 and 2"},
		{"NUL in a name", "c 1 ab\x00c\np cnf 1 0\n", feature.ErrInvalid, "1:7: expected a variable's name, found the control character U+0000"},
		{"control in a name", "c 1 é\x1bc\np cnf 1 0\n", feature.ErrInvalid, "1:6: expected a variable's name, found the control character U+001B"},
		{"name not UTF-8", "c 12  ab\xffc\np cnf 12 0\n", feature.ErrSyntax, "1:9: expected a variable's name, found the byte 0xff, which is not UTF-8"},
		{"long name", "c 1 " + strings.Repeat("n", feature.MaxNameBytes+1) + "\np cnf 1 0\n", feature.ErrLimit, "1:5: expected a variable's name, found a name of 257 bytes (at most 256)"},
		{"BOM, then an error", "\uFEFFp cnf 1 1\n1 x 0\n", feature.ErrSyntax, `2:3: expected a literal (a non-zero integer) or 0 to end the clause, found "x"`},
		{"BOM, an error on its line", "\uFEFFp cnf 1\n", feature.ErrSyntax, `1:1: expected the header p cnf <variables> <clauses>, found "p cnf 1"`},
		{"binary", "p cnf 1 1\n\x00\xff 0\n", feature.ErrSyntax, "2:1: expected a literal (a non-zero integer) or 0 to end the clause, found \"\\x00\\xff\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dimacs.Parse([]byte(tc.src))
			if err == nil {
				t.Fatalf("read %s, want %q", show(m), tc.want)
			}
			var fe *feature.Error
			if !errors.As(err, &fe) || !errors.Is(err, tc.kind) || err.Error() != tc.want {
				t.Fatalf("error %q, want %q (%v)", err, tc.want, tc.kind)
			}
			line := strings.Split(tc.src, "\n")[fe.Line-1]
			if len(line) > 200 {
				line = line[:200]
			}
			if want := strings.ToValidUTF8(line, "\uFFFD"); fe.Quote != want && "\uFEFF"+fe.Quote != want {
				t.Errorf("quote %q, want line %d, %q", fe.Quote, fe.Line, want)
			}
		})
	}
}

// A header that asks for more variables than the caller allows is refused
// at the header, before anything is built from it: a 16-byte file costs
// next to nothing, not a million features.
func TestParseMax(t *testing.T) {
	src := []byte("p cnf 1048576 0\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := dimacs.ParseMax(src, 50_000)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, feature.ErrLimit) || err.Error() != "1:1: expected at most 50000 variables, found 1048576" {
		t.Fatalf("error %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("%d bytes allocated to refuse a 16-byte header", n)
	} else {
		t.Logf("%d bytes allocated to refuse a 16-byte header", n)
	}
	m, err := dimacs.ParseMax([]byte("p cnf 3 1\n1 -3 0\n"), 3)
	if err != nil || len(m.Features) != 3 {
		t.Fatalf("3 variables of at most 3: %v", err)
	}
	if _, err := dimacs.ParseMax([]byte("p cnf 4 0\n"), 3); !errors.Is(err, feature.ErrLimit) {
		t.Fatalf("4 variables of at most 3: %v", err)
	}
}

func TestTooLarge(t *testing.T) {
	_, err := dimacs.Parse(make([]byte, dimacs.MaxSize+1))
	if !errors.Is(err, feature.ErrLimit) || err.Error() != "1:1: expected at most 16777216 bytes, found 16777217" {
		t.Fatalf("error %v", err)
	}
}

// Random CNF files, laid out at random: the model's configurations are the
// CNF's, by its own clauses and by Model.CNF; writing and reading it again
// gives the same model.
func TestRandomCNFs(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for round := range 300 {
		vars := rng.IntN(11)
		text, cnf := featuretest.RandomCNF(rng, vars, rng.IntN(3*vars+2))
		m, err := dimacs.Parse([]byte(text))
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, text)
		}
		c := m.CNF()
		if c.Vars != vars || c.Len() != len(cnf) {
			t.Fatalf("round %d: CNF of %d variables and %d clauses, want %d and %d", round, c.Vars, c.Len(), vars, len(cnf))
		}
		var cls [][]int
		for i := range c.Len() {
			var cl []int
			for _, l := range c.Clause(i) {
				cl = append(cl, int(l))
			}
			cls = append(cls, cl)
			if o := c.Origin(i); o != (feature.Origin{Kind: feature.OriginClause, Index: i}) {
				t.Fatalf("round %d: clause %d has origin %+v", round, i, o)
			}
		}
		config := make([]bool, vars)
		for bits := range 1 << vars {
			for i := range config {
				config[i] = bits>>i&1 == 1
			}
			want := featuretest.Satisfies(cnf, config)
			if m.Valid(config) != want || featuretest.Satisfies(cls, config) != want {
				t.Fatalf("round %d, configuration %b: Valid %v, CNF %v, want %v\n%s", round, bits, m.Valid(config), !want, want, text)
			}
		}
		var out bytes.Buffer
		if err := dimacs.Write(&out, m); err != nil {
			t.Fatal(err)
		}
		again, err := dimacs.Parse(out.Bytes())
		if err != nil {
			t.Fatalf("round %d: the written file: %v\n%s", round, err, out.String())
		}
		if stripLines(show(again)) != stripLines(show(m)) {
			t.Fatalf("round %d: wrote and read %s, want %s", round, show(again), show(m))
		}
	}
}

// stripLines drops the line numbers of show's clauses.
func stripLines(s string) string {
	parts := strings.Split(s, "|")
	for i := 1; i < len(parts); i++ {
		_, parts[i], _ = strings.Cut(parts[i], ":")
	}
	return strings.Join(parts, "|")
}

// A feature model written as a CNF file and read back has the same
// configurations, projected on its features, and as many: the auxiliary
// variables, named and marked generated, are defined by the features.
func TestWriteFeatureModel(t *testing.T) {
	src := `features
	Car
		mandatory
			Engine
				alternative
					Electric
					Petrol
					Diesel
		[1..2]
			Radio
			Navigation
			"Heated seats"
constraints
	Electric => !Radio | Navigation
	(Diesel | Petrol) <=> !Navigation
`
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := dimacs.Write(&out, m); err != nil {
		t.Fatal(err)
	}
	d, err := dimacs.Parse(out.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	f := len(m.Features)
	for i, ft := range m.Features {
		if d.Features[i].Name != ft.Name || d.Features[i].Generated {
			t.Fatalf("variable %d is %q, want feature %q", i+1, d.Features[i].Name, ft.Name)
		}
	}
	for _, ft := range d.Features[f:] {
		if !ft.Generated {
			t.Errorf("auxiliary variable %s not marked generated", ft.Name)
		}
	}
	// Count both by brute force: the written file over all its variables,
	// the feature model over its features.
	count := func(valid func([]bool) bool, n int) int {
		k := 0
		config := make([]bool, n)
		for bits := range 1 << n {
			for i := range config {
				config[i] = bits>>i&1 == 1
			}
			if valid(config) {
				k++
			}
		}
		return k
	}
	want := count(m.Valid, f)
	if got := count(d.Valid, len(d.Features)); got != want || want != 9 {
		t.Errorf("the written file has %d models, the feature model %d configurations (want 9)", got, want)
	}
}

func ExampleParse() {
	m, err := dimacs.Parse([]byte("c 1 MMU\nc 2 NOMMU\np cnf 3 2\n-1 -2 0\n1 3 0\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range m.Clauses {
		fmt.Println(m.Describe(feature.Origin{Kind: feature.OriginClause, Index: i}))
	}
	_, err = dimacs.Parse([]byte("p cnf 2 1\n1 3 0\n"))
	fmt.Println(err)
	// Output:
	// clause at line 4: !MMU | !NOMMU
	// clause at line 5: MMU | x3
	// 2:3: expected a variable from 1 to 2 (the header's count), found 3
}

func ExampleWrite() {
	m, err := uvl.Parse([]byte("features\n\tLinux\n\t\talternative\n\t\t\tMMU\n\t\t\tNOMMU\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	dimacs.Write(os.Stdout, m)
	// Output:
	// c 1 Linux
	// c 2 MMU
	// c 3 NOMMU
	// p cnf 3 5
	// 1 0
	// -2 1 0
	// -3 1 0
	// -1 2 3 0
	// -2 -3 0
}

func FuzzDIMACS(f *testing.F) {
	rng := rand.New(rand.NewPCG(12, 13))
	for range 10 {
		text, _ := featuretest.RandomCNF(rng, rng.IntN(8), rng.IntN(12))
		f.Add(text)
	}
	for _, s := range []string{"", "p cnf 0 0\n", "p cnf 3 1\n1 -3 0\n", "c 1$ a\np cnf 1 1\n1\n0\n%\n", "p cnf 1 1\n-0\n", "p cnf 99999999999 1\n",
		"c 2$ _X2\np cnf 999992 0\n"} { // its names written out would pass the size Parse reads
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := dimacs.Parse([]byte(src))
		if err != nil {
			var fe *feature.Error
			if !errors.As(err, &fe) || fe.Line < 1 || fe.Column < 1 || fe.Msg == "" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		var out bytes.Buffer
		if err := dimacs.Write(&out, m); err != nil {
			t.Fatal(err)
		}
		again, err := dimacs.Parse(out.Bytes())
		if err != nil {
			t.Fatalf("the written file: %v", err)
		}
		if stripLines(show(again)) != stripLines(show(m)) {
			t.Fatalf("wrote and read %s, want %s", show(again), show(m))
		}
	})
}
