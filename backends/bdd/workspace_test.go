package bdd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestWorkspaceBoundsQueries checks the bound itself, lane by lane: of a
// 1 MiB bound, small queries (128 KiB at most) share 256 KiB and large ones
// the remaining 768 KiB, two at once at most; within a lane they wait in
// turn; a small query never waits for a large one; a waiter whose deadline
// passes gets ErrBusy and the deadline; a context already over is not a
// busy backend; a query needing more than its lane waits for every other
// in it and then runs alone.
func TestWorkspaceBoundsQueries(t *testing.T) {
	const limit, small, large = 1 << 20, 64 << 10, 300 << 10
	b := New(Options{})
	ws := newWorkspace(limit, 2)
	b.work = ws // what Occupancy reports

	gate := make(chan struct{})
	var smallIn, largeIn atomic.Int32
	var wg sync.WaitGroup
	run := func(n int64, in *atomic.Int32) {
		wg.Go(func() {
			release, err := ws.acquire(context.Background(), n)
			if err != nil {
				t.Errorf("a query of %d bytes that waited its turn: %v", n, err)
				return
			}
			defer release()
			in.Add(1)
			<-gate
			in.Add(-1)
		})
	}
	// Three large queries: two fit (600 KiB of 768), the third waits.
	for range 3 {
		run(large, &largeIn)
	}
	configuratortest.WaitFor(t, "two large queries in and one waiting", func() bool { return largeIn.Load() == 2 && ws.waiting.Load() == 1 })
	// Five small ones: four fit their lane, the fifth waits; none waits
	// for the large one waiting before them.
	for range 5 {
		run(small, &smallIn)
	}
	configuratortest.WaitFor(t, "four small queries in and two waiting", func() bool { return smallIn.Load() == 4 && ws.waiting.Load() == 2 })
	if l, want := b.Occupancy(), (configurator.Occupancy{Waiting: 2, Running: 6, Bytes: 2*large + 4*small}); l != want {
		t.Errorf("Load() = %+v, want %+v", l, want)
	}

	// A waiter whose deadline passes leaves with ErrBusy.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	_, err := ws.acquire(ctx, small)
	cancel()
	if !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a query out of time while waiting: %v, want ErrBusy and the deadline", err)
	}
	if want := "waiting for 64 KiB of BDD work space (1 MiB for all queries at once)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("the error says %q, want it to start %q", err, want)
	}
	if w := ws.waiting.Load(); w != 2 {
		t.Errorf("%d waiting after the one out of time left, want 2", w)
	}
	// A context already over is a deadline, not a busy backend.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ws.acquire(done, small); errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Errorf("a query whose context is over: %v", err)
	}

	close(gate)
	wg.Wait()
	if l := b.Occupancy(); l != (configurator.Occupancy{}) {
		t.Errorf("Load() = %+v after the queries, want nothing", l)
	}

	// More than the large lane waits for every large query to finish and
	// holds the whole lane while it runs; small queries still get in.
	release, err := ws.acquire(context.Background(), large)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		release, err := ws.acquire(context.Background(), 10*limit)
		if err == nil {
			if held, want := ws.held.Load(), int64(limit-limit/smallShare); held != want {
				t.Errorf("a query larger than its lane holds %d bytes, want the lane, %d", held, want)
			}
			release()
		}
		got <- err
	}()
	configuratortest.WaitFor(t, "the large query to wait", func() bool { return ws.waiting.Load() == 1 })
	if release, err := ws.acquire(context.Background(), small); err != nil {
		t.Errorf("a small query beside a large one waiting: %v", err)
	} else {
		release()
	}
	release()
	if err := <-got; err != nil {
		t.Errorf("the large query after the others: %v", err)
	}
}

// takeAll takes every byte of both lanes of ws and returns the function
// that gives them back.
func takeAll(t *testing.T, ws *workspace) func() {
	t.Helper()
	var releases []func()
	for _, n := range append([]int64{ws.bound}, slices.Repeat([]int64{ws.bound / smallQuery}, smallQuery/smallShare)...) {
		release, err := ws.acquire(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	return func() {
		for _, r := range releases {
			r()
		}
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
	release := takeAll(t, b.work)
	// Two queens: the analyses of the empty board and of one queen are
	// kept once computed, and those of two are not.
	q := []configurator.Cell{{Row: 0, Col: 0}, {Row: 1, Col: 6}}
	rng := rand.New(rand.NewPCG(1, 2))
	queries := map[string]func(ctx context.Context) error{
		"Analyze": func(ctx context.Context) error { _, err := sp.Analyze(ctx, q); return err },
		"Satisfiable": func(ctx context.Context) error {
			_, err := sp.Satisfiable(ctx, q, nil)
			return err
		},
		"Solve":  func(ctx context.Context) error { _, err := sp.Solve(ctx, q); return err },
		"Sample": func(ctx context.Context) error { _, err := sp.Sample(ctx, q, rng); return err },
		// One queen: drawn in two steps, by the marginals of a1 (summed
		// over sweeps of two queens) and the part of two queens.
		"Sample of one queen": func(ctx context.Context) error { _, err := sp.Sample(ctx, q[:1], rng); return err },
		"Marginals":           func(ctx context.Context) error { _, err := sp.Marginals(ctx, q); return err },
		"Diagram":             func(ctx context.Context) error { _, _, err := sp.Diagram(ctx, q, 300); return err },
	}
	for name, query := range queries {
		// Long enough to reach the queue on a loaded machine: a deadline
		// passed before it asks is another error (see workspace.acquire).
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
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
	// the queue at once. Three boards, none an image of another: callers
	// of the same board would wait for one computation of it.
	ctx, leave := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, other := range []configurator.Cell{{Row: 1, Col: 6}, {Row: 1, Col: 7}, {Row: 1, Col: 2}} {
		wg.Go(func() {
			if _, err := sp.Analyze(ctx, []configurator.Cell{q[0], other}); !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.Canceled) {
				t.Errorf("a query whose caller left while it waited: %v, want ErrBusy and the cancellation", err)
			}
		})
	}
	configuratortest.WaitFor(t, "three queries waiting", func() bool { return b.Occupancy().Waiting == 3 })
	leave()
	wg.Wait()
	if w := b.Occupancy().Waiting; w != 0 {
		t.Errorf("%d queries waiting after their callers left, want 0", w)
	}

	answered := make(chan error, 1)
	go func() {
		a, err := sp.Analyze(context.Background(), q)
		if err == nil && a.Solutions.Int64() != 2 {
			t.Errorf("Analyze(a1 g2) after waiting: %v solutions, want 2", a.Solutions)
		}
		answered <- err
	}()
	configuratortest.WaitFor(t, "the analysis to wait", func() bool { return b.Occupancy().Waiting == 1 })
	release()
	if err := <-answered; err != nil {
		t.Errorf("Analyze once the work space is free: %v", err)
	}
	for name, query := range queries {
		if err := query(context.Background()); err != nil {
			t.Errorf("%s with the work space free: %v", name, err)
		}
	}
	if l := b.Occupancy(); l != (configurator.Occupancy{}) {
		t.Errorf("Load() = %+v after the queries, want nothing", l)
	}
	// The drawing of the whole diagram within the cap holds work space
	// like any query.
	if dot, nodes, err := sp.Diagram(context.Background(), nil, 5000); nodes != 2451 || !strings.Contains(dot, "digraph") || err != nil {
		t.Errorf("the whole 8×8 diagram, capped at 5000 nodes: %d nodes, %v", nodes, err)
	}
}

// TestOneQueenDiagramSizesAreKept checks that the node count of the diagram
// restricted to one queen is computed once per cell, with the copy's work
// space, and then answered without copying: equal, on every cell of the
// 7×7 board, to the node count of robdd.Extract on the same restriction,
// and given with the whole work space taken; a drawing within the cap
// still copies, so it still waits.
func TestOneQueenDiagramSizesAreKept(t *testing.T) {
	b := New(Options{Scratch: 1 << 20})
	c, err := b.Compile(context.Background(), configuratortest.Model(t, 7, configurator.RowMajor))
	if err != nil {
		t.Fatal(err)
	}
	sp := c.(*Space)
	ctx := context.Background()
	want := map[configurator.Cell]int{}
	for v := range sp.model.Vars() {
		q := []configurator.Cell{sp.model.Cell(v)}
		a, _, err := sp.assign(q, nil)
		if err != nil {
			t.Fatal(err)
		}
		sp.fixLines(a, q)
		sub, root, err := sp.m.Extract(ctx, sp.root, a, 0)
		if err != nil {
			t.Fatal(err)
		}
		want[q[0]] = sub.NodeCount(root)
		if _, nodes, err := sp.Diagram(ctx, q, 0); nodes != want[q[0]] || err != nil {
			t.Errorf("Diagram(%v, 0) = %d, %v; want Extract's %d nodes", q[0], nodes, err, want[q[0]])
		}
	}
	release := takeAll(t, b.work)
	defer release()
	for cell, n := range want {
		if _, nodes, err := sp.Diagram(ctx, []configurator.Cell{cell}, 0); nodes != n || err != nil {
			t.Errorf("Diagram(%v, 0) kept, with the work space taken: %d, %v; want %d", cell, nodes, err, n)
		}
		if n > 0 {
			// Given up once it waits for work space (a deadline could pass
			// before it asks, on a loaded machine: another error).
			ctx, cancel := context.WithCancel(ctx)
			go func() {
				for b.work.occupancy().Waiting == 0 && ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
				cancel()
			}()
			if _, _, err := sp.Diagram(ctx, []configurator.Cell{cell}, n); !errors.Is(err, configurator.ErrBusy) {
				t.Errorf("Diagram(%v, %d), a drawing, with the work space taken: %v, want ErrBusy", cell, n, err)
			}
			cancel()
		}
	}
}

// TestDrawingAsksByItsPart checks that a drawing asks for the work space of
// the restriction it copies, not the whole diagram's: of a 1 MiB bound, the
// whole 8×8 diagram's drawing (157 KB) runs in the large lane and waits
// while that lane is taken, and the drawing of a1 g2 (two solutions) runs
// beside it in the small lane, as does the rank view of it.
func TestDrawingAsksByItsPart(t *testing.T) {
	b := New(Options{Scratch: 1 << 20})
	c, err := b.Compile(context.Background(), configuratortest.Model(t, 8, configurator.RowMajor))
	if err != nil {
		t.Fatal(err)
	}
	sp := c.(*Space)
	if sp.drawBytes() <= b.work.bound/smallQuery {
		t.Fatalf("the whole 8×8 drawing asks %d bytes, within the small lane: the test needs it in the large one", sp.drawBytes())
	}
	release, err := b.work.acquire(context.Background(), b.work.bound)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	soon := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	q := configuratortest.Cells(t, "a1,g2")
	if dot, nodes, err := sp.Diagram(soon(), q, 300); err != nil || dot == "" || nodes == 0 {
		t.Errorf("Diagram(a1 g2) with the large lane taken: %d nodes, %v; want it drawn", nodes, err)
	}
	if g, err := sp.Graph(soon(), q, configurator.RankView, 300); err != nil || g.Truncated {
		t.Errorf("Graph(a1 g2) with the large lane taken: %v; want it whole", err)
	}
	if _, _, err := sp.Diagram(soon(), nil, 5000); !errors.Is(err, configurator.ErrBusy) {
		t.Errorf("the whole diagram's drawing with the large lane taken: %v, want ErrBusy", err)
	}
}

// TestDrawingWithinItsWorkSpace checks that the copy behind a drawing
// never holds more than the work space granted to it: on a 12×12 board a
// queen's restriction (about a fifth of the diagram) fits a work space of
// the default size, and is refused as too large, rather than copied past
// its grant, in one of 64 KiB.
func TestDrawingWithinItsWorkSpace(t *testing.T) {
	ctx := context.Background()
	model := configuratortest.Model(t, 12, configurator.RowMajor)
	queen := []configurator.Cell{{Row: 0, Col: 5}}
	for _, tt := range []struct {
		scratch int64
		fits    bool
	}{
		{DefaultScratch, true},
		{64 << 10, false},
	} {
		sp := configuratortest.Space(t, New(Options{Scratch: tt.scratch}), model).(*Space)
		_, nodes, err := sp.Diagram(ctx, queen, 300)
		_, gerr := sp.Graph(ctx, queen, configurator.ReducedView, 300)
		if tt.fits {
			if err != nil || nodes < 300 || gerr != nil {
				t.Errorf("work space of %d bytes: Diagram %d nodes, %v; Graph %v; want the count and no error", tt.scratch, nodes, err, gerr)
			}
			continue
		}
		for _, err := range []error{err, gerr} {
			if !errors.Is(err, configurator.ErrTooLarge) || !strings.Contains(fmt.Sprint(err), "more than this server copies at once") {
				t.Errorf("work space of %d bytes: %v, want the copy refused as too large", tt.scratch, err)
			}
		}
	}
}

// TestSmallCompilesTakeNoTurns: on a Backend with SpareCore, a small
// board compiles while the heavy work holds every core it shares, and a
// heavy one (12×12) waits for its turn until a core is given back.
func TestSmallCompilesTakeNoTurns(t *testing.T) {
	ctx := context.Background()
	b := New(Options{Method: Direct, SpareCore: true})
	if err := b.work.cores.Acquire(ctx, int64(b.work.heavy)); err != nil {
		t.Fatal(err)
	}
	// compile compiles an n×n board and sends the error when it ends.
	compile := func(n int) <-chan error {
		model := configuratortest.Model(t, n, configurator.RowMajor)
		done := make(chan error, 1)
		go func() {
			_, err := b.Compile(ctx, model)
			done <- err
		}()
		return done
	}
	select {
	case err := <-compile(8):
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("an 8×8 compile waited for a turn on the cores the heavy work holds")
	}
	heavy := compile(12)
	select {
	case err := <-heavy:
		t.Fatalf("a 12×12 compile ended (%v) while the heavy work held every core", err)
	case <-time.After(300 * time.Millisecond):
	}
	b.work.cores.Release(int64(b.work.heavy))
	if err := <-heavy; err != nil {
		t.Fatal(err)
	}
}
