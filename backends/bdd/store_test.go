package bdd

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// storeBackend is a backend that keeps its spaces in dir and logs to the
// returned buffer.
func storeBackend(dir string) (*Backend, *configuratortest.Log) {
	var log configuratortest.Log
	return New(Options{Dir: dir, Log: slog.New(slog.NewTextHandler(&log, nil))}), &log
}

// compileIn compiles model with a backend keeping its spaces in dir, and
// returns the space and what the backend logged.
func compileIn(t testing.TB, dir string, model *configurator.Model) (*Space, string) {
	t.Helper()
	b, log := storeBackend(dir)
	sp := configuratortest.Space(t, b, model).(*Space)
	return sp, log.String()
}

// spaceBytes is the space file of sp, as the store writes it.
func spaceBytes(t testing.TB, sp *Space) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := writeSpace(&b, sp.model, sp.m, sp.root, sp.nodes, sp.m.SatCount(sp.root)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameAnswers checks that two spaces of one model answer alike: counts,
// analyses and marginals on the empty board and random placements.
func sameAnswers(t *testing.T, want, got *Space, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	if got.Nodes() != want.Nodes() {
		t.Errorf("loaded space of %d nodes, compiled %d", got.Nodes(), want.Nodes())
	}
	placements := [][]configurator.Cell{nil}
	for range 4 {
		// A queen or two from a solution, so that most placements have
		// solutions left.
		sol, err := want.Sample(ctx, nil, rng)
		if err != nil {
			break // N = 2, 3: no solution at all
		}
		placements = append(placements, sol[:1+rng.IntN(min(2, len(sol)))])
	}
	for _, q := range placements {
		wa, werr := want.Analyze(ctx, q)
		ga, gerr := got.Analyze(ctx, q)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("queens %v: Analyze: compiled %v, loaded %v", q, werr, gerr)
		}
		if werr != nil {
			continue
		}
		if ga.Solutions.Cmp(wa.Solutions) != 0 || !slices.Equal(ga.Cells, wa.Cells) {
			t.Errorf("queens %v: loaded space counts %v, compiled %v (or their cells differ)", q, ga.Solutions, wa.Solutions)
		}
		wm, err := want.Marginals(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		gm, err := got.Marginals(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(wm, gm, func(x, y *big.Int) bool { return x.Cmp(y) == 0 }) {
			t.Errorf("queens %v: marginals differ", q)
		}
	}
}

func TestSpaceFileRoundTrip(t *testing.T) {
	// 12×12 in all four orders is the slowest part of the package's tests
	// under the race detector.
	top := 12
	switch {
	case testing.Short():
		top = 10
	case raceEnabled:
		top = 11
	}
	rng := rand.New(rand.NewPCG(3, 5))
	for _, o := range configurator.Orders() {
		for n := 1; n <= top; n++ {
			dir := t.TempDir()
			model := configuratortest.Model(t, n, o)
			compiled, log := compileIn(t, dir, model)
			if !strings.Contains(log, "compiled space saved to disk") {
				t.Fatalf("%d×%d %v: the first compile logged %q; want the space saved", n, n, o, log)
			}
			path := Options{Dir: dir}.store().path(model)
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			loaded, log := compileIn(t, dir, model)
			if !strings.Contains(log, "compiled space loaded from disk") || strings.Contains(log, "saved") {
				t.Fatalf("%d×%d %v: the second compile logged %q; want the space loaded, not saved", n, n, o, log)
			}
			if compiled.Source() != "" || loaded.Source() != path {
				t.Errorf("%d×%d %v: sources %q and %q; want \"\" and %q", n, n, o, compiled.Source(), loaded.Source(), path)
			}
			if again := spaceBytes(t, loaded); !bytes.Equal(again, file) {
				t.Fatalf("%d×%d %v: write, read, write: %d bytes differ from the %d on disk", n, n, o, len(again), len(file))
			}
			if !bytes.Equal(spaceBytes(t, compiled), file) {
				t.Fatalf("%d×%d %v: the compiled space writes other bytes than it saved", n, n, o)
			}
			sameAnswers(t, compiled, loaded, rng)
		}
	}
}

// resealed returns file with its space header's checksum and the
// diagram's two checksums recomputed, so that a forged file reaches the
// checks behind them.
func resealed(file []byte) []byte {
	file = slices.Clone(file)
	k := int(binary.LittleEndian.Uint32(file[60:]))
	end := spaceFixed + k
	binary.LittleEndian.PutUint32(file[end:], crc32.Checksum(file[:end], castagnoli))
	d := file[end+4:] // the diagram
	binary.LittleEndian.PutUint32(d[28:], crc32.Checksum(d[:28], castagnoli))
	binary.LittleEndian.PutUint32(d[len(d)-4:], crc32.Checksum(d[:len(d)-4], castagnoli))
	return file
}

func TestDamagedSpaceFilesAreRefusedAndRecompiled(t *testing.T) {
	ctx := context.Background()
	const n = 8
	model := configuratortest.Model(t, n, configurator.RowMajor)
	dir := t.TempDir()
	good, _ := compileIn(t, dir, model)
	path := Options{Dir: dir}.store().path(model)
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Files of other models, to be found under this model's name.
	other := func(n int, o configurator.Order) []byte {
		sp, _ := compileIn(t, t.TempDir(), configuratortest.Model(t, n, o))
		return spaceBytes(t, sp)
	}
	k := int(binary.LittleEndian.Uint32(file[60:]))
	diagram := spaceFixed + k + 4 // offset of the diagram
	set := func(off int, v uint32) []byte {
		b := slices.Clone(file)
		binary.LittleEndian.PutUint32(b[off:], v)
		return resealed(b)
	}
	flip := func(off int) []byte {
		b := slices.Clone(file)
		b[off] ^= 0x10
		return b
	}
	missingLine, err := configurator.Custom(n, configurator.RowMajor, model.Constraints()[1:])
	if err != nil {
		t.Fatal(err)
	}
	// The diagram with its root's children swapped, checksums and counts
	// made to match: sound in form, wrong in meaning (a queen on a1 then
	// goes with the boards of another queen on rank 1).
	swapped := func() []byte {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		root, err := sp.m.MakeNode(sp.m.Level(sp.root), sp.m.High(sp.root), sp.m.Low(sp.root))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := writeSpace(&b, model, sp.m, root, sp.nodes, sp.m.SatCount(root)); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	cases := []struct {
		name string
		file []byte
		want error  // what readSpace says
		says string // and how the log puts it
	}{
		{"empty", nil, io.ErrUnexpectedEOF, "header cut short"},
		{"cut in the header", file[:30], io.ErrUnexpectedEOF, "header cut short"},
		{"cut after the header", file[:diagram], robdd.ErrFormat, "load diagram: header cut short"},
		{"cut in the diagram's header", file[:diagram+20], io.ErrUnexpectedEOF, "load diagram: header cut short"},
		{"cut in the nodes", file[:len(file)/2], io.ErrUnexpectedEOF, "nodes cut short"},
		{"cut before the last byte", file[:len(file)-1], io.ErrUnexpectedEOF, "checksum cut short"},
		{"byte flipped in the magic", flip(3), errSpaceFormat, "magic"},
		{"byte flipped in the board size", flip(12), robdd.ErrChecksum, "header: diagram file checksum mismatch"},
		{"byte flipped in the model digest", flip(40), robdd.ErrChecksum, "header: diagram file checksum mismatch"},
		{"byte flipped in the count", flip(spaceFixed), robdd.ErrChecksum, "header: diagram file checksum mismatch"},
		{"byte flipped in the diagram's header", flip(diagram + 13), robdd.ErrChecksum, "load diagram: header: diagram file checksum"},
		{"byte flipped in the nodes", flip(len(file) / 2), robdd.ErrFormat, "load diagram: node"},
		{"byte flipped in a low bit of a node", flip(len(file) - 8), robdd.ErrChecksum, "load diagram: diagram file checksum mismatch"},
		{"byte flipped in the checksum", flip(len(file) - 2), robdd.ErrChecksum, "load diagram: diagram file checksum mismatch"},
		{"wrong magic", append([]byte("NQSPACE2"), file[8:]...), errSpaceFormat, "magic"},
		{"another version", set(8, spaceVersion+1), errSpaceVersion, "version 2, want 1"},
		{"another diagram version", set(diagram+8, robdd.FileVersionOrdered+1), robdd.ErrVersion, "diagram file of another version"},
		{"another size", other(n-1, configurator.RowMajor), errWrongModel, "a 7×7 board in order row, want 8×8 in order row"},
		{"another order", other(n, configurator.Diagonal), errWrongModel, "a 8×8 board in order diag, want 8×8 in order row"},
		{"another model", spaceBytes(t, compileSpace(t, n, configurator.RowMajor, Direct)), nil, ""},
		{"bytes after it", append(slices.Clone(file), 0), errSpaceFormat, "bytes after the diagram"},
		{"another node count", set(52, uint32(good.Nodes()+1)), errSpaceFormat, "2451 nodes under root 2452, the header says 2452"},
		{"another solution count", func() []byte { b := slices.Clone(file); b[spaceFixed] = 93; return resealed(b) }(), errSpaceFormat, "the diagram counts 92 solutions, the header 93"},
		{"the root's children swapped", swapped(), errSpaceFormat, "not a diagram of this model"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := model
			if c.name == "another model" {
				// The standard 8×8 file under the name of a model that
				// lacks a line: same size and order, other constraints.
				m, c.want, c.says = missingLine, errWrongModel, "the 8×8 board's constraints differ"
			}
			_, _, _, err := readSpace(bytes.NewReader(c.file), m, 0)
			if !errors.Is(err, c.want) {
				t.Fatalf("readSpace: %v; want an error wrapping %q", err, c.want)
			}
			dir := t.TempDir()
			p := Options{Dir: dir}.store().path(m)
			if err := os.WriteFile(p, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			b, log := storeBackend(dir)
			sp, err := b.Compile(ctx, m)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if !strings.Contains(log.String(), "compiled space refused") || !strings.Contains(log.String(), c.says) ||
				!strings.Contains(log.String(), "compiled space saved to disk") {
				t.Errorf("the log says %q; want the file refused (%q) and the space saved afresh", log, c.says)
			}
			if a, err := sp.Analyze(ctx, nil); c.name != "another model" && (err != nil || a.Solutions.Int64() != 92) {
				t.Errorf("the recompiled space counts %v, %v; want 92", a, err)
			}
			fresh, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if c.name != "another model" && !bytes.Equal(fresh, file) {
				t.Errorf("the file was rewritten with %d bytes unlike the %d of a sound one", len(fresh), len(file))
			}
		})
	}
}

func TestDiskTroubleNeverFailsACompile(t *testing.T) {
	ctx := context.Background()
	model := configuratortest.Model(t, 6, configurator.RowMajor)
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("a file where the directory should be"), 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(readOnly, 0o755) })
	unreadable := t.TempDir()
	if err := os.Mkdir(Options{Dir: unreadable}.store().path(model), 0o755); err != nil {
		t.Fatal(err) // a directory where the file should be
	}
	for _, c := range []struct {
		name, dir, says string
	}{
		{"directory is a file", notADir, "compiled space not saved"},
		{"directory below a file", filepath.Join(notADir, "spaces"), "compiled space not saved"},
		{"read-only directory", readOnly, "compiled space not saved"},
		{"directory where the file should be", unreadable, "compiled space not readable; compiling"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "read-only directory" && os.Geteuid() == 0 {
				t.Skip("root writes into a read-only directory")
			}
			b, log := storeBackend(c.dir)
			sp, err := b.Compile(ctx, model)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			if a, err := sp.Analyze(ctx, nil); err != nil || a.Solutions.Int64() != 4 {
				t.Errorf("Analyze: %v, %v; want 4 solutions", a, err)
			}
			if !strings.Contains(log.String(), c.says) || !strings.Contains(log.String(), "level=WARN") {
				t.Errorf("the log says %q; want a warning %q", log, c.says)
			}
			if strings.Contains(log.String(), "removing") {
				t.Errorf("the log says %q; a file that cannot be read is no reason to remove it", log)
			}
			if c.dir == unreadable {
				if fi, err := os.Stat(Options{Dir: unreadable}.store().path(model)); err != nil || !fi.IsDir() {
					t.Errorf("the directory in the file's place is gone: %v", err)
				}
			}
		})
	}
}

func TestLoadedSpaceConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	model := configuratortest.Model(t, 9, configurator.MiddleOut)
	dir := t.TempDir()
	compiled, _ := compileIn(t, dir, model)
	b, log := storeBackend(dir)
	loaded := configuratortest.Space(t, b, model).(*Space)
	if !strings.Contains(log.String(), "loaded from disk") {
		t.Fatalf("the log says %q; want the space loaded", log)
	}
	placements := [][]configurator.Cell{nil}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		sol, err := compiled.Sample(ctx, nil, rng)
		if err != nil {
			t.Fatal(err)
		}
		placements = append(placements, sol[:1+rng.IntN(3)])
	}
	want := make([]*configurator.Analysis, len(placements))
	for i, q := range placements {
		a, err := compiled.Analyze(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = a
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 40 {
				k := (g + i) % len(placements)
				q := placements[k]
				a, err := loaded.Analyze(ctx, q)
				if err != nil || a.Solutions.Cmp(want[k].Solutions) != 0 || !slices.Equal(a.Cells, want[k].Cells) {
					t.Errorf("reader %d: queens %v: Analyze %v, %v; want %v", g, q, a, err, want[k].Solutions)
					return
				}
				sol, err := loaded.Sample(ctx, q, rng)
				if err != nil || model.Check(sol) != nil || len(sol) != model.N() {
					t.Errorf("reader %d: queens %v: Sample %v, %v", g, q, sol, err)
					return
				}
				if _, err := loaded.Marginals(ctx, q); err != nil {
					t.Errorf("reader %d: Marginals: %v", g, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestNoDirNoFiles(t *testing.T) {
	b, log := storeBackend("")
	configuratortest.Space(t, b, configuratortest.Model(t, 6, configurator.RowMajor))
	if log.String() != "" {
		t.Errorf("a backend without a directory logged %q", log)
	}
}

// BenchmarkSpaceFile compares, board by board, a Compile that compiles
// (no directory) with one that loads the space from its file, and one that
// compiles and saves it. Compile with a directory is what a restarted
// server does for its first visitor of each board.
func BenchmarkSpaceFile(b *testing.B) {
	for _, n := range []int{10, 12, 13} {
		model := configuratortest.Model(b, n, configurator.RowMajor)
		dir := b.TempDir()
		compileIn(b, dir, model) // the file to load
		for _, c := range []struct {
			name string
			dir  string
		}{{"compile", ""}, {"load", dir}, {"compile+save", ""}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					d := c.dir
					if c.name == "compile+save" {
						d = b.TempDir()
					}
					sp, err := New(Options{Dir: d}).Compile(context.Background(), model)
					if err != nil {
						b.Fatal(err)
					}
					if c.name == "load" && sp.(*Space).Source() == "" {
						b.Fatal("compiled, not loaded")
					}
				}
			})
		}
	}
}

// fullDisk takes room bytes, then fails as a full disk does.
type fullDisk struct{ room int }

var errFull = errors.New("no space left on device")

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.room {
		n := d.room
		d.room = 0
		return n, errFull
	}
	d.room -= len(p)
	return len(p), nil
}

func TestWriteSpaceReportsAFullDisk(t *testing.T) {
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	size := len(spaceBytes(t, sp))
	for _, room := range []int{0, 10, 100, size / 2, size - 1} {
		if err := writeSpace(&fullDisk{room}, sp.model, sp.m, sp.root, sp.nodes, sp.m.SatCount(sp.root)); !errors.Is(err, errFull) {
			t.Errorf("a disk with room for %d of %d bytes: writeSpace: %v; want %v", room, size, err, errFull)
		}
	}
	if err := writeSpace(&fullDisk{size}, sp.model, sp.m, sp.root, sp.nodes, sp.m.SatCount(sp.root)); err != nil {
		t.Errorf("a disk with room for all %d bytes: writeSpace: %v", size, err)
	}
}

// TestStaleTemporaryFilesGo checks that a backend made on a directory
// (as at a server's start) removes the temporary files of writes cut
// short, every board's, and leaves alone those being written and those not
// the store's.
func TestStaleTemporaryFilesGo(t *testing.T) {
	dir := t.TempDir()
	path := Options{Dir: dir}.store().path(configuratortest.Model(t, 6, configurator.RowMajor))
	other := Options{Dir: dir}.store().path(configuratortest.Model(t, 14, configurator.RowMajor))
	long := time.Now().Add(-time.Hour)
	files := []struct {
		name    string
		mod     time.Time
		writing bool // held by its writer
		stay    bool
	}{
		{path + tempSuffix + "123", long, false, false},      // a crash's, long ago
		{other + tempSuffix + "789", long, false, false},     // another board's
		{path + tempSuffix + "456", long, true, true},        // another process's, being written
		{path + tempSuffix + "999", time.Now(), false, true}, // just made, its writer about to lock it
		{filepath.Join(dir, "notes.txt"), long, false, true}, // not the store's
	}
	for _, f := range files {
		if err := os.WriteFile(f.name, []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f.name, f.mod, f.mod); err != nil {
			t.Fatal(err)
		}
		if f.writing {
			w, err := os.Open(f.name)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if !tryLock(w) {
				t.Fatal("no lock on a file nobody holds")
			}
		}
	}
	_, log := storeBackend(dir)
	for _, f := range files {
		_, err := os.Stat(f.name)
		if stays := err == nil; stays != f.stay {
			t.Errorf("%s: stays %v, want %v", filepath.Base(f.name), stays, f.stay)
		}
	}
	if got := strings.Count(log.String(), "stale temporary file removed"); got != 2 {
		t.Errorf("the log says %q; want the two stale files' removal", log)
	}
}

// gateWriter blocks every write until open is closed: a log that holds
// up the writer of the compiled file once the file is in place.
type gateWriter struct {
	open    chan struct{}
	arrived chan struct{} // gets a token at each write
}

func (g gateWriter) Write(p []byte) (int, error) {
	g.arrived <- struct{}{}
	<-g.open
	return len(p), nil
}

// TestSaveInBackground: with Options.SaveInBackground, Compile returns
// while the compiled file is still being written (here, held up in its
// log line), Wait waits for the write, and the file then loads.
func TestSaveInBackground(t *testing.T) {
	dir := t.TempDir()
	model := configuratortest.Model(t, 6, configurator.RowMajor)
	gate := gateWriter{open: make(chan struct{}), arrived: make(chan struct{}, 16)}
	b := New(Options{Dir: dir, SaveInBackground: true, Log: slog.New(slog.NewTextHandler(gate, nil))})
	compiled := make(chan error, 1)
	go func() {
		_, err := b.Compile(context.Background(), model)
		compiled <- err
	}()
	select {
	case <-gate.arrived: // the writer got to its log line: the file is written
	case <-time.After(10 * time.Second):
		t.Fatal("the compiled file was not written")
	}
	select {
	case err := <-compiled:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		close(gate.open)
		t.Fatal("Compile waited for the write of its file")
	}
	waited := make(chan struct{})
	go func() { b.Wait(); close(waited) }()
	select {
	case <-waited:
		t.Fatal("Wait returned while the write was still going on")
	case <-time.After(100 * time.Millisecond):
	}
	close(gate.open)
	<-waited
	loaded, log := compileIn(t, dir, model)
	if loaded.Source() == "" {
		t.Fatalf("the file written in the background was not loaded; the log: %s", log)
	}
}
