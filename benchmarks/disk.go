package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/benchmarks/peakmem"
	"github.com/nqueens/configurator/configurator"
)

// DiskResult is a compiled space on disk against a compile, on one board:
// what the bdd backend's cache of compiled spaces (bdd.Options.Dir) saves
// a restart.
type DiskResult struct {
	N     int
	Nodes int
	// Solutions is what the diagram counts: OEIS A000170's figure.
	Solutions *big.Int
	// Compile is bdd Backend.Compile on a cache directory without the
	// space: the compile and the write of its file. Save is the write
	// alone, as the backend's log times it (0 when it did not say).
	Compile, Save time.Duration
	// CompilePeakHeap is how far the Go heap grew during Compile.
	CompilePeakHeap uint64
	// FileBytes is the size of the space's file.
	FileBytes int64
	// Load is Backend.Compile of a new Backend on the same directory,
	// which reads the file and checks it whole instead of compiling;
	// LoadPeakHeap how far the Go heap grew meanwhile. Zero when the
	// load was not measured.
	Load         time.Duration
	LoadPeakHeap uint64
}

// LoadRatio is how many times longer the compile took than the load.
func (r DiskResult) LoadRatio() float64 { return ratio(r.Compile, r.Load) }

// CompileToDisk compiles the row-major n×n space with a bdd Backend of the
// given budget (0: bdd.DefaultBudget) that keeps its spaces in dir, which
// must not hold this one yet, and measures the compile and the file it
// wrote. The diagram's solution count must be OEIS A000170's.
func CompileToDisk(ctx context.Context, n int, dir string, budget int64) (DiskResult, error) {
	res := DiskResult{N: n}
	model, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		return res, err
	}
	rec := &storeLog{}
	b := bdd.New(bdd.Options{Dir: dir, Budget: budget, Log: slog.New(rec)})
	w := peakmem.StartHeap(time.Millisecond)
	start := time.Now()
	sp, err := b.Compile(ctx, model)
	res.Compile = time.Since(start)
	res.CompilePeakHeap = w.Stop()
	if err != nil {
		return res, fmt.Errorf("compile %d-queens to %s: %w", n, dir, err)
	}
	s := sp.(*bdd.Space)
	if s.Source() != "" {
		return res, fmt.Errorf("compile %d-queens: %s already held it (loaded from %s)", n, dir, s.Source())
	}
	saved, ok := rec.find("compiled space saved to disk")
	if !ok {
		return res, fmt.Errorf("compile %d-queens: the space was not saved to %s: %s", n, dir, rec.warnings())
	}
	res.Save, res.FileBytes = saved.took, saved.bytes
	res.Nodes, res.Solutions = s.Nodes(), s.Manager().SatCount(s.Root())
	if want := solutions[n-1]; n <= len(solutions) && res.Solutions.String() != want {
		return res, fmt.Errorf("compile %d-queens: %v solutions, want %s", n, res.Solutions, want)
	}
	return res, nil
}

// LoadFromDisk loads the row-major n×n space from dir, where
// CompileToDisk (in this process or another) wrote it, with a new bdd
// Backend of the given budget, and fills in res's Load and LoadPeakHeap.
// The backend compiles nothing (bdd.Options.CompileMaxN below n): a file
// it cannot load is an error, never a compile of minutes in this process.
// The loaded space must have res's nodes and solutions. It returns the
// space, for the measurements that follow; Close it when done.
func LoadFromDisk(ctx context.Context, res *DiskResult, dir string, budget int64) (*bdd.Space, error) {
	model, err := configurator.New(res.N, configurator.RowMajor)
	if err != nil {
		return nil, err
	}
	rec := &storeLog{}
	b := bdd.New(bdd.Options{Dir: dir, Budget: budget, CompileMaxN: max(res.N-1, 1), Log: slog.New(rec)})
	runtime.GC()
	w := peakmem.StartHeap(time.Millisecond)
	start := time.Now()
	sp, err := b.Compile(ctx, model)
	res.Load = time.Since(start)
	res.LoadPeakHeap = w.Stop()
	if err != nil {
		return nil, fmt.Errorf("load %d-queens from %s: %w", res.N, dir, err)
	}
	s := sp.(*bdd.Space)
	if s.Source() == "" {
		return nil, fmt.Errorf("load %d-queens: not loaded from %s but compiled: %s", res.N, dir, rec.warnings())
	}
	if s.Nodes() != res.Nodes || (res.Solutions != nil && s.Manager().SatCount(s.Root()).Cmp(res.Solutions) != 0) {
		return nil, fmt.Errorf("load %d-queens from %s: %d nodes, want %d", res.N, s.Source(), s.Nodes(), res.Nodes)
	}
	if res.FileBytes == 0 {
		res.FileBytes = fileSize(s.Source())
	}
	return s, nil
}

// storeLog records what a bdd Backend's store of compiled spaces logs: the
// bytes and the time of a save or a load, and the warnings (a file refused,
// not written).
type storeLog struct {
	mu      sync.Mutex
	records []storeRecord
}

type storeRecord struct {
	level slog.Level
	msg   string
	took  time.Duration
	bytes int64
	err   string
}

func (l *storeLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *storeLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *storeLog) WithGroup(string) slog.Handler            { return l }

func (l *storeLog) Handle(_ context.Context, r slog.Record) error {
	rec := storeRecord{level: r.Level, msg: r.Message}
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value.Resolve()
		switch a.Key {
		case "took":
			if v.Kind() == slog.KindDuration {
				rec.took = v.Duration()
			}
		case "bytes":
			if v.Kind() == slog.KindInt64 {
				rec.bytes = v.Int64()
			}
		case "err":
			rec.err = v.String()
		}
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, rec)
	l.mu.Unlock()
	return nil
}

func (l *storeLog) find(msg string) (storeRecord, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range l.records {
		if r.msg == msg {
			return r, true
		}
	}
	return storeRecord{}, false
}

// warnings joins the warnings logged, to say why a save or load did not
// happen.
func (l *storeLog) warnings() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for _, r := range l.records {
		if r.level >= slog.LevelWarn {
			errs = append(errs, fmt.Errorf("%s: %s", r.msg, r.err))
		}
	}
	if len(errs) == 0 {
		return errors.New("nothing logged")
	}
	return errors.Join(errs...)
}

// fileSize is the size of path, 0 when unknown.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
