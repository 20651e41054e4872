package robdd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/nqueens/configurator/internal/hugepage"
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
// The Manager it returns holds the nodes alone: the unique table that
// Load builds to find a node twice is dropped at the end, since a loaded
// diagram is mostly only read, and the first operation that makes nodes
// rebuilds it (Bytes counts what is held).
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
	// Sized once: MakeNode neither grows the store nor rehashes.
	size := 1024
	for size < int(count)+2 {
		size *= 2
	}
	m.nodes = make([]node, 2, int(count)+2)
	hugepage.Advise(m.nodes)
	m.nodes[False] = node{level: vars}
	m.nodes[True] = node{level: vars}
	m.buckets = make([]uint32, size)
	hugepage.Advise(m.buckets)

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
	recs := make([]node, 0, loadBatch)
	for id := 2; id < total; {
		k := min(total-id, len(buf)/fileNode)
		p, err := read(fileNode * k)
		if err != nil {
			return nil, nil, loadErr("nodes", err)
		}
		for j := 0; j < k; j += loadBatch {
			recs = recs[:0]
			for q := p[fileNode*j : fileNode*min(j+loadBatch, k)]; len(q) > 0; q = q[fileNode:] {
				recs = append(recs, node{
					level: binary.LittleEndian.Uint32(q),
					lo:    binary.LittleEndian.Uint32(q[4:]),
					hi:    binary.LittleEndian.Uint32(q[8:]),
				})
			}
			if err := m.loadNodes(id+j, recs); err != nil {
				return nil, nil, err
			}
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
	// The unique table checked that no node came twice; a loaded diagram
	// is mostly only read, so it goes (4 bytes a node of capacity, 2 GiB
	// at 16×16) and the first MakeNode, if any, rebuilds it.
	m.buckets = nil
	return m, roots, nil
}

// loadBatch is how many nodes loadNodes takes at once.
const loadBatch = 64

// loadNodes adds the nodes recs of a file, whose ids are first, first+1,
// ..., checking what a Manager's nodes obey: children made before them, at
// deeper levels, different (reduced), and no node equal to another
// (canonical). It does what MakeNode does for each, a batch at a time: the
// lookups of the unique table, a cache miss or two each, are independent
// within a batch, so the processor overlaps them. The store and the table
// must have room for every node of the file.
func (m *Manager) loadNodes(first int, recs []node) error {
	bad := func(j int, why string) error {
		r := recs[j]
		return fmt.Errorf("load diagram: node %d (level %d, low %d, high %d): %s: %w", first+j, r.level, r.lo, r.hi, why, ErrFormat)
	}
	for j, r := range recs {
		id := uint32(first + j)
		switch {
		case r.level >= uint32(m.vars):
			return bad(j, "level out of range")
		case r.lo >= id || r.hi >= id:
			return bad(j, "child not made before it")
		case m.nodes[r.lo].level <= r.level || m.nodes[r.hi].level <= r.level:
			return bad(j, "child not below it")
		case r.lo == r.hi:
			return bad(j, "not reduced")
		}
		m.nodes = append(m.nodes, node{level: r.level, lo: r.lo, hi: r.hi})
	}
	mask := uint32(len(m.buckets) - 1)
	var bucket [loadBatch]uint32
	var head [loadBatch]uint32
	for j, r := range recs {
		bucket[j] = hash(r.level, Node(r.lo), Node(r.hi)) & mask
		head[j] = m.buckets[bucket[j]]
	}
	// Equal to a node of an earlier batch: the chains as they were.
	for j, r := range recs {
		for i := head[j]; i != 0; {
			n := &m.nodes[i]
			if n.level == r.level && n.lo == r.lo && n.hi == r.hi {
				return bad(j, fmt.Sprintf("equal to node %d", i))
			}
			i = n.next
		}
	}
	// Equal to one of this batch, which the chains now begin with.
	for j, r := range recs {
		id := uint32(first + j)
		b := bucket[j]
		for i := m.buckets[b]; i >= uint32(first); {
			n := &m.nodes[i]
			if n.level == r.level && n.lo == r.lo && n.hi == r.hi {
				return bad(j, fmt.Sprintf("equal to node %d", i))
			}
			i = n.next
		}
		m.nodes[id].next = m.buckets[b]
		m.buckets[b] = id
	}
	return nil
}

// loadErr wraps a read error: a file cut short is malformed.
func loadErr(part string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("load diagram: %s cut short: %w: %w", part, io.ErrUnexpectedEOF, ErrFormat)
	}
	return fmt.Errorf("load diagram: %s: %w", part, err)
}
