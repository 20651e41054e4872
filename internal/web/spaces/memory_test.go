package spaces

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestCacheReservesCompiles checks the one bound of spaces and compiles:
// two compiles whose costs do not fit the bound together run one after
// the other, the reserved bytes never past the bound; one that costs more
// than the whole bound fails at once, saying the largest board that fits.
func TestCacheReservesCompiles(t *testing.T) {
	g := newGatedCompiler(t, 10, 2<<30)
	c := newCache(g, 1000, 2, time.Minute)
	c.cost = func(k Key, _ *source) int64 { return int64(k.N) * 100 }
	defer c.Close()
	a, b := Key{Backend: "bdd", N: 6}, Key{Backend: "bdd", N: 7}
	var wg sync.WaitGroup
	for _, k := range []Key{a, b} {
		wg.Go(func() {
			if _, err := c.Get(context.Background(), k); err != nil {
				t.Error(err)
			}
		})
	}
	configuratortest.WaitFor(t, "one compile", func() bool { return g.count(a)+g.count(b) == 1 })
	time.Sleep(50 * time.Millisecond)
	c.mu.Lock()
	reserved := c.reserved
	c.mu.Unlock()
	if n := g.count(a) + g.count(b); n != 1 || (reserved != 600 && reserved != 700) {
		t.Errorf("%d compiles started, %d bytes reserved; want 1, its cost (600 or 700 of a bound of 1000)", n, reserved)
	}
	close(g.gate)
	wg.Wait()
	if g.count(a) != 1 || g.count(b) != 1 {
		t.Errorf("compiles %d and %d, want one each", g.count(a), g.count(b))
	}
	c.mu.Lock()
	if c.reserved != 0 || c.used > c.cfg.Bytes {
		t.Errorf("after both: %d reserved, %d held of %d", c.reserved, c.used, c.cfg.Bytes)
	}
	c.mu.Unlock()

	_, err := c.Get(context.Background(), Key{Backend: "bdd", N: 11})
	var tb *TooBig
	if !errors.As(err, &tb) || !errors.Is(err, configurator.ErrTooLarge) || tb.Need != 1100 || tb.Bound != 1000 || tb.Largest != 10 {
		t.Errorf("a compile of 1100 bytes in a bound of 1000: %v (%+v), want TooBig naming 10×10 the largest", err, tb)
	}
	if n := g.count(Key{Backend: "bdd", N: 11}); n != 0 {
		t.Errorf("the compile too big for the bound started %d times", n)
	}
}

// TestCacheDropsWorkForNobody checks what becomes of a compile whose
// requesters all left: one still waiting for its turn is dropped after the
// grace period without ever running; one running is cancelled, unless the
// server keeps it, when it goes on in the background, one at a time.
func TestCacheDropsWorkForNobody(t *testing.T) {
	const grace = 20 * time.Millisecond
	leave := func(c *Cache, k Key) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		c.Get(ctx, k)
	}
	gone := func(c *Cache, k Key) bool {
		_, running := c.Compiling(k)
		return !running
	}

	t.Run("queued", func(t *testing.T) {
		g := newGatedCompiler(t, 10, 2<<30)
		c := newCache(g, 1000, 2, grace)
		c.cost = func(Key, *source) int64 { return 600 }
		defer c.Close()
		first, queued := Key{Backend: "bdd", N: 6}, Key{Backend: "bdd", N: 7}
		go c.Get(context.Background(), first)
		configuratortest.WaitFor(t, "the first compile", func() bool { return g.count(first) == 1 })
		leave(c, queued)
		close(g.gate) // room for the queued compile, before its grace period ends
		configuratortest.WaitFor(t, "the queued compile dropped", func() bool { return gone(c, queued) })
		if n := g.count(queued); n != 0 {
			t.Errorf("the compile nobody waited for ran %d times once there was room", n)
		}
	})
	t.Run("running", func(t *testing.T) {
		g := newGatedCompiler(t, 10, 2<<30)
		c := newCache(g, 1<<30, 2, grace)
		c.keeps = func(Key) bool { return false }
		defer c.Close()
		k := Key{Backend: "bdd", N: 7}
		leave(c, k)
		configuratortest.WaitFor(t, "the abandoned compile cancelled", func() bool { return g.cancelled.Load() == 1 })
	})
	t.Run("kept", func(t *testing.T) {
		g := newGatedCompiler(t, 10, 2<<30)
		c := newCache(g, 1<<30, 2, grace)
		c.keeps = func(Key) bool { return true }
		defer c.Close()
		kept, other := Key{Backend: "bdd", N: 7}, Key{Backend: "bdd", N: 8}
		leave(c, kept)
		time.Sleep(5 * grace)
		leave(c, other)
		configuratortest.WaitFor(t, "the second abandoned compile cancelled", func() bool { return g.cancelled.Load() == 1 })
		if gone(c, kept) {
			t.Fatal("the kept compile was dropped")
		}
		close(g.gate)
		configuratortest.WaitFor(t, "the kept compile done", func() bool { return c.Cached(kept) })
		if c.Cached(other) {
			t.Errorf("the second abandoned compile ran on beside the first in the background")
		}
	})
}

// TestCacheNoWork checks that a request under NoWork (a HEAD) gets a
// cached space but never starts, nor joins, a heavy compile.
func TestCacheNoWork(t *testing.T) {
	g := newGatedCompiler(t, 10, 2<<30)
	close(g.gate)
	c := newCache(g, 1<<30, 2, time.Minute)
	c.heavy = func(Key) bool { return true }
	defer c.Close()
	k := Key{Backend: "bdd", N: 6}
	if _, err := c.Get(NoWork(context.Background()), k); !errors.Is(err, ErrNoWork) {
		t.Errorf("an uncompiled space under NoWork: %v, want ErrNoWork", err)
	}
	if n := g.count(k); n != 0 {
		t.Errorf("a request under NoWork started %d compiles", n)
	}
	if _, err := c.Get(context.Background(), k); err != nil {
		t.Fatal(err)
	}
	if e, err := c.Get(NoWork(context.Background()), k); err != nil || e == nil {
		t.Errorf("a cached space under NoWork: %v, %v", e, err)
	}
}

// TestCacheSettlesFreshSpaces checks that a space fresh from a heavy
// compile has its kept answers computed, and saved beside its compiled
// file, before the cache offers it: Get returns after the answers file is
// written. A light compile does not wait for them, and a space loaded
// from its file is offered at once.
func TestCacheSettlesFreshSpaces(t *testing.T) {
	tests := []struct {
		name        string
		heavy       bool
		saved       bool // the compiled file is there before the Get
		wantSettled bool
	}{
		{"a heavy compile", true, false, true},
		{"a light compile", false, false, false},
		{"a heavy space loaded from its file", true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			newOne := func() (*Cache, *strings.Builder) {
				var log strings.Builder
				b := bdd.New(bdd.Options{Budget: 1 << 30, Dir: dir})
				c := New([]configurator.Backend{b}, nil, config, slog.New(slog.NewTextHandler(&log, nil)), nil)
				c.heavy = func(Key) bool { return tt.heavy }
				return c, &log
			}
			k := Key{Backend: "bdd", N: 8}
			if tt.saved {
				c, _ := newOne()
				if _, err := c.Get(context.Background(), k); err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			answers, _ := filepath.Glob(filepath.Join(dir, "*.answers"))
			for _, f := range answers {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
			c, log := newOne()
			defer c.Close()
			e, err := c.Get(context.Background(), k)
			if err != nil {
				t.Fatal(err)
			}
			answers, _ = filepath.Glob(filepath.Join(dir, "*.answers"))
			settled := strings.Contains(log.String(), "kept answers computed before the space is offered")
			if settled != tt.wantSettled || (len(answers) == 1) != tt.wantSettled || e.Loaded() != tt.saved {
				t.Errorf("settled %v, answers files %q, loaded %v; want settled %v, loaded %v\n%s", settled, answers, e.Loaded(), tt.wantSettled, tt.saved, log)
			}
			if _, counting := c.Counting(k); counting {
				t.Errorf("still counting after the space was offered")
			}
		})
	}
}
