// Package plain is the honest SAT baseline of the configurator: gophersat
// (github.com/crillab/gophersat v1.4.0) alone, with nothing of this
// project's own in front of it.
//
// Package sat answers most questions before its solver is asked: it
// propagates the placement, looks for witnesses by local search, multiplies
// them by the board's symmetries and adds a pigeonhole fact to its encoding.
// A comparison of the BDD with it therefore partly compares this project's
// shortcuts with themselves. This backend has none of them:
//
//   - the encoding is the pairwise CNF straight from the model: for every
//     line, a clause "not both" for each pair of its cells, and for an
//     ExactlyOne line also the clause "at least one";
//   - every cell is decided by the solver under assumptions: a cell is
//     possible when gophersat finds a solution with the placement and a
//     queen on it, blocked when it finds none, and forced when it finds no
//     solution with the placement and without it. The only reuse is the
//     standard one: each solution gophersat returns witnesses every queen
//     in it as possible and every empty cell of it as not forced, so those
//     cells need no question of their own.
//
// Each witness is checked against the model's constraints before it is
// believed, so a fault in the solver shows as an error, not as an answer.
//
// What it shares with package sat is plumbing, none of the shortcuts:
// package satbase flattens the model's lines, writes the assumptions and
// blocking clauses, turns a panic in gophersat into an error and reads the
// Options.
//
// gophersat v1.4.0 has defects (see the project's shared notes) that the
// backend works around as package sat does: Assume drops the unit clauses of
// the base problem, so the problem has none and the cells of one-cell
// ExactlyOne lines travel as assumptions; CountModels returns duplicates, so
// solutions are counted with blocking clauses, on a solver of their own.
// Two more are patched in the copy the project carries
// (third_party/gophersat/PATCHES.md): a Solve is interrupted when its
// query's context ends, and separate solvers run in parallel, each call
// holding one of the process's turns of package solverlock (one per core,
// shared fairly among clients). A space keeps at most one idle solver per
// turn for its next queries, each dropped when its learned clauses hold
// more than a quarter of the space's Cost.
package plain

import (
	"context"
	"fmt"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
)

// Defaults of Options, measured on the project's machine (2 cores).
const (
	// DefaultMaxN is the largest board accepted by default: the largest
	// whose empty board (the slowest placement measured) this backend
	// analyses in under a second. BenchmarkValidDomainsEmpty, ms per
	// Analyze, on a quiet machine (N=44: a first analysis, on a fresh
	// space):
	//
	//	N     8   12   16   20   24   32   36   40    44
	//	ms   12   13   31   67  109  324  460  680  1100-1900
	//
	// With other work on the 2 cores, N=40 took 0.95 to 1.7 s. Placements
	// of some queens go faster (N=40: 0.6 s with 1 queen, 0.15 s with 16).
	DefaultMaxN = 40
	// DefaultQueue is how many queries may be in progress at once.
	DefaultQueue = 32
	// DefaultCountCap is the default cap of the blocking-clause count.
	DefaultCountCap = 10000
)

// countMaxN is the largest board on which Analyze counts solutions, as
// package sat does: each solution costs a solver call, and above 10×10 the
// count would soon say no more than "at least the cap".
const countMaxN = 10

// fewSolutions and splitLines set how solutions are enumerated (see
// space.enumerate): up to fewSolutions with one solver, then again in parts
// split by splitLines lines. Measured on the empty board: with one solver,
// N=10 takes 0.7 s; split by one line 0.25 s, by two 0.10 s (0.17 s with
// the first 128 solutions listed in vain); by three, the fresh solvers of
// the N³ parts cost more than they save. On the random walks of the
// cross-check at N=10 (counts capped at 100), where most placements have
// few solutions, listing up to 128 with one solver halves the time of
// splitting after 64.
const (
	fewSolutions = 128
	splitLines   = 2
)

// Options bound the work of a Backend. The zero value asks for the
// defaults.
type Options struct {
	// MaxN is the largest board accepted; 0 means DefaultMaxN. Beyond it
	// Compile returns an error wrapping configurator.ErrTooLarge.
	MaxN int
	// Queue is how many queries (Analyze, Satisfiable, Solve) may be in
	// progress at once, each waiting for a solver turn before every call;
	// 0 means DefaultQueue. One more fails at once with an error
	// wrapping configurator.ErrBusy.
	Queue int
	// CountCap caps the blocking-clause count of solutions; 0 means
	// DefaultCountCap. Above it Analysis.Solutions is the cap and AtLeast
	// is set.
	CountCap int
}

// Backend compiles models into pairwise CNFs for gophersat. It implements
// configurator.Backend and is safe for concurrent use.
type Backend struct {
	maxN     int
	countCap int
	// queue holds a token for every query in progress; its capacity is
	// the bound.
	queue chan struct{}
}

// New returns a plain SAT backend with the given limits.
func New(opts Options) *Backend {
	return &Backend{
		maxN:     satbase.Or(opts.MaxN, DefaultMaxN),
		countCap: satbase.Or(opts.CountCap, DefaultCountCap),
		queue:    make(chan struct{}, satbase.Or(opts.Queue, DefaultQueue)),
	}
}

// Name is "sat-plain".
func (b *Backend) Name() string { return "sat-plain" }

// Limits states the largest board; the variable order means nothing to a
// SAT solver.
func (b *Backend) Limits() configurator.Limits { return configurator.Limits{MaxN: b.maxN} }

// Cost estimates the memory of an n×n space with its solver: the pairwise
// CNF has about 5n³/3 binary clauses, and the solver with its learnt
// clauses held 460 to 560 bytes per n³ after two analyses (N=12 to 40).
// Compiles are cheap.
func (b *Backend) Cost(n int, _ configurator.Order) configurator.Cost {
	return configurator.Cost{Bytes: 4096 + 600*int64(n)*int64(n)*int64(n)}
}

// Compile flattens m's constraints into the lines the CNF is written from.
// It is cheap and calls no solver; the solver is built on first use.
func (b *Backend) Compile(ctx context.Context, m *configurator.Model) (configurator.Space, error) {
	if err := satbase.Compilable(ctx, "the plain SAT backend", m.N(), b.maxN); err != nil {
		return nil, err
	}
	return newSpace(b, m), nil
}

// enter admits one query, or fails at once with ErrBusy when Queue queries
// are in progress. The query ends with leave.
func (b *Backend) enter() (leave func(), err error) {
	select {
	case b.queue <- struct{}{}:
		return func() { <-b.queue }, nil
	default:
		return nil, fmt.Errorf("%d queries in progress on the plain SAT solver: %w", cap(b.queue), configurator.ErrBusy)
	}
}
