package server

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"
)

// ClientLimit bounds the requests of one client address on every route
// that does work (pages, /play, /diagram.svg, the progress stream and the
// API; the static files and /healthz are free): Rate requests a second
// with bursts of up to Burst (Rate 0: no rate limit), and at most
// Concurrent requests in flight at once (0: no cap). A request beyond
// either is answered 429 with Retry-After at once, computing nothing.
type ClientLimit struct {
	Rate       float64
	Burst      int
	Concurrent int
}

// off reports whether the limit bounds nothing.
func (l ClientLimit) off() bool { return l.Rate <= 0 && l.Concurrent <= 0 }

// check validates a limit; name is the prefix of its flags.
func (l ClientLimit) check(name string) error {
	switch {
	case l.Rate < 0 || math.IsNaN(l.Rate) || math.IsInf(l.Rate, 0):
		return fmt.Errorf("-%srate must be a finite number, 0 or more (0: no limit)", name)
	case l.Rate > 0 && l.Burst < 1:
		return fmt.Errorf("-%sburst must be at least 1 when -%srate is set", name, name)
	case l.Concurrent < 0:
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

// clientLimiter keeps, per client address, a token bucket and the number
// of requests in flight. A loopback address has its own limit: on
// loopback is the person who runs the server, scripting it.
type clientLimiter struct {
	public, loopback ClientLimit

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

func newClientLimiter(public, loopback ClientLimit) *clientLimiter {
	return &clientLimiter{public: public, loopback: loopback, clients: make(map[string]*client)}
}

// clientKey is the key of the limits of a client address: the address
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
// for a client over its limit, a 503 when the table of clients is full.
func (l *clientLimiter) admit(addr string, now time.Time) (done func(), refused *problem) {
	key, loop := clientKey(addr)
	lim := l.public
	if loop {
		lim = l.loopback
	}
	if lim.off() {
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
			return nil, &problem{Status: http.StatusServiceUnavailable, RetryAfter: 1,
				Message: "This server is answering too many addresses at once. Please try again in a moment."}
		}
		cl = &client{}
		if lim.Rate > 0 {
			cl.bucket = rate.NewLimiter(rate.Limit(lim.Rate), lim.Burst)
		}
		l.clients[key] = cl
	}
	cl.seen = now
	if lim.Concurrent > 0 && cl.inFlight >= lim.Concurrent {
		return nil, &problem{Status: http.StatusTooManyRequests, RetryAfter: 1,
			Message: fmt.Sprintf("Too many requests at once from your address: this server works on %d at a time for each address. Wait for an answer before asking again.", lim.Concurrent)}
	}
	if cl.bucket != nil {
		r := cl.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); !r.OK() || d > 0 {
			r.CancelAt(now)
			wait := 1
			if r.OK() {
				wait = max(1, int(math.Ceil(d.Seconds())))
			}
			return nil, &problem{Status: http.StatusTooManyRequests, RetryAfter: wait,
				Message: fmt.Sprintf("Too many requests from your address: this server answers %g a second for each address (bursts of %d). Please slow down: try again in %s.", lim.Rate, lim.Burst, seconds(wait))}
		}
	}
	cl.inFlight++
	return func() {
		l.mu.Lock()
		cl.inFlight--
		l.mu.Unlock()
	}, nil
}

// seconds says a wait in words: "a second", "3 seconds".
func seconds(n int) string {
	if n == 1 {
		return "a second"
	}
	return fmt.Sprintf("%d seconds", n)
}

// sweep forgets the clients idle for clientExpiry with nothing in flight.
// The caller holds l.mu.
func (l *clientLimiter) sweep(now time.Time) {
	for k, cl := range l.clients {
		if cl.inFlight == 0 && now.Sub(cl.seen) >= clientExpiry {
			delete(l.clients, k)
		}
	}
	l.swept = now
}

// ctxStart is the Echo context key of the time a request was admitted.
const ctxStart = "web.start"

// requestStart is when the request was admitted by limitClients (now, for
// a request that did not pass through it).
func requestStart(c echo.Context) time.Time {
	if t, ok := c.Get(ctxStart).(time.Time); ok {
		return t
	}
	return time.Now()
}

// limitClients is the middleware of the per-client limits: every route but
// the static files and /healthz goes through it, keyed by the connection's
// address (never a header the client sends). It also notes when the
// request began, for the deadlines of error pages.
func (s *Server) limitClients(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		now := time.Now()
		c.Set(ctxStart, now)
		switch c.Path() {
		case "/static/*", "/healthz":
			return next(c)
		}
		done, refused := s.clients.admit(c.RealIP(), now)
		if refused != nil {
			return refused
		}
		defer done()
		return next(c)
	}
}
