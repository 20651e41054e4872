package robdd

import "math"

// A solution with the fewest (or the most) variables true is a shortest
// (longest) path of the diagram, an edge to the high child weighing one
// and each free level an edge skips weighing nothing (it is set false) or,
// for the most, one (set true). More generally each variable weighs one
// amount set true and another set false, and a skipped free level takes
// the lighter (heavier) of the two. Variables the assignment sets weigh
// the same on every path, so the sweep weighs only the free ones: one
// sweep up the Part, children first, keeps each node's best weight below
// it and the branch that reaches it, and one walk down follows the
// branches.

// noPath marks a node of the Part with no path to True under its view.
const noPath = math.MaxUint64

// branchHigh is the bit of an extreme's entry that says the best path
// takes the high branch; the weight is in the bits below.
const branchHigh = 1 << 32

// Weights weighs the values of the variables for ExtremeSat: Weights[v][1]
// is what variable v weighs set true, Weights[v][0] set false. The
// weights of a solution, summed, must stay below 1<<32.
type Weights [][2]uint32

// ExtremeSat returns an assignment of all variables that satisfies f,
// agrees with a and sets the fewest variables true (most: the most), and
// the number of variables it sets true; false when there is none. Among
// the assignments of that weight it takes the low branch first. It takes
// one sweep up f's Part under a and one walk down, and only reads the
// Manager.
func (m *Manager) ExtremeSat(f Node, a Assignment, most bool) ([]bool, int, bool) {
	p := m.part(f, a)
	defer p.Release()
	return p.ExtremeSat(most, nil)
}

// ExtremeSat is Manager.ExtremeSat over the Part, each variable weighing
// as w says (nil: one set true, nothing set false); the weight returned
// is the solution's.
func (p *Part) ExtremeSat(most bool, w Weights) ([]bool, int, bool) {
	nodes, val := p.nodes, p.v.val
	// lw is the weights by level; pick[l] the value a free level that
	// an edge skips takes, and skip[l] the weight of those above l.
	lw := make([][2]uint64, len(val))
	for l := range lw {
		lw[l] = [2]uint64{0, 1}
		if w != nil {
			x := w[p.m.VarAt(l)]
			lw[l] = [2]uint64{uint64(x[0]), uint64(x[1])}
		}
	}
	better := func(x, y uint64) bool {
		if most {
			return x > y
		}
		return x < y
	}
	pick := make([]bool, len(val))
	skip := make([]uint64, len(val)+1)
	for l := range val {
		skip[l+1] = skip[l]
		if val[l] == Unassigned {
			pick[l] = better(lw[l][1], lw[l][0]) || lw[l][1] == lw[l][0] && most
			skip[l+1] += lw[l][btoi(pick[l])]
		}
	}
	// best[i] is noPath, or the weight of node i's best path to True
	// (the free levels from its own down) with branchHigh when it takes
	// the high branch. The Part's count array is the work space.
	best := resized(p.s.u64a, len(nodes))
	p.s.u64a = best
	best[False] = noPath
	if len(nodes) > int(True) {
		best[True] = 0
	}
	for i := 2; i < len(nodes); i++ {
		n := nodes[i]
		at := uint64(noPath)
		if val[n.level] != 1 && best[n.lo] != noPath {
			at = best[n.lo]&(branchHigh-1) + skip[nodes[n.lo].level] - skip[n.level+1]
			if val[n.level] == Unassigned {
				at += lw[n.level][0]
			}
		}
		if val[n.level] != 0 && best[n.hi] != noPath {
			x := best[n.hi]&(branchHigh-1) + skip[nodes[n.hi].level] - skip[n.level+1]
			if val[n.level] == Unassigned {
				x += lw[n.level][1]
			}
			if at == noPath || better(x, at) {
				at = x | branchHigh
			}
		}
		best[i] = at
	}
	root := p.root()
	if best[root] == noPath {
		return nil, 0, false
	}
	x := p.v.initial()
	fill := func(from, to uint32) {
		for l := from; l < to; l++ {
			if val[l] == Unassigned {
				x[l] = pick[l]
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
	weight := 0
	for l, on := range x {
		weight += int(lw[l][btoi(on)])
	}
	return byVar(p.m, x), weight, true
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
