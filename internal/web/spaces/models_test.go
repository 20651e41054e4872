package spaces

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/internal/web/models"
)

// gatedModels is the SAT backend whose compiles of models are counted,
// wait for gate to open, and note when their context ends first.
type gatedModels struct {
	*sat.Backend
	gate     chan struct{}
	ended    chan struct{}
	compiles atomic.Int32
}

func newGatedModels() *gatedModels {
	return &gatedModels{Backend: sat.New(sat.Options{}), gate: make(chan struct{}), ended: make(chan struct{})}
}

func (b *gatedModels) CompileModel(ctx context.Context, m *feature.Model) (configurator.Space, error) {
	b.compiles.Add(1)
	select {
	case <-b.gate:
		return b.Backend.CompileModel(ctx, m)
	case <-ctx.Done():
		close(b.ended)
		return nil, ctx.Err()
	}
}

// boardsOnly is a backend with no CompileModel, named "boards".
type boardsOnly struct{ configurator.Backend }

func (boardsOnly) Name() string { return "boards" }

// modelConfig is the cache's configuration of these tests.
var modelConfig = Config{Bytes: 64 << 20, Deadline: time.Minute, Slots: 2, Grace: time.Minute}

// newModelCache is a cache of backends (the SAT backend when none) that
// reads its models from a store of its own, and that store.
func newModelCache(t *testing.T, cfg Config, backends ...configurator.Backend) (*Cache, *models.Store) {
	t.Helper()
	if len(backends) == 0 {
		backends = []configurator.Backend{sat.New(sat.Options{})}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := models.New(models.Config{Bytes: 64 << 20, MaxFeatures: 1000, Slots: 2}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	read := func(ctx context.Context, id string) (*feature.Model, int64, error) {
		m, _, err := store.Model(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		return m, models.Bytes(m), nil
	}
	c := New(backends, read, cfg, quiet, nil)
	t.Cleanup(c.Close)
	return c, store
}

// chain is a UVL model of n optional features under a root, each after
// the first needing the one before: n+1 configurations.
func chain(n int) []byte {
	var b strings.Builder
	b.WriteString("features\n\tRoot\n\t\toptional\n")
	for i := range n {
		fmt.Fprintf(&b, "\t\t\tF%d\n", i)
	}
	b.WriteString("constraints\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "\tF%d => F%d\n", i, i-1)
	}
	return []byte(b.String())
}

// carKey is the key of the bundled example car's space on backend.
func carKey(backend string) Key {
	car, _ := examples.Lookup("car")
	return ModelKey(backend, models.ID(car.Format, car.Source))
}

// Concurrent requests for a model's space share one compile; the space
// answers the model's questions.
func TestModelCompiledOnce(t *testing.T) {
	ctx := context.Background()
	b := newGatedModels()
	close(b.gate)
	c, store := newModelCache(t, modelConfig, b)
	info, _, err := store.Add(ctx, "chain.uvl", chain(6), "")
	if err != nil {
		t.Fatal(err)
	}
	k := ModelKey("sat", info.ID)
	var wg sync.WaitGroup
	got := make([]*Space, 8)
	for i := range got {
		wg.Go(func() {
			sp, err := c.Get(ctx, k)
			if err != nil {
				t.Error(err)
			}
			got[i] = sp
		})
	}
	wg.Wait()
	if n := b.compiles.Load(); n != 1 {
		t.Errorf("%d compiles for 8 requests, want 1", n)
	}
	for _, sp := range got[1:] {
		if sp != got[0] {
			t.Fatal("the requests got different spaces")
		}
	}
	// F2 selected forces F0 and F1 on; the root is core.
	m := got[0].FeatureModel()
	f2, _ := m.ID("F2")
	d, err := got[0].Domains(ctx, []configurator.Decision{{Feature: f2, Select: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(d.In(configurator.ForcedOn)); n != 3 || d.Configurations == nil || d.Configurations.Int64() != 4 {
		t.Errorf("F2 selected: %d forced on, %v configurations; want 3 (Root, F0, F1) and 4 (F3..F5 a prefix)", n, d.Configurations)
	}
	if used, held := c.Used(); held != 1 || used != got[0].Bytes || used <= 0 {
		t.Errorf("the cache holds %d bytes in %d spaces, want the model's %d in 1", used, held, got[0].Bytes)
	}
}

func TestModelErrors(t *testing.T) {
	ctx := context.Background()
	c, _ := newModelCache(t, modelConfig, sat.New(sat.Options{}), boardsOnly{sat.New(sat.Options{})})
	if _, err := c.Get(ctx, carKey("boards")); !errors.Is(err, configurator.ErrBoardsOnly) {
		t.Errorf("a backend of boards only: %v", err)
	}
	if _, err := c.Get(ctx, carKey("none")); !errors.Is(err, ErrNoBackend) {
		t.Errorf("an unknown backend: %v", err)
	}
	if _, err := c.Get(ctx, ModelKey("sat", strings.Repeat("0", 24))); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("an unknown model: %v", err)
	}
	if _, err := c.Get(ctx, carKey("sat")); err != nil {
		t.Errorf("the bundled example car: %v", err)
	}
}

// A request that gives up leaves a model's light compile, which goes on
// for the grace and is found by the next request within it; the grace
// over with no request waiting, it ends, and the next request starts
// afresh.
func TestModelAbandoned(t *testing.T) {
	b := newGatedModels()
	cfg := modelConfig
	cfg.Grace = 200 * time.Millisecond
	c, _ := newModelCache(t, cfg, b)
	k := carKey("sat")
	giveUp := func() {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		if _, err := c.Get(ctx, k); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a request that gives up: %v", err)
		}
	}
	giveUp()
	since, ok := c.Compiling(k)
	giveUp() // within the grace: the same compile
	if again, ok2 := c.Compiling(k); !ok || !ok2 || !again.Equal(since) {
		t.Fatalf("compiling: %v %v, then %v %v; want the one compile", since, ok, again, ok2)
	}
	select {
	case <-b.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the compile went on past the grace after its last request left")
	}
	if _, ok := c.Compiling(k); ok {
		t.Error("still compiling after the grace")
	}
	close(b.gate)
	sp, err := c.Get(context.Background(), k)
	if err != nil || len(sp.FeatureModel().Features) != 32 {
		t.Fatalf("the next request: %v", err)
	}
	if n := b.compiles.Load(); n != 2 {
		t.Errorf("%d compiles, want 2 (the abandoned one and the next)", n)
	}
}

// A model's heavy compile (on a backend with a budget: a BDD's) goes on
// to its end when every request left, however many do, and its space is
// kept for the next request.
func TestModelHeavyCompileGoesOn(t *testing.T) {
	b := newGatedModels()
	cfg := modelConfig
	cfg.Grace = 20 * time.Millisecond
	cfg.Budgets = map[string]int64{"sat": 1 << 20}
	c, store := newModelCache(t, cfg, b)
	info, _, err := store.Add(context.Background(), "chain.uvl", chain(6), "")
	if err != nil {
		t.Fatal(err)
	}
	keys := []Key{carKey("sat"), ModelKey("sat", info.ID)}
	for _, k := range keys {
		if !c.Heavy(k) {
			t.Fatalf("%v is not heavy", k)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		c.Get(ctx, k)
		cancel()
	}
	time.Sleep(10 * cfg.Grace)
	for _, k := range keys {
		if _, ok := c.Compiling(k); !ok {
			t.Errorf("%v: dropped when its requests left", k)
		}
	}
	close(b.gate)
	for _, k := range keys {
		configuratortest.WaitFor(t, "the compile kept", func() bool { return c.Cached(k) })
	}
	if n := b.compiles.Load(); n != 2 {
		t.Errorf("%d compiles, want 2", n)
	}
	select {
	case <-b.ended:
		t.Error("a compile was cancelled")
	default:
	}
}

// A model's compile past the compile deadline is the model beyond that
// backend: the request is told so (ErrTooLarge), and the next request is
// told at once, with no second compile.
func TestModelDeadline(t *testing.T) {
	b := newGatedModels()
	cfg := modelConfig
	cfg.ModelDeadline = 100 * time.Millisecond
	c, _ := newModelCache(t, cfg, b)
	k := carKey("sat")
	// A second compile would end like the first and close b.ended again:
	// a panic.
	for i := range 2 {
		_, err := c.Get(context.Background(), k)
		if !errors.Is(err, configurator.ErrTooLarge) || !strings.Contains(err.Error(), "did not finish in 100ms") {
			t.Fatalf("request %d: %v, want ErrTooLarge naming the deadline", i+1, err)
		}
	}
	if _, ok := c.Compiling(k); ok {
		t.Error("compiling again after the deadline")
	}
}

// A model's compile reserves its backend's budget in the one bound while
// it runs, and gives it back; one that finds no room by its deadline is
// refused as busy, not remembered as too large; one whose bound passes
// the whole bound is refused at once.
func TestModelCompileReserves(t *testing.T) {
	ctx := context.Background()
	b := newGatedModels()
	cfg := modelConfig
	cfg.Bytes = 1000
	cfg.Budgets = map[string]int64{"sat": 700}
	cfg.ModelDeadline = 200 * time.Millisecond
	cfg.Deadline = time.Minute
	c, store := newModelCache(t, cfg, b)
	k := carKey("sat")
	done := make(chan error, 1)
	go func() { _, err := c.Get(ctx, k); done <- err }()
	configuratortest.WaitFor(t, "the compile", func() bool { return b.compiles.Load() == 1 })
	c.mu.Lock()
	if c.reserved != 700 {
		t.Errorf("%d bytes reserved while the model compiles, want its budget, 700", c.reserved)
	}
	c.mu.Unlock()
	close(b.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	if c.reserved != 0 {
		t.Errorf("%d bytes reserved after the compile, want 0", c.reserved)
	}
	c.mu.Unlock()

	// A board's compile holds the bound: the model's waits, then is busy.
	g := &gatedCompiler{real: c.compile, heavy: c.heavy, gate: make(chan struct{}), only: func(k Key) bool { return k.Model == "" }}
	c.compile = g.compile
	c.cost = func(k Key, src *source) int64 {
		if src == nil {
			return 500
		}
		return c.costOf(k, src)
	}
	board := Key{Backend: "sat", N: 6}
	boardDone := make(chan error, 1)
	go func() { _, err := c.Get(ctx, board); boardDone <- err }()
	configuratortest.WaitFor(t, "the board's compile", func() bool { return g.count(board) == 1 })
	info, _, err := store.Add(ctx, "chain.uvl", chain(4), "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		_, err = c.Get(ctx, ModelKey("sat", info.ID))
		if !errors.Is(err, configurator.ErrBusy) || errors.Is(err, configurator.ErrTooLarge) {
			t.Fatalf("compile %d without room: %v, want ErrBusy", i+1, err)
		}
	}
	close(g.gate)
	if err := <-boardDone; err != nil {
		t.Fatal(err)
	}
	if sp, err := c.Get(ctx, ModelKey("sat", info.ID)); err != nil || len(sp.FeatureModel().Features) != 5 {
		t.Errorf("once there is room: %v", err)
	}

	// Without a budget, a compile reserves a bound from its model: more
	// than this bound.
	c.cfg.Budgets = nil
	home, _ := examples.Lookup("smarthome")
	homeKey := ModelKey("sat", models.ID(home.Format, home.Source))
	before := b.compiles.Load()
	_, err = c.Get(ctx, homeKey)
	var tb *TooBig
	if !errors.As(err, &tb) || !errors.Is(err, configurator.ErrTooLarge) || tb.Bound != 1000 || tb.Need <= 1000 || tb.Largest != 0 {
		t.Errorf("a model whose bound passes the whole bound: %v (%+v), want TooBig", err, tb)
	}
	if n := b.compiles.Load() - before; n != 0 {
		t.Errorf("the compile too big for the bound started %d times", n)
	}
}

// A board's compile waits while a model's compile holds the room it
// needs in the one bound, and starts once the model's has ended.
func TestBoardWaitsForModel(t *testing.T) {
	ctx := context.Background()
	b := newGatedModels()
	cfg := modelConfig
	cfg.Bytes = 1000
	c, _ := newModelCache(t, cfg, b)
	g := &gatedCompiler{real: c.compile, heavy: c.heavy, gate: make(chan struct{}), only: func(Key) bool { return false }}
	c.compile = g.compile
	c.cost = func(k Key, src *source) int64 {
		if src == nil {
			return 700
		}
		return 400
	}
	model := carKey("sat")
	done := make(chan error, 1)
	go func() { _, err := c.Get(ctx, model); done <- err }()
	configuratortest.WaitFor(t, "the model's compile", func() bool { return b.compiles.Load() == 1 })
	board := Key{Backend: "sat", N: 6}
	got := make(chan error, 1)
	go func() { _, err := c.Get(ctx, board); got <- err }()
	time.Sleep(50 * time.Millisecond)
	if n := g.count(board); n != 0 {
		t.Errorf("a board's compile of 700 beside a model's of 400 (bound 1000): started %d times, want it to wait", n)
	}
	close(b.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil || g.count(board) != 1 {
		t.Errorf("after the model's compile ended: %v, %d compiles; want one", err, g.count(board))
	}
}

// An upload never waits behind compiles: with the one slot of the
// models' lane taken by a compile that does not end, a model is parsed
// and stored at once.
func TestParsesBesideCompiles(t *testing.T) {
	b := newGatedModels()
	defer close(b.gate)
	cfg := modelConfig
	cfg.Slots = 1
	cfg.Budgets = map[string]int64{"sat": 1 << 20}
	c, store := newModelCache(t, cfg, b)
	go c.Get(context.Background(), carKey("sat"))
	configuratortest.WaitFor(t, "the compile", func() bool { return b.compiles.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	info, created, err := store.Add(ctx, "chain.uvl", chain(5), "")
	if err != nil || !created || info.Features != 6 {
		t.Fatalf("an upload while the one compile slot is taken: %+v, %v, %v", info, created, err)
	}
}

// A built-in board's space answers its squares as features: the board
// compiled by the backend's engine for boards.
func TestBoardFeatures(t *testing.T) {
	c, _ := newModelCache(t, modelConfig)
	sp, err := c.Get(context.Background(), c.Key("sat", 6, configurator.RowMajor))
	if err != nil {
		t.Fatal(err)
	}
	d, err := sp.Domains(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The four solutions of 6×6 leave a1 and f1 empty, not c1.
	if d.States[0] != configurator.ForcedOff || d.States[2] != configurator.Open || sp.FeatureModel().Features[0].Name != "a1" {
		t.Errorf("queens-6 on sat: a1 %v, c1 %v; want forced_off and free", d.States[0], d.States[2])
	}
}
