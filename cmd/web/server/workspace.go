package server

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sync/atomic"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"golang.org/x/sync/semaphore"
)

// Every query on a BDD space takes work space of its own, indexed by node:
// counts and paths (two uint64 a node), visit stamps (a uint32), flags and
// bit sets, so that concurrent readers never share memory (see
// backends/bdd, scratch). At 14×14 (9.6 million nodes) that is about 220 MB
// a query, and 64 requests at once would want 14 GB. The server therefore
// admits queries on a BDD space only while the work space of those running
// stays under a bound (the flag -bdd-scratch): each query holds its
// estimated bytes of a weighted semaphore for as long as it runs.
const (
	// queryBytesPerNode is the work space of one query per node of the
	// diagram. The space keeps its scratch areas in a pool and each grows
	// to the largest use it has seen, so a query may hold the union of
	// what every kind of query needs: 21.6 bytes a node, measured at 12×12
	// after analyses, marginals, samples and satisfiability tests (9 for
	// an analysis alone, 16 for marginals), and a margin
	// (TestWorkspaceEstimate keeps this honest).
	queryBytesPerNode = 24
	// drawBytesPerNode is the work space of one Diagram call per node: a
	// query's, and the copy of the restricted diagram in a Manager of its
	// own (16 bytes a node, up to twice that while its slice grows, and its
	// hash buckets).
	drawBytesPerNode = 64
)

// workspace bounds the bytes of work space held by the queries running on
// BDD spaces. Waiting honours the request's context: a query that cannot
// get its bytes before its deadline fails with configurator.ErrBusy, which
// the server answers with 503 and Retry-After.
type workspace struct {
	sem   *semaphore.Weighted
	limit int64
	// waiting and held count the queries waiting for their bytes and the
	// bytes held, for /debug/stats and the tests.
	waiting, held atomic.Int64
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
	w.held.Add(n)
	return func() {
		w.held.Add(-n)
		w.sem.Release(n)
	}, nil
}

// bddSpace is what a BDD space offers: every optional facet, and its size.
type bddSpace interface {
	configurator.Space
	configurator.Sampler
	configurator.Marginaler
	configurator.Diagrammer
	configurator.Sizer
	Nodes() int
}

// boundedSpace is a BDD space whose every query holds its work space from
// a workspace for as long as it runs. It offers the same facets as the
// space it wraps.
type boundedSpace struct {
	sp    bddSpace
	ws    *workspace
	query int64 // bytes one query holds
	draw  int64 // bytes one Diagram call holds
}

// bound wraps sp when it is a BDD space; any other space is returned as it
// is (the SAT backend bounds its own work with a queue).
func bound(sp configurator.Space, ws *workspace) configurator.Space {
	b, ok := sp.(bddSpace)
	if !ok || ws == nil {
		return sp
	}
	nodes := int64(b.Nodes()) + 2 // the terminals have ids too
	return &boundedSpace{sp: b, ws: ws, query: queryBytesPerNode * nodes, draw: drawBytesPerNode * nodes}
}

func (b *boundedSpace) Model() *configurator.Model { return b.sp.Model() }
func (b *boundedSpace) Bytes() int64               { return b.sp.Bytes() }

func (b *boundedSpace) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	release, err := b.ws.acquire(ctx, b.query)
	if err != nil {
		return nil, err
	}
	defer release()
	return b.sp.Analyze(ctx, queens)
}

func (b *boundedSpace) Satisfiable(ctx context.Context, with, without []configurator.Cell) (bool, error) {
	release, err := b.ws.acquire(ctx, b.query)
	if err != nil {
		return false, err
	}
	defer release()
	return b.sp.Satisfiable(ctx, with, without)
}

func (b *boundedSpace) Solve(ctx context.Context, queens []configurator.Cell) ([]configurator.Cell, error) {
	release, err := b.ws.acquire(ctx, b.query)
	if err != nil {
		return nil, err
	}
	defer release()
	return b.sp.Solve(ctx, queens)
}

func (b *boundedSpace) Sample(ctx context.Context, queens []configurator.Cell, rng *rand.Rand) ([]configurator.Cell, error) {
	release, err := b.ws.acquire(ctx, b.query)
	if err != nil {
		return nil, err
	}
	defer release()
	return b.sp.Sample(ctx, queens, rng)
}

func (b *boundedSpace) Marginals(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error) {
	release, err := b.ws.acquire(ctx, b.query)
	if err != nil {
		return nil, err
	}
	defer release()
	return b.sp.Marginals(ctx, queens)
}

// Diagram draws the diagram restricted to queens. Without queens the
// restriction is the whole diagram, whose size is known: when it is past
// maxNodes, the answer needs no copy of it (which takes seconds and
// hundreds of megabytes at 14×14).
func (b *boundedSpace) Diagram(ctx context.Context, queens []configurator.Cell, maxNodes int) (string, int, error) {
	if len(queens) == 0 && b.sp.Nodes() > maxNodes {
		return "", b.sp.Nodes(), nil
	}
	release, err := b.ws.acquire(ctx, b.draw)
	if err != nil {
		return "", 0, err
	}
	defer release()
	return b.sp.Diagram(ctx, queens, maxNodes)
}
