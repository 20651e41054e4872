// Package server is the N-Queens configurator's web server: a page on
// which a person places queens and sees, after every click, which squares
// stay possible, which queens are forced, how many solutions remain and
// why, answered by any registered backend or all of them side by side; and
// a JSON API with the same answers. cmd/web runs it; tests, the soak
// driver and the benchmarks start it in their own process with Run or New.
//
// The server keeps no session: the board lives in the URL, so the browser's
// back and forward buttons are undo and redo and a link shares a board. It
// keeps only a cache of compiled spaces, bounded in bytes. The backends
// state their own limits (configurator.Limits) and bound their own work:
// a board beyond a backend's limit is refused at once (413), every request
// takes its turn on a space through configurator.Admit (a full queue is a
// 503 with Retry-After), every request has a deadline, and the API is rate
// limited per client address. Handlers are thin: they decode the request,
// make one call into the session (configurator.Play, NewSession and the
// Session's methods), and render what they got.
//
// The files: server.go (Server, routes, errors, compiles), run.go (Run),
// config.go, state.go (the board in the URL), work.go (a step on every
// backend of a mode), pages.go and api.go (the handlers), view.go (what
// the templates print), problem.go (errors in words), cache.go (compiled
// spaces), diagram.go (DOT to SVG), debug.go (the loopback debug routes).
package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/frontend"
	"golang.org/x/time/rate"
)

// contentSecurityPolicy allows only this server's own scripts, styles and
// images: no inline script, style or handler anywhere in the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Engine is a backend as the server runs it.
type Engine struct {
	Backend  configurator.Backend
	Deadline time.Duration // of one request's work on the backend
	// Title says in a line what the backend does, for the page's switch.
	Title string
	// Budget is the bytes one compile may use, when a budget bounds the
	// backend, for the message of a board that does not fit; 0 otherwise.
	Budget int64
}

// Server is the web configurator: the backends, the cache of their compiled
// spaces, and the templates. It keeps no per-user state: every request
// carries its board in the URL.
type Server struct {
	cfg      Config
	log      *slog.Logger
	engines  []Engine          // in the order registered: the first is the primary
	backends map[string]Engine // by name
	lim      limits
	cache    *spaceCache
	tmpl     *template.Template
	static   fs.FS
	version  string // of the static files, for cache busting
	draw     *drawer

	quit     chan struct{} // closed when shutdown begins: progress streams end
	quitOnce sync.Once
}

// New returns a server over the given engines, the primary first. It
// compiles nothing until asked; Close releases what it holds.
func New(cfg Config, log *slog.Logger, engines ...Engine) (*Server, error) {
	if len(engines) == 0 {
		return nil, errors.New("web server: no backend")
	}
	s := &Server{
		cfg:      cfg,
		log:      log,
		engines:  engines,
		backends: make(map[string]Engine),
		lim:      limits{maxN: map[string]int{}, why: map[string]string{}, ordered: map[string]bool{}},
		quit:     make(chan struct{}),
		draw:     newDrawer(),
	}
	for _, e := range engines {
		name := e.Backend.Name()
		if _, dup := s.backends[name]; dup {
			return nil, fmt.Errorf("web server: two backends named %q", name)
		}
		s.backends[name] = e
		l := e.Backend.Limits()
		s.lim.names = append(s.lim.names, name)
		s.lim.maxN[name], s.lim.why[name], s.lim.ordered[name] = l.MaxN, l.Bound, l.Ordered
		if l.Bound != "" {
			log.Warn("a backend's budget lowers its largest board", "backend", name, "limit", l.MaxN, "bound", l.Bound)
		}
	}
	s.cache = newSpaceCache(s.compile, cfg.CacheBytes, s.heavyCompile, cfg.CompileSlots, cfg.CompileGrace)
	var err error
	if s.static, err = fs.Sub(frontend.Files, "static"); err != nil {
		return nil, err
	}
	if s.version, err = hashFiles(s.static); err != nil {
		return nil, err
	}
	if s.tmpl, err = template.New("").Funcs(templateFuncs).ParseFS(frontend.Files, "templates/*.html"); err != nil {
		return nil, fmt.Errorf("web server: templates: %w", err)
	}
	return s, nil
}

// beginShutdown ends the progress streams, which would otherwise hold the
// graceful shutdown open until its deadline.
func (s *Server) beginShutdown() { s.quitOnce.Do(func() { close(s.quit) }) }

// Close cancels the compiles in progress and releases the renderer.
func (s *Server) Close() {
	s.beginShutdown()
	s.cache.Close()
	s.draw.Close()
}

// Handler returns the HTTP handler of the pages, the API and the static
// files.
func (s *Server) Handler() http.Handler { return s.routes() }

// routes returns the routes behind the middleware.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The client's address is the connection's, never a header it sends:
	// rate limits and logs must not be spoofable.
	e.IPExtractor = echo.ExtractIPDirect()
	e.HTTPErrorHandler = s.handleError

	streaming := func(c echo.Context) bool { return c.Path() == "/events/compile" }
	e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		HandleError: true,
		LogLatency:  true, LogMethod: true, LogURI: true, LogStatus: true, LogRemoteIP: true, LogError: true,
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = failureLevel(v.Status)
			}
			attrs := []slog.Attr{
				slog.String("method", v.Method), slog.String("uri", truncate(v.URI, 200)),
				slog.Int("status", v.Status), slog.Duration("latency", v.Latency), slog.String("ip", v.RemoteIP),
			}
			if v.Error != nil {
				attrs = append(attrs, slog.String("err", v.Error.Error()))
			}
			s.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	}))
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.Error("panic", "uri", truncate(c.Request().RequestURI, 200), "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection:         "0",
		ContentTypeNosniff:    "nosniff",
		XFrameOptions:         "DENY",
		ReferrerPolicy:        "no-referrer",
		ContentSecurityPolicy: contentSecurityPolicy,
	}))
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			h.Set("Cross-Origin-Resource-Policy", "same-origin")
			h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
			if len(c.Request().URL.RawQuery) > s.cfg.QueryLimit {
				return problemf(http.StatusRequestEntityTooLarge, "This address is too long (%s of parameters; the limit is %s). Start again from a fresh board.",
					bytesize.Format(int64(len(c.Request().URL.RawQuery))), bytesize.Format(int64(s.cfg.QueryLimit)))
			}
			return next(c)
		}
	})
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{Skipper: streaming, MinLength: 1024}))
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: strconv.FormatInt(s.cfg.BodyLimit, 10)}))
	e.Use(middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
		Skipper:      streaming,
		Timeout:      s.cfg.RequestDeadline,
		ErrorHandler: func(err error, c echo.Context) error { return err },
	}))

	e.GET("/", s.board)
	e.GET("/play", s.board)
	e.GET("/events/compile", s.progress)
	e.GET("/diagram.svg", s.diagramSVG)
	e.GET("/static/*", s.serveStatic)
	e.RouteNotFound("/*", s.notFound)
	e.GET("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })

	api := e.Group("/api/v1")
	if s.cfg.APIRate > 0 {
		api.Use(middleware.RateLimiterWithConfig(middleware.RateLimiterConfig{
			Store: middleware.NewRateLimiterMemoryStoreWithConfig(middleware.RateLimiterMemoryStoreConfig{
				Rate: rate.Limit(s.cfg.APIRate), Burst: s.cfg.APIBurst, ExpiresIn: 3 * time.Minute,
			}),
			IdentifierExtractor: func(c echo.Context) (string, error) { return c.RealIP(), nil },
			DenyHandler: func(c echo.Context, _ string, _ error) error {
				return &problem{Status: http.StatusTooManyRequests, RetryAfter: 1,
					Message: fmt.Sprintf("Too many requests from your address: the API allows %g a second. Please slow down.", s.cfg.APIRate)}
			},
		}))
	}
	api.POST("/analyze", s.apiAnalyze)
	api.POST("/explain", s.apiExplain)
	api.POST("/complete", s.apiComplete)
	api.Any("/*", func(c echo.Context) error {
		switch c.Request().URL.Path {
		case "/api/v1/analyze", "/api/v1/explain", "/api/v1/complete":
			c.Response().Header().Set("Allow", http.MethodPost)
			return problemf(http.StatusMethodNotAllowed, "This address does not accept that method: send POST with a JSON body.")
		}
		return problemf(http.StatusNotFound, "There is no API endpoint %s %s; use POST /api/v1/analyze, /api/v1/explain or /api/v1/complete.",
			c.Request().Method, quote(c.Request().URL.Path))
	})
	return e
}

// handleError answers every error a handler or middleware returns: JSON
// {"error": ...} under /api/, a notice swapped into the page for htmx
// requests (the board stays as it was), a page with the notice above a
// fresh board otherwise. No stack or internal detail ever reaches the
// client.
func (s *Server) handleError(err error, c echo.Context) {
	p := describe(err)
	req := c.Request()
	if c.Response().Committed {
		// The request logger hands errors to this handler and passes them
		// on to Echo, which hands them here again: only an error that
		// came after an answer of its own is news.
		if p.Status >= 500 && c.Get(ctxErrorHandled) == nil {
			s.log.Log(req.Context(), failureLevel(p.Status), "request failed after answering", "uri", truncate(req.RequestURI, 200), "err", err)
		}
		return
	}
	c.Set(ctxErrorHandled, true)
	var werr error
	switch {
	case strings.HasPrefix(req.URL.Path, "/api/"), req.Method == http.MethodHead:
		if p.Status >= 500 {
			s.logFailure(req, p, err)
		}
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		if req.Method == http.MethodHead {
			werr = c.NoContent(p.Status)
		} else {
			werr = c.JSON(p.Status, apiError{Error: p.Message})
		}
	case p.Status >= 500 && !isHTMX(req):
		// After a fault, show no board: drawing one could meet the fault
		// again, and this runs outside the recover middleware.
		s.logFailure(req, p, err)
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		view := s.newAppView(s.lim.defaultState(), "")
		view.Notice, view.Fatal = noticeOf(p), true
		werr = s.render(c, p.Status, "page", s.pageView(view))
	case isHTMX(req):
		if p.Status >= 500 {
			s.logFailure(req, p, err)
		}
		werr = s.renderNotice(c, p)
	default:
		// Handlers answer their own failures with the best board they can
		// (fail); what reaches here (an address that names nothing, one
		// too long) gets the notice above the controls, computing nothing.
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		view := s.newAppView(s.lim.defaultState(), "")
		view.Notice, view.Fatal = noticeOf(p), true
		werr = s.render(c, p.Status, "page", s.pageView(view))
	}
	if werr != nil {
		s.log.Warn("writing an error response", "err", werr)
	}
}

// ctxErrorHandled marks, in an Echo context, a request whose error has
// been answered.
const ctxErrorHandled = "web.errorHandled"

// failureLevel is the log level of a request that failed with status:
// 503 is the server shedding load or a request running out of time,
// expected under heavy load, so a warning; any other 5xx is a fault.
func failureLevel(status int) slog.Level {
	if status == http.StatusServiceUnavailable {
		return slog.LevelWarn
	}
	return slog.LevelError
}

// logFailure logs a request that failed with a 5xx problem.
func (s *Server) logFailure(req *http.Request, p *problem, err error) {
	s.log.Log(req.Context(), failureLevel(p.Status), "request failed", "uri", truncate(req.RequestURI, 200), "status", p.Status, "err", err)
}

// isHTMX reports whether a request is an htmx request for a fragment (and
// not htmx restoring history, which wants the whole page).
func isHTMX(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-History-Restore-Request") != "true"
}

// renderNotice answers an htmx request with a notice that replaces only the
// notice area, so the board keeps its last good state.
func (s *Server) renderNotice(c echo.Context, p *problem) error {
	h := c.Response().Header()
	h.Set("HX-Retarget", "#notice")
	h.Set("HX-Reswap", "innerHTML")
	return s.render(c, p.Status, "notice", noticeOf(p))
}

// render executes a template into a buffer first, so that a template error
// becomes a clean 500 instead of half a page.
func (s *Server) render(c echo.Context, status int, name string, data any) error {
	var b strings.Builder
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("template %s: %w", name, err)
	}
	c.Response().Header().Set("Vary", "HX-Request")
	return c.HTML(status, b.String())
}

// query parses the request's query string strictly: a malformed escape is
// a 400 rather than a silently dropped parameter.
func query(c echo.Context) (url.Values, error) {
	v, err := url.ParseQuery(c.Request().URL.RawQuery)
	if err != nil {
		return nil, problemf(http.StatusBadRequest, "The address is malformed (%s). Start again from a fresh board.", quote(strings.TrimPrefix(err.Error(), "invalid URL escape ")))
	}
	return v, nil
}

// serveStatic serves the embedded static files. Paths are cleaned and
// looked up in the embedded tree only, so /static/../go.mod finds nothing.
func (s *Server) serveStatic(c echo.Context) error {
	name := strings.TrimPrefix(path.Clean("/"+c.Param("*")), "/")
	if name == "" || !fs.ValidPath(name) {
		return echo.ErrNotFound
	}
	f, err := s.static.Open(name)
	if err != nil {
		return echo.ErrNotFound
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return echo.ErrNotFound
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set(echo.HeaderContentType, ct)
	}
	if c.QueryParam("v") == s.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	http.ServeContent(c.Response(), c.Request(), name, time.Time{}, rs)
	return nil
}

// hashFiles returns a short digest of every file under fsys.
func hashFiles(fsys fs.FS) (string, error) {
	h := sha256.New()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12], err
}

// compile is the cache's compile function: it builds the model, compiles it
// under the compile deadline, and counts the empty board's solutions once,
// for the page's "one of 92".
func (s *Server) compile(ctx context.Context, k spaceKey) (*compiled, error) {
	e, ok := s.backends[k.backend]
	if !ok {
		return nil, fmt.Errorf("no backend %q", k.backend)
	}
	b := e.Backend
	ctx, cancel := context.WithTimeout(ctx, s.cfg.CompileDeadline)
	defer cancel()
	m, err := configurator.New(k.n, k.order)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	sp, took, err := configurator.Compile(ctx, b, m)
	if err != nil {
		s.log.Warn("compile failed", "backend", k.backend, "n", k.n, "order", k.order.String(), "after", time.Since(start), "err", err)
		return nil, err
	}
	res := &compiled{key: k, space: sp, took: took, bytes: b.Cost(k.n, k.order).Bytes}
	if sz, ok := sp.(configurator.Sizer); ok {
		res.bytes, res.sized = sz.Bytes(), true
	}
	// The count is a nicety ("one of 92"): when the backend cannot give it
	// in time, the page goes without.
	a, err := sp.Analyze(ctx, nil)
	switch {
	case errors.Is(err, configurator.ErrNoSolution):
		res.total = new(big.Int)
	case err != nil:
		s.log.Warn("counting the empty board's solutions", "backend", k.backend, "n", k.n, "err", err)
	default:
		res.total, res.totalAtLeast = a.Solutions, a.AtLeast
	}
	s.log.Info("compiled", "backend", k.backend, "n", k.n, "order", k.order.String(), "took", took, "bytes", res.bytes)
	return res, nil
}

// heavyCompile reports whether a compile takes long and much memory, as
// its backend estimates it.
func (s *Server) heavyCompile(k spaceKey) bool {
	e, ok := s.backends[k.backend]
	return ok && e.Backend.Cost(k.n, k.order).Heavy
}

// key is the cache key of a backend's space for a state.
func (s *Server) key(backend string, st boardState) spaceKey {
	k := spaceKey{backend: backend, n: st.N, order: st.Order}
	if !s.lim.ordered[backend] {
		k.order = configurator.RowMajor // one space serves every order
	}
	return k
}

// deadline is the per-request deadline of a backend.
func (s *Server) deadline(backend string) time.Duration {
	if e, ok := s.backends[backend]; ok {
		return e.Deadline
	}
	return s.engines[0].Deadline
}

// truncate shortens s to at most n bytes for logs.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
