package fair

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// waitFor waits until s has k waiters.
func waitFor(t *testing.T, s *Sem, k int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for s.Waiting() != k {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiting, want %d", s.Waiting(), k)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRoundRobin: on one turn, the waiters of two clients are served in
// turn, not in the order they came: a client that queued three requests
// before another queued one does not make it wait for all three.
func TestRoundRobin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		arrival []string // after the holder "a", in this order
		want    []string // the order served
	}{
		{"one client alone is first come first served", []string{"a1", "a2", "a3"}, []string{"a1", "a2", "a3"}},
		{"a late client is served second", []string{"a1", "a2", "a3", "b1"}, []string{"a1", "b1", "a2", "a3"}},
		{"three clients alternate", []string{"a1", "a2", "b1", "b2", "c1"}, []string{"a1", "b1", "c1", "a2", "b2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Bounds{Turns: 1})
			hold, err := s.Acquire(context.Background(), "a")
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var served []string
			var wg sync.WaitGroup
			for i, who := range tc.arrival {
				wg.Go(func() {
					release, err := s.Acquire(context.Background(), who[:1])
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					served = append(served, who)
					mu.Unlock()
					release()
				})
				waitFor(t, s, i+1)
			}
			hold()
			wg.Wait()
			if !slices.Equal(served, tc.want) {
				t.Errorf("served %v, want %v", served, tc.want)
			}
		})
	}
}

// TestBounds: the share, the client's queue and the whole queue bound what
// one Acquire more gets.
func TestBounds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bounds  Bounds
		holders []string // acquire at once, in order
		waiters []string // then wait, in order
		next    string   // one more
		want    string   // "turn", "wait" or "full"
	}{
		{"a free turn within the share", Bounds{Turns: 2, Share: 1}, []string{"a"}, nil, "b", "turn"},
		{"a free turn beyond the share", Bounds{Turns: 2, Share: 1}, []string{"a"}, nil, "a", "wait"},
		{"the process's own work has no share", Bounds{Turns: 2, Share: 1}, []string{""}, nil, "", "turn"},
		{"every turn held", Bounds{Turns: 2}, []string{"a", "b"}, nil, "c", "wait"},
		{"the client's queue full", Bounds{Turns: 1, ClientQueue: 2}, []string{"a"}, []string{"b", "b"}, "b", "full"},
		{"another client's queue has room", Bounds{Turns: 1, ClientQueue: 2}, []string{"a"}, []string{"b", "b"}, "c", "wait"},
		{"the whole queue full", Bounds{Turns: 1, Queue: 2}, []string{"a"}, []string{"b", "c"}, "d", "full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(tc.bounds)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for _, who := range tc.holders {
				if _, err := s.Acquire(ctx, who); err != nil {
					t.Fatalf("holder %q: %v", who, err)
				}
			}
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			for i, who := range tc.waiters {
				wg.Go(func() { s.Acquire(ctx, who) })
				waitFor(t, s, i+1)
			}
			short, cancelShort := context.WithTimeout(ctx, 30*time.Millisecond)
			defer cancelShort()
			got := "turn"
			switch _, err := s.Acquire(short, tc.next); {
			case errors.Is(err, ErrFull):
				got = "full"
			case errors.Is(err, context.DeadlineExceeded):
				got = "wait"
			case err != nil:
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Acquire(%q) = %s, want %s", tc.next, got, tc.want)
			}
		})
	}
}

// TestGiveUp: a waiter whose ctx ends leaves its queue; the turns it did
// not get, and those given back twice, are counted once.
func TestGiveUp(t *testing.T) {
	s := New(Bounds{Turns: 1})
	release, err := s.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Acquire(ctx, "b"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting past the deadline: %v", err)
	}
	if s.Waiting() != 0 || s.Held() != 1 {
		t.Fatalf("after giving up: %d waiting, %d held; want 0 and 1", s.Waiting(), s.Held())
	}
	release()
	release()
	if s.Held() != 0 || len(s.clients) != 0 {
		t.Fatalf("after release: %d held, %d clients remembered; want 0 and 0", s.Held(), len(s.clients))
	}
}

// TestRequeueWaitsBehind: a turn given back goes to a caller of Acquire
// before a caller of Requeue that came first; with no caller of Acquire
// left, the Requeue is served.
func TestRequeueWaitsBehind(t *testing.T) {
	s := New(Bounds{Turns: 1})
	ctx := context.Background()
	hold, err := s.Acquire(ctx, "holder")
	if err != nil {
		t.Fatal(err)
	}
	order := make(chan string, 2)
	wait := func(name string, acquire func(context.Context, string) (func(), error)) {
		r, err := acquire(ctx, name)
		if err != nil {
			t.Error(err)
			return
		}
		order <- name
		time.Sleep(5 * time.Millisecond)
		r()
	}
	go wait("resumed", s.Requeue)
	waitFor(t, s, 1)
	go wait("fresh", s.Acquire)
	waitFor(t, s, 2)
	hold()
	if first, second := <-order, <-order; first != "fresh" || second != "resumed" {
		t.Errorf("served %s, then %s; want fresh, then resumed", first, second)
	}
}
