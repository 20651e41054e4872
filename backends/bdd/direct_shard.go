package bdd

import (
	"math/bits"
	"slices"
	"sync/atomic"
)

// The next layer of the direct compiler is built in shards: each owns the
// states whose keys' hashes fall in it (see owner) and hash-conses them in
// an open-addressing table of its own, so that the shards take a layer's
// children at once without locks. Their states are then numbered in the
// order a sequential build meets them (number) and gathered into one
// layer (layer.gather), so that the build is the same whatever the number
// of shards.

// layer is the states of one level, in order: keys of width words (the
// words of a state from off on; those below are zero) and tight families.
type layer struct {
	off, width int
	keys       []uint64
	tight      []uint64
	n          int
}

// key is the stored key of state i.
func (t *layer) key(i int) []uint64 { return t.keys[i*t.width : (i+1)*t.width] }

// bytes is the memory the layer holds.
func (t *layer) bytes() int64 { return int64(cap(t.keys)+cap(t.tight)) * 8 }

// gather makes t the n states of shards, whose keys are the words from
// off on, width of them, in the order number gave them in ch. t's memory
// is reused; with one shard, the layer trades its memory with it.
func (t *layer) gather(shards []*shard, ch []uint32, off, width, n int) {
	t.off, t.width, t.n = off, width, n
	if len(shards) == 1 {
		sh := shards[0]
		t.keys, sh.keys = sh.keys, t.keys[:0]
		t.tight, sh.tight = sh.tight, t.tight[:0]
		return
	}
	t.keys = room(t.keys, n*width)[:n*width]
	t.tight = room(t.tight, n)[:n]
	shareOut(len(shards), len(shards), func(p, _, _ int) {
		sh := shards[p]
		for i, pos := range sh.first {
			g := int(ch[pos])
			copy(t.keys[g*width:(g+1)*width], sh.key(i))
			t.tight[g] = sh.tight[i]
		}
	})
}

// room returns s emptied, with room for n elements: s's memory when it is
// large enough, else new memory (s's contents are not kept, which
// slices.Grow would copy).
func room[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// shard is shard p of a layer being built out of `of`: the states whose
// keys' hashes fall in it (see owner), in the order they were first met,
// hash-consed by an open-addressing table whose slots hold a 32-bit hash
// and index+1, and for each the position in the layer's child array of
// the child that first met it.
type shard struct {
	p, of       int
	width       int
	keys, tight []uint64
	first       []uint32
	slots       []uint64
	n           int
	// held is the memory the shard holds, for the budget, updated after
	// each chunk.
	held atomic.Int64
	sink uint64 // what touch read, so that the reads stay
}

// owner is the shard of n that a key of hash h falls in: the shards cut
// the hashes by their high bits, their tables index by the low ones.
func owner(h uint32, n int) int { return int(uint64(h) * uint64(n) >> 32) }

// reset empties s for keys of width words, with room for about hint
// states, reusing its memory.
func (s *shard) reset(width, hint int) {
	size := 16
	for size < 2*hint {
		size *= 2
	}
	s.width, s.n = width, 0
	s.keys = room(s.keys, hint*width)
	s.tight, s.first = room(s.tight, hint), room(s.first, hint)
	if cap(s.slots) < size {
		s.slots = make([]uint64, size)
	}
	s.slots = s.slots[:size]
	clear(s.slots)
	s.held.Store(s.bytes())
}

// key is the stored key of the shard's state i.
func (s *shard) key(i int) []uint64 { return s.keys[i*s.width : (i+1)*s.width] }

// bytes is the memory the shard holds.
func (s *shard) bytes() int64 {
	return int64(cap(s.keys)+cap(s.tight)+len(s.slots))*8 + int64(cap(s.first))*4
}

// take adds the children of c that the shard owns, and sets their places
// in ch to the positions of the children that first met their states, for
// number; the only shard of a layer sets them to the states' indices at
// once.
func (s *shard) take(c *chunk, ch []uint32) {
	mine, w := c.owned[s.p], s.width
	for b := 0; b < len(mine); b += touchBatch {
		batch := mine[b:min(b+touchBatch, len(mine))]
		s.touch(c.hash, batch)
		for _, j := range batch {
			i := s.insert(c.keys[int(j)*w:int(j+1)*w], c.hash[j], c.tight[j], c.dst[j])
			if s.of > 1 {
				i = s.first[i]
			}
			ch[c.dst[j]] = i
		}
	}
	s.held.Store(s.bytes())
}

// insert returns the index in the shard of the state whose key is k and
// whose key's hash is h, adding it with its tight families and pos, the
// position of the child that meets it, if new.
func (s *shard) insert(k []uint64, h uint32, tight uint64, pos uint32) uint32 {
	mask := len(s.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := s.slots[i]
		if e == 0 {
			idx := s.n
			s.keys = append(s.keys, k...)
			s.tight = append(s.tight, tight)
			s.first = append(s.first, pos)
			s.n++
			s.slots[i] = uint64(h)<<32 | uint64(idx+1)
			if 2*s.n > len(s.slots) {
				s.grow()
			}
			return uint32(idx)
		}
		if uint32(e>>32) == h {
			if idx := int(uint32(e)) - 1; slices.Equal(s.key(idx), k) {
				return uint32(idx)
			}
		}
	}
}

// touchBatch is how many inserts touch reads ahead.
const touchBatch = 128

// touch reads the slots that the inserts of the keys of hashes hs[j], j
// in batch, will probe first, and the keys those slots point to, before
// the inserts: these reads do not depend on one another, so the
// processor overlaps their cache misses, which the inserts, one after the
// other, would take in turn.
func (s *shard) touch(hs []uint32, batch []int32) {
	mask := len(s.slots) - 1
	var x uint64
	for _, j := range batch {
		h := hs[j]
		e := s.slots[int(h)&mask]
		if uint32(e>>32) == h && e != 0 {
			x += s.keys[(int(uint32(e))-1)*s.width]
		}
		x += e
	}
	s.sink = x
}

// grow doubles the table.
func (s *shard) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	mask := len(s.slots) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := int(e>>32) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = e
	}
}

// hashKey is the hash of a state's key: its high bits pick the shard
// (owner), its low ones the slot of the shard's table.
func hashKey(k []uint64) uint32 {
	h := uint64(0x9E3779B97F4A7C15)
	for _, w := range k {
		h = (h ^ w) * 0xBF58476D1CE4E5B9
		h ^= h >> 31
	}
	return uint32(h ^ h>>32)
}

// number turns ch, the children of a layer as the positions in ch of the
// children that first met their states (dead for none), into the
// states' indices in the next layer, and returns the number of states.
// The states are numbered in the order their first children were met,
// the order of expand: by state, the child with a queen (position 2i+1)
// before the one without (2i). firsts, a bit for each entry of ch in that
// order (bit q for position q^1), is its scratch. procs goroutines share
// the work, a range of whole words of firsts each: the first children in
// a range are found and counted, then numbered from the count of the
// ranges before, then the other children take their first one's number.
func number(ch []uint32, firsts []uint64, procs int) int {
	counts := make([]int, procs)
	shareOut(procs, len(firsts), func(p, from, to int) {
		n := 0
		for w := from; w < to; w++ {
			var b uint64
			for pos := w * 64; pos < min(w*64+64, len(ch)); pos++ {
				if ch[pos] == uint32(pos) {
					b |= 1 << (pos&63 ^ 1)
				}
			}
			firsts[w] = b
			n += bits.OnesCount64(b)
		}
		counts[p] = n
	})
	total := 0
	for p, n := range counts {
		counts[p] = total
		total += n
	}
	shareOut(procs, len(firsts), func(p, from, to int) {
		g := uint32(counts[p])
		for w := from; w < to; w++ {
			for b := firsts[w]; b != 0; b &= b - 1 {
				ch[w*64+bits.TrailingZeros64(b)^1] = g
				g++
			}
		}
	})
	shareOut(procs, len(firsts), func(p, from, to int) {
		for w := from; w < to; w++ {
			for pos := w * 64; pos < min(w*64+64, len(ch)); pos++ {
				if firsts[w]&(1<<(pos&63^1)) == 0 && ch[pos] != dead {
					ch[pos] = ch[ch[pos]]
				}
			}
		}
	})
	return total
}
