package benchmarks

import (
	"context"
	"fmt"
	"math/big"
	"runtime"
	"slices"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/benchmarks/peakmem"
	"github.com/nqueens/configurator/benchmarks/peers"
	"github.com/nqueens/configurator/configurator"
)

// The compile methods: the bdd package's two paths and the peer library.
const (
	Direct = "direct" // bdd.CompileDirect
	Apply  = "apply"  // bdd.CompileApply, row by row
	Rudd   = "rudd"   // github.com/dalzilio/rudd, row by row
)

// CompileMethods lists the methods in the order reports show them.
var CompileMethods = []string{Direct, Apply, Rudd}

// solutions is OEIS A000170 from N = 1: every compile is checked against it.
var solutions = []string{
	"1", "0", "0", "2", "10", "4", "40", "92", "352", "724", "2680", "14200", "73712", "365596",
	"2279184", "14772512", "95815104", "666090624", "4968057848", "39029188884",
}

// CompileResult is the measurement of one compile method on one board.
type CompileResult struct {
	Method string
	N      int
	// Time is the median over Runs compiles (one, unless a compile takes
	// less than the minimum time asked for).
	Time time.Duration
	Runs int
	// PeakHeap is how far the Go heap grew at its largest during the first
	// compile (live and unswept objects, sampled every millisecond);
	// PeakRSS the process's peak resident memory during it, when the
	// kernel lets it be reset (0 otherwise).
	PeakHeap, PeakRSS uint64
	// LiveHeap is the heap the diagram and its library hold once the
	// compile is over and the garbage collected.
	LiveHeap uint64
	// Nodes of the diagram, terminals excluded; Stored the nodes the
	// library's table holds once the compile is over, terminals and
	// garbage not yet collected included; Solutions the diagram counts.
	Nodes, Stored int
	Solutions     *big.Int
	// Child says the compile ran in a process of its own, through the bdd
	// backend (benchmarks.CompileToDisk, the write of the file left out
	// of Time): PeakRSS is then that process's peak, LiveHeap unknown.
	Child bool `json:",omitempty"`
}

// BytesPerNode is the live heap per node of the diagram.
func (r CompileResult) BytesPerNode() float64 {
	if r.Nodes == 0 {
		return 0
	}
	return float64(r.LiveHeap) / float64(r.Nodes)
}

// BytesPerStored is the live heap per node the library's table holds.
func (r CompileResult) BytesPerStored() float64 {
	if r.Stored == 0 {
		return 0
	}
	return float64(r.LiveHeap) / float64(r.Stored)
}

// compiled is a diagram a method built: its counts (solutions, diagram
// nodes, stored nodes), read after the clock stops, and the value to keep
// alive while the heap is measured.
type compiled struct {
	count func() (*big.Int, int, int)
	keep  any
}

func compileOnce(ctx context.Context, method string, model *configurator.Model, budget int64) (compiled, error) {
	switch method {
	case Direct, Apply:
		compile := bdd.CompileDirect
		if method == Apply {
			compile = bdd.CompileApply
		}
		m := robdd.New(model.Vars(), budget)
		root, err := compile(ctx, m, model)
		if err != nil {
			return compiled{}, err
		}
		return compiled{func() (*big.Int, int, int) { return m.SatCount(root), m.NodeCount(root), m.Size() }, m}, nil
	case Rudd:
		d, err := peers.Rudd(ctx, model)
		if err != nil {
			return compiled{}, err
		}
		return compiled{func() (*big.Int, int, int) { return d.Solutions(), d.Nodes(), d.Stored() }, d}, nil
	}
	return compiled{}, fmt.Errorf("compile method %q: want direct, apply or rudd", method)
}

// Compile builds the row-major N-Queens diagram with method, measures the
// first compile's time and memory, and repeats it until minTime has passed
// (at most 25 times) for a stable median. budget bounds the bdd Manager
// (0: no bound); rudd has none. The diagram's solution count must be OEIS
// A000170's.
func Compile(ctx context.Context, method string, n int, minTime time.Duration, budget int64) (CompileResult, error) {
	model, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		return CompileResult{}, err
	}
	res := CompileResult{Method: method, N: n}
	runtime.GC()
	base := heapAlloc()
	rssReset := resetPeakRSS()
	w := peakmem.StartHeap(time.Millisecond)
	start := time.Now()
	c, err := compileOnce(ctx, method, model, budget)
	first := time.Since(start)
	res.PeakHeap = w.Stop()
	if err != nil {
		return res, fmt.Errorf("compile %d-queens with %s: %w", n, method, err)
	}
	if rssReset {
		res.PeakRSS = peakRSS()
	}
	runtime.GC()
	if live := heapAlloc(); live > base {
		res.LiveHeap = live - base
	}
	res.Solutions, res.Nodes, res.Stored = c.count()
	runtime.KeepAlive(c.keep)
	c = compiled{}
	if n <= len(solutions) && res.Solutions.String() != solutions[n-1] {
		return res, fmt.Errorf("compile %d-queens with %s: %v solutions, want %s", n, method, res.Solutions, solutions[n-1])
	}
	times := []time.Duration{first}
	for total := first; total < minTime && len(times) < 25; {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		start := time.Now()
		if _, err := compileOnce(ctx, method, model, budget); err != nil {
			return res, fmt.Errorf("compile %d-queens with %s: %w", n, method, err)
		}
		d := time.Since(start)
		times = append(times, d)
		total += d
	}
	slices.Sort(times)
	res.Time, res.Runs = times[len(times)/2], len(times)
	return res, nil
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
