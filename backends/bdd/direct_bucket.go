package bdd

import (
	"math/bits"
	"slices"

	"github.com/nqueens/configurator/internal/hugepage"
)

// The direct compiler keeps its states by the level at which they branch.
// A state whose lowest free cell is L branches at L: a queen there or not.
// At every level above, down from its birth (the level below its parent),
// no queen can go on the level's cell, which is not free, and the state
// carries on unchanged, making a node whose high child is false. So the
// states are kept in buckets, one per level: bucket L holds the states
// that branch at L, each once, in the order of their birth, hash-consed by
// a table of the bucket's own. Expanding level l takes bucket l alone;
// the states waiting for a level below are not looked at, copied nor
// hashed again until their level comes.

// bucket is the states that branch at one level L. Their keys are their
// words from L>>6 on (those below are zero), width of them; tight holds
// their tight families. born lists how many states the bucket held after
// each level that added some: the states born at or above a level (alive
// there) are a prefix. Once the bucket is expanded, its keys and table are
// dropped, and kids holds the two children of each state: kids[2i] the
// one without a queen at L, kids[2i+1] the one with.
type bucket struct {
	width       int
	keys, tight []uint64
	// slots is the open-addressing table: a key's 32-bit hash in the high
	// bits, the state's index plus one in the low ones; 0 is free.
	slots []uint64
	n     int
	born  []birth
	kids  []ref
}

// birth is how many states a bucket held after the expansion of the level
// above level: those born at or above it.
type birth struct{ level, n int32 }

// ref is a state of a bucket: the bucket's level plus one in the high 32
// bits, the state's index in the low ones. The zero ref is no state: a
// child that is false.
type ref uint64

func refOf(level, i int) ref { return ref(uint64(level+1)<<32 | uint64(uint32(i))) }
func (r ref) level() int     { return int(r>>32) - 1 }
func (r ref) index() int     { return int(uint32(r)) }
func (r ref) dead() bool     { return r == 0 }

// key is the stored key of state i.
func (b *bucket) key(i int) []uint64 { return b.keys[i*b.width : (i+1)*b.width] }

// bytes is the memory the bucket holds.
func (b *bucket) bytes() int64 {
	return int64(cap(b.keys)+cap(b.tight)+len(b.slots)+cap(b.kids))*8 + int64(cap(b.born))*8
}

// insert returns the index of the state whose key is k and whose key's
// hash is h, adding it with its tight families if new.
func (b *bucket) insert(k []uint64, h uint32, tight uint64) int {
	if 2*(b.n+1) > len(b.slots) {
		b.grow()
	}
	mask := len(b.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := b.slots[i]
		if e == 0 {
			idx := b.n
			if len(b.keys)+len(k) > cap(b.keys) {
				keys := make([]uint64, len(b.keys), max(64, 2*cap(b.keys)))
				hugepage.Advise(keys)
				copy(keys, b.keys)
				b.keys = keys
			}
			b.keys = append(b.keys, k...)
			b.tight = append(b.tight, tight)
			b.n++
			b.slots[i] = uint64(h)<<32 | uint64(idx+1)
			return idx
		}
		if uint32(e>>32) == h {
			if idx := int(uint32(e)) - 1; slices.Equal(b.key(idx), k) {
				return idx
			}
		}
	}
}

// grow doubles the table (makes its first).
func (b *bucket) grow() {
	old := b.slots
	b.slots = make([]uint64, max(16, 2*len(old)))
	hugepage.Advise(b.slots)
	mask := len(b.slots) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := int(e>>32) & mask
		for b.slots[i] != 0 {
			i = (i + 1) & mask
		}
		b.slots[i] = e
	}
}

// recordBirths records the states born at level, if any.
func (b *bucket) recordBirths(level int) {
	if k := len(b.born); b.n > 0 && (k == 0 || int(b.born[k-1].n) < b.n) {
		b.born = append(b.born, birth{int32(level), int32(b.n)})
	}
}

// drop lets the keys and the table of an expanded bucket go.
func (b *bucket) drop() { b.keys, b.tight, b.slots = nil, nil, nil }

// touchBatch is how many inserts touch reads ahead.
const touchBatch = 128

// touch reads the slots that the inserts of the children from..to-1 of c
// will probe first, and the keys those slots point to, before the
// inserts: these reads do not depend on one another, so the processor
// overlaps their cache misses, which the inserts, one after the other,
// would take in turn. It returns what it read, for the caller to keep.
func touch(buckets []bucket, c *chunk, from, to int) uint64 {
	var x uint64
	for j := from; j < to; j++ {
		b, h := &buckets[c.level[j]], c.hash[j]
		if len(b.slots) == 0 {
			continue
		}
		e := b.slots[int(h)&(len(b.slots)-1)]
		if uint32(e>>32) == h && e != 0 && b.width > 0 {
			x += b.keys[(int(uint32(e))-1)*b.width]
		}
		x += e
	}
	return x
}

// hashKey is the hash of a state's key.
func hashKey(k []uint64) uint32 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, w := range k {
		h = (h ^ w) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	return uint32(h ^ h>>32)
}

// keyAt is the key of state f in the bucket of level L, its lowest free
// cell: its words from L's word on (none for L = vars at a word's end).
func keyAt(f []uint64, L int) []uint64 { return f[min(L>>6, len(f)):] }

// lowest is the level of the lowest free cell of f, a state at a level in
// word off or below, or vars if it has none.
func lowest(f []uint64, off, vars int) int {
	for j := off; j < len(f); j++ {
		if f[j] != 0 {
			return j<<6 | bits.TrailingZeros64(f[j])
		}
	}
	return vars
}
