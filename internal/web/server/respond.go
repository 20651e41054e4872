package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
)

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
func (s *Server) logFailure(req *http.Request, p *problem.Problem, err error) {
	s.log.Log(req.Context(), failureLevel(p.Status), "request failed", "uri", truncate(req.RequestURI, 200), "status", p.Status, "err", err)
}

// isHTMX reports whether a request is an htmx request for a fragment (and
// not htmx restoring history, which wants the whole page).
func isHTMX(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-History-Restore-Request") != "true"
}

// renderNotice answers an htmx request with a notice that replaces only the
// notice area, so the board keeps its last good state.
func (s *Server) renderNotice(c echo.Context, p *problem.Problem) error {
	h := c.Response().Header()
	h.Set("HX-Retarget", "#notice")
	h.Set("HX-Reswap", "innerHTML")
	return s.render(c, p.Status, "notice", view.NoticeOf(p))
}

// render executes a template into a buffer first, so that a template error
// becomes a clean 500 instead of half a page.
func (s *Server) render(c echo.Context, status int, name string, data any) error {
	var b strings.Builder
	start := time.Now()
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("template %s: %w", name, err)
	}
	c.Set(ctxRenderTime, time.Since(start))
	c.Response().Header().Set("Vary", "HX-Request")
	return c.HTML(status, b.String())
}

// query parses the request's query string strictly: a malformed part is
// a 400 that names it, rather than a silently dropped parameter.
func query(c echo.Context) (url.Values, error) {
	raw := c.Request().URL.RawQuery
	v, err := url.ParseQuery(raw)
	if err != nil {
		return nil, problem.New(http.StatusBadRequest, "The address is malformed: %s Start again from a fresh board.", malformed(raw))
	}
	return v, nil
}

// malformed says in words what is wrong with the first bad part of a query
// that url.ParseQuery refused, without repeating the parser's own text.
func malformed(raw string) string {
	for part := range strings.SplitSeq(raw, "&") {
		if strings.Contains(part, ";") {
			return fmt.Sprintf("%s holds a semicolon; separate the parameters with & and the queens with commas (q=a1,c5).", words.Quote(part))
		}
		if _, err := url.QueryUnescape(part); err != nil {
			return fmt.Sprintf("%s has a %% that is not followed by two hexadecimal digits.", words.Quote(part))
		}
	}
	return "it cannot be read."
}

// truncate shortens s to at most n bytes for logs.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
