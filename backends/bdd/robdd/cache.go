package robdd

import "math/bits"

// The operation tags of the computed cache: what an entry holds in c for
// the operations other than ITE (see cacheEntry), values no node id
// reaches (ids stay below maxIDs = opFirst).
const (
	opFirst uint32 = 0xFFFF_FF00 + iota
	opAnd
	opOr
	opXor
	opImp
	opNot
	opRestrict
	opExists
)

// cacheRatio is how many bucket heads of the unique table there are per
// cache entry (see the memory figures in the package documentation).
const cacheRatio = 4

// minCache is the smallest cache, in entries.
const minCache = 1 << 10

// cacheEntry is one entry of the computed cache, which remembers results
// of the operations: four 32-bit words, the operands a, b, c and the
// result r. ITE stores its three operands; the other operations store
// their tag in c:
//
//	And, Or, Xor, Imp:  a, b = operands       c = tag
//	Not:                a = operand, b = 0    c = opNot
//	Restrict, Exists:   a = operand, b = gen  c = tag
//
// Restrict and Exists depend on an argument besides the node (the
// assignment, the quantified levels), so every call takes a fresh
// generation number gen and finds only its own entries. An all-zero entry
// reads as ITE(False, False, False) = False, which is true, so a cleared
// cache needs no valid bits.
type cacheEntry struct {
	a, b, c, r uint32
}

// opCache is a direct-mapped, lossy computed table: a new entry overwrites
// whatever shared its slot. Its length is zero (not yet allocated) or a
// power of two.
type opCache struct {
	entries []cacheEntry
	shift   uint8 // 64 - log2(len(entries))
}

func (c *opCache) bytes() int64 { return int64(len(c.entries)) * 16 }

// alloc makes an empty cache of n entries (a power of two).
func (c *opCache) alloc(n int) {
	n = max(n, minCache)
	c.entries = make([]cacheEntry, n)
	c.shift = uint8(64 - bits.TrailingZeros(uint(n)))
}

// resize reallocates an existing cache to n entries; results are lost. A
// cache not yet allocated stays so.
func (c *opCache) resize(n int) {
	if len(c.entries) == 0 || max(n, minCache) == len(c.entries) {
		return
	}
	c.alloc(n)
}

// clear forgets every entry (Compact renumbers nodes).
func (c *opCache) clear() { clear(c.entries) }

func (c *opCache) slot(a, b, op uint32) *cacheEntry {
	h := (uint64(a)*0x9E3779B97F4A7C15 + uint64(b)) * 0xC2B2AE3D27D4EB4F
	h ^= uint64(op) * 0x165667B19E3779F9
	return &c.entries[h>>c.shift]
}

func (c *opCache) lookup(a, b, op uint32) (uint32, bool) {
	e := c.slot(a, b, op)
	if e.a == a && e.b == b && e.c == op {
		return e.r, true
	}
	return 0, false
}

func (c *opCache) store(a, b, op, r uint32) {
	*c.slot(a, b, op) = cacheEntry{a, b, op, r}
}

// ensureCache allocates the cache at the first operation, sized to the
// unique table.
func (m *Manager) ensureCache() {
	if len(m.cache.entries) == 0 {
		m.cache.alloc(len(m.buckets) / cacheRatio)
	}
}

// nextGen starts a Restrict or Exists call: a generation number that no
// entry of the cache holds yet.
func (m *Manager) nextGen() uint32 {
	m.gen++
	if m.gen == 0 { // wrapped: old entries could match again
		m.cache.clear()
		m.gen = 1
	}
	return m.gen
}

// scratch is the work space of one read-only query. Queries take one from
// a pool of the Manager and give it back, so that concurrent readers never
// share memory and repeated queries do not allocate: the pool scratch holds
// those indexed by node id (the sweeps of Whole parts, the traversals of
// the whole diagram), the pool parts those of gathered Parts and the other
// queries that follow edges, whose arrays only grow to the largest part
// they have held.
type scratch struct {
	u64a, u64b []uint64 // counts, paths from the root
	flags      []byte   // flags of the valid-domain sweeps
	words      []uint64 // bit sets
	stack      []Node
	local      []node  // a gathered part's nodes
	marks      marks   // the ids of the part being gathered
	ids        nodeMap // a memo of the queries that follow edges
}

// bytes is the memory s holds.
func (s *scratch) bytes() int64 {
	return 8*int64(cap(s.u64a)+cap(s.u64b)+cap(s.words)) + int64(cap(s.flags)) +
		4*int64(cap(s.stack)) + 16*int64(cap(s.local)) + s.ids.bytes() +
		marksBytes(64*len(s.marks.bits))
}

func (m *Manager) getScratch() *scratch {
	if s, ok := m.scratch.Get().(*scratch); ok {
		return s
	}
	return new(scratch)
}

// poolBytes is the most memory a scratch may hold to be kept in its
// Manager's pool for the next query: the scratches of small queries (the
// parts of a few queens) are reused, while one grown by a sweep of the
// whole diagram or a copy of millions of nodes (Extract's memo) is left to
// the collector, so that the memory a caller bounds while a query runs is
// not held on after it returns, where nothing counts it.
const poolBytes = 64 << 20

func (m *Manager) putScratch(s *scratch) {
	if s.bytes() <= poolBytes {
		m.scratch.Put(s)
	}
}

// putPartScratch gives back a scratch of getPartScratch, as putScratch
// does.
func (m *Manager) putPartScratch(s *scratch) {
	if s.bytes() <= poolBytes {
		m.parts.Put(s)
	}
}

func (m *Manager) getPartScratch() *scratch {
	if s, ok := m.parts.Get().(*scratch); ok {
		return s
	}
	return new(scratch)
}

// resized returns s with length n, reusing its array when it is large
// enough. The contents are not cleared.
func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// bitset returns a cleared bit set of n bits from s.
func bitset(s *scratch, n int) []uint64 {
	w := resized(s.words, (n+63)/64)
	s.words = w
	clear(w)
	return w
}
