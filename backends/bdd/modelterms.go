package bdd

import (
	"slices"

	"github.com/nqueens/configurator/configurator/feature"
)

// A feature model's diagram is the conjunction of terms read from the
// model directly, without the auxiliary variables of its CNF: the clauses
// of a CNF file as they are; for a feature model, the root, each feature's
// need of its parent, each mandatory child, the bounds of each group (a
// cardinality diagram built level by level: a group of any size is a
// diagram of its children times its bound), and each constraint, built
// from its expression. A term's variables are the model's features, and
// preprocess renumbers them to the variables of the compile.
//
// An alternative group also lends preprocessing its clauses (a selected
// parent has a child, no two children at once) as hints: they are implied
// by its cardinality diagram, so propagation and merging may use them (a
// core child makes its siblings dead, two children of a core parent are
// each other's negation, as in the model's CNF), and they are dropped
// before the compile, which builds the group as one diagram: as clauses,
// a group changes the order and the schedule of the compile, and on some
// models makes it much slower.

// termKind says what a term is.
type termKind uint8

const (
	// termClause is a disjunction of literals.
	termClause termKind = iota
	// termGroup is a group's bounds under its selected parent.
	termGroup
	// termConstraint is a constraint's expression.
	termConstraint
)

// term is one conjunct of a model's diagram: its kind, the literals of a
// clause, the group or constraint it stands for, and its variables. A
// hint is a clause that other terms imply, for preprocessing only.
type term struct {
	kind  termKind
	hint  bool
	index int32
	lits  []feature.Lit
	vars  []int32
}

// maxHintGroup is the largest alternative group that lends preprocessing
// its clauses: n(n-1)/2 of them keep apart every two of its n children.
const maxHintGroup = 64

// modelTerms lists the terms of m's diagram.
func modelTerms(m *feature.Model) []term {
	var terms []term
	add := func(hint bool, lits ...feature.Lit) {
		vars := make([]int32, len(lits))
		for i, l := range lits {
			vars[i] = int32(l.Var() - 1)
		}
		terms = append(terms, term{kind: termClause, hint: hint, lits: lits, vars: vars})
	}
	clause := func(lits ...feature.Lit) { add(false, lits...) }
	for _, c := range m.Clauses {
		clause(c.Lits...)
	}
	if m.Root >= 0 {
		clause(feature.FeatureLit(m.Root, true))
	}
	for f, ft := range m.Features {
		if ft.Parent >= 0 {
			clause(feature.FeatureLit(f, false), feature.FeatureLit(ft.Parent, true))
		}
	}
	for gi := range m.Groups {
		g := &m.Groups[gi]
		p := feature.FeatureLit(g.Parent, true)
		lo, hi := g.Bounds()
		n := len(g.Children)
		switch {
		case lo > n:
			clause(-p)
		case g.Kind == feature.GroupMandatory:
			for _, c := range g.Children {
				clause(-p, feature.FeatureLit(c, true))
			}
		case hi >= n && lo == 0:
		case hi >= n && lo == 1:
			clause(needsChild(p, g)...)
		default:
			vars := []int32{int32(g.Parent)}
			for _, c := range g.Children {
				vars = append(vars, int32(c))
			}
			terms = append(terms, term{kind: termGroup, index: int32(gi), vars: vars})
			if lo == 1 && hi == 1 && n <= maxHintGroup {
				add(true, needsChild(p, g)...)
				for i, c := range g.Children {
					for _, d := range g.Children[i+1:] {
						add(true, feature.FeatureLit(c, false), feature.FeatureLit(d, false))
					}
				}
			}
		}
	}
	direct := directClauses(m)
	for i, c := range m.Constraints {
		if cl, ok := direct[i]; ok {
			for _, lits := range cl {
				clause(lits...)
			}
			continue
		}
		terms = append(terms, term{kind: termConstraint, index: int32(i), vars: exprVars(c.Expr, nil)})
	}
	return terms
}

// needsChild is the clause of group g under its parent's literal p: a
// selected parent has one of the children at least.
func needsChild(p feature.Lit, g *feature.Group) []feature.Lit {
	lits := []feature.Lit{-p}
	for _, c := range g.Children {
		lits = append(lits, feature.FeatureLit(c, true))
	}
	return lits
}

// directClauses returns the clauses of each constraint of m that the
// model's CNF (feature.Model.CNF) writes over the features alone, by the
// constraint's index: as clauses, a constraint takes part in
// preprocessing (its units, its equivalences). A constraint that the CNF
// writes with auxiliary variables stays an expression.
func directClauses(m *feature.Model) map[int][][]feature.Lit {
	if len(m.Constraints) == 0 {
		return nil
	}
	c := m.CNF()
	direct := map[int][][]feature.Lit{}
	aux := map[int]bool{}
	for i := range c.Len() {
		o := c.Origin(i)
		if o.Kind != feature.OriginConstraint || aux[o.Index] {
			continue
		}
		lits := slices.Clone(c.Clause(i))
		if slices.ContainsFunc(lits, func(l feature.Lit) bool { return c.Aux(l.Var()) }) {
			aux[o.Index] = true
			delete(direct, o.Index)
			continue
		}
		direct[o.Index] = append(direct[o.Index], lits)
	}
	for i := range m.Constraints {
		if _, ok := direct[i]; !ok && !aux[i] {
			direct[i] = nil // a constraint that always holds: no clause
		}
	}
	return direct
}

// exprVars appends the features of e to vars, each once.
func exprVars(e *feature.Expr, vars []int32) []int32 {
	if e.Op == feature.OpVar {
		if !slices.Contains(vars, int32(e.Var)) {
			vars = append(vars, int32(e.Var))
		}
		return vars
	}
	for _, a := range e.Args {
		vars = exprVars(a, vars)
	}
	return vars
}

// propagate fixes the features that the clauses among terms decide by
// unit propagation, and simplifies the terms by them: a clause they
// satisfy goes, a literal they falsify leaves its clause, and a fixed
// feature leaves the variables of every term (the diagrams of groups and
// constraints are restricted by them when built). It returns the terms
// left and fixed, by feature: 1 or 0 for a fixed one, robdd.Unassigned
// for the others; or false when the clauses contradict one another.
//
// The model's diagram is the conjunction of the cube of the fixed
// features and of the terms left, each restricted by that cube: the
// diagrams the compile builds never test a fixed feature.
func propagate(features int, terms []term) (left []term, fixed []int8, ok bool) {
	fixed = make([]int8, features)
	for f := range fixed {
		fixed[f] = -1
	}
	occurs := make([][]int32, features) // the clauses of each feature
	var queue []int32
	value := func(l feature.Lit) int8 { // 1 true, 0 false, -1 free
		x := fixed[l.Var()-1]
		if x < 0 || l > 0 {
			return x
		}
		return 1 - x
	}
	set := func(l feature.Lit) {
		fixed[l.Var()-1] = int8(btoi(l > 0))
		queue = append(queue, int32(l.Var()-1))
	}
	// visit assigns the last free literal of clause i, or reports a
	// conflict.
	visit := func(i int) bool {
		var free feature.Lit
		n := 0
		for _, l := range terms[i].lits {
			switch value(l) {
			case 1:
				return true
			case -1:
				if l != free {
					free, n = l, n+1
				}
			}
		}
		switch n {
		case 0:
			return false
		case 1:
			set(free)
		}
		return true
	}
	for i := range terms {
		if terms[i].kind != termClause {
			continue
		}
		for _, v := range terms[i].vars {
			occurs[v] = append(occurs[v], int32(i))
		}
		if !visit(i) {
			return nil, nil, false
		}
	}
	for len(queue) > 0 {
		v := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, i := range occurs[v] {
			if !visit(int(i)) {
				return nil, nil, false
			}
		}
	}
	left = terms[:0:0]
	for _, t := range terms {
		if t.kind == termClause {
			lits := t.lits[:0:0]
			sat := false
			for _, l := range t.lits {
				switch value(l) {
				case 1:
					sat = true
				case -1:
					lits = append(lits, l)
				}
			}
			if sat {
				continue
			}
			t.lits = lits
		}
		t.vars = slices.DeleteFunc(slices.Clone(t.vars), func(v int32) bool { return fixed[v] >= 0 })
		left = append(left, t)
	}
	return left, fixed, true
}
