package robdd

import "math/big"

// Domain is the set of values a variable can still take: CanBeFalse,
// CanBeTrue, both, or neither (no solution at all).
type Domain uint8

// The values of a Domain.
const (
	CanBeFalse Domain = 1 << iota
	CanBeTrue
)

// ValidDomains returns, for every variable, the values it takes in the
// assignments that satisfy f and agree with a: the valid domains of
// interactive configuration. An assigned variable has its value as domain;
// when no assignment satisfies f and a, every domain is empty. It also
// returns the number of those assignments, Count(f, a), which the sweep up
// computes anyway.
//
// This is CVD of Hadzic, Jensen and Andersen, "Calculating Valid Domains
// for BDD-Based Interactive Configuration", on the unrestricted diagram:
// one sweep up counts, for every node, the paths to True that agree with a
// (a node is live when it has one), one sweep down marks the live nodes
// that the root reaches through live nodes, and every edge between two
// marked nodes contributes its value to its node's level and both values
// to the levels it skips. The skipped ranges go into a difference array
// over levels, so the time does not depend on the edge lengths. Both
// sweeps visit f's Part under a (see part): only the nodes a allows from
// f, unless they are most of the diagram, where they sweep the ids up to f
// instead. It only reads the Manager.
func (m *Manager) ValidDomains(f Node, a Assignment) (dom []Domain, count *big.Int) {
	p := m.part(f, a)
	defer p.Release()
	return p.ValidDomains()
}

// ValidDomains is Manager.ValidDomains over the Part.
func (p *Part) ValidDomains() (dom []Domain, count *big.Int) {
	c := p.countUp(true)
	dom = make([]Domain, len(p.v.val))
	r := p.root()
	total := c.scaled(r, p.v.free[p.nodes[r].level])
	if c.cnt[r] == 0 {
		return dom, total
	}
	p.markDomains(dom, &c)
	return byVar(p.m, dom), total
}

// markDomains is the sweep down of ValidDomains, writing dom by level,
// given the counts of
// countUp (cnt[i] != 0 says whether node i is live): the Part's nodes,
// parents first.
func (p *Part) markDomains(dom []Domain, up *counts) {
	cnt := up.cnt
	val := p.v.val
	nodes := p.nodes
	root := p.root()
	reached := resized(p.s.flags, len(nodes))
	p.s.flags = reached
	clear(reached)
	// both[l] - both[l-1] edges skip level l: it can take both values.
	both := make([]int32, len(val)+1)
	rootLevel := nodes[root].level
	both[0]++
	both[rootLevel]--
	reached[root] = 1
	for i := int(root); i >= 2; i-- {
		if reached[i] == 0 || cnt[i] == 0 {
			continue
		}
		n := nodes[i]
		x := val[n.level]
		if x != 1 && cnt[n.lo] != 0 {
			reached[n.lo] = 1
			dom[n.level] |= CanBeFalse
			both[n.level+1]++
			both[nodes[n.lo].level]--
		}
		if x != 0 && cnt[n.hi] != 0 {
			reached[n.hi] = 1
			dom[n.level] |= CanBeTrue
			both[n.level+1]++
			both[nodes[n.hi].level]--
		}
	}
	var run int32
	for l := range dom {
		run += both[l]
		switch val[l] {
		case 0:
			dom[l] = CanBeFalse
		case 1:
			dom[l] = CanBeTrue
		default:
			if run > 0 {
				dom[l] = CanBeFalse | CanBeTrue
			}
		}
	}
}
