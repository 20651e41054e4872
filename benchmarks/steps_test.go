package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
)

var (
	stepBDD = flag.String("step.bdd", "8,10", "boards of BenchmarkStepBDD, comma-separated")
	stepSAT = flag.String("step.sat", "8,20", "boards of BenchmarkStepSAT, comma-separated")
)

func sizes(b *testing.B, list string) []int {
	var ns []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("board size %q: %v", f, err)
		}
		ns = append(ns, n)
	}
	return ns
}

// analyzer is a space or a baseline, as the step benchmarks call them.
type analyzer func(ctx context.Context, queens []configurator.Cell) error

// benchmarkSteps runs each method over the placements of a seeded walk,
// one step per iteration, and the empty board:
// <name>/board=<walk|empty>/method=<m>/n=<N>.
func benchmarkSteps(b *testing.B, n int, sp configurator.Board, methods map[string]analyzer, order []string) {
	steps, err := RandomWalks(context.Background(), n, WalkOptions{Walks: 2, Steps: 50, Seed: 1}, sp.Analyze)
	if err != nil {
		b.Fatal(err)
	}
	for _, board := range []string{"walk", "empty"} {
		for _, name := range order {
			analyze := methods[name]
			b.Run(fmt.Sprintf("board=%s/method=%s/n=%d", board, name, n), func(b *testing.B) {
				ctx := context.Background()
				i := 0
				for b.Loop() {
					var queens []configurator.Cell
					if board == "walk" {
						queens = steps[i%len(steps)].Queens
					}
					if err := analyze(ctx, queens); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

func spaceAnalyzer(sp configurator.Board) analyzer {
	return func(ctx context.Context, queens []configurator.Cell) error {
		_, err := sp.Analyze(ctx, queens)
		return err
	}
}

func baselineAnalyzer(bl Baseline) analyzer {
	return func(ctx context.Context, queens []configurator.Cell) error {
		_, err := bl.Analyze(ctx, queens)
		return err
	}
}

// BenchmarkStepBDD compares the bdd Space's Analyze (cvd: valid domains in
// one pass, and the count) with the restrict-per-cell approach of the
// original reports, per step of a seeded random walk:
//
//	go test -run '^$' -bench StepBDD ./benchmarks/ -step.bdd 8,10,12
func BenchmarkStepBDD(b *testing.B) {
	for _, n := range sizes(b, *stepBDD) {
		sp := compileSpace(b, bdd.New(bdd.Options{}), n).(*bdd.Space)
		restrict, err := NewRestrictPerCell(sp)
		if err != nil {
			b.Fatal(err)
		}
		benchmarkSteps(b, n, sp, map[string]analyzer{
			"cvd":      spaceAnalyzer(sp),
			"restrict": baselineAnalyzer(restrict),
		}, []string{"cvd", "restrict"})
	}
}

// BenchmarkStepSAT compares the SAT backend's Analyze with a fresh
// gophersat solve per cell (pairwise CNF and cardinality constraints):
//
//	go test -run '^$' -bench StepSAT ./benchmarks/ -step.sat 8,20
func BenchmarkStepSAT(b *testing.B) {
	for _, n := range sizes(b, *stepSAT) {
		sp := compileSpace(b, sat.New(sat.Options{MaxN: max(n, sat.DefaultMaxN)}), n)
		benchmarkSteps(b, n, sp, map[string]analyzer{
			"backend":    spaceAnalyzer(sp),
			"fresh-cnf":  baselineAnalyzer(NewFreshSAT(sp.Model(), Pairwise)),
			"fresh-card": baselineAnalyzer(NewFreshSAT(sp.Model(), Cardinality)),
		}, []string{"backend", "fresh-cnf", "fresh-card"})
	}
}
