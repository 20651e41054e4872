package robdd

import "math"

// A solution with the fewest (or the most) variables true is a shortest
// (longest) path of the diagram, an edge to the high child weighing one
// and each free level an edge skips weighing nothing (it is set false) or,
// for the most, one (set true). Variables the assignment sets weigh the
// same on every path, so the sweep weighs only the free ones: one sweep
// up the Part, children first, keeps each node's best weight below it
// and the branch that reaches it, and one walk down follows the branches.

// noPath marks a node of the Part with no path to True under its view.
const noPath = math.MaxUint64

// branchHigh is the bit of an extreme's entry that says the best path
// takes the high branch; the weight is in the bits below.
const branchHigh = 1 << 32

// ExtremeSat returns an assignment of all variables that satisfies f,
// agrees with a and sets the fewest variables true (most: the most), and
// the number of variables it sets true; false when there is none. Among
// the assignments of that weight it takes the low branch first. It takes
// one sweep up f's Part under a and one walk down, and only reads the
// Manager.
func (m *Manager) ExtremeSat(f Node, a Assignment, most bool) ([]bool, int, bool) {
	p := m.part(f, a)
	defer p.Release()
	return p.ExtremeSat(most)
}

// ExtremeSat is Manager.ExtremeSat over the Part.
func (p *Part) ExtremeSat(most bool) ([]bool, int, bool) {
	nodes, val, free := p.nodes, p.v.val, p.v.free
	// best[i] is noPath, or the weight of node i's best path to True
	// (the free levels from its own down) with branchHigh when it takes
	// the high branch. The Part's count array is the work space.
	best := resized(p.s.u64a, len(nodes))
	p.s.u64a = best
	best[False] = noPath
	if len(nodes) > int(True) {
		best[True] = 0
	}
	// skipped weighs the free levels strictly between a node at level l
	// and its child at level lc.
	skipped := func(l, lc uint32) uint64 {
		if !most {
			return 0
		}
		return uint64(free[lc] - free[l+1])
	}
	better := func(x, y uint64) bool {
		if most {
			return x > y
		}
		return x < y
	}
	for i := 2; i < len(nodes); i++ {
		n := nodes[i]
		pick := uint64(noPath)
		if val[n.level] != 1 && best[n.lo] != noPath {
			pick = best[n.lo]&(branchHigh-1) + skipped(n.level, nodes[n.lo].level)
		}
		if val[n.level] != 0 && best[n.hi] != noPath {
			w := best[n.hi]&(branchHigh-1) + skipped(n.level, nodes[n.hi].level)
			if val[n.level] == Unassigned {
				w++
			}
			if pick == noPath || better(w, pick) {
				pick = w | branchHigh
			}
		}
		best[i] = pick
	}
	root := p.root()
	if best[root] == noPath {
		return nil, 0, false
	}
	x := p.v.initial()
	fill := func(from, to uint32) {
		for l := from; l < to; l++ {
			if val[l] == Unassigned {
				x[l] = most
			}
		}
	}
	fill(0, nodes[root].level)
	for n := root; n > True; {
		nd := nodes[n]
		high := best[n]&branchHigh != 0
		x[nd.level] = high
		next := Node(nd.lo)
		if high {
			next = Node(nd.hi)
		}
		fill(nd.level+1, nodes[next].level)
		n = next
	}
	ones := 0
	for _, on := range x {
		if on {
			ones++
		}
	}
	return byVar(p.m, x), ones, true
}
