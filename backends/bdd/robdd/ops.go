package robdd

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Assignment is a partial assignment of a Manager's variables, indexed by
// variable: 0 sets the variable false, 1 sets it true, and any other value
// (Unassigned) leaves it free. A nil Assignment assigns nothing; any other
// must have length Vars(), or the method given it panics.
type Assignment []int8

// Unassigned marks a free variable in an Assignment.
const Unassigned int8 = -1

// NewAssignment returns an Assignment of m's variables with every variable
// free.
func (m *Manager) NewAssignment() Assignment {
	a := make(Assignment, m.vars)
	for i := range a {
		a[i] = Unassigned
	}
	return a
}

// check panics when a does not fit m.
func (m *Manager) check(a Assignment) {
	if a != nil && len(a) != m.vars {
		panic(fmt.Sprintf("bdd: assignment of %d variables for a manager of %d", len(a), m.vars))
	}
}

// The operations below build nodes: they are not safe for concurrent use.
// Each returns the canonical node of its result, or an error wrapping
// ErrNodeLimit when the budget runs out midway, or ctx's error when ctx
// ends first (ctx is polled every 16384 recursive steps). A failed
// operation drops the nodes it made (a compaction that spares every older
// node, which keep their ids), so the Manager is as it was and the next,
// smaller operation has the room back. With automatic reordering on (see
// Sifting.Auto), any of them may reorder, which renumbers every node:
// afterwards, successful or not, only its result and the held roots (see
// Hold) are valid nodes.

// op is one operation in progress: the Manager it builds in, and the
// context it polls, counting its recursive steps.
type op struct {
	m     *Manager
	ctx   context.Context
	steps uint32
}

// tick counts a recursive step and, every 16384 steps, polls the context.
func (o *op) tick() error {
	o.steps++
	if o.steps&(1<<14-1) == 0 {
		return o.ctx.Err()
	}
	return nil
}

// operands are the nodes an operation works on (unused ones False): a
// reordering renumbers them before the operation runs again (see run).
type operands [3]Node

// run runs one operation on x, and undoes it on error. It is the safe
// point of automatic reordering (see Sifting.Auto): after an operation
// that left the store at its threshold or more it reorders, keeping the
// result; when the operation ran out of room it reorders, keeping the
// operands, and runs it once more on their new ids. build must read x, and
// compute anything that depends on the order, afresh at each call.
func (m *Manager) run(ctx context.Context, name string, x operands, build func(o *op, x operands) (Node, error)) (Node, error) {
	m.ensureCache()
	base := m.Size()
	r, err := build(&op{m: m, ctx: ctx}, x)
	if err != nil && m.nextAuto > 0 && errors.Is(err, ErrNodeLimit) {
		m.compact(base, nil)
		kept, _ := m.reorder(ctx, x[:])
		copy(x[:], kept)
		m.ensureCache()
		base = m.Size()
		r, err = build(&op{m: m, ctx: ctx}, x)
	}
	if err != nil {
		m.compact(base, nil)
		return False, fmt.Errorf("bdd %s: %w", name, err)
	}
	if m.nextAuto > 0 && len(m.nodes) >= m.nextAuto {
		// The reordering stops early, at a valid order, on an error:
		// the result stands either way.
		kept, _ := m.reorder(ctx, []Node{r})
		r = kept[0]
	}
	return r, nil
}

// Not returns the negation of f.
func (m *Manager) Not(ctx context.Context, f Node) (Node, error) {
	return m.run(ctx, "not", operands{f}, func(o *op, x operands) (Node, error) { return o.not(x[0]) })
}

// And returns the conjunction of f and g.
func (m *Manager) And(ctx context.Context, f, g Node) (Node, error) {
	return m.binary(ctx, "and", opAnd, f, g)
}

// Or returns the disjunction of f and g.
func (m *Manager) Or(ctx context.Context, f, g Node) (Node, error) {
	return m.binary(ctx, "or", opOr, f, g)
}

// Xor returns the exclusive or of f and g.
func (m *Manager) Xor(ctx context.Context, f, g Node) (Node, error) {
	return m.binary(ctx, "xor", opXor, f, g)
}

// Imp returns the implication f → g.
func (m *Manager) Imp(ctx context.Context, f, g Node) (Node, error) {
	return m.binary(ctx, "imp", opImp, f, g)
}

func (m *Manager) binary(ctx context.Context, name string, tag uint32, f, g Node) (Node, error) {
	return m.run(ctx, name, operands{f, g}, func(o *op, x operands) (Node, error) { return o.apply(tag, x[0], x[1]) })
}

// ITE returns if-then-else: (f ∧ g) ∨ (¬f ∧ h).
func (m *Manager) ITE(ctx context.Context, f, g, h Node) (Node, error) {
	return m.run(ctx, "ite", operands{f, g, h}, func(o *op, x operands) (Node, error) { return o.ite(x[0], x[1], x[2]) })
}

// Restrict returns the cofactor of f by the partial assignment a: f with
// every assigned variable replaced by its value. The result does not
// depend on the assigned variables.
func (m *Manager) Restrict(ctx context.Context, f Node, a Assignment) (Node, error) {
	m.check(a)
	if !slices.ContainsFunc(a, func(v int8) bool { return v == 0 || v == 1 }) {
		return f, nil
	}
	return m.run(ctx, "restrict", operands{f}, func(o *op, x operands) (Node, error) {
		al := m.byLevel(a)
		deepest := -1
		for l, v := range al {
			if v == 0 || v == 1 {
				deepest = l
			}
		}
		return o.restrict(x[0], al, uint32(deepest), m.nextGen())
	})
}

// Exists returns the existential quantification of f over the given
// variables: f with each of them replaced by false, or by true.
func (m *Manager) Exists(ctx context.Context, f Node, vars ...int) (Node, error) {
	for _, v := range vars {
		if err := m.checkVar(v); err != nil {
			return False, fmt.Errorf("bdd exists: %w", err)
		}
	}
	if len(vars) == 0 {
		return f, nil
	}
	return m.run(ctx, "exists", operands{f}, func(o *op, x operands) (Node, error) {
		quant := make([]bool, m.vars)
		deepest := -1
		for _, v := range vars {
			l := m.LevelOf(v)
			quant[l] = true
			deepest = max(deepest, l)
		}
		return o.exists(x[0], quant, uint32(deepest), m.nextGen())
	})
}

// cofactors returns f's children for the variable at level l: the node's
// own children when f tests l, f itself twice when it lies below.
func (m *Manager) cofactors(f Node, l uint32) (Node, Node) {
	n := m.nodes[f]
	if n.level == l {
		return Node(n.lo), Node(n.hi)
	}
	return f, f
}

func (o *op) not(f Node) (Node, error) {
	m := o.m
	if f <= True {
		return f ^ 1, nil
	}
	if r, ok := m.cache.lookup(uint32(f), 0, opNot); ok {
		return Node(r), nil
	}
	if err := o.tick(); err != nil {
		return False, err
	}
	n := m.nodes[f]
	lo, err := o.not(Node(n.lo))
	if err != nil {
		return False, err
	}
	hi, err := o.not(Node(n.hi))
	if err != nil {
		return False, err
	}
	r, err := m.MakeNode(int(n.level), lo, hi)
	if err != nil {
		return False, err
	}
	m.cache.store(uint32(f), 0, opNot, uint32(r))
	return r, nil
}

// apply computes a binary operation by Shannon expansion on the top
// variable of its operands.
func (o *op) apply(tag uint32, f, g Node) (Node, error) {
	m := o.m
	switch tag {
	case opAnd:
		switch {
		case f == g || g == True:
			return f, nil
		case f == False || g == False:
			return False, nil
		case f == True:
			return g, nil
		}
		if f > g { // commutative: one cache entry for both orders
			f, g = g, f
		}
	case opOr:
		switch {
		case f == g || g == False:
			return f, nil
		case f == True || g == True:
			return True, nil
		case f == False:
			return g, nil
		}
		if f > g {
			f, g = g, f
		}
	case opXor:
		switch {
		case f == g:
			return False, nil
		case f == False:
			return g, nil
		case g == False:
			return f, nil
		case f == True:
			return o.not(g)
		case g == True:
			return o.not(f)
		}
		if f > g {
			f, g = g, f
		}
	case opImp:
		switch {
		case f == False || g == True || f == g:
			return True, nil
		case f == True:
			return g, nil
		case g == False:
			return o.not(f)
		}
	}
	if r, ok := m.cache.lookup(uint32(f), uint32(g), tag); ok {
		return Node(r), nil
	}
	if err := o.tick(); err != nil {
		return False, err
	}
	l := min(m.nodes[f].level, m.nodes[g].level)
	f0, f1 := m.cofactors(f, l)
	g0, g1 := m.cofactors(g, l)
	lo, err := o.apply(tag, f0, g0)
	if err != nil {
		return False, err
	}
	hi, err := o.apply(tag, f1, g1)
	if err != nil {
		return False, err
	}
	r, err := m.MakeNode(int(l), lo, hi)
	if err != nil {
		return False, err
	}
	m.cache.store(uint32(f), uint32(g), tag, uint32(r))
	return r, nil
}

func (o *op) ite(f, g, h Node) (Node, error) {
	m := o.m
	switch {
	case f == True:
		return g, nil
	case f == False:
		return h, nil
	}
	// ITE(f, f, h) = ITE(f, 1, h) and ITE(f, g, f) = ITE(f, g, 0).
	if g == f {
		g = True
	}
	if h == f {
		h = False
	}
	switch {
	case g == h:
		return g, nil
	case g == True && h == False:
		return f, nil
	case g == False && h == True:
		return o.not(f)
	case g == True:
		return o.apply(opOr, f, h)
	case h == False:
		return o.apply(opAnd, f, g)
	}
	if r, ok := m.cache.lookup(uint32(f), uint32(g), uint32(h)); ok {
		return Node(r), nil
	}
	if err := o.tick(); err != nil {
		return False, err
	}
	l := min(m.nodes[f].level, m.nodes[g].level, m.nodes[h].level)
	f0, f1 := m.cofactors(f, l)
	g0, g1 := m.cofactors(g, l)
	h0, h1 := m.cofactors(h, l)
	lo, err := o.ite(f0, g0, h0)
	if err != nil {
		return False, err
	}
	hi, err := o.ite(f1, g1, h1)
	if err != nil {
		return False, err
	}
	r, err := m.MakeNode(int(l), lo, hi)
	if err != nil {
		return False, err
	}
	m.cache.store(uint32(f), uint32(g), uint32(h), uint32(r))
	return r, nil
}

// restrict is Restrict below its checks: deepest is the deepest assigned
// level, below which nothing changes.
func (o *op) restrict(f Node, a Assignment, deepest, gen uint32) (Node, error) {
	m := o.m
	n := m.nodes[f]
	if n.level > deepest { // terminals included: their level is vars
		return f, nil
	}
	if r, ok := m.cache.lookup(uint32(f), gen, opRestrict); ok {
		return Node(r), nil
	}
	if err := o.tick(); err != nil {
		return False, err
	}
	var r Node
	var err error
	switch a[n.level] {
	case 0:
		r, err = o.restrict(Node(n.lo), a, deepest, gen)
	case 1:
		r, err = o.restrict(Node(n.hi), a, deepest, gen)
	default:
		var lo, hi Node
		if lo, err = o.restrict(Node(n.lo), a, deepest, gen); err != nil {
			return False, err
		}
		if hi, err = o.restrict(Node(n.hi), a, deepest, gen); err != nil {
			return False, err
		}
		r, err = m.MakeNode(int(n.level), lo, hi)
	}
	if err != nil {
		return False, err
	}
	m.cache.store(uint32(f), gen, opRestrict, uint32(r))
	return r, nil
}

func (o *op) exists(f Node, quant []bool, deepest, gen uint32) (Node, error) {
	m := o.m
	n := m.nodes[f]
	if n.level > deepest {
		return f, nil
	}
	if r, ok := m.cache.lookup(uint32(f), gen, opExists); ok {
		return Node(r), nil
	}
	if err := o.tick(); err != nil {
		return False, err
	}
	lo, err := o.exists(Node(n.lo), quant, deepest, gen)
	if err != nil {
		return False, err
	}
	var r Node
	if quant[n.level] && lo == True {
		r = True // no need to look at the high branch
	} else {
		hi, err := o.exists(Node(n.hi), quant, deepest, gen)
		if err != nil {
			return False, err
		}
		if quant[n.level] {
			r, err = o.apply(opOr, lo, hi)
		} else {
			r, err = m.MakeNode(int(n.level), lo, hi)
		}
		if err != nil {
			return False, err
		}
	}
	m.cache.store(uint32(f), gen, opExists, uint32(r))
	return r, nil
}

// Extract copies the diagram of f restricted by a into a new Manager of the
// same variables and the given budget, and returns it with the copy's root.
// It only reads m, so, unlike Restrict, it is safe on a diagram that
// concurrent readers share (to draw a restricted diagram, say). It takes
// time linear in the part of f's diagram that a allows, seconds for
// millions of nodes, with work space proportional to that part, and polls
// ctx every 16384 nodes copied.
func (m *Manager) Extract(ctx context.Context, f Node, a Assignment, budget int64) (*Manager, Node, error) {
	m.check(a)
	a = m.byLevel(a)
	dst := New(m.vars, budget)
	dst.varAt, dst.levelOf = slices.Clone(m.varAt), slices.Clone(m.levelOf)
	s := m.getPartScratch()
	defer m.putPartScratch(s)
	// memo maps a node met to its copy.
	memo := &s.ids
	memo.reset()
	var copied uint32
	var copyNode func(Node) (Node, error)
	copyNode = func(n Node) (Node, error) {
		if n <= True {
			return n, nil
		}
		if c, ok := memo.get(n); ok {
			return Node(c), nil
		}
		if copied++; copied&(1<<14-1) == 0 {
			if err := ctx.Err(); err != nil {
				return False, err
			}
		}
		nd := m.nodes[n]
		var r Node
		var err error
		switch v := assigned(a, nd.level); v {
		case 0:
			r, err = copyNode(Node(nd.lo))
		case 1:
			r, err = copyNode(Node(nd.hi))
		default:
			var lo, hi Node
			if lo, err = copyNode(Node(nd.lo)); err != nil {
				return False, err
			}
			if hi, err = copyNode(Node(nd.hi)); err != nil {
				return False, err
			}
			r, err = dst.MakeNode(int(nd.level), lo, hi)
		}
		if err != nil {
			return False, err
		}
		memo.put(n, int32(r))
		return r, nil
	}
	r, err := copyNode(f)
	if err != nil {
		return nil, False, fmt.Errorf("bdd extract: %w", err)
	}
	return dst, r, nil
}

// assigned is a's value at index l (a level, for an Assignment by level):
// 0, 1 or Unassigned.
func assigned(a Assignment, l uint32) int8 {
	if a == nil {
		return Unassigned
	}
	if v := a[l]; v == 0 || v == 1 {
		return v
	}
	return Unassigned
}
