package robdd

import (
	"math/bits"
	"slices"
)

// A query under a partial assignment only ever reaches the nodes below its
// root along the edges the assignment allows: its part of the diagram. On
// a large diagram with a few variables assigned that part is a small
// fraction of the whole, so the queries gather it first and sweep only it:
// a copy of the part's nodes renumbered densely, children first, so that
// the sweeps keep their flat loops over small arrays. Gathering marks the
// part in a two-level bit set over the node ids (marks), kept from query
// to query and left empty by each, so that nothing the size of the
// diagram is allocated or cleared per query and the work is the part's
// plus one word per 4096 ids. When the part is most of the diagram, the
// sweep over every id up to the root in order is faster, and the queries
// do that instead (Whole).

// A Part is the part of a diagram that the read-only queries of a root
// under a partial assignment visit, gathered once and then swept by any
// of its query methods (ValidDomains, Count, Marginals, RandomSat). It
// holds work space from its Manager until Release. A Part is not safe for
// concurrent use; distinct Parts of one Manager are.
type Part struct {
	m *Manager
	// nodes are the nodes the sweeps visit, children before parents:
	// nodes[0] and nodes[1] are the terminals and the root is last. Of a
	// gathered part they are a copy whose lo and hi are indices into
	// nodes (an edge the assignment forbids leads to False); of a whole
	// one they are the Manager's own ids 0..root.
	nodes []node
	v     view
	s     *scratch
	whole bool
}

// partBytesPerNode is the work space a gathered Part takes per node: its
// copy (16 bytes, in an array that grows by doubling as the pass down
// meets nodes: up to twice the part, and the arrays it outgrew as much
// again, 48 bytes in all) and the sweeps' count, paths and flag (8, 8 and
// 1).
const partBytesPerNode = 65

// wholeBytesPerNode is the work space a Whole Part's sweeps hold per id up
// to the root: a count, paths and a flag.
const wholeBytesPerNode = 17

// PartBytes is the work space a gathered Part of root f holds when it has
// the given number of nodes, at most: the part's own arrays and the bit
// sets over f's ids that gathering reuses from query to query (1.5 bits an
// id).
func (m *Manager) PartBytes(f Node, nodes int) int64 {
	return partBytesPerNode*int64(nodes+2) + marksBytes(int(f)+1)
}

// WholeBytes is the work space a Whole Part of root f holds, at most.
func (m *Manager) WholeBytes(f Node) int64 { return wholeBytesPerNode * (int64(f) + 1) }

// PartLimit is the most nodes worth gathering into a Part of root f: past
// it, Whole sweeps faster than gathering and sweeping the part. The query
// methods of the Manager take it as their limit.
func (m *Manager) PartLimit(f Node) int { return int(f) / 5 }

// Part gathers the part of f's diagram that a allows: f, and the children
// of gathered nodes along the edges a allows, terminals aside. It returns
// false, having held no more than PartBytes(f, limit), once the part
// exceeds limit nodes, and at once when a assigns nothing (the part is
// then f's whole diagram, which Whole sweeps faster). It takes time linear
// in the part (and one word per 4096 ids) and only reads the Manager.
func (m *Manager) Part(f Node, a Assignment, limit int) (*Part, bool) {
	v := m.view(a)
	if f > True && v.free[len(v.val)] == int32(len(v.val)) {
		return nil, false
	}
	s := m.getPartScratch()
	nodes, ok := m.gather(f, v, s, limit)
	if !ok {
		m.putPartScratch(s)
		return nil, false
	}
	return &Part{m: m, nodes: nodes, v: v, s: s}, true
}

// Whole returns the Part of f under a that sweeps every id from 2 up to f,
// children first (ids are topological): the fastest sweep when a allows
// most of f's diagram. It holds WholeBytes(f) of work space.
func (m *Manager) Whole(f Node, a Assignment) *Part {
	return &Part{m: m, nodes: m.nodes[:f+1], v: m.view(a), s: m.getScratch(), whole: true}
}

// part returns the Part of f under a that the Manager's query methods
// sweep: gathered up to PartLimit nodes, whole past them.
func (m *Manager) part(f Node, a Assignment) *Part {
	if p, ok := m.Part(f, a, m.PartLimit(f)); ok {
		return p
	}
	return m.Whole(f, a)
}

// Visited is the number of decision nodes the Part's sweeps visit: those
// gathered, or every id from 2 up to the root.
func (p *Part) Visited() int { return len(p.nodes) - 2 }

// Bytes is the work space the Part holds now.
func (p *Part) Bytes() int64 { return p.s.bytes() }

// Release gives the Part's work space back to its Manager; the Part must
// not be used afterwards.
func (p *Part) Release() {
	if p.s == nil {
		return
	}
	if p.whole {
		p.m.putScratch(p.s)
	} else {
		p.m.putPartScratch(p.s)
	}
	p.s = nil
}

// root is the Part's root, in its own numbering.
func (p *Part) root() Node { return Node(len(p.nodes) - 1) }

// gather copies into s.local the part of f's diagram that v allows (see
// Part), renumbered densely after the two terminals in the order of the
// ids, which is children first. A pass down the ids from f marks the part
// and copies each marked node as it meets it: a marked node marks the
// children its allowed edges reach (they have smaller ids, so the pass
// meets them later). The copies, in descending order, are then reversed
// and their children renumbered, a child's new id being the number of
// marked ids below it (its rank), by sequential passes over the copy and
// the marks: the diagram itself is read once, at the marked nodes only.
// It gives up, returning false, once it has marked more than limit nodes.
// Either way it leaves the marks empty.
//
// The reads of the marked nodes are the cost: on a large diagram each is
// a miss of every cache. So the pass goes a level at a time (gatherLevels)
// when the diagram's ids are grouped by level, deepest first, as the
// compilers and Load make them: the marked nodes of one level are all
// known before any of them is read, so it copies them in one tight loop of
// independent loads, which the processor overlaps, and marks their
// children after. Other diagrams (or a level that breaks the grouping)
// take the pass one node at a time (gatherEach).
func (m *Manager) gather(f Node, v view, s *scratch, limit int) ([]node, bool) {
	terminal := node{level: uint32(m.vars)}
	local := append(s.local[:0], terminal, terminal)
	defer func() { s.local = local[:0] }()
	if f <= True {
		return local[:f+1], true
	}
	mk := &s.marks
	mk.fit(int(f) + 1)
	defer mk.empty()
	mk.mark(uint32(f))
	var ok, grouped bool
	if local, ok, grouped = m.gatherLevels(f, v, mk, local, limit); !grouped {
		mk.empty()
		mk.mark(uint32(f))
		local, ok = m.gatherEach(f, v, mk, local[:2], limit)
	}
	if !ok {
		return nil, false
	}
	mk.renumber(local)
	return local, true
}

// renumber turns the copies of a pass down, in descending order of their
// ids, into the part: ascending, and their children renumbered by the
// marks.
func (mk *marks) renumber(local []node) {
	slices.Reverse(local[2:])
	bitsOf, rank := mk.bits, mk.rank
	// rank[w] is the new id of the first marked id of word w: the copies
	// are in ascending order, so a pass over them counts.
	last := ^uint32(0)
	for i := 2; i < len(local); i++ {
		if w := local[i].next / 64; w != last {
			rank[w], last = uint32(i), w
		}
	}
	newID := func(c uint32) uint32 {
		if c <= uint32(True) {
			return c
		}
		w := c / 64
		return rank[w] + uint32(bits.OnesCount64(bitsOf[w]&(1<<(c%64)-1)))
	}
	for i := 2; i < len(local); i++ {
		n := &local[i]
		n.lo, n.hi = newID(n.lo), newID(n.hi)
	}
}

// gatherLevels is gather's pass down, a level at a time, from the root's
// level down: it copies every marked id of the level (its ids as
// levelStarts has them, up to f), then marks their allowed children. That
// is sound as long as every child it marks lies below the level's first
// id, so that none was left out of a copy, and no marked id is left when
// the levels are done; it reports grouped false, having copied an
// unfinished part, as soon as either fails. The copies keep their edges'
// old ids, a forbidden one leading to False, and their own in next.
func (m *Manager) gatherLevels(f Node, v view, mk *marks, local []node, limit int) (_ []node, ok, grouped bool) {
	nodes := m.nodes
	val := v.val
	bitsOf, sum := mk.bits, mk.sum
	start := mk.levelStarts(nodes)
	top := uint32(f)
	for l := nodes[f].level; l < uint32(m.vars) && top > uint32(True); l++ {
		first := start[l]
		if first > top {
			continue // no node of level l below f
		}
		copied := len(local)
		// The marked ids of the level, descending, then their copies: a
		// loop of independent loads and little else, so that many are
		// in flight at once.
		ids := mk.level[:0]
		for k := int(top / 4096); k >= int(first/4096); k-- {
			words := sum[k]
			if k == int(top/4096) {
				words &= 2<<(top/64%64) - 1
			}
			if k == int(first/4096) {
				words &^= 1<<(first/64%64) - 1
			}
			for words != 0 {
				j := 63 - bits.LeadingZeros64(words)
				words &^= 1 << j
				w := 64*k + j
				x := bitsOf[w]
				if w == int(top/64) {
					x &= 2<<(top%64) - 1
				}
				if w == int(first/64) {
					x &^= 1<<(first%64) - 1
				}
				for x != 0 {
					b := 63 - bits.LeadingZeros64(x)
					x &^= 1 << b
					ids = append(ids, uint32(64*w+b))
				}
			}
		}
		mk.level = ids
		if len(local)-2+len(ids) > limit {
			return local, false, true
		}
		local = slices.Grow(local, len(ids))[:copied+len(ids)]
		copies := local[copied:]
		for i, id := range ids {
			copies[i] = nodes[id]
		}
		for i, id := range ids {
			copies[i].next = id
		}
		// Their children, in the copies.
		for i := copied; i < len(local); i++ {
			c := &local[i]
			x8 := val[c.level]
			switch {
			case x8 == 1:
				c.lo = uint32(False)
			case c.lo >= first:
				return local, false, false
			case c.lo > uint32(True):
				mk.mark(c.lo)
			}
			switch {
			case x8 == 0:
				c.hi = uint32(False)
			case c.hi >= first:
				return local, false, false
			case c.hi > uint32(True):
				mk.mark(c.hi)
			}
		}
		top = first - 1
	}
	if top > uint32(True) {
		if _, left := mk.highest(top); left {
			return local, false, false
		}
	}
	return local, true, true
}

// gatherEach is gather's pass down, one marked node at a time, for
// diagrams whose ids are not grouped by level.
func (m *Manager) gatherEach(f Node, v view, mk *marks, local []node, limit int) ([]node, bool) {
	bitsOf, sum := mk.bits, mk.sum
	val := v.val
	nodes := m.nodes
	for k := int(f) / 64 / 64; k >= 0; k-- {
		for below := ^uint64(0); ; {
			words := sum[k] & below
			if words == 0 {
				break
			}
			j := 63 - bits.LeadingZeros64(words)
			below = 1<<j - 1
			w := 64*k + j
			for left := ^uint64(0); ; {
				x := bitsOf[w] & left
				if x == 0 {
					break
				}
				b := 63 - bits.LeadingZeros64(x)
				left = 1<<b - 1
				if len(local)-2 == limit {
					return nil, false
				}
				g := 64*w + b
				n := nodes[g]
				x8 := val[n.level]
				c := node{level: n.level, next: uint32(g)}
				if x8 != 1 {
					c.lo = n.lo
					if n.lo > uint32(True) {
						mk.mark(n.lo)
					}
				}
				if x8 != 0 {
					c.hi = n.hi
					if n.hi > uint32(True) {
						mk.mark(n.hi)
					}
				}
				local = append(local, c)
			}
		}
	}
	return local, true
}

// marks is a two-level bit set over node ids: bit i%64 of bits[i/64] marks
// id i, bit w%64 of sum[w/64] says that bits[w] is not zero, and rank[w]
// is gather's count of the marked ids below word w. It only grows, and
// every query leaves it empty (see empty), so a query clears only the
// words it marked.
type marks struct {
	bits, sum []uint64
	rank      []uint32
	// start are the levelStarts of a diagram of ids ids.
	start []uint32
	ids   int
	// level holds the marked ids of one level as gatherLevels copies them.
	level []uint32
}

// mark marks id c.
func (mk *marks) mark(c uint32) {
	w := c / 64
	if mk.bits[w] == 0 {
		mk.sum[w/64] |= 1 << (w % 64)
	}
	mk.bits[w] |= 1 << (c % 64)
}

// highest returns the highest marked id at most top, if any.
func (mk *marks) highest(top uint32) (uint32, bool) {
	w := int(top / 64)
	if x := mk.bits[w] & (2<<(top%64) - 1); x != 0 {
		return uint32(64*w + 63 - bits.LeadingZeros64(x)), true
	}
	for k := w / 64; k >= 0; k-- {
		words := mk.sum[k]
		if k == w/64 {
			words &= 1<<(w%64) - 1
		}
		if words != 0 {
			w := 64*k + 63 - bits.LeadingZeros64(words)
			return uint32(64*w + 63 - bits.LeadingZeros64(mk.bits[w])), true
		}
	}
	return 0, false
}

// levelStarts returns, for every level l, the first id from 2 on whose
// level is at most l (len(nodes) if none): where ids are grouped by level,
// deepest first, the first id of level l, and the ids of level l run up to
// the first of level l-1. It finds them by binary search, once for as long
// as the diagram has as many ids. Where the ids are not so grouped the
// answers mean nothing, which gatherLevels finds out.
func (mk *marks) levelStarts(nodes []node) []uint32 {
	if mk.ids == len(nodes) {
		return mk.start
	}
	vars := nodes[False].level
	mk.start = make([]uint32, vars+1)
	for l := range vars + 1 {
		lo, hi := uint32(True)+1, uint32(len(nodes)) // the answer is in [lo, hi]
		for lo < hi {
			mid := lo + (hi-lo)/2
			if nodes[mid].level <= l {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		mk.start[l] = lo
	}
	mk.ids = len(nodes)
	return mk.start
}

// marksBytes is the memory of marks over ids ids: 12 bytes a word of 64
// ids, and a word of sum per 4096.
func marksBytes(ids int) int64 {
	words := (ids + 63) / 64
	return 12*int64(words) + 8*int64((words+63)/64)
}

// fit makes room for ids ids.
func (mk *marks) fit(ids int) {
	words := (ids + 63) / 64
	if len(mk.bits) < words {
		mk.bits = make([]uint64, words)
		mk.rank = make([]uint32, words)
		mk.sum = make([]uint64, (words+63)/64)
	}
}

// empty clears the words marked, by the summary.
func (mk *marks) empty() {
	for k, words := range mk.sum {
		if words == 0 {
			continue
		}
		for ; words != 0; words &= words - 1 {
			mk.bits[64*k+bits.TrailingZeros64(words)] = 0
		}
		mk.sum[k] = 0
	}
}

// nodeMap maps node ids to int32 values by open addressing with linear
// probing: an entry holds the id in its high 32 bits and the value in its
// low 32, and 0 is empty (no decision node has id 0). It doubles to stay
// at most half full, so its memory follows the entries it holds, and reset
// clears only the table in use.
type nodeMap struct {
	slots []uint64
	spare []uint64 // the array of the table before the last growth
	n     int
	shift uint8 // 64 - log2(len(slots))
}

const minMapSlots = 64

func (t *nodeMap) reset() {
	if cap(t.slots) < minMapSlots {
		t.slots = make([]uint64, minMapSlots)
	}
	t.slots = t.slots[:minMapSlots]
	clear(t.slots)
	t.n = 0
	t.shift = uint8(64 - bits.TrailingZeros(minMapSlots))
}

func (t *nodeMap) slot(k Node) int {
	return int((uint64(k) * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns k's value and whether k is in the map.
func (t *nodeMap) get(k Node) (int32, bool) {
	mask := len(t.slots) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if Node(e>>32) == k {
			return int32(uint32(e)), true
		}
	}
}

// put sets k's value.
func (t *nodeMap) put(k Node, v int32) {
	e := uint64(k)<<32 | uint64(uint32(v))
	mask := len(t.slots) - 1
	for i := t.slot(k); ; i = (i + 1) & mask {
		switch old := t.slots[i]; {
		case old == 0:
			t.slots[i] = e
			if t.n++; 2*t.n > len(t.slots) {
				t.grow()
			}
			return
		case Node(old>>32) == k:
			t.slots[i] = e
			return
		}
	}
}

// grow doubles the table, rehashing into the array an earlier table of
// the map left behind when it is large enough.
func (t *nodeMap) grow() {
	old := t.slots
	size := 2 * len(old)
	fresh := t.spare[:0]
	if cap(fresh) < size {
		fresh = make([]uint64, size)
	}
	fresh = fresh[:size]
	clear(fresh)
	t.shift--
	mask := size - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := int((uint64(e>>32) * 0x9E3779B97F4A7C15) >> t.shift)
		for fresh[i] != 0 {
			i = (i + 1) & mask
		}
		fresh[i] = e
	}
	t.slots, t.spare = fresh, old[:0]
}

// bytes is the memory the map's arrays hold.
func (t *nodeMap) bytes() int64 { return 8 * int64(cap(t.slots)+cap(t.spare)) }
