package robdd

import (
	"math"
	"math/big"
	"math/bits"
)

// Counting works on long edges: an edge from a node at level l to a child
// at level lc skips the levels strictly between, whose variables are free
// on every path through it. Under a partial assignment the skipped levels
// that are assigned take their one value, so an edge multiplies the count
// of its child by 2^f, f the number of free levels it skips. free[k], the
// number of free levels above k, gives f = free[lc] - free[l+1].
//
// The sweep up counts in uint64, saturating at math.MaxUint64 (sat). When
// the root's count saturates it counts again, in math/big, the nodes that
// reached sat, and only those (see counts), so the answers are exact, and
// a diagram whose counts fit in 64 bits, as the N-Queens diagrams' do,
// never touches math/big.

const sat = math.MaxUint64

// shl returns x·2^f, saturating.
func shl(x uint64, f int32) uint64 {
	if x == 0 || f == 0 {
		return x
	}
	if f >= 64 || x>>(64-f) != 0 {
		return sat
	}
	return x << f
}

// add returns x+y, saturating.
func add(x, y uint64) uint64 {
	s, carry := bits.Add64(x, y, 0)
	if carry != 0 {
		return sat
	}
	return s
}

// view is a partial assignment prepared for the sweeps: val[l] is 0, 1 or
// Unassigned, free[k] the number of free levels above level k (k = 0..vars).
type view struct {
	val  []int8
	free []int32
}

func (m *Manager) view(a Assignment) view {
	m.check(a)
	a = m.byLevel(a)
	v := view{val: make([]int8, m.vars), free: make([]int32, m.vars+1)}
	for l := range v.val {
		v.val[l] = assigned(a, uint32(l))
		v.free[l+1] = v.free[l]
		if v.val[l] == Unassigned {
			v.free[l+1]++
		}
	}
	return v
}

// SatCount returns the number of assignments of all Vars() variables that
// satisfy f. It only reads the Manager.
func (m *Manager) SatCount(f Node) *big.Int { return m.Count(f, nil) }

// Count returns the number of assignments of all Vars() variables that
// satisfy f and agree with a: one sweep up f's Part under a (see part). It
// only reads the Manager, in time linear in the part.
func (m *Manager) Count(f Node, a Assignment) *big.Int {
	p := m.part(f, a)
	defer p.Release()
	return p.Count()
}

// Count is Manager.Count over the Part.
func (p *Part) Count() *big.Int {
	c := p.countUp(true)
	r := p.root()
	return c.scaled(r, p.v.free[p.nodes[r].level])
}

// counts are the results of a sweep up (countUp): cnt[i] is the number of
// assignments, agreeing with the view, of the levels from node i's own
// down that lead from i to True, for every node i of the Part. A count of
// sat or more is sat in cnt and, when the root's is, exact in big[i]; when
// the root's is not, only nodes off every path the sweeps down follow
// saturate.
type counts struct {
	cnt []uint64
	big []*big.Int
}

// exact returns node i's count, which the caller must not modify.
func (c *counts) exact(i Node) *big.Int {
	if x := c.cnt[i]; x != sat {
		return new(big.Int).SetUint64(x)
	}
	return c.big[i]
}

// scaled returns node i's count times 2^f, in a new big.Int.
func (c *counts) scaled(i Node, f int32) *big.Int {
	x := new(big.Int)
	c.addScaled(x, new(big.Int), i, f)
	return x
}

// addScaled adds node i's count times 2^f to x, tmp its work space.
func (c *counts) addScaled(x, tmp *big.Int, i Node, f int32) {
	switch y := c.cnt[i]; {
	case shl(y, f) != sat:
		tmp.SetUint64(shl(y, f))
	case y != sat:
		tmp.Lsh(tmp.SetUint64(y), uint(f))
	default:
		tmp.Lsh(c.big[i], uint(f))
	}
	x.Add(x, tmp)
}

// countUp counts, in the Part's scratch, the assignments below each of its
// nodes that agree with its view (see counts): one sweep over its nodes,
// children first. It is the hot loop of every query. rootOnly says the
// caller reads the exact count of the root alone: the exact counts of the
// other nodes are then dropped once their last parent has read them, so
// that the sweep holds those of a frontier of the diagram, not all.
func (p *Part) countUp(rootOnly bool) counts {
	nodes := p.nodes
	cnt := resized(p.s.u64a, len(nodes))
	p.s.u64a = cnt
	cnt[False] = 0
	if len(nodes) > int(True) {
		cnt[True] = 1
	}
	c := counts{cnt: cnt}
	val, free := p.v.val, p.v.free
	for i := 2; i < len(nodes); i++ {
		n := nodes[i]
		after := free[n.level+1]
		var x uint64
		switch val[n.level] {
		case 0:
			x = shl(cnt[n.lo], free[nodes[n.lo].level]-after)
		case 1:
			x = shl(cnt[n.hi], free[nodes[n.hi].level]-after)
		default:
			x = add(shl(cnt[n.lo], free[nodes[n.lo].level]-after), shl(cnt[n.hi], free[nodes[n.hi].level]-after))
		}
		cnt[i] = x
	}
	if root := p.root(); root > True && cnt[root] == sat {
		// Again, in the same order, for the counts that reached sat, in
		// math/big. Below a root under sat, the nodes a sweep down meets
		// count less than the root, so the uint64 counts are exact where
		// they are read, and the hot loop needs no test for sat.
		c.countBig(nodes, p.v, rootOnly)
	}
	return c
}

// countBig sets the exact counts of the nodes whose count reached sat (see
// countUp).
func (c *counts) countBig(nodes []node, v view, rootOnly bool) {
	c.big = make([]*big.Int, len(nodes))
	// last[i] is node i's last parent that reads its exact count.
	var last []uint32
	if rootOnly {
		last = make([]uint32, len(nodes))
		for i := 2; i < len(nodes); i++ {
			if c.cnt[i] == sat {
				last[nodes[i].lo], last[nodes[i].hi] = uint32(i), uint32(i)
			}
		}
	}
	var spare []*big.Int // counts dropped, for reuse
	var tmp big.Int
	for i := 2; i < len(nodes); i++ {
		if c.cnt[i] != sat {
			continue
		}
		n := nodes[i]
		var x *big.Int
		if k := len(spare); k > 0 {
			x = spare[k-1].SetUint64(0)
			spare = spare[:k-1]
		} else {
			x = new(big.Int)
		}
		after := v.free[n.level+1]
		if v.val[n.level] != 1 {
			c.addScaled(x, &tmp, Node(n.lo), v.free[nodes[n.lo].level]-after)
		}
		if v.val[n.level] != 0 {
			c.addScaled(x, &tmp, Node(n.hi), v.free[nodes[n.hi].level]-after)
		}
		c.big[i] = x
		if rootOnly {
			for _, k := range [2]uint32{n.lo, n.hi} {
				if last[k] == uint32(i) && c.big[k] != nil {
					spare = append(spare, c.big[k])
					c.big[k] = nil
				}
			}
		}
	}
}

// Marginals returns, for every variable, the number of assignments of all
// variables that satisfy f, agree with a and set that variable true, and
// the number of those assignments in all (the total). An assigned
// variable counts the total when assigned true, zero when false. With the
// total, ones[v] < total means the variable can be false.
//
// It takes one sweep up f's Part under a (the counts below every node, see
// part) and one down (the paths from the root to every node); an edge
// that skips levels adds its share to all of them at once through a
// difference array over levels, so the time is linear in the part
// whatever the edge lengths. It only reads the Manager.
func (m *Manager) Marginals(f Node, a Assignment) (ones []*big.Int, total *big.Int) {
	p := m.part(f, a)
	defer p.Release()
	return p.Marginals()
}

// Marginals is Manager.Marginals over the Part.
func (p *Part) Marginals() (ones []*big.Int, total *big.Int) {
	c := p.countUp(false)
	r := p.root()
	t := shl(c.cnt[r], p.v.free[p.nodes[r].level])
	if t == sat {
		ones, total = p.marginalsBig(&c)
		return byVar(p.m, ones), total
	}
	ones = make([]*big.Int, len(p.v.val))
	for l, x := range p.marginals(&c, t) {
		ones[l] = new(big.Int).SetUint64(x)
	}
	return byVar(p.m, ones), new(big.Int).SetUint64(t)
}

// marginals is the downward sweep in uint64, by level, given the counts of the sweep
// up and the total t below sat (so every count it reads is below sat too):
// the Part's nodes, parents first.
func (p *Part) marginals(up *counts, t uint64) []uint64 {
	cnt := up.cnt
	vars := len(p.v.val)
	ones := make([]uint64, vars)
	if t == 0 {
		return ones
	}
	val, free := p.v.val, p.v.free
	// diff[l] - diff[l-1] is added to every free level from l on: the
	// solutions through edges that skip the level and set it true.
	diff := make([]uint64, vars+1)
	nodes := p.nodes
	root := p.root()
	rootLevel := nodes[root].level
	if f := free[rootLevel]; f > 0 {
		e := shl(cnt[root], f-1)
		diff[0] += e
		diff[rootLevel] -= e
	}
	// top[i] counts the assignments of the levels above node i that lead
	// from the root to i; only nodes with solutions below receive any.
	top := resized(p.s.u64b, len(nodes))
	p.s.u64b = top
	clear(top)
	top[root] = 1 << free[rootLevel]
	for i := int(root); i >= 2; i-- {
		paths := top[i]
		if paths == 0 {
			continue
		}
		n := nodes[i]
		after := free[n.level+1]
		x := val[n.level]
		if c := cnt[n.lo]; x != 1 && c != 0 {
			lc := nodes[n.lo].level
			w := paths << (free[lc] - after) // paths into the child
			top[n.lo] += w
			if w != paths { // the edge skips free levels: half of w·c set each true
				e := (w >> 1) * c
				diff[n.level+1] += e
				diff[lc] -= e
			}
		}
		if c := cnt[n.hi]; x != 0 && c != 0 {
			lc := nodes[n.hi].level
			w := paths << (free[lc] - after)
			top[n.hi] += w
			if x == Unassigned {
				ones[n.level] += w * c
			}
			if w != paths {
				e := (w >> 1) * c
				diff[n.level+1] += e
				diff[lc] -= e
			}
		}
	}
	var run uint64
	for l := range ones {
		run += diff[l]
		switch val[l] {
		case 0:
			ones[l] = 0
		case 1:
			ones[l] = t
		default:
			ones[l] += run
		}
	}
	return ones
}

// marginalsBig is the downward sweep of Marginals in math/big, by level,
// for totals
// beyond 64 bits. It reads the counts of the nodes reached from the root
// along edges the view allows only, which are exact (see counts).
func (p *Part) marginalsBig(c *counts) ([]*big.Int, *big.Int) {
	v := p.v
	vars := len(v.val)
	nodes := p.nodes
	root := p.root()
	rootLevel := nodes[root].level
	total := c.scaled(root, v.free[rootLevel])
	ones := make([]*big.Int, vars)
	diff := make([]big.Int, vars+1)
	for l := range ones {
		ones[l] = new(big.Int)
	}
	if total.Sign() == 0 {
		return ones, total
	}
	var e big.Int
	addRange := func(from, to uint32, x *big.Int) {
		diff[from].Add(&diff[from], x)
		diff[to].Sub(&diff[to], x)
	}
	if f := v.free[rootLevel]; f > 0 {
		e.Lsh(c.exact(root), uint(f-1))
		addRange(0, rootLevel, &e)
	}
	top := make([]big.Int, len(nodes))
	top[root].Lsh(big.NewInt(1), uint(v.free[rootLevel]))
	var w big.Int
	for i := int(root); i >= 2; i-- {
		paths := &top[i]
		if paths.Sign() == 0 {
			continue
		}
		n := nodes[i]
		after := v.free[n.level+1]
		x := v.val[n.level]
		for _, b := range [2]struct {
			child uint32
			skip  int8 // the value that forbids this branch
			value int8
		}{{n.lo, 1, 0}, {n.hi, 0, 1}} {
			if x == b.skip || c.cnt[b.child] == 0 {
				continue
			}
			k := c.exact(Node(b.child))
			lc := nodes[b.child].level
			f := v.free[lc] - after
			w.Lsh(paths, uint(f))
			top[b.child].Add(&top[b.child], &w)
			if b.value == 1 && x == Unassigned {
				e.Mul(&w, k)
				ones[n.level].Add(ones[n.level], &e)
			}
			if f > 0 {
				e.Mul(&w, k)
				addRange(n.level+1, lc, e.Rsh(&e, 1))
			}
		}
	}
	var run big.Int
	for l := range ones {
		run.Add(&run, &diff[l])
		switch v.val[l] {
		case 0:
			ones[l].SetInt64(0)
		case 1:
			ones[l].Set(total)
		default:
			ones[l].Add(ones[l], &run)
		}
	}
	return ones, total
}
