package bdd

import (
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestWorkspaceBoundsQueries checks the bound itself: with room for two
// queries of an 8×8 (24 bytes a node each), two run and the others wait,
// in turn; a waiter whose deadline passes gets ErrBusy and the deadline; a
// context already over is not a busy backend; a query needing more than the
// whole bound waits for every other and then runs alone.
func TestWorkspaceBoundsQueries(t *testing.T) {
	b := New(Options{})
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	query := int64(queryBytesPerNode * (2451 + 2))
	if sp.query != query || sp.draw != drawBytesPerNode*(2451+2) {
		t.Fatalf("8×8 queries charge %d bytes and drawings %d; want %d and %d", sp.query, sp.draw, query, drawBytesPerNode*(2451+2))
	}
	ws := newWorkspace(2*query + query/2)
	b.work = ws // what Load reports

	gate := make(chan struct{})
	var in, peak atomic.Int32
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			release, err := ws.acquire(context.Background(), query)
			if err != nil {
				t.Errorf("a query that waited its turn: %v", err)
				return
			}
			defer release()
			n := in.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			<-gate
			in.Add(-1)
		})
	}
	waitFor(t, "two queries in and three waiting", func() bool { return in.Load() == 2 && ws.waiting.Load() == 3 })
	if l := b.Load(); l != (configurator.Load{Waiting: 3, Running: 2, Bytes: 2 * query}) {
		t.Errorf("Load() = %+v with two queries in and three waiting, want 3 waiting, 2 running, %d bytes", l, 2*query)
	}

	// A waiter whose deadline passes leaves with ErrBusy.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := ws.acquire(ctx, query)
	cancel()
	if !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a query out of time while waiting: %v, want ErrBusy and the deadline", err)
	}
	if want := "waiting for 57.5 KiB of BDD work space (143.7 KiB for all queries at once)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("the error says %q, want it to start %q", err, want)
	}
	if w := ws.waiting.Load(); w != 3 {
		t.Errorf("%d waiting after the one out of time left, want 3", w)
	}
	// A context already over is a deadline, not a busy backend.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.acquire(done, query); errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Errorf("a query whose context is over: %v", err)
	}

	close(gate)
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Errorf("%d queries ran at once, want 2", p)
	}
	if l := b.Load(); l != (configurator.Load{}) {
		t.Errorf("Load() = %+v after the queries, want nothing", l)
	}

	// More than the whole bound waits for every query to finish and holds
	// the whole bound while it runs.
	release, err := ws.acquire(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		release, err := ws.acquire(context.Background(), 10*query)
		if err == nil {
			if held := ws.held.Load(); held != ws.limit {
				t.Errorf("a query larger than the bound holds %d bytes, want the bound, %d", held, ws.limit)
			}
			release()
		}
		got <- err
	}()
	waitFor(t, "the large query to wait", func() bool { return ws.waiting.Load() == 1 })
	release()
	if err := <-got; err != nil {
		t.Errorf("the large query after the others: %v", err)
	}
}

// TestSpaceHoldsWorkSpace checks that every query of a Space holds work
// space from its Backend's bound: with the bound taken, each waits and
// fails with ErrBusy at its deadline, callers that leave leave the queue at
// once, and queries run once the bound is free; the whole diagram past the
// cap is answered without any.
func TestSpaceHoldsWorkSpace(t *testing.T) {
	b := New(Options{Scratch: 1 << 20})
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	c, err := b.Compile(context.Background(), model)
	if err != nil {
		t.Fatal(err)
	}
	sp := c.(*Space)
	release, err := b.work.acquire(context.Background(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	q := []configurator.Cell{{Row: 0, Col: 0}}
	rng := rand.New(rand.NewPCG(1, 2))
	queries := map[string]func(ctx context.Context) error{
		"Analyze": func(ctx context.Context) error { _, err := sp.Analyze(ctx, q); return err },
		"Satisfiable": func(ctx context.Context) error {
			_, err := sp.Satisfiable(ctx, q, nil)
			return err
		},
		"Solve":     func(ctx context.Context) error { _, err := sp.Solve(ctx, q); return err },
		"Sample":    func(ctx context.Context) error { _, err := sp.Sample(ctx, q, rng); return err },
		"Marginals": func(ctx context.Context) error { _, err := sp.Marginals(ctx, q); return err },
		"Diagram":   func(ctx context.Context) error { _, _, err := sp.Diagram(ctx, q, 300); return err },
	}
	for name, query := range queries {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		err := query(ctx)
		cancel()
		if !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s with the work space taken: %v, want ErrBusy and the deadline", name, err)
		}
	}
	// The whole diagram past the cap needs no copy, nor any work space.
	if dot, nodes, err := sp.Diagram(context.Background(), nil, 300); dot != "" || nodes != 2451 || err != nil {
		t.Errorf("the whole 8×8 diagram, capped at 300 nodes: %q, %d, %v", dot, nodes, err)
	}
	// Callers that give up while they wait (clients that disconnect) leave
	// the queue at once.
	ctx, leave := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := sp.Analyze(ctx, q); !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.Canceled) {
				t.Errorf("a query whose caller left while it waited: %v, want ErrBusy and the cancellation", err)
			}
		})
	}
	waitFor(t, "three queries waiting", func() bool { return b.Load().Waiting == 3 })
	leave()
	wg.Wait()
	if w := b.Load().Waiting; w != 0 {
		t.Errorf("%d queries waiting after their callers left, want 0", w)
	}

	answered := make(chan error, 1)
	go func() {
		a, err := sp.Analyze(context.Background(), q)
		if err == nil && a.Solutions.Int64() != 4 {
			t.Errorf("Analyze(a1) after waiting: %v solutions, want 4", a.Solutions)
		}
		answered <- err
	}()
	waitFor(t, "the analysis to wait", func() bool { return b.Load().Waiting == 1 })
	release()
	if err := <-answered; err != nil {
		t.Errorf("Analyze once the work space is free: %v", err)
	}
	for name, query := range queries {
		if err := query(context.Background()); err != nil {
			t.Errorf("%s with the work space free: %v", name, err)
		}
	}
	if l := b.Load(); l != (configurator.Load{}) {
		t.Errorf("Load() = %+v after the queries, want nothing", l)
	}
	// The drawing of the whole diagram within the cap holds work space
	// like any query.
	if dot, nodes, err := sp.Diagram(context.Background(), nil, 5000); nodes != 2451 || !strings.Contains(dot, "digraph") || err != nil {
		t.Errorf("the whole 8×8 diagram, capped at 5000 nodes: %d nodes, %v", nodes, err)
	}
}

// TestWorkspaceEstimate keeps queryBytesPerNode honest: a space's first
// queries of every kind (which grow its pooled scratch areas to their full
// size) allocate no more than the estimate per node. If the engine's
// scratch grows, raise the estimate.
func TestWorkspaceEstimate(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops a share of the scratch areas, so queries allocate more than they hold")
	}
	sp := compileSpace(t, 11, configurator.RowMajor, Direct)
	ctx := context.Background()
	q := []configurator.Cell{{Row: 0, Col: 3}}
	rng := rand.New(rand.NewPCG(1, 1))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, queens := range [][]configurator.Cell{nil, q} {
		sp.Analyze(ctx, queens)
		sp.Marginals(ctx, queens)
		sp.Sample(ctx, queens, rng)
		sp.Solve(ctx, queens)
		sp.Satisfiable(ctx, queens, []configurator.Cell{{Row: 1, Col: 0}})
	}
	runtime.ReadMemStats(&after)
	perNode := float64(after.TotalAlloc-before.TotalAlloc) / float64(sp.Nodes()+2)
	t.Logf("the first queries of every kind allocate %.1f bytes a node; the estimate is %d", perNode, queryBytesPerNode)
	if perNode > queryBytesPerNode {
		t.Errorf("the first queries allocate %.1f bytes a node, more than the %d the work-space bound charges", perNode, queryBytesPerNode)
	}
	if perNode < queryBytesPerNode/2 {
		t.Errorf("the first queries allocate %.1f bytes a node, under half the %d the work-space bound charges", perNode, queryBytesPerNode)
	}
}
