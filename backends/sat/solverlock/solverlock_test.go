package solverlock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestOneAtATime: however many goroutines ask, at most one holds the turn.
func TestOneAtATime(t *testing.T) {
	var mu sync.Mutex
	inside, most := 0, 0
	enter := func() {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		time.Sleep(100 * time.Microsecond)
		mu.Lock()
		inside--
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if i%2 == 0 {
					Do(enter)
					continue
				}
				release, err := Acquire(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				enter()
				release()
			}
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d goroutines held the turn at once, want 1", most)
	}
}

// TestWaiterGivesUp: a waiter whose context ends leaves without the turn,
// and the turn is free again once its holder releases it.
func TestWaiterGivesUp(t *testing.T) {
	release, err := Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while held: %v, want DeadlineExceeded", err)
	}
	release()
	r2, err := Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	r2()
}
