package robdd

import (
	"errors"
	"fmt"
	"slices"
)

// LevelBuilder makes nodes in a Manager a whole level at a time, from the
// bottom level up: the way a compiler that knows every node of a level at
// once builds its diagram (bdd.CompileDirect). Its result is the one
// MakeNode would give for the same calls in the same order (the same
// nodes, the same ids), but it is cheaper for large diagrams:
//
//   - a level's nodes are told apart by a table of that level alone, small
//     and reused, instead of the Manager's unique table, which spans every
//     level and misses the processor's caches on nearly every lookup;
//   - the new nodes are held compactly (8 bytes each) until Commit, which
//     knows their number and so sizes the store once, exactly, instead of
//     growing it step by step (each step briefly holds two copies);
//   - Commit leaves the unique table stale, to be rebuilt by the first
//     MakeNode that needs it: a diagram that is only read never pays for
//     its table (4 bytes a node or more).
//
// Node ids are handed out as MakeNode would: the first new node gets the
// Manager's Size() at NewLevelBuilder, and the others follow in the order
// they are first asked for. They may be used as children in later calls
// at once, but they are nodes of the Manager only after Commit; a builder
// dropped without Commit leaves the Manager as it was. The Manager must
// not make nodes of its own from NewLevelBuilder to Commit.
//
// A LevelBuilder is not safe for concurrent use.
type LevelBuilder struct {
	m      *Manager
	base   int // the Manager's Size() at the start: the first new id
	made   int // new nodes so far
	levels []builtLevel
	// slots is the open-addressing table of the current level: the hash
	// of a node's children in the high 32 bits, its index in the level
	// plus one in the low ones; 0 marks a free slot.
	slots []uint64
	// lookup is set when the Manager had decision nodes at the start:
	// a new node is first looked up among them.
	lookup bool
	done   bool
	sink   uint64 // what touch read, so that the reads stay
}

// builtLevel is the nodes made at one level, their children interleaved:
// pairs[2k] and pairs[2k+1] are the low and high child of the level's
// node k.
type builtLevel struct {
	level uint32
	first uint32 // id of the level's node 0
	pairs []uint32
}

// trim gives back the room the level's pairs did not use, when it is worth
// a copy.
func (lv *builtLevel) trim() {
	if cap(lv.pairs)-len(lv.pairs) > len(lv.pairs)/8 {
		lv.pairs = slices.Clone(lv.pairs)
	}
}

// NewLevelBuilder returns a LevelBuilder that adds nodes to m.
func (m *Manager) NewLevelBuilder() *LevelBuilder {
	return &LevelBuilder{m: m, base: len(m.nodes), lookup: len(m.nodes) > 2}
}

// MakeLevel sets out[i] to the node testing the variable at level whose
// children are lo[i] and hi[i], for every i, as MakeNode(level, lo[i],
// hi[i]) would in that order: a node equal to an existing one, or to one
// made earlier by the builder, is that node; equal children make no node
// (out[i] is the child). lo, hi and out must have the same length.
//
// The children must be nodes of the Manager or ids the builder returned,
// and lie strictly below level. Levels must be given bottom-up: level must
// be smaller than that of the builder's previous call, or equal to it, in
// which case the call adds to the same level (so that a level may be made
// in parts, with a look at a context between them). It fails with
// ErrNodeLimit when the nodes would outgrow the Manager's budget; the
// builder keeps what earlier calls made.
func (b *LevelBuilder) MakeLevel(level int, lo, hi, out []Node) error {
	m := b.m
	if b.done {
		return errors.New("robdd: MakeLevel after Commit")
	}
	if len(lo) != len(hi) || len(out) != len(lo) {
		return fmt.Errorf("robdd: MakeLevel of %d low children, %d high, %d results", len(lo), len(hi), len(out))
	}
	if level < 0 || level >= m.vars {
		return fmt.Errorf("robdd: MakeLevel at level %d of %d", level, m.vars)
	}
	l := uint32(level)
	k := len(b.levels)
	if k > 0 && b.levels[k-1].level < l {
		return fmt.Errorf("robdd: MakeLevel at level %d after level %d: levels go bottom-up", level, b.levels[k-1].level)
	}
	if k == 0 || b.levels[k-1].level != l {
		if k > 0 {
			b.levels[k-1].trim()
		}
		b.levels = append(b.levels, builtLevel{level: l, first: uint32(b.base + b.made)})
		// A table for this call's nodes, the memory reused.
		if size := levelTableSize(2 * len(lo)); size <= cap(b.slots) {
			b.slots = b.slots[:size]
			clear(b.slots)
		} else {
			b.slots = make([]uint64, size)
		}
	}
	cur := &b.levels[len(b.levels)-1]
	// Room for every node of the call: the table stays at most half full,
	// and the pairs grow once.
	if need := 2 * (len(cur.pairs)/2 + len(lo)); need > len(b.slots) {
		b.resize(levelTableSize(need))
	}
	if need := len(cur.pairs) + 2*len(lo); need > cap(cur.pairs) {
		cur.pairs = slices.Grow(cur.pairs, need-len(cur.pairs))
	}
	if b.lookup && m.buckets == nil {
		m.rehash(tableSize(len(m.nodes)))
	}
	mask := len(b.slots) - 1
	var hs [levelBatch]uint32
	for i := range lo {
		if i%levelBatch == 0 {
			b.touch(l, lo[i:min(i+levelBatch, len(lo))], hi[i:], hs[:])
		}
		x, y := lo[i], hi[i]
		if x == y {
			out[i] = x
			continue
		}
		// The builder's ids below cur.first were made at lower levels; the
		// Manager's own nodes are checked.
		if uint32(x) >= cur.first || uint32(y) >= cur.first {
			return fmt.Errorf("robdd: MakeLevel at level %d: child %d or %d not made at a lower level", level, x, y)
		}
		if int(x) < b.base && m.nodes[x].level <= l || int(y) < b.base && m.nodes[y].level <= l {
			return fmt.Errorf("robdd: MakeLevel at level %d: child %d or %d not below it", level, x, y)
		}
		h := hs[i%levelBatch]
		s := int(h) & mask
		for ; b.slots[s] != 0; s = (s + 1) & mask {
			e := b.slots[s]
			if uint32(e>>32) != h {
				continue
			}
			k := 2 * (uint32(e) - 1)
			if cur.pairs[k] == uint32(x) && cur.pairs[k+1] == uint32(y) {
				break
			}
		}
		if e := b.slots[s]; e != 0 {
			out[i] = Node(cur.first + uint32(e) - 1)
			continue
		}
		if b.lookup {
			if n, ok := m.find(h&uint32(len(m.buckets)-1), l, x, y); ok {
				out[i] = n
				continue
			}
		}
		if b.base+b.made >= m.maxNodes {
			return fmt.Errorf("%d nodes: %w", m.maxNodes, ErrNodeLimit)
		}
		k := uint32(len(cur.pairs) / 2)
		cur.pairs = append(cur.pairs, uint32(x), uint32(y))
		b.slots[s] = uint64(h)<<32 | uint64(k+1)
		out[i] = Node(cur.first + k)
		b.made++
	}
	return nil
}

// levelTableSize is the number of slots of a level's table for n nodes: a
// power of two, at least n and 16.
func levelTableSize(n int) int {
	size := 16
	for size < n {
		size *= 2
	}
	return size
}

// levelBatch is how many nodes MakeLevel hashes and touches ahead.
const levelBatch = 64

// touch stores in hs the hashes of the nodes (level, lo[i], hi[i]) and
// reads the slots they probe first, and the children those slots point to,
// before MakeLevel looks the nodes up one after the other: these reads do
// not depend on one another, so the processor overlaps their cache misses.
func (b *LevelBuilder) touch(level uint32, lo, hi []Node, hs []uint32) {
	cur := &b.levels[len(b.levels)-1]
	mask := len(b.slots) - 1
	var x uint64
	for i := range lo {
		h := hash(level, lo[i], hi[i])
		hs[i] = h
		e := b.slots[int(h)&mask]
		if uint32(e>>32) == h && e != 0 {
			x += uint64(cur.pairs[2*(uint32(e)-1)])
		}
		x += e
	}
	b.sink = x
}

// resize empties the table into one of size slots, rehashing the current
// level's nodes.
func (b *LevelBuilder) resize(size int) {
	b.slots = make([]uint64, size)
	if len(b.levels) == 0 {
		return
	}
	cur := &b.levels[len(b.levels)-1]
	mask := size - 1
	for k := 0; k < len(cur.pairs); k += 2 {
		h := hash(cur.level, Node(cur.pairs[k]), Node(cur.pairs[k+1]))
		s := int(h) & mask
		for b.slots[s] != 0 {
			s = (s + 1) & mask
		}
		b.slots[s] = uint64(h)<<32 | uint64(k/2+1)
	}
}

// Made is the number of new nodes so far.
func (b *LevelBuilder) Made() int { return b.made }

// Bytes is the memory the builder holds: 8 bytes a new node (a little more
// for the level being made), and the table of the current level.
func (b *LevelBuilder) Bytes() int64 {
	n := int64(len(b.slots)) * 8
	for _, lv := range b.levels {
		n += int64(cap(lv.pairs)) * 4
	}
	return n
}

// Commit adds the new nodes to the Manager's store, in one allocation of
// exactly the room they need, and leaves the unique table to be rebuilt
// when it is next needed. It fails with ErrNodeLimit when the store cannot
// take them, leaving the Manager as it was, and when the Manager made
// nodes of its own since NewLevelBuilder. The builder is spent afterwards.
func (b *LevelBuilder) Commit() error {
	m := b.m
	if b.done {
		return errors.New("robdd: Commit twice")
	}
	if len(m.nodes) != b.base {
		return fmt.Errorf("robdd: Commit: the Manager has %d nodes, %d when the build began", len(m.nodes), b.base)
	}
	b.slots = nil
	if err := m.reserveStore(b.made); err != nil {
		return err
	}
	b.done = true
	if b.made == 0 {
		return nil
	}
	for i := range b.levels {
		lv := &b.levels[i]
		for k := 0; k < len(lv.pairs); k += 2 {
			m.nodes = append(m.nodes, node{level: lv.level, lo: lv.pairs[k], hi: lv.pairs[k+1]})
		}
		lv.pairs = nil // free as it goes
	}
	b.levels = nil
	m.buckets = nil // stale; see rehash
	return nil
}
