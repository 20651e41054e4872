package server

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/guard"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/view"
)

// board serves the page (GET /) and the htmx requests of its controls
// (GET /play): it reads the state and the action from the query, runs the
// action on the backends of the state's mode, and answers with the whole
// page, or with the app fragment for htmx, telling htmx which address to
// push into the browser's history.
func (s *Server) board(c echo.Context) error {
	ctx := c.Request().Context()
	v, err := query(c)
	if err != nil {
		return s.fail(c, s.lineup.Default(), nil, board.Action{}, err)
	}
	trail := board.ParseTrail(v.Get("t"), s.cfg.Guard.RequestDeadline)
	st, err := board.Parse(v, s.lineup)
	if err != nil {
		return s.fail(c, st, trail, board.Action{}, err)
	}
	act, err := board.ParseAction(v, st)
	if err != nil {
		return s.fail(c, st, trail, board.Action{}, err)
	}
	r, err := s.step(ctx, st, act)
	if err != nil {
		return s.fail(c, st, trail, act, err)
	}
	r.Name = v.Get("l")
	if !board.ValidLabel(r.Name) {
		r.Name = ""
	}
	if r.Name == "" && !isHTMX(c.Request()) {
		r.Name = "open"
	}
	app := view.StepApp(s.site, r, trail, s.prep(r.State))
	if isHTMX(c.Request()) {
		h := c.Response().Header()
		switch {
		case act.ChangesState():
			h.Set("HX-Push-Url", r.State.Href())
		case act.Kind == board.Refresh:
			h.Set("HX-Replace-Url", r.State.Href())
		}
		return s.render(c, http.StatusOK, "app", app)
	}
	if act.Kind == board.Place || act.Kind == board.Remove || act.Kind == board.Complete {
		// Without JavaScript the forms land here: answer with the new
		// state's address, so a reload does not repeat the action.
		return c.Redirect(http.StatusSeeOther, r.State.Href())
	}
	return s.render(c, http.StatusOK, "page", view.NewPage(s.site, app))
}

// fail answers a request that could not be served as asked, within the
// request. An htmx request gets a notice and keeps the board it shows; a
// page shows the notice above the best board it can: the same state when
// only the action failed, the longest start of the queens that some
// solution holds when the queens themselves fail
// (configurator.FeasiblePrefix), or no board at all when the board itself
// cannot be compiled.
func (s *Server) fail(c echo.Context, st board.State, trail []board.Step, act board.Action, err error) error {
	var ce *compilingError
	if errors.As(err, &ce) {
		return s.compilingPage(c, st, trail, ce)
	}
	p := problem.Describe(err)
	if p.Status >= 500 {
		s.logFailure(c.Request(), p, err)
	}
	if p.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", fmt.Sprint(p.RetryAfter))
	}
	req := c.Request()
	if isHTMX(req) && act.Kind != board.Refresh {
		return s.renderNotice(c, p)
	}
	// The page's fallback board is analysed within what is left of the
	// request's own deadline on its primary backend, and not at all after
	// a failure of time or load: the work that failed is not done again.
	// A board refused in its variable order (beyond the node budget, or
	// without the compiled file it alone is served from) falls back to
	// rank by rank, the order of the backends' limits.
	fallback := st.With(func(b *board.State) {
		if errors.Is(err, configurator.ErrTooLarge) {
			b.Order = configurator.RowMajor
		}
	})
	ctx, cancel := context.WithDeadline(req.Context(), guard.Start(c).Add(s.deadline(s.lineup.Backends(st.Mode)[0])))
	defer cancel()
	var entries []*spaces.Space
	if !p.Overloaded() && ctx.Err() == nil {
		entries, err = s.spacesFor(ctx, fallback, s.cfg.QuickWait)
	} else {
		err = context.DeadlineExceeded
	}
	if err == nil && act.Kind == board.Show && (p.Status == http.StatusUnprocessableEntity || p.Status == http.StatusBadRequest) && len(st.Queens) > 0 {
		// The search for the longest feasible start takes its turn on
		// the space as any query does; cut short, it keeps the longest
		// start it has proved feasible.
		var done func()
		if done, err = configurator.Admit(ctx, entries[0].Space); err == nil {
			fallback.Queens = configurator.FeasiblePrefix(ctx, entries[0].Space, st.Queens)
			done()
		}
	}
	var app *view.App
	if err == nil && ctx.Err() == nil {
		if r, err := s.stepOn(ctx, fallback, board.Action{Kind: board.Show}, entries); err == nil {
			s.measure(ctx, r, entries[0])
			if !isHTMX(req) {
				r.Name = "open"
			}
			app = view.StepApp(s.site, r, trail, s.prep(r.State))
		}
	}
	if app == nil {
		app = view.NewApp(s.site, fallback, board.FormatTrail(trail), s.prep(fallback))
		app.Fatal = true
	}
	app.Notice = view.NoticeOf(p)
	if isHTMX(req) {
		c.Response().Header().Set("HX-Replace-Url", fallback.Href())
		return s.render(c, p.Status, "app", app)
	}
	if req.URL.Path == "/" || req.URL.Path == "/play" {
		app.Shown = fallback.Href()
	}
	return s.render(c, p.Status, "page", view.NewPage(s.site, app))
}

// notFound answers a GET of an address that names nothing with a notice
// above a fresh board.
func (s *Server) notFound(c echo.Context) error {
	if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
		return echo.ErrNotFound
	}
	return s.fail(c, s.lineup.Default(), nil, board.Action{}, echo.ErrNotFound)
}

// compilingPage answers while a board is still being compiled: the
// controls work, and a progress stream tells the page when the board is
// ready.
func (s *Server) compilingPage(c echo.Context, st board.State, trail []board.Step, ce *compilingError) error {
	app := view.CompilingApp(s.site, st, board.FormatTrail(trail), s.prep(st), s.preparing(ce.keys))
	if isHTMX(c.Request()) {
		c.Response().Header().Set("HX-Push-Url", st.Href())
		return s.render(c, http.StatusOK, "app", app)
	}
	return s.render(c, http.StatusOK, "page", view.NewPage(s.site, app))
}

// progress streams a compile's progress as server-sent events: a
// "progress" event with an HTML fragment every half second, and "done"
// when the spaces are ready (or failed: the page then asks for the board
// and shows why). The stream counts as a waiter, so the compile goes on
// while someone watches, and ends with the server's shutdown. HEAD gets
// the stream's headers only.
func (s *Server) progress(c echo.Context) error {
	st, err := s.queryState(c)
	if err != nil {
		return err
	}
	var keys []spaces.Key
	for _, b := range s.lineup.Backends(st.Mode) {
		keys = append(keys, s.key(b, st))
	}
	ctx := c.Request().Context()
	res := c.Response()
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	res.WriteHeader(http.StatusOK)
	if c.Request().Method == http.MethodHead {
		return nil // the headers say what GET would stream; no compile starts
	}
	send := func(event, data string) {
		fmt.Fprintf(res, "event: %s\ndata: %s\n\n", event, strings.ReplaceAll(data, "\n", " "))
		res.Flush()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, k := range keys {
			if _, err := s.spaces.Get(ctx, k); err != nil {
				return
			}
		}
	}()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			send("progress", "<p>Ready.</p>")
			send("done", "ready")
			return nil
		case <-tick.C:
			send("progress", "<p>"+html.EscapeString(view.Progress(s.preparing(keys)))+"</p>")
		case <-ctx.Done():
			<-done
			return nil
		case <-s.quit:
			send("progress", "<p>The server is restarting; reload the page in a moment.</p>")
			return nil
		}
	}
}

// diagramSVG draws the BDD of the remaining solutions as SVG, for boards
// whose restricted diagram is within the node cap.
func (s *Server) diagramSVG(c echo.Context) error {
	st, err := s.queryState(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	// The primary draws, whatever the page's mode.
	primary := s.lineup.Primary()
	st.Mode = board.Mode(primary)
	e, err := s.space(ctx, s.key(primary, st))
	if err != nil {
		return s.compileProblem(ctx, s.key(primary, st), err)
	}
	dg, ok := e.Space.(configurator.Diagrammer)
	if !ok {
		return problem.New(http.StatusNotFound, "This backend draws no diagram.")
	}
	if _, err := configurator.NewSession(ctx, e.Space, st.Queens); err != nil && len(st.Queens) > 0 {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, s.cfg.DiagramDeadline)
	defer cancel()
	dot, nodes, err := dg.Diagram(dctx, st.Queens, s.cfg.DiagramNodes)
	if err != nil {
		return err
	}
	if nodes > s.cfg.DiagramNodes {
		return problem.New(http.StatusRequestEntityTooLarge, "The diagram has %d nodes; this server draws at most %d.", nodes, s.cfg.DiagramNodes)
	}
	svg, err := s.draw.SVG(dctx, st.Query(), dot)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "private, max-age=3600")
	return c.Blob(http.StatusOK, "image/svg+xml", svg)
}
