// Package solverlock is the process-wide turn for calls into gophersat
// (github.com/crillab/gophersat v1.4.0). The library keeps mutable state at
// package level (the buffer bufLits in solver/learn.go is shared by every
// Solver), so even calls on separate Solver values race and corrupt each
// other's answers. Every package of this project that calls gophersat, the
// backends and the benchmarks' baselines alike, takes this one turn first.
//
// This is the project's one piece of global state, forced by the library.
package solverlock

import "context"

// turn holds a token while some goroutine may call gophersat. A channel
// rather than a sync.Mutex lets a waiter give up when its context ends.
var turn = make(chan struct{}, 1)

// Acquire waits for the turn and returns the function that gives it back.
// A caller whose ctx ends first gets ctx's error and no turn.
func Acquire(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case turn <- struct{}{}:
		return func() { <-turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Do runs f holding the turn, for callers that cannot give up (a benchmark
// baseline measuring the solver alone).
func Do(f func()) {
	turn <- struct{}{}
	defer func() { <-turn }()
	f()
}
