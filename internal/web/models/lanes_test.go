package models

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/examples"
)

// An upload never waits behind compiles: with every compile slot taken
// by a compile that does not end, a model is parsed and stored at once.
func TestParsesBesideCompiles(t *testing.T) {
	b := &gated{Backend: sat.New(sat.Options{}), gate: make(chan struct{}), ended: make(chan struct{})}
	defer close(b.gate)
	cfg := testConfig("")
	cfg.Slots = 1
	s := newStore(t, cfg, b)
	car, _ := examples.Lookup("car")
	id := ID(car.Format, car.Source)
	go s.Space(context.Background(), id, "sat")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := s.Compiling(id, "sat"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the compile did not start")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // the compile holds its slot
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	info, created, err := s.Add(ctx, "chain.uvl", chain(5), "")
	if err != nil || !created || info.Features != 6 {
		t.Fatalf("an upload while the one compile slot is taken: %+v, %v, %v", info, created, err)
	}
}

// memory is a Memory of a few bytes that records its reservations.
type memory struct {
	mu             sync.Mutex
	bound, held    int64
	peak, reserves int64
	freed          chan struct{}
}

func (m *memory) Reserve(ctx context.Context, bytes int64) (func(), error) {
	for {
		m.mu.Lock()
		if m.held+bytes <= m.bound {
			m.held += bytes
			m.peak = max(m.peak, m.held)
			m.reserves++
			m.mu.Unlock()
			return func() {
				m.mu.Lock()
				m.held -= bytes
				m.mu.Unlock()
				m.freed <- struct{}{}
			}, nil
		}
		m.mu.Unlock()
		select {
		case <-m.freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// A compile reserves its backend's budget in the server's bound while it
// runs, and gives it back; a compile that finds no room by the store's
// deadline is refused as busy, not remembered as too large.
func TestCompileReserves(t *testing.T) {
	ctx := context.Background()
	mem := &memory{bound: 1000, freed: make(chan struct{}, 10)}
	cfg := testConfig("")
	cfg.Memory = mem
	cfg.Budgets = map[string]int64{"sat": 700}
	cfg.Deadline = 200 * time.Millisecond
	s := newStore(t, cfg)
	car, _ := examples.Lookup("car")
	id := ID(car.Format, car.Source)
	if _, err := s.Space(ctx, id, "sat"); err != nil {
		t.Fatal(err)
	}
	mem.mu.Lock()
	if mem.reserves != 1 || mem.peak != 700 || mem.held != 0 {
		t.Errorf("reserved %d times, at most %d bytes, %d held after; want once, 700, 0", mem.reserves, mem.peak, mem.held)
	}
	mem.mu.Unlock()

	// Another compile holds the bound: the next one waits, then is busy.
	release, err := mem.Reserve(ctx, 500)
	if err != nil {
		t.Fatal(err)
	}
	info, _, err := s.Add(ctx, "chain.uvl", chain(4), "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		_, err = s.Space(ctx, info.ID, "sat")
		if !errors.Is(err, configurator.ErrBusy) || errors.Is(err, configurator.ErrTooLarge) {
			t.Fatalf("compile %d without room: %v, want ErrBusy", i+1, err)
		}
	}
	release()
	if sp, err := s.Space(ctx, info.ID, "sat"); err != nil || len(sp.FeatureModel().Features) != 5 {
		t.Errorf("once there is room: %v", err)
	}
}
