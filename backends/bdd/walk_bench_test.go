package bdd_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/benchmarks"
	"github.com/nqueens/configurator/configurator"
)

// BenchmarkWalkSteps takes the benchmarks' seeded random walks (20 walks
// of 30 steps) on the row-major diagram of BENCH_N (default 12), loaded
// from the default cache directory when a file of it is there, and
// reports the steps' p50, p99 and slowest. The walks start on a settled
// space, as a server's is once its background work is done: Precompute
// first loads or computes the answers the space keeps (and saves them in
// the cache directory); with BENCH_FRESH set they start on a space as
// loaded, computing those answers as the walks meet them, and with
// BENCH_FRESH=compile on a space fresh from a compile into an empty
// directory, settled as a server settles it before offering it
// (Precompute). BENCH_SCRATCH_GIB sets the backend's work-space bound
// (Options.Scratch), in GiB.
func BenchmarkWalkSteps(b *testing.B) {
	n := 12
	if s := os.Getenv("BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	model, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	start := time.Now()
	fresh := os.Getenv("BENCH_FRESH")
	opts := bdd.Options{Dir: bdd.DefaultDir(), Budget: 12 << 30}
	// A fresh space's background work, when it starts one (it logs so:
	// the first analysis does), must end before the space's directory
	// goes: ended is closed then.
	var started atomic.Bool
	ended := make(chan struct{})
	if fresh == "compile" {
		opts.Dir = b.TempDir()
		opts.Log = slog.New(slog.NewTextHandler(lineFunc(func(line string) {
			switch {
			case strings.Contains(line, "kept answers computing in the background"):
				started.Store(true)
			case strings.Contains(line, "kept answers complete"), strings.Contains(line, "kept answers left to compute"):
				close(ended)
			}
		}), nil))
	}
	if s := os.Getenv("BENCH_SCRATCH_GIB"); s != "" {
		g, _ := strconv.Atoi(s)
		opts.Scratch = int64(g) << 30
	}
	sp, err := bdd.New(opts).Compile(ctx, model)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d×%d: compiled or loaded in %v", n, n, time.Since(start))
	start = time.Now()
	if _, err := sp.Analyze(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("empty board: %v", time.Since(start))
	if fresh == "" || fresh == "compile" {
		start = time.Now()
		if err := sp.(*bdd.Space).Precompute(ctx); err != nil {
			b.Fatal(err)
		}
		b.Logf("kept answers loaded or computed: %v", time.Since(start))
	}
	defer func() {
		sp.(*bdd.Space).Close()
		if started.Load() {
			<-ended
		}
	}()
	for b.Loop() {
		steps, err := benchmarks.RandomWalks(ctx, n, benchmarks.WalkOptions{Walks: 20, Steps: 30, Seed: 1}, sp.Analyze)
		if err != nil {
			b.Fatal(err)
		}
		d := benchmarks.Elapsed(steps)
		slices.Sort(d)
		q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
		b.ReportMetric(float64(q(0.5).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, "max-ms")
		byQueens := map[int][]time.Duration{}
		for _, s := range steps {
			byQueens[len(s.Queens)] = append(byQueens[len(s.Queens)], s.Elapsed)
		}
		for k := 1; k <= 4; k++ {
			slices.Sort(byQueens[k])
			if m := byQueens[k]; len(m) > 0 {
				b.Logf("%d queens: %d steps, median %v, slowest %v", k, len(m), m[len(m)/2], m[len(m)-1])
			}
		}
	}
}

// lineFunc is an io.Writer that calls itself with every write: a log
// handler's line.
type lineFunc func(line string)

func (f lineFunc) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}
