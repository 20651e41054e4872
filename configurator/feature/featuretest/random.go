package featuretest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Model is a feature model drawn at random, with its meaning decided here:
// its features, tree, groups and constraints, an evaluator (Valid) and its
// text in UVL (UVL).
type Model struct {
	// Names are the features' names, the root first.
	Names       []string
	parent      []int
	groups      []group
	heads       [][]int // the groups each feature heads
	attrs       []string
	constraints []*Expr
	// attrConstraint[f] is a constraint written in f's attributes, or nil.
	attrConstraint []*Expr
}

type group struct {
	kind     string // mandatory, optional, or, alternative, card
	lo, hi   int    // a card group's bounds; hi -1 for *
	exact    bool   // written [lo]
	parent   int
	children []int
}

// Expr is a random constraint: Op is one of v (feature V), ! & | => <=>.
type Expr struct {
	Op   string
	V    int
	Args []*Expr
}

// Eval returns the value of e when config[i] says whether feature i is
// selected.
func (e *Expr) Eval(config []bool) bool {
	switch e.Op {
	case "v":
		return config[e.V]
	case "!":
		return !e.Args[0].Eval(config)
	case "&":
		return !slices.ContainsFunc(e.Args, func(a *Expr) bool { return !a.Eval(config) })
	case "|":
		return slices.ContainsFunc(e.Args, func(a *Expr) bool { return a.Eval(config) })
	case "=>":
		return !e.Args[0].Eval(config) || e.Args[1].Eval(config)
	case "<=>":
		return e.Args[0].Eval(config) == e.Args[1].Eval(config)
	}
	panic("featuretest: operator " + e.Op)
}

// RandomModel draws a model of n features (n >= 1): a random tree of
// groups of every kind, cardinalities among them (some that no parent can
// meet), names bare and quoted, attributes, and a few constraints.
func RandomModel(rng *rand.Rand, n int) *Model {
	m := &Model{heads: make([][]int, n), attrs: make([]string, n), attrConstraint: make([]*Expr, n)}
	for i := range n {
		m.Names = append(m.Names, randomName(rng, i))
		m.parent = append(m.parent, -1)
		m.attrs[i] = randomAttributes(rng)
		if i == 0 {
			continue
		}
		p := rng.IntN(i)
		if hs := m.heads[p]; len(hs) > 0 && rng.IntN(3) > 0 {
			g := &m.groups[hs[rng.IntN(len(hs))]]
			g.children = append(g.children, i)
		} else {
			m.heads[p] = append(m.heads[p], len(m.groups))
			m.groups = append(m.groups, group{kind: []string{"mandatory", "optional", "or", "alternative", "card"}[rng.IntN(5)], parent: p, children: []int{i}})
		}
		m.parent[i] = p
	}
	for gi := range m.groups {
		g := &m.groups[gi]
		if g.kind != "card" {
			continue
		}
		k := len(g.children)
		g.lo = rng.IntN(k + 2)
		switch rng.IntN(3) {
		case 0:
			g.hi, g.exact = g.lo, true
		case 1:
			g.hi = -1
		default:
			g.hi = g.lo + rng.IntN(k+1)
		}
	}
	for range rng.IntN(5) {
		m.constraints = append(m.constraints, RandomExpr(rng, n, 3))
	}
	if rng.IntN(4) == 0 {
		m.attrConstraint[rng.IntN(n)] = RandomExpr(rng, n, 2)
	}
	return m
}

// randomName returns a unique name for feature i: bare, quoted with blanks
// and punctuation, a keyword in quotes, or with letters beyond ASCII.
func randomName(rng *rand.Rand, i int) string {
	switch rng.IntN(6) {
	case 0:
		return fmt.Sprintf("Feature %d", i)
	case 1:
		if kw := []string{"or", "optional", "features", "constraints", "true", "Integer"}; i < len(kw) {
			return kw[i]
		}
		return fmt.Sprintf("K%d", i)
	case 2:
		return fmt.Sprintf("f/%d+x,y", i)
	case 3:
		return fmt.Sprintf("Größe%d", i)
	case 4:
		return fmt.Sprintf("v%d.w", i)
	}
	return fmt.Sprintf("F%d", i)
}

// bare reports whether a name needs no quotes in UVL.
func bare(name string) bool {
	if name == "" || !(name[0] >= 'a' && name[0] <= 'z' || name[0] >= 'A' && name[0] <= 'Z') {
		return false
	}
	switch name {
	case "include", "features", "imports", "namespace", "as", "constraint", "constraints", "cardinality",
		"String", "Boolean", "Integer", "Real", "len", "sum", "avg", "floor", "ceil",
		"or", "alternative", "optional", "mandatory", "true", "false":
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_äöüß", r)) {
			return false
		}
	}
	return true
}

func quote(name string) string {
	if bare(name) {
		return name
	}
	return `"` + name + `"`
}

func randomAttributes(rng *rand.Rand) string {
	switch rng.IntN(8) {
	case 0:
		return " {abstract}"
	case 1:
		return " {abstract true}"
	case 2:
		return " {abstract false, cost 12.5}"
	case 3:
		return ` {note 'a, b', size -3, nested {deep [1, 'x', true, {k 0}]}, empty {}, list []}`
	case 4:
		return " {\n\tabstract,\n\tweight [2]\n}"
	}
	return ""
}

// RandomExpr draws an expression over features 0..n-1 at most depth
// operators deep.
func RandomExpr(rng *rand.Rand, n, depth int) *Expr {
	if depth == 0 || rng.IntN(3) == 0 {
		return &Expr{Op: "v", V: rng.IntN(n)}
	}
	switch op := []string{"!", "&", "|", "=>", "<=>"}[rng.IntN(5)]; op {
	case "!":
		return &Expr{Op: op, Args: []*Expr{RandomExpr(rng, n, depth-1)}}
	case "&", "|":
		args := make([]*Expr, 2+rng.IntN(2))
		for i := range args {
			args[i] = RandomExpr(rng, n, depth-1)
		}
		return &Expr{Op: op, Args: args}
	default:
		return &Expr{Op: op, Args: []*Expr{RandomExpr(rng, n, depth-1), RandomExpr(rng, n, depth-1)}}
	}
}

// Valid reports whether config (indexed like Names) is a configuration of
// the model: the root selected, every selected feature's parent selected,
// every group's count within its bounds under a selected parent, every
// constraint true.
func (m *Model) Valid(config []bool) bool {
	if !config[0] {
		return false
	}
	for i, p := range m.parent {
		if p >= 0 && config[i] && !config[p] {
			return false
		}
	}
	for _, g := range m.groups {
		if !config[g.parent] {
			continue
		}
		k := 0
		for _, c := range g.children {
			if config[c] {
				k++
			}
		}
		n := len(g.children)
		ok := true
		switch g.kind {
		case "mandatory":
			ok = k == n
		case "or":
			ok = k >= 1
		case "alternative":
			ok = k == 1
		case "card":
			ok = k >= g.lo && (g.hi < 0 || k <= g.hi)
		}
		if !ok {
			return false
		}
	}
	for _, e := range append(append([]*Expr{}, m.constraints...), m.attrConstraint...) {
		if e != nil && !e.Eval(config) {
			return false
		}
	}
	return true
}

// UVL returns the model in UVL, laid out at random: tabs or spaces, blank
// and comment lines, parentheses beyond the needed ones, constraints over
// several lines inside parentheses.
func (m *Model) UVL(rng *rand.Rand) string {
	indent := []string{"\t", "  ", "    "}[rng.IntN(3)]
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteString("// a random model\nnamespace Random\n\n")
	}
	if rng.IntN(3) == 0 {
		b.WriteString("include\n" + indent + "Boolean.group-cardinality\n" + indent + "Arithmetic.*\n")
	}
	b.WriteString("features\n")
	var feature func(f, depth int)
	feature = func(f, depth int) {
		pad := strings.Repeat(indent, depth)
		b.WriteString(pad + quote(m.Names[f]))
		attrs := m.attrs[f]
		if e := m.attrConstraint[f]; e != nil {
			c := "constraint " + m.exprText(rng, e, 0)
			if rng.IntN(2) == 0 {
				c = "constraints [" + m.exprText(rng, e, 0) + "]"
			}
			if attrs == "" {
				attrs = " {" + c + "}"
			} else {
				attrs = strings.TrimSuffix(attrs, "}") + ", " + c + "}"
			}
		}
		b.WriteString(attrs)
		if rng.IntN(8) == 0 {
			b.WriteString(" // a comment")
		}
		b.WriteString("\n")
		if rng.IntN(10) == 0 {
			b.WriteString("\n" + pad + "/* a comment\n on two lines */\n")
		}
		for _, gi := range m.heads[f] {
			g := &m.groups[gi]
			kind := g.kind
			if kind == "card" {
				switch {
				case g.exact:
					kind = fmt.Sprintf("[%d]", g.lo)
				case g.hi < 0:
					kind = fmt.Sprintf("[%d..*]", g.lo)
				default:
					kind = fmt.Sprintf("[%d..%d]", g.lo, g.hi)
				}
			}
			b.WriteString(pad + indent + kind + "\n")
			for _, c := range g.children {
				feature(c, depth+2)
			}
		}
	}
	feature(0, 1)
	if len(m.constraints) > 0 || rng.IntN(4) == 0 {
		b.WriteString("\nconstraints\n")
		for _, e := range m.constraints {
			b.WriteString(indent + m.exprText(rng, e, 0) + "\n")
			if rng.IntN(5) == 0 {
				b.WriteString("  \n" + indent + "// between constraints\n")
			}
		}
	}
	return b.String()
}

// precedence of the UVL operators, loosest first.
var precedence = map[string]int{"<=>": 1, "=>": 2, "|": 3, "&": 4, "!": 5, "v": 6}

// exprText writes e in UVL, with the parentheses its operators' precedence
// and left associativity need when it stands where an operand of
// precedence ctx may (0: anywhere), and now and then more.
func (m *Model) exprText(rng *rand.Rand, e *Expr, ctx int) string {
	var s string
	p := precedence[e.Op]
	switch e.Op {
	case "v":
		s = quote(m.Names[e.V])
		if rng.IntN(6) == 0 && bare(m.Names[e.V]) {
			s = `"` + m.Names[e.V] + `"`
		}
	case "!":
		s = "!" + m.exprText(rng, e.Args[0], p)
	case "&", "|":
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = m.exprText(rng, a, p+1)
		}
		sep := " " + e.Op + " "
		if rng.IntN(4) == 0 {
			sep = e.Op
		}
		s = strings.Join(parts, sep)
	default:
		l := m.exprText(rng, e.Args[0], p)
		r := m.exprText(rng, e.Args[1], p+1)
		s = l + " " + e.Op + " " + r
	}
	switch {
	case p < ctx:
		if rng.IntN(4) == 0 {
			return "(\n\t\t" + s + "\n)"
		}
		return "(" + s + ")"
	case rng.IntN(8) == 0:
		return "( " + s + " )"
	}
	return s
}

// RandomCNF draws a CNF of vars variables and clauses clauses (some empty
// now and then, literals repeated), and writes it in DIMACS at random:
// names for some variables, generated marks, comments, clauses over
// several lines and several on a line.
func RandomCNF(rng *rand.Rand, vars, clauses int) (text string, cnf [][]int) {
	var b strings.Builder
	b.WriteString("c a random CNF\n")
	for v := 1; v <= vars; v++ {
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "c %d name%d\n", v, v)
		case 1:
			fmt.Fprintf(&b, "c %d$ _X%d\n", v, v)
		}
	}
	fmt.Fprintf(&b, "p cnf %d %d\n", vars, clauses)
	for range clauses {
		var c []int
		if rng.IntN(20) > 0 || vars == 0 {
			for range 1 + rng.IntN(3) {
				if vars == 0 {
					break
				}
				l := 1 + rng.IntN(vars)
				if rng.IntN(2) == 0 {
					l = -l
				}
				c = append(c, l)
			}
		}
		cnf = append(cnf, c)
		for _, l := range c {
			fmt.Fprintf(&b, "%d", l)
			b.WriteString([]string{" ", "  ", "\n", "\t"}[rng.IntN(4)])
		}
		b.WriteString("0")
		b.WriteString([]string{" ", "\n", "\n", "\r\n", "\nc a comment\n"}[rng.IntN(5)])
	}
	return b.String(), cnf
}

// Satisfies reports whether config (config[i] is variable i+1) satisfies
// every clause.
func Satisfies(cnf [][]int, config []bool) bool {
	for _, c := range cnf {
		if !slices.ContainsFunc(c, func(l int) bool { return l > 0 && config[l-1] || l < 0 && !config[-l-1] }) {
			return false
		}
	}
	return true
}
