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
// What it shares with package sat is the skeleton of package satbase, none
// of the shortcuts: the limits, the checks of the cells asked about, the
// pool of a space's solvers, the solver turns, the verification of every
// solution gophersat returns (a fault in the solver shows as an error, not
// as an answer), the count with blocking clauses, and the Work figures.
//
// On a feature model (CompileModel) it is the straightforward backbone:
// one solver call for the decisions, then one per feature not decided and
// per value, each on the CNF alone.
//
// Its gate is simpler than package sat's: at most Options.Queue queries
// (Analyze, Satisfiable, Solve) are in progress at once, the next fails at
// once with ErrBusy, and every solver call of a query takes one of the
// process's turns of package solverlock (one per core, shared fairly among
// clients). Its spaces are no configurator.Admitters, and a query has no
// deadline but its context's.
package plain

import (
	"time"

	"context"
	"fmt"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// Defaults of Options.
const (
	// DefaultMaxN is the largest board accepted by default: the largest
	// whose empty board, the slowest placement, this backend analyses in
	// about a second on the project's machine (2 cores), as
	// BenchmarkValidDomainsEmpty measures.
	DefaultMaxN = 40
	// DefaultQueue is how many queries may be in progress at once.
	DefaultQueue = 32
	// DefaultCountCap is the default cap of the blocking-clause count.
	DefaultCountCap = satbase.DefaultCountCap
	// DefaultModelCountCap is the default cap of the count of a feature
	// model's configurations.
	DefaultModelCountCap = satbase.DefaultModelCountCap
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
	// ModelCountCap caps the blocking-clause count of a feature model's
	// configurations; 0 means DefaultModelCountCap. Above it
	// Domains.Configurations is the cap and AtLeast is set.
	ModelCountCap int
	// ModelCountTime bounds the time that count may take after the
	// domains are decided; 0 means no bound but ModelCountCap. Past it
	// Domains.Configurations is what was counted and AtLeast is set: a
	// server sets it so that the count never makes an answer slow.
	ModelCountTime time.Duration
}

// Backend compiles models into pairwise CNFs for gophersat. It implements
// configurator.Backend and is safe for concurrent use.
type Backend struct {
	base satbase.Backend
	// running holds a token for every query in progress; its capacity
	// is Options.Queue.
	running chan struct{}
}

// New returns a plain SAT backend with the given limits.
func New(opts Options) *Backend {
	b := &Backend{running: make(chan struct{}, satbase.Or(opts.Queue, DefaultQueue))}
	b.base = satbase.Backend{
		What:           "the plain SAT backend",
		MaxN:           satbase.Or(opts.MaxN, DefaultMaxN),
		CountCap:       satbase.Or(opts.CountCap, DefaultCountCap),
		ModelCountCap:  satbase.Or(opts.ModelCountCap, DefaultModelCountCap),
		ModelCountTime: opts.ModelCountTime,
		// The pairwise CNF has about 5n³/3 binary clauses.
		PerCube: 600,
		Begin:   b.begin,
		Turn:    solverlock.Acquire,
	}
	return b
}

// Name is "sat-plain".
func (b *Backend) Name() string { return "sat-plain" }

// Limits states the largest board; the variable order means nothing to a
// SAT solver.
func (b *Backend) Limits() configurator.Limits { return b.base.Limits() }

// Cost estimates the memory of an n×n space with its solver and what it
// learns: 4 KiB and 600 bytes per n³. Compiles are cheap.
func (b *Backend) Cost(n int, _ configurator.Order) configurator.Cost { return b.base.Cost(n) }

// Compile writes m's constraints as the pairwise CNF. It is cheap and
// calls no solver; the solver is built on first use.
func (b *Backend) Compile(ctx context.Context, m *configurator.Model) (configurator.Board, error) {
	return b.base.Compile(ctx, m, newEngine, nil)
}

// begin starts one query, or fails at once with ErrBusy when
// Options.Queue queries are in progress.
func (b *Backend) begin(ctx context.Context) (context.Context, func(), error) {
	select {
	case b.running <- struct{}{}:
		return ctx, func() { <-b.running }, nil
	default:
		return nil, nil, fmt.Errorf("%d queries in progress on the plain SAT solver: %w", cap(b.running), configurator.ErrBusy)
	}
}
