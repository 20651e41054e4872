package server

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// spaceKey names one compiled space: a backend, a board size and a variable
// order (the SAT backend ignores the order, so its keys always say row).
type spaceKey struct {
	backend string
	n       int
	order   configurator.Order
}

// close stops the background work of an evicted space that does some (a
// BDD precomputing the boards of one queen: io.Closer); requests still
// holding it are answered as before.
func (e *compiled) close() {
	if c, ok := e.space.(io.Closer); ok {
		c.Close()
	}
}

// loaded reports whether e's space was loaded from a file, not compiled.
func (e *compiled) loaded() bool {
	src, ok := e.space.(configurator.Sourcer)
	return ok && src.Source() != ""
}

// compiled is a compiled space with what the page shows about it.
type compiled struct {
	key   spaceKey
	space configurator.Space
	took  time.Duration // compile time
	bytes int64         // memory held, as the space reports it (or estimates)
	// total is the count of the empty board's solutions, nil until it
	// is known (see Total): the count may end after the space is cached.
	total atomic.Pointer[emptyCount]
	// sized: the space reports its own memory (configurator.Sizer), so
	// bytes stays true. A space that does not may grow as it is used (the
	// SAT backend's solver keeps the clauses it learns), so the server
	// retires it after a number of requests, counted by uses.
	sized bool
	uses  atomic.Int64
	// used is when a request last asked for the space (Unix nanoseconds):
	// a space asked for within the cache's inUse is in use, and the cache
	// does not evict it to make room for another (see add).
	used atomic.Int64
}

// emptyCount is the count of an empty board's solutions; atLeast marks
// it as a lower bound.
type emptyCount struct {
	n       *big.Int
	atLeast bool
}

// Total returns the number of solutions of e's empty board, and whether it
// is a lower bound; nil while it is not known (the backend does not count,
// or the count has not ended: it goes on detached from the compile, see
// Server.countEmpty, and fills it in with setTotal).
func (e *compiled) Total() (n *big.Int, atLeast bool) {
	if c := e.total.Load(); c != nil {
		return c.n, c.atLeast
	}
	return nil, false
}

// setTotal records the count of e's empty board from its analysis a, or
// from err: ErrNoSolution counts none; another error, or no analysis,
// leaves the total unknown. Safe for use while requests read it.
func (e *compiled) setTotal(a *configurator.Analysis, err error) {
	switch {
	case errors.Is(err, configurator.ErrNoSolution):
		e.total.Store(&emptyCount{n: new(big.Int)})
	case err != nil || a == nil || a.Solutions == nil:
	default:
		e.total.Store(&emptyCount{n: a.Solutions, atLeast: a.AtLeast})
	}
}

// defaultInUse is how long after a request asked for a space the cache
// counts it as in use: a person clicks again within seconds, a script
// within milliseconds.
const defaultInUse = time.Minute

// compileFunc compiles the space a key names.
type compileFunc func(ctx context.Context, k spaceKey) (*compiled, error)

// flight is a compile in progress. Every request that wants its key waits
// on done; when the last of them has given up and none has come back for
// the grace period, the compile is cancelled.
type flight struct {
	done    chan struct{}
	started time.Time
	res     *compiled
	err     error
	waiters int
	cancel  context.CancelFunc
	idle    *time.Timer
}

// spaceCache holds compiled spaces, bounded in bytes and evicted least
// recently used first, and compiles each key once however many requests
// ask for it at the same time (single flight). A request that waits for a
// compile stops waiting when its context ends; the compile goes on for the
// others, and for grace after the last waiter left, so that a page showing
// progress can reconnect.
//
// Heavy compiles (large BDDs, which take seconds and up to their node
// budget in memory) run at most slots at a time per board size, each size
// in a lane of its own: a 12×12 compile (a third of a second) never waits
// behind 14×14 ones (ten seconds each). Since a board takes about a fifth
// of the next size's memory, the smaller lanes add at most a quarter to
// the memory of the largest compiles. Light compiles (small boards, the
// SAT backend's microseconds) are never held back.
//
// The cache never thrashes: a space that fits only by evicting spaces in
// use (asked for within inUse, a minute) is handed to the requests that waited for
// it but not kept, and its size is remembered, so that the next requests
// for it within inUse are refused at once with a 503 that says why,
// instead of compiling it again and again.
//
// Failures that would only repeat (a board beyond the backend's limits)
// are remembered, so hostile clients cannot make the server retry a doomed
// compile; other failures (a deadline, a cancellation) are not.
type spaceCache struct {
	compile  compileFunc
	maxBytes int64
	grace    time.Duration
	heavy    func(spaceKey) bool
	slots    int             // heavy compiles at once per board size
	inUse    time.Duration   // see defaultInUse
	ctx      context.Context // parent of every compile; cancelled by Close
	stop     context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	lru     *list.List // of *compiled, most recently used at the front
	index   map[spaceKey]*list.Element
	used    int64
	flights map[spaceKey]*flight
	failed  map[spaceKey]error
	// lanes[n] is held by each heavy compile of an n×n board.
	lanes map[int]chan struct{}
	// sizes are the bytes of the spaces that did not fit (see add).
	sizes map[spaceKey]int64
}

// newSpaceCache returns a cache of at most maxBytes that compiles with
// compile, at most slots of the compiles heavy reports at a time.
func newSpaceCache(compile compileFunc, maxBytes int64, heavy func(spaceKey) bool, slots int, grace time.Duration) *spaceCache {
	ctx, stop := context.WithCancel(context.Background())
	return &spaceCache{
		compile:  compile,
		maxBytes: maxBytes,
		grace:    grace,
		heavy:    heavy,
		slots:    max(slots, 1),
		inUse:    defaultInUse,
		ctx:      ctx,
		stop:     stop,
		lru:      list.New(),
		index:    make(map[spaceKey]*list.Element),
		flights:  make(map[spaceKey]*flight),
		failed:   make(map[spaceKey]error),
		lanes:    make(map[int]chan struct{}),
		sizes:    make(map[spaceKey]int64),
	}
}

// Get returns the compiled space of k, compiling it when needed and waiting
// for it until ctx ends.
func (c *spaceCache) Get(ctx context.Context, k spaceKey) (*compiled, error) {
	c.mu.Lock()
	if e, ok := c.index[k]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		res := e.Value.(*compiled)
		res.used.Store(time.Now().UnixNano())
		return res, nil
	}
	if err, ok := c.failed[k]; ok {
		c.mu.Unlock()
		return nil, err
	}
	if err := c.refuse(k); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	if err := c.ctx.Err(); err != nil {
		c.mu.Unlock()
		return nil, errors.New("server is shutting down")
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

// Progress reports whether k is being compiled and since when.
func (c *spaceCache) Progress(k spaceKey) (started time.Time, running bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.flights[k]; ok {
		return f.started, true
	}
	return time.Time{}, false
}

// Cached reports whether k's space is in the cache, without touching its
// place in the LRU order.
func (c *spaceCache) Cached(k spaceKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.index[k]
	return ok
}

// Took returns the compile time of a cached space.
func (c *spaceCache) Took(k spaceKey) (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[k]; ok {
		return e.Value.(*compiled).took, true
	}
	return 0, false
}

// Largest returns the largest board of a backend in the cache, 0 if none.
func (c *spaceCache) Largest(backend string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k := range c.index {
		if k.backend == backend {
			n = max(n, k.n)
		}
	}
	return n
}

// Used returns the bytes held and the number of spaces cached.
func (c *spaceCache) Used() (bytes int64, spaces int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used, c.lru.Len()
}

// Close cancels the compiles in progress and waits for them to return.
func (c *spaceCache) Close() {
	c.stop()
	c.wg.Wait()
}

// join registers a waiter on k's flight, starting the flight when there is
// none. c.mu must be held.
func (c *spaceCache) join(k spaceKey) *flight {
	f, ok := c.flights[k]
	if !ok {
		ctx, cancel := context.WithCancel(c.ctx)
		f = &flight{done: make(chan struct{}), started: time.Now(), cancel: cancel}
		c.flights[k] = f
		c.wg.Add(1)
		go c.run(ctx, k, f)
	}
	f.waiters++
	if f.idle != nil {
		f.idle.Stop()
		f.idle = nil
	}
	return f
}

// leave unregisters a waiter; the last one to leave an unfinished flight
// starts its grace period.
func (c *spaceCache) leave(k spaceKey, f *flight) {
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
	f.idle = time.AfterFunc(c.grace, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if f.waiters > 0 || c.flights[k] != f {
			return
		}
		delete(c.flights, k)
		f.cancel()
	})
}

// run compiles k for flight f, once a compile slot is free.
func (c *spaceCache) run(ctx context.Context, k spaceKey, f *flight) {
	defer c.wg.Done()
	defer f.cancel()
	var res *compiled
	var err error
	if c.heavy(k) {
		lane := c.lane(k.n)
		select {
		case lane <- struct{}{}:
			res, err = c.compile(ctx, k)
			<-lane
		case <-ctx.Done():
			err = ctx.Err()
		}
	} else {
		res, err = c.compile(ctx, k)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flights[k] == f {
		delete(c.flights, k)
	}
	if f.idle != nil {
		f.idle.Stop()
	}
	f.res, f.err = res, err
	close(f.done)
	switch {
	case err == nil:
		c.add(res)
	case errors.Is(err, configurator.ErrTooLarge):
		c.failed[k] = err
	}
}

// lane returns the lane of the heavy compiles of n×n boards.
func (c *spaceCache) lane(n int) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.lanes[n]
	if !ok {
		l = make(chan struct{}, c.slots)
		c.lanes[n] = l
	}
	return l
}

// room returns the bytes the cache can give a new space: those free, and
// those of the spaces not in use. c.mu must be held.
func (c *spaceCache) room() int64 {
	free := c.maxBytes - c.used
	since := time.Now().Add(-c.inUse).UnixNano()
	for e := c.lru.Back(); e != nil; e = e.Prev() {
		if old := e.Value.(*compiled); old.used.Load() < since {
			free += old.bytes
		}
	}
	return free
}

// refuse returns the error that refuses to compile k again when k's space
// once did not fit beside the spaces in use and still does not, nil
// otherwise. c.mu must be held.
func (c *spaceCache) refuse(k spaceKey) error {
	need, ok := c.sizes[k]
	if !ok {
		return nil
	}
	if room := c.room(); need > room {
		return c.crowded(k, need, room)
	}
	return nil
}

// crowded is the error of a space of need bytes that fits only by evicting
// spaces in use: a 503 that says so, wrapping configurator.ErrBusy.
func (c *spaceCache) crowded(k spaceKey, need, room int64) error {
	return &problem{
		Status:     http.StatusServiceUnavailable,
		RetryAfter: max(int(c.inUse/time.Second), 1),
		Message: fmt.Sprintf("The %d×%d %s space needs %s, and the server's cache of compiled spaces (%s) has only %s free beside the spaces other people are using. Try a smaller board, or again later.",
			k.n, k.n, k.backend, bytesize.Format(need), bytesize.Format(c.maxBytes), bytesize.Format(max(room, 0))),
		err: fmt.Errorf("%s %d×%d %v: %s needed, %s free in the cache beside the spaces in use: %w",
			k.backend, k.n, k.n, k.order, bytesize.Format(need), bytesize.Format(max(room, 0)), configurator.ErrBusy),
	}
}

// Retire drops e from the cache, if it is still there, so that the next
// request for its key compiles it afresh. Requests using e go on with it.
func (c *spaceCache) Retire(e *compiled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[e.key]
	if !ok || el.Value.(*compiled) != e {
		return
	}
	c.lru.Remove(el)
	delete(c.index, e.key)
	c.used -= e.bytes
	e.close()
}

// RetireUnsized drops every space that does not report its memory (see
// compiled.sized) and returns how many it dropped.
func (c *spaceCache) RetireUnsized() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if e := el.Value.(*compiled); !e.sized {
			c.lru.Remove(el)
			delete(c.index, e.key)
			c.used -= e.bytes
			e.close()
			n++
		}
		el = next
	}
	return n
}

// add puts a space into the cache and evicts the least recently used ones
// beyond the byte bound. A space larger than the whole bound is handed to
// its waiters but not kept; so is one that fits only by evicting spaces in
// use, whose size is remembered (see refuse). c.mu must be held.
func (c *spaceCache) add(res *compiled) {
	res.used.Store(time.Now().UnixNano())
	if res.bytes > c.maxBytes {
		return
	}
	if old, ok := c.index[res.key]; ok {
		c.used -= old.Value.(*compiled).bytes
		old.Value.(*compiled).close()
		c.lru.Remove(old)
		delete(c.index, res.key)
	}
	if res.bytes > c.room() {
		c.sizes[res.key] = res.bytes
		return
	}
	delete(c.sizes, res.key)
	c.index[res.key] = c.lru.PushFront(res)
	c.used += res.bytes
	since := time.Now().Add(-c.inUse).UnixNano()
	for e := c.lru.Back(); c.used > c.maxBytes && e != nil; {
		prev := e.Prev()
		if old := e.Value.(*compiled); old.used.Load() < since {
			c.lru.Remove(e)
			delete(c.index, old.key)
			c.used -= old.bytes
			old.close()
		}
		e = prev
	}
}
