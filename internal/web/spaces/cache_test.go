package spaces

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// backends are the real backends as the server's tests register them,
// the BDD's largest board and node budget given.
func backends(bddMaxN int, bddBudget int64) []configurator.Backend {
	return []configurator.Backend{
		bdd.New(bdd.Options{Budget: bddBudget, MaxN: bddMaxN}),
		sat.New(sat.Options{MaxN: 16, Queue: 32, Serve: 1, CountCap: 1000, Timeout: 10 * time.Second}),
	}
}

// config is the cache's configuration of the server's tests.
var config = Config{Bytes: 1 << 30, Deadline: 10 * time.Minute, Slots: 2, Grace: 30 * time.Second}

// gatedCompiler wraps a cache's real compile: it counts the compiles of
// each key and holds each one until the gate opens, so that a test can
// line requests up behind a compile in progress.
type gatedCompiler struct {
	backends  []configurator.Backend // the real cache's
	real      compileFunc
	heavy     func(Key) bool // the real cache's
	gate      chan struct{}
	only      func(Key) bool // the keys the gate holds; nil: all
	calls     sync.Map       // Key -> *int32
	cancelled atomic.Int32
}

// newGatedCompiler wraps the compile of a cache of the real backends, the
// BDD's largest board and node budget given.
func newGatedCompiler(t *testing.T, bddMaxN int, bddBudget int64) *gatedCompiler {
	t.Helper()
	bs := backends(bddMaxN, bddBudget)
	c := New(bs, nil, config, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	t.Cleanup(c.Close)
	return &gatedCompiler{backends: bs, real: c.compile, heavy: c.Heavy, gate: make(chan struct{})}
}

// newCache is a cache of bytes that compiles through g, slots heavy
// compiles at a time, each abandoned one surviving grace. Its compiles
// reserve nothing, and none is kept, unless a test says otherwise.
func newCache(g *gatedCompiler, bytes int64, slots int, grace time.Duration) *Cache {
	c := New(g.backends, nil, Config{Bytes: bytes, Deadline: config.Deadline, Slots: slots, Grace: grace}, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	c.compile, c.heavy = g.compile, g.heavy
	c.cost = func(Key, *source) int64 { return 0 }
	c.keeps = func(Key) bool { return false }
	return c
}

func (g *gatedCompiler) compile(ctx context.Context, k Key, src *source) (*Space, error) {
	v, _ := g.calls.LoadOrStore(k, new(int32))
	atomic.AddInt32(v.(*int32), 1)
	if g.only != nil && !g.only(k) {
		return g.real(ctx, k, src)
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		g.cancelled.Add(1)
		return nil, ctx.Err()
	}
	return g.real(ctx, k, src)
}

func (g *gatedCompiler) count(k Key) int {
	v, ok := g.calls.Load(k)
	if !ok {
		return 0
	}
	return int(atomic.LoadInt32(v.(*int32)))
}

func TestCacheSingleFlight(t *testing.T) {
	g := newGatedCompiler(t, 10, 2<<30)
	c := newCache(g, 1<<30, 2, time.Minute)
	defer c.Close()
	k := Key{Backend: "bdd", N: 8}
	var wg sync.WaitGroup
	results := make([]*Space, 16)
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
	if _, running := c.Compiling(k); !running {
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
}

func TestCacheWaiterLeaves(t *testing.T) {
	g := newGatedCompiler(t, 10, 2<<30)
	c := newCache(g, 1<<30, 1, time.Minute)
	defer c.Close()
	k := Key{Backend: "sat", N: 6}
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
	if err != nil || e.Key != k {
		t.Fatalf("after the first waiter left: %v, %v", e, err)
	}
	if n := g.count(k); n != 1 {
		t.Errorf("compiled %d times, want 1", n)
	}
}

func TestCacheAbandonedCompileIsCancelled(t *testing.T) {
	g := newGatedCompiler(t, 10, 2<<30)
	c := newCache(g, 1<<30, 1, 20*time.Millisecond)
	defer c.Close()
	k := Key{Backend: "bdd", N: 7}
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
	if _, running := c.Compiling(k); running {
		t.Errorf("the abandoned compile is still listed")
	}
	close(g.gate)
	if e, err := c.Get(context.Background(), k); err != nil || e.Key != k {
		t.Fatalf("a new request after the abandon: %v, %v", e, err)
	}
	if n := g.count(k); n != 2 {
		t.Errorf("compiled %d times, want 2 (the abandoned one and the new one)", n)
	}
}

func TestCacheEvictsLeastRecentlyUsedByBytes(t *testing.T) {
	g := newGatedCompiler(t, 10, 2<<30)
	close(g.gate)
	ctx := context.Background()
	// Measure three spaces, then bound the cache to hold any two of them.
	sizes := map[int]int64{}
	for _, n := range []int{5, 6, 7} {
		e, err := g.real(ctx, Key{Backend: "bdd", N: n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		sizes[n] = e.Bytes
	}
	bound := max(sizes[5]+sizes[6], sizes[5]+sizes[7], sizes[6]+sizes[7])
	if bound >= sizes[5]+sizes[6]+sizes[7] {
		t.Fatalf("sizes %v do not allow the test", sizes)
	}
	c := newCache(g, bound, 1, time.Minute)
	c.inUse = 0 // no space counts as in use: TestCacheDoesNotThrash has those
	defer c.Close()
	get := func(n int) {
		if _, err := c.Get(ctx, Key{Backend: "bdd", N: n}); err != nil {
			t.Fatal(err)
		}
	}
	get(5)
	get(6)
	get(5) // 6 is now the least recently used
	get(7) // evicts 6
	for n, want := range map[int]bool{5: true, 6: false, 7: true} {
		if got := c.Cached(Key{Backend: "bdd", N: n}); got != want {
			t.Errorf("%d×%d cached: %v, want %v", n, n, got, want)
		}
	}
	if used, spaces := c.Used(); used > bound || spaces != 2 {
		t.Errorf("the cache holds %d bytes in %d spaces, bound %d", used, spaces, bound)
	}
	get(6)
	if n := g.count(Key{Backend: "bdd", N: 6}); n != 2 {
		t.Errorf("the evicted space was compiled %d times, want 2", n)
	}
}

func TestCacheRemembersTooLarge(t *testing.T) {
	g := newGatedCompiler(t, 10, 64<<10) // a budget far too small for 10×10
	close(g.gate)
	c := newCache(g, 1<<30, 1, time.Minute)
	defer c.Close()
	k := Key{Backend: "bdd", N: 10}
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
	g := newGatedCompiler(t, 10, 2<<30)
	c := newCache(g, 1<<30, 1, time.Minute)
	done := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), Key{Backend: "bdd", N: 8})
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
	g := newGatedCompiler(t, 10, 2<<30)
	close(g.gate)
	ctx := context.Background()
	key := func(n int) Key { return Key{Backend: "bdd", N: n} }
	sizes := map[int]int64{}
	for _, n := range []int{5, 6, 7} {
		e, err := g.real(ctx, key(n), nil)
		if err != nil {
			t.Fatal(err)
		}
		sizes[n] = e.Bytes
	}
	bound := max(sizes[5]+sizes[6], sizes[5]+sizes[7], sizes[6]+sizes[7])
	c := newCache(g, bound, 1, time.Minute)
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
		var cr *Crowded
		if !errors.As(err, &cr) || !errors.Is(err, configurator.ErrBusy) ||
			cr.Key != key(7) || cr.Need != sizes[7] || cr.Bound != bound || cr.Room >= cr.Need || cr.Retry != time.Minute {
			t.Fatalf("7×7 beside two spaces in use: %v, want a Crowded error that says what it needs", err)
		}
	}
	if n := g.count(key(7)); n != 1 {
		t.Errorf("the space that does not fit was compiled %d times, want 1", n)
	}
	// 5×5 is no longer in use: 7×7 takes its place.
	c.mu.Lock()
	c.index[key(5)].Value.(*Space).used.Store(time.Now().Add(-2 * time.Minute).UnixNano())
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
	g := newGatedCompiler(t, 13, 2<<30)
	g.only = func(k Key) bool { return k.N == 13 }
	c := newCache(g, 1<<30, 1, time.Minute)
	large := []Key{{Backend: "bdd", N: 13}, {Backend: "bdd", N: 13, Order: configurator.ColMajor}}
	for _, k := range append(large, Key{Backend: "bdd", N: 12}) {
		if !g.heavy(k) {
			t.Fatalf("%+v is not a heavy compile", k)
		}
	}
	var wg sync.WaitGroup
	for _, k := range large {
		wg.Go(func() { c.Get(context.Background(), k) })
	}
	configuratortest.WaitFor(t, "the first 13×13 compile", func() bool { return g.count(large[0])+g.count(large[1]) == 1 })
	// The 13×13 compiles never end by themselves: a 12×12 that waited for
	// them would wait until this deadline, which only bounds the wait; the
	// 12×12 compile itself takes what the machine's load makes it take.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := c.Get(ctx, Key{Backend: "bdd", N: 12}); err != nil {
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
	g := newGatedCompiler(t, 12, 2<<30)
	g.only = g.heavy
	c := newCache(g, 1<<30, 1, time.Minute)
	defer c.Close()
	first := Key{Backend: "bdd", N: 12}
	second := Key{Backend: "bdd", N: 12, Order: configurator.ColMajor}
	var wg sync.WaitGroup
	for _, k := range []Key{first, second} {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), k); err != nil {
				t.Error(err)
			}
		})
		if k == first {
			configuratortest.WaitFor(t, "the first large compile", func() bool { return g.count(first) == 1 })
		}
	}
	time.Sleep(20 * time.Millisecond) // the second large one asks for the slot
	// The gate holds the large compile until the end: a small compile that
	// waited for it would wait until this deadline, which only bounds the
	// wait, however long a loaded machine takes for the small ones.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, k := range []Key{{Backend: "bdd", N: 8}, {Backend: "sat", N: 12}} {
		if _, err := c.Get(ctx, k); err != nil {
			t.Fatalf("%v beside a large compile: %v", k, err)
		}
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

// limitsCounted is a real backend whose Limits calls are counted.
type limitsCounted struct {
	configurator.Backend
	calls *atomic.Int32
}

func (b limitsCounted) Limits() configurator.Limits {
	b.calls.Add(1)
	return b.Backend.Limits()
}

// TestKeyReadsLimitsOnce checks Key on every request's path: it keeps the
// order of a backend whose spaces depend on it (the BDD), maps every order
// to RowMajor for one whose spaces do not (SAT), and asks neither backend
// for its Limits after New, which may build models and look at files.
func TestKeyReadsLimitsOnce(t *testing.T) {
	var calls atomic.Int32
	var bs []configurator.Backend
	for _, b := range backends(10, 1<<30) {
		bs = append(bs, limitsCounted{Backend: b, calls: &calls})
	}
	c := New(bs, nil, config, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
	defer c.Close()
	atStart := calls.Load()
	tests := []struct {
		backend string
		order   configurator.Order
		want    configurator.Order
	}{
		{"bdd", configurator.RowMajor, configurator.RowMajor},
		{"bdd", configurator.ColMajor, configurator.ColMajor},
		{"sat", configurator.RowMajor, configurator.RowMajor},
		{"sat", configurator.ColMajor, configurator.RowMajor},
	}
	for _, tt := range tests {
		if k := c.Key(tt.backend, 8, tt.order); k != (Key{Backend: tt.backend, N: 8, Order: tt.want}) {
			t.Errorf("Key(%s, 8, %v) = %+v, want order %v", tt.backend, tt.order, k, tt.want)
		}
	}
	if n := calls.Load() - atStart; n != 0 {
		t.Errorf("Key asked the backends for their Limits %d times after New, want none", n)
	}
}
