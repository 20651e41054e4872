package plain

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestBusy: with Queue queries in progress, one more fails at once with
// ErrBusy, and the first still gets its answer.
func TestBusy(t *testing.T) {
	b := New(Options{Queue: 1})
	sp := configuratortest.Space(t, b, configuratortest.Model(t, 8, configurator.RowMajor))
	var held []func()
	for range solverlock.Turns() { // every solver turn: the query waits
		release, err := solverlock.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, release)
	}
	release := func() {
		for _, r := range held {
			r()
		}
	}
	first := make(chan error, 1)
	go func() {
		_, err := sp.Analyze(context.Background(), nil) // in progress, waiting for the turn
		first <- err
	}()
	for len(b.running) == 0 {
		time.Sleep(time.Millisecond)
	}
	_, err := sp.Solve(context.Background(), nil)
	release()
	if !errors.Is(err, configurator.ErrBusy) {
		t.Errorf("a second query while one is in progress: %v, want ErrBusy", err)
	}
	if err := <-first; err != nil {
		t.Errorf("the first query: %v", err)
	}
}
