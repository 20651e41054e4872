// Package featureide reads and writes feature models in FeatureIDE's XML
// format, and reads SPLOT's SXFM format, as feature.Model values.
//
// A FeatureIDE model (<featureModel>, or <extendedFeatureModel>) holds a
// <struct> whose one root element is a feature: <and> (its children each
// mandatory="true" or optional), <or> (at least one child), <alt> (exactly
// one) or a <feature> leaf, each with a name and perhaps abstract="true";
// every element of the tree is a feature, abstract ones included, numbered
// in the tree's pre-order. Its <constraints> hold <rule>s, each one
// expression over <imp>, <eq>, <conj>, <disj> (any number of operands),
// <not> and <var> (a feature's name as text). Descriptions, attributes,
// graphics, properties, calculations, comments and the feature order carry
// no semantics and are skipped; an element of the tree or of a rule that
// this reader does not know is refused with its position, never dropped.
//
// An SXFM model (<feature_model>) holds a text tree in <feature_tree>: one
// line a feature or group, nested by indentation, `:r Name(id)` the root,
// `:m` a mandatory child, `:o` an optional one, `:g (id) [n,m]` a group
// with cardinality ([1,1] alternative, [1,*] or) whose members are the
// lines `: Name(id)` under it; and in <constraints> one clause a line,
// `name: id or ~id ...`, naming features by their ids. A name that an
// earlier feature has already is made unique with _1, _2, ... after it.
//
// The XML is read by encoding/xml, strictly: a document type declaration
// is refused (so that no entity is ever defined, let alone expanded), as
// are entities other than XML's five, text that is not UTF-8, and a name
// that feature.NameFault refuses. A file's size and its nesting are
// bounded as package uvl bounds UVL's. Errors are *feature.Error values
// at a line and a column.
package featureide

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// MaxSize is the most bytes a file may hold, as for UVL.
const MaxSize = uvl.MaxSize

// MaxDepth is the deepest nesting of elements a file may have, as for UVL.
const MaxDepth = uvl.MaxDepth

// Parse reads a FeatureIDE XML model or an SXFM model from src, told by
// its root element. The model's name is the SXFM model's name attribute,
// else its root feature's.
func Parse(src []byte) (m *feature.Model, err error) {
	defer feature.Rescue(&err)
	r := &reader{src: src, ids: map[string]int{}}
	r.m.Root = -1
	if len(src) > MaxSize {
		r.fail(feature.ErrLimit, 0, "expected at most %d bytes, found %d", MaxSize, len(src))
	}
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		r.skip = len("\uFEFF")
	}
	r.counted, r.line, r.col = r.skip, 1, 1
	r.d = xml.NewDecoder(bytes.NewReader(src[r.skip:]))
	root := false
	for {
		switch t := r.token().(type) {
		case nil:
			if !root {
				r.fail(feature.ErrSyntax, len(src), "expected <featureModel> or SPLOT's <feature_model>, found the end of the file")
			}
			return r.finish()
		case xml.StartElement:
			at := r.start
			switch {
			case root:
				r.fail(feature.ErrSyntax, at, "expected one root element, found a second, <%s>", t.Name.Local)
			case t.Name.Local == "featureModel" || t.Name.Local == "extendedFeatureModel":
				r.m.Format = feature.FeatureIDE
				r.featureModel()
			case t.Name.Local == "feature_model":
				r.m.Format = feature.SXFM
				r.sxfm(t)
			default:
				r.fail(feature.ErrSyntax, at, "expected <featureModel> or SPLOT's <feature_model>, found <%s>", t.Name.Local)
			}
			root = true
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				r.fail(feature.ErrSyntax, r.start, "expected an element, found text outside it")
			}
		}
	}
}

// reader reads one file: the decoder's tokens, where each begins in src,
// and the model as far as it is read.
type reader struct {
	src   []byte
	skip  int // the bytes of a byte order mark before what d reads
	d     *xml.Decoder
	start int // where in src the token last read begins
	depth int // elements open
	m     feature.Model
	ids   map[string]int // features by name
	refs  []ref
	// src is counted up to counted, for pos: the line and the column
	// there.
	counted, line, col int
}

// pos returns the position of byte offset off. Positions asked for in the
// file's order (a feature's, a group's, a rule's) cost the file's length
// in all, counted on from the last one, even on one long line; one before
// it is counted afresh.
func (r *reader) pos(off int) feature.Pos {
	if off < r.counted {
		return feature.PosAt(r.src, off)
	}
	for i := r.counted; i < off; i++ {
		switch c := r.src[i]; {
		case c == '\n' || c == '\r' && (i+1 == len(r.src) || r.src[i+1] != '\n'):
			r.line, r.col = r.line+1, 1
		case c&0xC0 != 0x80:
			r.col++
		}
	}
	r.counted = off
	return feature.Pos{Line: r.line, Column: r.col}
}

// ref is a name in a constraint (an id in an SXFM clause), resolved once
// the whole file is read.
type ref struct {
	name string
	off  int
	expr *feature.Expr
}

// resolve gives each of refs the feature that ids has under its name,
// refusing a name it has not: "expected want, found the name".
func (r *reader) resolve(refs []ref, ids map[string]int, want string) {
	for _, f := range refs {
		id, ok := ids[f.name]
		if !ok {
			r.fail(feature.ErrInvalid, f.off, "expected %s, found %q", want, f.name)
		}
		f.expr.Var = id
	}
}

// fail stops reading with an error at byte offset off of src.
func (r *reader) fail(kind error, off int, format string, args ...any) {
	feature.Bail(feature.ErrorAt(r.src, off, kind, format, args...))
}

// token returns the next token, nil at the end of the file; a document
// type declaration, malformed XML and nesting beyond MaxDepth stop the
// reader.
func (r *reader) token() xml.Token {
	r.start = r.skip + int(r.d.InputOffset())
	t, err := r.d.Token()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		off := r.skip + int(r.d.InputOffset())
		var se *xml.SyntaxError
		if errors.As(err, &se) {
			// An entity is reported once its element is read: point at it.
			if i := strings.IndexByte(se.Msg, '&'); i >= 0 && strings.HasSuffix(se.Msg, ";") {
				if j := bytes.Index(r.src[r.start:off], []byte(se.Msg[i:])); j >= 0 {
					off = r.start + j
				}
			}
			r.fail(feature.ErrSyntax, off, "expected well-formed XML, found an error: %s", se.Msg)
		}
		r.fail(feature.ErrSyntax, off, "expected well-formed XML in UTF-8, found an error: %s", strings.TrimPrefix(err.Error(), "xml: "))
	}
	switch t := t.(type) {
	case xml.Directive:
		r.fail(feature.ErrUnsupported, r.start, "expected no document type declaration (entities are not defined here), found <!%s", append(strings.Fields(string(t)), "")[0])
	case xml.StartElement:
		if r.depth++; r.depth > MaxDepth {
			r.fail(feature.ErrLimit, r.start, "expected at most %d levels of nesting, found more", MaxDepth)
		}
	case xml.EndElement:
		r.depth--
	}
	return t
}

// ignored are the elements that carry no semantics, skipped wherever they
// are.
var ignored = map[string]bool{
	"description": true, "attribute": true, "graphics": true, "property": true, "properties": true,
	"calculations": true, "comments": true, "c": true, "featureOrder": true, "tags": true, "meta": true,
}

// skipElement reads up to the end of the element just started.
func (r *reader) skipElement() {
	for depth := r.depth; r.depth >= depth; {
		if r.token() == nil {
			r.fail(feature.ErrSyntax, len(r.src), "expected the end of an element, found the end of the file")
		}
	}
}

// children reads the content of the element just started, calling elem
// for each element in it (which must read it whole) and refusing text
// that is not blank, until the element ends.
func (r *reader) children(where string, elem func(t xml.StartElement)) {
	r.content(where, elem, func(t xml.CharData, off int) {
		if len(bytes.TrimSpace(t)) > 0 {
			r.fail(feature.ErrSyntax, off, "expected elements in %s, found text", where)
		}
	})
}

// elements reads the content of the element just started as children
// does, calling elem for each element that tags has; any other is left to
// unknown, want saying what was expected.
func (r *reader) elements(where string, tags map[string]bool, want string, elem func(t xml.StartElement)) {
	r.children(where, func(t xml.StartElement) {
		if !tags[t.Name.Local] {
			r.unknown(t, where, want)
			return
		}
		elem(t)
	})
}

// content reads the content of the element just started, calling elem
// for each element in it (which must read it whole) and text for each run
// of text with the offset in src where it begins, until the element ends.
func (r *reader) content(where string, elem func(xml.StartElement), text func(t xml.CharData, off int)) {
	for {
		switch t := r.token().(type) {
		case nil:
			r.fail(feature.ErrSyntax, len(r.src), "expected the end of %s, found the end of the file", where)
		case xml.StartElement:
			elem(t)
		case xml.EndElement:
			return
		case xml.CharData:
			text(t, r.start)
		}
	}
}

// unknown skips an ignored element and refuses any other.
func (r *reader) unknown(t xml.StartElement, where, want string) {
	if ignored[t.Name.Local] {
		r.skipElement()
		return
	}
	r.fail(feature.ErrUnsupported, r.start, "expected %s in %s, found <%s>", want, where, t.Name.Local)
}

// featureModel reads the content of <featureModel>.
func (r *reader) featureModel() {
	seen := map[string]bool{}
	r.children("<featureModel>", func(t xml.StartElement) {
		switch t.Name.Local {
		case "struct", "constraints":
			if seen[t.Name.Local] {
				r.fail(feature.ErrSyntax, r.start, "expected one <%s>, found a second", t.Name.Local)
			}
			seen[t.Name.Local] = true
			if t.Name.Local == "struct" {
				r.structure()
			} else {
				r.constraints()
			}
		default:
			// Sections beside the tree and the rules hold no features and
			// no rules: properties, calculations, comments, the order.
			r.skipElement()
		}
	})
	if r.m.Root < 0 {
		r.fail(feature.ErrInvalid, len(r.src), "expected a <struct> with the root feature, found none")
	}
}

// featureTags are the elements of the tree that are features.
var featureTags = map[string]bool{"and": true, "or": true, "alt": true, "feature": true}

const wantFeature = "a feature (<and>, <or>, <alt> or <feature>)"

func (r *reader) structure() {
	r.elements("<struct>", featureTags, wantFeature, func(t xml.StartElement) {
		if r.m.Root >= 0 {
			r.fail(feature.ErrInvalid, r.start, "expected one root feature in <struct>, found a second, <%s>", t.Name.Local)
		}
		r.m.Root = 0
		r.feature(t, -1, -1)
	})
}

// attr returns the value of the attribute key of t, and where it begins in
// src (the element's start when it cannot be told).
func (r *reader) attr(t xml.StartElement, key string) (string, int, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == key && a.Name.Space == "" {
			return a.Value, r.attrOffset(key), true
		}
	}
	return "", r.start, false
}

// attrOffset finds where the value of the attribute key begins in the
// start tag just read (at r.start), for positions in messages.
func (r *reader) attrOffset(key string) int {
	tag := r.src[r.start:min(r.skip+int(r.d.InputOffset()), len(r.src))]
	for i := 0; ; {
		j := bytes.Index(tag[i:], []byte(key))
		if j < 0 {
			return r.start
		}
		i += j
		rest := bytes.TrimLeft(tag[i+len(key):], " \t\r\n")
		if i > 0 && isXMLSpace(tag[i-1]) && len(rest) > 0 && rest[0] == '=' {
			rest = bytes.TrimLeft(rest[1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
				return r.start + len(tag) - len(rest) + 1
			}
		}
		i += len(key)
	}
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// name checks a feature's name found at off and makes it the feature id's.
func (r *reader) name(name string, off, id int) {
	switch at, found, kind := feature.NameFault(name); {
	case name == "":
		r.fail(feature.ErrInvalid, off, "expected a feature's name, found an empty one")
	case at >= 0:
		r.fail(kind, off+at, "expected a feature's name, %s", found)
	}
	if first, dup := r.ids[name]; dup {
		r.fail(feature.ErrInvalid, off, "expected each feature declared once, found %s again (first at %s)", name, r.m.Features[first].Pos)
	}
	r.ids[name] = id
}

// feature reads the feature element t, a child of parent in group g
// (-1, -1 for the root), and the features under it.
func (r *reader) feature(t xml.StartElement, parent, g int) {
	at := r.start
	name, off, ok := r.attr(t, "name")
	if !ok {
		r.fail(feature.ErrInvalid, at, "expected a name attribute on <%s>, found none", t.Name.Local)
	}
	id := len(r.m.Features)
	r.name(name, off, id)
	abstract, _, _ := r.attr(t, "abstract")
	r.m.Features = append(r.m.Features, feature.Feature{
		Name: name, Parent: parent, Group: g, Abstract: abstract == "true", Pos: r.pos(at),
	})
	if g >= 0 {
		r.m.Groups[g].Children = append(r.m.Groups[g].Children, id)
	}
	kind := t.Name.Local
	// The groups of this feature, made when a child needs one: an <and>
	// has a mandatory and an optional one, an <or> or an <alt> one.
	groupOf := map[feature.GroupKind]int{}
	r.elements("<"+kind+">", featureTags, wantFeature, func(c xml.StartElement) {
		var gk feature.GroupKind
		switch kind {
		case "feature":
			r.fail(feature.ErrInvalid, r.start, "expected a <feature> to be a leaf (features with children are <and>, <or> or <alt>), found <%s> in it", c.Name.Local)
		case "or":
			gk = feature.GroupOr
		case "alt":
			gk = feature.GroupAlternative
		default:
			gk = feature.GroupOptional
			if m, _, _ := r.attr(c, "mandatory"); m == "true" {
				gk = feature.GroupMandatory
			}
		}
		gi, ok := groupOf[gk]
		if !ok {
			gi = len(r.m.Groups)
			groupOf[gk] = gi
			r.m.Groups = append(r.m.Groups, feature.Group{Kind: gk, Parent: id, Pos: r.pos(r.start)})
		}
		r.feature(c, id, gi)
	})
}

func (r *reader) constraints() {
	r.elements("<constraints>", map[string]bool{"rule": true}, "a <rule>", func(t xml.StartElement) {
		at := r.start
		var e *feature.Expr
		r.elements("<rule>", exprTags, wantExpr, func(t xml.StartElement) {
			if e != nil {
				r.fail(feature.ErrInvalid, r.start, "expected one expression in a <rule>, found a second, <%s>", t.Name.Local)
			}
			e = r.expr(t)
		})
		if e == nil {
			r.fail(feature.ErrInvalid, at, "expected an expression in the <rule>, found none")
		}
		r.m.Constraints = append(r.m.Constraints, feature.Constraint{Expr: e, Pos: r.pos(at)})
	})
}

// exprTags are the elements of an expression.
var exprTags = map[string]bool{"var": true, "not": true, "imp": true, "eq": true, "conj": true, "disj": true}

const wantExpr = "an expression (<var>, <not>, <imp>, <eq>, <conj> or <disj>)"

// expr reads the expression element t.
func (r *reader) expr(t xml.StartElement) *feature.Expr {
	at := r.start
	tag := t.Name.Local
	if tag == "var" {
		var text []byte
		r.content("<var>", func(c xml.StartElement) {
			r.fail(feature.ErrSyntax, r.start, "expected a feature's name in <var>, found <%s>", c.Name.Local)
		}, func(b xml.CharData, _ int) { text = append(text, b...) })
		name := strings.TrimSpace(string(text))
		e := &feature.Expr{Op: feature.OpVar, Var: -1}
		r.refs = append(r.refs, ref{name: name, off: at, expr: e})
		return e
	}
	var args []*feature.Expr
	r.elements("<"+tag+">", exprTags, wantExpr, func(c xml.StartElement) {
		e := r.expr(c)
		if (tag == "conj" && e.Op == feature.OpAnd) || (tag == "disj" && e.Op == feature.OpOr) {
			// A chain written nested is kept as one wide node, as the
			// UVL reader keeps one.
			args = append(args, e.Args...)
			return
		}
		args = append(args, e)
	})
	want := map[string]int{"not": 1, "imp": 2, "eq": 2}[tag]
	switch {
	case want > 0 && len(args) != want:
		r.fail(feature.ErrInvalid, at, "expected <%s> with %d operands, found %d", tag, want, len(args))
	case len(args) == 0:
		r.fail(feature.ErrInvalid, at, "expected <%s> with operands, found none", tag)
	}
	switch tag {
	case "not":
		return feature.Not(args[0])
	case "imp":
		return feature.Implies(args[0], args[1])
	case "eq":
		return feature.Iff(args[0], args[1])
	case "conj":
		return feature.And(args...)
	}
	return feature.Or(args...)
}

// finish resolves the names in constraints, writes each constraint's text
// and checks the model.
func (r *reader) finish() (*feature.Model, error) {
	r.resolve(r.refs, r.ids, "a feature declared in the tree")
	name := func(f int) string { return r.m.Features[f].Name }
	for i := range r.m.Constraints {
		c := &r.m.Constraints[i]
		if c.Text == "" {
			c.Text = uvl.FormatExpr(c.Expr, name)
		}
	}
	if r.m.Name == "" && r.m.Root >= 0 {
		r.m.Name = r.m.Features[r.m.Root].Name
	}
	return feature.New(r.m)
}
