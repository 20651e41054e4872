package guard

import (
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

// off reports whether the quota bounds nothing.
func (q Quota) off() bool { return q.Rate <= 0 && q.Concurrent <= 0 }

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

// Clients idle this long are forgotten (their bucket is full again by
// then at any rate worth setting), and the table is swept at most this
// often.
const (
	clientExpiry  = 3 * time.Minute
	clientSweep   = time.Minute
	maxClientKeys = 1 << 16 // beyond, a sweep runs at once; a client that still finds no room is refused
)

// clients keeps, per client address, a token bucket and the number of
// requests in flight. A loopback address has its own quota: on loopback
// is the person who runs the server, scripting it.
type clients struct {
	public, loopback Quota

	mu      sync.Mutex
	clients map[string]*client
	swept   time.Time
}

// client is one address's state.
type client struct {
	bucket   *rate.Limiter // nil without a rate limit
	inFlight int
	seen     time.Time
}

func newClients(public, loopback Quota) *clients {
	return &clients{public: public, loopback: loopback, clients: make(map[string]*client)}
}

// clientKey is the key of the quota of a client address: the address
// itself for IPv4, its /64 network for IPv6 (one host commonly holds a
// whole /64, and would otherwise have 2^64 fresh buckets).
func clientKey(addr string) (key string, loopback bool) {
	ip := net.ParseIP(addr)
	if ip == nil {
		return addr, false
	}
	if ip.IsLoopback() {
		return ip.String(), true
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64", false
	}
	return ip.String(), false
}

// admit counts a request of addr in and returns the function that counts
// it out, or the problem that refuses it: a 429 with the seconds to wait
// for a client over its quota, a 503 when the table of clients is full.
func (l *clients) admit(addr string, now time.Time) (done func(), refused *problem.Problem) {
	key, loop := clientKey(addr)
	q := l.public
	if loop {
		q = l.loopback
	}
	if q.off() {
		return func() {}, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cl := l.clients[key]
	if cl == nil {
		if len(l.clients) >= maxClientKeys || now.Sub(l.swept) >= clientSweep {
			l.sweep(now)
		}
		if len(l.clients) >= maxClientKeys {
			return nil, &problem.Problem{Status: http.StatusServiceUnavailable, RetryAfter: 1,
				Message: "This server is answering too many addresses at once. Please try again in a moment."}
		}
		cl = &client{}
		if q.Rate > 0 {
			cl.bucket = rate.NewLimiter(rate.Limit(q.Rate), q.Burst)
		}
		l.clients[key] = cl
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

// sweep forgets the clients idle for clientExpiry with nothing in flight.
// The caller holds l.mu.
func (l *clients) sweep(now time.Time) {
	for k, cl := range l.clients {
		if cl.inFlight == 0 && now.Sub(cl.seen) >= clientExpiry {
			delete(l.clients, k)
		}
	}
	l.swept = now
}
