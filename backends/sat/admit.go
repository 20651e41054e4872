package sat

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// The Admission of the package doc, as the configurator sees it.
var (
	_ configurator.Admitter = (*space)(nil)
	_ configurator.Loader   = (*Backend)(nil)
)

// line is a waiting line of bounded length (see the package doc's
// Admission). It only counts and bounds its waiters; the turn they wait
// for is a channel send, whose blocked senders the runtime serves in
// arrival order.
type line struct {
	bound   int64
	waiting atomic.Int64
}

// wait counts the caller in the line while take waits for its turn, and
// returns take's release. With bound callers already waiting it fails at
// once with ErrBusy; when ctx ends first the caller leaves the line with
// ctx's error.
func (l *line) wait(ctx context.Context, take func(context.Context) (release func(), err error)) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.waiting.Add(1) > l.bound {
		l.waiting.Add(-1)
		return nil, fmt.Errorf("%d requests waiting for the SAT solver: %w", l.bound, configurator.ErrBusy)
	}
	defer l.waiting.Add(-1)
	if release, err = take(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the SAT solver: %w", err)
	}
	return release, nil
}

// Admit waits for a request's turn on the space's Backend, in arrival
// order behind a line of Options.Queue requests, and returns the function
// that ends the turn; at most Options.Serve requests hold one at once. A
// full line fails at once with an error wrapping configurator.ErrBusy; a
// caller whose ctx ends while it waits leaves the line with ctx's error.
// Queries work without a turn too: see the package doc's Admission.
func (sp *space) Admit(ctx context.Context) (done func(), err error) {
	return sp.b.admit(ctx)
}

func (b *Backend) admit(ctx context.Context) (done func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done = sync.OnceFunc(func() { <-b.serving })
	select {
	case b.serving <- struct{}{}: // a free place: no waiting, so no line
		return done, nil
	default:
	}
	return b.requests.wait(ctx, func(ctx context.Context) (func(), error) {
		select {
		case b.serving <- struct{}{}:
			return done, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
}

// solverTurn waits in the call line for the process's gophersat turn and
// returns the function that gives it back.
func (b *Backend) solverTurn(ctx context.Context) (release func(), err error) {
	return b.calls.wait(ctx, solverlock.Acquire)
}

// Load reports the requests admitted and not yet done (Running) and the
// callers waiting in the Backend's two lines (Waiting): requests for
// Admit, solver calls for the solver. Bytes is 0, not counted: a query
// holds a few copies of the placement's state, and on boards up to 10×10
// the solutions it counts (at most Options.CountCap of them, 0.6 MiB at
// the default cap).
func (b *Backend) Load() configurator.Load {
	return configurator.Load{
		Waiting: b.requests.waiting.Load() + b.calls.waiting.Load(),
		Running: int64(len(b.serving)),
	}
}
