package guard

import (
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// refusal is what a connection beyond the cap gets before it is closed: a
// complete HTTP/1.1 503, so that a browser or a script sees "busy, retry"
// at once rather than a reset it might retry in a loop, or nothing at all.
// It is written straight into the new socket's empty send buffer (it never
// waits for the client), without reading the request: the refusal costs
// the server no goroutine and no buffer.
const refusal = "HTTP/1.1 503 Service Unavailable\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Retry-After: 1\r\n" +
	"Connection: close\r\n" +
	"Content-Length: 48\r\n" +
	"\r\n" +
	"503 too many open connections; retry in a moment"

// refusalWrite bounds the write of the refusal, in case the kernel's send
// buffer is somehow full: the accept loop must never hang on one client.
const refusalWrite = 100 * time.Millisecond

// capListener is a net.Listener that holds at most cap connections open
// at once. It is what stops a crowd of idle keep-alive connections, or of
// header lines never finished, from exhausting the process's file
// descriptors and memory. At the cap, a new connection first takes the
// slot of the connection idle longest between two requests (closed, as
// the idle timeout would close it later: its client opens another when it
// needs one), so that a crowd of idle connections never shuts new clients
// out; when none is idle, the new connection is accepted, answered 503 and
// closed at once, never left waiting in the backlog where its client
// would time out. A slot is freed when the server closes the connection
// (each connection releases it exactly once, however many times it is
// closed). The http.Server tells the listener which connections are idle
// through ConnState (see connState).
type capListener struct {
	net.Listener
	slots   chan struct{} // one token per open connection
	log     *slog.Logger
	refused atomic.Int64 // connections refused since the start
	logged  atomic.Int64 // unix seconds of the last warning, to log at most one a minute

	mu   sync.Mutex
	idle map[*cappedConn]time.Time // connections idle between requests, since when
}

// limitConns wraps ln so that at most max connections are open at once;
// max < 1 leaves ln as it is (no cap).
func limitConns(ln net.Listener, max int, log *slog.Logger) net.Listener {
	if max < 1 {
		return ln
	}
	return &capListener{Listener: ln, slots: make(chan struct{}, max), log: log, idle: make(map[*cappedConn]time.Time)}
}

// connState is the http.Server's ConnState hook of a capped listener: it
// keeps the set of connections idle between two requests. Other
// listeners' connections are ignored.
func connState(ln net.Listener) func(net.Conn, http.ConnState) {
	l, ok := ln.(*capListener)
	if !ok {
		return nil
	}
	return func(nc net.Conn, st http.ConnState) {
		c, ok := nc.(*cappedConn)
		if !ok {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if st == http.StateIdle {
			l.idle[c] = time.Now()
		} else {
			delete(l.idle, c)
		}
	}
}

// reclaim closes the connection idle longest, if any, freeing its slot,
// and reports whether it did.
func (l *capListener) reclaim() bool {
	l.mu.Lock()
	var oldest *cappedConn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	if oldest == nil {
		return false
	}
	oldest.Close()
	return true
}

// Accept returns the next connection within the cap, refusing (503 and
// close) those beyond it as they come.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.take() {
			return &cappedConn{Conn: c, release: func() { <-l.slots }}, nil
		}
		l.refuse(c)
	}
}

// take takes a slot for a new connection, reclaiming idle connections'
// slots while the cap is reached, and reports whether it got one.
func (l *capListener) take() bool {
	for {
		select {
		case l.slots <- struct{}{}:
			return true
		default:
		}
		if !l.reclaim() {
			return false
		}
	}
}

// refuse answers c 503 and closes it, and warns at most once a minute.
func (l *capListener) refuse(c net.Conn) {
	n := l.refused.Add(1)
	_ = c.SetWriteDeadline(time.Now().Add(refusalWrite))
	_, _ = c.Write([]byte(refusal))
	_ = c.Close()
	now := time.Now().Unix()
	if last := l.logged.Load(); now-last >= 60 && l.logged.CompareAndSwap(last, now) {
		l.log.Warn("connection cap reached: refusing new connections with 503", "cap", cap(l.slots), "refused_total", n)
	}
}

// cappedConn is a connection that holds a slot of its capListener until it
// is closed.
type cappedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close closes the connection and frees its slot, the first time only:
// net/http may close a connection more than once.
func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
