// Package benchmarks compares the compile paths of the native BDD engine
// with each other and with a peer library. The benchmarks are the package:
//
//	go test -run '^$' -bench Compile -benchtime 1x ./benchmarks/ \
//	        -direct.max 14 -apply.max 12 -rudd.max 11
//
// Every sub-benchmark is named method=<direct|apply|rudd>/n=<N> for
// benchstat, and reports ns/op, the peak of the Go heap during its first
// compile (peak-B) and the nodes of the diagram, terminals excluded.
package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/benchmarks/peakheap"
	"github.com/nqueens/configurator/benchmarks/peers"
	"github.com/nqueens/configurator/configurator"
)

var (
	minN      = flag.Int("min", 8, "smallest board of BenchmarkCompile")
	directMax = flag.Int("direct.max", 14, "largest board compiled by the direct path")
	applyMax  = flag.Int("apply.max", 12, "largest board compiled by the apply path")
	ruddMax   = flag.Int("rudd.max", 11, "largest board compiled by rudd (slow: minutes from 12 on)")
)

// solutions is OEIS A000170 from N = 1: every compile is checked against it.
var solutions = []string{
	"1", "0", "0", "2", "10", "4", "40", "92", "352", "724", "2680", "14200", "73712", "365596",
	"2279184", "14772512", "95815104", "666090624", "4968057848", "39029188884",
}

// compiler compiles the N-Queens model; the function it returns counts the
// solutions and the nodes of the diagram, outside the timed compile.
type compiler func(ctx context.Context, model *configurator.Model) (func() (*big.Int, int), error)

func native(compile func(context.Context, *bdd.Manager, *configurator.Model) (bdd.Node, error)) compiler {
	return func(ctx context.Context, model *configurator.Model) (func() (*big.Int, int), error) {
		m := bdd.NewManager(model.Vars(), 0)
		root, err := compile(ctx, m, model)
		if err != nil {
			return nil, err
		}
		return func() (*big.Int, int) { return m.SatCount(root), m.NodeCount(root) }, nil
	}
}

func rudd(ctx context.Context, model *configurator.Model) (func() (*big.Int, int), error) {
	d, err := peers.Rudd(ctx, model)
	if err != nil {
		return nil, err
	}
	return func() (*big.Int, int) { return d.Solutions(), d.Nodes() }, nil
}

func BenchmarkCompile(b *testing.B) {
	methods := []struct {
		name    string
		maxN    int
		compile compiler
	}{
		{"direct", *directMax, native(bdd.CompileDirect)},
		{"apply", *applyMax, native(bdd.CompileApply)},
		{"rudd", *ruddMax, rudd},
	}
	for _, meth := range methods {
		for n := *minN; n <= meth.maxN; n++ {
			b.Run(fmt.Sprintf("method=%s/n=%d", meth.name, n), func(b *testing.B) {
				benchmarkCompile(b, n, meth.compile)
			})
		}
	}
}

func benchmarkCompile(b *testing.B, n int, compile compiler) {
	model, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var peak uint64
	var nodes int
	for i := 0; i < b.N; i++ {
		var w *peakheap.Watch
		if i == 0 {
			b.StopTimer()
			w = peakheap.Start(time.Millisecond)
			b.StartTimer()
		}
		counts, err := compile(ctx, model)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			peak = w.Stop()
			var count *big.Int
			count, nodes = counts()
			if n <= len(solutions) && count.String() != solutions[n-1] {
				b.Fatalf("%d-queens: %v solutions, want %s", n, count, solutions[n-1])
			}
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(peak), "peak-B")
	b.ReportMetric(float64(nodes), "nodes")
}
