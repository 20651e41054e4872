package feature

import "math"

// Lit is a literal of a CNF in the DIMACS convention: +v when variable v is
// true, -v when it is false. Variables are numbered from 1: feature i is
// variable i+1, and the variables after the features are auxiliary.
type Lit int32

// FeatureLit returns the literal "feature f is selected" (or deselected).
func FeatureLit(f int, selected bool) Lit {
	if selected {
		return Lit(f + 1)
	}
	return -Lit(f + 1)
}

// Var returns the literal's variable.
func (l Lit) Var() int {
	if l < 0 {
		return int(-l)
	}
	return int(l)
}

// OriginKind says what part of a model a clause comes from.
type OriginKind uint8

const (
	// OriginRoot: the root is selected (Index: the root).
	OriginRoot OriginKind = iota
	// OriginParent: a selected feature's parent is selected (Index: the
	// feature).
	OriginParent
	// OriginMandatory: a selected parent has its mandatory child (Index:
	// the child).
	OriginMandatory
	// OriginGroup: an or, alternative or cardinality group's bounds (Index:
	// the group), auxiliary variables of its counter included.
	OriginGroup
	// OriginConstraint: a cross-tree constraint (Index: the constraint),
	// its auxiliary variables' definitions included.
	OriginConstraint
	// OriginClause: a clause of a CNF file (Index: the clause).
	OriginClause
)

// Origin says what part of a model a clause of its CNF stands for;
// Model.Describe says it in words.
type Origin struct {
	Kind  OriginKind
	Index int
}

// CNF is a model as clauses over its features and, where a direct
// translation would grow too large, auxiliary variables. Every auxiliary
// variable is defined (its value follows from the features'), so the CNF
// has exactly one model for each configuration of the model it comes from:
// counts agree, and a backbone over the features is the model's.
type CNF struct {
	// Vars is the number of variables, numbered 1..Vars.
	Vars int
	// Features is the number of features: variables 1..Features are the
	// features, the others auxiliary.
	Features int
	lits     []Lit
	start    []int32 // clause i is lits[start[i]:start[i+1]]
	origins  []Origin
}

// Len returns the number of clauses.
func (c *CNF) Len() int { return len(c.origins) }

// Clause returns the literals of clause i; the slice must not be changed.
func (c *CNF) Clause(i int) []Lit { return c.lits[c.start[i]:c.start[i+1]:c.start[i+1]] }

// Origin returns what clause i stands for.
func (c *CNF) Origin(i int) Origin { return c.origins[i] }

// Aux reports whether variable v is auxiliary (not a feature).
func (c *CNF) Aux(v int) bool { return v > c.Features }

// limits bound the direct translations; beyond them the translation
// introduces defined auxiliary variables.
type limits struct {
	// direct and directLits bound the clauses and the literals that a
	// sub-formula of a constraint expands to by distribution; beyond them
	// it gets a variable.
	direct, directLits int
	// pairwise is the largest group whose at-most-one is written pairwise
	// (n(n-1)/2 clauses); larger ones get a ladder of prefix variables.
	pairwise int
	// counter is the most cells (children times the count it must reach) of
	// a sequential counter; beyond it a group is counted by a binary adder.
	counter int
}

var defaultLimits = limits{direct: 32, directLits: 128, pairwise: 6, counter: 1 << 18}

// CNF translates the model into clauses: the root is selected, every
// feature implies its parent, every group's bounds hold when its parent is
// selected, every constraint and every clause of a CNF file holds. The
// clauses of a CNF file are kept as read; each clause is tagged with its
// Origin. The work is linear in the model's size: a group of any size is
// counted with clauses in proportion to its children, a constraint whose
// distribution into clauses would blow up gets auxiliary variables instead.
func (m *Model) CNF() *CNF { return m.cnf(defaultLimits) }

func (m *Model) cnf(lim limits) *CNF {
	f := len(m.Features)
	b := &cnfBuilder{
		c:    &CNF{Vars: f, Features: f, start: []int32{0}},
		lim:  lim,
		mark: make([]uint32, f+1),
	}
	for i, c := range m.Clauses {
		b.origin = Origin{OriginClause, i}
		b.c.lits = append(b.c.lits, c.Lits...)
		b.close()
	}
	if m.Root >= 0 {
		b.origin = Origin{OriginRoot, m.Root}
		b.emit(FeatureLit(m.Root, true))
	}
	for i, ft := range m.Features {
		if ft.Parent >= 0 {
			b.origin = Origin{OriginParent, i}
			b.emit(FeatureLit(i, false), FeatureLit(ft.Parent, true))
		}
	}
	for gi := range m.Groups {
		b.group(m, gi)
	}
	for i, c := range m.Constraints {
		b.origin = Origin{OriginConstraint, i}
		b.constraint(c.Expr)
	}
	return b.c
}

// The constants true and false among literals while a translation folds
// them away; they never reach a clause.
const (
	litTrue  Lit = math.MaxInt32
	litFalse Lit = -litTrue
)

type cnfBuilder struct {
	c      *CNF
	lim    limits
	origin Origin // of the clauses emitted now
	// mark[v] is stamp when literal +v is in the clause being normalised,
	// stamp+1 when -v is.
	mark  []uint32
	stamp uint32
	// sizes and defined hold, for the constraint being translated, each
	// sub-formula's direct size, positive and negated, and the variables
	// defined as sub-formulas.
	sizes   map[*Expr][2]size
	defined map[*Expr]Lit
	scratch []Lit
}

func (b *cnfBuilder) newVar() Lit {
	if b.c.Vars == math.MaxInt32-1 {
		panic("feature: CNF beyond 2^31 variables")
	}
	b.c.Vars++
	b.mark = append(b.mark, 0)
	return Lit(b.c.Vars)
}

// close ends the clause whose literals were appended last.
func (b *cnfBuilder) close() {
	if len(b.c.lits) > math.MaxInt32 {
		panic("feature: CNF beyond 2^31 literals")
	}
	b.c.start = append(b.c.start, int32(len(b.c.lits)))
	b.c.origins = append(b.c.origins, b.origin)
}

// emit adds the clause of lits, normalised: constants folded, repeated
// literals dropped, a clause with a literal and its negation (or litTrue)
// left out.
func (b *cnfBuilder) emit(lits ...Lit) {
	cl, ok := b.normalize(lits, b.c.lits)
	b.c.lits = cl
	if ok {
		b.close()
	}
}

// normalize appends the normalised clause of lits to dst and reports true,
// or returns dst unchanged and false when the clause always holds.
func (b *cnfBuilder) normalize(lits, dst []Lit) ([]Lit, bool) {
	if b.stamp >= math.MaxUint32-2 {
		clear(b.mark)
		b.stamp = 0
	}
	b.stamp += 2
	n := len(dst)
	for _, l := range lits {
		switch l {
		case litTrue:
			return dst[:n], false
		case litFalse:
			continue
		}
		v, same, other := l.Var(), b.stamp, b.stamp+1
		if l < 0 {
			same, other = other, same
		}
		switch b.mark[v] {
		case same:
			continue
		case other:
			return dst[:n], false
		}
		b.mark[v] = same
		dst = append(dst, l)
	}
	return dst, true
}

// and2 returns a literal equal to a ∧ b: a constant or a literal when the
// conjunction folds, else a new variable defined as it.
func (b *cnfBuilder) and2(x, y Lit) Lit {
	switch {
	case x == litFalse || y == litFalse || x == -y:
		return litFalse
	case x == litTrue || x == y:
		return y
	case y == litTrue:
		return x
	}
	t := b.newVar()
	b.emit(-t, x)
	b.emit(-t, y)
	b.emit(t, -x, -y)
	return t
}

// or2 returns a literal equal to a ∨ b.
func (b *cnfBuilder) or2(x, y Lit) Lit { return -b.and2(-x, -y) }

// xor2 returns a literal equal to a ⊕ b.
func (b *cnfBuilder) xor2(x, y Lit) Lit {
	switch {
	case x == litFalse:
		return y
	case y == litFalse:
		return x
	case x == litTrue:
		return -y
	case y == litTrue:
		return -x
	case x == y:
		return litFalse
	case x == -y:
		return litTrue
	}
	t := b.newVar()
	b.emit(-t, x, y)
	b.emit(-t, -x, -y)
	b.emit(t, -x, y)
	b.emit(t, x, -y)
	return t
}

// majority returns a literal equal to "at least two of x, y, z".
func (b *cnfBuilder) majority(x, y, z Lit) Lit {
	switch {
	case z == litFalse:
		return b.and2(x, y)
	case z == litTrue:
		return b.or2(x, y)
	case x == litFalse || x == litTrue:
		return b.majority(y, z, x)
	case y == litFalse || y == litTrue:
		return b.majority(z, x, y)
	}
	t := b.newVar()
	b.emit(-t, x, y)
	b.emit(-t, x, z)
	b.emit(-t, y, z)
	b.emit(t, -x, -y)
	b.emit(t, -x, -z)
	b.emit(t, -y, -z)
	return t
}
