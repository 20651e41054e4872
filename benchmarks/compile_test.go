package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/nqueens/configurator/benchmarks/peakmem"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// The ranges of the benchmarks are flags, small by default so that
// `go test -bench . ./...` stays short; cmd/benchreport runs the full ranges.
var (
	minN      = flag.Int("min", 4, "smallest board of BenchmarkCompile")
	directMax = flag.Int("direct.max", 12, "largest board compiled by the direct path")
	applyMax  = flag.Int("apply.max", 11, "largest board compiled by the apply path")
	ruddMax   = flag.Int("rudd.max", 10, "largest board compiled by rudd (slow: minutes from 12 on)")
)

// BenchmarkCompile compiles the row-major N-Queens diagram with each
// method:
//
//	go test -run '^$' -bench Compile -benchtime 1x ./benchmarks/ \
//	        -direct.max 14 -apply.max 12 -rudd.max 11
//
// Every sub-benchmark is named method=<direct|apply|rudd>/n=<N> for
// benchstat, and reports ns/op, the peak of the Go heap during its first
// compile (peak-B), the heap the diagram holds afterwards per node
// (B/node) and the nodes of the diagram, terminals excluded.
func BenchmarkCompile(b *testing.B) {
	maxN := map[string]int{Direct: *directMax, Apply: *applyMax, Rudd: *ruddMax}
	for _, method := range CompileMethods {
		for n := *minN; n <= maxN[method]; n++ {
			b.Run(fmt.Sprintf("method=%s/n=%d", method, n), func(b *testing.B) {
				benchmarkCompile(b, method, n)
			})
		}
	}
}

func benchmarkCompile(b *testing.B, method string, n int) {
	model := configuratortest.Model(b, n, configurator.RowMajor)
	ctx := context.Background()
	var peak, live, base uint64
	var nodes int
	for i := 0; i < b.N; i++ {
		var w *peakmem.Watch
		if i == 0 {
			b.StopTimer()
			runtime.GC()
			base = heapAlloc()
			w = peakmem.StartHeap(time.Millisecond)
			b.StartTimer()
		}
		c, err := compileOnce(ctx, method, model, 0)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.StopTimer()
			peak = w.Stop()
			runtime.GC()
			live = heapAlloc() - min(base, heapAlloc())
			var count fmt.Stringer
			count, nodes, _ = c.count()
			runtime.KeepAlive(c.keep)
			if n <= len(solutions) && count.String() != solutions[n-1] {
				b.Fatalf("%d-queens: %v solutions, want %s", n, count, solutions[n-1])
			}
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(peak), "peak-B")
	b.ReportMetric(float64(nodes), "nodes")
	if nodes > 0 {
		b.ReportMetric(float64(live)/float64(nodes), "B/node")
	}
}

// Every method builds the canonical diagram (BuDDy's node counts, OEIS
// A000170's solutions), and Compile reports it with its costs.
func TestCompile(t *testing.T) {
	tests := []struct {
		n, nodes  int
		solutions string
	}{
		{4, 29, "2"}, {5, 167, "10"}, {6, 129, "4"}, {7, 1099, "40"}, {8, 2451, "92"},
	}
	for _, method := range CompileMethods {
		for _, tt := range tests {
			r, err := Compile(context.Background(), method, tt.n, time.Millisecond, 0)
			if err != nil {
				t.Fatalf("%s n=%d: %v", method, tt.n, err)
			}
			if r.Method != method || r.N != tt.n || r.Nodes != tt.nodes || r.Solutions.String() != tt.solutions {
				t.Errorf("%s n=%d: %s n=%d, %d nodes, %v solutions; want %d nodes, %s solutions",
					method, tt.n, r.Method, r.N, r.Nodes, r.Solutions, tt.nodes, tt.solutions)
			}
			if r.Time <= 0 || r.Runs < 1 || r.Runs > 25 {
				t.Errorf("%s n=%d: time %v over %d runs", method, tt.n, r.Time, r.Runs)
			}
			// The table holds the diagram and the two terminals; the
			// direct path makes nothing else.
			if r.Stored < r.Nodes+2 || method == Direct && r.Stored != r.Nodes+2 {
				t.Errorf("%s n=%d: %d nodes stored for a diagram of %d", method, tt.n, r.Stored, r.Nodes)
			}
			if r.BytesPerNode() != float64(r.LiveHeap)/float64(r.Nodes) {
				t.Errorf("%s n=%d: BytesPerNode %v of %d bytes and %d nodes", method, tt.n, r.BytesPerNode(), r.LiveHeap, r.Nodes)
			}
		}
	}
	if _, err := Compile(context.Background(), "cudd", 8, 0, 0); err == nil {
		t.Error("an unknown method: no error")
	}
	// A budget too small for the diagram fails; rudd has none.
	if _, err := Compile(context.Background(), Direct, 8, 0, 1<<10); err == nil {
		t.Error("direct path under a 1 KiB budget: no error")
	}
}
