package robdd

import "math/bits"

// Compact collects garbage: it keeps only the nodes that the given roots
// reach, renumbers them densely in their old order (so children keep
// smaller ids than their parents, and canonicity holds), rebuilds the
// unique table and clears the operation cache. It returns the roots'
// new ids, in the order given, and renumbers the held roots (see Hold),
// which it keeps too. Every other Node of m is invalid afterwards.
//
// Compaction rather than a free list keeps node ids topological and the
// store a dense prefix of its slice, which the read-only sweeps need. It
// works in place, with one mark bit and a rank counter per 64 nodes of
// extra memory. When the survivors fill less than a quarter of the store's
// capacity, the store and the table shrink to fit, returning memory.
func (m *Manager) Compact(roots ...Node) []Node {
	return m.compact(2, roots)
}

// CompactFrom is Compact sparing every node below base: those keep their
// ids whatever the roots. A build that takes base = Size() when it starts
// can so collect its own garbage, or drop every node it made (no roots),
// without invalidating the nodes its caller holds.
func (m *Manager) CompactFrom(base int, roots ...Node) []Node {
	return m.compact(max(base, 2), roots)
}

func (m *Manager) compact(base int, roots []Node) []Node {
	n := len(m.nodes)
	out := make([]Node, len(roots), len(roots)+len(m.held))
	copy(out, roots)
	if base >= n {
		return out
	}
	// The held roots are kept too, and renumbered with the others.
	given := len(roots)
	out = append(out, m.held...)
	roots = out
	words := (n + 63) / 64
	mark := make([]uint64, words)
	for _, r := range roots {
		if int(r) >= base {
			mark[r/64] |= 1 << (r % 64)
		}
	}
	// Parents have larger ids than their children: one sweep downwards
	// marks everything reachable.
	for i := n - 1; i >= base; i-- {
		if mark[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		nd := &m.nodes[i]
		if int(nd.lo) >= base {
			mark[nd.lo/64] |= 1 << (nd.lo % 64)
		}
		if int(nd.hi) >= base {
			mark[nd.hi/64] |= 1 << (nd.hi % 64)
		}
	}
	// rank[w] counts the marked nodes in words before w: a marked node's
	// new id is base plus the marked nodes below it.
	rank := make([]uint32, words)
	var total uint32
	for w := range mark {
		if w*64+63 < base {
			continue
		}
		rank[w] = total
		total += uint32(bits.OnesCount64(mark[w]))
	}
	newID := func(id uint32) uint32 {
		if int(id) < base {
			return id
		}
		w, b := id/64, id%64
		return uint32(base) + rank[w] + uint32(bits.OnesCount64(mark[w]&(1<<b-1)))
	}
	j := base
	for i := base; i < n; i++ {
		if mark[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		nd := m.nodes[i]
		m.nodes[j] = node{level: nd.level, lo: newID(nd.lo), hi: newID(nd.hi)}
		j++
	}
	for k, r := range out {
		out[k] = Node(newID(uint32(r)))
	}
	m.nodes = m.nodes[:j]
	m.fit()
	m.cache.clear()
	copy(m.held, out[given:])
	return out[:given]
}
