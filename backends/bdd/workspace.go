package bdd

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"golang.org/x/sync/semaphore"
)

// drawBytesPerNode is the work space of one drawing (Diagram, Graph) per
// node of the diagram: the copy of the restricted diagram in a Manager of
// its own (16 bytes a node, up to twice that while its slice grows, and
// its hash buckets) and the traversal's memo.
const drawBytesPerNode = 64

// DefaultScratch is the work space of Options{Scratch: 0}: 1 GiB, room for
// five sweeps of the whole 14×14 diagram at once and hundreds of small
// parts.
const DefaultScratch int64 = 1 << 30

// smallShare is the share of the bound kept for small queries: those
// asking for at most an eighth of the bound (the parts of placements with
// queens, two million nodes at most with the default 1 GiB) run in a lane
// of a quarter of it (256 MiB of the default), and the others (sweeps of
// the whole diagram, drawings) in the rest.
const (
	smallShare = 4
	smallQuery = 8
)

// workspace bounds the bytes of work space held by the queries running on
// a Backend's spaces. Every query on a Space takes work space of its own,
// so that concurrent readers never share memory: a sweep holds what its
// part of the diagram needs (robdd.Part: tens of bytes a node of the part,
// and 1.5 bits an id of the diagram for the marks it reuses), a sweep of
// the whole diagram 17 bytes a node, a search for a solution 48 bytes a
// node it meets (robdd.Manager.AnySatBytes), a drawing a copy of its
// diagram (drawBytesPerNode). A workspace admits queries only while the
// work space of those running stays under Options.Scratch, by the bytes
// each asks for.
//
// It has two lanes, each a weighted semaphore, first come first served
// within itself: small queries (at most bound/8 bytes, the analysis of a
// placement of queens on any board up to 14×14) take bytes from a lane of
// bound/4 of their own, and large ones (sweeps of the whole diagram,
// drawings) from the rest, at most as many at once as the cores less one
// (at least one; see New), so that a small query neither waits for bytes
// behind a large one nor finds every core busy with large ones. Waiting honours the query's
// context: a query that cannot get its bytes before its context ends
// fails with an error wrapping configurator.ErrBusy and the context's
// error.
type workspace struct {
	small, large *semaphore.Weighted
	// cores admits the heavy work that runs at once: the large queries,
	// each holding one while it runs, and, on a Backend with
	// Options.SpareCore, the compiles' goroutines, a piece of work at a
	// time (turn). heavy is its size.
	cores                  *semaphore.Weighted
	heavy                  int
	bound, smallBound      int64
	waiting, running, held atomic.Int64
}

// newWorkspace bounds the work space at bound bytes, with at most cores
// large queries running at once.
func newWorkspace(bound int64, cores int) *workspace {
	small := max(bound/smallShare, 1)
	return &workspace{
		small:      semaphore.NewWeighted(small),
		large:      semaphore.NewWeighted(max(bound-small, 1)),
		cores:      semaphore.NewWeighted(int64(max(cores, 1))),
		heavy:      max(cores, 1),
		bound:      bound,
		smallBound: small,
	}
}

// granted is the bytes acquire takes for a query asking n: n, or its
// whole lane when n is more.
func (w *workspace) granted(n int64) int64 {
	n = max(n, 1)
	if n > w.bound/smallQuery {
		return min(n, max(w.bound-w.smallBound, 1))
	}
	return min(n, w.smallBound)
}

// turn runs f, the work of n goroutines, holding n of the cores the heavy
// work shares (all of them when n is more). f only computes: it waits for
// no other holder, so that every turn comes.
func (w *workspace) turn(n int, f func()) {
	n = min(max(n, 1), w.heavy)
	_ = w.cores.Acquire(context.Background(), int64(n)) // fails only with its context
	defer w.cores.Release(int64(n))
	f()
}

// acquire waits for n bytes and returns the function that gives them
// back. A query needing more than its whole lane runs alone in it.
func (w *workspace) acquire(ctx context.Context, n int64) (release func(), err error) {
	n = max(n, 1)
	if err := ctx.Err(); err != nil {
		return nil, err // out of time before asking: not a matter of load
	}
	lane, cores := w.small, (*semaphore.Weighted)(nil)
	if n > w.bound/smallQuery {
		lane, cores = w.large, w.cores
	}
	n = w.granted(n)
	w.waiting.Add(1)
	done, err := w.take(ctx, lane, cores, n)
	w.waiting.Add(-1)
	if err != nil {
		return nil, fmt.Errorf("waiting for %s of BDD work space (%s for all queries at once): %w: %w",
			bytesize.Format(n), bytesize.Format(w.bound), configurator.ErrBusy, err)
	}
	w.running.Add(1)
	w.held.Add(n)
	return func() {
		w.held.Add(-n)
		w.running.Add(-1)
		done()
	}, nil
}

// take acquires n of lane, and one of cores unless nil.
func (w *workspace) take(ctx context.Context, lane, cores *semaphore.Weighted, n int64) (release func(), err error) {
	if cores != nil {
		if err := cores.Acquire(ctx, 1); err != nil {
			return nil, err
		}
	}
	if err := lane.Acquire(ctx, n); err != nil {
		if cores != nil {
			cores.Release(1)
		}
		return nil, err
	}
	return func() {
		lane.Release(n)
		if cores != nil {
			cores.Release(1)
		}
	}, nil
}

// occupancy is the work the workspace holds.
func (w *workspace) occupancy() configurator.Occupancy {
	return configurator.Occupancy{Waiting: w.waiting.Load(), Running: w.running.Load(), Bytes: w.held.Load()}
}
