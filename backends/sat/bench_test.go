package sat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// BenchmarkValidDomainsEmpty is the valid-domain computation: Analyze of
// the empty board on a compiled space (counting included at N=8). Package
// plain's benchmark of the same name runs the pairwise baseline beside it.
//
//	go test -run '^$' -bench ValidDomainsEmpty ./backends/sat
func BenchmarkValidDomainsEmpty(b *testing.B) {
	benchmarkEmpty(b, false, 8, 20, 50, 100)
}

// BenchmarkValidDomainsEmptySolverOnly is the same computation with the
// local search and the symmetries turned off: the solver (native
// cardinality constraints, assumptions, model reuse) finds every witness.
// It measures the encoding alone against the pairwise baseline.
func BenchmarkValidDomainsEmptySolverOnly(b *testing.B) {
	benchmarkEmpty(b, true, 8, 20, 50, 100)
}

// benchmarkEmpty measures Analyze of the empty n×n board, for each n, on a
// space compiled by a backend of default options, with the local search
// and the symmetries turned off when solverOnly is set.
func benchmarkEmpty(b *testing.B, solverOnly bool, ns ...int) {
	for _, n := range ns {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be := New(Options{})
			be.solverOnly = solverOnly
			sp := nqueens(b, be, n)
			for b.Loop() {
				if _, err := sp.Analyze(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidDomainsPlaced analyzes random consistent placements of
// N/10 to 6N/10 queens (built cell by cell, each keeping propagation
// consistent, so some are refuted by the solver).
func BenchmarkValidDomainsPlaced(b *testing.B) {
	for _, n := range []int{20, 50, 100} {
		m := configuratortest.Model(b, n, configurator.RowMajor)
		sp := configuratortest.Space(b, New(Options{}), m)
		bd := newBoard(n, satbase.Flatten(m))
		root := bd.root()
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		var placements [][]configurator.Cell
		for k := n / 10; k <= 6*n/10; k += n / 10 {
			st := root.clone()
			var queens []configurator.Cell
			for tries := 0; len(queens) < k && tries < 100*n*n; tries++ {
				v := int32(rng.IntN(n * n))
				if st.val[v] != open {
					continue
				}
				if s2 := st.clone(); bd.set(s2, v, queen) {
					st = s2
					queens = append(queens, m.Cell(int(v)))
				}
			}
			placements = append(placements, queens)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				for _, queens := range placements {
					_, err := sp.Analyze(context.Background(), queens)
					if err != nil && !errorsIsNoSolution(err) {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkCount counts the empty board's solutions by blocking clauses.
func BenchmarkCount(b *testing.B) {
	benchmarkEmpty(b, false, 8, 9, 10)
}

// BenchmarkSatisfiable is the question Explain and MakeRoom ask over and
// over: one assumption call on the reused solver.
func BenchmarkSatisfiable(b *testing.B) {
	for _, n := range []int{8, 50, 100} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			m := configuratortest.Model(b, n, configurator.RowMajor)
			sp := configuratortest.Space(b, New(Options{}), m)
			with := []configurator.Cell{{Row: 0, Col: 1}, {Row: n / 2, Col: n / 3}}
			for b.Loop() {
				if _, err := sp.Satisfiable(context.Background(), with, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func errorsIsNoSolution(err error) bool { return errors.Is(err, configurator.ErrNoSolution) }
