package feature

import (
	"cmp"
	"fmt"
	"slices"
)

// A constraint is translated by distribution where that stays small, and
// with defined variables (Tseitin's) where it would not. Every operator
// makes of its formula, taken positively or negated, a conjunction of
// disjunctions of sub-formulas (form): a conjunction is translated part by
// part, a disjunction by distributing its parts' clauses over each other.
// A first pass measures, for every sub-formula and polarity, the clauses and
// literals of that direct translation (a part of a disjunction too large
// for it counted as the one literal of its variable); the translation then
// expands directly every sub-formula whose measure is within the limits.
// Of a disjunction beyond them it expands the parts of one clause and the
// smallest others while the distribution stays within the limits, and
// gives every other part a variable, defined once and reused wherever the
// sub-formula appears again. So the work and the clauses stay in
// proportion to the constraint, a chain of equivalences included.

// polar is a sub-formula taken positively or negated.
type polar struct {
	e   *Expr
	neg bool
}

// size is the clauses and literals of a direct translation, saturating.
type size struct{ clauses, lits int }

const sizeCap = 1 << 40

func satAdd(a, b int) int { return min(a+b, sizeCap) }

func satMul(a, b int) int {
	if a != 0 && b > sizeCap/a {
		return sizeCap
	}
	return min(a*b, sizeCap)
}

// form returns p as a conjunction of disjunctions of polarized
// sub-formulas; nil for a literal (p.e a variable).
func form(p polar) [][]polar {
	e, neg := p.e, p.neg
	for e.Op == OpNot {
		e, neg = e.Args[0], !neg
	}
	each := func(ps ...polar) [][]polar { // a conjunction of its parts
		out := make([][]polar, len(ps))
		for i, p := range ps {
			out[i] = []polar{p}
		}
		return out
	}
	args := func() []polar {
		ps := make([]polar, len(e.Args))
		for i, a := range e.Args {
			ps[i] = polar{a, neg}
		}
		return ps
	}
	switch e.Op {
	case OpVar:
		return nil
	case OpTrue, OpFalse:
		if (e.Op == OpTrue) != neg {
			return [][]polar{} // no clause
		}
		return [][]polar{{}} // the empty clause
	case OpAnd, OpOr:
		if (e.Op == OpAnd) != neg {
			return each(args()...)
		}
		return [][]polar{args()}
	case OpImplies:
		a, c := e.Args[0], e.Args[1]
		if neg {
			return each(polar{a, false}, polar{c, true})
		}
		return [][]polar{{{a, true}, {c, false}}}
	case OpIff:
		a, c := e.Args[0], e.Args[1]
		return [][]polar{{{a, !neg}, {c, false}}, {{a, neg}, {c, true}}}
	}
	panic(fmt.Sprintf("feature: expression with operator %d", e.Op))
}

// literal returns the literal of a variable taken with a polarity.
func literal(p polar) (Lit, bool) {
	e, neg := p.e, p.neg
	for e.Op == OpNot {
		e, neg = e.Args[0], !neg
	}
	if e.Op != OpVar {
		return 0, false
	}
	return FeatureLit(e.Var, !neg), true
}

func (b *cnfBuilder) size(p polar) size {
	s := b.sizes[p.e]
	if p.neg {
		return s[1]
	}
	return s[0]
}

func (b *cnfBuilder) fits(s size) bool {
	return s.clauses <= b.lim.direct && s.lits <= b.lim.directLits
}

// partSize is the size a part of a disjunction adds: its own, or the one
// literal of the variable it gets when it is too large.
func (b *cnfBuilder) partSize(p polar) size {
	if s := b.size(p); b.fits(s) {
		return s
	}
	return size{1, 1}
}

// measure records the sizes of e and of its sub-formulas.
func (b *cnfBuilder) measure(e *Expr) {
	if _, ok := b.sizes[e]; ok {
		return
	}
	for _, a := range e.Args {
		b.measure(a)
	}
	var s [2]size
	for i, neg := range []bool{false, true} {
		p := polar{e, neg}
		if _, ok := literal(p); ok {
			s[i] = size{1, 1}
			continue
		}
		for _, d := range form(p) {
			if len(d) == 1 {
				ds := b.size(d[0])
				s[i] = size{satAdd(s[i].clauses, ds.clauses), satAdd(s[i].lits, ds.lits)}
				continue
			}
			c, l := 1, 0
			for _, q := range d {
				qs := b.partSize(q)
				c, l = satMul(c, qs.clauses), satAdd(satMul(l, qs.clauses), satMul(qs.lits, c))
			}
			s[i] = size{satAdd(s[i].clauses, c), satAdd(s[i].lits, l)}
		}
	}
	b.sizes[e] = s
}

// constraint adds the clauses of a constraint.
func (b *cnfBuilder) constraint(e *Expr) {
	b.sizes = map[*Expr][2]size{}
	b.defined = map[*Expr]Lit{}
	b.measure(e)
	b.translate(polar{e, false}, 0)
	b.sizes, b.defined = nil, nil
}

// translate adds the clauses of prefix ∨ p (p alone when prefix is 0):
// directly when p is small, else part by part.
func (b *cnfBuilder) translate(p polar, prefix Lit) {
	if b.fits(b.size(p)) {
		for _, c := range b.direct(p) {
			b.emitOr(prefix, c)
		}
		return
	}
	for _, d := range form(p) {
		if len(d) == 1 {
			if t, ok := b.definedLit(d[0]); ok {
				b.emitOr(prefix, []Lit{t})
			} else {
				b.translate(d[0], prefix)
			}
			continue
		}
		if slices.ContainsFunc(d, func(q polar) bool { return b.size(q).clauses == 0 }) {
			continue // a part always holds
		}
		keep := b.choose(d)
		parts := make([][][]Lit, len(d))
		for i, q := range d {
			if keep[i] {
				parts[i] = b.direct(q)
			} else {
				parts[i] = [][]Lit{{b.define(q)}}
			}
		}
		for _, cl := range b.distribute(parts) {
			b.emitOr(prefix, cl)
		}
	}
}

// choose returns which parts of a disjunction too large for a direct
// translation are expanded; the others get variables. A part of one clause
// is expanded (it only lengthens the clause); of the others, the smallest
// first, each while the distribution stays within the limits.
func (b *cnfBuilder) choose(d []polar) []bool {
	keep := make([]bool, len(d))
	flat := 0 // the literals every clause gets from the parts not distributed
	var multi []int
	for i, q := range d {
		s := b.size(q)
		_, def := b.definedLit(q)
		switch {
		case def || !b.fits(s):
			flat++
		case s.clauses == 1:
			keep[i] = true
			flat += s.lits
		default:
			multi = append(multi, i)
			flat++ // unless it is kept
		}
	}
	slices.SortFunc(multi, func(i, j int) int {
		si, sj := b.size(d[i]), b.size(d[j])
		return cmp.Or(cmp.Compare(si.clauses, sj.clauses), cmp.Compare(si.lits, sj.lits))
	})
	c := 1
	var kept []int
	for _, i := range multi {
		nc := satMul(c, b.size(d[i]).clauses)
		lits := satMul(nc, flat-1)
		for _, k := range append(kept, i) {
			s := b.size(d[k])
			lits = satAdd(lits, satMul(s.lits, nc/s.clauses))
		}
		if b.fits(size{nc, lits}) {
			keep[i], kept, c, flat = true, append(kept, i), nc, flat-1
		}
	}
	return keep
}

// emitOr adds the clause prefix ∨ c.
func (b *cnfBuilder) emitOr(prefix Lit, c []Lit) {
	if prefix == 0 {
		b.emit(c...)
		return
	}
	b.scratch = append(append(b.scratch[:0], prefix), c...)
	b.emit(b.scratch...)
}

// direct returns the clauses of p, a sub-formula within the limits, by
// distribution.
func (b *cnfBuilder) direct(p polar) [][]Lit {
	if l, ok := literal(p); ok {
		return [][]Lit{{l}}
	}
	var out [][]Lit
	for _, d := range form(p) {
		if slices.ContainsFunc(d, func(q polar) bool { return b.size(q).clauses == 0 }) {
			continue
		}
		parts := make([][][]Lit, len(d))
		for i, q := range d {
			parts[i] = b.part(q)
		}
		out = append(out, b.distribute(parts)...)
	}
	return out
}

// part returns the clauses of q as a part of a direct translation: the
// literal of its variable when it has one or is too large, else its own
// direct translation.
func (b *cnfBuilder) part(q polar) [][]Lit {
	if t, ok := b.definedLit(q); ok {
		return [][]Lit{{t}}
	}
	if b.fits(b.size(q)) {
		return b.direct(q)
	}
	return [][]Lit{{b.define(q)}}
}

// distribute returns the clauses of the disjunction of the parts' clause
// sets: one clause for each choice of a clause from every part, normalised
// (a clause that always holds left out).
func (b *cnfBuilder) distribute(parts [][][]Lit) [][]Lit {
	var common []Lit // the parts of one clause, in every clause
	var multi [][][]Lit
	for _, p := range parts {
		switch len(p) {
		case 0:
			return nil
		case 1:
			common = append(common, p[0]...)
		default:
			multi = append(multi, p)
		}
	}
	var out [][]Lit
	choice := make([]int, len(multi))
	for {
		b.scratch = append(b.scratch[:0], common...)
		for i, p := range multi {
			b.scratch = append(b.scratch, p[choice[i]]...)
		}
		if cl, ok := b.normalize(b.scratch, nil); ok {
			out = append(out, cl)
		}
		i := 0
		for ; i < len(multi); i++ {
			if choice[i]++; choice[i] < len(multi[i]) {
				break
			}
			choice[i] = 0
		}
		if i == len(multi) {
			return out
		}
	}
}

// definedLit returns the variable defined as p (negated for a negated
// sub-formula), if there is one.
func (b *cnfBuilder) definedLit(p polar) (Lit, bool) {
	t, ok := b.defined[p.e]
	if p.neg {
		t = -t
	}
	return t, ok
}

// define returns a variable t defined as the sub-formula p (clauses for
// t → p and p → t); a sub-formula gets one variable, its negation the
// variable's negation.
func (b *cnfBuilder) define(p polar) Lit {
	if t, ok := b.definedLit(p); ok {
		return t
	}
	t := b.newVar()
	b.defined[p.e] = t
	b.translate(polar{p.e, false}, -t)
	b.translate(polar{p.e, true}, t)
	return b.define(p)
}
