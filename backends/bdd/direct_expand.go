package bdd

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"sync"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/internal/hugepage"
)

// ctxEvery is how many states the build expands or turns into nodes between
// two looks at its context and its budget, at most: fewer when states are
// wide, so that about a megabyte of them at most comes between two looks.
const ctxEvery = 4096

// words is the type of a state's words as an array, whose length the
// compiler knows in the hot loops of the build instantiated with it, and
// so checks no bound and keeps no count in a register there: [W]uint64
// for the widths of the boards of up to 16×16 cells, and [0]uint64 for
// any width, which the model then gives (direct.words).
type words interface {
	[0]uint64 | [1]uint64 | [2]uint64 | [3]uint64 | [4]uint64
}

// width is the number of words of d's states in the instantiation of A.
func width[A words](d *direct) int {
	var a A
	if n := len(a); n > 0 {
		return n
	}
	return d.words
}

// expander expands a chunk of the states of a bucket (worker.expand).
type expander interface {
	expand(c *chunk, b *bucket, l int)
}

// newExpander returns a worker for d's states, instantiated with their
// width if words has it.
func (d *direct) newExpander() expander {
	switch d.words {
	case 1:
		return newWorker[[1]uint64](d)
	case 2:
		return newWorker[[2]uint64](d)
	case 3:
		return newWorker[[3]uint64](d)
	case 4:
		return newWorker[[4]uint64](d)
	}
	return newWorker[[0]uint64](d)
}

// worker is the scratch space of one goroutine that expands states: the
// state being expanded, its two children, the cells a transition removed,
// and what settle and fits work in.
type worker[A words] struct {
	*direct
	s, f0, f1, rm      []uint64
	common, free, lost []uint64
	dirty              []int32
}

func newWorker[A words](d *direct) *worker[A] {
	W := d.words
	buf := make([]uint64, 7*W)
	return &worker[A]{direct: d,
		s: buf[:W:W], f0: buf[W : 2*W : 2*W], f1: buf[2*W : 3*W : 3*W], rm: buf[3*W : 4*W : 4*W],
		common: buf[4*W : 5*W : 5*W], free: buf[5*W : 6*W : 6*W], lost: buf[6*W:]}
}

// chunk is the expansion of the states start..end-1 of a bucket: the
// children that live, in the order of a sequential build (for each state
// its child with a queen at the level, then the one without), each with
// its key (the state's words from the level's word on, width of them), its
// tight families, the level at which it branches, the hash of its key in
// that level's bucket, and its place in the bucket's kids.
type chunk struct {
	start, end, width int
	keys              []uint64
	tight             []uint64
	level             []int32
	hash, dst         []uint32
	// done gets a token when the chunk is filled.
	done chan struct{}
	// held is the memory of the buffers when the chunk was last taken,
	// for the budget.
	held int64
}

func (c *chunk) bytes() int64 {
	return int64(cap(c.keys)+cap(c.tight))*8 + int64(cap(c.level)+cap(c.hash)+cap(c.dst))*4
}

// expand fills c with the children of b's states c.start..c.end-1, which
// branch at level l.
func (w *worker[A]) expand(c *chunk, b *bucket, l int) {
	W := width[A](w.direct)
	off, bit := l>>6, uint64(1)<<(l&63)
	att := w.attack[l*W : (l+1)*W]
	s, f0, f1, rm := w.s[:W], w.f0[:W], w.f1[:W], w.rm[:W]
	c.width = W - off
	c.keys, c.tight, c.level, c.hash, c.dst = c.keys[:0], c.tight[:0], c.level[:0], c.hash[:0], c.dst[:0]
	emit := func(f []uint64, tight uint64, dst int) {
		L := lowest(f, off, w.vars)
		c.keys = append(c.keys, f[off:]...)
		c.tight = append(c.tight, tight)
		c.level = append(c.level, int32(L))
		c.hash = append(c.hash, hashKey(keyAt(f, L)))
		c.dst = append(c.dst, uint32(dst))
	}
	for i := c.start; i < c.end; i++ {
		copy(s[off:], b.key(i))
		tight := b.tight[i]
		need := 0
		if w.pigeon {
			need = w.unsatisfied(s, l)
		}
		for j := off; j < W; j++ {
			f0[j] = s[j]
			f1[j] = s[j] &^ att[j]
			rm[j] = s[j] & att[j]
		}
		f0[off] &^= bit
		if t, ok := w.settle(f1, rm, l, w.lineOf[l], need-len(w.lineOf[l]), tight); ok {
			emit(f1, t, 2*i+1)
		}
		for j := off; j < W; j++ {
			rm[j] = 0
		}
		rm[off] = bit
		if t, ok := w.settle(f0, rm, l, nil, need, tight); ok {
			emit(f0, t, 2*i)
		}
	}
}

// take adds the children of c, which the states of bucket l made, to the
// buckets of the levels at which they branch, and sets their refs in
// bucket l's kids. It returns what its reads ahead read (touch), for the
// caller to keep.
func take(buckets []bucket, l int, c *chunk) uint64 {
	kids := buckets[l].kids
	var sink uint64
	for b := 0; b < len(c.hash); b += touchBatch {
		to := min(b+touchBatch, len(c.hash))
		sink += touch(buckets, c, b, to)
		for j := b; j < to; j++ {
			L := int(c.level[j])
			bk := &buckets[L]
			k := c.keys[j*c.width : (j+1)*c.width]
			i := bk.insert(k[len(k)-bk.width:], c.hash[j], c.tight[j])
			kids[c.dst[j]] = refOf(L, i)
		}
	}
	return sink
}

// compile runs the build: the buckets are expanded from the top level
// down, each state's children settled and added to the buckets of the
// levels at which they branch, and then the nodes are made from the
// bottom level up with a robdd.LevelBuilder.
//
// The expansion of a bucket is shared out in chunks of states among
// GOMAXPROCS workers, each settling the children of its chunk, while one
// goroutine takes the filled chunks, in order, into the buckets: so the
// states come in the order of a sequential build, and so do the nodes and
// their ids, whatever the number of workers. Taking a child costs a
// fraction of settling it, so the one goroutine keeps up with several
// workers.
func (d *direct) compile(ctx context.Context, m *robdd.Manager) (robdd.Node, directStats, error) {
	var st directStats
	start := time.Now()
	V := d.vars
	if d.empty {
		st.solutions = new(big.Int)
		return robdd.False, st, nil
	}
	// The budget covers the bitsets of the constraints, the states and the
	// nodes.
	budget := m.Budget() - d.bytes()
	w0 := newWorker[[0]uint64](d)
	s, rm := w0.s, w0.rm
	for l := range V {
		setBit(s, l)
		setBit(rm, l)
	}
	need := int(d.active[0])
	// The full board, settled as if it had just lost every cell.
	tight, ok := w0.settle(s, rm, 0, nil, need, 0)
	if !ok {
		st.solutions = new(big.Int)
		return robdd.False, st, nil
	}
	buckets := make([]bucket, V+1)
	for L := range buckets {
		buckets[L].width = len(keyAt(s, L))
	}
	L0 := lowest(s, 0, V)
	k := keyAt(s, L0)
	root := refOf(L0, buckets[L0].insert(k, hashKey(k), tight))
	buckets[L0].recordBirths(0)
	every := d.chunk
	if every <= 0 {
		every = max(1, min(ctxEvery, (1<<20)/(8*d.words)))
	}
	procs := d.procs
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	if d.share != nil {
		procs = min(procs, d.share.heavy)
	}
	var workers []expander
	for range procs {
		workers = append(workers, d.newExpander())
	}
	// Chunks enough for every worker to have one at hand and one more
	// waiting, and one for the taker. Their buffers grow to what the
	// chunks hold.
	ring := make([]*chunk, 2*len(workers)+1)
	for k := range ring {
		ring[k] = &chunk{done: make(chan struct{}, 1)}
	}
	var kept int64 // the kids of the buckets expanded
	held := func(l int) int64 {
		used := kept + m.Bytes()
		for L := l; L <= V; L++ {
			used += buckets[L].bytes()
		}
		for _, c := range ring {
			used += c.held
		}
		return used
	}
	for l := range V {
		b := &buckets[l]
		if b.n == 0 {
			continue
		}
		if used := held(l) + 16*int64(b.n); used > budget {
			return robdd.False, st, fmt.Errorf("%d states at level %d, %d bytes: %w", b.n, l, used, robdd.ErrNodeLimit)
		}
		b.kids = make([]ref, 2*b.n)
		hugepage.Advise(b.kids)
		// check looks at the context and the budget once c is taken.
		check := func(c *chunk) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			c.held = c.bytes()
			used := held(l)
			if used > budget {
				return fmt.Errorf("%d states at level %d, %d bytes: %w", b.n, l, used, robdd.ErrNodeLimit)
			}
			st.peak = max(st.peak, used)
			return nil
		}
		var sink uint64
		takeChecked := func(c *chunk) error {
			sink += take(buckets, l, c)
			return check(c)
		}
		fill := func(w expander, c *chunk, k int) {
			c.start, c.end = k*every, min((k+1)*every, b.n)
			w.expand(c, b, l)
		}
		chunks := (b.n + every - 1) / every
		if chunks <= 1 || len(workers) == 1 {
			c := ring[0]
			for k := range chunks {
				var err error
				d.run(1, func() {
					fill(workers[0], c, k)
					err = takeChecked(c)
				})
				if err != nil {
					return robdd.False, st, err
				}
			}
		} else if err := expandParallel(workers, ring, chunks, fill, takeChecked, d.run); err != nil {
			return robdd.False, st, err
		}
		d.sink = sink
		for L := l + 1; L <= V; L++ {
			buckets[L].recordBirths(l + 1)
		}
		b.drop()
		kept += b.bytes()
	}
	ring = nil
	st.expand = time.Since(start)
	node, err := d.makeNodes(ctx, m, buckets, root, budget, len(workers), &st)
	st.build = time.Since(start) - st.expand
	return node, st, err
}

// expandParallel runs fill on chunks 0..chunks-1 in workers, in ring's
// buffers (chunk k in ring[k%len(ring)]), while the calling goroutine
// takes the filled chunks in order and hands chunk k+len(ring), whose
// buffer take frees, to the workers. It stops at take's first error and
// returns it once every worker has stopped. Each fill and each take runs
// through run (direct.run), which waits for the goroutine's turn on the
// cores when the compile shares them.
func expandParallel(workers []expander, ring []*chunk, chunks int, fill func(expander, *chunk, int), take func(*chunk) error, run func(n int, f func())) error {
	var (
		jobs = make(chan int, len(ring)) // never more than the buffers
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	for k := range min(len(ring), chunks) {
		jobs <- k
	}
	if chunks <= len(ring) {
		close(jobs)
	}
	for _, w := range workers {
		wg.Go(func() {
			for {
				var k int
				select {
				case j, ok := <-jobs:
					if !ok {
						return
					}
					k = j
				case <-stop:
					return
				}
				c := ring[k%len(ring)]
				run(1, func() { fill(w, c, k) })
				c.done <- struct{}{}
			}
		})
	}
	var err error
	for k := range chunks {
		c := ring[k%len(ring)]
		<-c.done
		run(1, func() { err = take(c) })
		if err != nil {
			break
		}
		if next := k + len(ring); next < chunks {
			jobs <- next
			if next == chunks-1 {
				close(jobs)
			}
		}
	}
	close(stop)
	wg.Wait()
	return err
}
