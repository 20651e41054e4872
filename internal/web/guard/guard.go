// Package guard is the web server's HTTP guard: everything between a
// client and a handler that bounds what a request may cost. In the order a
// request meets them: the connection cap of the public listener (an idle
// keep-alive connection gives up its slot to a new one; beyond, a 503 and
// close), the header and request timeouts of the http.Server (431 for a
// header too large, 414 for a request line), the hardening headers and
// the bound on a query string, the per-client quotas (rate, burst and
// requests in flight, keyed by the client's address; Quota), the body
// limit and the drain of an oversized body, and the request's deadline.
// Every connection the server ends closes with a linger, so that a client
// still sending reads its refusal instead of a reset.
//
// The guard knows nothing of boards, backends or pages: its refusals are
// problems (package problem) that the server's error handler answers as
// every other, and the routes it leaves free are the server's to name.
package guard

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/problem"
)

// Config is what the guard bounds.
type Config struct {
	// The public listener's connections: at most MaxConns open at once
	// (0: no cap), the others answered 503 and closed; an idle keep-alive
	// connection closed after IdleTimeout; request headers of at most
	// MaxHeaderBytes (net/http answers 431 beyond).
	MaxConns       int
	IdleTimeout    time.Duration
	MaxHeaderBytes int

	RequestDeadline time.Duration // every request but those Deadline skips
	BodyLimit       int64         // bytes of a request body
	QueryLimit      int           // bytes of a query string

	// The requests of one client address on every route that does work:
	// Client for every address but loopback ones, which have Loopback
	// (the person who runs the server, scripting it; behind a reverse
	// proxy on the same machine that is not trusted, every client is
	// loopback).
	Client, Loopback Quota

	// TrustedProxies are the address ranges of the reverse proxies whose
	// X-Forwarded-For header is believed: the client of a request that
	// comes from one of them is the address nearest the server in that
	// header that is not itself in a trusted range. Without any, the
	// client is the connection's address, whatever the headers say.
	TrustedProxies []netip.Prefix
}

// ParseProxies parses the address ranges of trusted proxies: a
// comma-separated list of CIDR ranges (10.0.0.0/8, fd00::/8) or single
// addresses; "" is none.
func ParseProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address range (10.0.0.0/8) nor an address", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// HTTPServer returns the http.Server of the public listener ln and the
// listener it is to serve, capped at cfg.MaxConns connections: a header
// must arrive within 10 s (slowloris) and hold at most cfg.MaxHeaderBytes
// (431 beyond; 414 when the request line alone is longer), a request
// within 30 s, and an idle keep-alive connection is closed after
// cfg.IdleTimeout. A connection the server ends is closed with a linger,
// so that its client reads the answer (a 413, a 431) instead of a reset.
func HTTPServer(cfg Config, h http.Handler, ln net.Listener, log *slog.Logger) (*http.Server, net.Listener) {
	l := listen(ln, cfg.MaxConns, log)
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    cfg.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		ConnState:         l.connState,
	}, l
}

// Guard is the guard's middleware for one server: its quotas' table of
// clients lives as long as the server.
type Guard struct {
	cfg     Config
	clients *clients
	secure  echo.MiddlewareFunc
}

// New returns the guard of cfg.
func New(cfg Config) *Guard {
	return &Guard{cfg: cfg, clients: newClients(cfg.Client, cfg.Loopback),
		secure: middleware.SecureWithConfig(middleware.SecureConfig{
			XSSProtection:         "0",
			ContentTypeNosniff:    "nosniff",
			XFrameOptions:         "DENY",
			ReferrerPolicy:        "no-referrer",
			ContentSecurityPolicy: contentSecurityPolicy,
		})}
}

// IPExtractor returns the Echo IP extractor of the client's address (see
// Config.TrustedProxies): the connection's, or, from a trusted proxy, the
// one its X-Forwarded-For header names. Loopback, link-local and private
// addresses are trusted only when a range names them.
func (g *Guard) IPExtractor() echo.IPExtractor {
	if len(g.cfg.TrustedProxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range g.cfg.TrustedProxies {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// contentSecurityPolicy allows only this server's own scripts, styles and
// images: no inline script, style or handler anywhere in the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Harden is the middleware of the hardening headers (no sniffing, no
// framing, no referrer, the content security policy, isolation from other
// origins) and of the bound on the query string: a longer one is a 414.
func (g *Guard) Harden(next echo.HandlerFunc) echo.HandlerFunc {
	return g.secure(func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		if len(c.Request().URL.RawQuery) > g.cfg.QueryLimit {
			return problem.New(http.StatusRequestURITooLong, "This address is too long (%s of parameters; the limit is %s). Start again from a fresh board.",
				bytesize.Format(int64(len(c.Request().URL.RawQuery))), bytesize.Format(int64(g.cfg.QueryLimit)))
		}
		return next(c)
	})
}

// Quotas is the middleware of the per-client quotas: every route but the
// free ones (route patterns, as Echo names them) goes through it, keyed by
// the client's address (Echo's RealIP, as IPExtractor finds it: never a
// header but a trusted proxy's).
func (g *Guard) Quotas(free ...string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if slices.Contains(free, c.Path()) {
				return next(c)
			}
			done, refused := g.clients.admit(c.RealIP(), time.Now())
			if refused != nil {
				return refused
			}
			defer done()
			return next(c)
		}
	}
}

// drainSlack is how much of a body beyond the limit Drain reads before it
// gives up on the connection.
const drainSlack = 1 << 20

// Drain is the middleware that reads what is left of a request body the
// handler did not read, up to drainSlack beyond the body limit, before the
// answer is written. A client that sends a whole oversized body before it
// reads then gets its 413: net/http alone would close the connection with
// the body unread (past 256 KiB), and the client would see a reset
// instead. A body that says it is larger than that is not waited for;
// neither is one whose client waits for 100 Continue (it has sent nothing
// yet).
func (g *Guard) Drain(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		body := req.Body
		err := next(c)
		if body == nil || body == http.NoBody || req.ContentLength > g.cfg.BodyLimit+drainSlack ||
			strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
			return err
		}
		// The server's ReadTimeout bounds this read in time as every other.
		_, _ = io.CopyN(io.Discard, body, g.cfg.BodyLimit+drainSlack)
		return err
	}
}

// BodyLimit is the middleware that refuses a body past the limit with a
// 413.
func (g *Guard) BodyLimit() echo.MiddlewareFunc {
	return middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: strconv.FormatInt(g.cfg.BodyLimit, 10)})
}

// Deadline is the middleware that gives every request the request
// deadline.
func (g *Guard) Deadline() echo.MiddlewareFunc {
	return middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
		Timeout:      g.cfg.RequestDeadline,
		ErrorHandler: func(err error, c echo.Context) error { return err },
	})
}
