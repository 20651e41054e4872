// Package spaces holds the web server's compiled spaces: one cache,
// bounded in bytes, of the spaces every backend compiled or loaded from
// its saved file, of the built-in boards (keyed by backend, board size
// and variable order) and of the feature models (keyed by backend and the
// model's ID) alike. The same bound holds the compiles and loads under
// way, each charged what it may take from its start to its end, so that
// the memory of compiled spaces and of their making together never passes
// it. The cache compiles each key once however many requests ask at the
// same time, runs heavy compiles in lanes of a few slots (per board size,
// per backend for models), drops a compile nobody waits for any more
// (after a grace period for a page that shows its progress; a heavy
// compile whose result the server keeps goes on), counts a fresh board's
// solutions once, detached from the requests that wait, and retires the
// spaces that grow as they are used. It knows nothing of HTTP: its errors
// are the configurator's, Crowded, TooBig, ErrNoWork and ErrNoBackend,
// which callers put in words.
package spaces

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// Key names one compiled space: a backend and either a board size and a
// variable order (a built-in board: see Cache.Key) or a feature model's
// ID (Model; N is then 0, and there is no order: see ModelKey).
type Key struct {
	Backend string
	N       int
	Model   string
	Order   configurator.Order
}

// String names k for logs and errors: "bdd 8×8 row-major", "sat model ID".
func (k Key) String() string {
	if k.Model != "" {
		return fmt.Sprintf("%s model %s", k.Backend, k.Model)
	}
	return fmt.Sprintf("%s %d×%d %v", k.Backend, k.N, k.N, k.Order)
}

// Board is e's space as a board's (configurator.Board), which answers
// in squares; nil for a feature model.
func (e *Space) Board() configurator.Board {
	b, _ := e.Space.(configurator.Board)
	return b
}

// Loaded reports whether e's space was loaded from its saved file, not
// compiled (configurator.Sourcer).
func (e *Space) Loaded() bool {
	src, ok := e.Space.(configurator.Sourcer)
	return ok && src.Source() != ""
}

// Space is a compiled space with what the page shows about it: the one
// space that answers decisions on features, for a board as for a feature
// model, and on a board its questions in squares too (Board).
type Space struct {
	configurator.Space
	Key   Key
	Took  time.Duration // compile time (the load's, for a loaded space)
	Bytes int64         // memory held, as the space reports it (or estimates)
	// Sized: the space reports its own memory (configurator.Sizer), so
	// Bytes stays true. A space that does not may grow as it is used (the
	// SAT backend's solver keeps the clauses it learns), so the cache
	// retires it after Config.Recycle requests, counted by uses.
	Sized bool
	uses  atomic.Int64
	// used is when a request last asked for the space (Unix nanoseconds):
	// a space asked for within the cache's inUse is in use, and the cache
	// does not evict it to make room for another (see add).
	used atomic.Int64
}

// defaultInUse is how long after a request asked for a space the cache
// counts it as in use: a person clicks again within seconds, a script
// within milliseconds.
const defaultInUse = time.Minute

// compileFunc compiles the space a key names: the board's, or model
// src's.
type compileFunc func(ctx context.Context, k Key, src *source) (*Space, error)

// flight is a compile in progress. Every request that wants its key waits
// on done; when the last of them has given up and none has come back for
// the grace period, the compile is dropped (see abandon).
type flight struct {
	done    chan struct{}
	started time.Time
	res     *Space
	err     error
	waiters int
	cancel  context.CancelFunc
	idle    *time.Timer
	// running: the compile has its slot and its memory, and runs; until
	// then it waits for them. kept: the compile is one the server keeps
	// (see keeps), which goes on in the background when abandoned while
	// it runs. model: the compile of a feature model, which starts when
	// its turn comes whether or not a request waits for it then (a page
	// asks again only now and then; see reserve).
	running, kept, model bool
}

// maxRemembered bounds the failures and the sizes of spaces that did not
// fit that the cache remembers (see Cache and add): a key of every model
// uploaded could otherwise fill them.
const maxRemembered = 1 << 12

// remember sets m[k] to v, first forgetting another key, any one, when m
// holds maxRemembered: the bound is what matters.
func remember[V any](m map[Key]V, k Key, v V) {
	if _, ok := m[k]; !ok && len(m) >= maxRemembered {
		for old := range m {
			delete(m, old)
			break
		}
	}
	m[k] = v
}

// Cache holds compiled spaces, bounded in bytes and evicted least
// recently used first, and compiles each key once however many requests
// ask for it at the same time (single flight). A request that waits for a
// compile stops waiting when its context ends; the compile goes on for the
// others, and for Config.Grace after the last waiter left, so that a page
// showing progress can reconnect. Then a compile that has not started is
// dropped, and one that runs is cancelled, unless the server keeps what
// it makes, which goes on in the background: a board's whose backend
// saves it to its directory (every later start loads it), one such
// compile at a time, and a feature model's heavy compile (a BDD's, which
// the person reading the page meanwhile will want), each in its lane. A
// request whose context says NoWork (a HEAD) never starts nor joins a
// heavy compile.
//
// Heavy compiles (large BDDs, which take seconds and up to their node
// budget in memory; configurator.Cost says which of a board, Config.Budgets
// of a model) run at most Config.Slots at a time per lane: a board size
// each, so that a 12×12 compile never waits behind 14×14 ones, which take
// many times longer, and a backend each for feature models. Light
// compiles (small boards, the SAT backend's clauses) are never held back
// by the lanes. Every compile, heavy or light, waits at most its deadline
// for its lane (ErrBusy past it), then reserves its cost in bytes within
// the cache's bound, beside the spaces held and the other compiles,
// evicting spaces not in use to make room, and waits while there is none,
// at most its deadline too; one whose cost exceeds the whole bound fails
// at once with TooBig. Its reservation becomes its space's bytes when it
// ends.
//
// The cache never thrashes: a space that fits only by evicting spaces in
// use (asked for within inUse, a minute) is handed to the requests that
// waited for it but not kept, and its size is remembered, so that the next
// requests for it within inUse are refused at once with a Crowded error
// that says why, instead of compiling it again and again.
//
// Failures that would only repeat (a board or a model beyond the
// backend's limits, a model's compile past its deadline) are remembered,
// at most maxRemembered of them, so hostile clients cannot make the server
// retry a doomed compile; other failures (a cancellation, a board's
// deadline, no room in time) are not.
type Cache struct {
	backends map[string]configurator.Backend
	// unordered holds the backends whose spaces do not depend on the
	// order (Limits.Ordered false), read once: Limits may look at the
	// backend's files, and Key runs on every request.
	unordered map[string]bool
	cfg       Config
	log       *slog.Logger
	observe   Observer
	models    Models
	compile   compileFunc // c.build; tests wrap it
	heavy     func(Key) bool
	cost      func(Key, *source) int64 // bytes a compile reserves (see costOf); tests replace it
	keeps     func(Key) bool           // whether an abandoned compile goes on (see saves)
	inUse     time.Duration            // see defaultInUse
	ctx       context.Context          // parent of every compile and count; cancelled by Close
	stop      context.CancelFunc
	wg        sync.WaitGroup // the compiles
	// detached are the counts of empty boards that went on without the
	// compile's waiters (see countEmpty); Close waits for them too.
	detached sync.WaitGroup
	// counting holds, for each key whose compile is counting its empty
	// board's solutions, when the count began (time.Time); settling, for
	// each key whose fresh space is computing the answers it keeps (see
	// settle), when that began.
	counting, settling sync.Map

	mu       sync.Mutex
	lru      *list.List // of *Space, most recently used at the front
	index    map[Key]*list.Element
	used     int64 // bytes of the spaces held
	reserved int64 // bytes reserved by the compiles running
	// freed is closed, and replaced, whenever bytes are freed: compiles
	// waiting for room look again.
	freed chan struct{}
	// background is the abandoned compile that goes on (see keeps), if
	// any.
	background *flight
	flights    map[Key]*flight
	failed     map[Key]error
	// lanes are held by the heavy compiles (see lane).
	lanes map[lane]chan struct{}
	// sizes are the bytes of the spaces that did not fit (see add).
	sizes map[Key]int64
}

// Get returns the compiled space of k, compiling it when needed and waiting
// for it until ctx ends.
func (c *Cache) Get(ctx context.Context, k Key) (*Space, error) {
	c.mu.Lock()
	if e, ok := c.index[k]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		res := e.Value.(*Space)
		res.used.Store(time.Now().UnixNano())
		return res, nil
	}
	// A failure remembered, a space that would not fit, a key no compile
	// serves, the server shutting down and NoWork answer at once.
	err := cmp.Or(c.failed[k], c.refuse(k), c.usable(k))
	switch {
	case err != nil:
	case c.ctx.Err() != nil:
		err = errors.New("server is shutting down")
	case noWorkIn(ctx) && c.heavy(k):
		err = ErrNoWork
	}
	if err != nil {
		c.mu.Unlock()
		return nil, err
	}
	f := c.join(k)
	c.mu.Unlock()
	defer c.leave(k, f)
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Compiling reports whether k is being compiled (or loaded) and since
// when.
func (c *Cache) Compiling(k Key) (started time.Time, running bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.flights[k]; ok {
		return f.started, true
	}
	return time.Time{}, false
}

// Cached reports whether k's space is in the cache, without touching its
// place in the LRU order.
func (c *Cache) Cached(k Key) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.index[k]
	return ok
}

// Largest returns the largest board of a backend in the cache, 0 if none.
func (c *Cache) Largest(backend string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k := range c.index {
		if k.Backend == backend && k.Model == "" {
			n = max(n, k.N)
		}
	}
	return n
}

// Used returns the bytes held and the number of spaces cached.
func (c *Cache) Used() (bytes int64, spaces int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, c.lru.Len()
}

// closeWait bounds how long Close waits for the compiles it cancelled:
// work stuck in the kernel (a read from a hung mount) cannot be cancelled,
// and must not keep the process from exiting.
const closeWait = 10 * time.Second

// Close cancels the compiles in progress and the detached counts, and
// waits for them to return, at most closeWait.
func (c *Cache) Close() {
	c.stop()
	done := make(chan struct{})
	go func() {
		c.wg.Wait()
		c.detached.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeWait):
		c.log.Warn("compiles still under way at shutdown did not stop; leaving them", "after", closeWait)
	}
}

// join registers a waiter on k's flight, starting the flight when there is
// none. c.mu must be held.
func (c *Cache) join(k Key) *flight {
	f, ok := c.flights[k]
	if !ok {
		ctx, cancel := context.WithCancel(c.ctx)
		f = &flight{done: make(chan struct{}), started: time.Now(), cancel: cancel, kept: c.keeps(k), model: k.Model != ""}
		c.flights[k] = f
		c.wg.Add(1)
		go c.run(ctx, k, f)
	}
	if f.waiters++; f.waiters == 1 && !f.running {
		c.free() // a flight that waited for someone may start now
	}
	if f.idle != nil {
		f.idle.Stop()
		f.idle = nil
	}
	return f
}

// leave unregisters a waiter; the last one to leave an unfinished flight
// starts its grace period, at the end of which abandon drops it.
func (c *Cache) leave(k Key, f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f.waiters--
	if f.waiters > 0 || f.idle != nil {
		return
	}
	select {
	case <-f.done:
		return
	default:
	}
	f.idle = time.AfterFunc(c.cfg.Grace, func() { c.abandon(k, f) })
}

// abandon drops flight f of key k, which nobody has waited for since the
// grace period began: cancelled, unless it runs and is kept (see keeps)
// and, for a board, no other abandoned board compile goes on, in which
// case it goes on in the background. A model's kept compile holds a slot
// of its backend's lane, which bounds how many go on.
func (c *Cache) abandon(k Key, f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.waiters > 0 || c.flights[k] != f {
		return
	}
	if f.running && f.kept && (k.Model != "" || c.background == nil) {
		if k.Model == "" {
			c.background = f
		}
		c.log.Info("compile goes on in the background, nobody waiting", "space", k.String())
		return
	}
	delete(c.flights, k)
	f.cancel()
	c.log.Info("compile dropped, nobody waiting", "space", k.String(), "running", f.running)
}

// run compiles k for flight f, once a compile slot and the memory are
// free: for a model, once the model is read.
func (c *Cache) run(ctx context.Context, k Key, f *flight) {
	defer c.wg.Done()
	defer f.cancel()
	var need int64
	var res *Space
	src, err := c.read(ctx, k)
	if err == nil {
		need = c.cost(k, src)
		res, err = c.admit(ctx, k, src, f, need)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.running {
		c.reserved -= need
		c.free()
	}
	if c.background == f {
		c.background = nil
	}
	if c.flights[k] == f {
		delete(c.flights, k)
	}
	if f.idle != nil {
		f.idle.Stop()
	}
	f.res, f.err = res, err
	close(f.done)
	var tooBig *TooBig
	switch {
	case err == nil:
		c.add(res)
	case errors.Is(err, configurator.ErrTooLarge) && !errors.As(err, &tooBig):
		remember(c.failed, k, err)
	}
}

// admit waits for k's slot in its lane, when heavy, then for need bytes of
// the cache's bound, each at most the compile's deadline, and compiles k
// (model src for a model's key).
func (c *Cache) admit(ctx context.Context, k Key, src *source, f *flight, need int64) (*Space, error) {
	if need > c.cfg.Bytes {
		return nil, c.tooBig(k, need)
	}
	wctx, cancel := context.WithTimeout(ctx, c.deadline(k))
	defer cancel()
	if c.heavy(k) {
		lane := c.lane(k)
		select {
		case lane <- struct{}{}:
			defer func() { <-lane }()
		case <-wctx.Done():
			return nil, c.waited(ctx, k, "a compile slot")
		}
	}
	if err := c.reserve(wctx, f, need); err != nil {
		return nil, c.waited(ctx, k, "memory the server's other compiles hold")
	}
	return c.compile(ctx, k, src)
}

// waited is the error of a compile of k that waited for what in vain:
// ctx's error when ctx ended (the server shuts down, or the compile was
// abandoned), else ErrBusy, as the compile's deadline passed first. The
// server was busy: that is not remembered.
func (c *Cache) waited(ctx context.Context, k Key, what string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	err := fmt.Errorf("%s: the compile waited %v for %s: %w", k, c.deadline(k), what, configurator.ErrBusy)
	c.log.Warn("compile not started", "space", k.String(), "err", err)
	return err
}

// reserve waits until need bytes fit within the cache's bound beside the
// spaces in use and the compiles running, evicting spaces not in use to
// make room, and reserves them for f, which then runs. A board's flight
// nobody waits for does not start even when its turn comes: it waits for
// a request to come back within the grace period (a page showing progress
// reconnects), or for abandon to cancel it, never having run. A model's
// starts: the page that asked for it asks again only every few seconds,
// each time briefly, and must find it under way.
func (c *Cache) reserve(ctx context.Context, f *flight, need int64) error {
	for {
		c.mu.Lock()
		if (f.waiters > 0 || f.model) && c.makeRoom(need) {
			c.reserved += need
			f.running = true
			c.mu.Unlock()
			return nil
		}
		freed := c.freed
		c.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// makeRoom reports whether need bytes fit within the cache's bound beside
// the spaces in use and the compiles running, evicting the least recently
// used spaces not in use until they fit; when they cannot fit, it evicts
// nothing. c.mu must be held.
func (c *Cache) makeRoom(need int64) bool {
	if need > c.room()-c.reserved {
		return false
	}
	since := time.Now().Add(-c.inUse).UnixNano()
	for e := c.lru.Back(); c.used+c.reserved+need > c.cfg.Bytes && e != nil; {
		prev := e.Prev()
		if old := e.Value.(*Space); old.used.Load() < since {
			c.evict(e)
		}
		e = prev
	}
	return true
}

// free tells the compiles waiting for room to look again. c.mu must be
// held.
func (c *Cache) free() {
	close(c.freed)
	c.freed = make(chan struct{})
}

// evict drops the space of element e from the cache, and stops the
// background work of one that does some (a BDD precomputing the boards of
// one queen: io.Closer); requests still holding it are answered as before.
// c.mu must be held.
func (c *Cache) evict(e *list.Element) {
	old := e.Value.(*Space)
	c.lru.Remove(e)
	delete(c.index, old.Key)
	c.used -= old.Bytes
	if cl, ok := old.Space.(io.Closer); ok {
		cl.Close()
	}
	c.free()
}

// TooBig is the error of a space whose compile costs more than the whole
// bound of the cache: it wraps configurator.ErrTooLarge. Largest is the
// largest board of the same backend and order whose compile fits, 0 if
// none does.
type TooBig struct {
	Key         Key
	Need, Bound int64
	Largest     int
}

func (e *TooBig) Error() string {
	return fmt.Sprintf("%s: compiling it takes about %s, more than the %s of the cache of compiled spaces: %v",
		e.Key, bytesize.Format(e.Need), bytesize.Format(e.Bound), configurator.ErrTooLarge)
}

func (e *TooBig) Unwrap() error { return configurator.ErrTooLarge }

// tooBig is the TooBig error of k, which needs need bytes.
func (c *Cache) tooBig(k Key, need int64) *TooBig {
	e := &TooBig{Key: k, Need: need, Bound: c.cfg.Bytes}
	for n := k.N - 1; n >= 1; n-- {
		if c.cost(Key{Backend: k.Backend, N: n, Order: k.Order}, nil) <= c.cfg.Bytes {
			e.Largest = n
			break
		}
	}
	return e
}

// lane names the heavy compiles that share Config.Slots: those of one
// board size (backend ""), or a backend's of feature models (n 0).
type lane struct {
	backend string
	n       int
}

// lane returns the lane of k's heavy compile: its board size's, or its
// backend's for a model.
func (c *Cache) lane(k Key) chan struct{} {
	name := lane{n: k.N}
	if k.Model != "" {
		name = lane{backend: k.Backend}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.lanes[name]
	if !ok {
		l = make(chan struct{}, max(c.cfg.Slots, 1))
		c.lanes[name] = l
	}
	return l
}

// room returns the bytes the cache can give a new space: those free, and
// those of the spaces not in use. c.mu must be held.
func (c *Cache) room() int64 {
	free := c.cfg.Bytes - c.used
	since := time.Now().Add(-c.inUse).UnixNano()
	for e := c.lru.Back(); e != nil; e = e.Prev() {
		if old := e.Value.(*Space); old.used.Load() < since {
			free += old.Bytes
		}
	}
	return free
}

// refuse returns the error that refuses to compile k again when k's space
// once did not fit beside the spaces in use and still does not, nil
// otherwise. c.mu must be held.
func (c *Cache) refuse(k Key) error {
	need, ok := c.sizes[k]
	if !ok {
		return nil
	}
	if room := c.room() - c.reserved; need > room {
		return &Crowded{Key: k, Need: need, Room: max(room, 0), Bound: c.cfg.Bytes, Retry: c.inUse}
	}
	return nil
}

// Crowded is the error of a space that fits in the cache only by evicting
// spaces in use: it wraps configurator.ErrBusy, and Retry says when the
// spaces in use may no longer be.
type Crowded struct {
	Key        Key
	Need, Room int64 // bytes the space needs, bytes free beside the spaces in use
	Bound      int64 // the cache's bound
	Retry      time.Duration
}

func (e *Crowded) Error() string {
	return fmt.Sprintf("%s: %s needed, %s free in the cache beside the spaces in use: %v",
		e.Key, bytesize.Format(e.Need), bytesize.Format(e.Room), configurator.ErrBusy)
}

func (e *Crowded) Unwrap() error { return configurator.ErrBusy }

// RetireUnsized drops every space that does not report its memory (see
// Space.Sized) and returns how many it dropped.
func (c *Cache) RetireUnsized() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*Space); !e.Sized {
			c.evict(el)
			n++
		}
		el = next
	}
	return n
}

// add puts a space into the cache and evicts the least recently used ones
// beyond the byte bound. A space larger than the whole bound is handed to
// its waiters but not kept; so is one that fits only by evicting spaces in
// use (its compile reserved less than it holds), whose size is remembered
// (see refuse). c.mu must be held.
func (c *Cache) add(res *Space) {
	res.used.Store(time.Now().UnixNano())
	if res.Bytes > c.cfg.Bytes {
		return
	}
	if old, ok := c.index[res.Key]; ok {
		c.evict(old)
	}
	if res.Bytes > c.room()-c.reserved {
		remember(c.sizes, res.Key, res.Bytes)
		return
	}
	delete(c.sizes, res.Key)
	c.index[res.Key] = c.lru.PushFront(res)
	c.used += res.Bytes
	// res fit beside the spaces in use: evicting those not in use brings
	// the cache back within its bound.
	c.makeRoom(0)
}
