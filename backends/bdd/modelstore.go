package bdd

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator/feature"
)

// A compiled feature model on disk is one file in the store's directory,
// beside the boards' (see store.go): a header that names the model and
// the heuristic of its order, and its diagram's count, then the diagram
// as robdd.Save writes it (over the variables of the model's reduction,
// modelReduction, in the order the compile left). All integers are
// little-endian:
//
//	offset 0   magic         8 bytes "FMSPACE\n"
//	       8   version       uint32, modelSpaceVersion
//	      12   order         uint32, the ModelOrder it started from
//	      16   model         32 bytes, SHA-256 of the model (featureDigest)
//	      48   features      uint32
//	      52   nodes         uint64, the diagram's decision nodes
//	      60   count         uint32 length k, then k bytes big-endian:
//	                         the diagram's, over its variables
//	  64 + k   header CRC    uint32, CRC-32C of the bytes before it
//	  68 + k   the diagram   robdd's file: its own version and checksums
//
// and nothing after it. The file's name holds the same key.
const (
	modelSpaceMagic   = "FMSPACE\n"
	modelSpaceVersion = 3
	modelSpaceFixed   = 64 // bytes before the count
)

// modelPath is the file of model's space compiled from order o.
func (s store) modelPath(model *feature.Model, o ModelOrder) string {
	d := featureDigest(model)
	return filepath.Join(s.dir, fmt.Sprintf("model-%x-%v-v%d.bdd", d[:8], o, modelSpaceVersion))
}

// featureDigest identifies a model by its meaning: its features' tree,
// its groups, constraints and clauses (names, attributes and positions
// are for people, and left out). Two models with the same digest have
// the same diagram in the same order.
func featureDigest(m *feature.Model) [sha256.Size]byte {
	h := sha256.New()
	var b []byte
	put := func(v int) {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
		if len(b) >= 1<<12 {
			h.Write(b)
			b = b[:0]
		}
	}
	put(len(m.Features))
	put(m.Root)
	for _, f := range m.Features {
		put(f.Parent)
		put(f.Group)
	}
	put(len(m.Groups))
	for _, g := range m.Groups {
		put(int(g.Kind))
		put(g.Parent)
		put(g.Min)
		put(g.Max)
		put(len(g.Children))
		for _, c := range g.Children {
			put(c)
		}
	}
	var expr func(e *feature.Expr)
	expr = func(e *feature.Expr) {
		put(int(e.Op))
		put(e.Var)
		put(len(e.Args))
		for _, a := range e.Args {
			expr(a)
		}
	}
	put(len(m.Constraints))
	for _, c := range m.Constraints {
		expr(c.Expr)
	}
	put(len(m.Clauses))
	for _, c := range m.Clauses {
		put(len(c.Lits))
		for _, l := range c.Lits {
			put(int(l))
		}
	}
	h.Write(b)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// loadModel returns model's diagram compiled from order o, over vars
// variables, from the store, in a Manager of the given budget, if the
// store holds a file of it that passes every check. A file that does not
// is logged and removed.
func (s store) loadModel(model *feature.Model, o ModelOrder, vars int, budget int64) (*robdd.Manager, robdd.Node, bool) {
	if s.dir == "" {
		return nil, 0, false
	}
	path := s.modelPath(model, o)
	start := time.Now()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false
	}
	if err != nil {
		s.log.Warn("compiled model not readable; compiling", "model", model.Name, "file", path, "err", err)
		return nil, 0, false
	}
	defer f.Close()
	m, root, err := readModelSpace(f, model, o, vars, budget)
	if err != nil {
		if !refused(err) {
			s.log.Warn("compiled model not loaded; compiling", "model", model.Name, "file", path, "err", err)
			return nil, 0, false
		}
		s.log.Warn("compiled model refused; removing it and compiling", "model", model.Name, "file", path, "err", err)
		if err := os.Remove(path); err != nil {
			s.log.Warn("compiled model not removed", "file", path, "err", err)
		}
		return nil, 0, false
	}
	s.log.Info("compiled model loaded from disk", "model", model.Name, "nodes", m.Size()-2,
		"file", path, "took", time.Since(start).Round(10*time.Microsecond))
	return m, root, true
}

// readModelSpace reads a model space file of model compiled from order o,
// over vars variables, and checks it whole: header, model, diagram, count
// and the end of the file.
func readModelSpace(r io.Reader, model *feature.Model, o ModelOrder, vars int, budget int64) (*robdd.Manager, robdd.Node, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head := make([]byte, modelSpaceFixed)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, 0, shortErr("header", err)
	}
	if string(head[:8]) != modelSpaceMagic {
		return nil, 0, fmt.Errorf("magic %q: %w", head[:8], errSpaceFormat)
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != modelSpaceVersion {
		return nil, 0, fmt.Errorf("version %d, want %d: %w", v, modelSpaceVersion, errSpaceVersion)
	}
	features := len(model.Features)
	k := binary.LittleEndian.Uint32(head[60:])
	if k > uint32(features/8+1) {
		return nil, 0, fmt.Errorf("a count of %d bytes for %d features: %w", k, features, errSpaceFormat)
	}
	head = append(head, make([]byte, k+4)...)
	if _, err := io.ReadFull(br, head[modelSpaceFixed:]); err != nil {
		return nil, 0, shortErr("header", err)
	}
	end := len(head) - 4
	if crc32.Checksum(head[:end], castagnoli) != binary.LittleEndian.Uint32(head[end:]) {
		return nil, 0, fmt.Errorf("header: %w: %w", robdd.ErrChecksum, errSpaceFormat)
	}
	if got := ModelOrder(binary.LittleEndian.Uint32(head[12:])); got != o {
		return nil, 0, fmt.Errorf("compiled from order %v, want %v: %w", got, o, errWrongModel)
	}
	if d := featureDigest(model); string(head[16:48]) != string(d[:]) || binary.LittleEndian.Uint32(head[48:]) != uint32(features) {
		return nil, 0, fmt.Errorf("the model's features or constraints differ: %w", errWrongModel)
	}
	nodes := binary.LittleEndian.Uint64(head[52:])
	count := new(big.Int).SetBytes(head[modelSpaceFixed:end])

	m, roots, err := robdd.Load(br, budget)
	if err != nil {
		return nil, 0, err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, 0, fmt.Errorf("bytes after the diagram: %w", errSpaceFormat)
	}
	if len(roots) != 1 || m.Vars() != vars {
		return nil, 0, fmt.Errorf("%d roots over %d variables, want 1 over %d: %w", len(roots), m.Vars(), vars, errSpaceFormat)
	}
	root := roots[0]
	// The diagram is the root's alone, the root last (robdd.Save), so the
	// sweeps up to the root visit nothing else.
	if uint64(m.Size()-2) != nodes || (root > robdd.True && int(root) != m.Size()-1) {
		return nil, 0, fmt.Errorf("%d nodes under root %d, the header says %d: %w", m.Size()-2, root, nodes, errSpaceFormat)
	}
	if got := m.SatCount(root); got.Cmp(count) != 0 {
		return nil, 0, fmt.Errorf("the diagram counts %v configurations, the header %v: %w", got, count, errSpaceFormat)
	}
	return m, root, nil
}

// saveModel writes model's diagram compiled from order o, rooted at root,
// to the store. Trouble is logged, never returned: the space in memory is
// sound either way.
func (s store) saveModel(model *feature.Model, o ModelOrder, m *robdd.Manager, root robdd.Node) {
	if s.dir == "" {
		return
	}
	start := time.Now()
	path := s.modelPath(model, o)
	size, err := s.write(path, func(w io.Writer) error { return writeModelSpace(w, model, o, m, root) })
	if err != nil {
		s.log.Warn("compiled model not saved", "model", model.Name, "file", path, "err", err)
		return
	}
	s.log.Info("compiled model saved to disk", "model", model.Name, "nodes", m.Size()-2, "bytes", size,
		"file", path, "took", time.Since(start).Round(10*time.Microsecond))
}

// writeModelSpace writes the space file of model's diagram, which m holds
// alone.
func writeModelSpace(w io.Writer, model *feature.Model, o ModelOrder, m *robdd.Manager, root robdd.Node) error {
	count := m.SatCount(root).Bytes()
	head := make([]byte, 0, modelSpaceFixed+len(count)+4)
	head = append(head, modelSpaceMagic...)
	head = binary.LittleEndian.AppendUint32(head, modelSpaceVersion)
	head = binary.LittleEndian.AppendUint32(head, uint32(o))
	d := featureDigest(model)
	head = append(head, d[:]...)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(model.Features)))
	head = binary.LittleEndian.AppendUint64(head, uint64(m.Size()-2))
	head = binary.LittleEndian.AppendUint32(head, uint32(len(count)))
	head = append(head, count...)
	head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(head, castagnoli))
	if _, err := w.Write(head); err != nil {
		return err
	}
	return m.Save(w, root)
}
