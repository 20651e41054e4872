package sat

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/configurator/backends/sat/internal/fair"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// The Admission of the package doc, as the configurator sees it.
var (
	_ configurator.Admitter = (*space)(nil)
	_ configurator.Occupier = (*Backend)(nil)
)

// Admit waits for a request's turn on the space's Backend and returns the
// function that ends the turn: see the package doc's Admission. A full
// line fails at once with an error wrapping configurator.ErrBusy; a caller
// whose ctx ends while it waits leaves the line with ctx's error. Queries
// work without a turn too.
func (sp *space) Admit(ctx context.Context) (done func(), err error) {
	return sp.b.admit(ctx)
}

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
	// One request of a named client holds a place at once (Share 1).
	p := &place{give: done}
	b.placesMu.Lock()
	b.places[client] = p
	b.placesMu.Unlock()
	return func() {
		b.placesMu.Lock()
		if b.places[client] == p {
			delete(b.places, client)
		}
		b.placesMu.Unlock()
		p.give()
	}, nil
}

// place is an admitted request's place; give gives it back (once, however
// many times it is called).
type place struct{ give func() }

// lend gives the admitted request of ctx's client its place back early,
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
	b.placesMu.Lock()
	p := b.places[client]
	delete(b.places, client)
	b.placesMu.Unlock()
	if p != nil {
		p.give()
	}
}

// solverTurn waits in the call line for one of the process's gophersat
// turns (package solverlock) and returns the function that gives it back.
// At most Options.Queue callers of the Backend wait at once; the next fails
// at once with an error wrapping configurator.ErrBusy.
func (b *Backend) solverTurn(ctx context.Context) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.callsWaiting.Add(1) > b.callBound {
		b.callsWaiting.Add(-1)
		return nil, fmt.Errorf("%d solver calls waiting for the SAT solver: %w", b.callBound, configurator.ErrBusy)
	}
	defer b.callsWaiting.Add(-1)
	if release, err = solverlock.Acquire(ctx); err != nil {
		return nil, fmt.Errorf("waiting for the SAT solver: %w", err)
	}
	return release, nil
}

// solverTurnSliced is solverTurn for a call that gives its turn up when
// another client wants it (solverlock.AcquireSliced); the call runs under
// the context it returns.
func (b *Backend) solverTurnSliced(ctx context.Context, resumed bool) (callCtx context.Context, release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if b.callsWaiting.Add(1) > b.callBound {
		b.callsWaiting.Add(-1)
		return nil, nil, fmt.Errorf("%d solver calls waiting for the SAT solver: %w", b.callBound, configurator.ErrBusy)
	}
	defer b.callsWaiting.Add(-1)
	if callCtx, release, err = solverlock.AcquireSliced(ctx, resumed); err != nil {
		return nil, nil, fmt.Errorf("waiting for the SAT solver: %w", err)
	}
	return callCtx, release, nil
}

// Occupancy reports the requests admitted and not yet done (Running) and the
// callers waiting (Waiting): requests for Admit, solver calls for a turn.
// Bytes is 0, not counted: a query holds a few copies of the placement's
// state and, on boards up to 10×10, the solutions it counts (at most
// Options.CountCap of them, 0.6 MiB at the default cap); the solvers a
// space keeps are bounded instead (see Backend.Cost).
func (b *Backend) Occupancy() configurator.Occupancy {
	return configurator.Occupancy{
		Waiting: int64(b.requests.Waiting()) + b.callsWaiting.Load(),
		Running: int64(b.requests.Held()),
	}
}
