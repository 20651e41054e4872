package spaces

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// Config is what bounds the cache and its compiles.
type Config struct {
	// Bytes bounds the memory of the spaces held and of the compiles
	// and loads under way, each charged its backend's estimate
	// (configurator.Cost) while it runs.
	Bytes    int64
	Deadline time.Duration // of one compile, whoever waits for it
	Slots    int           // heavy compiles running at once per board size
	// Grace is how long a compile nobody waits for goes on, for a page
	// that shows its progress to reconnect; then it is dropped, unless
	// it is kept (see Cache).
	Grace time.Duration
	// Recycle is the number of requests after which a space that does
	// not report its size is compiled afresh; 0: never.
	Recycle int

	// ModelDeadline bounds one compile of a feature model instead of
	// Deadline: a model whose compile does not end by it is beyond the
	// backend, and is remembered so. 0: Deadline.
	ModelDeadline time.Duration
	// Budgets are, by backend name, the most memory one compile of a
	// feature model on the backend may take (a BDD's node budget). Such
	// a compile is heavy, and reserves its budget up to ModelReserve
	// (reserving the whole budget would hold every other compile back
	// and evict every space not in use; the budget stays the backend's
	// hard bound beyond it). A compile on another backend reserves a
	// bound from its model.
	Budgets      map[string]int64
	ModelReserve int64
}

// Observer is told of every compile: the key, the board's space (nil when
// the compile failed, or compiled a feature model), how long the compile
// took and its error.
type Observer func(k Key, sp configurator.Board, took time.Duration, err error)

// Models reads the feature model of an ID for the cache to compile it
// (the server's store of models): the model, and a bound from above of
// the memory it holds, from which the cache bounds that of a space that
// does not report its own (configurator.Sizer).
type Models func(ctx context.Context, id string) (m *feature.Model, bytes int64, err error)

// New returns a cache of the spaces of backends, which compiles nothing
// until asked; Close releases what it holds. models reads the feature
// models it compiles (nil: none). observe, when not nil, is told of every
// compile.
func New(backends []configurator.Backend, models Models, cfg Config, log *slog.Logger, observe Observer) *Cache {
	ctx, stop := context.WithCancel(context.Background())
	c := &Cache{
		backends:  make(map[string]configurator.Backend, len(backends)),
		unordered: make(map[string]bool),
		cfg:       cfg,
		log:       log,
		observe:   observe,
		models:    models,
		inUse:     defaultInUse,
		ctx:       ctx,
		stop:      stop,
		lru:       list.New(),
		index:     make(map[Key]*list.Element),
		flights:   make(map[Key]*flight),
		failed:    make(map[Key]error),
		lanes:     make(map[lane]chan struct{}),
		sizes:     make(map[Key]int64),
		freed:     make(chan struct{}),
	}
	for _, b := range backends {
		c.backends[b.Name()] = b
		if !b.Limits().Ordered {
			c.unordered[b.Name()] = true
		}
	}
	c.compile, c.heavy, c.cost, c.keeps = c.build, c.Heavy, c.costOf, c.saves
	return c
}

// source is a feature model read for its compile (see Models), nil for a
// board's.
type source struct {
	model *feature.Model
	bytes int64 // a bound of what model holds
}

// spaceBytes is the memory a compiled space of src holds: its own figure
// (configurator.Sizer), or else a bound from its model's: a space holds
// its model's clauses a few times over (the solver's copy, its watches,
// its index).
func (src *source) spaceBytes(sp configurator.Space) int64 {
	if sz, ok := sp.(configurator.Sizer); ok {
		return sz.Bytes()
	}
	return 4 * src.bytes
}

// costOf is the bytes a compile of k reserves while it runs: a board's
// backend's estimate (configurator.Cost); for model src its backend's
// budget up to Config.ModelReserve (see Config.Budgets), or else a bound
// from the model.
func (c *Cache) costOf(k Key, src *source) int64 {
	if src == nil {
		b, ok := c.backends[k.Backend]
		if !ok {
			return 0
		}
		return b.Cost(k.N, k.Order).Bytes
	}
	bound := src.spaceBytes(nil)
	if b := c.cfg.Budgets[k.Backend]; b > 0 {
		return min(b, max(c.cfg.ModelReserve, bound))
	}
	return bound
}

// saves reports whether the compile of k is one the server keeps: a heavy
// compile of a feature model (a BDD's, which goes on for the person
// reading the page meanwhile), or a heavy compile of a board whose backend
// saves its space to a directory (a configurator.Filer with a command
// that writes the file), where it is not yet, so that every later start
// loads it. Such a compile, abandoned while it runs, goes on in the
// background; a board's load is not one.
func (c *Cache) saves(k Key) bool {
	if k.Model != "" {
		return c.heavy(k)
	}
	fl, ok := c.backends[k.Backend].(configurator.Filer)
	if !ok || !c.heavy(k) {
		return false
	}
	m, err := configurator.New(k.N, k.Order)
	if err != nil {
		return false
	}
	f := fl.File(m)
	return f.Command != "" && f.Path == "" && !f.Required
}

// noWork is the context key of NoWork.
type noWork struct{}

// NoWork returns a context under which Get starts no heavy compile (nor
// load), nor waits for one under way: it returns the space when the cache
// holds it, and ErrNoWork otherwise. A HEAD request asks with it.
func NoWork(ctx context.Context) context.Context { return context.WithValue(ctx, noWork{}, true) }

func noWorkIn(ctx context.Context) bool { return ctx.Value(noWork{}) != nil }

// ErrNoWork is what Get returns under NoWork for a space the cache does not
// hold.
var ErrNoWork = errors.New("the space is not compiled, and this request starts no work")

// Key is the key of backend's space of the n×n board in order o: a
// backend whose spaces do not depend on the order compiles one space for
// every order, under RowMajor.
func (c *Cache) Key(backend string, n int, o configurator.Order) Key {
	k := Key{Backend: backend, N: n, Order: o}
	if c.unordered[backend] {
		k.Order = configurator.RowMajor
	}
	return k
}

// ModelKey is the key of backend's space of the feature model of ID id
// (not a built-in board's: see Key).
func ModelKey(backend, id string) Key { return Key{Backend: backend, Model: id} }

// ErrNoBackend is the error of a key whose backend the cache was not
// given.
var ErrNoBackend = errors.New("no such backend")

// usable returns the error of a key no compile can serve, at once: its
// backend unknown, or a model's on a backend that configures boards only
// (configurator.ErrBoardsOnly); nil otherwise.
func (c *Cache) usable(k Key) error {
	b, ok := c.backends[k.Backend]
	if !ok {
		return fmt.Errorf("backend %q: %w", k.Backend, ErrNoBackend)
	}
	if _, ok := b.(configurator.ModelCompiler); k.Model != "" && !ok {
		return fmt.Errorf("%s: %w", k.Backend, configurator.ErrBoardsOnly)
	}
	return nil
}

// Heavy reports whether compiling k takes long and much memory: as a
// board's backend estimates it (configurator.Cost); a model's on a
// backend with a budget (Config.Budgets).
func (c *Cache) Heavy(k Key) bool {
	if k.Model != "" {
		return c.cfg.Budgets[k.Backend] > 0
	}
	b, ok := c.backends[k.Backend]
	return ok && b.Cost(k.N, k.Order).Heavy
}

// deadline is the compile deadline of k (Config.ModelDeadline for a
// model's).
func (c *Cache) deadline(k Key) time.Duration {
	if k.Model != "" && c.cfg.ModelDeadline > 0 {
		return c.cfg.ModelDeadline
	}
	return c.cfg.Deadline
}

// read reads the model a key names, nil for a board's.
func (c *Cache) read(ctx context.Context, k Key) (*source, error) {
	if k.Model == "" {
		return nil, nil
	}
	if c.models == nil {
		return nil, fmt.Errorf("model %s: the cache reads no feature models", k.Model)
	}
	m, bytes, err := c.models(ctx, k.Model)
	if err != nil {
		return nil, err
	}
	return &source{model: m, bytes: bytes}, nil
}

// Slots is the number of heavy compiles of one board size that run at
// once.
func (c *Cache) Slots() int { return max(c.cfg.Slots, 1) }

// Counting reports whether k's fresh space is counting its empty board's
// solutions, and since when.
func (c *Cache) Counting(k Key) (since time.Time, ok bool) { return loadTime(&c.counting, k) }

// Settling reports whether k's fresh space is computing the answers it
// keeps for the first clicks before it is offered (see settle), and since
// when.
func (c *Cache) Settling(k Key) (since time.Time, ok bool) { return loadTime(&c.settling, k) }

func loadTime(m *sync.Map, k Key) (time.Time, bool) {
	v, ok := m.Load(k)
	if !ok {
		return time.Time{}, false
	}
	return v.(time.Time), true
}

// Use counts a request on e and, after Config.Recycle requests when its
// memory is not known to stay put, drops e from the cache, if it is still
// there, so that the next request for its key compiles it afresh.
// Requests using e go on with it.
func (c *Cache) Use(e *Space) {
	if e.Sized || c.cfg.Recycle <= 0 || e.uses.Add(1) != int64(c.cfg.Recycle) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[e.Key]; ok && el.Value.(*Space) == e {
		c.evict(el)
	}
}

// build is the cache's compile function: for a board it builds the
// board, compiles it under the compile deadline, and analyses the empty
// board once (countEmpty), the answer every first request on it asks for;
// a model's it compiles (buildModel). Get has refused a key of a backend
// the cache does not have (usable).
func (c *Cache) build(ctx context.Context, k Key, src *source) (*Space, error) {
	b := c.backends[k.Backend]
	ctx, cancel := context.WithTimeout(ctx, c.deadline(k))
	defer cancel()
	if src != nil {
		return c.buildModel(ctx, k, b, src)
	}
	m, err := configurator.New(k.N, k.Order)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sp, took, err := configurator.Compile(ctx, b, m)
	if c.observe != nil {
		c.observe(k, sp, time.Since(start), err)
	}
	if err != nil {
		c.log.Warn("compile failed", "backend", k.Backend, "n", k.N, "order", k.Order.String(), "after", time.Since(start), "err", err)
		return nil, err
	}
	res := &Space{Key: k, Space: sp, Took: took, Bytes: b.Cost(k.N, k.Order).Bytes}
	if sz, ok := sp.(configurator.Sizer); ok {
		res.Bytes, res.Sized = sz.Bytes(), true
	}
	// The count is a head start: when the backend cannot give it in
	// time, the first request asks again.
	c.counting.Store(k, time.Now())
	left, err := c.countEmpty(ctx, res)
	c.counting.Delete(k)
	switch {
	case left:
		c.log.Info("the empty board's count goes on without the compile's waiters", "backend", k.Backend, "n", k.N, "err", err)
	case err != nil && !errors.Is(err, configurator.ErrNoSolution):
		c.log.Warn("counting the empty board's solutions", "backend", k.Backend, "n", k.N, "err", err)
	}
	if !left {
		c.settle(ctx, res)
	}
	verb := "compiled"
	if res.Loaded() {
		verb = "loaded from its compiled file"
	}
	c.log.Info(verb, "backend", k.Backend, "n", k.N, "order", k.Order.String(), "took", took, "bytes", res.Bytes)
	return res, nil
}

// buildModel compiles model src for key k on b, under ctx's deadline, the
// compile's. A compile that does not end by it is beyond the backend, and
// says so (it is remembered as such: every visitor would otherwise start
// the same hopeless compile again).
func (c *Cache) buildModel(ctx context.Context, k Key, b configurator.Backend, src *source) (*Space, error) {
	start := time.Now()
	fs, took, err := configurator.CompileFeatureModel(ctx, b, src.model)
	if c.observe != nil {
		c.observe(k, nil, time.Since(start), err)
	}
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.ctx.Err() == nil {
			err = fmt.Errorf("%w: its compile did not finish in %v", configurator.ErrTooLarge, c.deadline(k))
		}
		c.log.Warn("compile failed", "space", k.String(), "after", time.Since(start), "err", err)
		return nil, err
	}
	res := &Space{Key: k, Space: fs, Took: took, Bytes: src.spaceBytes(fs)}
	_, res.Sized = fs.(configurator.Sizer)
	c.log.Info("compiled", "space", k.String(), "features", len(src.model.Features), "took", took, "bytes", res.Bytes)
	return res, nil
}

// precomputer is a space that computes the answers it keeps (a BDD's
// analyses and heat maps of the boards of one and two queens, which the
// first clicks ask for) and saves them beside its compiled file.
type precomputer interface{ Precompute(context.Context) error }

// settle has a space fresh from a heavy compile compute the answers it
// keeps before the cache offers it, so that its first clicks are answered
// from them instead of sweeping the largest parts of its diagram, and the
// file saved beside its compiled one lets a restart load them too. It
// runs as part of the compile (Settling says so meanwhile), within its
// deadline; a space loaded from its file is offered at once (it reads the
// answers saved with it, and computes those missing in the background).
// When ctx ends first the space is offered with what was computed.
func (c *Cache) settle(ctx context.Context, res *Space) {
	p, ok := res.Space.(precomputer)
	if !ok || res.Loaded() || !c.heavy(res.Key) {
		return
	}
	k := res.Key
	start := time.Now()
	c.settling.Store(k, start)
	defer c.settling.Delete(k)
	if err := p.Precompute(ctx); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
		c.log.Info("kept answers left to compute on demand", "backend", k.Backend, "n", k.N, "order", k.Order.String(), "after", time.Since(start), "err", err)
		return
	}
	c.log.Info("kept answers computed before the space is offered", "backend", k.Backend, "n", k.N, "order", k.Order.String(), "took", time.Since(start))
}

// countEmpty analyses the empty board of a fresh space, for the count of
// all its solutions. The analysis is work that every request on the space
// shares (a BDD keeps it, and a request that asks for it meanwhile waits
// for the one under way), so it runs detached from the requests waiting
// for the compile: under the cache's lifetime and the compile deadline,
// never cancelled by a waiter that gives up (a client gone, a request's
// deadline) or by the last one leaving, so that a later request finds it
// done or under way instead of starting it again. When ctx ends first,
// countEmpty returns with left set and the analysis goes on: the space
// is cached meanwhile and keeps the analysis when it ends, or, if it
// fails, countEmpty logs why itself.
func (c *Cache) countEmpty(ctx context.Context, res *Space) (left bool, err error) {
	k := res.Key
	done := make(chan error, 1)
	var mu sync.Mutex // held to answer, and to leave: one or the other
	gone := false
	c.detached.Add(1)
	go func() {
		defer c.detached.Done()
		dctx, cancel := context.WithTimeout(c.ctx, c.cfg.Deadline)
		defer cancel()
		start := time.Now()
		_, err := res.Board().Analyze(dctx, nil)
		mu.Lock()
		defer mu.Unlock()
		if !gone {
			done <- err
			return
		}
		if err != nil && !errors.Is(err, configurator.ErrNoSolution) {
			c.log.Warn("counting the empty board's solutions", "backend", k.Backend, "n", k.N, "after", time.Since(start), "err", err)
		}
	}()
	select {
	case err := <-done:
		return false, err
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		select {
		case err := <-done:
			return false, err
		default:
			gone = true
			return true, ctx.Err()
		}
	}
}
