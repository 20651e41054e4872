// Package feature holds configuration models beside N-Queens: named Boolean
// features, the feature tree that relates them, cross-tree constraints, and
// the clauses of a CNF file, in one neutral form that every reader fills
// (packages uvl and dimacs) and every backend compiles.
//
// Features are numbered 0..F-1 in the order the model lists them (the
// tree's pre-order for a feature model, the variables' order for a CNF
// file); names are unique. The meaning of a model is the usual one: the root
// is selected; a selected feature's parent is selected; a selected parent
// has all children of its mandatory groups, at least one of an or group,
// exactly one of an alternative group, and between n and m of a group with
// cardinality [n..m]; every constraint and every clause holds. Attributes
// are kept as read and constrain nothing.
//
// Model.Valid decides that meaning directly, one configuration at a time;
// Model.CNF translates it into clauses, each tagged with the tree relation,
// group, constraint or clause it comes from (Origin, Model.Describe), so
// that an explanation can quote the model in its own words.
package feature

import (
	"fmt"
	"slices"
	"strings"
)

// Format names the notation a model was read from.
type Format string

const (
	// UVL is the Universal Variability Language (package uvl).
	UVL Format = "uvl"
	// DIMACS is the DIMACS CNF format (package dimacs).
	DIMACS Format = "dimacs"
	// FeatureIDE is FeatureIDE's XML format (package featureide).
	FeatureIDE Format = "featureide"
	// SXFM is SPLOT's simple XML feature model format (package
	// featureide).
	SXFM Format = "sxfm"
	// Board is a built-in N-Queens board, read from no file (the
	// configurator's Model.FeatureModel).
	Board Format = "board"
)

// Pos is a place in a model's source: 1-based line and column (in
// characters, a tab counting one), and the file for a model read from
// several (an import); File is empty for the file a reader was handed.
type Pos struct {
	File   string
	Line   int
	Column int
}

func (p Pos) String() string {
	if p.File != "" {
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Column)
}

// Feature is one Boolean feature of a model.
type Feature struct {
	Name string
	// Parent is the feature this one belongs to in the tree, -1 for the
	// root and for every feature of a model without a tree (DIMACS).
	Parent int
	// Group is the group of Parent this feature is a child of, -1 when
	// Parent is -1.
	Group int
	// Abstract marks a feature that structures the tree without standing
	// for anything of its own (UVL's {abstract}); it is a variable like any
	// other.
	Abstract bool
	// Generated marks a variable that the file says a translation
	// introduced (the `c 12$ name` lines of some DIMACS exports), not one a
	// person chose.
	Generated bool
	// Attributes are the UVL attributes in braces, as read.
	Attributes []Attribute
	Pos        Pos
}

// GroupKind says how many of a group's children a selected parent has.
type GroupKind uint8

const (
	// GroupMandatory: every child.
	GroupMandatory GroupKind = iota
	// GroupOptional: any number of them.
	GroupOptional
	// GroupOr: at least one.
	GroupOr
	// GroupAlternative: exactly one.
	GroupAlternative
	// GroupCardinality: between Group.Min and Group.Max.
	GroupCardinality
)

var groupNames = [...]string{
	GroupMandatory:   "mandatory",
	GroupOptional:    "optional",
	GroupOr:          "or",
	GroupAlternative: "alternative",
	GroupCardinality: "cardinality",
}

func (k GroupKind) String() string {
	if int(k) < len(groupNames) {
		return groupNames[k]
	}
	return fmt.Sprintf("GroupKind(%d)", k)
}

// Group is one group of a feature's children.
type Group struct {
	Kind   GroupKind
	Parent int
	// Children are the features of the group, in the model's order.
	Children []int
	// Min and Max bound a GroupCardinality group; Max is -1 for `*` (as
	// many as there are children). Other kinds leave them zero.
	Min, Max int
	Pos      Pos
}

// Bounds returns how many of the group's children a selected parent has at
// least and at most, whatever the kind; hi never exceeds the number of
// children, lo may (such a parent cannot be selected).
func (g *Group) Bounds() (lo, hi int) {
	n := len(g.Children)
	switch g.Kind {
	case GroupMandatory:
		return n, n
	case GroupOptional:
		return 0, n
	case GroupOr:
		return 1, n
	case GroupAlternative:
		return 1, 1
	}
	lo, hi = g.Min, g.Max
	if hi < 0 || hi > n {
		hi = n
	}
	return lo, hi
}

// Attribute is one key of a UVL attribute list, with its value as read.
type Attribute struct {
	Key   string
	Value Value
	Pos   Pos
}

// ValueKind says what an attribute's value is.
type ValueKind uint8

const (
	// NoValue: a key alone, such as {abstract}.
	NoValue ValueKind = iota
	// BoolValue: true or false.
	BoolValue
	// NumberValue: an integer or a decimal, kept as its text.
	NumberValue
	// StringValue: a quoted string, without its quotes.
	StringValue
	// ListValue: values in brackets.
	ListValue
	// AttributesValue: attributes in braces.
	AttributesValue
)

// Value is an attribute's value.
type Value struct {
	Kind       ValueKind
	Bool       bool
	Text       string // a number's or a string's text
	List       []Value
	Attributes []Attribute
}

// Constraint is one cross-tree constraint.
type Constraint struct {
	Expr *Expr
	// Text is the constraint as written (a line break inside parentheses
	// read as one space).
	Text string
	Pos  Pos
}

// Clause is one clause of a CNF file, as read: the disjunction of its
// literals (none: a clause no configuration satisfies).
type Clause struct {
	Lits []Lit
	Line int
}

// Model is a configuration model. New checks and indexes one; after that it
// is read-only and safe for concurrent use (its slices must not be changed).
type Model struct {
	// Name is the model's name: a UVL model's namespace, or else its root
	// feature's name; empty for a CNF file (its reader does not know it).
	Name   string
	Format Format
	// Features are the model's features, indexed by their number.
	Features []Feature
	// Root is the tree's root feature, -1 for a model without a tree.
	Root int
	// Groups are the tree's groups.
	Groups      []Group
	Constraints []Constraint
	// Clauses are a CNF file's clauses as read, in the file's order.
	Clauses []Clause
	// Grid, when not nil, lays the features out on a grid for views that
	// draw one; it says nothing of the configurations.
	Grid *Grid

	ids map[string]int
}

// Grid lays a model's features out in Rows rows of Cols cells, feature
// r*Cols+c at row r and column c; every feature has a cell. Queens, when
// true, says the model is the N-Queens problem on that (square) grid, its
// constraints a line's "at most one" or a rank's "exactly one": a hint
// that lets a backend answer with an engine of its own for boards. A
// backend that ignores it answers alike.
type Grid struct {
	Rows, Cols int
	Queens     bool
}

// New checks the parts of a model and returns it indexed: names unique and
// not empty, the tree consistent (every feature but the root has a parent
// listed before it, in a group of that parent that lists it; the root has
// no parent), every expression and clause over existing features.
func New(parts Model) (*Model, error) {
	m := &parts
	f := len(m.Features)
	if m.Root < -1 || m.Root >= f {
		return nil, fmt.Errorf("feature: root %d out of range (%d features)", m.Root, f)
	}
	m.ids = make(map[string]int, f)
	for i := range m.Features {
		ft := &m.Features[i]
		if ft.Name == "" {
			return nil, fmt.Errorf("feature: feature %d has no name", i)
		}
		if j, dup := m.ids[ft.Name]; dup {
			return nil, fmt.Errorf("feature: features %d and %d are both named %q", j, i, ft.Name)
		}
		m.ids[ft.Name] = i
		switch {
		case i == m.Root || m.Root < 0:
			if ft.Parent != -1 || ft.Group != -1 {
				return nil, fmt.Errorf("feature: %q has a parent but is the root or in a model without a tree", ft.Name)
			}
		case ft.Parent < 0 || ft.Parent >= i:
			return nil, fmt.Errorf("feature: %q: parent %d is not a feature listed before it", ft.Name, ft.Parent)
		case ft.Group < 0 || ft.Group >= len(m.Groups) || m.Groups[ft.Group].Parent != ft.Parent:
			return nil, fmt.Errorf("feature: %q: group %d is not a group of its parent", ft.Name, ft.Group)
		}
	}
	listed := 0
	for gi := range m.Groups {
		g := &m.Groups[gi]
		if g.Parent < 0 || g.Parent >= f {
			return nil, fmt.Errorf("feature: group %d: parent %d out of range", gi, g.Parent)
		}
		if g.Kind > GroupCardinality {
			return nil, fmt.Errorf("feature: group %d: unknown kind %d", gi, g.Kind)
		}
		if g.Kind == GroupCardinality && (g.Min < 0 || g.Max < -1 || g.Max >= 0 && g.Max < g.Min) {
			return nil, fmt.Errorf("feature: group %d: cardinality [%d..%d] is not a range", gi, g.Min, g.Max)
		}
		for _, c := range g.Children {
			if c < 0 || c >= f || m.Features[c].Group != gi {
				return nil, fmt.Errorf("feature: group %d lists %d, which is not its child", gi, c)
			}
		}
		listed += len(g.Children)
	}
	if g := m.Grid; g != nil && (g.Rows < 1 || g.Cols < 1 || g.Rows*g.Cols != f || g.Queens && g.Rows != g.Cols) {
		return nil, fmt.Errorf("feature: a grid of %d×%d does not lay out %d features", g.Rows, g.Cols, f)
	}
	if m.Root >= 0 && listed != f-1 {
		return nil, fmt.Errorf("feature: the groups list %d children; the tree has %d", listed, f-1)
	}
	for i, c := range m.Constraints {
		if err := c.Expr.check(f); err != nil {
			return nil, fmt.Errorf("feature: constraint %d (%s): %w", i, c.Pos, err)
		}
	}
	for i, c := range m.Clauses {
		for _, l := range c.Lits {
			if v := l.Var(); v < 1 || v > f {
				return nil, fmt.Errorf("feature: clause %d (line %d): literal %d out of range", i, c.Line, l)
			}
		}
	}
	return m, nil
}

// ID returns the number of the feature named name.
func (m *Model) ID(name string) (int, bool) {
	i, ok := m.ids[name]
	return i, ok
}

// FreeName returns name, or name with underscores after it, whichever no
// feature of m has: the name for a feature that a writer adds.
func (m *Model) FreeName(name string) string {
	for {
		if _, taken := m.ids[name]; !taken {
			return name
		}
		name += "_"
	}
}

// Valid reports whether a configuration satisfies the model: config[i] says
// whether feature i is selected, for every feature. It decides the model's
// meaning directly from the tree, the groups, the constraints and the
// clauses, independently of CNF, so that each can be checked against the
// other. It panics if len(config) is not the number of features.
func (m *Model) Valid(config []bool) bool {
	if len(config) != len(m.Features) {
		panic(fmt.Sprintf("feature: configuration of %d features for a model of %d", len(config), len(m.Features)))
	}
	if m.Root >= 0 && !config[m.Root] {
		return false
	}
	for i, ft := range m.Features {
		if config[i] && ft.Parent >= 0 && !config[ft.Parent] {
			return false
		}
	}
	for gi := range m.Groups {
		g := &m.Groups[gi]
		if !config[g.Parent] {
			continue
		}
		n := 0
		for _, c := range g.Children {
			if config[c] {
				n++
			}
		}
		if lo, hi := g.Bounds(); n < lo || n > hi {
			return false
		}
	}
	for _, c := range m.Constraints {
		if !c.Expr.Eval(config) {
			return false
		}
	}
	for _, c := range m.Clauses {
		if !slices.ContainsFunc(c.Lits, func(l Lit) bool { return config[l.Var()-1] == (l > 0) }) {
			return false
		}
	}
	return true
}

// Expr returns the clause as an expression: the disjunction of its
// literals, false for the empty clause.
func (c *Clause) Expr() *Expr {
	args := make([]*Expr, len(c.Lits))
	for i, l := range c.Lits {
		args[i] = Var(l.Var() - 1)
		if l < 0 {
			args[i] = Not(args[i])
		}
	}
	return Or(args...)
}

// describeMax is how many children of a group Describe names.
const describeMax = 8

// Describe says in the model's own words what a clause of its CNF stands
// for: the relation of the tree, the group, the constraint (with its
// position and text) or the clause of the file it comes from.
func (m *Model) Describe(o Origin) string {
	name := func(f int) string { return fmt.Sprintf("%q", m.Features[f].Name) }
	switch o.Kind {
	case OriginRoot:
		return fmt.Sprintf("%s is the root: it is always selected", name(o.Index))
	case OriginParent:
		return fmt.Sprintf("%s needs its parent %s", name(o.Index), name(m.Features[o.Index].Parent))
	case OriginMandatory:
		return fmt.Sprintf("%s needs %s (mandatory)", name(m.Features[o.Index].Parent), name(o.Index))
	case OriginGroup:
		g := &m.Groups[o.Index]
		var b strings.Builder
		for i, c := range g.Children {
			if i == describeMax {
				fmt.Fprintf(&b, ", … (%d features)", len(g.Children))
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(name(c))
		}
		lo, hi := g.Bounds()
		var how string
		switch {
		case g.Kind == GroupOr:
			how = "at least one of"
		case g.Kind == GroupAlternative:
			how = "exactly one of"
		case lo == hi:
			how = fmt.Sprintf("exactly %d of", lo)
		default:
			how = fmt.Sprintf("between %d and %d of", lo, hi)
		}
		return fmt.Sprintf("%s needs %s %s (%s group, %s)", name(g.Parent), how, b.String(), g.Kind, g.Pos)
	case OriginConstraint:
		c := &m.Constraints[o.Index]
		if m.Format == Board {
			// A board's rules are read from no file: their words say
			// which line of the board they hold on.
			return c.Text
		}
		return fmt.Sprintf("constraint at %s: %s", c.Pos, c.Text)
	case OriginClause:
		c := &m.Clauses[o.Index]
		var b strings.Builder
		for i, l := range c.Lits {
			if i > 0 {
				b.WriteString(" | ")
			}
			if l < 0 {
				b.WriteByte('!')
			}
			b.WriteString(m.Features[l.Var()-1].Name)
		}
		if len(c.Lits) == 0 {
			b.WriteString("(empty: never satisfied)")
		}
		return fmt.Sprintf("clause at line %d: %s", c.Line, b.String())
	}
	return fmt.Sprintf("Origin(%d, %d)", o.Kind, o.Index)
}
