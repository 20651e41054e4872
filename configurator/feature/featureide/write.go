package featureide

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// maxRuleLiterals bounds the literals of the rules Write adds for the
// groups FeatureIDE's tree cannot express; a cardinality [n..m] over many
// children takes a number of them that grows as a binomial coefficient.
const maxRuleLiterals = 100_000

// Write writes m as a FeatureIDE XML model that Parse reads back into a
// model with the same features, tree and configurations. A feature whose
// one group is an or or an alternative group is an <or> or an <alt>;
// any other feature with children is an <and> whose mandatory and
// optional groups' children say mandatory="true" or not, and whose other
// groups (an or or an alternative group beside others, a cardinality
// [n..m]) have their children optional under it and a rule each that
// says how many the parent needs; read back, such a model has those
// groups as rules. A model without a tree (a CNF file's) gets an abstract
// root, named Root unless a feature has that name, with every feature an
// optional child, and a rule for each clause. A name that NameFault
// refuses, and a cardinality that would take more than a bounded number of
// literals to write as rules, are errors before anything is written.
func Write(w io.Writer, m *feature.Model) error {
	for i, f := range m.Features {
		if at, found, _ := feature.NameFault(f.Name); at >= 0 {
			return fmt.Errorf("featureide: feature %d, %q: %s", i, f.Name, found)
		}
	}
	wr := &writer{m: m, groups: make(map[int][]int, len(m.Groups)), root: m.Root}
	for gi, g := range m.Groups {
		wr.groups[g.Parent] = append(wr.groups[g.Parent], gi)
	}
	if wr.root < 0 {
		wr.rootName = m.FreeName("Root")
	} else {
		wr.rootName = m.Features[wr.root].Name
	}
	for gi := range m.Groups {
		if err := wr.groupRules(gi); err != nil {
			return err
		}
	}

	bw := bufio.NewWriter(w)
	wr.bw = bw
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<featureModel>\n\t<struct>\n")
	if wr.root >= 0 {
		wr.feature(wr.root, 2, true)
	} else {
		fmt.Fprintf(bw, "\t\t<and abstract=\"true\" mandatory=\"true\" name=\"%s\">\n", escape(wr.rootName))
		for f := range m.Features {
			wr.feature(f, 3, false)
		}
		bw.WriteString("\t\t</and>\n")
	}
	bw.WriteString("\t</struct>\n")
	n := len(m.Constraints) + len(m.Clauses) + len(wr.rules)
	if n == 0 {
		bw.WriteString("\t<constraints/>\n")
	} else {
		bw.WriteString("\t<constraints>\n")
		for _, c := range m.Constraints {
			wr.rule(c.Expr)
		}
		for _, c := range m.Clauses {
			wr.rule(c.Expr())
		}
		for _, e := range wr.rules {
			wr.rule(e)
		}
		bw.WriteString("\t</constraints>\n")
	}
	bw.WriteString("</featureModel>\n")
	return bw.Flush()
}

type writer struct {
	m        *feature.Model
	bw       *bufio.Writer
	groups   map[int][]int // each feature's groups
	root     int
	rootName string
	rules    []*feature.Expr
}

func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// nativeKind returns what group g is in FeatureIDE's terms: and, or, alt,
// mandatory or optional (children of an <and>), or "" for none of them.
func nativeKind(g *feature.Group) string {
	n := len(g.Children)
	lo, hi := g.Bounds()
	switch {
	case n == 0:
		return ""
	case lo == n:
		return "mandatory"
	case lo == 0 && hi == n:
		return "optional"
	case lo == 1 && hi == 1:
		return "alt"
	case lo == 1 && hi == n:
		return "or"
	}
	return ""
}

// tag returns the element feature f is written as, and whether its one
// group is an <or> or an <alt>.
func (wr *writer) tag(f int) string {
	gs := wr.groups[f]
	children := 0
	for _, gi := range gs {
		children += len(wr.m.Groups[gi].Children)
	}
	switch {
	case children == 0:
		return "feature"
	case len(gs) == 1:
		if k := nativeKind(&wr.m.Groups[gs[0]]); k == "or" || k == "alt" {
			return k
		}
	}
	return "and"
}

// groupRules adds the rules that say what group gi needs when the tree
// cannot: every group but the children of an <or> or an <alt> and the
// mandatory and optional children of an <and>.
func (wr *writer) groupRules(gi int) error {
	g := &wr.m.Groups[gi]
	switch k := nativeKind(g); {
	case k == "mandatory" || k == "optional":
		return nil // the children of an <and>: a feature with such a group is one
	case k != "" && k == wr.tag(g.Parent):
		return nil
	}
	p := feature.Var(g.Parent)
	lo, hi := g.Bounds()
	n := len(g.Children)
	if lo > n {
		wr.rules = append(wr.rules, feature.Not(p))
		return nil
	}
	if cost := binomial(n, lo)*lo + binomial(n, hi+1)*(hi+1); cost > maxRuleLiterals {
		return fmt.Errorf("featureide: the %s group of %q, between %d and %d of %d features, takes more than %d literals as rules", g.Kind, wr.m.Features[g.Parent].Name, lo, hi, n, maxRuleLiterals)
	}
	// all returns the conjunction of each subset of k children.
	all := func(k int) []*feature.Expr {
		var out []*feature.Expr
		subsets(n, k, func(s []int) {
			and := make([]*feature.Expr, len(s))
			for i, j := range s {
				and[i] = feature.Var(g.Children[j])
			}
			out = append(out, feature.And(and...))
		})
		return out
	}
	if lo > 0 {
		wr.rules = append(wr.rules, feature.Implies(p, feature.Or(all(lo)...)))
	}
	if hi < n {
		none := all(hi + 1)
		for i, e := range none {
			none[i] = feature.Not(e)
		}
		wr.rules = append(wr.rules, feature.Implies(p, feature.And(none...)))
	}
	return nil
}

// binomial returns n choose k, capped above maxRuleLiterals.
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	b := 1
	for i := 1; i <= k; i++ {
		b = b * (n - k + i) / i
		if b > maxRuleLiterals {
			return maxRuleLiterals + 1
		}
	}
	return b
}

// subsets calls f with each subset of k of 0..n-1, in increasing order.
func subsets(n, k int, f func([]int)) {
	s := make([]int, k)
	var rec func(i, from int)
	rec = func(i, from int) {
		if i == k {
			f(s)
			return
		}
		for j := from; j <= n-(k-i); j++ {
			s[i] = j
			rec(i+1, j+1)
		}
	}
	rec(0, 0)
}

// feature writes feature f and the features under it at the given depth
// of indentation; mandatory says it is a mandatory child of an <and>.
func (wr *writer) feature(f, depth int, mandatory bool) {
	ft := &wr.m.Features[f]
	t := wr.tag(f)
	pad := strings.Repeat("\t", depth)
	wr.bw.WriteString(pad + "<" + t)
	if ft.Abstract {
		wr.bw.WriteString(` abstract="true"`)
	}
	if mandatory {
		wr.bw.WriteString(` mandatory="true"`)
	}
	wr.bw.WriteString(` name="` + escape(ft.Name) + `"`)
	if t == "feature" {
		wr.bw.WriteString("/>\n")
		return
	}
	wr.bw.WriteString(">\n")
	// The children in the model's order (the tree's pre-order), whatever
	// their groups, so that a model read from FeatureIDE XML is written
	// back in its own order.
	var children []int
	for _, gi := range wr.groups[f] {
		children = append(children, wr.m.Groups[gi].Children...)
	}
	slices.Sort(children)
	for _, c := range children {
		must := t == "and" && nativeKind(&wr.m.Groups[wr.m.Features[c].Group]) == "mandatory"
		wr.feature(c, depth+1, must)
	}
	wr.bw.WriteString(pad + "</" + t + ">\n")
}

// rule writes e as a <rule>.
func (wr *writer) rule(e *feature.Expr) {
	wr.bw.WriteString("\t\t<rule>\n")
	wr.expr(e, 3)
	wr.bw.WriteString("\t\t</rule>\n")
}

var exprTag = [...]string{feature.OpNot: "not", feature.OpAnd: "conj", feature.OpOr: "disj", feature.OpImplies: "imp", feature.OpIff: "eq"}

// expr writes e at the given depth of indentation; the constants, which
// FeatureIDE's rules do not have, are written as the root (true) and its
// negation (false), the root being always selected.
func (wr *writer) expr(e *feature.Expr, depth int) {
	pad := strings.Repeat("\t", depth)
	switch e.Op {
	case feature.OpVar:
		wr.bw.WriteString(pad + "<var>" + escape(wr.m.Features[e.Var].Name) + "</var>\n")
		return
	case feature.OpTrue:
		wr.bw.WriteString(pad + "<var>" + escape(wr.rootName) + "</var>\n")
		return
	case feature.OpFalse:
		wr.bw.WriteString(pad + "<not>\n" + pad + "\t<var>" + escape(wr.rootName) + "</var>\n" + pad + "</not>\n")
		return
	}
	t := exprTag[e.Op]
	wr.bw.WriteString(pad + "<" + t + ">\n")
	for _, a := range e.Args {
		wr.expr(a, depth+1)
	}
	wr.bw.WriteString(pad + "</" + t + ">\n")
}
