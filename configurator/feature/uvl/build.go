package uvl

import (
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// builder turns the parsed files into one feature.Model: the tree in
// pre-order, an import's tree where the tree names its root, the names
// resolved in the scope of the file that writes them.
type builder struct {
	m feature.Model
	// dotted holds the features whose names in the model hold a dot: only
	// they can meet a name from another file (an imported feature's name
	// begins with its import's alias and a dot).
	dotted map[string]int
	local  map[*file]scope  // each placed file's features by their own names
	placed map[*file]token  // where each file's root is placed
	prefix map[*file]string // what its features' names begin with
}

// scope maps a file's own feature names to the model's numbers.
type scope map[string]int

func build(root *file, imported []*file) (_ *feature.Model, err error) {
	defer feature.Rescue(&err)
	nodes := root.nodes
	for _, f := range imported {
		nodes += f.nodes
	}
	b := &builder{
		m:      feature.Model{Format: feature.UVL, Root: -1, Features: make([]feature.Feature, 0, nodes)},
		dotted: map[string]int{},
		local:  map[*file]scope{},
		placed: map[*file]token{},
		prefix: map[*file]string{root: ""},
	}
	if root.root == nil {
		failAt(root, token{line: 1, col: 1}, feature.ErrInvalid, "expected a features section with the root feature, found none")
	}
	b.m.Root = 0
	b.place(root, root.root, -1, -1)
	for _, f := range imported {
		if _, ok := b.placed[f]; !ok {
			d := importOf(root, imported, f)
			failAt(d.in, d.at, feature.ErrInvalid, "expected the root feature of the import %s placed in the features tree, found it nowhere", d.alias)
		}
	}
	for _, f := range append([]*file{root}, imported...) {
		for _, r := range f.refs {
			r.expr.Var = b.resolve(f, r.ids, r.at)
		}
		for _, c := range f.constraints {
			b.m.Constraints = append(b.m.Constraints, feature.Constraint{Expr: c.expr, Text: c.text, Pos: pos(f, c.at)})
		}
	}
	b.m.Name = root.namespace
	if b.m.Name == "" {
		b.m.Name = b.m.Features[0].Name
	}
	return feature.New(b.m)
}

func pos(f *file, t token) feature.Pos { return feature.Pos{File: f.path, Line: t.line, Column: t.col} }

func failAt(f *file, t token, kind error, format string, args ...any) {
	feature.Bail(errorAt(f.src, f.path, t, kind, format, args...))
}

// located is an import declaration with the file that makes it.
type located struct {
	*importDecl
	in *file
}

// importOf returns a declaration that imports f.
func importOf(root *file, imported []*file, f *file) located {
	for _, g := range append([]*file{root}, imported...) {
		for _, d := range g.imports {
			if d.file == f {
				return located{d, g}
			}
		}
	}
	panic("uvl: an imported file that nothing imports")
}

// place adds the feature n of file f, and the features under it, as a child
// of parent in group g.
func (b *builder) place(f *file, n *node, parent, g int) {
	if len(n.ids) > 1 {
		b.placeImport(f, n, parent, g)
		return
	}
	name := b.prefix[f] + n.ids[0]
	if len(name) > feature.MaxNameBytes {
		failAt(f, n.at, feature.ErrLimit, "expected a feature's name of at most %d bytes, found %s of %d (its import's alias and its own name)", feature.MaxNameBytes, name, len(name))
	}
	id := len(b.m.Features)
	local := b.local[f]
	if local == nil {
		local = make(scope, f.nodes)
		b.local[f] = local
	}
	first, dup := local[n.ids[0]]
	if !dup && strings.Contains(name, ".") {
		first, dup = b.dotted[name]
		b.dotted[name] = id
	}
	if dup {
		failAt(f, n.at, feature.ErrInvalid, "expected each feature declared once, found %s again (first at %s)", name, b.m.Features[first].Pos)
	}
	local[n.ids[0]] = id
	b.m.Features = append(b.m.Features, feature.Feature{
		Name: name, Parent: parent, Group: g, Attributes: n.attrs, Abstract: abstract(n.attrs), Pos: pos(f, n.at),
	})
	if parent >= 0 {
		gr := &b.m.Groups[g]
		gr.Children = append(gr.Children, id)
	}
	for _, gn := range n.groups {
		gi := len(b.m.Groups)
		b.m.Groups = append(b.m.Groups, feature.Group{Kind: gn.kind, Parent: id, Min: gn.min, Max: gn.max, Pos: pos(f, gn.at)})
		for _, c := range gn.children {
			b.place(f, c, id, gi)
		}
	}
}

// placeImport places, where n names it, the tree of the file f imports.
func (b *builder) placeImport(f *file, n *node, parent, g int) {
	name := strings.Join(n.ids, ".")
	d, rest := importFor(f, n.ids)
	switch {
	case d == nil:
		failAt(f, n.at, feature.ErrInvalid, "expected a feature's own name or the root of an import, found %s (no import is named %s)", name, strings.Join(n.ids[:len(n.ids)-1], "."))
	case len(rest) != 1 || rest[0] != d.file.rootName():
		failAt(f, n.at, feature.ErrInvalid, "expected the root feature of the import %s (%s.%s), found %s", d.alias, d.alias, d.file.rootName(), name)
	case len(n.groups) > 0 || len(n.attrs) > 0:
		failAt(f, n.at, feature.ErrInvalid, "expected the imported feature %s without groups or attributes (they belong in its own file), found some", name)
	}
	if first, ok := b.placed[d.file]; ok {
		failAt(f, n.at, feature.ErrInvalid, "expected the import %s placed once in the tree, found it again (first at %d:%d)", d.alias, first.line, first.col)
	}
	b.placed[d.file] = n.at
	b.prefix[d.file] = b.prefix[f] + d.alias + "."
	b.place(d.file, d.file.root, parent, g)
}

func (f *file) rootName() string {
	if f.root == nil || len(f.root.ids) != 1 {
		return "(none)"
	}
	return f.root.ids[0]
}

// importFor returns the import of f that the longest prefix of ids names,
// and the ids after it; nil when none does.
func importFor(f *file, ids []string) (*importDecl, []string) {
	for j := len(ids) - 1; j >= 1; j-- {
		alias := strings.Join(ids[:j], ".")
		for _, d := range f.imports {
			if d.alias == alias {
				return d, ids[j:]
			}
		}
	}
	return nil, nil
}

// resolve returns the feature ids names in the scope of file f.
func (b *builder) resolve(f *file, ids []string, at token) int {
	g, rest := f, ids
	for len(rest) > 1 {
		d, r := importFor(g, rest)
		if d == nil {
			failAt(f, at, feature.ErrInvalid, "expected a feature, found %s (no import is named %s)", strings.Join(ids, "."), strings.Join(rest[:len(rest)-1], "."))
		}
		g, rest = d.file, r
	}
	id, ok := b.local[g][rest[0]]
	if !ok {
		failAt(f, at, feature.ErrInvalid, "expected a feature declared in the tree, found %s", strings.Join(ids, "."))
	}
	return id
}

// abstract reports whether the attributes say {abstract} or {abstract true}.
func abstract(attrs []feature.Attribute) bool {
	for _, a := range attrs {
		if a.Key == "abstract" {
			return a.Value.Kind == feature.NoValue || a.Value.Kind == feature.BoolValue && a.Value.Bool
		}
	}
	return false
}
