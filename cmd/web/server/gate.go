package server

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nqueens/configurator/configurator"
)

// gate admits whole requests to a backend a few at a time, in the order
// they come, with a bounded queue in front.
//
// The SAT backend serialises every solver call in the process (gophersat
// is not safe for concurrent use) and queues each call on its own. A
// request makes several calls (one per undecided square, one per queen an
// explanation tries to drop), so under load each of its calls waits behind
// every other request's: its latency grows with its calls times the queue,
// and at 64 clients explanations on large boards ran past their deadline.
// Admitting whole requests in order lets a request's calls run back to
// back, so a request waits for the ones before it and no longer.
type gate struct {
	slots   chan struct{} // one token per request admitted
	queue   int64         // requests that may wait; more are refused
	waiting atomic.Int64
}

func newGate(slots, queue int) *gate {
	return &gate{slots: make(chan struct{}, max(slots, 1)), queue: int64(max(queue, 0))}
}

// enter waits for the request's turn and returns the function that ends
// it. A full queue fails at once with configurator.ErrBusy; a request
// whose ctx ends while it waits leaves the queue with ctx's error.
func (g *gate) enter(ctx context.Context) (leave func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	leave = func() { <-g.slots }
	select {
	case g.slots <- struct{}{}:
		return leave, nil
	default:
	}
	if g.waiting.Add(1) > g.queue {
		g.waiting.Add(-1)
		return nil, fmt.Errorf("%d requests waiting for the SAT solver: %w", g.queue, configurator.ErrBusy)
	}
	defer g.waiting.Add(-1)
	select {
	case g.slots <- struct{}{}: // blocked senders are served in order
		return leave, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the SAT solver: %w", ctx.Err())
	}
}
