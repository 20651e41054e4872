package bdd

import (
	"cmp"
	"slices"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator/feature"
)

// Preprocessing shrinks a model's terms before any diagram is built,
// keeping their meaning exactly: unit propagation fixes the features the
// clauses force (propagate); the binary clauses' strongly connected
// literals are equal, so each such class becomes one variable, its
// representative (an atomic set of a feature model, a mandatory child and
// its parent, becomes one); and a clause that another one subsumes, a
// duplicate among them, goes. The compile then builds the diagram over
// the representatives that the terms left mention, and the space binds
// every feature to one of them, a constant or a free variable (see
// bindings), so that it answers over every feature of the model.

// reduction is what preprocessing made of each feature of a model.
type reduction struct {
	// fixed[f] is 1 or 0 for a feature every configuration selects or
	// deselects, robdd.Unassigned otherwise.
	fixed []int8
	// rep[f], for a feature not fixed, is the literal f equals, over its
	// representative: f's own positive literal for a representative.
	rep []feature.Lit
	// vars are the representatives that the terms left mention, in the
	// model's order: the variables of the compile, variable i feature
	// vars[i]; index[f] is f's variable, -1 for a feature not among them.
	vars  []int
	index []int32
}

// newReduction returns the reduction that changes none of n features.
func newReduction(n int) *reduction {
	r := &reduction{fixed: make([]int8, n), rep: make([]feature.Lit, n)}
	for f := range n {
		r.fixed[f] = robdd.Unassigned
		r.rep[f] = feature.FeatureLit(f, true)
	}
	return r
}

// lit returns what feature f stands for: the literal of its
// representative, or 0 and f's fixed value.
func (r *reduction) lit(f int) (feature.Lit, int8) {
	if x := r.fixed[f]; x >= 0 {
		return 0, x
	}
	return r.rep[f], robdd.Unassigned
}

// substitute returns the literal l stands for, by lit.
func (r *reduction) substitute(l feature.Lit) (feature.Lit, int8) {
	s, x := r.lit(l.Var() - 1)
	if l < 0 {
		if x >= 0 {
			x = 1 - x
		}
		s = -s
	}
	return s, x
}

// fix records the features propagate fixed.
func (r *reduction) fix(fixed []int8) {
	for f, x := range fixed {
		if x >= 0 {
			r.fixed[f] = x
		}
	}
}

// settle makes every feature's entry final: a feature merged into one
// that was merged or fixed later takes that one's literal or value.
func (r *reduction) settle() {
	var resolve func(f int) (feature.Lit, int8)
	resolve = func(f int) (feature.Lit, int8) {
		if x := r.fixed[f]; x >= 0 {
			return 0, x
		}
		l := r.rep[f]
		if l.Var()-1 == f {
			return l, robdd.Unassigned
		}
		s, x := resolve(l.Var() - 1)
		if l < 0 {
			s = -s
			if x >= 0 {
				x = 1 - x
			}
		}
		if x >= 0 {
			r.fixed[f] = x
		} else {
			r.rep[f] = s
		}
		return s, x
	}
	for f := range r.fixed {
		resolve(f)
	}
}

// maxPrepRounds bounds the rounds of propagation and merging; each round
// that merges anything shrinks the problem, so the bound is only a guard.
const maxPrepRounds = 16

// preprocess simplifies terms, a model's terms over its n features, as
// the comment above says, and returns the terms left, over the
// representatives, and the reduction; or false when the terms contradict
// one another. With merge false it only propagates units, as a compile
// without preprocessing does.
func preprocess(n int, terms []term, merge bool) ([]term, *reduction, bool) {
	red := newReduction(n)
	for round := 0; ; round++ {
		left, fixed, ok := propagate(n, terms)
		if !ok {
			return nil, nil, false
		}
		red.fix(fixed)
		terms = left
		if !merge || round == maxPrepRounds {
			break
		}
		merged, ok := red.mergeEquivalent(terms)
		if !ok {
			return nil, nil, false
		}
		if merged == 0 {
			break
		}
		terms = red.rewrite(terms)
	}
	red.settle()
	terms = slices.DeleteFunc(terms, func(t term) bool { return t.hint })
	if merge {
		terms = dropSubsumed(terms)
	}
	red.number(terms)
	return terms, red, true
}

// number sets the variables of the compile, the representatives that
// terms mention, and renumbers the terms' variables and literals to them.
func (r *reduction) number(terms []term) {
	r.index = make([]int32, len(r.rep))
	for f := range r.index {
		r.index[f] = -1
	}
	for _, t := range terms {
		for _, v := range t.vars {
			r.index[v] = 0
		}
	}
	r.vars = r.vars[:0]
	for f, x := range r.index {
		if x == 0 {
			r.index[f] = int32(len(r.vars))
			r.vars = append(r.vars, f)
		}
	}
	for i := range terms {
		t := &terms[i]
		vars := make([]int32, len(t.vars))
		for k, v := range t.vars {
			vars[k] = r.index[v]
		}
		t.vars = vars
		if t.kind == termClause {
			lits := make([]feature.Lit, len(t.lits))
			for k, l := range t.lits {
				lits[k] = feature.FeatureLit(int(r.index[l.Var()-1]), l > 0)
			}
			t.lits = lits
		}
	}
}

// mergeEquivalent finds the literals that the binary clauses among terms
// make equal (a strongly connected component of their implication graph)
// and merges each class into its literal of the smallest feature. It
// returns how many features it merged, or false when a feature equals its
// own negation.
func (r *reduction) mergeEquivalent(terms []term) (int, bool) {
	n := len(r.rep)
	node := func(l feature.Lit) int32 { // 2f for f, 2f+1 for ¬f
		if l > 0 {
			return int32(2 * (l.Var() - 1))
		}
		return int32(2*(l.Var()-1) + 1)
	}
	lit := func(x int32) feature.Lit { return feature.FeatureLit(int(x/2), x%2 == 0) }
	adj := make([][]int32, 2*n)
	for i := range terms {
		t := &terms[i]
		if t.kind != termClause || len(t.lits) != 2 || t.lits[0].Var() == t.lits[1].Var() {
			continue
		}
		a, b := t.lits[0], t.lits[1]
		adj[node(-a)] = append(adj[node(-a)], node(b))
		adj[node(-b)] = append(adj[node(-b)], node(a))
	}
	// Tarjan's algorithm, iterative: index and low of each literal,
	// the stack of the component being found.
	const unseen = -1
	index, low := make([]int32, 2*n), make([]int32, 2*n)
	for i := range index {
		index[i] = unseen
	}
	onStack := make([]bool, 2*n)
	var stack []int32
	type frame struct{ v, next int32 }
	var calls []frame
	counter := int32(0)
	classes := make([]feature.Lit, 2*n) // the representative literal of each literal's class
	merged := 0
	for s := range int32(2 * n) {
		if index[s] != unseen || len(adj[s]) == 0 {
			continue
		}
		calls = append(calls, frame{s, 0})
		index[s], low[s] = counter, counter
		counter++
		stack = append(stack, s)
		onStack[s] = true
		for len(calls) > 0 {
			fr := &calls[len(calls)-1]
			v := fr.v
			if int(fr.next) < len(adj[v]) {
				w := adj[v][fr.next]
				fr.next++
				switch {
				case index[w] == unseen:
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{w, 0})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			// v roots a component: pop it.
			k := len(stack) - 1
			for stack[k] != v {
				k--
			}
			comp := stack[k:]
			stack = stack[:k]
			best := comp[0]
			for _, w := range comp {
				onStack[w] = false
				if w/2 < best/2 {
					best = w
				}
			}
			if len(comp) == 1 {
				continue
			}
			for _, w := range comp {
				if w^1 == best {
					return 0, false // f and ¬f in one class
				}
			}
			// The negated class is found apart; name both classes by
			// the same feature, whichever is found first.
			if classes[best^1] != 0 {
				for _, w := range comp {
					classes[w] = -classes[w^1]
				}
			} else {
				for _, w := range comp {
					classes[w] = lit(best)
				}
			}
		}
	}
	for f := range n {
		c := classes[2*f]
		if c == 0 || c.Var()-1 == f {
			continue
		}
		r.rep[f] = c
		merged++
	}
	return merged, true
}

// rewrite returns terms over the representatives: each clause's literals
// replaced (a clause made a tautology goes, a literal twice stays once),
// each term's variables replaced.
func (r *reduction) rewrite(terms []term) []term {
	left := terms[:0:0]
	for _, t := range terms {
		if t.kind == termClause {
			lits := make([]feature.Lit, 0, len(t.lits))
			for _, l := range t.lits {
				s, _ := r.substitute(l) // propagate left no fixed feature
				lits = append(lits, s)
			}
			slices.SortFunc(lits, func(a, b feature.Lit) int {
				return cmp.Or(cmp.Compare(a.Var(), b.Var()), cmp.Compare(a, b))
			})
			lits = slices.Compact(lits)
			taut := false
			for i := 1; i < len(lits); i++ {
				taut = taut || lits[i].Var() == lits[i-1].Var()
			}
			if taut {
				continue
			}
			t.lits = lits
		}
		vars := make([]int32, 0, len(t.vars))
		for _, v := range t.vars {
			vars = append(vars, int32(r.rep[v].Var()-1))
		}
		slices.Sort(vars)
		t.vars = slices.Compact(vars)
		left = append(left, t)
	}
	return left
}

// dropSubsumed returns terms without the clauses that another clause among
// them subsumes (a duplicate is subsumed by its first copy), in their
// order.
func dropSubsumed(terms []term) []term {
	var clauses []int
	for i := range terms {
		if terms[i].kind == termClause {
			slices.Sort(terms[i].lits)
			clauses = append(clauses, i)
		}
	}
	slices.SortStableFunc(clauses, func(a, b int) int { return cmp.Compare(len(terms[a].lits), len(terms[b].lits)) })
	// first[l] lists the kept clauses whose smallest literal is l: a
	// clause that subsumes c has its smallest literal in c.
	first := map[feature.Lit][]int{}
	dropped := make([]bool, len(terms))
	for _, i := range clauses {
		c := terms[i].lits
		subsumed := false
		for _, l := range c {
			for _, j := range first[l] {
				if subset(terms[j].lits, c) {
					subsumed = true
					break
				}
			}
			if subsumed {
				break
			}
		}
		if subsumed {
			dropped[i] = true
			continue
		}
		if len(c) > 0 {
			first[c[0]] = append(first[c[0]], i)
		}
	}
	left := terms[:0:0]
	for i, t := range terms {
		if !dropped[i] {
			left = append(left, t)
		}
	}
	return left
}

// subset reports whether every literal of a, sorted, is in b, sorted.
func subset(a, b []feature.Lit) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, l := range a {
		for j < len(b) && b[j] < l {
			j++
		}
		if j == len(b) || b[j] != l {
			return false
		}
		j++
	}
	return true
}

// unreduced returns the reduction of n features that keeps each one as
// its own variable.
func unreduced(n int) *reduction {
	r := newReduction(n)
	r.vars = make([]int, n)
	r.index = make([]int32, n)
	for f := range n {
		r.vars[f], r.index[f] = f, int32(f)
	}
	return r
}

// modelReduction is the reduction of model's features that preprocessing
// makes, as a compile of CompileModel's does: the variables of its
// diagram. A model whose terms contradict one another keeps its features.
func modelReduction(model *feature.Model) *reduction {
	n := len(model.Features)
	if _, red, ok := preprocess(n, modelTerms(model), true); ok {
		return red
	}
	return unreduced(n)
}
