package bdd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/nqueens/configurator/benchmarks/loadgen"
	"github.com/nqueens/configurator/configurator"
)

// BenchmarkAnalyzeMix analyses seeded random placements of 2 to N/2+1
// queens (the load generator's, less the boards of none and one, which the
// memo answers) on the row-major diagram of BENCH_N (default 12), loaded
// from the default cache directory when a file of it is there.
func BenchmarkAnalyzeMix(b *testing.B) {
	n := benchN()
	for _, k := range []int{2, 3, 4, 6} {
		if k > n/2+1 {
			continue
		}
		b.Run(fmt.Sprintf("n=%d/queens=%d", n, k), func(b *testing.B) {
			model, err := configurator.New(n, configurator.RowMajor)
			if err != nil {
				b.Fatal(err)
			}
			sp := benchSpace(b, model)
			rng := rand.New(rand.NewPCG(1, uint64(k)))
			var placements [][]configurator.Cell
			for range 64 {
				placements = append(placements, loadgen.Placement(rng, model, k))
			}
			ctx := context.Background()
			b.ResetTimer()
			visited := int64(0)
			for i := 0; b.Loop(); i++ {
				an, err := sp.Analyze(ctx, placements[i%len(placements)])
				if err == nil {
					visited += an.Work.NodesVisited
				}
			}
			b.ReportMetric(float64(visited)/float64(b.N), "nodes/op")
		})
	}
}

var benchSpaces = map[*configurator.Model]*Space{}

// benchN is the board size of the benchmarks: BENCH_N, default 12.
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_N")); err == nil {
		return n
	}
	return 12
}

func benchSpace(b *testing.B, model *configurator.Model) *Space {
	b.Helper()
	for m, sp := range benchSpaces {
		if m.N() == model.N() {
			return sp
		}
	}
	sp, err := New(Options{Dir: DefaultDir()}).Compile(context.Background(), model)
	if err != nil {
		b.Fatal(err)
	}
	benchSpaces[model] = sp.(*Space)
	return sp.(*Space)
}

// BenchmarkAnalyzeLoad analyses, from 32 goroutines at once, seeded random
// placements of 0 to N/2+1 queens as the load generator draws them, on the
// row-major diagram of BENCH_N (default 12): the engine's side of the
// server benchmark, without HTTP.
func BenchmarkAnalyzeLoad(b *testing.B) {
	n := benchN()
	model, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		b.Fatal(err)
	}
	sp := benchSpace(b, model)
	rng := rand.New(rand.NewPCG(1, 2))
	var placements [][]configurator.Cell
	for range 1024 {
		placements = append(placements, loadgen.Placement(rng, model, rng.IntN(n/2+2)))
	}
	ctx := context.Background()
	for _, p := range placements[:16] { // the memo of the boards of none and one queen
		sp.Analyze(ctx, p)
	}
	var next atomic.Int64
	par := 16
	if s := os.Getenv("BENCH_PAR"); s != "" {
		par, _ = strconv.Atoi(s)
	}
	b.SetParallelism(par)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			sp.Analyze(ctx, placements[next.Add(1)%int64(len(placements))])
		}
	})
}
