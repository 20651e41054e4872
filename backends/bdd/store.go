package bdd

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

// A compiled space on disk is one file: a header that names the model it
// was compiled from and its counts, then the diagram as robdd.Save writes
// it. All integers are little-endian:
//
//	offset 0   magic         8 bytes "NQSPACE\n"
//	       8   version       uint32, spaceVersion
//	      12   n             uint32, the board size
//	      16   order         uint32, the configurator.Order
//	      20   model         32 bytes, SHA-256 of the model (modelDigest)
//	      52   nodes         uint64, the diagram's decision nodes
//	      60   solutions     uint32 length k, then k bytes big-endian
//	  64 + k   header CRC    uint32, CRC-32C of the bytes before it
//	  68 + k   the diagram   robdd's file: its own version and checksums
//
// and nothing after it. The file's name holds the same key, so the spaces
// of different boards, orders and versions live side by side.
const (
	spaceMagic   = "NQSPACE\n"
	spaceVersion = 1
	spaceFixed   = 64 // bytes before the solutions
	maxCountLen  = 64 // bytes of a solution count: 2^512 is far beyond any board
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Why a space file is refused, besides robdd.ErrFormat and its kin for
// the diagram.
var (
	errSpaceFormat  = errors.New("not a compiled space file")
	errSpaceVersion = errors.New("compiled space file of another version")
	errWrongModel   = errors.New("compiled space of another model")
)

// DefaultDir is where the commands keep compiled spaces unless told
// otherwise: nqueens in the user's cache directory ($XDG_CACHE_HOME, else
// ~/.cache on Linux), or "" when the system has none.
func DefaultDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "nqueens")
}

// store is a directory of compiled spaces (Options.Dir), one file per
// model. A file is written whole to a temporary name and renamed, so a
// reader sees a complete file or none; one it cannot trust is refused,
// logged and removed; only regular files are opened. Disk trouble never
// fails a compile: the store logs it and the space is compiled (or kept)
// in memory.
type store struct {
	dir string
	log *slog.Logger
}

func (o Options) store() store {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return store{dir: o.Dir, log: log}
}

// path is the file of model's space.
func (s store) path(model *configurator.Model) string {
	d := modelDigest(model)
	return filepath.Join(s.dir, fmt.Sprintf("queens-%d-%s-v%d.%d-%x.bdd",
		model.N(), model.Order(), spaceVersion, robdd.FileVersion, d[:4]))
}

// modelDigest identifies a model: its size, its variable order, level by
// level, and every constraint's kind and cells (names are for people and
// left out). Two models with the same digest have the same diagram.
func modelDigest(model *configurator.Model) [sha256.Size]byte {
	h := sha256.New()
	var b []byte
	put := func(v int) { b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	put(model.N())
	put(int(model.Order()))
	for l := range model.Vars() {
		put(model.VarAt(l))
	}
	for _, c := range model.Constraints() {
		put(int(c.Kind))
		put(len(c.Cells))
		for _, cell := range c.Cells {
			put(model.Var(cell))
		}
		h.Write(b)
		b = b[:0]
	}
	h.Write(b)
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// modelKeyLen is the length of the key of a model in a file's header:
// the board size and the variable order (uint32 each) and the model's
// digest (modelDigest).
const modelKeyLen = 8 + sha256.Size

// appendModelKey appends the key of model to a file's header.
func appendModelKey(b []byte, model *configurator.Model) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(model.N()))
	b = binary.LittleEndian.AppendUint32(b, uint32(model.Order()))
	d := modelDigest(model)
	return append(b, d[:]...)
}

// checkModelKey reports, with errWrongModel, a key (as appendModelKey
// writes it) of another model than model.
func checkModelKey(key []byte, model *configurator.Model) error {
	n, order := int(binary.LittleEndian.Uint32(key)), configurator.Order(binary.LittleEndian.Uint32(key[4:]))
	if n != model.N() || order != model.Order() {
		return fmt.Errorf("a %d×%d board in order %v, want %d×%d in order %v: %w", n, n, order, model.N(), model.N(), model.Order(), errWrongModel)
	}
	if d := modelDigest(model); string(key[8:]) != string(d[:]) {
		return fmt.Errorf("the %d×%d board's constraints differ: %w", n, n, errWrongModel)
	}
	return nil
}

// load returns model's diagram from the store, in a Manager of the given
// budget, with its count of solutions, if the store holds a file of it
// that passes every check. A file
// that does not is logged and removed; one that is not a regular file (a
// FIFO, a device) is logged and left alone, never waited for. The read
// ends when ctx does.
func (s store) load(ctx context.Context, model *configurator.Model, budget int64) (*robdd.Manager, robdd.Node, *big.Int, bool) {
	if s.dir == "" {
		return nil, 0, nil, false
	}
	path := s.path(model)
	start := time.Now()
	f, err := openRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil, false
	}
	if err != nil {
		s.log.Warn("compiled space not readable; compiling", "n", model.N(), "order", model.Order(), "file", path, "err", err)
		return nil, 0, nil, false
	}
	defer f.Close()
	m, root, solutions, err := readSpace(ctxReader{ctx, f}, model, budget)
	if err != nil {
		if !refused(err) {
			// A file beyond this backend's budget, which another may use,
			// or trouble reading it: left alone.
			s.log.Warn("compiled space not loaded; compiling", "n", model.N(), "order", model.Order(), "file", path, "err", err)
			return nil, 0, nil, false
		}
		s.log.Warn("compiled space refused; removing it and compiling", "n", model.N(), "order", model.Order(), "file", path, "err", err)
		if err := os.Remove(path); err != nil {
			s.log.Warn("compiled space not removed", "file", path, "err", err)
		}
		return nil, 0, nil, false
	}
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	s.log.Info("compiled space loaded from disk", "n", model.N(), "order", model.Order(),
		"nodes", m.Size()-2, "bytes", size, "file", path, "took", time.Since(start).Round(10*time.Microsecond))
	return m, root, solutions, true
}

// errNotRegular reports a file of the store that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading if it is a regular file: a FIFO or a
// device at its place is opened without waiting for it (openNonblock) and
// refused with errNotRegular.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w", fi.Mode().Type(), errNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ctxReader is a reader that fails with its context's error once the
// context ends: a load nobody waits for any more stops at its next read.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// refused reports whether the error of readSpace or decodeAnswers says
// the file is not a sound space, or set of answers, of the model:
// malformed, damaged, of another version or of another model.
func refused(err error) bool {
	for _, target := range []error{robdd.ErrFormat, errSpaceFormat, errSpaceVersion, errWrongModel, errAnswersFormat} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// readSpace reads a space file of model and checks it whole: header,
// model, diagram, counts and the end of the file. It returns the diagram,
// its root and its count of solutions.
func readSpace(r io.Reader, model *configurator.Model, budget int64) (*robdd.Manager, robdd.Node, *big.Int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head := make([]byte, spaceFixed, spaceFixed+maxCountLen+4)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, 0, nil, shortErr("header", err)
	}
	if string(head[:8]) != spaceMagic {
		return nil, 0, nil, fmt.Errorf("magic %q: %w", head[:8], errSpaceFormat)
	}
	if v := binary.LittleEndian.Uint32(head[8:]); v != spaceVersion {
		return nil, 0, nil, fmt.Errorf("version %d, want %d: %w", v, spaceVersion, errSpaceVersion)
	}
	k := binary.LittleEndian.Uint32(head[60:])
	if k > maxCountLen {
		return nil, 0, nil, fmt.Errorf("solution count of %d bytes: %w", k, errSpaceFormat)
	}
	head = head[:spaceFixed+int(k)+4]
	if _, err := io.ReadFull(br, head[spaceFixed:]); err != nil {
		return nil, 0, nil, shortErr("header", err)
	}
	end := len(head) - 4
	if crc32.Checksum(head[:end], castagnoli) != binary.LittleEndian.Uint32(head[end:]) {
		return nil, 0, nil, fmt.Errorf("header: %w: %w", robdd.ErrChecksum, errSpaceFormat)
	}
	if err := checkModelKey(head[12:12+modelKeyLen], model); err != nil {
		return nil, 0, nil, err
	}
	nodes := binary.LittleEndian.Uint64(head[52:])
	solutions := new(big.Int).SetBytes(head[spaceFixed:end])

	m, roots, err := robdd.Load(br, budget)
	if err != nil {
		return nil, 0, nil, err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, 0, nil, fmt.Errorf("bytes after the diagram: %w", errSpaceFormat)
	}
	if len(roots) != 1 || m.Vars() != model.Vars() {
		return nil, 0, nil, fmt.Errorf("%d roots over %d variables, want 1 over %d: %w", len(roots), m.Vars(), model.Vars(), errSpaceFormat)
	}
	root := roots[0]
	// The diagram is the root's alone, the root last (robdd.Save), so the
	// sweeps up to the root visit nothing else.
	if uint64(m.Size()-2) != nodes || (root > robdd.True && int(root) != m.Size()-1) {
		return nil, 0, nil, fmt.Errorf("%d nodes under root %d, the header says %d: %w", m.Size()-2, root, nodes, errSpaceFormat)
	}
	if got := m.SatCount(root); got.Cmp(solutions) != 0 {
		return nil, 0, nil, fmt.Errorf("the diagram counts %v solutions, the header %v: %w", got, solutions, errSpaceFormat)
	}
	if err := spotCheck(m, root, model, spotChecks); err != nil {
		return nil, 0, nil, err
	}
	return m, root, solutions, nil
}

// spotChecks is how many of a loaded diagram's solutions spotCheck tries.
const spotChecks = 64

// spotCheck follows k random paths of the diagram root of m to True (at
// each node a child that is not False, at each level a path skips a
// random value) and checks that each is a solution of model: every
// constraint holds. The checksums find a damaged file; this finds most
// diagrams that are sound but not model's (a file made by hand, a root
// whose children were swapped), at the cost of k paths: a diagram that
// holds wrong solutions in a fraction p of its branches escapes it with a
// probability of about (1-p)^k. It cannot find solutions missing from the
// diagram.
func spotCheck(m *robdd.Manager, root robdd.Node, model *configurator.Model, k int) error {
	if root == robdd.False {
		return nil
	}
	x := make([]bool, m.Vars()) // by level
	for range k {
		n, level := root, 0
		for level < m.Vars() {
			to := m.Vars()
			if n > robdd.True {
				to = m.Level(n)
			}
			for ; level < to; level++ {
				x[level] = rand.IntN(2) == 1
			}
			if n <= robdd.True {
				break
			}
			lo, hi := m.Low(n), m.High(n)
			x[level] = hi != robdd.False && (lo == robdd.False || rand.IntN(2) == 1)
			if n = lo; x[level] {
				n = hi
			}
			level++
		}
		if n != robdd.True {
			return fmt.Errorf("a path of the diagram ends in False: %w", errSpaceFormat)
		}
		for _, c := range model.Constraints() {
			queens := 0
			for _, cell := range c.Cells {
				if x[model.Level(model.Var(cell))] {
					queens++
				}
			}
			if queens > 1 || c.Kind == configurator.ExactlyOne && queens != 1 {
				return fmt.Errorf("a solution of the diagram breaks %q (%d queens): not a diagram of this model: %w", c.Name, queens, errSpaceFormat)
			}
		}
	}
	return nil
}

// shortErr wraps a read error: a file cut short is malformed.
func shortErr(part string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s cut short: %w: %w", part, io.ErrUnexpectedEOF, errSpaceFormat)
	}
	return fmt.Errorf("%s: %w", part, err)
}

// save writes model's diagram, rooted at root, of the given number of
// solutions, to the store. Trouble is logged, never returned: the space in
// memory is sound either way.
func (s store) save(model *configurator.Model, m *robdd.Manager, root robdd.Node, nodes int, solutions *big.Int) {
	if s.dir == "" {
		return
	}
	start := time.Now()
	path := s.path(model)
	size, err := s.write(path, func(w io.Writer) error { return writeSpace(w, model, m, root, nodes, solutions) })
	if err != nil {
		s.log.Warn("compiled space not saved", "n", model.N(), "order", model.Order(), "file", path, "err", err)
		return
	}
	s.log.Info("compiled space saved to disk", "n", model.N(), "order", model.Order(),
		"nodes", nodes, "bytes", size, "file", path, "took", time.Since(start).Round(10*time.Microsecond))
}

// write writes a file through fill to a temporary name beside path,
// locked while it is written (see tryLock), and renames it into place,
// returning its size.
func (s store) write(path string, fill func(io.Writer) error) (int64, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return 0, err
	}
	s.clean()
	f, err := os.CreateTemp(s.dir, filepath.Base(path)+tempSuffix+"*")
	if err != nil {
		return 0, err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	tryLock(f)
	w := newFlusher(f, flushEvery)
	err = fill(w)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, err
	}
	// Durable before it is visible: a crash leaves the old file or none.
	if err := f.Sync(); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return 0, err
	}
	done = true
	if err := f.Close(); err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// A file is written as its name, tempSuffix and a random number, then
// renamed. Its writer holds a lock on it meanwhile (tryLock); one that
// nobody holds, untouched for staleAfter, was left by a process that
// stopped mid-write.
const tempSuffix = ".tmp-"

// clean removes the stale temporary files of the store's directory: those
// of writes a crash or a kill cut short, which nothing else would ever
// remove once the file they were to become exists. Backends clean their
// directory when they are made and before they write.
func (s store) clean() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.Contains(e.Name(), tempSuffix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(s.dir, e.Name())
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < staleAfter {
			continue
		}
		f, err := openRegular(p)
		if err != nil {
			continue
		}
		if tryLock(f) && os.Remove(p) == nil {
			s.log.Info("stale temporary file removed", "file", p, "bytes", fi.Size())
		}
		f.Close()
	}
}

// writeSpace writes the space file of model's diagram, whose root has
// count solutions.
func writeSpace(w io.Writer, model *configurator.Model, m *robdd.Manager, root robdd.Node, nodes int, count *big.Int) error {
	solutions := count.Bytes()
	head := make([]byte, 0, spaceFixed+len(solutions)+4)
	head = append(head, spaceMagic...)
	head = binary.LittleEndian.AppendUint32(head, spaceVersion)
	head = appendModelKey(head, model)
	head = binary.LittleEndian.AppendUint64(head, uint64(nodes))
	head = binary.LittleEndian.AppendUint32(head, uint32(len(solutions)))
	head = append(head, solutions...)
	head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(head, castagnoli))
	if _, err := w.Write(head); err != nil {
		return err
	}
	return m.Save(w, root)
}
