package benchmarks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// Analyzer answers the configurator's question about a placement: the
// state of every cell. configurator.Board.Analyze is one.
type Analyzer func(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error)

// WalkOptions says how many random walks to take and how long.
type WalkOptions struct {
	Walks, Steps int
	// Seed makes the walks reproducible: walk w on an N×N board draws
	// from a generator seeded with (Seed, N<<32 | w).
	Seed uint64
}

// Step is one step of a walk: the placement after a move, the states the
// analyzer gave it and how long the analyzer took.
type Step struct {
	Walk    int
	Queens  []configurator.Cell
	Cells   []configurator.State
	Elapsed time.Duration
}

// placeShare is the percentage of moves that place a queen when both a
// placement and a removal are possible; the rest remove one.
const placeShare = 65

// RandomWalks takes seeded random walks of clicks on an n×n board and
// times analyze after each one. A walk starts on the empty board; each
// move places a queen on a cell the last analysis left open (free or
// forced), chosen uniformly, or removes one of the queens placed, chosen
// uniformly. The initial analysis of the empty board is not a step.
//
// The walk depends only on the seed and on the analyses, so two correct
// analyzers (the BDD and SAT spaces, or a baseline) walk the same path:
// the steps one analyzer produced can be replayed on another.
func RandomWalks(ctx context.Context, n int, opt WalkOptions, analyze Analyzer) ([]Step, error) {
	var steps []Step
	for w := range opt.Walks {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(n)<<32|uint64(w)))
		var queens []configurator.Cell
		a, err := analyze(ctx, nil)
		if err != nil {
			return steps, fmt.Errorf("walk %d on %d×%d, empty board: %w", w, n, n, err)
		}
		for range opt.Steps {
			if err := ctx.Err(); err != nil {
				return steps, err
			}
			open := append(a.In(configurator.Free), a.In(configurator.Forced)...)
			if len(open) > 0 && (len(queens) == 0 || rng.IntN(100) < placeShare) {
				queens = append(slices.Clone(queens), open[rng.IntN(len(open))])
			} else if len(queens) > 0 {
				i := rng.IntN(len(queens))
				queens = slices.Delete(slices.Clone(queens), i, i+1)
			} else {
				return steps, fmt.Errorf("walk %d on %d×%d: no cell open on the empty board", w, n, n)
			}
			start := time.Now()
			a, err = analyze(ctx, queens)
			elapsed := time.Since(start)
			if err != nil {
				return steps, fmt.Errorf("walk %d on %d×%d, queens %s: %w", w, n, n, configurator.FormatCells(queens), err)
			}
			steps = append(steps, Step{Walk: w, Queens: queens, Cells: a.Cells, Elapsed: elapsed})
		}
	}
	return steps, nil
}

// Elapsed lists the analyzer's time of every step.
func Elapsed(steps []Step) []time.Duration {
	ds := make([]time.Duration, len(steps))
	for i, s := range steps {
		ds[i] = s.Elapsed
	}
	return ds
}
