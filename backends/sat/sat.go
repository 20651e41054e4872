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
// rows travel as assumptions. Two more are patched in the copy the project
// carries (backends/sat/gophersat/PATCHES.md): a Solve is interrupted when
// its request's context ends, so a call past its deadline stops within
// milliseconds and frees its core and its memory, and separate solvers run
// in parallel, one per turn of package solverlock (one per core).
//
// # Admission
//
// The backend bounds its own work and shares it fairly among the clients
// that configurator.WithClient names in the context (the web server names
// each by its address):
//
//   - A server admits whole requests: the spaces are configurator.Admitters,
//     and Admit lets in at most Options.Serve requests at once (by default
//     ServePerTurn per core), at most one per client (requests without a client, the
//     process's own, are not limited so). The others wait in a line per
//     client of at most Options.Queue requests, and a place that frees goes
//     to the next client in turn (round robin), not to the request that
//     came first: a client sending many requests waits behind its own, and
//     however many it sends, other clients' lines stay open. (The server
//     bounds the clients and their connections.) A request makes many
//     solver calls (one per undecided cell, one per queen an explanation
//     tries to drop); admitted whole, they run back to back.
//   - Every solver call waits for one of the process's gophersat turns
//     (package solverlock, also shared fairly among clients), at most
//     Options.Queue calls of the Backend at once. A question to the solver
//     gives its turn up after solverlock.Quantum whenever another client
//     waits, and goes on at its next turn (gophersat keeps what it learned):
//     so the requests admitted share the cores in slices, and a request
//     whose question takes seconds holds a core only while nobody else
//     needs it. Such a request also gives its place among those admitted
//     back at its first slice given up: long questions never keep another
//     client out of the backend. That is all a caller that
//     only queries (the command line, the cross-checks, the benchmarks) ever
//     meets.
//
// A request that ends while it waits leaves its line; one whose deadline
// passes during a solver call interrupts the call. Either way its turn is
// free again at once.
//
// A compiled space keeps its solvers between requests (they keep what they
// learn), at most one per turn, each dropped when the clauses it learned
// outgrow a quarter of the space's Cost: the memory the cache does not see
// is bounded.
package sat

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/configurator/backends/sat/internal/fair"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/backends/sat/solverlock"
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
	// 50-90% of the queens on boards of 100 to 300 took at most 0.9 s.
	// N-Queens completion is NP-complete, so a placement built to be hard
	// may take longer: its deadline then interrupts the solver.
	DefaultMaxN = 120
	// DefaultQueue is how many requests of one client may wait for
	// admission, and how many solver calls for the solver.
	DefaultQueue = 32
	// ServePerTurn is the requests Admit lets in at once per solver turn
	// by default (Options.Serve): their solver calls share the turns in
	// slices, so that a client is served while others' questions take
	// seconds. More would serve more clients whose questions take seconds
	// at once, but slow every request admitted: under the soak's load at
	// eight per turn, requests of a few seconds of solver work shared the
	// cores with fifteen others and met their deadline (7 of 57,548
	// answers were 503).
	ServePerTurn = 2
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
	// Queue bounds the lines of the package doc's Admission: how many
	// requests of one client may wait for Admit, and how many solver calls
	// for the solver (at least Serve); 0 means DefaultQueue. A query waits
	// each time it needs the solver (most questions on large boards are
	// answered without it). A caller that finds its line full fails at once
	// with an error wrapping configurator.ErrBusy.
	Queue int
	// Serve is how many requests Admit lets in at once, at most one per
	// client; 0 means ServePerTurn per turn of package solverlock (per
	// core).
	Serve int
	// CountCap caps the blocking-clause count of solutions; 0 means
	// DefaultCountCap. Above it Analysis.Solutions is the cap and AtLeast is
	// set. See Space.Analyze for when the backend counts at all.
	CountCap int
	// Timeout bounds each query (Analyze, Satisfiable, Solve), the time its
	// solver calls wait in the call line included; 0 means DefaultTimeout.
	// Admit waits as long as its ctx allows. A query past its deadline, or
	// whose ctx ends, interrupts its solver call and returns with the
	// context's error.
	Timeout time.Duration
}

// Backend compiles models for gophersat. It implements
// configurator.Backend and configurator.Occupier, and is safe for concurrent
// use.
type Backend struct {
	maxN     int
	countCap int
	timeout  time.Duration
	queue    int
	// requests are the places of requests admitted, Options.Serve of them,
	// one per client, with the lines of those waiting.
	requests *fair.Sem
	// places holds, per named client, the function that gives its
	// admitted request's place back (one per client): a request whose
	// question is sliced gives it back early (see lend).
	placesMu sync.Mutex
	places   map[string]*place
	// callsWaiting counts the solver calls waiting for a turn, at most
	// callBound.
	callsWaiting atomic.Int64
	callBound    int64
	// solverOnly turns off the local search and the symmetries, leaving
	// the solver to find every witness: for benchmarks that measure what
	// they save.
	solverOnly bool
}

// New returns a SAT backend with the given limits.
func New(opts Options) *Backend {
	queue, serve := satbase.Or(opts.Queue, DefaultQueue), satbase.Or(opts.Serve, ServePerTurn*solverlock.Turns())
	b := &Backend{
		maxN:      satbase.Or(opts.MaxN, DefaultMaxN),
		countCap:  satbase.Or(opts.CountCap, DefaultCountCap),
		timeout:   satbase.Or(opts.Timeout, DefaultTimeout),
		queue:     queue,
		callBound: int64(max(queue, serve)), // the admitted requests' calls always fit
	}
	b.requests = fair.New(fair.Limits{Turns: serve, Share: 1, ClientQueue: queue})
	b.places = make(map[string]*place)
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
