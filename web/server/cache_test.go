package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// gatedCompiler wraps the server's real compile: it counts the compiles of
// each key and holds each one until the gate opens, so that a test can
// line requests up behind a compile in progress.
type gatedCompiler struct {
	real      compileFunc
	heavy     func(spaceKey) bool // the server's
	gate      chan struct{}
	only      func(spaceKey) bool // the keys the gate holds; nil: all
	calls     sync.Map            // spaceKey -> *int32
	cancelled atomic.Int32
}

func newGatedCompiler(t *testing.T, cfg testSetup) *gatedCompiler {
	t.Helper()
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), cfg.engines()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &gatedCompiler{real: s.compile, heavy: s.heavyCompile, gate: make(chan struct{})}
}

func (g *gatedCompiler) compile(ctx context.Context, k spaceKey) (*compiled, error) {
	v, _ := g.calls.LoadOrStore(k, new(int32))
	atomic.AddInt32(v.(*int32), 1)
	if g.only != nil && !g.only(k) {
		return g.real(ctx, k)
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		g.cancelled.Add(1)
		return nil, ctx.Err()
	}
	return g.real(ctx, k)
}

func (g *gatedCompiler) count(k spaceKey) int {
	v, ok := g.calls.Load(k)
	if !ok {
		return 0
	}
	return int(atomic.LoadInt32(v.(*int32)))
}

func TestCacheSingleFlight(t *testing.T) {
	g := newGatedCompiler(t, testConfig())
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 2, time.Minute)
	defer c.Close()
	k := spaceKey{backend: "bdd", n: 8}
	var wg sync.WaitGroup
	results := make([]*compiled, 16)
	for i := range results {
		wg.Go(func() {
			e, err := c.Get(context.Background(), k)
			if err != nil {
				t.Error(err)
			}
			results[i] = e
		})
	}
	time.Sleep(50 * time.Millisecond) // let them all line up behind the gate
	if _, running := c.Progress(k); !running {
		t.Errorf("no compile in progress while 16 requests wait")
	}
	close(g.gate)
	wg.Wait()
	if n := g.count(k); n != 1 {
		t.Errorf("16 concurrent requests compiled %d times, want 1", n)
	}
	for _, e := range results {
		if e != results[0] || e == nil {
			t.Fatalf("the requests got different spaces")
		}
	}
	if got, _ := results[0].Total(); got == nil || got.Int64() != 92 {
		t.Errorf("total %v, want 92", got)
	}
}

func TestCacheWaiterLeaves(t *testing.T) {
	g := newGatedCompiler(t, testConfig())
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 1, time.Minute)
	defer c.Close()
	k := spaceKey{backend: "sat", n: 6}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Get(ctx, k); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a waiter whose context ends gets %v, want its deadline", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the waiter took %v to give up", d)
	}
	// The compile goes on for others within the grace period.
	close(g.gate)
	e, err := c.Get(context.Background(), k)
	if err != nil || total(e) != 4 {
		t.Fatalf("after the first waiter left: %v, %v", e, err)
	}
	if n := g.count(k); n != 1 {
		t.Errorf("compiled %d times, want 1", n)
	}
}

func TestCacheAbandonedCompileIsCancelled(t *testing.T) {
	g := newGatedCompiler(t, testConfig())
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 1, 20*time.Millisecond)
	defer c.Close()
	k := spaceKey{backend: "bdd", n: 7}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	c.Get(ctx, k)
	deadline := time.Now().Add(5 * time.Second)
	for g.cancelled.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if g.cancelled.Load() != 1 {
		t.Fatalf("a compile nobody waits for was not cancelled after the grace period")
	}
	if _, running := c.Progress(k); running {
		t.Errorf("the abandoned compile is still listed")
	}
	close(g.gate)
	if e, err := c.Get(context.Background(), k); err != nil || total(e) != 40 {
		t.Fatalf("a new request after the abandon: %v, %v", e, err)
	}
	if n := g.count(k); n != 2 {
		t.Errorf("compiled %d times, want 2 (the abandoned one and the new one)", n)
	}
}

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	g := newGatedCompiler(t, testConfig())
	close(g.gate)
	ctx := context.Background()
	// Measure three spaces, then bound the cache to hold any two of them.
	sizes := map[int]int64{}
	for _, n := range []int{5, 6, 7} {
		e, err := g.real(ctx, spaceKey{backend: "bdd", n: n})
		if err != nil {
			t.Fatal(err)
		}
		sizes[n] = e.bytes
	}
	bound := max(sizes[5]+sizes[6], sizes[5]+sizes[7], sizes[6]+sizes[7])
	if bound >= sizes[5]+sizes[6]+sizes[7] {
		t.Fatalf("sizes %v do not allow the test", sizes)
	}
	c := newSpaceCache(g.compile, bound, g.heavy, 1, time.Minute)
	c.inUse = 0 // no space counts as in use: TestCacheDoesNotThrash has those
	defer c.Close()
	get := func(n int) {
		if _, err := c.Get(ctx, spaceKey{backend: "bdd", n: n}); err != nil {
			t.Fatal(err)
		}
	}
	get(5)
	get(6)
	get(5) // 6 is now the least recently used
	get(7) // evicts 6
	for n, want := range map[int]bool{5: true, 6: false, 7: true} {
		if got := c.Cached(spaceKey{backend: "bdd", n: n}); got != want {
			t.Errorf("%d×%d cached: %v, want %v", n, n, got, want)
		}
	}
	if used, spaces := c.Used(); used > bound || spaces != 2 {
		t.Errorf("the cache holds %d bytes in %d spaces, bound %d", used, spaces, bound)
	}
	get(6)
	if n := g.count(spaceKey{backend: "bdd", n: 6}); n != 2 {
		t.Errorf("the evicted space was compiled %d times, want 2", n)
	}
}

func TestCacheRemembersTooLarge(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.Budget = 64 << 10 // far too small for 10×10
	g := newGatedCompiler(t, cfg)
	close(g.gate)
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 1, time.Minute)
	defer c.Close()
	k := spaceKey{backend: "bdd", n: 10}
	for range 3 {
		if _, err := c.Get(context.Background(), k); !errors.Is(err, configurator.ErrTooLarge) {
			t.Fatalf("over the budget: %v, want ErrTooLarge", err)
		}
	}
	if n := g.count(k); n != 1 {
		t.Errorf("a doomed compile ran %d times, want 1", n)
	}
}

func TestCacheCloseCancelsCompiles(t *testing.T) {
	g := newGatedCompiler(t, testConfig())
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 1, time.Minute)
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), spaceKey{backend: "bdd", n: 8})
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a waiter at shutdown gets %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close left a waiter hanging")
	}
	if g.cancelled.Load() != 1 {
		t.Errorf("Close did not cancel the compile")
	}
}

// TestCacheDoesNotThrash checks that a space that fits only by evicting
// spaces in use is handed to its request but not kept, and that the next
// requests for it are refused at once, with a 503 that says why, instead
// of compiling it again; once a space is no longer in use, it makes room.
func TestCacheDoesNotThrash(t *testing.T) {
	g := newGatedCompiler(t, testConfig())
	close(g.gate)
	ctx := context.Background()
	key := func(n int) spaceKey { return spaceKey{backend: "bdd", n: n} }
	sizes := map[int]int64{}
	for _, n := range []int{5, 6, 7} {
		e, err := g.real(ctx, key(n))
		if err != nil {
			t.Fatal(err)
		}
		sizes[n] = e.bytes
	}
	bound := max(sizes[5]+sizes[6], sizes[5]+sizes[7], sizes[6]+sizes[7])
	c := newSpaceCache(g.compile, bound, g.heavy, 1, time.Minute)
	defer c.Close()
	for _, n := range []int{5, 6, 7} {
		if _, err := c.Get(ctx, key(n)); err != nil {
			t.Fatalf("%d×%d: %v", n, n, err)
		}
	}
	for n, want := range map[int]bool{5: true, 6: true, 7: false} {
		if got := c.Cached(key(n)); got != want {
			t.Errorf("%d×%d cached: %v, want %v (5 and 6 in use)", n, n, got, want)
		}
	}
	for range 3 {
		_, err := c.Get(ctx, key(7))
		var p *problem
		if !errors.As(err, &p) || p.Status != http.StatusServiceUnavailable || !errors.Is(err, configurator.ErrBusy) ||
			!strings.Contains(p.Message, "The 7×7 bdd space needs") || p.RetryAfter != 60 {
			t.Fatalf("7×7 beside two spaces in use: %v, want a 503 that says what it needs", err)
		}
	}
	if n := g.count(key(7)); n != 1 {
		t.Errorf("the space that does not fit was compiled %d times, want 1", n)
	}
	// 5×5 is no longer in use: 7×7 takes its place.
	c.mu.Lock()
	c.index[key(5)].Value.(*compiled).used.Store(time.Now().Add(-2 * time.Minute).UnixNano())
	c.mu.Unlock()
	if _, err := c.Get(ctx, key(7)); err != nil {
		t.Fatalf("7×7 once 5×5 is idle: %v", err)
	}
	for n, want := range map[int]bool{5: false, 6: true, 7: true} {
		if got := c.Cached(key(n)); got != want {
			t.Errorf("%d×%d cached: %v, want %v (5 idle)", n, n, got, want)
		}
	}
}

// TestCacheSmallerBoardsDoNotWaitForLarger checks that heavy compiles wait
// only for those of their own board size: with 13×13 compiles holding
// their lane (one slot) and another waiting, a 12×12 compile goes through.
func TestCacheSmallerBoardsDoNotWaitForLarger(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 13
	g := newGatedCompiler(t, cfg)
	g.only = func(k spaceKey) bool { return k.n == 13 }
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 1, time.Minute)
	large := []spaceKey{{backend: "bdd", n: 13}, {backend: "bdd", n: 13, order: configurator.ColMajor}}
	for _, k := range append(large, spaceKey{backend: "bdd", n: 12}) {
		if !g.heavy(k) {
			t.Fatalf("%+v is not a heavy compile", k)
		}
	}
	var wg sync.WaitGroup
	for _, k := range large {
		wg.Go(func() { c.Get(context.Background(), k) })
	}
	configuratortest.WaitFor(t, "the first 13×13 compile", func() bool { return g.count(large[0])+g.count(large[1]) == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Get(ctx, spaceKey{backend: "bdd", n: 12}); err != nil {
		t.Errorf("12×12 beside 13×13 compiles: %v", err)
	}
	if n := g.count(large[0]) + g.count(large[1]); n != 1 {
		t.Errorf("%d 13×13 compiles started with one slot, want 1", n)
	}
	c.Close() // cancels the 13×13 compiles, never run
	wg.Wait()
}

// TestCacheLightCompilesDoNotWait checks that small boards compile at once
// while large ones hold every heavy slot, and that a second large one waits
// for a slot.
func TestCacheLightCompilesDoNotWait(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 12
	g := newGatedCompiler(t, cfg)
	g.only = g.heavy
	c := newSpaceCache(g.compile, 1<<30, g.heavy, 1, time.Minute)
	defer c.Close()
	first := spaceKey{backend: "bdd", n: 12}
	second := spaceKey{backend: "bdd", n: 12, order: configurator.ColMajor}
	var wg sync.WaitGroup
	for _, k := range []spaceKey{first, second} {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), k); err != nil {
				t.Error(err)
			}
		})
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	for _, k := range []spaceKey{{backend: "bdd", n: 8}, {backend: "sat", n: 12}} {
		if _, err := c.Get(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("small compiles waited %v behind a large one", d)
	}
	if g.count(first) != 1 || g.count(second) != 0 {
		t.Errorf("with one heavy slot, the compiles started are %d and %d, want 1 and 0", g.count(first), g.count(second))
	}
	close(g.gate)
	wg.Wait()
	if g.count(second) != 1 {
		t.Errorf("the second large compile ran %d times", g.count(second))
	}
}

// TestTotalFilledInAfterItsWaitersLeft: when every request waiting for a
// fresh space gives up before its empty board is counted, the space is
// cached without its total, and the count, which goes on detached, fills
// the total in when it ends: a solved board then reads "one of 4".
func TestTotalFilledInAfterItsWaitersLeft(t *testing.T) {
	cfg := testConfig().Config
	cfg.CompileGrace = time.Millisecond
	cfg.Recycle = 0 // the held space reports no size: keep it however often it is asked for
	s, ts, _, b, k := waiterLeavesTheCount(t, cfg)
	solved := "/?n=6&q=b1,d2,f3,a4,c5,e6&backend=bdd"
	if _, body := get(t, ts, solved); !strings.Contains(body, `Solved: a complete solution<`) {
		t.Fatalf("a solved board before the count ended:\n%s", excerpt(body))
	}

	close(b.countGate)
	want := "Solved: a complete solution, one of 4<"
	var body string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, body = get(t, ts, solved); strings.Contains(body, want) {
			break
		}
	}
	if !strings.Contains(body, want) {
		t.Errorf("5 s after the count ended, no %q:\n%s", want, excerpt(body))
	}
	if n := b.counts.Load(); n != 1 {
		t.Errorf("the empty board was counted %d times, want once", n)
	}
	e, err := s.cache.Get(context.Background(), k)
	if err != nil {
		t.Fatal(err)
	}
	if total, atLeast := e.Total(); total == nil || total.Int64() != 4 || atLeast {
		t.Errorf("the cached total is %v (at least %v), want 4", total, atLeast)
	}
}

// total is the count of e's empty board, -1 when it is not known.
func total(e *compiled) int64 {
	if n, _ := e.Total(); n != nil {
		return n.Int64()
	}
	return -1
}
