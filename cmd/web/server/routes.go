package server

import (
	"fmt"
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
	"github.com/nqueens/configurator/configurator/bytesize"
	"golang.org/x/time/rate"
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
