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
	c := m.countBelow(f, v, s, sparseLimit(f))
	return c.scaled(f, v.free[m.nodes[f].level])
}

// counts are the results of a sweep up (countBelow): cnt[i] is the number
// of assignments, agreeing with the view, of the levels from node i's own
// down that lead from i to True, for every node the sweep visited. A count
// of sat or more is sat in cnt and, when the root's is, exact in big; when
// the root's is not, only nodes off every path the sweeps down follow
// saturate. When sparse, the sweep visited only the nodes of order
// (children first); otherwise every id up to the root.
type counts struct {
	cnt    []uint64
	big    map[Node]*big.Int
	order  []Node
	sparse bool
}

// exact returns node i's count in a new big.Int.
func (c *counts) exact(i Node) *big.Int {
	if x := c.cnt[i]; x != sat {
		return new(big.Int).SetUint64(x)
	}
	return new(big.Int).Set(c.big[i])
}

// scaled returns node i's count times 2^f.
func (c *counts) scaled(i Node, f int32) *big.Int {
	if x := shl(c.cnt[i], f); x != sat {
		return new(big.Int).SetUint64(x)
	}
	x := c.exact(i)
	return x.Lsh(x, uint(f))
}

// keep records the exact count of node n, id i, whose count saturated.
func (c *counts) keep(i Node, n node, nodes []node, v view) {
	after := v.free[n.level+1]
	x := new(big.Int)
	if v.val[n.level] != 1 {
		x.Add(x, c.scaled(Node(n.lo), v.free[nodes[n.lo].level]-after))
	}
	if v.val[n.level] != 0 {
		x.Add(x, c.scaled(Node(n.hi), v.free[nodes[n.hi].level]-after))
	}
	if c.big == nil {
		c.big = make(map[Node]*big.Int)
	}
	c.big[i] = x
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

// countBelow counts, in s.u64a, the assignments below the nodes under
// root that v allows (see counts). When the part of the diagram v allows is
// small (at most limit nodes, see collect) it counts only that part;
// otherwise every id up to root. Either way the count of root and of every
// node a sweep down from root along edges v allows meets is right.
func (m *Manager) countBelow(root Node, v view, s *scratch, limit int) counts {
	cnt := resized(s.u64a, int(root)+1)
	s.u64a = cnt
	cnt[False] = 0
	if root >= True {
		cnt[True] = 1
	}
	c := counts{cnt: cnt}
	nodes := m.nodes[:root+1]
	val, free := v.val, v.free
	// The nodes, children first: those of s.order, or every id 2..root.
	// The two loops are one sweep written twice: the hot loop of every
	// query, whose dense form runs 10 % faster without the test of which
	// form it is (measured at N = 10 and 11).
	sparse := m.collect(root, v, s, limit)
	order := s.order
	begin, end := 2, len(nodes)
	if sparse {
		c.order, c.sparse = order, true
		begin, end = 0, len(order)
	}
	if sparse {
		for _, i := range order {
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
	} else {
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
	}
	if root > True && cnt[root] == sat {
		// Again, in the same order, for the counts that reached sat, in
		// math/big. Below a root under sat, the nodes a sweep down meets
		// count less than the root, so the uint64 counts are exact where
		// they are read, and the hot loops need no test for sat.
		for k := range end - begin {
			i := Node(begin + k)
			if sparse {
				i = order[k]
			}
			if cnt[i] == sat {
				c.keep(i, nodes[i], nodes, v)
			}
		}
	}
	return c
}

// sweepDown prepares the per-node scratch *buf for a sweep down from root
// after the sweep up up: it sizes it to root+1 entries and zeroes those the
// sweep reads (only visited nodes are read, each cleared before any parent
// writes to it: those of up's order when it was sparse, every id
// otherwise). It returns the entries and where the sweep starts: the last
// position in the order when sparse, the root's id otherwise.
func sweepDown[T uint64 | uint8](buf *[]T, root Node, up *counts) (xs []T, k int) {
	xs = resized(*buf, int(root)+1)
	*buf = xs
	if up.sparse {
		for _, i := range up.order {
			xs[i] = 0
		}
		return xs, len(up.order) - 1
	}
	clear(xs)
	return xs, int(root)
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
	c := m.countBelow(f, v, s, limit)
	t := shl(c.cnt[f], v.free[m.nodes[f].level])
	if t == sat {
		return m.marginalsBig(f, v, &c)
	}
	ones = make([]*big.Int, m.vars)
	for l, x := range m.marginals(f, v, &c, t, s) {
		ones[l] = new(big.Int).SetUint64(x)
	}
	return ones, new(big.Int).SetUint64(t)
}

// marginals is the downward sweep in uint64, given the counts of the sweep
// up and the total t below sat (so every count it reads is below sat too).
// When the sweep up was sparse, only the nodes of its order are visited,
// parents first.
func (m *Manager) marginals(root Node, v view, up *counts, t uint64, s *scratch) []uint64 {
	cnt, order, sparse := up.cnt, up.order, up.sparse
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
	top, k := sweepDown(&s.u64b, root, up)
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

// marginalsBig is the downward sweep of Marginals in math/big, for totals
// beyond 64 bits. It visits every id from root down, but reads the counts
// of the nodes reached from root along edges v allows only, which the
// sweep up counted even when sparse.
func (m *Manager) marginalsBig(root Node, v view, c *counts) ([]*big.Int, *big.Int) {
	vars := m.vars
	rootLevel := m.nodes[root].level
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
			if x == b.skip || c.cnt[b.child] == 0 {
				continue
			}
			k := c.exact(Node(b.child))
			lc := m.nodes[b.child].level
			f := v.free[lc] - after
			w.Lsh(p, uint(f))
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
