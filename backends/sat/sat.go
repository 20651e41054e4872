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

// Defaults of Options, for the project's machine (2 cores): the package
// benchmarks and the report in the repository measure them.
const (
	// DefaultMaxN is the largest board accepted by default, the value the
	// rest of the project was written against; the benchmarks measure
	// larger boards. N-Queens completion is NP-complete, so a placement
	// built to be hard may take long on any board: its deadline then
	// interrupts the solver.
	DefaultMaxN = 120
	// DefaultQueue is how many requests of one client may wait for
	// admission, and how many solver calls in the call queue.
	DefaultQueue = 32
	// ServePerTurn is the requests Admit lets in at once per solver turn
	// by default (Options.Serve): their solver calls share the turns in
	// slices, so that a client is served while others' questions take
	// seconds. More would serve more clients whose questions take seconds
	// at once, but slow every request admitted, until, under the soak's
	// load, requests of a few seconds of solver work meet their deadline.
	ServePerTurn = 2
	// DefaultCountCap is the default cap of the blocking-clause count.
	DefaultCountCap = satbase.DefaultCountCap
	// DefaultModelCountCap is the default cap of the count of a feature
	// model's configurations.
	DefaultModelCountCap = satbase.DefaultModelCountCap
	// DefaultTimeout bounds one query, its waits for the solver included.
	DefaultTimeout = 30 * time.Second
)

// Options bound the work of a Backend. The zero value asks for the
// defaults.
type Options struct {
	// MaxN is the largest board accepted; 0 means DefaultMaxN. Beyond it
	// Compile returns an error wrapping configurator.ErrTooLarge.
	MaxN int
	// Queue bounds the queues of the package doc's Admission: how many
	// requests of one client may wait for Admit, and how many solver calls
	// for a solver turn (at least Serve); 0 means DefaultQueue. A query
	// waits each time it needs the solver (most questions on large boards
	// are answered without it). A caller that finds its queue full fails
	// at once with an error wrapping configurator.ErrBusy.
	Queue int
	// Serve is how many requests Admit lets in at once, at most one per
	// client; 0 means ServePerTurn per turn of package solverlock (per
	// core).
	Serve int
	// CountCap caps the blocking-clause count of solutions; 0 means
	// DefaultCountCap. Above it Analysis.Solutions is the cap and AtLeast is
	// set. Only boards up to 10×10 are counted: each solution costs a solver
	// call.
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
	// Timeout bounds each query (Analyze, Satisfiable, Solve), the time its
	// solver calls wait in the call queue included; 0 means DefaultTimeout.
	// Admit waits as long as its ctx allows. A query past its deadline, or
	// whose ctx ends, interrupts its solver call and returns with the
	// context's error.
	Timeout time.Duration
}

// Backend compiles models for gophersat. It implements
// configurator.Backend and configurator.Occupier, and is safe for concurrent
// use.
type Backend struct {
	base    satbase.Backend
	timeout time.Duration
	queue   int
	// requests are the slots of the requests admitted, Options.Serve of
	// them, one per client, with the queues of those waiting.
	requests *fair.Sem
	// slots holds, per named client, its admitted request's slot (one per
	// client): a request whose question is sliced gives it back early
	// (see lend).
	slotsMu sync.Mutex
	slots   map[string]*slot
	// searches is the lane of the configurator's long searches (see
	// lane): half the solver turns, one per client.
	searches *fair.Sem
	// callsWaiting counts the solver calls waiting for a turn, at most
	// callBound: the call queue.
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
		timeout:   satbase.Or(opts.Timeout, DefaultTimeout),
		queue:     queue,
		callBound: int64(max(queue, serve)), // the admitted requests' calls always fit
		requests:  fair.New(fair.Bounds{Turns: serve, Share: 1, ClientQueue: queue}),
		searches:  fair.New(fair.Bounds{Turns: max(1, solverlock.Turns()/2), Share: 1, ClientQueue: queue}),
		slots:     make(map[string]*slot),
	}
	b.base = satbase.Backend{
		What:           "the SAT backend",
		MaxN:           satbase.Or(opts.MaxN, DefaultMaxN),
		CountCap:       satbase.Or(opts.CountCap, DefaultCountCap),
		ModelCountCap:  satbase.Or(opts.ModelCountCap, DefaultModelCountCap),
		ModelCountTime: opts.ModelCountTime,
		PerCube:        64,
		Begin:          b.begin,
		Turn:           b.solverTurn,
	}
	return b
}

// Name is "sat".
func (b *Backend) Name() string { return "sat" }

// Limits states the largest board; the variable order means nothing to a
// SAT solver.
func (b *Backend) Limits() configurator.Limits { return b.base.Limits() }

// Cost estimates the memory of an n×n space, which reports no size of its
// own (it is no configurator.Sizer): 4 KiB and 64 bytes per n³. The
// solvers a space keeps may each learn clauses of up to a quarter of it.
// Compiles are cheap, never heavy.
func (b *Backend) Cost(n int, _ configurator.Order) configurator.Cost { return b.base.Cost(n) }

// Compile flattens m's constraints for the solver, the propagation and the
// local search. It is cheap and calls no solver; the solver is built on
// first use.
func (b *Backend) Compile(ctx context.Context, m *configurator.Model) (configurator.Board, error) {
	return b.base.Compile(ctx, m, b.newEngine, func(sp *satbase.Space) configurator.Board {
		return &space{Space: sp, b: b}
	})
}
