package robdd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// saved is the diagram file of roots in m.
func saved(t testing.TB, m *Manager, roots ...Node) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Save(&b, roots...); err != nil {
		t.Fatalf("Save: %v", err)
	}
	return b.Bytes()
}

func TestSaveLoadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for trial := range 120 {
		m, ff, f := randomBuilt(t, rng, trial)
		// A second function, and the garbage its building leaves: Save
		// writes only what the roots reach.
		fg := randFormula(rng, m.Vars(), 5)
		g := mustBuild(t, m, fg)
		roots := [][]Node{{f}, {f, g}, {g, f, f}, {False}, {True, f}, {}}[trial%6]
		file := saved(t, m, roots...)

		got, gotRoots, err := Load(bytes.NewReader(file), 0)
		if err != nil {
			t.Fatalf("trial %d: Load: %v", trial, err)
		}
		if got.Vars() != m.Vars() || len(gotRoots) != len(roots) {
			t.Fatalf("trial %d: loaded %d vars, %d roots; want %d, %d", trial, got.Vars(), len(gotRoots), m.Vars(), len(roots))
		}
		reached := map[Node]bool{}
		for i, r := range roots {
			if !slices.Equal(tableOf(got, gotRoots[i]), tableOf(m, r)) {
				t.Fatalf("trial %d: root %d: the loaded function differs", trial, i)
			}
			m.reach(r, func(n Node) { reached[n] = true })
		}
		if got.Size() != 2+len(reached) {
			t.Errorf("trial %d: loaded %d nodes, want the %d reached and the terminals", trial, got.Size(), len(reached))
		}
		if want := 36 + 4*len(roots) + 12*len(reached); len(file) != want {
			t.Errorf("trial %d: file of %d bytes, want %d", trial, len(file), want)
		}
		if again := saved(t, got, gotRoots...); !bytes.Equal(again, file) {
			t.Fatalf("trial %d: save, load, save: %d bytes differ from the first %d", trial, len(again), len(file))
		}
		// The loaded Manager is canonical: building a saved function again
		// finds its node, and another function builds on.
		for i, r := range roots {
			want := map[Node]*formula{f: ff, g: fg}[r]
			if want == nil {
				continue
			}
			if n := mustBuild(t, got, want); n != gotRoots[i] {
				t.Fatalf("trial %d: root %d built again in the loaded manager is node %d, not the loaded %d", trial, i, n, gotRoots[i])
			}
		}
	}
}

// TestSaveLoadOrdered: a reordered Manager's file carries its order and
// loads into a Manager of that order with the same functions, which saves
// to the same bytes; a Manager back in the identity order writes a file of
// FileVersion again.
func TestSaveLoadOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	for trial := range 60 {
		m, _, f := randomBuilt(t, rng, trial)
		order := rng.Perm(m.Vars())
		roots, err := m.SetOrder(t.Context(), order, f)
		if err != nil {
			t.Fatal(err)
		}
		f = roots[0]
		file := saved(t, m, f)
		version := binary.LittleEndian.Uint32(file[8:])
		if want := map[bool]uint32{true: FileVersion, false: FileVersionOrdered}[slices.Equal(order, m.identity())]; version != want {
			t.Fatalf("trial %d: order %v saved in version %d, want %d", trial, order, version, want)
		}
		got, gotRoots, err := Load(bytes.NewReader(file), 0)
		if err != nil {
			t.Fatalf("trial %d: Load: %v", trial, err)
		}
		if !slices.Equal(got.Order(), order) || !slices.Equal(tableOf(got, gotRoots[0]), tableOf(m, f)) {
			t.Fatalf("trial %d: loaded order %v (want %v), or another function", trial, got.Order(), order)
		}
		if want := 36 + 4 + 12*m.NodeCount(f) + 4*m.Vars()*int(version-1); len(file) != want {
			t.Errorf("trial %d: file of %d bytes, want %d", trial, len(file), want)
		}
		if again := saved(t, got, gotRoots...); !bytes.Equal(again, file) {
			t.Fatalf("trial %d: save, load, save: the files differ", trial)
		}
		back, err := m.SetOrder(t.Context(), m.identity(), f)
		if err != nil {
			t.Fatal(err)
		}
		if file := saved(t, m, back...); binary.LittleEndian.Uint32(file[8:]) != FileVersion {
			t.Fatalf("trial %d: the identity order saved in version %d", trial, binary.LittleEndian.Uint32(file[8:]))
		}
	}
}

// TestLoadRefusesBadOrders: the order of a file must be a permutation of
// its variables.
func TestLoadRefusesBadOrders(t *testing.T) {
	m := New(4, 0)
	x, err := m.Var(1)
	if err != nil {
		t.Fatal(err)
	}
	roots, err := m.SetOrder(t.Context(), []int{3, 1, 0, 2}, x)
	if err != nil {
		t.Fatal(err)
	}
	file := saved(t, m, roots...)
	order := func(vars ...uint32) []byte {
		b := slices.Clone(file)
		for i, v := range vars {
			binary.LittleEndian.PutUint32(b[headerSize+4*i:], v)
		}
		return reseal(b)
	}
	for _, c := range []struct {
		name string
		file []byte
		says string
	}{
		{"a variable twice", order(3, 1, 1, 2), "variable 1 twice"},
		{"a variable out of range", order(3, 1, 0, 4), "variable 4 of 4"},
		{"the identity", order(0, 1, 2, 3), "the identity order"},
		{"cut short", file[:headerSize+6], "order cut short"},
	} {
		_, _, err := Load(bytes.NewReader(c.file), 0)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Load: %v; want ErrFormat saying %q", c.name, err, c.says)
		}
	}
}

// reseal recomputes both checksums of a diagram file, so that a forged
// file reaches the checks behind them.
func reseal(file []byte) []byte {
	file = slices.Clone(file)
	binary.LittleEndian.PutUint32(file[28:], crc32.Checksum(file[:28], castagnoli))
	end := len(file) - 4
	binary.LittleEndian.PutUint32(file[end:], crc32.Checksum(file[:end], castagnoli))
	return file
}

// smallFile is the file of a small diagram with one root and at least a few
// dozen nodes: x0 ⊕ x1 ⊕ ... ∧ (x2 ∨ x5) over 8 variables.
func smallFile(t testing.TB) ([]byte, *Manager, Node) {
	t.Helper()
	m := New(8, 0)
	levels := []int{0, 1, 2, 3, 4, 5, 6, 7}
	p, err := parity(m, levels)
	if err != nil {
		t.Fatal(err)
	}
	x2, _ := m.Var(2)
	x5, _ := m.Var(5)
	or, err := m.Or(t.Context(), x2, x5)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.And(t.Context(), p, or)
	if err != nil {
		t.Fatal(err)
	}
	return saved(t, m, f), m, f
}

// residueFile is the file of "x0 + ... + x23 ≡ 0 (mod 7)", a diagram of
// more nodes than Load checks at once, and its node count.
func residueFile(t testing.TB) ([]byte, int) {
	t.Helper()
	const vars, mod = 24, 7
	m := New(vars, 0)
	below := make([]Node, mod) // the nodes of the level below, by residue
	for r := range below {
		below[r] = False
	}
	below[0] = True
	for l := vars - 1; l >= 0; l-- {
		level := make([]Node, mod)
		for r := range level {
			n, err := m.MakeNode(l, below[r], below[(r+1)%mod])
			if err != nil {
				t.Fatal(err)
			}
			level[r] = n
		}
		below = level
	}
	return saved(t, m, below[0]), m.NodeCount(below[0])
}

func TestLoadFindsTwinsInAnyBatch(t *testing.T) {
	file, nodes := residueFile(t)
	if nodes <= 2*loadBatch {
		t.Fatalf("test diagram of %d nodes: too small to span batches", nodes)
	}
	const table = headerSize + 4
	rec := func(id int) []byte { return file[table+(id-2)*fileNode:][:fileNode] }
	// A node replaced by a copy of another made before it: its children
	// still come first and lie below it, and its parents' lie below them,
	// so no check but the unique table's can tell.
	for _, c := range []struct{ id, twin int }{
		{3, 2},                                 // the first batch
		{loadBatch + 2 + 5, loadBatch + 2 + 1}, // within a later batch
		{nodes + 1, 2},                         // batches apart
		{2*loadBatch + 2, 2*loadBatch + 1},     // the first of a batch, the last of the one before
	} {
		b := slices.Clone(file)
		copy(b[table+(c.id-2)*fileNode:], rec(c.twin))
		_, _, err := Load(bytes.NewReader(reseal(b)), 0)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), fmt.Sprintf("equal to node %d", c.twin)) {
			t.Errorf("node %d a copy of node %d: Load: %v; want them found equal", c.id, c.twin, err)
		}
	}
}

func TestLoadRefusesDamagedFiles(t *testing.T) {
	file, m, f := smallFile(t)
	nodes := m.NodeCount(f)
	if nodes < 10 {
		t.Fatalf("test diagram of %d nodes: too small to damage its node table", nodes)
	}
	const roots = headerSize     // offset of the roots
	const table = headerSize + 4 // offset of the node table
	// node returns the file with node id's record replaced.
	node := func(id int, level, lo, hi uint32) []byte {
		b := slices.Clone(file)
		at := table + (id-2)*fileNode
		binary.LittleEndian.PutUint32(b[at:], level)
		binary.LittleEndian.PutUint32(b[at+4:], lo)
		binary.LittleEndian.PutUint32(b[at+8:], hi)
		return reseal(b)
	}
	rec := func(id int) (level, lo, hi uint32) {
		at := table + (id-2)*fileNode
		return binary.LittleEndian.Uint32(file[at:]), binary.LittleEndian.Uint32(file[at+4:]), binary.LittleEndian.Uint32(file[at+8:])
	}
	// The last node is the root: its children exist, and so does its
	// twin one below.
	last := nodes + 1
	lvl, lo, hi := rec(last)
	plvl, plo, phi := rec(last - 1)
	header := func(off int, v uint32) []byte {
		b := slices.Clone(file)
		binary.LittleEndian.PutUint32(b[off:], v)
		return reseal(b)
	}
	cases := []struct {
		name string
		file []byte
		want []error // every one must match
		says string  // and what the message says
	}{
		{"empty", nil, []error{ErrFormat, io.ErrUnexpectedEOF}, "header cut short"},
		{"magic only", file[:8], []error{ErrFormat, io.ErrUnexpectedEOF}, "header cut short"},
		{"header cut", file[:headerSize-1], []error{ErrFormat, io.ErrUnexpectedEOF}, "header cut short"},
		{"header alone", file[:headerSize], []error{ErrFormat, io.ErrUnexpectedEOF}, "roots cut short"},
		{"root cut", file[:roots+2], []error{ErrFormat, io.ErrUnexpectedEOF}, "roots cut short"},
		{"first node cut", file[:table+5], []error{ErrFormat, io.ErrUnexpectedEOF}, "nodes cut short"},
		{"half the nodes", file[:table+nodes/2*fileNode], []error{ErrFormat, io.ErrUnexpectedEOF}, "nodes cut short"},
		{"checksum missing", file[:len(file)-4], []error{ErrFormat, io.ErrUnexpectedEOF}, "checksum cut short"},
		{"checksum cut", file[:len(file)-1], []error{ErrFormat, io.ErrUnexpectedEOF}, "checksum cut short"},
		{"wrong magic", append([]byte("GIF89a\x00\x00"), file[8:]...), []error{ErrFormat}, "magic"},
		{"text", []byte(strings.Repeat("not a diagram\n", 10)), []error{ErrFormat}, "magic"},
		{"version 3", header(8, 3), []error{ErrVersion, ErrFormat}, "version 3, want 1 or 2"},
		{"version 0", header(8, 0), []error{ErrVersion, ErrFormat}, "version 0, want 1 or 2"},
		// A file of the identity order read as one that carries an order:
		// its roots and nodes are taken for the order.
		{"version 2 without an order", header(8, 2), []error{ErrFormat}, "order"},
		{"header checksum", func() []byte { b := slices.Clone(file); b[28] ^= 1; return b }(), []error{ErrChecksum, ErrFormat}, "header: diagram file checksum"},
		{"trailer checksum", func() []byte { b := slices.Clone(file); b[len(b)-1] ^= 0x80; return b }(), []error{ErrChecksum, ErrFormat}, "checksum mismatch"},
		{"more nodes than the file", header(16, uint32(nodes+1)), []error{ErrFormat, io.ErrUnexpectedEOF}, "nodes cut short"},
		{"root out of range", header(roots, uint32(nodes+2)), []error{ErrFormat}, "root 23 of 23"},
		{"level out of range", node(2, 8, 0, 1), []error{ErrFormat}, "level out of range"},
		{"child made later", node(last-1, plvl, plo, uint32(last)), []error{ErrFormat}, "child not made before it"},
		{"child at its level", node(last, lvl+1, lo, hi), []error{ErrFormat}, "child not below it"},
		{"unreduced", node(last, lvl, lo, lo), []error{ErrFormat}, "not reduced"},
		{"twice", node(last, plvl, plo, phi), []error{ErrFormat}, "equal to node"},
		{"too many roots", header(24, maxRoots+1), []error{ErrFormat}, "1048577 roots"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, roots, err := Load(bytes.NewReader(c.file), 0)
			if err == nil {
				t.Fatalf("Load accepted it: %d nodes, roots %v", m.Size(), roots)
			}
			for _, want := range c.want {
				if !errors.Is(err, want) {
					t.Errorf("Load: %v; want an error wrapping %q", err, want)
				}
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Errorf("Load: %v; want it to say %q", err, c.says)
			}
		})
	}
}

func TestLoadRefusesEveryFlippedByte(t *testing.T) {
	file, _, _ := smallFile(t)
	for off := range file {
		for _, bit := range []byte{0x01, 0x80} {
			b := slices.Clone(file)
			b[off] ^= bit
			if _, _, err := Load(bytes.NewReader(b), 0); !errors.Is(err, ErrFormat) {
				t.Fatalf("byte %d of %d flipped by %#x: Load: %v; want an error wrapping ErrFormat", off, len(file), bit, err)
			}
		}
	}
}

func TestLoadHonoursTheBudget(t *testing.T) {
	file, m, f := smallFile(t)
	nodes := m.NodeCount(f)
	for _, c := range []struct {
		budget int64
		ok     bool
	}{
		{int64(nodes+2) * BytesPerNode, true},
		{int64(nodes+1) * BytesPerNode, false},
		{BytesPerNode, false},
	} {
		_, _, err := Load(bytes.NewReader(file), c.budget)
		if c.ok && err != nil || !c.ok && !errors.Is(err, ErrNodeLimit) {
			t.Errorf("budget of %d nodes for %d: Load: %v", c.budget/BytesPerNode, nodes+2, err)
		}
	}
}

func TestLoadReadsNoFurther(t *testing.T) {
	file, _, _ := smallFile(t)
	const after = "and then something else"
	r := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(file), strings.NewReader(after)), 1<<16)
	if _, _, err := Load(r, 0); err != nil {
		t.Fatalf("Load: %v", err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != after {
		t.Errorf("after Load the reader holds %q, want %q", rest, after)
	}
}

// FuzzLoad: no input makes Load panic or hang, and whatever it accepts
// saves and loads again to the same bytes.
func FuzzLoad(f *testing.F) {
	small, m, root := smallFile(f)
	roots, err := m.SetOrder(f.Context(), []int{7, 0, 6, 1, 5, 2, 4, 3}, root)
	if err != nil {
		f.Fatal(err)
	}
	ordered := saved(f, m, roots...)
	residue, _ := residueFile(f)
	for _, seed := range [][]byte{small, ordered, residue, small[:40], ordered[:50], residue[:len(residue)-1], nil} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		m, roots, err := Load(bytes.NewReader(file), 1<<20)
		if err != nil {
			return
		}
		once := saved(t, m, roots...)
		m2, roots2, err := Load(bytes.NewReader(once), 1<<20)
		if err != nil {
			t.Fatalf("Load accepted a file, but not its own save: %v", err)
		}
		if twice := saved(t, m2, roots2...); !bytes.Equal(twice, once) {
			t.Fatalf("save, load, save: %d bytes unlike the %d saved first", len(twice), len(once))
		}
	})
}

// TestLoadHoldsNoUniqueTable checks that a loaded Manager holds its nodes
// alone (the table Load builds to check them is dropped: Bytes is the
// store's), and that making nodes in it afterwards still finds the nodes
// it has (canonicity): the table is rebuilt on demand.
func TestLoadHoldsNoUniqueTable(t *testing.T) {
	file, src, f := smallFile(t)
	m, roots, err := Load(bytes.NewReader(file), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Bytes(), int64(cap(m.nodes))*16; got != want {
		t.Errorf("Bytes of a loaded Manager = %d, want its store alone, %d", got, want)
	}
	g := roots[0]
	if m.SatCount(g).Cmp(src.SatCount(f)) != 0 {
		t.Errorf("loaded count %v, want %v", m.SatCount(g), src.SatCount(f))
	}
	// Every node made again is the one loaded.
	for id := Node(2); int(id) < m.Size(); id++ {
		n, err := m.MakeNode(m.Level(id), m.Low(id), m.High(id))
		if err != nil || n != id {
			t.Fatalf("MakeNode of loaded node %d = %d, %v; want %d", id, n, err, id)
		}
	}
	if m.Size() != len(m.nodes) || m.Bytes() <= int64(cap(m.nodes))*16 {
		t.Errorf("after MakeNode: %d nodes, %d bytes; want the table back", m.Size(), m.Bytes())
	}
	// And operations work on it.
	x0, _ := m.Var(0)
	h, err := m.And(t.Context(), g, x0)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := src.And(t.Context(), f, mustVar(t, src, 0)); m.SatCount(h).Cmp(src.SatCount(want)) != 0 {
		t.Errorf("g ∧ x0 on the loaded Manager counts %v, want %v", m.SatCount(h), src.SatCount(want))
	}
}

func mustVar(t *testing.T, m *Manager, l int) Node {
	t.Helper()
	x, err := m.Var(l)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
