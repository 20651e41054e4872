// Package sat is the SAT backend of the configurator. It encodes a model's
// constraints for the gophersat solver (github.com/crillab/gophersat v1.4.0)
// and answers every question about a placement with one incremental solver
// per compiled space, queried under assumptions.
//
// The solver is needed only to refute: any full solution, however it is
// found, witnesses that each of its queens is possible. So the backend first
// propagates the placement through the model's constraints, then looks for
// witnesses with a cheap local search (min-conflicts), multiplies them by
// the board symmetries the model and the placement admit, and calls the
// solver only for the cells still undecided. Every witness, from the search
// or from the solver, is verified against the model's constraints before it
// is believed, so a custom (even faulty) model is honoured exactly.
//
// The encoding uses gophersat's native cardinality constraints and states
// one fact the model implies but does not say: when the ExactlyOne lines
// (ranks) partition the board and as many disjoint AtMostOne lines (files)
// cover it, each of those holds exactly one queen too. Clause learning
// cannot derive this pigeonhole argument quickly; without it, refuting a
// cell under 56 queens on an 80×80 board took gophersat seconds, and under
// 84 queens on a 120×120 board more than ten minutes; with it, tens of
// milliseconds.
//
// gophersat v1.4.0 has defects the backend works around (see the project's
// shared notes): CountModels and Enumerate return duplicate models, so
// solutions are counted by adding blocking clauses; Assume drops the unit
// clauses of the base problem, so the base problem has none and one-cell
// rows travel as assumptions; the solver package keeps mutable state at
// package level, so every gophersat call in the process takes the one turn
// of package solverlock; and a Solve cannot be interrupted, so the work is
// bounded by the largest board accepted and a per-request deadline, and a
// request whose deadline passes during a solver call returns at once,
// leaving the call to finish in the background.
//
// # Admission
//
// The backend bounds its own work, in two lines of bounded length, each
// served in arrival order, whose next comer is refused at once with an
// error wrapping configurator.ErrBusy:
//
//   - Every solver call waits in the Backend's call line for the process's
//     one gophersat turn. That is all a caller that only queries (the
//     command line, the cross-checks, the benchmarks) ever meets.
//   - A server admits whole requests first: the spaces are
//     configurator.Admitters, and Admit waits in the Backend's request line
//     until fewer than Options.Serve requests are being served. A request
//     makes many solver calls (one per undecided cell, one per queen an
//     explanation tries to drop); queued call by call, each of them would
//     wait behind every other request's, so a request's latency would grow
//     with its calls times the queue, and at 64 clients explanations on
//     large boards ran past their deadline. Admitted whole, a request's
//     calls run back to back and it waits for the requests before it and
//     no longer.
//
// Admission is per Backend, shared by all its spaces. It cannot tell an
// admitted query from another (Admit hands back no context to carry the
// turn), so the calls of admitted requests wait in the call line too; they
// are at most Serve, and the call line holds at least Serve, so admitted
// requests never fill it by themselves. Behind Admit a call finds the
// solver free, or held by one of at most Serve-1 other admitted requests,
// or by a caller outside this Backend's admission: another backend's call,
// a query made without Admit, a call abandoned at its deadline.
package sat

import (
	"context"
	"time"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
)

// Defaults of Options, chosen from measurements on the project's machine
// (2 cores): see the package benchmarks and the report in the repository.
const (
	// DefaultMaxN is the largest board accepted by default, the value the
	// rest of the project was written against. Measurements allow more: at
	// N=200 a compiled space holds about 30 MB with its solver, the empty
	// board's analysis takes about 0.1 s and one full solution from
	// gophersat alone 0.6 s; the analyses of 400 random placements of
	// 50-90% of the queens on boards of 100 to 300 took at most 0.9 s. A
	// Solve cannot be interrupted, and N-Queens completion is NP-complete,
	// so a placement built to be hard may still take longer: the deadline
	// then answers the request, and the call finishes in the background,
	// holding the solver.
	DefaultMaxN = 120
	// DefaultQueue is how many requests may wait for admission, and how
	// many solver calls for the solver.
	DefaultQueue = 32
	// DefaultServe is how many admitted requests are served at once: the
	// solver runs one call at a time anyway, and a second request served
	// would only interleave its calls with the first's.
	DefaultServe = 1
	// DefaultCountCap is the default cap of the blocking-clause count.
	DefaultCountCap = 10000
	// DefaultTimeout bounds one query, its waits for the solver included.
	DefaultTimeout = 30 * time.Second
)

// Options bound the work of a Backend. The zero value asks for the
// defaults.
type Options struct {
	// MaxN is the largest board accepted; 0 means DefaultMaxN. Beyond it
	// Compile returns an error wrapping configurator.ErrTooLarge.
	MaxN int
	// Queue bounds each of the two lines of the package doc's Admission: how
	// many requests may wait for Admit, and how many solver calls for the
	// solver (at least Serve); 0 means DefaultQueue. A query waits each time
	// it needs the solver (most questions on large boards are answered
	// without it). A caller that finds its line full fails at once with an
	// error wrapping configurator.ErrBusy.
	Queue int
	// Serve is how many requests Admit lets in at once; 0 means
	// DefaultServe.
	Serve int
	// CountCap caps the blocking-clause count of solutions; 0 means
	// DefaultCountCap. Above it Analysis.Solutions is the cap and AtLeast is
	// set. See Space.Analyze for when the backend counts at all.
	CountCap int
	// Timeout bounds each query (Analyze, Satisfiable, Solve), the time its
	// solver calls wait in the call line included; 0 means DefaultTimeout.
	// Admit waits as long as its ctx allows. A query past its deadline returns
	// with the context's error, even in the middle of a solver call.
	Timeout time.Duration
}

// Backend compiles models for gophersat. It implements
// configurator.Backend and configurator.Loader, and is safe for concurrent
// use.
type Backend struct {
	maxN     int
	countCap int
	timeout  time.Duration
	// serving holds a token for every request admitted and not yet done;
	// its capacity is Options.Serve.
	serving  chan struct{}
	requests line // requests waiting for a place in serving
	calls    line // solver calls waiting for the solver's turn
	// solverOnly turns off the local search and the symmetries, leaving
	// the solver to find every witness: for benchmarks that measure what
	// they save.
	solverOnly bool
}

// New returns a SAT backend with the given limits.
func New(opts Options) *Backend {
	b := &Backend{
		maxN:     satbase.Or(opts.MaxN, DefaultMaxN),
		countCap: satbase.Or(opts.CountCap, DefaultCountCap),
		timeout:  satbase.Or(opts.Timeout, DefaultTimeout),
	}
	queue, serve := satbase.Or(opts.Queue, DefaultQueue), satbase.Or(opts.Serve, DefaultServe)
	b.serving = make(chan struct{}, serve)
	b.requests.bound = int64(queue)
	b.calls.bound = int64(max(queue, serve)) // the admitted requests' calls always fit
	return b
}

// Name is "sat".
func (b *Backend) Name() string { return "sat" }

// Limits states the largest board; the variable order means nothing to a
// SAT solver.
func (b *Backend) Limits() configurator.Limits { return configurator.Limits{MaxN: b.maxN} }

// Cost estimates the memory of an n×n space, which reports no size of its
// own (it is no configurator.Sizer): 4 KiB and 64 bytes per N³, the bound
// the web server charged before the backend stated it. Measured on N-Queens
// with the solver built, before any learnt clause: 54 KB at N=8 (above the
// estimate of 37 KB), 0.2 MB at N=16, 7.7 MB at N=120 (a fourteenth of
// the estimate). Compiles are cheap, never heavy.
func (b *Backend) Cost(n int, _ configurator.Order) configurator.Cost {
	return configurator.Cost{Bytes: 4096 + 64*int64(n)*int64(n)*int64(n)}
}

// Compile flattens m's constraints for the solver and the local search. It
// is cheap (milliseconds at N=100) and calls no solver; the solver is built
// on first use.
func (b *Backend) Compile(ctx context.Context, m *configurator.Model) (configurator.Space, error) {
	if err := satbase.Compilable(ctx, "the SAT backend", m.N(), b.maxN); err != nil {
		return nil, err
	}
	return newSpace(b, m), nil
}
