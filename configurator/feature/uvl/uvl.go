// Package uvl reads feature models in the Boolean language of UVL, the
// Universal Variability Language, into feature.Model.
//
// It follows the reference ANTLR grammar (Universal-Variability-Language/
// uvl-parser, UVLParser.g4 and UVLLexer.g4): an indentation-based features
// tree (tabs or spaces, a tab advancing to the next multiple of eight
// columns) with groups mandatory, optional, or, alternative and
// cardinalities [n], [n..m] and [n..*]; constraints with !, &, |, =>, <=>
// and parentheses, loosest last, each left-associative; bare, quoted and
// dotted names; namespace, include (language levels, all accepted) and
// imports; attributes in braces, kept as read, and the constraints among
// them ({constraint a => b}, {constraints [...]}), which constrain like any
// other. A few liberties: a quoted name may hold dots, a constraints or
// imports section may be empty, and an attribute's name may be a keyword.
//
// What the Boolean language cannot express is refused with its position
// and feature.ErrUnsupported, never dropped: features typed String,
// Integer or Real, feature cardinalities, numbers, strings, arithmetic,
// comparisons and aggregate functions in constraints.
//
// An import `sub.Model as M` reads the file sub/Model.uvl beside the model
// (paths are relative to the directory of the model Load was given); the
// imported model's root is placed in the tree where a feature line names
// it (M.Root), its features are named M.Name in the model (aliases chained
// for imports of imports), and its constraints are the model's too. A file
// is read once however often it is imported; a cycle of imports is refused.
package uvl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// MaxSize is the most UVL text a model may hold, its imports included.
const MaxSize = 16 << 20

// MaxDepth is the deepest nesting a model may have: features in the tree,
// groups, parentheses and operators in a constraint, attributes in
// attributes.
const MaxDepth = 1000

// maxCardinality bounds a group cardinality's numbers.
const maxCardinality = 1 << 30

// Parse reads a UVL model from src. A model that imports others needs Load.
func Parse(src []byte) (*feature.Model, error) {
	if len(src) > MaxSize {
		return nil, &feature.Error{Pos: feature.Pos{Line: 1, Column: 1}, Kind: feature.ErrLimit,
			Msg: fmt.Sprintf("expected at most %d bytes of UVL, found %d", MaxSize, len(src))}
	}
	return load(&loader{}, string(src), "")
}

// Load reads the UVL model in the file name of fsys, and the models it
// imports from the files beside it.
func Load(fsys fs.FS, name string) (*feature.Model, error) {
	name = path.Clean(name)
	l := &loader{fsys: fsys, dir: path.Dir(name), budget: MaxSize}
	src, err := l.readFile(name)
	if err != nil {
		return nil, err
	}
	return load(l, src, name)
}

// load parses the model in src, the file at name, reads its imports and
// builds the model.
func load(l *loader, src, name string) (*feature.Model, error) {
	root, err := parseFile(src, "")
	if err != nil {
		return nil, err
	}
	l.files = map[string]*file{name: root}
	if err := l.imports(root, []string{name}); err != nil {
		return nil, err
	}
	return build(root, l.order)
}

// loader reads the files a model imports.
type loader struct {
	fsys   fs.FS // nil: a single file, imports refused
	dir    string
	budget int              // the bytes still allowed
	files  map[string]*file // by path
	order  []*file          // the files imported, in the order first read
}

// readFile returns the contents of name within the budget.
func (l *loader) readFile(name string) (string, error) {
	f, err := l.fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(f, int64(l.budget)+1)); err != nil {
		return "", err
	}
	if buf.Len() > l.budget {
		return "", fmt.Errorf("%s: %w: the model and its imports hold more than %d bytes", name, feature.ErrLimit, MaxSize)
	}
	l.budget -= buf.Len()
	return buf.String(), nil
}

// imports reads the files f imports, and theirs; chain lists the paths of
// the files being read, from the model down to f.
func (l *loader) imports(f *file, chain []string) error {
	for _, d := range f.imports {
		at := func(kind error, format string, args ...any) error {
			return errorAt(f.src, f.path, d.at, kind, format, args...)
		}
		if l.fsys == nil {
			return at(feature.ErrInvalid, "expected a model without imports (this reader was given one file, not the files beside it), found an import of %s", d.alias)
		}
		p := path.Join(l.dir, strings.Join(d.ids, "/")+".uvl")
		if i := slices.Index(chain, p); i >= 0 {
			return at(feature.ErrInvalid, "expected imports without a cycle, found %s imports %s", strings.Join(chain[i:], " imports "), p)
		}
		if g, ok := l.files[p]; ok {
			d.file = g
			continue
		}
		src, err := l.readFile(p)
		switch {
		case errors.Is(err, feature.ErrLimit):
			return at(feature.ErrLimit, "expected the model and its imports to hold at most %d bytes, found more with %s", MaxSize, p)
		case err != nil:
			return at(feature.ErrInvalid, "expected to read the import %s from %s, found an error: %v", d.alias, p, err)
		}
		g, err := parseFile(src, p)
		if err != nil {
			return err
		}
		l.files[p] = g
		l.order = append(l.order, g)
		d.file = g
		if err := l.imports(g, append(chain, p)); err != nil {
			return err
		}
	}
	return nil
}
