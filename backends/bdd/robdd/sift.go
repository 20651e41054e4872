package robdd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Sifting configures how a Manager reorders its variables: by Reorder on
// request, and on its own during a sequence of operations when Auto is
// set. Sifting (Rudell) takes each variable in turn, the one whose level
// holds the most nodes first (and none that no node tests), moves it
// through the levels by swaps of adjacent levels, first towards the
// nearer end of the order and then towards the other, and leaves it at
// the level where the diagram was smallest. The zero Sifting sifts every
// variable once, with no bound but the budget and the context, and never
// on its own.
type Sifting struct {
	// Auto turns automatic reordering on: an operation that builds nodes
	// (And, Or, ITE, ...) reorders before it returns once the store holds
	// Auto nodes or more, garbage included, keeping its result and the
	// held roots (see Hold). The next time is due at twice the nodes the
	// last reordering (of any kind) left, and at Auto at least. An
	// operation that runs out of room reorders too, and then runs once
	// more. 0 is off.
	Auto int
	// MaxGrowth bounds a variable's excursion: it turns back once the
	// diagram has more than MaxGrowth times the nodes of the smallest
	// diagram it met. 0 means 1.2; it must be at least 1 otherwise.
	MaxGrowth float64
	// MaxSwaps bounds the swaps of adjacent levels of one reordering, and
	// MaxTime its time; 0 is no bound. Past either, the variable that
	// moves returns to its best level (a few more swaps) and the
	// reordering stops, without error.
	MaxSwaps int
	MaxTime  time.Duration
	// MaxVars bounds the blocks that one reordering sifts: those whose
	// levels hold the most nodes, as CUDD's siftMaxVar does; 0 is no
	// bound.
	MaxVars int
	// Groups are blocks of variables that reordering keeps on adjacent
	// levels, in the order given, and sifts as one (group sifting): a
	// variable and its children in a feature model, say, or the bits of
	// one value. A reordering first brings each group together, from the
	// level of its topmost member down. A variable is in one group at
	// most; the others are sifted alone.
	Groups [][]int
}

// defaultGrowth is MaxGrowth when unset, as in CUDD.
const defaultGrowth = 1.2

// SetSifting sets how m reorders (see Sifting).
func (m *Manager) SetSifting(s Sifting) error {
	switch {
	case s.Auto < 0 || s.MaxSwaps < 0 || s.MaxTime < 0 || s.MaxVars < 0:
		return fmt.Errorf("sifting: negative bound (auto %d, swaps %d, time %v, variables %d)", s.Auto, s.MaxSwaps, s.MaxTime, s.MaxVars)
	case s.MaxGrowth != 0 && !(s.MaxGrowth >= 1):
		return fmt.Errorf("sifting: growth %v below 1", s.MaxGrowth)
	}
	in := make([]bool, m.vars)
	for _, g := range s.Groups {
		if len(g) == 0 {
			return errors.New("sifting: an empty group")
		}
		for _, v := range g {
			if err := m.checkVar(v); err != nil {
				return fmt.Errorf("sifting: group %v: %w", g, err)
			}
			if in[v] {
				return fmt.Errorf("sifting: variable %d in two groups", v)
			}
			in[v] = true
		}
	}
	s.Groups = slices.Clone(s.Groups)
	for i, g := range s.Groups {
		s.Groups[i] = slices.Clone(g)
	}
	m.sifting = s
	m.nextAuto = s.Auto
	return nil
}

// Reorder sifts the variables of the diagrams of roots and of the held
// roots (see Hold) as SetSifting set, and returns the roots' new ids, in
// the order given. Nodes that none of them reaches are collected, as by
// Compact; every node is renumbered (the terminals keep theirs), grouped
// by level, the deepest first, so that children have smaller ids than
// their parents. Afterwards only the returned roots and the held ones are
// valid nodes, each the same function as before.
//
// It stops early, at a valid order with every function intact and the
// returned roots valid, when ctx ends (returning ctx's error) or when a
// swap would take the Manager past its budget (returning an error that
// wraps ErrNodeLimit). Its work space is 8 bytes a node (reference
// counts and level lists) in place of the operation cache, which it
// drops, and a few bytes a node of the two levels a swap exchanges.
func (m *Manager) Reorder(ctx context.Context, roots ...Node) ([]Node, error) {
	return m.reorder(ctx, roots)
}

// SetOrder moves the variables to the given order, order[l] the variable
// at level l, by swaps of adjacent levels, and returns the roots' new ids:
// as Reorder does, with the same contract, but to a given order. A
// Manager that holds no decision node takes the order at once.
func (m *Manager) SetOrder(ctx context.Context, order []int, roots ...Node) ([]Node, error) {
	if err := m.checkOrder(order); err != nil {
		return nil, err
	}
	if len(m.nodes) == 2 {
		// No node to move: the order is set at once, whatever it is.
		varAt := make([]uint32, len(order))
		for l, v := range order {
			varAt[l] = uint32(v)
		}
		m.setOrder(varAt)
		return slices.Clone(roots), nil
	}
	r, kept := m.newReorderer(roots)
	err := r.moveTo(ctx, order)
	return r.finish(kept), err
}

// reorder sifts as SetSifting set, keeping roots and the held roots.
func (m *Manager) reorder(ctx context.Context, roots []Node) ([]Node, error) {
	r, kept := m.newReorderer(roots)
	err := newSifter(ctx, r, m.sifting).sift()
	return r.finish(kept), err
}

// newSifter returns a sifting of r as s says, under ctx.
func newSifter(ctx context.Context, r *reorderer, s Sifting) *sifter {
	sf := &sifter{r: r, ctx: ctx, s: s}
	if s.MaxGrowth == 0 {
		sf.s.MaxGrowth = defaultGrowth
	}
	if s.MaxTime > 0 {
		sf.deadline = time.Now().Add(s.MaxTime)
	}
	return sf
}

// moveTo brings the variables to order by swaps, the top level first.
func (r *reorderer) moveTo(ctx context.Context, order []int) error {
	for l, v := range order {
		for k := int(r.levelOf[v]); k > l; k-- {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := r.swap(k - 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// sifter is one sifting of a reorderer.
type sifter struct {
	r        *reorderer
	ctx      context.Context
	s        Sifting
	deadline time.Time
	// blocks are the units sifted, in the order of their levels: the
	// groups and the variables in none, each the list of its variables
	// from the top.
	blocks [][]uint32
	// stop is set once a bound on swaps or time is reached.
	stop bool
}

// bounded reports whether a bound on swaps or time is reached, and
// remembers it.
func (sf *sifter) bounded() bool {
	if !sf.stop {
		sf.stop = sf.s.MaxSwaps > 0 && sf.r.swaps >= sf.s.MaxSwaps ||
			!sf.deadline.IsZero() && time.Now().After(sf.deadline)
	}
	return sf.stop
}

// sift gathers the groups and sifts every block once, the largest first,
// but for those whose variables no node tests.
func (sf *sifter) sift() error {
	r := sf.r
	if err := sf.gather(); err != nil {
		return err
	}
	// The blocks by the nodes of their levels, the most first; the
	// sort is stable, so ties keep the order.
	type sized struct {
		first uint32 // the block's first variable
		nodes int
	}
	order := make([]sized, len(sf.blocks))
	for i, b := range sf.blocks {
		order[i].first = b[0]
		for _, v := range b {
			order[i].nodes += r.size[r.levelOf[v]]
		}
	}
	slices.SortStableFunc(order, func(a, b sized) int { return b.nodes - a.nodes })
	if sf.s.MaxVars > 0 && len(order) > sf.s.MaxVars {
		order = order[:sf.s.MaxVars]
	}
	for _, b := range order {
		if b.nodes == 0 {
			break // no node tests them: no level changes the size
		}
		if err := sf.ctx.Err(); err != nil {
			return err
		}
		if sf.bounded() {
			return nil
		}
		if err := sf.siftBlock(sf.position(b.first)); err != nil {
			return err
		}
	}
	return nil
}

// gather brings the variables of each group onto adjacent levels, in the
// group's order, from the level of its topmost member down, and sets
// the blocks.
func (sf *sifter) gather() error {
	r := sf.r
	group := make([]int, len(r.varAt)) // group index + 1 of each variable
	for i, g := range sf.s.Groups {
		for _, v := range g {
			group[v] = i + 1
		}
	}
	var order []int
	placed := make([]bool, len(sf.s.Groups))
	sf.blocks = sf.blocks[:0]
	for _, v := range r.varAt {
		g := group[v]
		if g == 0 {
			order = append(order, int(v))
			sf.blocks = append(sf.blocks, []uint32{v})
			continue
		}
		if placed[g-1] {
			continue
		}
		placed[g-1] = true
		b := make([]uint32, len(sf.s.Groups[g-1]))
		for k, w := range sf.s.Groups[g-1] {
			order = append(order, w)
			b[k] = uint32(w)
		}
		sf.blocks = append(sf.blocks, b)
	}
	return r.moveTo(sf.ctx, order)
}

// position returns the index of the block whose first variable is v.
func (sf *sifter) position(v uint32) int {
	return slices.IndexFunc(sf.blocks, func(b []uint32) bool { return b[0] == v })
}

// top is the level of the first variable of block p.
func (sf *sifter) top(p int) int { return int(sf.r.levelOf[sf.blocks[p][0]]) }

// exchange swaps blocks p and p+1: each variable of the lower block, the
// topmost first, moves up through the levels of the upper one. A swap
// that fails (the budget) undoes the ones before it, so that no group
// is left apart, unless one of those fails too.
func (sf *sifter) exchange(p int) error {
	r := sf.r
	top, a, b := sf.top(p), len(sf.blocks[p]), len(sf.blocks[p+1])
	var done []int
	for k := range b {
		for l := top + a + k - 1; l >= top+k; l-- {
			if err := r.swap(l); err != nil {
				for j := len(done) - 1; j >= 0; j-- {
					if r.swap(done[j]) != nil {
						break
					}
				}
				return err
			}
			done = append(done, l)
		}
	}
	sf.blocks[p], sf.blocks[p+1] = sf.blocks[p+1], sf.blocks[p]
	return nil
}

// move moves block p one position down (d = 1) or up (d = -1).
func (sf *sifter) move(p, d int) error {
	if d > 0 {
		return sf.exchange(p)
	}
	return sf.exchange(p - 1)
}

// siftBlock moves block p through every position, the nearer end first,
// turning back when the diagram grows past the bound (or a bound of the
// sifting is reached, or a swap fails), and leaves it where the diagram
// was smallest: the first such position met. It returns the error of a
// failed swap, or ctx's.
func (sf *sifter) siftBlock(p int) error {
	r := sf.r
	best, bestAt := r.live, p
	n := len(sf.blocks)
	first := 1 // the nearer end
	if p < n-1-p {
		first = -1
	}
	var err error
	for _, d := range [2]int{first, -first} {
		for p+d >= 0 && p+d < n {
			if err = sf.ctx.Err(); err != nil {
				return err
			}
			if err = sf.move(p, d); err != nil {
				break
			}
			p += d
			if r.live < best {
				best, bestAt = r.live, p
			}
			if float64(r.live) > sf.s.MaxGrowth*float64(best) || sf.bounded() {
				break
			}
		}
		if err != nil || sf.stop {
			break
		}
	}
	// Back to the best position. A failed swap there leaves the block
	// where it is, which is a valid order too.
	for p != bestAt {
		d := cmp.Compare(bestAt, p)
		if e := sf.move(p, d); e != nil {
			return e
		}
		p += d
	}
	return err
}

// A Root is a node that its Manager keeps valid across the compactions and
// reorderings that renumber nodes: they keep its diagram, and Node returns
// its new id afterwards. It is how a caller holds diagrams across the
// operations while automatic reordering is on (see Sifting.Auto), as the
// references of other BDD packages do.
type Root struct {
	m *Manager
	i int32
}

// Hold makes n a held root of m and returns it.
func (m *Manager) Hold(n Node) Root {
	if k := len(m.heldFree); k > 0 {
		i := m.heldFree[k-1]
		m.heldFree = m.heldFree[:k-1]
		m.held[i] = n
		return Root{m, i}
	}
	m.held = append(m.held, n)
	return Root{m, int32(len(m.held) - 1)}
}

// Node is the root's node now.
func (r Root) Node() Node { return r.m.held[r.i] }

// Set makes n the root's node.
func (r Root) Set(n Node) { r.m.held[r.i] = n }

// Release lets the Manager collect the root's diagram; the Root must not
// be used afterwards.
func (r Root) Release() {
	r.m.held[r.i] = False
	r.m.heldFree = append(r.m.heldFree, r.i)
}
