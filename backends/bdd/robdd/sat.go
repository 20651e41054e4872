package robdd

import (
	"iter"
	"math/big"
	"math/rand/v2"
)

// Solutions are []bool indexed by variable, Vars() long: the value of
// every variable. These methods only read the Manager.

// AnySat returns an assignment of all variables that satisfies f and agrees
// with a, or false when there is none. Free variables that f does not
// decide are false. It visits each node at most once, depth first, and
// remembers the nodes without a solution below in work space proportional
// to the nodes it visits (see AnySatWithin).
func (m *Manager) AnySat(f Node, a Assignment) ([]bool, bool) {
	x, found, _ := m.AnySatWithin(f, a, 0)
	return x, found
}

// AnySatWithin is AnySat that gives up, returning done false, once it has
// visited more than limit decision nodes (limit <= 0: no limit), so that a
// caller can bound its work space: at most AnySatBytes(limit). The search
// meets only the nodes it follows until it finds a solution, which under
// a partial assignment is mostly a small part of the diagram.
func (m *Manager) AnySatWithin(f Node, a Assignment, limit int) (x []bool, found, done bool) {
	v := m.view(a)
	s := m.getPartScratch()
	defer m.putPartScratch(s)
	dead := &s.ids
	dead.reset()
	x = v.initial()
	visited := 0
	// find reports whether some path from n to True agrees with the
	// assignment, and writes the levels it tests into x (by level). A node without
	// such a path is marked dead, so no node is searched twice. Past the
	// limit it unwinds, reporting false.
	var find func(n Node) bool
	find = func(n Node) bool {
		if n <= True {
			return n == True
		}
		if _, ok := dead.get(n); ok {
			return false
		}
		if visited++; limit > 0 && visited > limit {
			return false
		}
		nd := m.nodes[n]
		val := v.val[nd.level]
		if val != 1 && find(Node(nd.lo)) {
			x[nd.level] = false
			return true
		}
		if val != 0 && find(Node(nd.hi)) {
			x[nd.level] = true
			return true
		}
		dead.put(n, 0)
		return false
	}
	found = find(f)
	if limit > 0 && visited > limit {
		return nil, false, false
	}
	if !found {
		return nil, false, true
	}
	return byVar(m, x), true, true
}

// AnySatBytes is the most work space AnySatWithin holds when it visits
// nodes decision nodes: its memo of the nodes without a solution (8-byte
// slots, at least two and, just after the table doubled, four a node, and
// the table it outgrew), the solution and the assignment's view.
func (m *Manager) AnySatBytes(nodes int) int64 {
	return 6*8*int64(max(nodes, minMapSlots/4)) + 8*int64(m.vars)
}

// initial is the start of a solution: assigned variables at their value,
// free ones false.
func (v view) initial() []bool {
	x := make([]bool, len(v.val))
	for l, val := range v.val {
		x[l] = val == 1
	}
	return x
}

// RandomSat returns an assignment of all variables drawn uniformly at
// random from those that satisfy f and agree with a, or false when there
// is none. It counts the solutions below every node of f's Part under a
// (see part), then walks down once, taking each branch with probability in
// proportion to its count.
func (m *Manager) RandomSat(f Node, a Assignment, rng *rand.Rand) ([]bool, bool) {
	p := m.part(f, a)
	defer p.Release()
	return p.RandomSat(rng)
}

// RandomSat is Manager.RandomSat over the Part.
func (p *Part) RandomSat(rng *rand.Rand) ([]bool, bool) { return p.randomSat(rng, sat) }

// randomSat is RandomSat. It draws a branch in uint64 when the two
// branches' weights add up to less than fits, in math/big otherwise:
// RandomSat passes sat, tests 0 to exercise math/big.
func (p *Part) randomSat(rng *rand.Rand, fits uint64) ([]bool, bool) {
	c := p.countUp(false)
	f, v, nodes := p.root(), p.v, p.nodes
	if c.cnt[f] == 0 {
		return nil, false
	}
	x := v.initial()
	rootLevel := nodes[f].level
	v.randomFree(x, 0, rootLevel, rng)
	for n := f; n > True; {
		nd := nodes[n]
		after := v.free[nd.level+1]
		lc, hc := nodes[nd.lo].level, nodes[nd.hi].level
		high := v.val[nd.level] == 1
		if v.val[nd.level] == Unassigned {
			flo, fhi := v.free[lc]-after, v.free[hc]-after
			wlo := shl(c.cnt[nd.lo], flo)
			if sum := add(wlo, shl(c.cnt[nd.hi], fhi)); sum < fits {
				high = rng.Uint64N(sum) >= wlo
			} else {
				wlo := c.scaled(Node(nd.lo), flo)
				sum := c.scaled(Node(nd.hi), fhi)
				high = randBelow(rng, sum.Add(sum, wlo)).Cmp(wlo) >= 0
			}
		}
		x[nd.level] = high
		if high {
			v.randomFree(x, nd.level+1, hc, rng)
			n = Node(nd.hi)
		} else {
			v.randomFree(x, nd.level+1, lc, rng)
			n = Node(nd.lo)
		}
	}
	return byVar(p.m, x), true
}

// randomFree draws the free levels in [from, to) of x uniformly.
func (v view) randomFree(x []bool, from, to uint32, rng *rand.Rand) {
	var bits uint64
	var left int
	for l := from; l < to; l++ {
		if v.val[l] != Unassigned {
			continue
		}
		if left == 0 {
			bits, left = rng.Uint64(), 64
		}
		x[l] = bits&1 != 0
		bits >>= 1
		left--
	}
}

// randBelow returns a uniform random integer in [0, n), n > 0, by
// rejection: random bits as long as n's, drawn until below n.
func randBelow(rng *rand.Rand, n *big.Int) *big.Int {
	bitLen := n.BitLen()
	words := make([]big.Word, (bitLen+63)/64)
	r := new(big.Int)
	for {
		for i := range words {
			words[i] = big.Word(rng.Uint64())
		}
		if extra := len(words)*64 - bitLen; extra > 0 {
			words[len(words)-1] >>= extra
		}
		if r.SetBits(words).Cmp(n) < 0 {
			return r
		}
	}
}

// Solutions returns an iterator over the assignments of all variables that
// satisfy f and agree with a, in lexicographic order of the levels (false
// before true). Each solution is a fresh slice the caller may keep. Free variables
// skipped by an edge take both values, so a diagram of few paths can still
// have very many solutions: stop early by breaking out of the loop.
func (m *Manager) Solutions(f Node, a Assignment) iter.Seq[[]bool] {
	v := m.view(a)
	return func(yield func([]bool) bool) {
		s := m.getPartScratch()
		defer m.putPartScratch(s)
		// known memoises whether a node has a path to True that agrees
		// with a (1) or not (0), for the nodes met.
		known := &s.ids
		known.reset()
		var alive func(n Node) bool
		alive = func(n Node) bool {
			if n <= True {
				return n == True
			}
			if k, ok := known.get(n); ok {
				return k == 1
			}
			nd := m.nodes[n]
			val := v.val[nd.level]
			ok := val != 1 && alive(Node(nd.lo)) || val != 0 && alive(Node(nd.hi))
			k := int32(0)
			if ok {
				k = 1
			}
			known.put(n, k)
			return ok
		}
		x := v.initial()
		// walk enumerates the free levels from..(n's level) that edges
		// skip, then n's own branches.
		var walk func(from uint32, n Node) bool
		walk = func(from uint32, n Node) bool {
			nd := m.nodes[n]
			for ; from < nd.level; from++ {
				if v.val[from] == Unassigned {
					x[from] = false
					if !walk(from+1, n) {
						return false
					}
					x[from] = true
					ok := walk(from+1, n)
					x[from] = false
					return ok
				}
			}
			if n == True {
				if m.varAt == nil {
					return yield(append([]bool(nil), x...))
				}
				return yield(byVar(m, x))
			}
			val := v.val[nd.level]
			if val != 1 && alive(Node(nd.lo)) {
				x[nd.level] = false
				if !walk(nd.level+1, Node(nd.lo)) {
					return false
				}
			}
			if val != 0 && alive(Node(nd.hi)) {
				x[nd.level] = true
				ok := walk(nd.level+1, Node(nd.hi))
				x[nd.level] = val == 1
				if !ok {
					return false
				}
			}
			return true
		}
		if alive(f) {
			walk(0, f)
		}
	}
}
