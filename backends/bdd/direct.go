package bdd

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/hugepage"
)

// CompileDirect builds in m the diagram of model's constraints (every
// ExactlyOne line holds one queen, no line holds two), in the model's
// variable order, and returns its root. It is the fast path: instead of
// conjoining constraints, which builds large intermediate diagrams, it
// enumerates the states a placement in variable order can reach and makes
// each node of the result once, bottom-up a level at a time with a
// robdd.LevelBuilder (MakeNode's result, made in bulk), so the root is the
// Node CompileApply returns in the same Manager.
//
// A state at level l is the set of cells at levels >= l that no queen
// placed above l attacks. Placements with the same state have the same
// residual function as long as no ExactlyOne line is left without a queen
// and without a free cell; such a state is dead (false). Each new state is
// settled before it is stored: a cell that every free cell of some
// unsatisfied ExactlyOne line attacks can hold no queen and is removed
// (with a single free cell left, the line forces its queen: unit
// propagation), until nothing changes, which finds most dead states at once
// and merges states that differ only in unusable cells. A pigeonhole test
// then checks that the unsatisfied ExactlyOne lines, which need one queen
// each, do not outnumber the lines of any family of disjoint lines (each
// holds at most one queen) that still have free cells on them; when they
// are exactly as many (the files of N-Queens in row-major order), each of
// those lines must hold a queen and prunes like an ExactlyOne line. Each
// of these steps cuts the states the build holds by a large factor.
//
// A state whose lowest free cell is at level L branches there (a queen or
// not); at the levels above it, down from its birth, it carries on
// unchanged and makes a node whose high child is false. So the build keeps
// each state once, in the bucket of the level at which it branches (see
// bucket), and expands the buckets from the top level down: each state's
// two children are settled and added to the buckets of their own levels,
// where equal states meet, and the state keeps their two refs. The states
// waiting for a level below are not touched until their level comes.
// GOMAXPROCS workers settle the children of a bucket's states, a chunk of
// states at a time, while one goroutine takes them into the buckets in the
// order of the chunks, so the states, the nodes and their ids are those
// of a sequential build, whatever the number of workers. The nodes are
// then made from the bottom level up, each level deduplicated by a table
// of its own, held compactly by the builder and put into the store at
// once, at its exact size, without the Manager's unique table (see
// robdd.LevelBuilder). Memory is, while expanding, the keys and tables of
// the states waiting, and 16 bytes for each state expanded; then 12 bytes
// a live state and at most 24 bytes a node while the nodes go into the
// store, 16 afterwards.
//
// Every node it makes is reachable from the root, so in a Manager that
// held only the terminals the diagram has Size()-2 nodes.
//
// It honours ctx, and the Manager's budget bounds the states as well as
// the nodes: exceeding it returns an error wrapping ErrNodeLimit. On error
// no node is added; nodes that existed before the call keep their ids.
func CompileDirect(ctx context.Context, m *robdd.Manager, model *configurator.Model) (robdd.Node, error) {
	root, _, err := compileDirect(ctx, m, model, nil)
	return root, err
}

// compileDirect is CompileDirect sharing the cores of share's heavy work
// (Options.SpareCore; nil: every core), which also returns the count of
// the diagram's solutions, made along with its nodes (nil past 2⁶⁴).
func compileDirect(ctx context.Context, m *robdd.Manager, model *configurator.Model, share *workspace) (robdd.Node, *big.Int, error) {
	if m.Vars() != model.Vars() {
		return robdd.False, nil, fmt.Errorf("compile %d-queens (direct): a manager of %d variables for %d", model.N(), m.Vars(), model.Vars())
	}
	// The constraints as bitsets take a bitset per cell and two per line
	// (N = 1000 would need 126 GB): check them against the budget first.
	words := int64(model.Vars()+63) / 64
	if need := 8 * words * (int64(model.Vars()) + 2*int64(len(model.Constraints()))); need > m.Budget() {
		return robdd.False, nil, fmt.Errorf("compile %d-queens (direct): %d bytes of bitsets: %w", model.N(), need, robdd.ErrNodeLimit)
	}
	base := m.Size()
	d := newDirect(model)
	d.share = share
	root, st, err := d.compile(ctx, m)
	if err != nil {
		m.CompactFrom(base) // drop the nodes made so far; older ones stay
		return robdd.False, nil, fmt.Errorf("compile %d-queens (direct): %w", model.N(), err)
	}
	return root, st.solutions, nil
}

// direct is a model's constraints as bitsets over levels, words uint64s
// apiece: bit l of a set stands for the cell whose variable is at level l.
type direct struct {
	vars, words int
	// attack[l*words:][:words] is the cell at level l and every cell it
	// attacks: what a queen at l takes out of the free set.
	attack []uint64
	// lines holds the ExactlyOne lines, sorted by their last level,
	// descending, so that those with cells at or below level l come first:
	// active[l] of them. lineOf[l] lists the lines through level l.
	lines  []uint64
	spans  []span
	active []int32
	lineOf [][]int32
	// cellLines is the set of lines through a set of cells, bit i for
	// line i, when there are at most 64 lines (masks): settle then finds
	// the lines that lost cells from the cells, not by testing every line.
	cellLines lineTable
	masks     bool
	// eoCells is the union of the ExactlyOne lines. families are sets of
	// pairwise disjoint lines for the pigeonhole test, which counts queens
	// and so needs disjoint ExactlyOne lines (pigeon).
	eoCells  []uint64
	families []family
	pigeon   bool
	// empty is set when some ExactlyOne line has no cell at all.
	empty bool
	// procs is how many goroutines expand a bucket and chunk how many
	// states they take at a time: GOMAXPROCS and about a megabyte of
	// states by default (0); tests set them to exercise the sharing.
	procs, chunk int
	// sink is what the reads ahead of the takes read (touch), kept so
	// that the reads stay.
	sink uint64
	// share, when set, is the workspace whose cores the compile shares
	// with its Backend's other heavy work (Options.SpareCore): at most
	// share.heavy goroutines expand a bucket, and each piece of work runs
	// in its turn (run).
	share *workspace
}

// run runs f, the work of n goroutines, in its turn on the cores the
// compile shares, if it shares them.
func (d *direct) run(n int, f func()) {
	if d.share == nil {
		f()
		return
	}
	d.share.turn(n, f)
}

// family is a set of pairwise disjoint lines, sorted by last level,
// descending, and the cells they cover. lines holds the cells of each
// line that lie on ExactlyOne lines (eoCells), the only ones the
// pigeonhole test counts and settle prunes with.
type family struct {
	lines []uint64
	spans []span
	last  []int32
	cover []uint64
	// With at most 64 lines (masks): cellLine is the set of lines
	// through a set of cells, and upto[l] is the set of lines with cells
	// at or below level l.
	cellLine lineTable
	upto     []uint64
	masks    bool
}

// span is the words from..to-1 of a line that hold its cells: the only ones
// a test of the line needs to look at.
type span struct{ from, to int32 }

func spanOf(mask []uint64) span {
	var s span
	for j, w := range mask {
		if w != 0 {
			if s.to == 0 {
				s.from = int32(j)
			}
			s.to = int32(j + 1)
		}
	}
	return s
}

// meets reports whether a shares a bit with line, whose cells lie in sp,
// in words from off on.
func meets(a, line []uint64, off int, sp span) bool {
	to := int(sp.to)
	a, line = a[:to], line[:to]
	for j := max(off, int(sp.from)); j < to; j++ {
		if a[j]&line[j] != 0 {
			return true
		}
	}
	return false
}

// directStats describes a direct compile: the count of its solutions, and
// figures for tests and tuning.
type directStats struct {
	// solutions is the count of the root's solutions, summed state by
	// state as the nodes are made; nil when it passed 2⁶⁴.
	solutions *big.Int
	states    []int // per level
	peak      int64 // largest working memory, bytes, the robdd.Manager included
	// expand and build are the times of the expansion of the buckets and
	// of the making of the nodes.
	expand, build time.Duration
}

// newDirect translates model's constraints into bitsets.
func newDirect(model *configurator.Model) *direct {
	vars := model.Vars()
	W := (vars + 63) / 64
	d := &direct{
		vars:    vars,
		words:   W,
		attack:  make([]uint64, vars*W),
		active:  make([]int32, vars+1),
		lineOf:  make([][]int32, vars),
		eoCells: make([]uint64, W),
		pigeon:  true,
	}
	type line struct {
		mask []uint64
		last int32
	}
	var eo, amo []line
	for l := range vars {
		setBit(d.attack[l*W:], l)
	}
	for _, c := range model.Constraints() {
		ln := line{mask: make([]uint64, W), last: -1}
		for _, cell := range c.Cells {
			l := model.Level(model.Var(cell))
			setBit(ln.mask, l)
			ln.last = max(ln.last, int32(l))
		}
		for j, w := range ln.mask {
			for ; w != 0; w &= w - 1 {
				a := j<<6 | bits.TrailingZeros64(w)
				for k := range W {
					d.attack[a*W+k] |= ln.mask[k]
				}
			}
		}
		if c.Kind != configurator.ExactlyOne {
			if popcount(ln.mask) >= 2 {
				amo = append(amo, ln)
			}
			continue
		}
		if ln.last < 0 {
			d.empty = true
			continue
		}
		if intersects(d.eoCells, ln.mask, 0) {
			d.pigeon = false // one queen may serve two overlapping lines
		}
		for k := range W {
			d.eoCells[k] |= ln.mask[k]
		}
		eo = append(eo, ln)
	}
	byLast := func(a, b line) int { return int(b.last - a.last) }
	slices.SortStableFunc(eo, byLast)
	for i, ln := range eo {
		d.lines = append(d.lines, ln.mask...)
		d.spans = append(d.spans, spanOf(ln.mask))
		for l := range ln.last + 1 {
			d.active[l] = int32(i + 1)
			if ln.mask[l>>6]&(1<<(l&63)) != 0 {
				d.lineOf[l] = append(d.lineOf[l], int32(i))
			}
		}
	}
	// Families by first fit in constraint order: for N-Queens the files,
	// the diagonals and the anti-diagonals. (The ExactlyOne lines, if
	// disjoint, would make a family that always has room for their own
	// queens.)
	var groups [][]line
	for _, ln := range amo {
		k := slices.IndexFunc(d.families, func(f family) bool { return !intersects(f.cover, ln.mask, 0) })
		if k < 0 {
			k = len(d.families)
			d.families = append(d.families, family{cover: make([]uint64, W)})
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], ln)
		for j := range W {
			d.families[k].cover[j] |= ln.mask[j]
		}
	}
	for k, g := range groups {
		slices.SortStableFunc(g, byLast)
		fam := &d.families[k]
		for _, ln := range g {
			for j, w := range ln.mask {
				fam.lines = append(fam.lines, w&d.eoCells[j])
			}
			fam.spans = append(fam.spans, spanOf(fam.lines[len(fam.lines)-W:]))
			fam.last = append(fam.last, ln.last)
		}
		if fam.masks = len(g) <= 64; fam.masks {
			cellLine := make([]uint64, vars)
			fam.upto = make([]uint64, vars)
			for i, ln := range g {
				for l := range int(ln.last) + 1 {
					fam.upto[l] |= 1 << i
					if ln.mask[l>>6]&(1<<(l&63)) != 0 {
						cellLine[l] = 1 << i
					}
				}
			}
			fam.cellLine = newLineTable(cellLine)
		}
	}
	if d.masks = len(eo) <= 64; d.masks {
		cellLines := make([]uint64, vars)
		for l, lines := range d.lineOf {
			for _, i := range lines {
				cellLines[l] |= 1 << i
			}
		}
		d.cellLines = newLineTable(cellLines)
	}
	return d
}

// bytes is the memory the bitsets of the constraints take.
func (d *direct) bytes() int64 {
	n := len(d.attack) + len(d.lines) + len(d.eoCells) + len(d.cellLines.nib)
	for _, f := range d.families {
		n += len(f.lines) + len(f.cover) + len(f.cellLine.nib)
	}
	return int64(n) * 8
}

// lineTable maps a set of cells to the set of lines through them, bit i
// for line i of at most 64. For sets of more than one word it looks the
// lines up four cells at a time: nib[p<<4|b] is the lines through the
// cells of nibble p (cells 4p to 4p+3) that the bits of b stand for. These
// lookups do not depend on one another, unlike a walk over the cells of
// the set, one after the other, with a branch the processor cannot
// foresee at each. Sets of one word keep the walk: their boards are
// small, the walks short, and their budgets (compileBytes) hold no room
// for the tables.
type lineTable struct {
	cell []uint64 // the lines through each cell
	nib  []uint64
}

// newLineTable makes the table of cell, the lines through each cell.
func newLineTable(cell []uint64) lineTable {
	t := lineTable{cell: cell}
	if len(cell) <= 64 {
		return t
	}
	t.nib = make([]uint64, (len(cell)+3)/4<<4)
	for p := range len(t.nib) >> 4 {
		for b := 1; b < 16; b++ {
			lines := t.nib[p<<4|b&(b-1)]
			if c := 4*p + bits.TrailingZeros(uint(b)); c < len(cell) {
				lines |= cell[c]
			}
			t.nib[p<<4|b] = lines
		}
	}
	return t
}

// of is the set of lines through the cells of s, in its words from off
// on.
func (t *lineTable) of(s []uint64, off int) uint64 {
	var lines uint64
	if t.nib == nil {
		for j := max(off, 0); j < len(s); j++ {
			for w := s[j]; w != 0; w &= w - 1 {
				lines |= t.cell[j<<6|bits.TrailingZeros64(w)]
			}
		}
		return lines
	}
	for j := max(off, 0); j < len(s); j++ {
		w, r := s[j], t.nib[min(j<<8, len(t.nib)):]
		if len(r) < 256 { // the last word, part of whose cells exist
			for q := 0; q < len(r); q += 16 {
				lines |= r[q|int(w&15)]
				w >>= 4
			}
			continue
		}
		if w == 0 {
			continue
		}
		r = r[:256]
		for q := 0; q < 256; q += 64 {
			lines |= r[q|int(w&15)] | r[q|16|int(w>>4&15)] | r[q|32|int(w>>8&15)] | r[q|48|int(w>>12&15)]
			w >>= 16
		}
	}
	return lines
}

func setBit(s []uint64, l int) { s[l>>6] |= 1 << (l & 63) }

func popcount(s []uint64) int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// intersects reports whether a and b share a bit in words from on.
func intersects(a, b []uint64, from int) bool {
	b = b[:len(a)]
	for i := from; i < len(a); i++ {
		if a[i]&b[i] != 0 {
			return true
		}
	}
	return false
}

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

// shareOut runs f on procs goroutines, each with its range from..to-1 of
// 0..n-1, and waits for them; with one, on the calling goroutine.
func shareOut(procs, n int, f func(p, from, to int)) {
	if procs <= 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() { f(p, p*n/procs, (p+1)*n/procs) })
	}
	wg.Wait()
}

// makeNodes makes the nodes of the expanded buckets from the bottom level
// up and returns the root's, root being the state of the full board; it
// counts the solutions of each state along the way, the root's into st.
// At level m, the level's own states branch (a node whose children are
// those of their kids), and the states of the buckets below that were born
// at or above m carry on (a node whose high child is false). Each live
// state has its node and count at the level below in its bucket's slot of
// nodes and counts, which the level's overwrites; the state of bucket V,
// the empty set, if any, is true.
func (d *direct) makeNodes(ctx context.Context, m *robdd.Manager, buckets []bucket, root ref, budget int64, procs int, st *directStats) (robdd.Node, error) {
	V := d.vars
	// live[m] is the number of states alive at level m, and at[L] the
	// index in buckets[L].born of the last birth at or above the level
	// being made.
	live := make([]int, V+2)
	for L := range buckets {
		prev := 0
		for _, bt := range buckets[L].born {
			live[bt.level] += int(bt.n) - prev
			live[L+1] -= int(bt.n) - prev
			prev = int(bt.n)
		}
	}
	widest := 0
	for m := range V {
		if m > 0 {
			live[m] += live[m-1]
		}
		widest = max(widest, live[m])
	}
	at := make([]int, V+1)
	for L := range buckets {
		at[L] = len(buckets[L].born) - 1
	}
	lo, hi, out := make([]robdd.Node, widest), make([]robdd.Node, widest), make([]robdd.Node, widest)
	bufBytes := int64(3 * 4 * widest)
	nodes, counts := make([][]robdd.Node, V+1), make([][]uint64, V+1)
	var stateBytes, kidBytes int64
	for L := range buckets {
		kidBytes += int64(cap(buckets[L].kids)) * 8
	}
	if buckets[V].n > 0 {
		nodes[V], counts[V] = []robdd.Node{robdd.True}, []uint64{1}
		stateBytes += 12
	}
	overflow := make([]uint64, procs) // a carry met, by goroutine
	b := m.NewLevelBuilder()
	if d.share != nil {
		b.SetProcs(procs)
	}
	errs := make([]error, procs)
	st.states = make([]int, V)
	for l := V - 1; l >= 0; l-- {
		st.states[l] = live[l]
		own := &buckets[l]
		n := own.n
		if n > 0 {
			nodes[l], counts[l] = make([]robdd.Node, n), make([]uint64, n)
			hugepage.Advise(nodes[l])
			hugepage.Advise(counts[l])
			stateBytes += 12 * int64(n)
		}
		share := procs
		if n < ctxEvery {
			share = 1 // not worth the goroutines
		}
		clear(errs)
		kids, cnt := own.kids, counts[l]
		d.run(share, func() {
			shareOut(share, n, func(p, from, to int) {
				for start := from; start < to; start += ctxEvery {
					if errs[p] = ctx.Err(); errs[p] != nil {
						return
					}
					for i := start; i < min(start+ctxEvery, to); i++ {
						lo[i], hi[i] = robdd.False, robdd.False
						var c0, c1 uint64
						if r := kids[2*i]; !r.dead() {
							lo[i], c0 = nodes[r.level()][r.index()], counts[r.level()][r.index()]
						}
						if r := kids[2*i+1]; !r.dead() {
							hi[i], c1 = nodes[r.level()][r.index()], counts[r.level()][r.index()]
						}
						var carry uint64
						cnt[i], carry = bits.Add64(c0, c1, 0)
						overflow[p] |= carry
					}
				}
			})
		})
		for _, err := range errs {
			if err != nil {
				return robdd.False, err
			}
		}
		if err := ctx.Err(); err != nil {
			return robdd.False, err
		}
		// The states of the buckets below that carry on through l: those
		// born at or above it.
		j := n
		for L := l + 1; L <= V; L++ {
			born := buckets[L].born
			for at[L] >= 0 && int(born[at[L]].level) > l {
				at[L]--
			}
			a := 0
			if at[L] >= 0 {
				a = int(born[at[L]].n)
			}
			stateBytes -= 12 * int64(len(nodes[L])-a)
			nodes[L], counts[L] = nodes[L][:a], counts[L][:a]
			copy(lo[j:], nodes[L])
			clear(hi[j : j+a])
			j += a
		}
		// The level in one call, which sizes the builder's table once; the
		// memory it adds is checked with the next level's. The nodes the
		// builder holds, 8 bytes each and 16 in the store after Commit,
		// are charged by the Manager's budget, BytesPerNode each, as
		// MakeNode's would be: the check here is for the rest.
		used := kidBytes + stateBytes + bufBytes + b.Bytes() - 8*int64(b.Made()) + m.Bytes()
		if used > budget {
			return robdd.False, fmt.Errorf("%d nodes at level %d, %d bytes: %w", m.Size()+b.Made(), l, used, robdd.ErrNodeLimit)
		}
		st.peak = max(st.peak, used)
		var err error
		d.run(procs, func() { err = b.MakeLevel(l, lo[:j], hi[:j], out[:j]) })
		if err != nil {
			return robdd.False, err
		}
		copy(nodes[l], out[:n])
		j = n
		for L := l + 1; L <= V; L++ {
			j += copy(nodes[L], out[j:])
		}
		kidBytes -= int64(cap(own.kids)) * 8
		own.kids = nil
	}
	node := nodes[root.level()][root.index()]
	if !slices.Contains(overflow, 1) {
		st.solutions = new(big.Int).SetUint64(counts[root.level()][root.index()])
	}
	nodes, counts, lo, hi, out = nil, nil, nil, nil, nil
	// Commit adds a 16-byte node for every 8 bytes the builder holds, 24
	// bytes a node at most, and no unique table: within the BytesPerNode
	// the Manager's budget charges each, which Commit enforces.
	var err error
	d.run(procs, func() { err = b.Commit() })
	if err != nil {
		return robdd.False, err
	}
	return node, nil
}

// unsatisfied counts the ExactlyOne lines with free cells in s, a state at
// level l: those still waiting for their queen.
func (d *worker[A]) unsatisfied(s []uint64, l int) int {
	W, off := width[A](d.direct), l>>6
	n := 0
	for i := range int(d.active[l]) {
		if meets(s, d.lines[i*W:(i+1)*W], off, d.spans[i]) {
			n++
		}
	}
	return n
}

// settle brings f, a child at level l+1 of a settled state, which lost the
// cells in removed (words from l>>6 on; removed is overwritten), to its
// fixpoint, and reports whether it is alive and which families are tight
// in it. The lines in sat (through a queen just placed at l) are satisfied
// and exempt from the emptiness check; need is the number of unsatisfied
// ExactlyOne lines, for the pigeonhole test; parentTight is the tight
// families of the parent.
//
// The fixpoint removes every cell that all the free cells of an
// unsatisfied ExactlyOne line attack: one of those must hold a queen, so
// such a cell cannot, and removing it leaves the residual function
// unchanged. A family is tight when its lines with free ExactlyOne cells
// are as many as the queens needed: then each of them holds one queen on
// those cells, and they are treated as ExactlyOne lines too. Since the
// parent was settled, only the lines that lost cells need a new look, and
// the lines of a family that was not tight in the parent.
func (d *worker[A]) settle(f, removed []uint64, l int, sat []int32, need int, parentTight uint64) (uint64, bool) {
	W, off := width[A](d.direct), l>>6
	f, removed = f[:W], removed[:W]
	lost := d.lost[:W] // removed since the families' lines were last looked at
	copy(lost[off:], removed[off:])
	full := parentTight // tight families whose lines have all been pruned
	for {
		dirty := d.dirty[:0]
		if d.masks {
			// The lines through the removed cells, but those in sat.
			touched, exempt := d.cellLines.of(removed, off), uint64(0)
			for _, i := range sat {
				exempt |= 1 << i
			}
			for t := touched &^ exempt; t != 0; t &= t - 1 {
				i := bits.TrailingZeros64(t)
				if !meets(f, d.lines[i*W:(i+1)*W], off, d.spans[i]) {
					return 0, false
				}
				dirty = append(dirty, int32(i))
			}
		} else {
			for i := range int(d.active[l]) {
				line := d.lines[i*W : (i+1)*W]
				if !meets(removed, line, off, d.spans[i]) || slices.Contains(sat, int32(i)) {
					continue
				}
				if !meets(f, line, off, d.spans[i]) {
					return 0, false
				}
				dirty = append(dirty, int32(i))
			}
		}
		d.dirty = dirty
		sat = nil
		for j := off; j < W; j++ {
			removed[j] = 0
		}
		changed := false
		for _, i := range dirty {
			line := d.lines[int(i)*W : int(i+1)*W]
			changed = d.prune(f, line, removed, off) || changed
		}
		if changed {
			for j := off; j < W; j++ {
				lost[j] |= removed[j]
			}
			continue
		}
		if !d.pigeon {
			return 0, true
		}
		tight, ok := d.fits(f, l, need)
		if !ok {
			return 0, false
		}
		for k := range d.families {
			if tight&(1<<k) == 0 {
				continue
			}
			fam := &d.families[k]
			if fam.masks {
				// The lines that lost cells, or all of them.
				todo := fam.upto[l]
				if full&(1<<k) != 0 {
					todo &= fam.cellLine.of(lost, off)
				}
				for ; todo != 0; todo &= todo - 1 {
					i := bits.TrailingZeros64(todo)
					changed = d.prune(f, fam.lines[i*W:(i+1)*W], removed, off) || changed
				}
				continue
			}
			for i := 0; i < len(fam.last) && int(fam.last[i]) >= l; i++ {
				line := fam.lines[i*W : (i+1)*W]
				if full&(1<<k) == 0 || meets(lost, line, off, fam.spans[i]) {
					changed = d.prune(f, line, removed, off) || changed
				}
			}
		}
		if !changed {
			return tight, true
		}
		full |= tight
		for j := off; j < W; j++ {
			lost[j] = removed[j]
		}
	}
}

// prune removes from f (words from off) the cells that every free cell of
// line attacks, except those candidates themselves, adds them to removed,
// and reports whether there were any. It stops as soon as the candidates
// seen so far leave nothing to remove, which is the usual case.
func (d *worker[A]) prune(f, line, removed []uint64, off int) bool {
	W := width[A](d.direct)
	f, line, removed, common := f[:W], line[:W], removed[:W], d.common[:W]
	first := true
	for j := off; j < W; j++ {
		for w := f[j] & line[j]; w != 0; w &= w - 1 {
			att := d.attack[(j<<6|bits.TrailingZeros64(w))*W:]
			var left uint64
			if first {
				for k := off; k < W; k++ {
					common[k] = att[k] & f[k] &^ line[k]
					left |= common[k]
				}
				first = false
			} else {
				for k := off; k < W; k++ {
					common[k] &= att[k]
					left |= common[k]
				}
			}
			if left == 0 {
				return false
			}
		}
	}
	if first {
		return false
	}
	for j := off; j < W; j++ {
		f[j] &^= common[j]
		removed[j] |= common[j]
	}
	return true
}

// fits is the pigeonhole test on state f (words from l>>6): the need
// unsatisfied ExactlyOne lines want a queen each on their free cells, which
// hold at most one queen per line of a family, plus one per cell outside
// the family.
func (d *worker[A]) fits(f []uint64, l, need int) (tight uint64, ok bool) {
	W, off := width[A](d.direct), l>>6
	f, g := f[:W], d.free[:W]
	for j := off; j < W; j++ {
		g[j] = f[j] & d.eoCells[j]
	}
	for k := range d.families {
		fam := &d.families[k]
		room := 0
		if fam.masks {
			// The lines met, from the cells on them.
			for j := off; j < W; j++ {
				room += bits.OnesCount64(g[j] &^ fam.cover[j])
			}
			room += bits.OnesCount64(fam.cellLine.of(g, off))
		} else {
			for j := off; j < W; j++ {
				room += bits.OnesCount64(g[j] &^ fam.cover[j])
			}
		}
		for i := 0; !fam.masks && room <= need && i < len(fam.last) && int(fam.last[i]) >= l; i++ {
			if meets(g, fam.lines[i*W:(i+1)*W], off, fam.spans[i]) {
				room++
			}
		}
		if room < need {
			return 0, false
		}
		if room == need && k < 64 {
			tight |= 1 << k
		}
	}
	return tight, true
}
