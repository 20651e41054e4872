package uvl_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// Write lays a model out as UVL the reader reads back as the same model:
// names quoted where they must be, attributes as read, groups and
// cardinalities, constraints with the parentheses their operators need.
func TestWrite(t *testing.T) {
	const src = `namespace Shop.Web
features
	Shop {abstract, price 3.5, tags ['a', true, [1]], meta {deep 'x'}}
		mandatory
			"or"
			Pay
				[1..*]
					Card
					"Cash, on delivery"
		optional
			Extras
				[2]
					A
					B
					C
		alternative
			Big
			Small
constraints
	(A | B) & !(Big => C) <=> "or"
	A => (B => C)
	(A => B) => C
	!!A | B & (C | Big)
`
	const want = `namespace "Shop.Web"

features
	Shop {abstract, price 3.5, tags ['a', true, [1]], meta {deep 'x'}}
		mandatory
			"or"
			Pay
				[1..*]
					Card
					"Cash, on delivery"
		optional
			Extras
				[2]
					A
					B
					C
		alternative
			Big
			Small

constraints
	(A | B) & !(Big => C) <=> "or"
	A => (B => C)
	(A => B) => C
	!!A | B & (C | Big)
`
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := uvl.Write(&out, m); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", out.String(), want)
	}
	back, err := uvl.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := uvl.Write(&again, back); err != nil || again.String() != want {
		t.Fatalf("read back and written again:\n%s\n%v", again.String(), err)
	}
	if back.Name != "Shop.Web" || len(back.Features) != len(m.Features) {
		t.Errorf("read back %q, %d features", back.Name, len(back.Features))
	}
}

// A model without a tree gets a root; its empty clause and constants are
// written with the root, which is always selected.
func TestWriteWithoutTree(t *testing.T) {
	m, err := feature.New(feature.Model{
		Name: "cnf", Format: feature.DIMACS, Root: -1,
		Features: []feature.Feature{{Name: "Root", Parent: -1, Group: -1}, {Name: "b c", Parent: -1, Group: -1}},
		Constraints: []feature.Constraint{
			{Expr: feature.Or(feature.Const(false), feature.Var(1))},
			{Expr: feature.Implies(feature.Const(true), feature.Var(0))},
		},
		Clauses: []feature.Clause{{Lits: []feature.Lit{1, -2}}, {}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := uvl.Write(&out, m); err != nil {
		t.Fatal(err)
	}
	const want = `namespace cnf

features
	Root_ {abstract}
		optional
			Root
			"b c"

constraints
	!Root_ | "b c"
	Root_ => Root
	Root | !"b c"
	!Root_
`
	if out.String() != want {
		t.Fatalf("wrote\n%s\nwant\n%s", out.String(), want)
	}
}

// A name or a string UVL cannot hold is refused before anything is
// written.
func TestWriteRefuses(t *testing.T) {
	for _, tc := range []struct {
		f    feature.Feature
		want string
	}{
		{feature.Feature{Name: `say "hi"`}, "no way to write a double quote in a name"},
		{feature.Feature{Name: "a\nb"}, "control character U+000A"},
		{feature.Feature{Name: "A", Attributes: []feature.Attribute{{Key: "note", Value: feature.Value{Kind: feature.StringValue, Text: "it's"}}}}, "a quote or a line break in a string"},
	} {
		tc.f.Parent, tc.f.Group = -1, -1
		m, err := feature.New(feature.Model{Root: 0, Features: []feature.Feature{tc.f}})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := uvl.Write(&out, m); err == nil || !strings.Contains(err.Error(), tc.want) || out.Len() > 0 {
			t.Errorf("%q: wrote %d bytes, error %v; want one saying %q", tc.f.Name, out.Len(), err, tc.want)
		}
	}
}
