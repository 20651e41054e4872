package robdd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The diagram file, all integers little-endian:
//
//	offset 0   magic        8 bytes "ROBDD\r\n\x1a" (a text-mode copy mangles it)
//	       8   version      uint32: FileVersion, or FileVersionOrdered
//	      12   vars         uint32, the Manager's variables
//	      16   nodes        uint64, the decision nodes that follow
//	      24   roots        uint32, the roots that follow
//	      28   header CRC   uint32, CRC-32C of bytes 0..27
//	      32   order        FileVersionOrdered only: uint32 each, the
//	                        variable at each level, the top first
//	           roots        uint32 each: node ids
//	           nodes        level, low, high: uint32 each, 12 bytes a node,
//	                        for ids 2, 3, ... (0 and 1 are the terminals)
//	           CRC          uint32, CRC-32C of every byte before it
//
// The nodes are those the roots reach, renumbered densely in their order in
// the Manager, so children precede their parents, as in a Manager; a node's
// level is its position in the order. A file is 36 + 4·roots + 12·nodes
// bytes, and 4·vars more with an order.
//
// A Manager in the identity order (every Manager that was never
// reordered) is written in FileVersion, whose files hold no order, so that
// their bytes do not depend on whether the other version exists; a
// reordered one in FileVersionOrdered. Load reads both.

// FileVersion is the version of a diagram file in the identity order, and
// FileVersionOrdered that of a file that carries its order. A file of any
// other version is refused with ErrVersion.
const (
	FileVersion        = 1
	FileVersionOrdered = 2
)

const (
	fileMagic  = "ROBDD\r\n\x1a"
	headerSize = 32
	fileNode   = 12 // bytes of a node in the file
	// maxRoots bounds the roots of a file, so that a forged header cannot
	// make Load allocate much before the checksum refuses it.
	maxRoots = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Errors of Load. Every refusal of a file wraps ErrFormat, and a file cut
// short wraps io.ErrUnexpectedEOF as well.
var (
	// ErrFormat reports a file that is not a well-formed diagram file.
	ErrFormat = errors.New("not a valid diagram file")
	// ErrVersion reports a diagram file of another version.
	ErrVersion = errors.New("diagram file of another version")
	// ErrChecksum reports a diagram file whose bytes do not match their
	// checksum: it was damaged after it was written.
	ErrChecksum = errors.New("diagram file checksum mismatch")
)

// Save writes the diagrams of roots to w as a diagram file: the nodes they
// reach, in 12 bytes each, the roots, and the variable order when it is
// not the identity, so that Load rebuilds an equal Manager (same
// variables and order, the roots' nodes and nothing else) and Save of that
// Manager writes the same bytes. It only reads the Manager, visiting every
// node below the largest root.
func (m *Manager) Save(w io.Writer, roots ...Node) error {
	if len(roots) > maxRoots {
		return fmt.Errorf("save %d roots: at most %d", len(roots), maxRoots)
	}
	top := Node(1)
	for _, r := range roots {
		if int(r) >= len(m.nodes) {
			return fmt.Errorf("save: root %d of a manager of %d nodes", r, len(m.nodes))
		}
		top = max(top, r)
	}
	// Parents have larger ids than their children: one sweep down from
	// the largest root marks every node the roots reach, and rank[w] counts
	// the marked nodes in the words before w, so a marked node's new id is
	// 2 plus the marked nodes below it.
	words := int(top)/64 + 1
	mark := make([]uint64, words)
	for _, r := range roots {
		mark[r/64] |= 1 << (r % 64)
	}
	mark[0] &^= 3 // the terminals are implicit
	for i := int(top); i > int(True); i-- {
		if mark[i/64]&(1<<(i%64)) != 0 {
			nd := m.nodes[i]
			mark[nd.lo/64] |= 1 << (nd.lo % 64)
			mark[nd.hi/64] |= 1 << (nd.hi % 64)
		}
	}
	mark[0] &^= 3
	rank := make([]uint32, words)
	var total uint32
	for w := range mark {
		rank[w] = total
		total += uint32(bits.OnesCount64(mark[w]))
	}
	newID := func(id uint32) uint32 {
		if id <= uint32(True) {
			return id
		}
		w, b := id/64, id%64
		return 2 + rank[w] + uint32(bits.OnesCount64(mark[w]&(1<<b-1)))
	}

	fw := &fileWriter{w: bufio.NewWriterSize(w, 1<<16)}
	head := make([]byte, headerSize)
	copy(head, fileMagic)
	version := uint32(FileVersion)
	if m.varAt != nil {
		version = FileVersionOrdered
	}
	binary.LittleEndian.PutUint32(head[8:], version)
	binary.LittleEndian.PutUint32(head[12:], uint32(m.vars))
	binary.LittleEndian.PutUint64(head[16:], uint64(total))
	binary.LittleEndian.PutUint32(head[24:], uint32(len(roots)))
	binary.LittleEndian.PutUint32(head[28:], crc32.Checksum(head[:28], castagnoli))
	fw.write(head)
	buf := make([]byte, 0, 1<<16)
	for _, v := range m.varAt {
		buf = binary.LittleEndian.AppendUint32(buf, v)
		buf = fw.flushFull(buf, 4)
	}
	for _, r := range roots {
		buf = binary.LittleEndian.AppendUint32(buf, newID(uint32(r)))
		buf = fw.flushFull(buf, 4)
	}
	buf = fw.flushFull(buf, fileNode)
	for i := int(True) + 1; i <= int(top); i++ {
		if mark[i/64]&(1<<(i%64)) == 0 {
			continue
		}
		nd := m.nodes[i]
		buf = binary.LittleEndian.AppendUint32(buf, nd.level)
		buf = binary.LittleEndian.AppendUint32(buf, newID(nd.lo))
		buf = binary.LittleEndian.AppendUint32(buf, newID(nd.hi))
		buf = fw.flushFull(buf, fileNode)
	}
	fw.write(buf)
	fw.write(binary.LittleEndian.AppendUint32(nil, fw.crc))
	if fw.err != nil {
		return fmt.Errorf("save diagram: %w", fw.err)
	}
	if err := fw.w.Flush(); err != nil {
		return fmt.Errorf("save diagram: %w", err)
	}
	return nil
}

// fileWriter writes through a buffer, keeping the running checksum and the
// first error.
type fileWriter struct {
	w   *bufio.Writer
	crc uint32
	err error
}

func (f *fileWriter) write(p []byte) {
	if f.err != nil {
		return
	}
	f.crc = crc32.Update(f.crc, castagnoli, p)
	_, f.err = f.w.Write(p)
}

// flushFull writes buf and returns it emptied when another record of size
// bytes would not fit its capacity, so that appending one never grows it.
func (f *fileWriter) flushFull(buf []byte, size int) []byte {
	if len(buf)+size <= cap(buf) {
		return buf
	}
	f.write(buf)
	return buf[:0]
}

// Load reads a diagram file that Save wrote and rebuilds its Manager, whose
// nodes take at most budget bytes as in New, in the variable order saved,
// and the roots, in the order saved. It trusts nothing in the file: a file
// of another version is refused with ErrVersion, damaged bytes with
// ErrChecksum, and anything else malformed (a bad magic, an order that is
// no permutation, a node out of order, unreduced or twice, a root that is
// no node, a file cut short) with ErrFormat; a diagram beyond
// the budget fails with ErrNodeLimit. It reads nothing past the file's
// last byte when r is a *bufio.Reader of at least 64 KiB.
//
// The Manager it returns holds the nodes alone, without a unique table: a
// loaded diagram is mostly only read, and the first operation that makes
// nodes builds it (Bytes counts what is held). To find a node twice, Load
// looks at a level at a time, on every core, when the file's nodes come a
// level at a time (as a diagram made a level at a time saves them), and
// builds a unique table otherwise, which it drops at the end.
func Load(r io.Reader, budget int64) (*Manager, []Node, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head := make([]byte, headerSize)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, nil, loadErr("header", err)
	}
	if string(head[:8]) != fileMagic {
		return nil, nil, fmt.Errorf("load diagram: magic %q: %w", head[:8], ErrFormat)
	}
	version := binary.LittleEndian.Uint32(head[8:])
	if version != FileVersion && version != FileVersionOrdered {
		return nil, nil, fmt.Errorf("load diagram: version %d, want %d or %d: %w: %w", version, FileVersion, FileVersionOrdered, ErrVersion, ErrFormat)
	}
	if got, want := crc32.Checksum(head[:28], castagnoli), binary.LittleEndian.Uint32(head[28:]); got != want {
		return nil, nil, fmt.Errorf("load diagram: header: %w: %w", ErrChecksum, ErrFormat)
	}
	vars := binary.LittleEndian.Uint32(head[12:])
	count := binary.LittleEndian.Uint64(head[16:])
	nroots := binary.LittleEndian.Uint32(head[24:])
	if vars >= maxIDs || nroots > maxRoots {
		return nil, nil, fmt.Errorf("load diagram: %d variables, %d roots: %w", vars, nroots, ErrFormat)
	}
	m := New(int(vars), budget)
	if count > uint64(m.maxNodes-2) {
		return nil, nil, fmt.Errorf("load diagram: %d nodes, budget %d: %w", count, m.maxNodes, ErrNodeLimit)
	}
	// Sized once: the store never grows.
	m.nodes = make([]node, 2, int(count)+2)
	adviseHuge(m.nodes)
	m.nodes[False] = node{level: vars}
	m.nodes[True] = node{level: vars}

	crc := crc32.Update(0, castagnoli, head)
	buf := make([]byte, 1<<16)
	read := func(n int) ([]byte, error) {
		p := buf[:n]
		if _, err := io.ReadFull(br, p); err != nil {
			return nil, err
		}
		crc = crc32.Update(crc, castagnoli, p)
		return p, nil
	}
	if version == FileVersionOrdered {
		// Read as it comes, so that a forged count of variables cannot
		// make Load allocate more than the file holds.
		var order []uint32
		for len(order) < int(vars) {
			k := min(int(vars)-len(order), len(buf)/4)
			p, err := read(4 * k)
			if err != nil {
				return nil, nil, loadErr("order", err)
			}
			for j := range k {
				order = append(order, binary.LittleEndian.Uint32(p[4*j:]))
			}
		}
		if err := m.checkOrder32(order); err != nil {
			return nil, nil, fmt.Errorf("load diagram: %w: %w", err, ErrFormat)
		}
		m.setOrder(order)
		if m.varAt == nil {
			return nil, nil, fmt.Errorf("load diagram: the identity order in a file of version %d: %w", FileVersionOrdered, ErrFormat)
		}
	}
	total := int(count) + 2
	roots := make([]Node, nroots)
	for i := 0; i < len(roots); {
		k := min(len(roots)-i, len(buf)/4)
		p, err := read(4 * k)
		if err != nil {
			return nil, nil, loadErr("roots", err)
		}
		for j := range k {
			r := binary.LittleEndian.Uint32(p[4*j:])
			if int(r) >= total {
				return nil, nil, fmt.Errorf("load diagram: root %d of %d nodes: %w", r, total, ErrFormat)
			}
			roots[i+j] = Node(r)
		}
		i += k
	}
	// byLevel holds while the levels never rise from one node to the
	// next: the nodes come a level at a time, as a compile that makes a
	// level at a time (LevelBuilder) leaves them.
	byLevel := true
	for id := 2; id < total; {
		k := min(total-id, len(buf)/fileNode)
		p, err := read(fileNode * k)
		if err != nil {
			return nil, nil, loadErr("nodes", err)
		}
		for q := p[:fileNode*k]; len(q) > 0; q = q[fileNode:] {
			n := node{
				level: binary.LittleEndian.Uint32(q),
				lo:    binary.LittleEndian.Uint32(q[4:]),
				hi:    binary.LittleEndian.Uint32(q[8:]),
			}
			if err := m.checkLoaded(n); err != nil {
				return nil, nil, err
			}
			byLevel = byLevel && n.level <= m.nodes[len(m.nodes)-1].level
			m.nodes = append(m.nodes, n)
		}
		id += k
	}
	tail := make([]byte, 4)
	if _, err := io.ReadFull(br, tail); err != nil {
		return nil, nil, loadErr("checksum", err)
	}
	if binary.LittleEndian.Uint32(tail) != crc {
		return nil, nil, fmt.Errorf("load diagram: %w: %w", ErrChecksum, ErrFormat)
	}
	check := m.twinsInTable
	if byLevel {
		check = m.twinsByLevel
	}
	if err := check(); err != nil {
		return nil, nil, err
	}
	// A loaded diagram is mostly only read: it has no unique table (4
	// bytes a node of capacity) until the first MakeNode, if any,
	// rebuilds it.
	m.buckets = nil
	return m, roots, nil
}

// checkLoaded checks n, the next node of a file, against what a Manager's
// nodes obey but canonicity (no two nodes equal), which twinsByLevel or
// twinsInTable check once every node is in: a level in range, children
// made before it, at deeper levels, and different (reduced).
func (m *Manager) checkLoaded(n node) error {
	id := uint32(len(m.nodes))
	switch {
	case n.level >= uint32(m.vars):
		return loadedErr(id, n, "level out of range")
	case n.lo >= id || n.hi >= id:
		return loadedErr(id, n, "child not made before it")
	case m.nodes[n.lo].level <= n.level || m.nodes[n.hi].level <= n.level:
		return loadedErr(id, n, "child not below it")
	case n.lo == n.hi:
		return loadedErr(id, n, "not reduced")
	}
	return nil
}

func loadedErr(id uint32, n node, why string) error {
	return fmt.Errorf("load diagram: node %d (level %d, low %d, high %d): %s: %w", id, n.level, n.lo, n.hi, why, ErrFormat)
}

// twinsByLevel reports the first node of the store (by id) equal to one
// before it, when the nodes come a level at a time: then two equal nodes
// lie in the run of one level, and the runs are looked at apart, largest
// first, on every core. A run's nodes are spread by hash into parts of
// about twinPart nodes, each then looked at in a table of its own that
// holds the children of its nodes (the level being the run's) and fits a
// core's cache: the large levels of a large diagram would miss the cache
// at every node in one table of their size.
func (m *Manager) twinsByLevel() error {
	type run struct{ from, to uint32 }
	var runs []run
	for i := 2; i < len(m.nodes); {
		j := i + 1
		for j < len(m.nodes) && m.nodes[j].level == m.nodes[i].level {
			j++
		}
		runs = append(runs, run{uint32(i), uint32(j)})
		i = j
	}
	slices.SortFunc(runs, func(a, b run) int { return int(b.to-b.from) - int(a.to-a.from) })
	// twin[k] is the first node of run k equal to an earlier one, of[k]
	// that earlier one; 0 for none.
	twin, of := make([]uint32, len(runs)), make([]uint32, len(runs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(runs)) {
		wg.Go(func() {
			t := twinFinder{part: twinPart}
			for {
				k := int(next.Add(1) - 1)
				if k >= len(runs) {
					return
				}
				twin[k], of[k] = t.find(m.nodes, runs[k].from, runs[k].to)
			}
		})
	}
	wg.Wait()
	first := -1
	for k, id := range twin {
		if id != 0 && (first < 0 || id < twin[first]) {
			first = k
		}
	}
	if first < 0 {
		return nil
	}
	return loadedErr(twin[first], m.nodes[twin[first]], fmt.Sprintf("equal to node %d", of[first]))
}

// twinPart is about how many nodes of a level twinFinder looks at in one
// table: 2¹⁵, a table of 512 KiB.
const twinPart = 1 << 15

// twinFinder is the work space of one goroutine of twinsByLevel: the
// hashes of a run's nodes, in order, then the nodes spread into parts of
// about part nodes (their children, low<<32 | high, never 0 for a reduced
// node, their ids and their hashes), and the table of a part.
type twinFinder struct {
	part            int
	hashes          []uint32
	keys            []uint64
	ids, partHashes []uint32
	table           []uint64
}

// find returns the first node of the ids from..to-1 of nodes, all of one
// level, equal to an earlier one, and that earlier one; 0, 0 for none.
func (t *twinFinder) find(nodes []node, from, to uint32) (twin, of uint32) {
	size := int(to - from)
	parts := 1
	for parts*t.part < size {
		parts *= 2
	}
	shift := 32 - bits.Len(uint(parts-1))
	part := func(h uint32) int {
		if parts == 1 {
			return 0
		}
		return int(h >> shift)
	}
	// The parts, each in order of id: where each begins, then the nodes.
	t.hashes = room(t.hashes, size)
	start := make([]int, parts+1)
	for id := from; id < to; id++ {
		n := nodes[id]
		h := hash(n.level, Node(n.lo), Node(n.hi))
		t.hashes = append(t.hashes, h)
		start[part(h)+1]++
	}
	for p := range parts {
		start[p+1] += start[p]
	}
	t.keys, t.ids, t.partHashes = room(t.keys, size)[:size], room(t.ids, size)[:size], room(t.partHashes, size)[:size]
	at := slices.Clone(start[:parts])
	for i, h := range t.hashes {
		n := nodes[from+uint32(i)]
		p := part(h)
		t.keys[at[p]], t.ids[at[p]], t.partHashes[at[p]] = uint64(n.lo)<<32|uint64(n.hi), from+uint32(i), h
		at[p]++
	}
	for p := range parts {
		keys, ids, hashes := t.keys[start[p]:start[p+1]], t.ids[start[p]:start[p+1]], t.partHashes[start[p]:start[p+1]]
		t.table = clearedTable(t.table, 2*len(keys))
		mask := uint32(len(t.table) - 1)
	part:
		for i, key := range keys {
			b := hashes[i] & mask
			for ; t.table[b] != 0; b = (b + 1) & mask {
				if t.table[b] == key {
					if twin == 0 || ids[i] < twin {
						twin, of = ids[i], ids[slices.Index(keys, key)]
					}
					break part
				}
			}
			t.table[b] = key
		}
	}
	return twin, of
}

// room returns s emptied, with room for n elements, reusing its memory
// when it has that much.
func room[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, 0, n)
	}
	return s[:0]
}

// clearedTable returns t cleared and sized to the smallest power of two of
// at least n slots (and 1024), reusing t's memory when it has room.
func clearedTable(t []uint64, n int) []uint64 {
	size := tableSize(n)
	if cap(t) < size {
		return make([]uint64, size)
	}
	t = t[:size]
	clear(t)
	return t
}

// twinsInTable reports the first node of the store (by id) equal to one
// before it, whatever the order of their levels: the nodes go into a
// unique table in order, a batch at a time (the lookups of a batch, a
// cache miss or two each, are independent, so the processor overlaps
// them), as MakeNode would put them.
func (m *Manager) twinsInTable() error {
	m.buckets = make([]uint32, tableSize(len(m.nodes)))
	adviseHuge(m.buckets)
	mask := uint32(len(m.buckets) - 1)
	var bucket, head [loadBatch]uint32
	for first := 2; first < len(m.nodes); first += loadBatch {
		batch := m.nodes[first:min(first+loadBatch, len(m.nodes))]
		for j, n := range batch {
			bucket[j] = hash(n.level, Node(n.lo), Node(n.hi)) & mask
			head[j] = m.buckets[bucket[j]]
		}
		twin := func(id, i uint32) error {
			return loadedErr(id, m.nodes[id], fmt.Sprintf("equal to node %d", i))
		}
		// Equal to a node of an earlier batch: the chains as they were.
		for j, n := range batch {
			for i := head[j]; i != 0; i = m.nodes[i].next {
				if o := m.nodes[i]; o.level == n.level && o.lo == n.lo && o.hi == n.hi {
					return twin(uint32(first+j), i)
				}
			}
		}
		// Equal to one of this batch, which the chains now begin with.
		for j, n := range batch {
			id := uint32(first + j)
			b := bucket[j]
			for i := m.buckets[b]; i >= uint32(first); i = m.nodes[i].next {
				if o := m.nodes[i]; o.level == n.level && o.lo == n.lo && o.hi == n.hi {
					return twin(id, i)
				}
			}
			m.nodes[id].next = m.buckets[b]
			m.buckets[b] = id
		}
	}
	return nil
}

// loadBatch is how many nodes twinsInTable looks up at once.
const loadBatch = 64

// loadErr wraps a read error: a file cut short is malformed.
func loadErr(part string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("load diagram: %s cut short: %w: %w", part, io.ErrUnexpectedEOF, ErrFormat)
	}
	return fmt.Errorf("load diagram: %s: %w", part, err)
}
