package uvl

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/nqueens/configurator/configurator/feature"
)

// Write writes m as UVL that Parse reads back into a model with the same
// features, tree, constraints and configurations: the namespace (when the
// model's name is not its root's), the tree with its groups, each feature
// with its attributes (abstract ones marked {abstract}), and a constraints
// section. A model without a tree (a CNF file's) gets an abstract root,
// named Root unless a feature has that name, whose one optional group holds
// every feature, and a constraint for each clause; read back, it has that
// one feature more and as many configurations. A name or a string that UVL
// cannot write (a double quote in a name, a quote or a line break in a
// string, a name NameFault refuses) is an error, before anything is
// written.
func Write(w io.Writer, m *feature.Model) error {
	names := make([]string, len(m.Features))
	for i, f := range m.Features {
		q, err := quote(f.Name)
		if err != nil {
			return fmt.Errorf("uvl: feature %d: %w", i, err)
		}
		names[i] = q
		if err := checkAttributes(f.Attributes); err != nil {
			return fmt.Errorf("uvl: feature %s: %w", q, err)
		}
	}
	root, rootName := m.Root, ""
	if root < 0 {
		rootName = m.FreeName("Root")
	} else {
		rootName = names[root]
	}
	// groups[f] are the groups of feature f, in the model's order.
	groups := make(map[int][]int, len(m.Groups))
	for gi, g := range m.Groups {
		groups[g.Parent] = append(groups[g.Parent], gi)
	}

	bw := bufio.NewWriter(w)
	if m.Name != "" && (root < 0 || m.Name != m.Features[root].Name) {
		if ns, err := quote(m.Name); err == nil {
			fmt.Fprintf(bw, "namespace %s\n\n", ns)
		}
	}
	bw.WriteString("features\n")
	var feat func(f, depth int)
	feat = func(f, depth int) {
		bw.WriteString(strings.Repeat("\t", depth) + names[f])
		writeAttributes(bw, m.Features[f])
		bw.WriteByte('\n')
		for _, gi := range groups[f] {
			g := &m.Groups[gi]
			bw.WriteString(strings.Repeat("\t", depth+1) + groupKeyword(g) + "\n")
			for _, c := range g.Children {
				feat(c, depth+2)
			}
		}
	}
	if root >= 0 {
		feat(root, 1)
	} else {
		fmt.Fprintf(bw, "\t%s {abstract}\n", rootName)
		if len(m.Features) > 0 {
			bw.WriteString("\t\toptional\n")
			for f := range m.Features {
				feat(f, 3)
			}
		}
	}
	name := func(f int) string { return names[f] }
	if len(m.Constraints)+len(m.Clauses) > 0 {
		bw.WriteString("\nconstraints\n")
	}
	constraint := func(e *feature.Expr) {
		bw.WriteByte('\t')
		writeExpr(bw, e, name, rootName, 0)
		bw.WriteByte('\n')
	}
	for _, c := range m.Constraints {
		constraint(c.Expr)
	}
	for _, c := range m.Clauses {
		constraint(c.Expr())
	}
	return bw.Flush()
}

// groupKeyword returns the line that opens group g.
func groupKeyword(g *feature.Group) string {
	if g.Kind != feature.GroupCardinality {
		return g.Kind.String()
	}
	switch {
	case g.Max < 0:
		return fmt.Sprintf("[%d..*]", g.Min)
	case g.Min == g.Max:
		return fmt.Sprintf("[%d]", g.Min)
	}
	return fmt.Sprintf("[%d..%d]", g.Min, g.Max)
}

// quote returns name as UVL writes it: bare when the lexer reads it back
// as one name (not a keyword, not true or false), else in double quotes.
func quote(name string) (string, error) {
	switch at, found, _ := feature.NameFault(name); {
	case name == "":
		return "", fmt.Errorf("an empty name")
	case at >= 0:
		return "", fmt.Errorf("name %q: %s", name, found)
	case strings.Contains(name, `"`):
		return "", fmt.Errorf("name %q: UVL has no way to write a double quote in a name", name)
	}
	if bareName(name) {
		return name, nil
	}
	return `"` + name + `"`, nil
}

// bareName reports whether the lexer reads name, unquoted, as one name.
func bareName(name string) bool {
	if !isNameStart(name[0]) || keyword(name) || name == "true" || name == "false" {
		return false
	}
	return !strings.ContainsFunc(name[1:], func(r rune) bool { return !nameRune(r) })
}

// checkAttributes reports an attribute that UVL cannot write.
func checkAttributes(attrs []feature.Attribute) error {
	for _, a := range attrs {
		if _, err := quote(a.Key); err != nil {
			return fmt.Errorf("attribute: %w", err)
		}
		if err := checkValue(a.Value); err != nil {
			return fmt.Errorf("attribute %s: %w", a.Key, err)
		}
	}
	return nil
}

func checkValue(v feature.Value) error {
	switch v.Kind {
	case feature.StringValue:
		if strings.ContainsAny(v.Text, "'\r\n") || !utf8.ValidString(v.Text) {
			return fmt.Errorf("string %q: UVL has no way to write a quote or a line break in a string", v.Text)
		}
	case feature.ListValue:
		for _, e := range v.List {
			if err := checkValue(e); err != nil {
				return err
			}
		}
	case feature.AttributesValue:
		return checkAttributes(v.Attributes)
	}
	return nil
}

// writeAttributes writes f's attributes in braces, {abstract} added for an
// abstract feature that does not say so among them.
func writeAttributes(bw *bufio.Writer, f feature.Feature) {
	attrs := f.Attributes
	if f.Abstract && !abstract(attrs) {
		attrs = append([]feature.Attribute{{Key: "abstract"}}, attrs...)
	}
	if len(attrs) == 0 {
		return
	}
	bw.WriteByte(' ')
	writeAttributeList(bw, attrs)
}

func writeAttributeList(bw *bufio.Writer, attrs []feature.Attribute) {
	bw.WriteByte('{')
	for i, a := range attrs {
		if i > 0 {
			bw.WriteString(", ")
		}
		key, _ := quote(a.Key) // checked by checkAttributes
		if keyword(a.Key) {
			key = a.Key // a keyword may name an attribute
		}
		bw.WriteString(key)
		if a.Value.Kind != feature.NoValue {
			bw.WriteByte(' ')
			writeValue(bw, a.Value)
		}
	}
	bw.WriteByte('}')
}

func writeValue(bw *bufio.Writer, v feature.Value) {
	switch v.Kind {
	case feature.BoolValue:
		fmt.Fprint(bw, v.Bool)
	case feature.NumberValue:
		bw.WriteString(v.Text)
	case feature.StringValue:
		bw.WriteString("'" + v.Text + "'")
	case feature.ListValue:
		bw.WriteByte('[')
		for i, e := range v.List {
			if i > 0 {
				bw.WriteString(", ")
			}
			writeValue(bw, e)
		}
		bw.WriteByte(']')
	case feature.AttributesValue:
		writeAttributeList(bw, v.Attributes)
	}
}

// precedence is how tightly each operator binds in UVL, loosest first.
var precedence = [...]int{feature.OpIff: 1, feature.OpImplies: 2, feature.OpOr: 3, feature.OpAnd: 4,
	feature.OpNot: 5, feature.OpVar: 6, feature.OpTrue: 6, feature.OpFalse: 6}

var opText = [...]string{feature.OpIff: " <=> ", feature.OpImplies: " => ", feature.OpOr: " | ", feature.OpAnd: " & "}

// FormatExpr returns e in UVL's constraint syntax, each feature f written
// as name(f), with the parentheses it needs and no more. Constants are
// written true and false, which UVL's grammar does not have (Write
// rewrites them).
func FormatExpr(e *feature.Expr, name func(f int) string) string {
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	writeExpr(bw, e, name, "", 0)
	bw.Flush()
	return b.String()
}

// writeExpr writes e, in parentheses when it binds no tighter than an
// operator of precedence outer (every operator chain is left-associative
// and kept as one node, so an operand of the same precedence is
// parenthesised too). Expressions as deep as a reader's MaxDepth are
// written by recursion. The constants are written true and false, or,
// since UVL's constraints have neither, as root and !root when root names
// the root, which is always selected.
func writeExpr(bw *bufio.Writer, e *feature.Expr, name func(int) string, root string, outer int) {
	switch e.Op {
	case feature.OpTrue, feature.OpFalse:
		switch {
		case root == "":
			fmt.Fprint(bw, e.Op == feature.OpTrue)
		case e.Op == feature.OpFalse:
			bw.WriteString("!" + root)
		default:
			bw.WriteString(root)
		}
		return
	case feature.OpVar:
		bw.WriteString(name(e.Var))
		return
	case feature.OpNot:
		bw.WriteByte('!')
		writeExpr(bw, e.Args[0], name, root, precedence[feature.OpNot]-1)
		return
	}
	p := precedence[e.Op]
	paren := p <= outer
	if paren {
		bw.WriteByte('(')
	}
	for i, a := range e.Args {
		if i > 0 {
			bw.WriteString(opText[e.Op])
		}
		writeExpr(bw, a, name, root, p)
	}
	if paren {
		bw.WriteByte(')')
	}
}
