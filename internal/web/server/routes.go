package server

import (
	"compress/gzip"
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
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
)

// Handler returns the HTTP handler of the pages, the API and the static
// files.
func (s *Server) Handler() http.Handler { return s.routes() }

// routes returns the routes behind the middleware: the server's own
// (the client named in the context, metrics, the log, recovery, timing,
// compression) around the guard's, in the order a request meets them.
func (s *Server) routes() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// The client's address is the connection's, never a header it sends
	// but a trusted proxy's: rate limits and logs must not be spoofable.
	e.IPExtractor = s.guard.IPExtractor()
	e.HTTPErrorHandler = s.handleError
	e.Use(withClient, headStartsNoWork)

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
	e.Use(s.guard.Harden)
	e.Use(serverTiming)
	// The static files and the health check are free of the quotas.
	e.Use(s.guard.Quotas("/static/*", "/healthz"))
	// Compression at the fastest level: the middleware resets a
	// compressor for every answer, the short ones it then sends plain
	// included, and only the fastest level's reset costs nothing; the
	// server's bottleneck is its cores, not the wire.
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 1024, Level: gzip.BestSpeed}))
	e.Use(s.guard.Drain)
	e.Use(s.bodyLimit(s.guard.BodyLimit()))
	e.Use(s.guard.Deadline())

	// Every GET route answers HEAD too, with the same status and headers:
	// the handler runs as for GET and net/http drops the body.
	get := func(path string, h echo.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
	}
	get("/", s.page)
	get("/play", s.page)
	get("/models", s.modelsPage)
	get("/model-diagram", s.modelDiagram)
	get("/model-complete", s.modelComplete)
	get("/model-configuration", s.download(s.modelConfiguration))
	get("/model-facts", s.modelFacts)
	get("/model-sample", s.download(s.modelSample))
	get("/orders", s.ordersFragment)
	get("/static/*", s.serveStatic)
	e.RouteNotFound("/*", s.notFound)
	get("/healthz", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })

	api := e.Group("/api/v1")
	api.POST("/analyze", modelOrBoard(s.apiAnalyzeModel, s.apiAnalyzeBoard))
	api.POST("/explain", modelOrBoard(s.apiExplainModel, s.apiExplainBoard))
	api.POST("/complete", modelOrBoard(s.apiCompleteModel, s.apiCompleteBoard))
	api.POST("/diagram", modelOrBoard(s.apiDiagramModel, s.apiDiagramBoard))
	api.POST("/orders", s.apiOrders)
	api.POST("/models", s.apiAddModel)
	api.POST("/configuration", s.apiConfiguration)
	api.POST("/facts", s.apiFacts)
	api.POST("/sample", s.apiSample)
	api.POST("/configuration/read", s.apiReadConfiguration)
	api.GET("/models", s.apiModels)
	api.HEAD("/models", s.apiModels)
	api.Any("/*", func(c echo.Context) error {
		switch c.Request().URL.Path {
		case "/api/v1/analyze", "/api/v1/explain", "/api/v1/complete", "/api/v1/diagram", "/api/v1/orders", "/api/v1/configuration", configReadPath, "/api/v1/facts", "/api/v1/sample":
			c.Response().Header().Set("Allow", http.MethodPost)
			return problem.New(http.StatusMethodNotAllowed, "This address does not accept that method: send POST with a JSON body.")
		case uploadPath:
			c.Response().Header().Set("Allow", "GET, HEAD, POST")
			return problem.New(http.StatusMethodNotAllowed, "This address does not accept that method: GET lists the models, POST uploads one.")
		}
		return problem.New(http.StatusNotFound, "There is no API endpoint %s %s; use POST /api/v1/analyze, /api/v1/explain, /api/v1/complete, /api/v1/diagram, /api/v1/orders, /api/v1/configuration, /api/v1/configuration/read, /api/v1/facts or /api/v1/sample, or GET or POST /api/v1/models.",
			c.Request().Method, words.Quote(c.Request().URL.Path))
	})
	return e
}

// download is the handler of a download of the model page, h, whose
// failure is answered in plain text, worded as the page words it.
func (s *Server) download(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := h(c); err != nil {
			p := s.pageFailure(c, err)
			return c.String(p.Status, p.Message+"\n")
		}
		return nil
	}
}

// uploadPath is the route of uploads, whose bodies are model files up to
// models.MaxSize, not the guard's JSON bodies: its handler bounds them.
const uploadPath = "/api/v1/models"

// bodyLimit is the guard's body limit for every request but an upload
// and a configuration read.
func (s *Server) bodyLimit(limit echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		limited := limit(next)
		return func(c echo.Context) error {
			if c.Request().Method == http.MethodPost && (c.Path() == uploadPath || c.Path() == configReadPath) {
				return next(c)
			}
			return limited(c)
		}
	}
}

// handleError answers every error a handler or middleware returns: JSON
// {"error": ...} under /api/, a notice swapped into the page for htmx
// requests (the board stays as it was), a page with the notice above a
// fresh board otherwise. No stack or internal detail ever reaches the
// client.
func (s *Server) handleError(err error, c echo.Context) {
	p := problem.Describe(err)
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
	if p.Status >= 500 {
		s.logFailure(req, p, err)
	}
	api := strings.HasPrefix(req.URL.Path, "/api/")
	if p.RetryAfter > 0 && (api || !isHTMX(req)) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	var werr error
	switch {
	case api:
		werr = c.JSON(p.Status, apiError{Error: p.Message})
	case isHTMX(req):
		werr = s.renderNotice(c, p)
	default:
		// Handlers answer their own failures with the best page they can
		// (modelFail); what reaches here (an address that names nothing,
		// one too long, a fault) gets the notice and no model, computing
		// nothing: drawing one after a fault could meet the fault again,
		// and this runs outside the recover middleware.
		werr = s.render(c, p.Status, "model-page", view.NewModelPage(s.site, view.ModelNotice(modelstate.State{}, p)))
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
	if c.QueryParam("v") == s.site.Version {
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

// headStartsNoWork marks the context of a HEAD request so that it starts
// no compile or load that takes long (spaces.NoWork): it answers from the
// spaces compiled, as a page that shows progress when they are not.
func headStartsNoWork(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if r := c.Request(); r.Method == http.MethodHead {
			c.SetRequest(r.WithContext(spaces.NoWork(r.Context())))
		}
		return next(c)
	}
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
