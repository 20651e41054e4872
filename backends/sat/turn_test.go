package sat

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// An explanation in the lane keeps nobody out of the backend: entering the
// lane gives its request's admission slot back, so that another client's
// request is admitted while it runs, even with one slot in all. And the
// lane serves clients in turn: one client's many explanations count as
// one client's, and another's waits behind one of them at most.
func TestLane(t *testing.T) {
	b := New(Options{Serve: 1})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, c := configurator.WithClient(ctx, "a"), configurator.WithClient(ctx, "c")

	doneA, err := b.admit(a)
	if err != nil {
		t.Fatal(err)
	}
	leave, err := b.lane(a)
	if err != nil {
		t.Fatal(err)
	}
	if held := b.requests.Held(); held != 0 {
		t.Fatalf("in the lane, the request still holds %d admission slots", held)
	}
	doneC, err := b.admit(c) // would wait for a's slot until ctx ends
	if err != nil {
		t.Fatalf("another client's request while an explanation runs: %v", err)
	}
	doneC()
	doneA()

	// Fill the lane's other places, then queue two more explanations of a
	// and one of client b, in that order.
	var fillers []func()
	for i := 1; i < b.searches.Turns(); i++ {
		done, err := b.lane(configurator.WithClient(ctx, "filler"+string(rune('0'+i))))
		if err != nil {
			t.Fatal(err)
		}
		fillers = append(fillers, done)
	}
	granted := make(chan string)
	queue := func(client, name string, waiting int) {
		go func() {
			done, err := b.lane(configurator.WithClient(ctx, client))
			if err != nil {
				granted <- "error: " + err.Error()
				return
			}
			granted <- name
			done()
		}()
		for b.searches.Waiting() < waiting { // queued, in this order
			runtime.Gosched()
		}
	}
	queue("a", "a2", 1)
	queue("a", "a3", 2)
	queue("b", "b1", 3)
	leave()
	var order []string
	for range 3 {
		order = append(order, <-granted)
	}
	for _, done := range fillers {
		done()
	}
	if i := slices.Index(order, "b1"); i < 0 || i > 1 {
		t.Errorf("the lane served %v; want b's explanation behind one of a's at most", order)
	}
}
