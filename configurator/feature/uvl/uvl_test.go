package uvl_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// dump writes a model as an indented tree (groups with their bounds,
// [abstract] after abstract features) followed by its constraints in
// prefix form, so that a test states what was read, precedence included.
func dump(m *feature.Model) string {
	var b strings.Builder
	var walk func(f, depth int)
	walk = func(f, depth int) {
		ft := m.Features[f]
		b.WriteString(strings.Repeat("  ", depth) + ft.Name)
		if ft.Abstract {
			b.WriteString(" [abstract]")
		}
		b.WriteString("\n")
		for gi, g := range m.Groups {
			if g.Parent != f {
				continue
			}
			kind := g.Kind.String()
			if g.Kind == feature.GroupCardinality {
				kind = fmt.Sprintf("[%d..%d]", g.Min, g.Max)
			}
			b.WriteString(strings.Repeat("  ", depth+1) + kind + "\n")
			for _, c := range m.Groups[gi].Children {
				walk(c, depth+2)
			}
		}
	}
	walk(m.Root, 0)
	for _, c := range m.Constraints {
		b.WriteString("constraint " + prefix(m, c.Expr) + "\n")
	}
	return b.String()
}

func prefix(m *feature.Model, e *feature.Expr) string {
	op := map[feature.Op]string{feature.OpNot: "!", feature.OpAnd: "&", feature.OpOr: "|", feature.OpImplies: "=>", feature.OpIff: "<=>"}
	switch e.Op {
	case feature.OpVar:
		return m.Features[e.Var].Name
	case feature.OpTrue:
		return "true"
	case feature.OpFalse:
		return "false"
	}
	parts := []string{op[e.Op]}
	for _, a := range e.Args {
		parts = append(parts, prefix(m, a))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"one feature", "features\n\tA\n", "A\n"},
		{"no final line break", "features\n    A", "A\n"},
		{"every group", `features
	Sandwich {abstract}
		mandatory
			Bread
		optional
			Sauce
				alternative
					Ketchup
					Mustard
			Cheese
				or
					Gouda
					Brie
		[1..2]
			Salt
			Pepper
			Herbs
		[2]
			Plate
			Napkin
		[0..*]
			Fork
`, `Sandwich [abstract]
  mandatory
    Bread
  optional
    Sauce
      alternative
        Ketchup
        Mustard
    Cheese
      or
        Gouda
        Brie
  [1..2]
    Salt
    Pepper
    Herbs
  [2..2]
    Plate
    Napkin
  [0..-1]
    Fork
`},
		{"spaces, CRLF, BOM, blank and comment lines", "\uFEFF// a model\r\nfeatures\r\n  A   \r\n\r\n    // between\r\n    optional\r\n      /* two\r\n   lines */\r\n      B // after\r\n\r\n", "A\n  optional\n    B\n"},
		{"tabs count to eight columns", "features\n\tA\n\t\toptional\n\t\t        B\n", "A\n  optional\n    B\n"},
		{"comment before a name", "features\n\tA\n\t\toptional\n\t\t\t/* x */ B\n", "A\n  optional\n    B\n"},
		{"names", "features\n\t\"the root\"\n\t\toptional\n\t\t\t\"or\"\n\t\t\t\"a.b, c/d+e\"\n\t\t\tGröße_2\n\t\t\tx#1%2?3\\4'5;6\n\t\t\tBoolean typed\n",
			"the root\n  optional\n    or\n    a.b, c/d+e\n    Größe_2\n    x#1%2?3\\4'5;6\n    typed\n"},
		{"attributes", `features
	A {abstract true, cost 12.5, note 'a, b', size -3, nested {deep [1, 'x', true, {k 0}]}, empty {}, list [], one [2]}
		optional
			B {abstract false}
			C {
				abstract,
				weight 3
			}
`, "A [abstract]\n  optional\n    B\n    C [abstract]\n"},
		{"constraint attributes", "features\n\tA {constraint B => C, constraints [!B, B | C]}\n\t\toptional\n\t\t\tB\n\t\t\tC\nconstraints\n\tC\n",
			"A\n  optional\n    B\n    C\nconstraint (=> B C)\nconstraint (! B)\nconstraint (| B C)\nconstraint C\n"},
		{"precedence", `features
	A
		optional
			B
			C
			D
constraints
	A | B & C
	!A & B
	A => B => C
	A <=> B => C
	A & B | C <=> D | !A
	A => (B => C)
	!(A | B)
	!!A
	(A |
		B) & C
	A&B|C
`, "A\n  optional\n    B\n    C\n    D\n" +
			"constraint (| A (& B C))\n" +
			"constraint (& (! A) B)\n" +
			"constraint (=> (=> A B) C)\n" +
			"constraint (<=> A (=> B C))\n" +
			"constraint (<=> (| (& A B) C) (| D (! A)))\n" +
			"constraint (=> A (=> B C))\n" +
			"constraint (! (| A B))\n" +
			"constraint (! (! A))\n" +
			"constraint (& (| A B) C)\n" +
			"constraint (| (& A B) C)\n"},
		{"sections", "namespace Shop\n\ninclude\n\tBoolean\n\tBoolean.group-cardinality\n\tArithmetic.*\n\ttype.string-constraints\nfeatures\n\tA\nconstraints\n", "A\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := uvl.Parse([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(m); got != tc.want {
				t.Errorf("read:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestParseKeeps(t *testing.T) {
	src := "namespace Shop\nfeatures\n\tA {abstract, cost 12.5, tags ['x', 2], meta {owner 'me'}}\n\t\tor\n\t\t\tB\n\t\t\tC\nconstraints\n\t(B =>\n\t\t!C)\n\t(B |\n\t\tC)\n"
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Shop" || m.Format != feature.UVL || m.Root != 0 {
		t.Errorf("name %q, format %q, root %d", m.Name, m.Format, m.Root)
	}
	a := m.Features[0].Attributes
	got := fmt.Sprintf("%+v", a)
	want := "[{Key:abstract Value:{Kind:0 Bool:false Text: List:[] Attributes:[]} Pos:3:5} " +
		"{Key:cost Value:{Kind:2 Bool:false Text:12.5 List:[] Attributes:[]} Pos:3:15} " +
		"{Key:tags Value:{Kind:4 Bool:false Text: List:[{Kind:3 Bool:false Text:x List:[] Attributes:[]} {Kind:2 Bool:false Text:2 List:[] Attributes:[]}] Attributes:[]} Pos:3:26} " +
		"{Key:meta Value:{Kind:5 Bool:false Text: List:[] Attributes:[{Key:owner Value:{Kind:3 Bool:false Text:me List:[] Attributes:[]} Pos:3:47}]} Pos:3:41}]"
	if got != want {
		t.Errorf("attributes\n%s\nwant\n%s", got, want)
	}
	if p := m.Features[2].Pos; p != (feature.Pos{Line: 6, Column: 4}) {
		t.Errorf("C at %v, want 6:4", p)
	}
	if g := m.Groups[0]; g.Kind != feature.GroupOr || g.Pos != (feature.Pos{Line: 4, Column: 3}) {
		t.Errorf("group %+v", g)
	}
	// A constraint over several lines reads as one line of text.
	for i, want := range []struct {
		text string
		pos  feature.Pos
	}{{"(B => !C)", feature.Pos{Line: 8, Column: 2}}, {"(B | C)", feature.Pos{Line: 10, Column: 2}}} {
		if c := m.Constraints[i]; c.Text != want.text || c.Pos != want.pos {
			t.Errorf("constraint %d: %q at %v, want %q at %v", i, c.Text, c.Pos, want.text, want.pos)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	const tree = "features\n\tA\n\t\toptional\n\t\t\tB\n\t\t\tC\n"
	deepParens := tree + "constraints\n\t" + strings.Repeat("(", uvl.MaxDepth+1) + "B" + strings.Repeat(")", uvl.MaxDepth+1) + "\n"
	var deepTree strings.Builder
	deepTree.WriteString("features\n")
	for i := range uvl.MaxDepth/2 + 1 {
		deepTree.WriteString(strings.Repeat(" ", 2*i+1) + fmt.Sprintf("F%d\n", i) + strings.Repeat(" ", 2*i+2) + "optional\n")
	}
	deepTree.WriteString(strings.Repeat(" ", uvl.MaxDepth+3) + "Leaf\n")
	for _, tc := range []struct {
		name, src string
		kind      error
		want      string
	}{
		{"empty", "", feature.ErrInvalid, "1:1: expected a features section with the root feature, found none"},
		{"root not indented", "features\nA\n", feature.ErrSyntax, `2:1: expected the root feature on the next line, indented, found "A"`},
		{"two roots", "features\n\tA\n\tB\n", feature.ErrSyntax, `3:2: expected one root feature (the others indented under it), found "B"`},
		{"dedent to no level", "features\n    A\n        optional\n            B\n      C\n", feature.ErrSyntax,
			"5:7: expected this line to be indented as one of the lines that enclose it (4 columns), found 6 columns"},
		{"unknown group", "features\n\tA\n\t\tsometimes\n\t\t\tB\n", feature.ErrSyntax,
			`3:3: expected a group (mandatory, optional, or, alternative, or a cardinality such as [1..2]), found "sometimes"`},
		{"empty group", "features\n\tA\n\t\toptional\n", feature.ErrSyntax, "4:1: expected the group's features on the next lines, indented, found a shallower indentation"},
		{"keyword as a name", "features\n\tor\n", feature.ErrSyntax, `2:2: expected a name, found the keyword or (a name in quotes, "or", may be a keyword)`},
		{"name after a dot", "features\n\tA.\n", feature.ErrSyntax, "2:4: expected a name after the dot, found the end of the line"},
		{"Integer feature", "features\n\tA\n\t\toptional\n\t\t\tInteger price\n", feature.ErrUnsupported, "4:4: expected a Boolean feature, found a feature of type Integer"},
		{"String feature", "features\n\tString A\n", feature.ErrUnsupported, "2:2: expected a Boolean feature, found a feature of type String"},
		{"feature cardinality", "features\n\tA\n\t\toptional\n\t\t\tB cardinality [1..3]\n", feature.ErrUnsupported,
			"4:6: expected a Boolean feature, found a feature cardinality (a feature taken several times)"},
		{"comparison", tree + "constraints\n\tB > 3\n", feature.ErrUnsupported,
			"7:4: expected a Boolean operator (&, |, =>, <=>), found > (arithmetic and comparisons are not Boolean)"},
		{"arithmetic", tree + "constraints\n\tB & (B + C == 2)\n", feature.ErrUnsupported,
			"7:9: expected a Boolean operator (&, |, =>, <=>), found + (arithmetic and comparisons are not Boolean)"},
		{"number", tree + "constraints\n\t3 < B\n", feature.ErrUnsupported,
			"7:2: expected a Boolean constraint, found the number 3 (numeric constraints are not Boolean)"},
		{"string", tree + "constraints\n\t'x' == B\n", feature.ErrUnsupported,
			"7:2: expected a Boolean constraint, found the string 'x' (string constraints are not Boolean)"},
		{"aggregate", tree + "constraints\n\tsum(B) > 2\n", feature.ErrUnsupported,
			"7:2: expected a Boolean constraint, found the aggregate function sum (numeric constraints are not Boolean)"},
		{"unknown feature", tree + "constraints\n\tB => D\n", feature.ErrInvalid, "7:7: expected a feature declared in the tree, found D"},
		{"unknown import", tree + "constraints\n\tB => x.D\n", feature.ErrInvalid, "7:7: expected a feature, found x.D (no import is named x)"},
		{"twice", "features\n\tA\n\t\toptional\n\t\t\tB\n\t\tor\n\t\t\tB\n", feature.ErrInvalid, "6:4: expected each feature declared once, found B again (first at 4:4)"},
		{"missing parenthesis", tree + "constraints\n\t(B | C\n", feature.ErrSyntax, "7:2: expected ) to close this (, found the end of the file"},
		{"missing parenthesis before more", tree + "constraints\n\t(B | C\n\tB\n", feature.ErrSyntax, `8:2: expected ), found "B"`},
		{"two names", tree + "constraints\n\tB C\n", feature.ErrSyntax, `7:4: expected the end of the line after the constraint, found "C"`},
		{"dangling operator", tree + "constraints\n\tB &\n", feature.ErrSyntax, "7:5: expected a feature's name, ! or (, found the end of the line"},
		{"true is no name", tree + "constraints\n\ttrue\n", feature.ErrSyntax, `7:2: expected a feature's name, ! or (, found "true"`},
		{"bad character", tree + "constraints\n\tB = C\n", feature.ErrSyntax, `7:4: expected a name, a keyword or an operator, found '='`},
		{"unterminated quote", "features\n\t\"A\n", feature.ErrSyntax, `2:2: expected " to close this quoted name on its line`},
		{"empty quote", "features\n\t\"\"\n", feature.ErrSyntax, "2:2: expected a quoted name, found an empty one"},
		{"NUL in a quoted name", "features\n\t\"ab\x00c\"\n", feature.ErrInvalid, "2:5: expected a quoted name, found the control character U+0000"},
		{"tab in a quoted name", "features\n\t\"é\tc\"\n", feature.ErrInvalid, "2:4: expected a quoted name, found the control character U+0009"},
		{"quoted name not UTF-8", "features\n\t\"ab\xffc\"\n", feature.ErrSyntax, "2:5: expected a quoted name, found the byte 0xff, which is not UTF-8"},
		{"long quoted name", "features\n\t\"" + strings.Repeat("n", feature.MaxNameBytes+1) + "\"\n", feature.ErrLimit, "2:3: expected a quoted name, found a name of 257 bytes (at most 256)"},
		{"long bare name", "features\n\tA\n\t\toptional\n\t\t\t" + strings.Repeat("n", feature.MaxNameBytes+1) + "\n", feature.ErrLimit, "4:4: expected a name of at most 256 bytes, found one of 257"},
		{"long namespace", "namespace " + strings.Repeat("n.", 200) + "n\nfeatures\n\tA\n", feature.ErrLimit, "1:11: expected a namespace of at most 256 bytes, found one of 401"},
		{"BOM, then an error", "\uFEFFfeatures\n\tA\n\t\tsometimes\n\t\t\tB\n", feature.ErrSyntax,
			`3:3: expected a group (mandatory, optional, or, alternative, or a cardinality such as [1..2]), found "sometimes"`},
		{"unterminated comment", "features\n\tA /* no end\n", feature.ErrSyntax, "2:4: expected */ to close this comment, found the end of the file"},
		{"binary", "features\n\t\xff\xfe\n", feature.ErrSyntax, "2:2: expected UTF-8 text, found the byte 0xff"},
		{"NUL", "features\n\tA\x00\n", feature.ErrSyntax, `2:3: expected a name, a keyword or an operator, found '\x00'`},
		{"reversed cardinality", "features\n\tA\n\t\t[3..1]\n\t\t\tB\n", feature.ErrInvalid, "3:3: expected a cardinality [n..m] with n <= m, found [3..1]"},
		{"negative cardinality", "features\n\tA\n\t\t[-1..1]\n\t\t\tB\n", feature.ErrInvalid, "3:3: expected a cardinality bound from 0 to 1073741824, found -1"},
		{"sections out of order", "features\n\tA\nnamespace X\n", feature.ErrSyntax,
			"3:1: expected a section: namespace, include, imports, features or constraints, in this order, found the keyword namespace (a name in quotes, \"namespace\", may be a keyword)"},
		{"stray indentation", "  features\n\tA\n", feature.ErrSyntax,
			"1:3: expected a section: namespace, include, imports, features or constraints, in this order, found a deeper indentation"},
		{"imports need Load", "imports\n\tsub.M as S\nfeatures\n\tA\n", feature.ErrInvalid,
			"2:2: expected a model without imports (this reader was given one file, not the files beside it), found an import of S"},
		{"language level", "include\n\tFancy\nfeatures\n\tA\n", feature.ErrSyntax, `2:2: expected a language level (Boolean, Arithmetic or Type), found "Fancy"`},
		{"deep parentheses", deepParens, feature.ErrLimit, fmt.Sprintf("7:%d: expected at most %d levels of nesting, found more", uvl.MaxDepth+2, uvl.MaxDepth)},
		{"deep tree", deepTree.String(), feature.ErrLimit, fmt.Sprintf("%d:%d: expected at most %d levels of nesting, found more", uvl.MaxDepth+2, uvl.MaxDepth+2, uvl.MaxDepth)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := uvl.Parse([]byte(tc.src))
			if err == nil {
				t.Fatalf("read a model of %d features, want %q", len(m.Features), tc.want)
			}
			var fe *feature.Error
			if !errors.As(err, &fe) || !errors.Is(err, tc.kind) || err.Error() != tc.want {
				t.Fatalf("error %q (%T), want %q, %v", err, err, tc.want, tc.kind)
			}
			lines := strings.Split(tc.src, "\n")
			want := lines[fe.Line-1]
			if len(want) > 200 {
				want = want[:200]
			}
			if want = strings.ToValidUTF8(want, "\uFFFD"); fe.Quote != want {
				t.Errorf("quote %q, want line %d, %q", fe.Quote, fe.Line, want)
			}
		})
	}
}

// The error quotes the line it is about.
func TestErrorQuote(t *testing.T) {
	_, err := uvl.Parse([]byte("features\n\tA\n\t\toptional\n\t\t\tB cardinality [1..3]\n"))
	var fe *feature.Error
	if !errors.As(err, &fe) || fe.Quote != "\t\t\tB cardinality [1..3]" {
		t.Fatalf("error %v, quote %q", err, fe.Quote)
	}
}

var sandwich = fstest.MapFS{
	"sandwich.uvl": {Data: []byte(`namespace Sandwich
imports
	sub.Sauces as S
	sub.Extras
features
	Sandwich
		mandatory
			Bread
		optional
			S.Sauce
			Cheese
			sub.Extras.Extras
constraints
	S.Ketchup => Cheese
	sub.Extras.Pickles => !S.Mustard
`)},
	"sub/Sauces.uvl": {Data: []byte(`namespace Sauces
imports
	sub.Spices as Sp
features
	Sauce
		alternative
			Ketchup
			Mustard {abstract}
		optional
			Sp.Spices
constraints
	Mustard => Sp.Pepper
`)},
	"sub/Spices.uvl": {Data: []byte("features\n\tSpices\n\t\tor\n\t\t\tPepper\n\t\t\tSalt\n")},
	"sub/Extras.uvl": {Data: []byte("imports\n\tsub.Spices as Sp\nfeatures\n\tExtras\n\t\toptional\n\t\t\tPickles\nconstraints\n\tPickles => Sp.Salt\n")},
}

// Imports: the imported trees where the tree names their roots, their
// features named through the aliases, each file read once (Spices is
// imported twice and placed once), every file's constraints kept.
func TestLoadImports(t *testing.T) {
	m, err := uvl.Load(sandwich, "sandwich.uvl")
	if err != nil {
		t.Fatal(err)
	}
	want := `Sandwich
  mandatory
    Bread
  optional
    S.Sauce
      alternative
        S.Ketchup
        S.Mustard [abstract]
      optional
        S.Sp.Spices
          or
            S.Sp.Pepper
            S.Sp.Salt
    Cheese
    sub.Extras.Extras
      optional
        sub.Extras.Pickles
constraint (=> S.Ketchup Cheese)
constraint (=> sub.Extras.Pickles (! S.Mustard))
constraint (=> S.Mustard S.Sp.Pepper)
constraint (=> sub.Extras.Pickles S.Sp.Salt)
`
	if got := dump(m); got != want {
		t.Errorf("read:\n%s\nwant:\n%s", got, want)
	}
	if m.Name != "Sandwich" {
		t.Errorf("name %q", m.Name)
	}
	id, _ := m.ID("S.Mustard")
	if p := m.Features[id].Pos; p != (feature.Pos{File: "sub/Sauces.uvl", Line: 8, Column: 4}) {
		t.Errorf("S.Mustard at %v", p)
	}
	if p := m.Constraints[3].Pos; p != (feature.Pos{File: "sub/Extras.uvl", Line: 8, Column: 2}) {
		t.Errorf("the last constraint at %v", p)
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		kind  error
		want  string
	}{
		{"cycle", map[string]string{
			"a.uvl": "imports\n\tb\nfeatures\n\tA\n\t\toptional\n\t\t\tb.B\n",
			"b.uvl": "imports\n\ta\nfeatures\n\tB\n",
		}, feature.ErrInvalid, "b.uvl:2:2: expected imports without a cycle, found a.uvl imports b.uvl imports a.uvl"},
		{"itself", map[string]string{"a.uvl": "imports\n\ta as Me\nfeatures\n\tA\n"}, feature.ErrInvalid,
			"2:2: expected imports without a cycle, found a.uvl imports a.uvl"},
		{"missing", map[string]string{"a.uvl": "imports\n\tsub.Gone as G\nfeatures\n\tA\n"}, feature.ErrInvalid,
			"2:2: expected to read the import G from sub/Gone.uvl, found an error: open sub/Gone.uvl: file does not exist"},
		{"not placed", map[string]string{"a.uvl": "imports\n\tb as B\nfeatures\n\tA\n", "b.uvl": "features\n\tRoot\n"}, feature.ErrInvalid,
			"2:2: expected the root feature of the import B placed in the features tree, found it nowhere"},
		{"placed twice", map[string]string{"a.uvl": "imports\n\tb as B\nfeatures\n\tA\n\t\toptional\n\t\t\tB.Root\n\t\t\tB.Root\n", "b.uvl": "features\n\tRoot\n"},
			feature.ErrInvalid, "7:4: expected the import B placed once in the tree, found it again (first at 6:4)"},
		{"not its root", map[string]string{"a.uvl": "imports\n\tb as B\nfeatures\n\tA\n\t\toptional\n\t\t\tB.Leaf\n", "b.uvl": "features\n\tRoot\n\t\toptional\n\t\t\tLeaf\n"},
			feature.ErrInvalid, "6:4: expected the root feature of the import B (B.Root), found B.Leaf"},
		{"groups on an import", map[string]string{"a.uvl": "imports\n\tb as B\nfeatures\n\tA\n\t\toptional\n\t\t\tB.Root\n\t\t\t\toptional\n\t\t\t\t\tX\n", "b.uvl": "features\n\tRoot\n"},
			feature.ErrInvalid, "6:4: expected the imported feature B.Root without groups or attributes (they belong in its own file), found some"},
		{"alias twice", map[string]string{"a.uvl": "imports\n\tb as B\n\tc as B\nfeatures\n\tA\n"}, feature.ErrInvalid,
			"3:2: expected one import named B, found a second one (the first at 2:2)"},
		{"error in an import", map[string]string{"a.uvl": "imports\n\tsub.b as B\nfeatures\n\tA\n", "sub/b.uvl": "features\n\tRoot\n\t\toptional\n\t\t\tReal x\n"},
			feature.ErrUnsupported, "sub/b.uvl:4:4: expected a Boolean feature, found a feature of type Real"},
		{"too large together", map[string]string{"a.uvl": "imports\n\tb as B\nfeatures\n\tA\n", "b.uvl": "features\n\tRoot\n" + strings.Repeat("//", uvl.MaxSize/2)},
			feature.ErrLimit, "2:2: expected the model and its imports to hold at most 16777216 bytes, found more with b.uvl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, src := range tc.files {
				fsys[name] = &fstest.MapFile{Data: []byte(src)}
			}
			_, err := uvl.Load(fsys, "a.uvl")
			if err == nil || !errors.Is(err, tc.kind) || err.Error() != tc.want {
				t.Fatalf("error %v, want %q (%v)", err, tc.want, tc.kind)
			}
		})
	}
}

// Random models in random layouts: the model read, its CNF, and the
// generator's own evaluator agree on every configuration.
func TestRandomModels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rounds := 300
	if testing.Short() {
		rounds = 60
	}
	for round := range rounds {
		n := 1 + rng.IntN(12)
		if round%50 == 49 {
			n = 16 + rng.IntN(5) // up to 20 features, now and then
		}
		r := featuretest.RandomModel(rng, n)
		src := r.UVL(rng)
		m, err := uvl.Parse([]byte(src))
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, src)
		}
		ids := make([]int, n)
		for i, name := range r.Names {
			id, ok := m.ID(name)
			if !ok {
				t.Fatalf("round %d: %q not read\n%s", round, name, src)
			}
			ids[i] = id
		}
		c := m.CNF()
		cls := make([][]int, c.Len())
		for i := range cls {
			for _, l := range c.Clause(i) {
				cls[i] = append(cls[i], int(l))
			}
		}
		rc, mc := make([]bool, n), make([]bool, n)
		for bits := range 1 << n {
			for i := range n {
				rc[i] = bits>>i&1 == 1
				mc[ids[i]] = rc[i]
			}
			want := r.Valid(rc)
			if got := m.Valid(mc); got != want {
				t.Fatalf("round %d, configuration %b: Valid %v, the generator says %v\n%s", round, bits, got, want, src)
			}
			ext := featuretest.Extensions(cls, c.Vars, mc, 2)
			if (ext == 1) != want || ext > 1 {
				t.Fatalf("round %d, configuration %b: %d CNF models, the generator says %v\n%s", round, bits, ext, want, src)
			}
		}
	}
}

// A group of 100,000 features reads, and its CNF is in proportion to it.
func TestLargeGroup(t *testing.T) {
	const n = 100_000
	var b strings.Builder
	b.WriteString("features\n\tRoot\n\t\talternative\n")
	for i := range n {
		fmt.Fprintf(&b, "\t\t\tF%d\n", i)
	}
	m, err := uvl.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Features) != n+1 || len(m.Groups[0].Children) != n {
		t.Fatalf("%d features", len(m.Features))
	}
	if c := m.CNF(); c.Len() > 6*n {
		t.Errorf("%d clauses for an alternative of %d", c.Len(), n)
	}
}

// A file beyond MaxSize is refused before it is read.
func TestTooLarge(t *testing.T) {
	_, err := uvl.Parse(make([]byte, uvl.MaxSize+1))
	if !errors.Is(err, feature.ErrLimit) || err.Error() != "1:1: expected at most 16777216 bytes of UVL, found 16777217" {
		t.Fatalf("error %v", err)
	}
}

func FuzzUVL(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		r := featuretest.RandomModel(rng, 1+rng.IntN(8))
		f.Add(r.UVL(rng))
	}
	for _, s := range []string{
		"", "features\n\tA\n", "features\n\tA\n\t\t[1..*]\n\t\t\tB\nconstraints\n\tB <=> !(A => B)\n",
		"features\n\t\"x y\" {a {b [1, 'c', {d}]}}\n", "features\n\tA\n  B\n", "constraints\n\t(((\n",
		"features\n\tInteger A\n", "include\n\tBoolean.*\nfeatures\n\tA /* x\n*/\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, err := uvl.Parse([]byte(src))
		if err != nil {
			var fe *feature.Error
			if !errors.As(err, &fe) || fe.Line < 1 || fe.Column < 1 || fe.Msg == "" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		c := m.CNF()
		config := make([]bool, len(m.Features))
		m.Valid(config)
		if c.Features != len(m.Features) || c.Vars < c.Features {
			t.Fatalf("CNF of %d variables, %d features, for %d features", c.Vars, c.Features, len(m.Features))
		}
		// Written and read back: the same features, the same verdict on
		// the configuration of none and of all selected.
		var out bytes.Buffer
		if err := uvl.Write(&out, m); err != nil {
			return // a string attribute with a quote in it: refused, said so
		}
		back, err := uvl.Parse(out.Bytes())
		if err != nil {
			t.Fatalf("the written model: %v\n%s", err, out.String())
		}
		for i, f := range m.Features {
			if g := back.Features[i]; g.Name != f.Name || g.Parent != f.Parent || g.Abstract != f.Abstract {
				t.Fatalf("feature %d: %q written, %q read back", i, f.Name, g.Name)
			}
		}
		for _, all := range []bool{false, true} {
			for i := range config {
				config[i] = all
			}
			if m.Valid(config) != back.Valid(config) {
				t.Fatalf("all %v: judged otherwise read back\n%s", all, out.String())
			}
		}
	})
}
