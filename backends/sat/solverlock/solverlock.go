// Package solverlock bounds the calls into gophersat running at once in the
// process, and shares them fairly among clients. gophersat (the patched
// v1.4.0 carried in backends/sat/gophersat) runs separate Solver values in
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
// The turns are the process's one piece of global state: the cores they
// stand for are the process's too.
package solverlock

import (
	"context"
	"runtime"

	"github.com/nqueens/configurator/backends/sat/internal/fair"
	"github.com/nqueens/configurator/configurator"
)

// turns are the process's turns.
var turns = newTurns(runtime.GOMAXPROCS(0))

func newTurns(n int) *fair.Sem {
	return fair.New(fair.Limits{Turns: n, Share: max(1, n/2)})
}

// Turns is how many calls into gophersat may run at once in the process.
func Turns() int { return turns.Turns() }

// Acquire waits for a turn for the client of ctx (configurator.ClientOf)
// and returns the function that gives it back. A caller whose ctx ends
// first gets ctx's error and no turn.
func Acquire(ctx context.Context) (release func(), err error) {
	return turns.Acquire(ctx, configurator.ClientOf(ctx))
}
