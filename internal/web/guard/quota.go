package guard

import (
	"container/list"
	"fmt"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
	"golang.org/x/time/rate"
)

// Quota bounds the requests of one client address on every route that
// does work (Guard.Quotas says which are free): Rate requests a second
// with bursts of up to Burst (Rate 0: no rate limit), and at most
// Concurrent requests in flight at once (0: no cap). A request beyond
// either is answered 429 with Retry-After at once, computing nothing.
type Quota struct {
	Rate       float64
	Burst      int
	Concurrent int
}

// Check validates a quota; name is the prefix of its flags.
func (q Quota) Check(name string) error {
	switch {
	case q.Rate < 0 || math.IsNaN(q.Rate) || math.IsInf(q.Rate, 0):
		return fmt.Errorf("-%srate must be a finite number, 0 or more (0: no limit)", name)
	case q.Rate > 0 && q.Burst < 1:
		return fmt.Errorf("-%sburst must be at least 1 when -%srate is set", name, name)
	case q.Concurrent < 0:
		return fmt.Errorf("-%sconcurrent must not be negative (0: no cap)", name)
	}
	return nil
}

// The table of clients holds at most maxClientKeys of them; a new client
// in a full table takes the place of the one seen least recently (with
// nothing in flight), whose bucket is full again when it comes back. A
// client idle for clientExpiry is forgotten (its bucket is full again by
// then at any rate worth setting).
const (
	clientExpiry  = 3 * time.Minute
	maxClientKeys = 1 << 16
)

// clients keeps, per client key (see key), a token bucket and the number
// of requests in flight, the most recently seen first. A loopback address
// has its own quota: on loopback is the person who runs the server,
// scripting it.
type clients struct {
	public, loopback Quota
	max              int // keys held at most

	mu      sync.Mutex
	clients map[string]*list.Element // of *client
	lru     list.List                // of *client, the most recently seen at the front
}

// client is one key's state.
type client struct {
	key      string
	bucket   *rate.Limiter // nil without a rate limit
	inFlight int
	seen     time.Time
}

func newClients(public, loopback Quota) *clients {
	return &clients{public: public, loopback: loopback, max: maxClientKeys, clients: make(map[string]*list.Element)}
}

// key is the key of the quota of a client address: the address itself for
// IPv4, its network for IPv6, one host commonly holding a whole /64 (which
// would otherwise have 2^64 fresh buckets). The network is the /64 while
// the table is at most half full; past that, a /56, and past three
// quarters a /48 (a site's usual allocation), so that the addresses of one
// network cannot fill the table; a network already counted by a shorter
// prefix stays counted by it. The caller holds l.mu.
func (l *clients) key(ip net.IP) string {
	if ip.To4() != nil || ip.IsLoopback() {
		return ip.String()
	}
	for _, bits := range [...]int{48, 56} {
		if k := prefixKey(ip, bits); l.clients[k] != nil {
			return k
		}
	}
	bits := 64
	switch n := len(l.clients); {
	case n >= l.max*3/4:
		bits = 48
	case n >= l.max/2:
		bits = 56
	}
	return prefixKey(ip, bits)
}

func prefixKey(ip net.IP, bits int) string {
	return fmt.Sprintf("%s/%d", ip.Mask(net.CIDRMask(bits, 128)), bits)
}

// admit counts a request of addr in and returns the function that counts
// it out, or the problem that refuses it: a 429 with the seconds to wait
// for a client over its quota, a 503 in the rare case of a table full of
// clients with requests in flight.
func (l *clients) admit(addr string, now time.Time) (done func(), refused *problem.Problem) {
	ip := net.ParseIP(addr)
	loop := ip != nil && ip.IsLoopback()
	q := l.public
	if loop {
		q = l.loopback
	}
	if q.Rate <= 0 && q.Concurrent <= 0 { // the quota bounds nothing
		return func() {}, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	key := addr
	if ip != nil {
		key = l.key(ip)
	}
	var cl *client
	if e := l.clients[key]; e != nil {
		cl = e.Value.(*client)
		l.lru.MoveToFront(e)
	} else {
		if !l.room(now) {
			return nil, &problem.Problem{Status: http.StatusServiceUnavailable, RetryAfter: 1,
				Message: "This server is answering too many addresses at once. Please try again in a moment."}
		}
		cl = &client{key: key}
		if q.Rate > 0 {
			cl.bucket = rate.NewLimiter(rate.Limit(q.Rate), q.Burst)
		}
		l.clients[key] = l.lru.PushFront(cl)
	}
	cl.seen = now
	if q.Concurrent > 0 && cl.inFlight >= q.Concurrent {
		return nil, &problem.Problem{Status: http.StatusTooManyRequests, RetryAfter: 1,
			Message: fmt.Sprintf("Too many requests at once from your address: this server works on %d at a time for each address. Wait for an answer before asking again.", q.Concurrent)}
	}
	if cl.bucket != nil {
		r := cl.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); !r.OK() || d > 0 {
			r.CancelAt(now)
			wait := 1
			if r.OK() {
				wait = max(1, int(math.Ceil(d.Seconds())))
			}
			return nil, &problem.Problem{Status: http.StatusTooManyRequests, RetryAfter: wait,
				Message: fmt.Sprintf("Too many requests from your address: this server answers %g a second for each address (bursts of %d). Please slow down: try again in %s.", q.Rate, q.Burst, words.Seconds(wait))}
		}
	}
	cl.inFlight++
	return func() {
		l.mu.Lock()
		cl.inFlight--
		l.mu.Unlock()
	}, nil
}

// room makes room in the table for a new client and reports whether there
// is some: it forgets the clients idle for clientExpiry, then, in a full
// table, the one seen least recently with nothing in flight. The caller
// holds l.mu.
func (l *clients) room(now time.Time) bool {
	for e := l.lru.Back(); e != nil; {
		prev := e.Prev()
		cl := e.Value.(*client)
		if len(l.clients) < l.max && now.Sub(cl.seen) < clientExpiry {
			break // the others were seen more recently still
		}
		if cl.inFlight == 0 {
			delete(l.clients, cl.key)
			l.lru.Remove(e)
		}
		e = prev
	}
	return len(l.clients) < l.max
}
