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

// TestSliced: a call holding a turn with acquireSliced is asked to yield
// (its context ends with cause ErrYield) once it has held the turn for a
// quantum while a caller of another client waits; not while nobody waits,
// nor while only a caller of its own client, which may not take a second
// turn, waits; and the waiters are served once the turns are given back.
func TestSliced(t *testing.T) {
	const quantum = 20 * time.Millisecond
	a := configurator.WithClient(context.Background(), "192.0.2.1")
	b := configurator.WithClient(context.Background(), "192.0.2.2")
	sem := newTurns(2) // a client holds at most one of the two turns

	callCtx, release, err := acquireSliced(a, sem, quantum, false)
	if err != nil {
		t.Fatal(err)
	}
	// Alone, and with a second caller of its own client waiting: no yield.
	own := make(chan error, 1)
	go func() {
		r, err := sem.Acquire(a, "192.0.2.1")
		if err == nil {
			r()
		}
		own <- err
	}()
	select {
	case <-callCtx.Done():
		t.Fatalf("asked to yield with no other client waiting: %v", context.Cause(callCtx))
	case <-time.After(5 * quantum):
	}
	// b takes the other turn, and a caller of b waits: a is asked to yield.
	holdB, err := sem.Acquire(b, "192.0.2.2")
	if err != nil {
		t.Fatal(err)
	}
	waiterB := make(chan error, 1)
	go func() {
		r, err := sem.Acquire(context.Background(), "192.0.2.3")
		if err == nil {
			r()
		}
		waiterB <- err
	}()
	select {
	case <-callCtx.Done():
		if !errors.Is(context.Cause(callCtx), ErrYield) {
			t.Errorf("the call's context ended with %v, want ErrYield", context.Cause(callCtx))
		}
	case <-time.After(time.Second):
		t.Fatal("not asked to yield within a second though another client waits")
	}
	if a.Err() != nil {
		t.Error("yielding ended the caller's own context")
	}
	release()
	holdB()
	for _, ch := range []chan error{waiterB, own} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Second):
			t.Fatal("a waiting caller was not served when the turns were given back")
		}
	}
	release() // a second call gives nothing back twice
	if h := sem.Held(); h != 0 {
		t.Errorf("%d turns held after every release, want 0", h)
	}
}
