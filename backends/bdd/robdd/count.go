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
// The passes count in uint64 and saturate at math.MaxUint64 (sat). When the
// total saturates they start again with math/big. A total below sat bounds
// every count that matters (a count on a path from the root to True is at
// most the total), so the uint64 figures are then exact; nodes off every
// such path may saturate without harm.

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
// satisfy f and agree with a. It only reads the Manager, in time linear
// in f's id.
func (m *Manager) Count(f Node, a Assignment) *big.Int {
	v := m.view(a)
	s := m.getScratch()
	defer m.putScratch(s)
	cnt := m.countUp(f, v, s)
	if total := shl(cnt[f], v.free[m.nodes[f].level]); total != sat {
		return new(big.Int).SetUint64(total)
	}
	cb := m.countUpBig(f, v)
	return cb[f].Lsh(&cb[f], uint(v.free[m.nodes[f].level]))
}

// post marks a stack entry of collect whose children are done.
const post = 1 << 31

// collect gathers in s.order the nodes of the part of the diagram below root
// that v allows (the root, and the children of collected nodes along the
// edges v allows; terminals left out), children before parents: a
// depth-first search with an explicit stack, in time linear in that part.
// Visited nodes are stamped with a fresh generation in s.mark, so starting
// costs nothing. It gives up, returning false, once it has collected more
// than limit nodes: when the part is most of the diagram, the full sweeps
// over ids 0..root are faster than following edges. Node ids stay below
// post: the budget bounds a Manager far below 2^31 nodes.
func (m *Manager) collect(root Node, v view, s *scratch, limit int) bool {
	order := s.order[:0]
	defer func() { s.order = order }()
	if root <= True {
		return true
	}
	if v.free[len(v.val)] == int32(len(v.val)) {
		return false // nothing assigned: the whole diagram is allowed
	}
	if cap(s.mark) < int(root)+1 {
		s.mark = make([]uint32, int(root)+1, max(int(root)+1, len(m.nodes)))
		s.gen = 0
	}
	mark := s.mark[:int(root)+1]
	s.gen++
	if s.gen == 0 { // wrapped: old stamps could match again
		clear(mark[:cap(mark)])
		s.gen = 1
	}
	gen := s.gen
	nodes := m.nodes[:root+1]
	val := v.val
	stack := append(s.stack[:0], root)
	seen := 0 // nodes stamped
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		if top&post != 0 {
			stack = stack[:len(stack)-1]
			order = append(order, top&^post)
			continue
		}
		if mark[top] == gen { // reached again through another parent
			stack = stack[:len(stack)-1]
			continue
		}
		if seen == limit {
			s.stack = stack
			return false
		}
		seen++
		mark[top] = gen
		stack[len(stack)-1] = top | post
		n := nodes[top]
		x := val[n.level]
		if x != 1 && Node(n.lo) > True && mark[n.lo] != gen {
			stack = append(stack, Node(n.lo))
		}
		if x != 0 && Node(n.hi) > True && mark[n.hi] != gen {
			stack = append(stack, Node(n.hi))
		}
	}
	s.stack = stack
	return true
}

// sparseLimit is the most nodes collect may gather before the sweeps fall
// back to every id up to root: a fraction of the diagram, so that a search
// that gives up costs about what the full sweep does.
func sparseLimit(root Node) int { return int(root) / 32 }

// countUp is countBelow without the nodes: the counts alone.
func (m *Manager) countUp(root Node, v view, s *scratch) []uint64 {
	cnt, _, _ := m.countBelow(root, v, s, sparseLimit(root))
	return cnt
}

// countBelow returns, in s.u64a, the saturated count of the nodes below root
// that v allows: the satisfying assignments, agreeing with v, of the levels
// from the node's own level down. When the part of the diagram v allows is
// small (at most limit nodes) it counts only that part and returns its nodes, children first
// (sparse); otherwise it counts every id up to root and returns sparse
// false. Either way the count of root and of every node a sweep down from
// root along edges v allows meets is right.
func (m *Manager) countBelow(root Node, v view, s *scratch, limit int) (cnt []uint64, order []Node, sparse bool) {
	cnt = resized(s.u64a, int(root)+1)
	s.u64a = cnt
	cnt[False] = 0
	if root >= True {
		cnt[True] = 1
	}
	nodes := m.nodes[:root+1]
	val, free := v.val, v.free
	if sparse = m.collect(root, v, s, limit); sparse {
		order = s.order
		for _, i := range order {
			n := nodes[i]
			after := free[n.level+1]
			var c uint64
			switch val[n.level] {
			case 0:
				c = shl(cnt[n.lo], free[nodes[n.lo].level]-after)
			case 1:
				c = shl(cnt[n.hi], free[nodes[n.hi].level]-after)
			default:
				c = add(shl(cnt[n.lo], free[nodes[n.lo].level]-after), shl(cnt[n.hi], free[nodes[n.hi].level]-after))
			}
			cnt[i] = c
		}
		return cnt, order, true
	}
	for i := 2; i < len(nodes); i++ {
		n := nodes[i]
		var c uint64
		after := free[n.level+1]
		switch val[n.level] {
		case 0:
			c = shl(cnt[n.lo], free[nodes[n.lo].level]-after)
		case 1:
			c = shl(cnt[n.hi], free[nodes[n.hi].level]-after)
		default:
			c = add(shl(cnt[n.lo], free[nodes[n.lo].level]-after), shl(cnt[n.hi], free[nodes[n.hi].level]-after))
		}
		cnt[i] = c
	}
	return cnt, nil, false
}

// countUpBig is countUp in math/big, for counts beyond 64 bits.
func (m *Manager) countUpBig(root Node, v view) []big.Int {
	cnt := make([]big.Int, int(root)+1)
	if root >= True {
		cnt[True].SetInt64(1)
	}
	var t big.Int
	for i := 2; i <= int(root); i++ {
		n := m.nodes[i]
		after := v.free[n.level+1]
		c := &cnt[i]
		if v.val[n.level] != 1 {
			c.Lsh(&cnt[n.lo], uint(v.free[m.nodes[n.lo].level]-after))
		}
		if v.val[n.level] != 0 {
			c.Add(c, t.Lsh(&cnt[n.hi], uint(v.free[m.nodes[n.hi].level]-after)))
		}
	}
	return cnt
}

// Marginals returns, for every level, the number of assignments of all
// variables that satisfy f, agree with a and set that level's variable
// true, and the number of those assignments in all (the total). An
// assigned level counts the total when assigned true, zero when false.
// With the total, ones[l] < total means the variable can be false.
//
// It takes one sweep up the diagram (the counts below every node) and one
// down (the paths from the root to every node); an edge that skips levels
// adds its share to all of them at once through a difference array over
// levels, so the time is linear in f's id whatever the edge lengths. It
// only reads the Manager.
func (m *Manager) Marginals(f Node, a Assignment) (ones []*big.Int, total *big.Int) {
	return m.marginalsWithin(f, a, sparseLimit(f))
}

// marginalsWithin is Marginals, its sweeps sparse up to limit nodes (see
// countBelow).
func (m *Manager) marginalsWithin(f Node, a Assignment, limit int) (ones []*big.Int, total *big.Int) {
	v := m.view(a)
	s := m.getScratch()
	defer m.putScratch(s)
	cnt, order, sparse := m.countBelow(f, v, s, limit)
	t := shl(cnt[f], v.free[m.nodes[f].level])
	if t == sat {
		return m.marginalsBig(f, v)
	}
	ones = make([]*big.Int, m.vars)
	for l, c := range m.marginals(f, v, cnt, order, sparse, t, s) {
		ones[l] = new(big.Int).SetUint64(c)
	}
	return ones, new(big.Int).SetUint64(t)
}

// marginals is the downward sweep in uint64, given exact counts cnt and
// the total t below sat.
// When sparse, only the nodes of order are visited, parents first.
func (m *Manager) marginals(root Node, v view, cnt []uint64, order []Node, sparse bool, t uint64, s *scratch) []uint64 {
	vars := m.vars
	ones := make([]uint64, vars)
	if t == 0 {
		return ones
	}
	val, free := v.val, v.free
	// diff[l] - diff[l-1] is added to every free level from l on: the
	// solutions through edges that skip the level and set it true.
	diff := make([]uint64, vars+1)
	nodes := m.nodes[:root+1]
	rootLevel := nodes[root].level
	if f := free[rootLevel]; f > 0 {
		e := shl(cnt[root], f-1)
		diff[0] += e
		diff[rootLevel] -= e
	}
	// top[i] counts the assignments of the levels above node i that lead
	// from the root to i; only nodes with solutions below receive any.
	top := resized(s.u64b, int(root)+1)
	s.u64b = top
	// Only visited nodes are read, and each is cleared before any parent
	// adds to it: a sparse sweep clears just the nodes of order.
	k := int(root)
	if sparse {
		for _, i := range order {
			top[i] = 0
		}
		k = len(order) - 1
	} else {
		clear(top)
	}
	top[root] = 1 << free[rootLevel]
	for ; k >= 0; k-- {
		i := k
		if sparse {
			i = int(order[k])
		} else if i < 2 {
			break
		}
		p := top[i]
		if p == 0 {
			continue
		}
		n := nodes[i]
		after := free[n.level+1]
		x := val[n.level]
		if c := cnt[n.lo]; x != 1 && c != 0 {
			lc := nodes[n.lo].level
			w := p << (free[lc] - after) // paths into the child
			top[n.lo] += w
			if w != p { // the edge skips free levels: half of w·c set each true
				e := (w >> 1) * c
				diff[n.level+1] += e
				diff[lc] -= e
			}
		}
		if c := cnt[n.hi]; x != 0 && c != 0 {
			lc := nodes[n.hi].level
			w := p << (free[lc] - after)
			top[n.hi] += w
			if x == Unassigned {
				ones[n.level] += w * c
			}
			if w != p {
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

// marginalsBig is Marginals in math/big.
func (m *Manager) marginalsBig(root Node, v view) ([]*big.Int, *big.Int) {
	vars := m.vars
	cnt := m.countUpBig(root, v)
	rootLevel := m.nodes[root].level
	total := new(big.Int).Lsh(&cnt[root], uint(v.free[rootLevel]))
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
		e.Lsh(&cnt[root], uint(f-1))
		addRange(0, rootLevel, &e)
	}
	top := make([]big.Int, int(root)+1)
	top[root].Lsh(big.NewInt(1), uint(v.free[rootLevel]))
	var w big.Int
	for i := int(root); i >= 2; i-- {
		p := &top[i]
		if p.Sign() == 0 {
			continue
		}
		n := m.nodes[i]
		after := v.free[n.level+1]
		x := v.val[n.level]
		for _, b := range [2]struct {
			child uint32
			skip  int8 // the value that forbids this branch
			value int8
		}{{n.lo, 1, 0}, {n.hi, 0, 1}} {
			c := &cnt[b.child]
			if x == b.skip || c.Sign() == 0 {
				continue
			}
			lc := m.nodes[b.child].level
			f := v.free[lc] - after
			w.Lsh(p, uint(f))
			top[b.child].Add(&top[b.child], &w)
			if b.value == 1 && x == Unassigned {
				e.Mul(&w, c)
				ones[n.level].Add(ones[n.level], &e)
			}
			if f > 0 {
				e.Mul(&w, c)
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
