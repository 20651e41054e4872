package featureide

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// sxfmReader is what reading SXFM adds to reader: the features by their
// ids and the ids in clauses, resolved at the end.
type sxfmReader struct {
	*reader
	byID   map[string]int
	suffix map[string]int // the last suffix given to each name met again
	refs   []ref
	// open are the lines of the tree that may still get children, the
	// least indented first.
	open []sxfmLine
}

type sxfmLine struct {
	indent  int
	feature int // -1 for a group's line
	group   int // a group's line: its group
	// groups are a feature's mandatory and optional groups, -1 until a
	// child needs one.
	mandatory, optional int
}

// sxfm reads the content of <feature_model>, whose start tag is t.
func (r *reader) sxfm(t xml.StartElement) {
	s := &sxfmReader{reader: r, byID: map[string]int{}, suffix: map[string]int{}}
	if name, off, ok := r.attr(t, "name"); ok && name != "" {
		if at, found, kind := feature.NameFault(name); at >= 0 {
			r.fail(kind, off+at, "expected the model's name, %s", found)
		}
		r.m.Name = name
	}
	tree := false
	r.children("<feature_model>", func(t xml.StartElement) {
		switch t.Name.Local {
		case "feature_tree":
			if tree {
				r.fail(feature.ErrSyntax, r.start, "expected one <feature_tree>, found a second")
			}
			tree = true
			r.content("<feature_tree>", func(c xml.StartElement) {
				r.unknown(c, "<feature_tree>", "the tree as text")
			}, s.treeText)
		case "constraints":
			r.content("<constraints>", func(c xml.StartElement) {
				r.unknown(c, "<constraints>", "clauses as text")
			}, s.constraintText)
		default:
			r.skipElement()
		}
	})
	if r.m.Root < 0 {
		r.fail(feature.ErrInvalid, len(r.src), "expected a <feature_tree> with the root feature, found none")
	}
	r.resolve(s.refs, s.byID, "the id of a feature of the tree")
}

// lines calls line for each line of text t that begins at off in src,
// with the offset in src where the line begins (exact when no entity
// precedes it in t).
func lines(t []byte, off int, line func(l []byte, off int)) {
	for len(t) > 0 {
		end := bytes.IndexAny(t, "\r\n")
		if end < 0 {
			end = len(t)
		}
		line(t[:end], off)
		if end < len(t) {
			end++
		}
		off += end
		t = t[end:]
	}
}

// treeText reads text of <feature_tree> that begins at off.
func (s *sxfmReader) treeText(t xml.CharData, off int) {
	lines(t, off, func(l []byte, off int) {
		text := bytes.TrimLeft(l, " \t")
		if len(bytes.TrimSpace(text)) == 0 {
			return
		}
		indent := len(l) - len(text)
		s.treeLine(string(bytes.TrimRight(text, " \t")), indent, off+indent)
	})
}

// treeLine reads one line of the tree, text, indented by indent, at off.
func (s *sxfmReader) treeLine(text string, indent, off int) {
	r := s.reader
	if text[0] != ':' {
		r.fail(feature.ErrSyntax, off, "expected a line of the tree (:r, :m, :o, :g or :), found %q", cut(text))
	}
	kind, rest, _ := strings.Cut(text[1:], " ")
	if strings.HasPrefix(kind, "\t") {
		kind, rest = "", kind
	}
	rest = strings.TrimSpace(rest)
	restOff := off + strings.Index(text, rest)
	for len(s.open) > 0 && s.open[len(s.open)-1].indent >= indent {
		s.open = s.open[:len(s.open)-1]
	}
	var up *sxfmLine
	if len(s.open) > 0 {
		up = &s.open[len(s.open)-1]
	}
	if len(s.open) > MaxDepth {
		r.fail(feature.ErrLimit, off, "expected at most %d levels of nesting, found more", MaxDepth)
	}
	switch kind {
	case "r":
		if r.m.Root >= 0 {
			r.fail(feature.ErrInvalid, off, "expected one root (:r), found a second")
		}
		r.m.Root = 0
		s.feature(rest, restOff, indent, -1, -1)
	case "m", "o":
		if up == nil || up.feature < 0 {
			r.fail(feature.ErrInvalid, off, "expected :%s under a feature, found it %s", kind, where(up))
		}
		slot, gk := &up.optional, feature.GroupOptional
		if kind == "m" {
			slot, gk = &up.mandatory, feature.GroupMandatory
		}
		if *slot < 0 {
			*slot = len(r.m.Groups)
			r.m.Groups = append(r.m.Groups, feature.Group{Kind: gk, Parent: up.feature, Pos: r.pos(off)})
		}
		s.feature(rest, restOff, indent, up.feature, *slot)
	case "g":
		if up == nil || up.feature < 0 {
			r.fail(feature.ErrInvalid, off, "expected :g under a feature, found it %s", where(up))
		}
		g := feature.Group{Parent: up.feature, Pos: r.pos(off)}
		g.Kind, g.Min, g.Max = s.cardinality(rest, restOff)
		s.open = append(s.open, sxfmLine{indent: indent, feature: -1, group: len(r.m.Groups)})
		r.m.Groups = append(r.m.Groups, g)
	case "":
		if up == nil || up.feature >= 0 {
			r.fail(feature.ErrInvalid, off, "expected a group's member (:) under :g, found it %s", where(up))
		}
		s.feature(rest, restOff, indent, r.m.Groups[up.group].Parent, up.group)
	default:
		r.fail(feature.ErrSyntax, off, "expected a line of the tree (:r, :m, :o, :g or :), found %q", cut(text))
	}
}

func where(up *sxfmLine) string {
	switch {
	case up == nil:
		return "at the top"
	case up.feature < 0:
		return "under a group"
	}
	return "under a feature"
}

// cut returns the start of s, for messages.
func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// feature adds the feature the text `Name(id)` at off declares, a child
// of parent in group g.
func (s *sxfmReader) feature(text string, off, indent, parent, g int) {
	r := s.reader
	name, id := text, text
	if open := strings.LastIndexByte(text, '('); open >= 0 && strings.HasSuffix(text, ")") {
		name, id = strings.TrimSpace(text[:open]), text[open+1:len(text)-1]
	}
	if at, found, kind := feature.NameFault(name); at >= 0 {
		r.fail(kind, off+at, "expected a feature's name, %s", found)
	}
	if name == "" || id == "" {
		r.fail(feature.ErrInvalid, off, "expected a feature's name and its id, Name(id), found %q", cut(text))
	}
	if first, dup := s.byID[id]; dup {
		r.fail(feature.ErrInvalid, off, "expected each id once, found %s again (first at %s)", id, r.m.Features[first].Pos)
	}
	unique := name
	for {
		if _, taken := r.ids[unique]; !taken {
			break
		}
		// The suffixes tried for a name go on from the last one taken, so
		// that a name met many times costs no more each time.
		s.suffix[name]++
		unique = name + "_" + strconv.Itoa(s.suffix[name])
	}
	if len(unique) > feature.MaxNameBytes {
		r.fail(feature.ErrLimit, off, "expected a feature's name, found %s made %s to be unique, more than %d bytes", cut(name), cut(unique), feature.MaxNameBytes)
	}
	f := len(r.m.Features)
	s.byID[id] = f
	r.ids[unique] = f
	r.m.Features = append(r.m.Features, feature.Feature{Name: unique, Parent: parent, Group: g, Pos: r.pos(off)})
	if g >= 0 {
		r.m.Groups[g].Children = append(r.m.Groups[g].Children, f)
	}
	s.open = append(s.open, sxfmLine{indent: indent, feature: f, mandatory: -1, optional: -1})
}

// cardinality reads a group's `(id) [n,m]` at off: [1,1] is an
// alternative, [1,*] an or group, any other a cardinality.
func (s *sxfmReader) cardinality(text string, off int) (kind feature.GroupKind, lo, hi int) {
	open := strings.IndexByte(text, '[')
	end := strings.IndexByte(text, ']')
	if open < 0 || end < open {
		s.fail(feature.ErrSyntax, off, "expected a group's cardinality [n,m], found %q", cut(text))
	}
	a, b, ok := strings.Cut(text[open+1:end], ",")
	num := func(t string) int {
		t = strings.TrimSpace(t)
		if t == "*" {
			return -1
		}
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 || n > 1<<30 {
			s.fail(feature.ErrSyntax, off+open, "expected a group's cardinality [n,m], n and m numbers (m perhaps *), found %q", text[open:end+1])
		}
		return n
	}
	if !ok {
		s.fail(feature.ErrSyntax, off+open, "expected a group's cardinality [n,m], found %q", text[open:end+1])
	}
	lo, hi = num(a), num(b)
	switch {
	case lo < 0 || hi >= 0 && hi < lo:
		s.fail(feature.ErrInvalid, off+open, "expected a group's cardinality [n,m] with n <= m, found %q", text[open:end+1])
	case lo == 1 && hi == 1:
		return feature.GroupAlternative, 0, 0
	case lo == 1 && hi < 0:
		return feature.GroupOr, 0, 0
	}
	return feature.GroupCardinality, lo, hi
}

// constraintText reads text of <constraints> that begins at off: one
// clause a line, `name: lit or lit ...`, a literal an id with ~ for not.
func (s *sxfmReader) constraintText(t xml.CharData, off int) {
	lines(t, off, func(l []byte, off int) {
		text := string(l)
		if strings.TrimSpace(text) == "" {
			return
		}
		colon := strings.IndexByte(text, ':')
		if colon < 0 {
			s.fail(feature.ErrSyntax, off, "expected a clause, name: id or ~id ..., found %q", cut(strings.TrimSpace(text)))
		}
		start := off + len(text) - len(strings.TrimLeft(text, " \t"))
		var lits []*feature.Expr
		// The words after the colon, each with its offset.
		at := colon + 1
		for i, w := range strings.FieldsFunc(text[at:], func(r rune) bool { return r == ' ' || r == '\t' }) {
			at += strings.Index(text[at:], w)
			switch {
			case i%2 == 1 && w != "or":
				s.fail(feature.ErrSyntax, off+at, "expected or between the literals of a clause, found %q", cut(w))
			case i%2 == 1:
			default:
				id, neg := strings.CutPrefix(w, "~")
				if id == "" {
					s.fail(feature.ErrSyntax, off+at, "expected a feature's id after ~, found none")
				}
				lit := &feature.Expr{Op: feature.OpVar, Var: -1}
				s.refs = append(s.refs, ref{name: id, off: off + at, expr: lit})
				if neg {
					lit = feature.Not(lit)
				}
				lits = append(lits, lit)
			}
			at += len(w)
		}
		if len(lits) == 0 || strings.HasSuffix(strings.TrimSpace(text), " or") {
			s.fail(feature.ErrSyntax, off+len(text), "expected a literal, found the end of the line")
		}
		s.m.Constraints = append(s.m.Constraints, feature.Constraint{Expr: feature.Or(lits...), Pos: s.pos(start)})
	})
}
