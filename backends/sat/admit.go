package sat

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/configurator/backends/sat/internal/fair"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// The gates of the package doc's Admission, as the configurator sees them.
var (
	_ configurator.Admitter = (*space)(nil)
	_ configurator.Occupier = (*Backend)(nil)
)

// space is a compiled model: the skeleton's space (see engine for how it
// answers), admitted through its Backend.
type space struct {
	*satbase.Space
	b *Backend
}

// Admit waits for a request's slot on the space's Backend and returns the
// function that gives it back: see the package doc's Admission. A full
// queue fails at once with an error wrapping configurator.ErrBusy; a
// caller whose ctx ends while it waits leaves the queue with ctx's error.
// Queries work without a slot too.
func (sp *space) Admit(ctx context.Context) (done func(), err error) {
	return sp.b.admit(ctx)
}

// admit is Admit on any space of b: a request's slot, by ctx's client.
func (b *Backend) admit(ctx context.Context) (done func(), err error) {
	client := configurator.ClientOf(ctx)
	done, err = b.requests.Acquire(ctx, client)
	switch {
	case errors.Is(err, fair.ErrFull):
		return nil, fmt.Errorf("%d requests of this client waiting for the SAT solver: %w", b.queue, configurator.ErrBusy)
	case err != nil:
		return nil, fmt.Errorf("waiting for the SAT solver: %w", err)
	}
	if client == "" {
		return done, nil
	}
	// One request of a named client holds a slot at once (Share 1).
	sl := &slot{give: done}
	b.slotsMu.Lock()
	b.slots[client] = sl
	b.slotsMu.Unlock()
	return func() {
		b.slotsMu.Lock()
		if b.slots[client] == sl {
			delete(b.slots, client)
		}
		b.slotsMu.Unlock()
		sl.give()
	}, nil
}

// slot is an admitted request's slot; give gives it back (once, however
// many times it is called).
type slot struct{ give func() }

// lend gives the admitted request of ctx's client its slot back early,
// for another client to take, once its question has given its solver turn
// up (callSliced): a question that takes longer than a slice while other
// clients wait runs on in the turns they leave (behind the calls asking
// afresh), and no longer keeps them out of the backend, nor its client's
// next request (the solver turns still hold a client to its share of the
// cores). The request's own done then gives nothing back twice.
func (b *Backend) lend(ctx context.Context) {
	client := configurator.ClientOf(ctx)
	if client == "" {
		return
	}
	b.slotsMu.Lock()
	sl := b.slots[client]
	delete(b.slots, client)
	b.slotsMu.Unlock()
	if sl != nil {
		sl.give()
	}
}

// begin starts one query under the backend's timeout.
func (b *Backend) begin(ctx context.Context) (context.Context, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	return ctx, cancel, nil
}

// solverTurn waits in the call queue for one of the process's solver turns
// (package solverlock) and returns the function that gives it back: see
// waitTurn.
func (b *Backend) solverTurn(ctx context.Context) (release func(), err error) {
	err = b.waitTurn(ctx, func() (err error) {
		release, err = solverlock.Acquire(ctx)
		return err
	})
	return release, err
}

// solverTurnSliced is solverTurn for a call that gives its turn up when
// another client wants it (solverlock.AcquireSliced); the call runs under
// the context it returns.
func (b *Backend) solverTurnSliced(ctx context.Context, resumed bool) (callCtx context.Context, release func(), err error) {
	err = b.waitTurn(ctx, func() (err error) {
		callCtx, release, err = solverlock.AcquireSliced(ctx, resumed)
		return err
	})
	return callCtx, release, err
}

// waitTurn runs acquire, which waits for a solver turn, as one of the
// callers in the call queue. At most callBound callers of the Backend
// wait at once; the next fails at once with an error wrapping
// configurator.ErrBusy. A caller whose ctx has ended gets its error.
func (b *Backend) waitTurn(ctx context.Context, acquire func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if b.callsWaiting.Add(1) > b.callBound {
		b.callsWaiting.Add(-1)
		return fmt.Errorf("%d solver calls waiting for the SAT solver: %w", b.callBound, configurator.ErrBusy)
	}
	defer b.callsWaiting.Add(-1)
	if err := acquire(); err != nil {
		return fmt.Errorf("waiting for the SAT solver: %w", err)
	}
	return nil
}

// callSliced runs f, one question to the solver that f may ask again from
// the start after a stop (its assumptions set again, the solver's learned
// clauses kept), in slices: it runs f holding a turn, under a context that
// ends when another client wants the turn (solverTurnSliced), and then
// gives the turn back, lends the request's slot (lend), waits for its next
// turn behind the calls asking afresh, and runs f again, until f ends by
// itself or ctx does. So a question that takes seconds shares a core with
// every other client's in slices, instead of holding it to its end.
func (b *Backend) callSliced(ctx context.Context, q *satbase.Calls, f func(ctx context.Context) error) error {
	for resumed := false; ; resumed = true {
		callCtx, release, err := b.solverTurnSliced(ctx, resumed)
		if err != nil {
			return err
		}
		var ferr error
		err = q.Run(func() { ferr = f(callCtx) })
		yielded := ctx.Err() == nil && errors.Is(context.Cause(callCtx), solverlock.ErrYield)
		release()
		if err != nil {
			return err
		}
		if ferr == nil || !yielded {
			return ferr
		}
		b.lend(ctx)
	}
}

// Occupancy reports the requests admitted and not yet done (Running) and the
// callers waiting (Waiting): requests for Admit, solver calls for a turn.
// Bytes is 0, not counted: a query holds a few copies of the placement's
// state and, on boards up to 10×10, the solutions it counts (at most
// Options.CountCap of them); the solvers a space keeps are bounded instead
// (see Backend.Cost).
func (b *Backend) Occupancy() configurator.Occupancy {
	return configurator.Occupancy{
		Waiting: int64(b.requests.Waiting()) + b.callsWaiting.Load(),
		Running: int64(b.requests.Held()),
	}
}
