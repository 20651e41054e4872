package server

import (
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// contentSecurityPolicy allows only this server's own scripts, styles and
// images: no inline script, style or handler anywhere in the page.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

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
	e.Use(withClient)

	streaming := func(c echo.Context) bool { return c.Path() == "/events/compile" }
	e.Use(s.measureRequests)
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
	e.Use(serverTiming)
	e.Use(s.limitClients)
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{Skipper: streaming, MinLength: 1024}))
	e.Use(s.drainOversized)
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: strconv.FormatInt(s.cfg.BodyLimit, 10)}))
	e.Use(middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
		Skipper:      streaming,
		Timeout:      s.cfg.RequestDeadline,
		ErrorHandler: func(err error, c echo.Context) error { return err },
	}))

	// Every GET route answers HEAD too, with the same status and headers:
	// the handler runs as for GET and net/http drops the body (the
	// progress stream stops after its headers).
	get := func(path string, h echo.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
	}
	get("/", s.board)
	get("/play", s.board)
	get("/events/compile", s.progress)
	get("/diagram.svg", s.diagramSVG)
	get("/orders", s.ordersFragment)
	get("/static/*", s.serveStatic)
	e.RouteNotFound("/*", s.notFound)
	get("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })

	api := e.Group("/api/v1")
	api.POST("/analyze", s.apiAnalyze)
	api.POST("/explain", s.apiExplain)
	api.POST("/complete", s.apiComplete)
	api.POST("/diagram", s.apiDiagram)
	api.POST("/orders", s.apiOrders)
	api.Any("/*", func(c echo.Context) error {
		switch c.Request().URL.Path {
		case "/api/v1/analyze", "/api/v1/explain", "/api/v1/complete", "/api/v1/diagram", "/api/v1/orders":
			c.Response().Header().Set("Allow", http.MethodPost)
			return problemf(http.StatusMethodNotAllowed, "This address does not accept that method: send POST with a JSON body.")
		}
		return problemf(http.StatusNotFound, "There is no API endpoint %s %s; use POST /api/v1/analyze, /api/v1/explain, /api/v1/complete, /api/v1/diagram or /api/v1/orders.",
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
	case strings.HasPrefix(req.URL.Path, "/api/"):
		if p.Status >= 500 {
			s.logFailure(req, p, err)
		}
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		werr = c.JSON(p.Status, apiError{Error: p.Message})
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

// drainSlack is how much of a body beyond the limit drainOversized reads
// before it gives up on the connection.
const drainSlack = 1 << 20

// drainOversized reads what is left of a request body the handler did not
// read, up to drainSlack beyond the body limit, before the answer is
// written. A client that sends a whole oversized body before it reads
// then gets its 413: net/http alone would close the connection with the
// body unread (past 256 KiB), and the client would see a reset instead.
// A body that says it is larger than that is not waited for; neither is
// one whose client waits for 100 Continue (it has sent nothing yet).
func (s *Server) drainOversized(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		body := req.Body
		err := next(c)
		if body == nil || body == http.NoBody || req.ContentLength > s.cfg.BodyLimit+drainSlack ||
			strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
			return err
		}
		// The server's ReadTimeout bounds this read in time as every other.
		_, _ = io.CopyN(io.Discard, body, s.cfg.BodyLimit+drainSlack)
		return err
	}
}

// ctxErrorHandled marks, in an Echo context, a request whose error has
// been answered.
const ctxErrorHandled = "web.errorHandled"

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
	req := c.Request()
	if req.Method == http.MethodHead {
		// Serve HEAD as GET, the body dropped by net/http, so that the
		// headers are GET's to the letter: ServeContent would write no
		// body for HEAD, and the gzip middleware then no Content-Encoding.
		req = req.Clone(req.Context())
		req.Method = http.MethodGet
	}
	http.ServeContent(c.Response(), req, name, time.Time{}, rs)
	return nil
}

// withClient names the client in every request's context by its address
// (configurator.WithClient), so that the backends share their capacity
// fairly among clients: one address sending many requests waits behind its
// own. The address is the connection's (see IPExtractor in routes).
func withClient(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		c.SetRequest(r.WithContext(configurator.WithClient(r.Context(), c.RealIP())))
		return next(c)
	}
}
