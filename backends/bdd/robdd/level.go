package robdd

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nqueens/configurator/internal/hugepage"
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
//     its table (4 bytes a node or more);
//   - a large level of a fresh Manager is shared out among GOMAXPROCS
//     goroutines, each deduplicating the nodes that hash into its own part
//     of the table, and the ids are then handed out in order, each
//     goroutine numbering a range from the count of the ranges before it:
//     the result does not depend on the number of goroutines.
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
	// sharded is set when the current level's table was filled by
	// makeShared, each half probed on its own and holding indices in the
	// call: a later call at the same level rebuilds it first.
	sharded bool
	// procs is how many goroutines share out a call of at least shareMin
	// nodes, and part about how many nodes they look through with one
	// table: GOMAXPROCS, shareMin and partNodes by default (0); tests
	// set them.
	procs, shareMin, part int
	// hs, reps, ents, firsts and todo are makeShared's scratch: the
	// nodes' hashes, for each the index of its first occurrence in the
	// call, the nodes parted by hash, the first occurrence of each chain
	// node (see makeShared), and the nodes that are not chains.
	hs, reps, firsts []uint32
	ents             []levelEntry
	todo             [][]uint32 // by goroutine: the nodes to hash
}

// shareMin is the least number of nodes a MakeLevel call shares out among
// goroutines: below it the goroutines cost more than they save.
const shareMin = 1 << 15

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

// SetProcs sets how many goroutines share out a large MakeLevel call and
// Commit's copy: GOMAXPROCS when n is 0. A caller that shares the cores
// with other work gives it its share.
func (b *LevelBuilder) SetProcs(n int) { b.procs = n }

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
	fresh := k == 0 || b.levels[k-1].level != l
	if fresh {
		if k > 0 {
			b.levels[k-1].trim()
		}
		b.levels = append(b.levels, builtLevel{level: l, first: uint32(b.base + b.made)})
	}
	cur := &b.levels[len(b.levels)-1]
	procs, least := b.procs, b.shareMin
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	if least <= 0 {
		least = shareMin
	}
	if procs > 1 && !b.lookup && len(cur.pairs) == 0 && len(lo) >= least {
		// The table is not filled: a later call at this level
		// rebuilds it.
		b.sharded = true
		return b.makeShared(cur, lo, hi, out, procs)
	}
	switch {
	case b.sharded:
		b.resize(levelTableSize(2 * (len(cur.pairs)/2 + len(lo))))
		b.sharded = false
	case fresh:
		// A table for this call's nodes, the memory reused.
		if size := levelTableSize(2 * len(lo)); size <= cap(b.slots) {
			b.slots = b.slots[:size]
			clear(b.slots)
		} else {
			b.slots = make([]uint64, size)
		}
	}
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
		if !b.lower(cur, x, y) {
			return childrenErr(l, x, y)
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

// lower reports whether x and y may be the children of a node of cur's
// level: the builder's ids below cur.first were made at lower levels, and
// the Manager's own nodes must lie below it.
func (b *LevelBuilder) lower(cur *builtLevel, x, y Node) bool {
	l := cur.level
	return uint32(x) < cur.first && uint32(y) < cur.first &&
		(int(x) >= b.base || b.m.nodes[x].level > l) && (int(y) >= b.base || b.m.nodes[y].level > l)
}

// childrenErr is MakeLevel's error for children x and y that lower refuses.
func childrenErr(l uint32, x, y Node) error {
	return fmt.Errorf("robdd: MakeLevel at level %d: child %d or %d not below it or not made at a lower level", l, x, y)
}

// makeShared is MakeLevel's work for a call that starts a level of a
// fresh Manager, shared out among procs goroutines. First each hashes and
// checks a range of the nodes; then the nodes are parted by hash, and the
// goroutines find, part by part, the first node of the call equal to each
// (reps); last, the ids are handed out in the order of the call, each
// goroutine numbering the new nodes of its range from the count of those
// before it. The result is MakeLevel's whatever procs is, and the level's
// pairs are allocated at their exact size. On error nothing of the call
// is kept.
//
// A chain node, whose high child is false and whose low child is a node
// of the level made just before, equals another exactly when their low
// children are equal: such nodes skip the hashing and the parts, and the
// first pass finds their first occurrences by an array indexed by the low
// child. The compilers of large diagrams make mostly such nodes (a
// state that carries on past a cell that is not free), in about the order
// of their children, so that array is read nearly in order.
func (b *LevelBuilder) makeShared(cur *builtLevel, lo, hi, out []Node, procs int) error {
	m, n, l := b.m, len(lo), cur.level
	if cap(b.hs) < n {
		b.hs, b.reps = make([]uint32, n), make([]uint32, n)
		hugepage.Advise(b.hs)
		hugepage.Advise(b.reps)
	}
	hs, reps := b.hs[:n], b.reps[:n]
	// A chain node's low child is a node of the level made before, whose
	// ids are below..below+chains-1 (see chainOf).
	var below, chains uint32
	if k := len(b.levels); k >= 2 {
		below, chains = b.levels[k-2].first, uint32(len(b.levels[k-2].pairs)/2)
	}
	if cap(b.firsts) < int(chains) {
		b.firsts = make([]uint32, chains)
		hugepage.Advise(b.firsts)
	}
	firsts := b.firsts[:chains] // index in the call plus one, by low child
	clear(firsts)
	// The other nodes are parted by the high bits of their hashes, each
	// part in the order of the call, about partNodes a part, and then each
	// part is looked through with a table of its own: parts and tables fit
	// in the processor's caches, where one table of the whole level would
	// miss them on nearly every lookup.
	most := b.part
	if most <= 0 {
		most = partNodes
	}
	shift := 32
	for n>>(32-shift) > most && shift > 32-maxPartBits {
		shift--
	}
	parts := 1 << (32 - shift)
	if shift == 32 {
		shift = 0 // one part: the shift must not clear the hash
	}
	partOf := func(h uint32) int {
		if parts == 1 {
			return 0
		}
		return int(h >> shift)
	}
	// First, each goroutine checks its range, finds the first occurrence
	// of each chain node, and hashes the other nodes, listing them (todo)
	// and counting them by part: counts[p*parts+q] counts those of range p
	// in part q, then is where the first of them goes.
	counts := make([]int, procs*parts)
	for len(b.todo) < procs {
		b.todo = append(b.todo, nil)
	}
	bad := make([]int, procs)
	shareOut(procs, n, func(p, from, to int) {
		bad[p] = n
		c := counts[p*parts : (p+1)*parts]
		todo := b.todo[p][:0]
		defer func() { b.todo[p] = todo }()
		for i := from; i < to; i++ {
			x, y := lo[i], hi[i]
			if x == y {
				continue
			}
			if !b.lower(cur, x, y) {
				bad[p] = i
				return
			}
			k, ok := chainOf(x, y, below, chains)
			if !ok {
				h := hash(l, x, y)
				hs[i] = h
				c[partOf(h)]++
				todo = append(todo, uint32(i))
				continue
			}
			// The least index wins; the ranges seldom meet at the same
			// child, since chain nodes come in about the order of their
			// children.
			f := &firsts[k]
			for v := atomic.LoadUint32(f); v == 0 || v > uint32(i+1); v = atomic.LoadUint32(f) {
				if atomic.CompareAndSwapUint32(f, v, uint32(i+1)) {
					break
				}
			}
		}
	})
	for _, i := range bad {
		if i < n {
			return childrenErr(l, lo[i], hi[i])
		}
	}
	starts := make([]int, parts+1)
	at := 0
	for q := range parts {
		starts[q] = at
		for p := range procs {
			c := counts[p*parts+q]
			counts[p*parts+q] = at
			at += c
		}
	}
	starts[parts] = at
	if cap(b.ents) < at {
		b.ents = make([]levelEntry, at)
		hugepage.Advise(b.ents)
	}
	ents := b.ents[:at]
	shareOut(procs, n, func(p, _, _ int) {
		c := counts[p*parts : (p+1)*parts]
		for _, i := range b.todo[p] {
			q := partOf(hs[i])
			ents[c[q]] = levelEntry{h: hs[i], i: i, lo: uint32(lo[i]), hi: uint32(hi[i])}
			c[q]++
		}
	})
	// The first occurrence of each of them (reps), part by part.
	shareOut(procs, parts, func(_, from, to int) {
		var slots []uint32 // a part's table: index in the part plus one
		for q := from; q < to; q++ {
			part := ents[starts[q]:starts[q+1]]
			size := levelTableSize(2 * len(part))
			if cap(slots) < size {
				slots = make([]uint32, size)
			}
			slots = slots[:size]
			clear(slots)
			mask := size - 1
			for k := range part {
				e := &part[k]
				for s := int(e.h) & mask; ; s = (s + 1) & mask {
					v := slots[s]
					if v == 0 {
						slots[s] = uint32(k + 1)
						reps[e.i] = e.i
						break
					}
					if o := &part[v-1]; o.h == e.h && o.lo == e.lo && o.hi == e.hi {
						reps[e.i] = o.i
						break
					}
				}
			}
		}
	})
	// The ids, in the order of the call: the new nodes of each range are
	// counted, then numbered from the count of the ranges before, their
	// pairs put in place, and then the other nodes take the id of their
	// first occurrence.
	counts = counts[:procs]
	shareOut(procs, n, func(p, from, to int) {
		k := 0
		for i := from; i < to; i++ {
			x, y := lo[i], hi[i]
			if x == y {
				continue
			}
			if k, ok := chainOf(x, y, below, chains); ok {
				reps[i] = firsts[k] - 1
			}
			if reps[i] == uint32(i) {
				k++
			}
		}
		counts[p] = k
	})
	made := 0
	for p, k := range counts {
		counts[p] = made
		made += k
	}
	if b.base+b.made+made > m.maxNodes {
		return fmt.Errorf("%d nodes: %w", m.maxNodes, ErrNodeLimit)
	}
	// The level's pairs at their exact size: nothing to trim.
	cur.pairs = make([]uint32, 2*made)
	shareOut(procs, n, func(p, from, to int) {
		k := counts[p]
		for i := from; i < to; i++ {
			switch x, y := lo[i], hi[i]; {
			case x == y:
				out[i] = x
			case reps[i] == uint32(i):
				out[i] = Node(cur.first + uint32(k))
				cur.pairs[2*k], cur.pairs[2*k+1] = uint32(x), uint32(y)
				k++
			}
		}
	})
	shareOut(procs, n, func(p, from, to int) {
		for i := from; i < to; i++ {
			if lo[i] != hi[i] && reps[i] != uint32(i) {
				out[i] = out[reps[i]]
			}
		}
	})
	b.made += made
	return nil
}

// chainOf reports whether the node of children x and y is a chain node,
// the level made before having the ids below..below+chains-1, and if so
// the index of its low child in that level.
func chainOf(x, y Node, below, chains uint32) (uint32, bool) {
	k := uint32(x) - below // past chains when x < below too
	return k, y == False && k < chains
}

// partNodes is about how many nodes makeShared looks through with one
// table, and maxPartBits bounds the number of parts (1<<maxPartBits): a
// part of 16-byte entries and its table of 4 bytes a slot (2 to 4 a node)
// take under 256 KiB, within a core's cache.
const (
	partNodes   = 1 << 13
	maxPartBits = 14
)

// levelEntry is a node of a makeShared call in its part: its hash, its
// index in the call and its children.
type levelEntry struct{ h, i, lo, hi uint32 }

// shareOut runs f on procs goroutines, each with its range from..to-1 of
// 0..n-1, and waits for them.
func shareOut(procs, n int, f func(p, from, to int)) {
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() { f(p, p*n/procs, (p+1)*n/procs) })
	}
	wg.Wait()
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
// for the level being made), the table of the current level, and 8 bytes a
// node of the largest level shared out (see MakeLevel).
func (b *LevelBuilder) Bytes() int64 {
	n := int64(len(b.slots))*8 + int64(cap(b.hs)+cap(b.reps)+cap(b.firsts))*4 + int64(cap(b.ents))*16
	for _, t := range b.todo {
		n += int64(cap(t)) * 4
	}
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
	b.slots, b.hs, b.reps, b.ents, b.firsts, b.todo = nil, nil, nil, nil, nil, nil
	if err := m.reserveStore(b.made); err != nil {
		return err
	}
	b.done = true
	if b.made == 0 {
		return nil
	}
	// The levels are copied into their places by procs goroutines
	// (GOMAXPROCS by default) taking one level at a time.
	m.nodes = m.nodes[:b.base+b.made]
	procs := b.procs
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(procs, len(b.levels)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(b.levels); i = int(next.Add(1) - 1) {
				lv := &b.levels[i]
				dst := m.nodes[lv.first:][:len(lv.pairs)/2]
				for k := range dst {
					dst[k] = node{level: lv.level, lo: lv.pairs[2*k], hi: lv.pairs[2*k+1]}
				}
				lv.pairs = nil // free as it goes
			}
		})
	}
	wg.Wait()
	b.levels = nil
	m.buckets = nil // stale; see rehash
	return nil
}
