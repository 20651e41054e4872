package bdd

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"golang.org/x/sync/semaphore"
)

// Every query on a Space takes work space of its own, indexed by node:
// counts and paths (two uint64 a node), visit stamps (a uint32), flags and
// bit sets, so that concurrent readers never share memory (the engine keeps
// them in a pool per Manager). At 14×14 (9.6 million nodes) that is about
// 220 MB a query, and 64 queries at once would want 14 GB. A Backend
// therefore admits queries on its spaces only while the work space of those
// running stays under Options.Scratch: each query holds its estimated bytes
// of a weighted semaphore for as long as it runs.
const (
	// queryBytesPerNode is the work space of one query per node of the
	// diagram. The pool keeps the scratch areas and each grows to the
	// largest use it has seen, so a query may hold the union of what every
	// kind of query needs: 21.6 bytes a node, measured at 12×12 after
	// analyses, marginals, samples and satisfiability tests (9 for an
	// analysis alone, 16 for marginals), and a margin
	// (TestWorkspaceEstimate keeps this honest).
	queryBytesPerNode = 24
	// drawBytesPerNode is the work space of one Diagram call per node: a
	// query's, and the copy of the restricted diagram in a Manager of its
	// own (16 bytes a node, up to twice that while its slice grows, and its
	// hash buckets).
	drawBytesPerNode = 64
)

// DefaultScratch is the work space of Options{Scratch: 0}: 1 GiB, room for
// four queries at once on the 14×14 board, twenty on 13×13.
const DefaultScratch int64 = 1 << 30

// workspace bounds the bytes of work space held by the queries running on
// a Backend's spaces. Waiting honours the query's context: a query that
// cannot get its bytes before its context ends fails with an error wrapping
// configurator.ErrBusy and the context's error.
type workspace struct {
	sem   *semaphore.Weighted
	limit int64
	// waiting and running count the queries waiting for their bytes and
	// those holding them, held the bytes they hold (Backend.Load).
	waiting, running, held atomic.Int64
}

func newWorkspace(limit int64) *workspace {
	return &workspace{sem: semaphore.NewWeighted(limit), limit: limit}
}

// acquire waits for n bytes and returns the function that gives them
// back. A query needing more than the whole bound runs alone.
func (w *workspace) acquire(ctx context.Context, n int64) (release func(), err error) {
	n = min(max(n, 1), w.limit)
	if err := ctx.Err(); err != nil {
		return nil, err // out of time before asking: not a matter of load
	}
	w.waiting.Add(1)
	err = w.sem.Acquire(ctx, n)
	w.waiting.Add(-1)
	if err != nil {
		return nil, fmt.Errorf("waiting for %s of BDD work space (%s for all queries at once): %w: %w",
			bytesize.Format(n), bytesize.Format(w.limit), configurator.ErrBusy, err)
	}
	w.running.Add(1)
	w.held.Add(n)
	return func() {
		w.held.Add(-n)
		w.running.Add(-1)
		w.sem.Release(n)
	}, nil
}

// load is the work the workspace holds.
func (w *workspace) load() configurator.Load {
	return configurator.Load{Waiting: w.waiting.Load(), Running: w.running.Load(), Bytes: w.held.Load()}
}
