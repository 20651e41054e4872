package uvl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// file is one UVL file as parsed, before its names are resolved.
type file struct {
	path      string // in the file system; "" for the file a reader was handed
	src       string
	namespace string
	imports   []*importDecl
	root      *node
	// constraints are the file's constraints: those of the features'
	// attributes, then those of its constraints section.
	constraints []rawConstraint
	refs        []ref
	nodes       int // features declared in the tree
}

type importDecl struct {
	ids   []string // the imported file, its path's parts
	alias string   // the name its features are reached by
	at    token
	file  *file // once loaded
}

// node is a feature as declared in the tree.
type node struct {
	ids    []string // one for a feature of this file, more for an import's root
	at     token
	attrs  []feature.Attribute
	groups []*groupNode
}

type groupNode struct {
	kind     feature.GroupKind
	min, max int
	at       token
	children []*node
}

type rawConstraint struct {
	expr *feature.Expr
	text string
	at   token
}

// ref is a name in a constraint, to be resolved once every file is read:
// expr is the OpVar node that gets the feature's number.
type ref struct {
	ids  []string
	at   token
	expr *feature.Expr
}

type parser struct {
	lx      *lexer
	tok     token
	lastEnd int // where the token before tok ends
	f       *file
	nest    int // nesting of features, groups, parentheses, negations, attributes
}

func (p *parser) next() {
	p.lastEnd = p.tok.end
	p.tok = p.lx.next()
}

func (p *parser) fail(kind error, at token, format string, args ...any) {
	p.lx.errorf(kind, at, format, args...)
}

// expected stops at the current token, which is not what was expected.
func (p *parser) expected(what string) {
	found := p.tok.String()
	if p.tok.kind == tKeyword && !strings.Contains(p.tok.text, "-") {
		found += fmt.Sprintf(" (a name in quotes, %q, may be a keyword)", p.tok.text)
	}
	p.fail(feature.ErrSyntax, p.tok, "expected %s, found %s", what, found)
}

func (p *parser) isOp(op string) bool { return p.tok.kind == tOp && p.tok.text == op }

func (p *parser) isKeyword(kw string) bool { return p.tok.kind == tKeyword && p.tok.text == kw }

func (p *parser) expectOp(op, what string) {
	if !p.isOp(op) {
		p.expected(what)
	}
	p.next()
}

func (p *parser) expectNewline(after string) {
	if p.tok.kind != tNewline {
		p.expected("the end of the line after " + after)
	}
	p.next()
}

func (p *parser) skipNewlines() {
	for p.tok.kind == tNewline {
		p.next()
	}
}

// enter counts one more level of nesting, refusing more than MaxDepth.
func (p *parser) enter(at token) {
	if p.nest++; p.nest > MaxDepth {
		p.fail(feature.ErrLimit, at, "expected at most %d levels of nesting, found more", MaxDepth)
	}
}

func (p *parser) leave() { p.nest-- }

// parseFile reads a file: namespace, include, imports, features and
// constraints, each optional, in this order.
func parseFile(src, path string) (_ *file, err error) {
	defer feature.Rescue(&err)
	p := &parser{lx: newLexer(src, path), f: &file{path: path, src: src}}
	p.next()
	sections := []struct {
		keyword string
		parse   func()
	}{
		{"namespace", p.namespace},
		{"include", p.includes},
		{"imports", p.imports},
		{"features", p.features},
		{"constraints", p.constraints},
	}
	for i := 0; ; {
		p.skipNewlines()
		if p.tok.kind == tEOF {
			return p.f, nil
		}
		for i < len(sections) && !p.isKeyword(sections[i].keyword) {
			i++
		}
		if i == len(sections) {
			p.expected("a section: namespace, include, imports, features or constraints, in this order")
		}
		sections[i].parse()
		i++
	}
}

func (p *parser) namespace() {
	p.next()
	at := p.tok
	p.f.namespace = strings.Join(p.reference(), ".")
	if len(p.f.namespace) > feature.MaxNameBytes {
		p.fail(feature.ErrLimit, at, "expected a namespace of at most %d bytes, found one of %d", feature.MaxNameBytes, len(p.f.namespace))
	}
	if p.tok.kind != tEOF {
		p.expectNewline("the namespace")
	}
}

// section reads a keyword's indented block of lines, each read by line.
func (p *parser) section(name string, line func()) {
	p.next()
	p.expectNewline(name)
	if p.tok.kind != tIndent {
		return
	}
	p.next()
	for p.tok.kind != tDedent {
		line()
	}
	p.next()
}

// includes reads the language levels; every one is accepted, and what a
// Boolean model cannot express is refused where it is used.
func (p *parser) includes() {
	p.section("include", func() {
		switch {
		case p.isKeyword("Boolean"):
		case p.tok.kind == tName && strings.EqualFold(p.tok.text, "Arithmetic"):
		case p.tok.kind == tName && strings.EqualFold(p.tok.text, "Type"):
		default:
			p.expected("a language level (Boolean, Arithmetic or Type)")
		}
		p.next()
		if p.isOp(".") {
			p.next()
			if !p.isOp("*") && (p.tok.kind != tKeyword || !strings.Contains(p.tok.text, "-")) {
				p.expected("a minor language level (group-cardinality, feature-cardinality, aggregate-function, string-constraints or *)")
			}
			p.next()
		}
		p.expectNewline("the language level")
	})
}

func (p *parser) imports() {
	p.section("imports", func() {
		at := p.tok
		d := &importDecl{at: at, ids: p.reference()}
		d.alias = strings.Join(d.ids, ".")
		if p.isKeyword("as") {
			p.next()
			d.alias = strings.Join(p.reference(), ".")
		}
		for _, o := range p.f.imports {
			if o.alias == d.alias {
				p.fail(feature.ErrInvalid, d.at, "expected one import named %s, found a second one (the first at %d:%d)", d.alias, o.at.line, o.at.col)
			}
		}
		p.f.imports = append(p.f.imports, d)
		p.expectNewline("the import")
	})
}

func (p *parser) features() {
	p.next()
	p.expectNewline("features")
	if p.tok.kind != tIndent {
		p.expected("the root feature on the next line, indented")
	}
	p.next()
	p.f.root = p.feature()
	if p.tok.kind != tDedent {
		p.expected("one root feature (the others indented under it)")
	}
	p.next()
}

// feature reads a feature's line and its groups.
func (p *parser) feature() *node {
	p.enter(p.tok)
	defer p.leave()
	switch {
	case p.isKeyword("String") || p.isKeyword("Integer") || p.isKeyword("Real"):
		p.fail(feature.ErrUnsupported, p.tok, "expected a Boolean feature, found a feature of type %s", p.tok.text)
	case p.isKeyword("Boolean"):
		p.next()
	}
	at := p.tok
	n := &node{at: at, ids: p.reference()}
	p.f.nodes++
	if p.isKeyword("cardinality") {
		p.fail(feature.ErrUnsupported, p.tok, "expected a Boolean feature, found a feature cardinality (a feature taken several times)")
	}
	if p.isOp("{") {
		n.attrs = p.attributes()
	}
	p.expectNewline("the feature")
	if p.tok.kind == tIndent {
		p.next()
		for p.tok.kind != tDedent {
			n.groups = append(n.groups, p.group())
		}
		p.next()
	}
	return n
}

var groupKinds = map[string]feature.GroupKind{
	"mandatory":   feature.GroupMandatory,
	"optional":    feature.GroupOptional,
	"or":          feature.GroupOr,
	"alternative": feature.GroupAlternative,
}

func (p *parser) group() *groupNode {
	p.enter(p.tok)
	defer p.leave()
	g := &groupNode{at: p.tok}
	kind, ok := groupKinds[p.tok.text]
	switch {
	case p.tok.kind == tKeyword && ok:
		g.kind = kind
	case p.tok.kind == tCard:
		g.kind = feature.GroupCardinality
		g.min, g.max = p.cardinality()
	default:
		p.expected("a group (mandatory, optional, or, alternative, or a cardinality such as [1..2])")
	}
	p.next()
	p.expectNewline("the group")
	if p.tok.kind != tIndent {
		p.expected("the group's features on the next lines, indented")
	}
	p.next()
	for p.tok.kind != tDedent {
		g.children = append(g.children, p.feature())
	}
	p.next()
	return g
}

// cardinality returns the bounds of the tCard token at hand; max is -1 for
// *.
func (p *parser) cardinality() (lo, hi int) {
	text := strings.TrimSuffix(strings.TrimPrefix(p.tok.text, "["), "]")
	a, b, ranged := strings.Cut(text, "..")
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxCardinality {
			p.fail(feature.ErrInvalid, p.tok, "expected a cardinality bound from 0 to %d, found %s", maxCardinality, s)
		}
		return n
	}
	lo, hi = num(a), -1
	switch {
	case !ranged:
		hi = lo
	case b != "*":
		hi = num(b)
	}
	if hi >= 0 && hi < lo {
		p.fail(feature.ErrInvalid, p.tok, "expected a cardinality [n..m] with n <= m, found %s", p.tok.text)
	}
	return lo, hi
}

// reference reads a name: identifiers joined by dots.
func (p *parser) reference() []string {
	var ids []string
	for {
		if p.tok.kind != tName && p.tok.kind != tQuoted {
			if len(ids) == 0 {
				p.expected("a name")
			}
			p.expected("a name after the dot")
		}
		ids = append(ids, p.tok.text)
		p.next()
		if !p.isOp(".") {
			return ids
		}
		p.next()
	}
}

// attributes reads attributes in braces; the constraints among them are
// added to the file's.
func (p *parser) attributes() []feature.Attribute {
	p.enter(p.tok)
	defer p.leave()
	p.next()
	var attrs []feature.Attribute
	for !p.isOp("}") {
		if len(attrs) > 0 || p.isOp(",") {
			p.expectOp(",", "a comma or } in the attributes")
		}
		at := p.tok
		switch {
		case p.isKeyword("constraint"):
			p.next()
			p.constraint()
			continue
		case p.isKeyword("constraints"):
			p.next()
			p.expectOp("[", "[ to open the list of constraints")
			for i := 0; !p.isOp("]"); i++ {
				if i > 0 {
					p.expectOp(",", "a comma or ] in the list of constraints")
				}
				p.constraint()
			}
			p.next()
			continue
		case p.tok.kind == tName || p.tok.kind == tQuoted || p.tok.kind == tKeyword:
		default:
			p.expected("an attribute's name")
		}
		a := feature.Attribute{Key: p.tok.text, Pos: pos(p.f, at)}
		p.next()
		switch p.tok.kind {
		case tBool, tInt, tFloat, tString, tCard:
			a.Value = p.value()
		case tOp:
			if p.isOp("{") || p.isOp("[") {
				a.Value = p.value()
			}
		}
		attrs = append(attrs, a)
	}
	p.next()
	return attrs
}

func (p *parser) value() feature.Value {
	var v feature.Value
	switch p.tok.kind {
	case tBool:
		v = feature.Value{Kind: feature.BoolValue, Bool: p.tok.text == "true"}
	case tInt, tFloat:
		v = feature.Value{Kind: feature.NumberValue, Text: p.tok.text}
	case tString:
		v = feature.Value{Kind: feature.StringValue, Text: p.tok.text}
	case tCard:
		// [2] is a list of one number to the parser, a cardinality to the
		// lexer.
		inner := strings.Trim(p.tok.text, "[]")
		if strings.Contains(inner, "..") {
			p.expected("a value")
		}
		v = feature.Value{Kind: feature.ListValue, List: []feature.Value{{Kind: feature.NumberValue, Text: inner}}}
	default:
		switch {
		case p.isOp("{"):
			return feature.Value{Kind: feature.AttributesValue, Attributes: p.attributes()}
		case p.isOp("["):
			p.enter(p.tok)
			p.next()
			v.Kind = feature.ListValue
			for !p.isOp("]") {
				if len(v.List) > 0 {
					p.expectOp(",", "a comma or ] in the list")
				}
				v.List = append(v.List, p.value())
			}
			p.leave()
		default:
			p.expected("a value")
		}
	}
	p.next()
	return v
}

func (p *parser) constraints() {
	p.section("constraints", func() {
		p.constraint()
		p.expectNewline("the constraint")
	})
}

// constraint reads a constraint and adds it to the file's.
func (p *parser) constraint() {
	at := p.tok
	e, _ := p.iff()
	end := p.lastEnd
	text := p.f.src[at.off:end]
	if strings.ContainsAny(text, "\r\n") {
		text = strings.Join(strings.Fields(text), " ")
	}
	p.f.constraints = append(p.f.constraints, rawConstraint{expr: e, text: text, at: at})
}
