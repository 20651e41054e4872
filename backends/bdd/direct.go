package bdd

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
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
