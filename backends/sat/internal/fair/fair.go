// Package fair shares a bounded number of turns among clients, so that one
// client asking for many cannot keep the others waiting: a client holds at
// most its share of the turns at once, its waiters wait in a queue of their
// own, bounded, and a turn given back goes to the next client with a
// waiter, round robin, not to whoever asked first. A caller that gave a
// turn up with work left (Requeue) waits behind the others.
//
// A client is a string, as configurator.ClientOf gives it; the empty string
// is the process's own work (the command line, tests, benchmarks), to which
// the share does not apply: it may hold every turn.
package fair

import (
	"context"
	"errors"
	"sync"
)

// ErrFull is returned by Acquire when the caller's client, or the whole
// Sem, already has as many waiters as its bound.
var ErrFull = errors.New("too many waiting")

// Bounds are the sizes of a Sem: its turns, a client's share of them, and
// its queues.
type Bounds struct {
	// Turns is how many turns may be held at once, at least 1.
	Turns int
	// Share is the most turns one named client holds at once; 0 means
	// Turns.
	Share int
	// ClientQueue bounds the waiters of one client; 0 means no bound.
	ClientQueue int
	// Queue bounds the waiters of all clients together; 0 means no bound.
	Queue int
}

// Sem is a semaphore of Bounds.Turns turns served fairly among clients.
// It is safe for concurrent use.
type Sem struct {
	bounds Bounds

	mu      sync.Mutex
	free    int
	waiting int
	clients map[string]*client
	ring    []*client // clients with waiters, in the order they are served
	next    int       // index in ring of the client served next
}

// client is one client's turns held and its waiters, first come first
// served among themselves.
type client struct {
	id      string
	held    int
	waiters []*waiter
}

// waiter is one Acquire waiting; ready is closed when it gets its turn.
// behind marks a Requeue.
type waiter struct {
	ready   chan struct{}
	granted bool
	behind  bool
}

// New returns a Sem of the given bounds.
func New(bounds Bounds) *Sem {
	bounds.Turns = max(bounds.Turns, 1)
	if bounds.Share <= 0 || bounds.Share > bounds.Turns {
		bounds.Share = bounds.Turns
	}
	return &Sem{bounds: bounds, free: bounds.Turns, clients: make(map[string]*client)}
}

// Turns is the number of turns of s.
func (s *Sem) Turns() int { return s.bounds.Turns }

// Acquire waits for a turn for client id and returns the function that
// gives it back (calling it more than once gives it back once). A caller
// finding its client's queue or the whole Sem's full fails at once with
// ErrFull; a caller whose ctx ends while it waits gets ctx's error.
func (s *Sem) Acquire(ctx context.Context, id string) (release func(), err error) {
	return s.acquire(ctx, id, false)
}

// Requeue is Acquire for a caller that has just given a turn up with its
// work unfinished (a call stopped to let another client in, going on): it
// is served only when no caller of Acquire that may take the turn waits,
// round robin among its kind. So a client whose calls are short is served
// at the next turn given back, however many clients with long calls wait.
func (s *Sem) Requeue(ctx context.Context, id string) (release func(), err error) {
	return s.acquire(ctx, id, true)
}

func (s *Sem) acquire(ctx context.Context, id string, behind bool) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	c := s.clients[id]
	if c == nil {
		c = &client{id: id}
		s.clients[id] = c
	}
	if s.free > 0 && s.mayHold(c) {
		// Nobody eligible waits: had someone, the last release would
		// have served them.
		s.free--
		c.held++
		s.mu.Unlock()
		return s.releaser(c), nil
	}
	if s.bounds.ClientQueue > 0 && len(c.waiters) >= s.bounds.ClientQueue || s.bounds.Queue > 0 && s.waiting >= s.bounds.Queue {
		s.forget(c)
		s.mu.Unlock()
		return nil, ErrFull
	}
	w := &waiter{ready: make(chan struct{}), behind: behind}
	if len(c.waiters) == 0 {
		s.ring = append(s.ring, c)
	}
	c.waiters = append(c.waiters, w)
	s.waiting++
	s.mu.Unlock()

	select {
	case <-w.ready:
		return s.releaser(c), nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	if w.granted { // served as ctx ended: give the turn back
		s.mu.Unlock()
		s.releaser(c)()
		return nil, ctx.Err()
	}
	for i, x := range c.waiters {
		if x == w {
			c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
			break
		}
	}
	s.waiting--
	if len(c.waiters) == 0 {
		s.leaveRing(c)
	}
	s.forget(c)
	s.mu.Unlock()
	return nil, ctx.Err()
}

// Held reports how many turns are held.
func (s *Sem) Held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bounds.Turns - s.free
}

// Waiting reports how many callers wait for a turn.
func (s *Sem) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting
}

// Wanted reports whether a caller waits whose client may take a turn:
// one that a turn given back would serve.
func (s *Sem) Wanted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.ring {
		if s.mayHold(c) {
			return true
		}
	}
	return false
}

// mayHold reports whether c may take one more turn.
func (s *Sem) mayHold(c *client) bool { return c.id == "" || c.held < s.bounds.Share }

// releaser returns the function that gives c's turn back, once.
func (s *Sem) releaser(c *client) func() {
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		c.held--
		s.free++
		s.serve()
		s.forget(c)
	})
}

// serve gives the free turns to the waiters of the clients in the ring, in
// turn, skipping those holding their share, and those whose next waiter
// is a Requeue while a client's next is not.
func (s *Sem) serve() {
	for s.free > 0 && len(s.ring) > 0 {
		ahead := false // a client that may hold has a waiter not behind
		for _, c := range s.ring {
			if s.mayHold(c) && !c.waiters[0].behind {
				ahead = true
				break
			}
		}
		served := false
		for range len(s.ring) {
			if s.next >= len(s.ring) {
				s.next = 0
			}
			c := s.ring[s.next]
			if !s.mayHold(c) || ahead && c.waiters[0].behind {
				s.next++
				continue
			}
			w := c.waiters[0]
			c.waiters = c.waiters[1:]
			s.waiting--
			s.free--
			c.held++
			w.granted = true
			close(w.ready)
			if len(c.waiters) == 0 {
				s.leaveRing(c) // the next client slides into s.next
			} else {
				s.next++
			}
			served = true
			break
		}
		if !served {
			return
		}
	}
}

// leaveRing takes c, which has no waiter left, out of the ring.
func (s *Sem) leaveRing(c *client) {
	i := 0
	for i < len(s.ring) && s.ring[i] != c {
		i++
	}
	if i == len(s.ring) {
		return
	}
	s.ring = append(s.ring[:i], s.ring[i+1:]...)
	if i < s.next {
		s.next--
	}
}

// forget drops c's entry when it neither holds nor waits, so that the map
// holds only clients with work.
func (s *Sem) forget(c *client) {
	if c.held == 0 && len(c.waiters) == 0 {
		delete(s.clients, c.id)
	}
}
