package bdd

// Domain is the set of values a variable can still take: CanBeFalse,
// CanBeTrue, both, or neither (no solution at all).
type Domain uint8

// The values of a Domain.
const (
	CanBeFalse Domain = 1 << iota
	CanBeTrue
)

// Flags of the valid-domain sweeps, one byte per node.
const (
	live    = 1 << iota // some path from the node to True agrees with the assignment
	reached             // some such path from the root reaches the node
)

// ValidDomains returns, for every level, the values its variable takes in
// the assignments that satisfy f and agree with a: the valid domains of
// interactive configuration. An assigned variable has its value as domain;
// when no assignment satisfies f and a, every domain is empty.
//
// This is CVD of Hadzic, Jensen and Andersen, "Calculating Valid Domains
// for BDD-Based Interactive Configuration", on the unrestricted diagram:
// one sweep up marks the nodes with a path to True that agrees with a, one
// sweep down marks those that the root reaches through such nodes, and
// every edge between two marked nodes contributes its value to its node's
// level and both values to the levels it skips. The skipped ranges go into
// a difference array over levels, so the time is linear in f's id whatever
// the edge lengths. It only reads the Manager.
func (m *Manager) ValidDomains(f Node, a Assignment) []Domain {
	v := m.view(a)
	val := v.val
	dom := make([]Domain, m.vars)
	s := m.getScratch()
	defer m.putScratch(s)
	flags := resized(s.bytes, int(f)+1)
	s.bytes = flags
	nodes := m.nodes[:f+1]
	flags[False] = 0
	if f >= True {
		flags[True] = live
	}
	for i := 2; i < len(nodes); i++ {
		n := nodes[i]
		var fl byte
		switch val[n.level] {
		case 0:
			fl = flags[n.lo]
		case 1:
			fl = flags[n.hi]
		default:
			fl = flags[n.lo] | flags[n.hi]
		}
		flags[i] = fl & live
	}
	if flags[f] == 0 {
		return dom
	}
	// both[l] - both[l-1] edges skip level l: it can take both values.
	both := make([]int32, m.vars+1)
	rootLevel := nodes[f].level
	both[0]++
	both[rootLevel]--
	flags[f] |= reached
	for i := int(f); i >= 2; i-- {
		if flags[i] != live|reached {
			continue
		}
		n := nodes[i]
		x := val[n.level]
		if x != 1 && flags[n.lo] != 0 {
			flags[n.lo] |= reached
			dom[n.level] |= CanBeFalse
			both[n.level+1]++
			both[nodes[n.lo].level]--
		}
		if x != 0 && flags[n.hi] != 0 {
			flags[n.hi] |= reached
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
	return dom
}
