package solverlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// TestAtMostTurns: however many goroutines ask, at most Turns hold a turn
// at once, and with enough of them asking, every turn is used.
func TestAtMostTurns(t *testing.T) {
	var mu sync.Mutex
	inside, most := 0, 0
	enter := func() {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		time.Sleep(200 * time.Microsecond)
		mu.Lock()
		inside--
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			ctx := context.Background()
			if i%2 == 0 { // half of them for clients, each of its own
				ctx = configurator.WithClient(ctx, fmt.Sprint("192.0.2.", i))
			}
			for range 20 {
				release, err := Acquire(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				enter()
				release()
			}
		})
	}
	wg.Wait()
	if most != Turns() {
		t.Fatalf("%d goroutines held a turn at once, want Turns() = %d", most, Turns())
	}
}

// TestClientShare: on two turns a client holds one; its second call waits
// while another client's gets the other turn at once, and gets the turn
// when the first is given back.
func TestClientShare(t *testing.T) {
	sem := newTurns(2)
	ctx := context.Background()
	a, b := configurator.WithClient(ctx, "192.0.2.1"), configurator.WithClient(ctx, "192.0.2.2")
	acquire := func(ctx context.Context) (func(), error) { return sem.Acquire(ctx, configurator.ClientOf(ctx)) }
	ra, err := acquire(a)
	if err != nil {
		t.Fatal(err)
	}
	second := make(chan func(), 1)
	go func() {
		r, err := acquire(a)
		if err != nil {
			t.Error(err)
		}
		second <- r
	}()
	for sem.Waiting() != 1 {
		time.Sleep(time.Millisecond)
	}
	short, cancel := context.WithTimeout(b, time.Second)
	defer cancel()
	rb, err := acquire(short)
	if err != nil {
		t.Fatalf("another client while the first holds its share: %v", err)
	}
	rb()
	select {
	case <-second:
		t.Fatal("the first client got a second turn while holding its share")
	case <-time.After(20 * time.Millisecond):
	}
	ra()
	(<-second)()
}

// TestWaiterGivesUp: a waiter whose context ends leaves without a turn,
// and the turns are free again once their holders give them back.
func TestWaiterGivesUp(t *testing.T) {
	var held []func()
	for range Turns() {
		release, err := Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire while every turn is held: %v, want DeadlineExceeded", err)
	}
	for _, release := range held {
		release()
	}
	r2, err := Acquire(context.Background())
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	r2()
}
