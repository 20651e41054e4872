package guard

import (
	"bytes"
	"io"
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

// A connection the server ends is closed with a linger: its sending side
// first (the client reads the answer, then the end of the stream), then
// what the client still sends is read and dropped, for at most lingerTime
// and lingerBytes, before the socket is closed. Closed at once with data
// unread, the kernel would answer the client with a reset, which throws
// away the answer waiting in the client's buffers: a client that sends a
// whole oversized request before it reads (a 20 MB body, a 200 KB header)
// would see "connection reset" instead of its 413 or 431.
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 64 << 20
)

// tooLongHeader is net/http's answer to a request whose line and headers
// exceed the server's MaxHeaderBytes, and tooLongURI the guard's when the
// request line alone does (see conn.Write).
const (
	tooLongHeader = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"
	tooLongURI    = "HTTP/1.1 414 URI Too Long\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n414 URI Too Long: this address is longer than this server reads"
)

// listener is the public listener: its connections close with a linger,
// answer a request line longer than the header limit with 414, and, with a
// cap, at most cap of them are open at once.
//
// The cap is what stops a crowd of idle keep-alive connections, or of
// header lines never finished, from exhausting the process's file
// descriptors and memory. At the cap, a new connection first takes the
// slot of the connection idle longest between two requests (closed, as
// the idle timeout would close it later: its client opens another when it
// needs one), so that a crowd of idle connections never shuts new clients
// out; when none is idle, the new connection is accepted, answered 503 and
// closed at once, never left waiting in the backlog where its client
// would time out. A slot is freed when the connection is closed, after its
// linger (each connection releases it exactly once, however many times it
// is closed). The http.Server tells the listener which connections are
// idle through ConnState (see connState).
type listener struct {
	net.Listener
	slots   chan struct{} // one token per open connection; nil: no cap
	log     *slog.Logger
	refused atomic.Int64 // connections refused since the start
	logged  atomic.Int64 // unix seconds of the last warning, to log at most one a minute

	mu   sync.Mutex
	idle map[*conn]time.Time // connections idle between requests, since when
}

// listen wraps ln as the public listener, holding at most max connections
// open at once; max < 1: no cap.
func listen(ln net.Listener, max int, log *slog.Logger) *listener {
	l := &listener{Listener: ln, log: log, idle: make(map[*conn]time.Time)}
	if max > 0 {
		l.slots = make(chan struct{}, max)
	}
	return l
}

// connState is the http.Server's ConnState hook of l: it keeps the set of
// connections idle between two requests.
func (l *listener) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*conn)
	if !ok || l.slots == nil {
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

// reclaim closes the connection idle longest, if any, freeing its slot at
// once (an idle connection has nothing unread to linger on), and reports
// whether it did.
func (l *listener) reclaim() bool {
	l.mu.Lock()
	var oldest *conn
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
	oldest.closeNow()
	return true
}

// Accept returns the next connection within the cap, refusing (503 and
// close) those beyond it as they come.
func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.take() {
			return &conn{Conn: c, release: l.release}, nil
		}
		l.refuse(c)
	}
}

// take takes a slot for a new connection, reclaiming idle connections'
// slots while the cap is reached, and reports whether it got one.
func (l *listener) take() bool {
	if l.slots == nil {
		return true
	}
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

// release frees the slot of a closed connection.
func (l *listener) release() {
	if l.slots != nil {
		<-l.slots
	}
}

// refuse answers c 503 and closes it, and warns at most once a minute.
func (l *listener) refuse(c net.Conn) {
	n := l.refused.Add(1)
	_ = c.SetWriteDeadline(time.Now().Add(refusalWrite))
	_, _ = c.Write([]byte(refusal))
	_ = c.Close()
	now := time.Now().Unix()
	if last := l.logged.Load(); now-last >= 60 && l.logged.CompareAndSwap(last, now) {
		l.log.Warn("connection cap reached: refusing new connections with 503", "cap", cap(l.slots), "refused_total", n)
	}
}

// conn is a connection of the public listener: it holds a slot of its
// listener until it is closed, and knows whether a line ended among the
// bytes the server read since it last wrote (see Write).
type conn struct {
	net.Conn
	once    sync.Once
	release func()
	// lineEnded: a line end was read since the server's last write. The
	// server writes its answer to a request after reading the request's
	// first line, unless that line alone was too long.
	lineEnded atomic.Bool
}

func (c *conn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.lineEnded.Load() && bytes.IndexByte(p[:n], '\n') >= 0 {
		c.lineEnded.Store(true)
	}
	return n, err
}

// Write writes p, but for net/http's 431 to a request whose first line
// never ended within the header limit: that line, the request's address,
// is what is too long, and the client is told so with a 414.
func (c *conn) Write(p []byte) (int, error) {
	if !c.lineEnded.Swap(false) && string(p) == tooLongHeader {
		if _, err := io.WriteString(c.Conn, tooLongURI); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite ends the sending side of the connection (net/http calls it
// before it closes a connection whose request it did not read whole).
func (c *conn) CloseWrite() error {
	if tc, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return tc.CloseWrite()
	}
	return nil
}

// Close closes the connection with a linger (see lingerTime) in the
// background, and frees its slot once the socket is closed, the first
// time only: net/http may close a connection more than once.
func (c *conn) Close() error {
	c.once.Do(func() {
		_ = c.CloseWrite()
		go func() {
			_ = c.Conn.SetReadDeadline(time.Now().Add(lingerTime))
			_, _ = io.CopyN(io.Discard, c.Conn, lingerBytes)
			_ = c.Conn.Close()
			c.release()
		}()
	})
	return nil
}

// closeNow closes the connection without a linger, and frees its slot.
func (c *conn) closeNow() {
	c.once.Do(func() {
		_ = c.Conn.Close()
		c.release()
	})
}
