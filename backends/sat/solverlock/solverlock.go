// Package solverlock bounds the calls into gophersat running at once in the
// process, and shares them fairly among clients. gophersat (the patched
// v1.4.0 carried in third_party/gophersat) runs separate Solver values in
// parallel safely, and each call takes a core while it runs: so every
// package of this project that calls gophersat, the backends and the
// benchmarks' baselines alike, takes one of the process's turns first.
//
// There are as many turns as the process has cores (GOMAXPROCS when the
// program starts), so two clients' calls run on two cores; and a client
// named by configurator.WithClient holds at most half of them (at least
// one), so one client's calls never hold every core while another's wait.
// A turn given back goes to the next client waiting, round robin. Calls
// made for no client (the command line, tests, benchmarks) may hold every
// turn.
//
// A call that can stop and go on (a gophersat Solve: stopped, it keeps what
// it learned) takes its turn with AcquireSliced and gives it up after a
// Quantum whenever another client waits, so that as many clients as there
// are, not only as many as there are cores, share the cores: a client's
// call that takes seconds no longer makes every other client wait for its
// end.
//
// The turns are the process's one piece of global state: the cores they
// stand for are the process's too.
package solverlock

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/nqueens/configurator/backends/sat/internal/fair"
	"github.com/nqueens/configurator/configurator"
)

// turns are the process's turns.
var turns = newTurns(runtime.GOMAXPROCS(0))

// newTurns returns n turns, a named client holding at most half of them
// (at least one).
func newTurns(n int) *fair.Sem {
	return fair.New(fair.Bounds{Turns: n, Share: max(1, n/2)})
}

// Turns is how many calls into gophersat may run at once in the process.
func Turns() int { return turns.Turns() }

// Acquire waits for a turn for the client of ctx (configurator.ClientOf)
// and returns the function that gives it back. A caller whose ctx ends
// first gets ctx's error and no turn.
func Acquire(ctx context.Context) (release func(), err error) {
	return turns.Acquire(ctx, configurator.ClientOf(ctx))
}

// Quantum is how long a call taken with AcquireSliced keeps its turn while
// another client waits for one: the longest a waiting client waits for
// each of the calls ahead of it in the round.
const Quantum = 10 * time.Millisecond

// ErrYield is the cause of the end of AcquireSliced's context when the
// turn is wanted by another client.
var ErrYield = errors.New("the solver turn is wanted by another client")

// AcquireSliced is Acquire for a call that can stop and go on: besides the
// function that gives the turn back, it returns a context of ctx for the
// call, which ends with cause ErrYield (context.Cause) once the turn has
// been held for a Quantum while a caller of another client that may take
// it waits. The caller then stops its call, gives the turn back, and asks
// again with resumed set: it then waits behind every caller asking afresh
// (fair.Sem.Requeue), so that a client's short calls wait at most a
// Quantum for a turn, however many long calls share the cores.
func AcquireSliced(ctx context.Context, resumed bool) (callCtx context.Context, release func(), err error) {
	return acquireSliced(ctx, turns, Quantum, resumed)
}

// acquireSliced is AcquireSliced on the turns of sem, each slice quantum
// long.
func acquireSliced(ctx context.Context, sem *fair.Sem, quantum time.Duration, resumed bool) (context.Context, func(), error) {
	acquire := sem.Acquire
	if resumed {
		acquire = sem.Requeue
	}
	give, err := acquire(ctx, configurator.ClientOf(ctx))
	if err != nil {
		return nil, nil, err
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	var mu sync.Mutex
	var t *time.Timer
	stopped := false
	mu.Lock()
	t = time.AfterFunc(quantum, func() {
		if sem.Wanted() {
			cancel(ErrYield)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			t.Reset(quantum)
		}
	})
	mu.Unlock()
	return callCtx, func() {
		mu.Lock()
		stopped = true
		t.Stop()
		mu.Unlock()
		cancel(nil)
		give()
	}, nil
}
