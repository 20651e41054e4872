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
	"github.com/nqueens/configurator/configurator/bytesize"
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
		return s.fail(c, s.lim.defaultState(), nil, action{}, err)
	}
	trail := parseTrail(v.Get("t"), s.cfg.RequestDeadline)
	st, err := parseState(v, s.lim)
	if err != nil {
		return s.fail(c, st, trail, action{}, err)
	}
	act, err := parseAction(v, st)
	if err != nil {
		return s.fail(c, st, trail, action{}, err)
	}
	r, err := s.play(ctx, st, act)
	if err != nil {
		return s.fail(c, st, trail, act, err)
	}
	r.name = v.Get("l")
	if !validLabel(r.name) {
		r.name = ""
	}
	if r.name == "" && !isHTMX(c.Request()) {
		r.name = "open"
	}
	view := s.resultView(r, trail)
	if isHTMX(c.Request()) {
		h := c.Response().Header()
		switch {
		case act.changesState():
			h.Set("HX-Push-Url", r.state.href())
		case act.Kind == actRefresh:
			h.Set("HX-Replace-Url", r.state.href())
		}
		return s.render(c, http.StatusOK, "app", view)
	}
	if act.Kind == actPlace || act.Kind == actRemove || act.Kind == actComplete {
		// Without JavaScript the forms land here: answer with the new
		// state's address, so a reload does not repeat the action.
		return c.Redirect(http.StatusSeeOther, r.state.href())
	}
	return s.render(c, http.StatusOK, "page", s.pageView(view))
}

// fail answers a request that could not be served as asked, within the
// request. An htmx request gets a notice and keeps the board it shows; a
// page shows the notice above the best board it can: the same state when
// only the action failed, the longest start of the queens that some
// solution holds when the queens themselves fail
// (configurator.FeasiblePrefix), or no board at all when the board itself
// cannot be compiled.
func (s *Server) fail(c echo.Context, st boardState, trail []step, act action, err error) error {
	var ce *compilingError
	if errors.As(err, &ce) {
		return s.compilingPage(c, st, trail, ce)
	}
	p := describe(err)
	if p.Status >= 500 {
		s.logFailure(c.Request(), p, err)
	}
	if p.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", fmt.Sprint(p.RetryAfter))
	}
	req := c.Request()
	if isHTMX(req) && act.Kind != actRefresh {
		return s.renderNotice(c, p)
	}
	// The page's fallback board is analysed within what is left of the
	// request's own deadline on its primary backend, and not at all after
	// a failure of time or load: the work that failed is not done again.
	// A board refused in its variable order (beyond the node budget, or
	// without the compiled file it alone is served from) falls back to
	// rank by rank, the order of the backends' limits.
	fallback := st.with(func(b *boardState) {
		if errors.Is(err, configurator.ErrTooLarge) {
			b.Order = configurator.RowMajor
		}
	})
	ctx, cancel := context.WithDeadline(req.Context(), requestStart(c).Add(s.deadline(s.lim.backends(st.Mode)[0])))
	defer cancel()
	var spaces []*compiled
	if !overloaded(p) && ctx.Err() == nil {
		spaces, err = s.spaces(ctx, fallback, s.cfg.QuickWait)
	} else {
		err = context.DeadlineExceeded
	}
	if err == nil && act.Kind == actShow && p.Status == http.StatusUnprocessableEntity && len(st.Queens) > 0 {
		// The search for the longest feasible start takes its turn on
		// the space as any query does; cut short, it keeps the longest
		// start it has proved feasible.
		var done func()
		if done, err = configurator.Admit(ctx, spaces[0].space); err == nil {
			fallback.Queens = configurator.FeasiblePrefix(ctx, spaces[0].space, st.Queens)
			done()
		}
	}
	view := s.newAppView(fallback, formatTrail(trail))
	view.Fatal = true
	if err == nil && ctx.Err() == nil {
		if r, err := s.step(ctx, fallback, action{Kind: actShow}, spaces); err == nil {
			s.measure(ctx, r)
			if !isHTMX(req) {
				r.name = "open"
			}
			view = s.resultView(r, trail)
		}
	}
	view.Notice = noticeOf(p)
	if isHTMX(req) {
		c.Response().Header().Set("HX-Replace-Url", fallback.href())
		return s.render(c, p.Status, "app", view)
	}
	if req.URL.Path == "/" || req.URL.Path == "/play" {
		view.Shown = fallback.href()
	}
	return s.render(c, p.Status, "page", s.pageView(view))
}

// overloaded reports whether a problem comes from time or load (a deadline,
// a full queue, a client's limit): answering it must not start more work.
func overloaded(p *problem) bool {
	return p.Status >= http.StatusInternalServerError || p.Status == http.StatusTooManyRequests
}

// notFound answers a GET of an address that names nothing with a notice
// above a fresh board.
func (s *Server) notFound(c echo.Context) error {
	if m := c.Request().Method; m != http.MethodGet && m != http.MethodHead {
		return echo.ErrNotFound
	}
	return s.fail(c, s.lim.defaultState(), nil, action{}, echo.ErrNotFound)
}

// compilingPage answers while a board is still being compiled: the
// controls work, and a progress stream tells the page when the board is
// ready.
func (s *Server) compilingPage(c echo.Context, st boardState, trail []step, ce *compilingError) error {
	view := s.newAppView(st, formatTrail(trail))
	view.Compiling = &compilingView{
		Text:    s.progressText(ce.keys),
		Events:  "/events/compile?" + st.query(),
		Refresh: st.play(view.Trail, "refresh", "1"),
	}
	if isHTMX(c.Request()) {
		c.Response().Header().Set("HX-Push-Url", st.href())
		return s.render(c, http.StatusOK, "app", view)
	}
	return s.render(c, http.StatusOK, "page", s.pageView(view))
}

// progressText says what is being compiled, or loaded from its compiled
// file, and for how long; once made, a space's compile counts its empty
// board's solutions, which the text says too.
func (s *Server) progressText(keys []spaceKey) string {
	var parts []string
	for _, k := range keys {
		if s.cache.Cached(k) {
			continue
		}
		board := fmt.Sprintf("the %d×%d %s", k.n, k.n, strings.ToUpper(k.backend))
		if s.lim.ordered[k.backend] {
			board += " (" + orderLabels[k.order] + ")"
		}
		f, loading := s.loading(k)
		started, running := s.cache.Progress(k)
		var what string
		if since, ok := s.counting.Load(k); ok {
			what = "counting all the solutions of " + board + ", a sweep of its whole diagram"
			started, running = since.(time.Time), true
		} else if loading {
			what = "loading " + board + " from its compiled file (" + bytesize.Format(f.Bytes) + ")"
		} else {
			what = "compiling " + board
		}
		if running {
			what += ": " + sinceText(started) + " so far"
		}
		// The last smaller board compiled gives a sense of scale: each
		// size up takes several times longer. A load reads its file at
		// the disk's pace, which the size says.
		for m := k.n - 1; strings.HasPrefix(what, "compiling") && m >= max(1, k.n-3); m-- {
			if took, ok := s.cache.Took(spaceKey{backend: k.backend, n: m, order: k.order}); ok {
				what += fmt.Sprintf(" (the %d×%d took %s)", m, m, duration(took))
				break
			}
		}
		parts = append(parts, what)
	}
	if len(parts) == 0 {
		return "Ready; the board is on its way."
	}
	return upperFirst(strings.Join(parts, "; ")) + ". This happens once per board size; the result is cached."
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
	var keys []spaceKey
	for _, b := range s.lim.backends(st.Mode) {
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
			if _, err := s.cache.Get(ctx, k); err != nil {
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
			send("progress", "<p>"+html.EscapeString(s.progressText(keys))+"</p>")
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
	primary := s.lim.names[0]
	st.Mode = mode(primary)
	e, err := s.space(ctx, s.key(primary, st))
	if err != nil {
		return s.compileProblem(ctx, s.key(primary, st), err)
	}
	dg, ok := e.space.(configurator.Diagrammer)
	if !ok {
		return problemf(http.StatusNotFound, "This backend draws no diagram.")
	}
	if _, err := configurator.NewSession(ctx, e.space, st.Queens); err != nil && len(st.Queens) > 0 {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, s.cfg.DiagramDeadline)
	defer cancel()
	dot, nodes, err := dg.Diagram(dctx, st.Queens, s.cfg.DiagramNodes)
	if err != nil {
		return err
	}
	if nodes > s.cfg.DiagramNodes {
		return problemf(http.StatusRequestEntityTooLarge, "The diagram has %d nodes; this server draws at most %d.", nodes, s.cfg.DiagramNodes)
	}
	svg, err := s.draw.SVG(dctx, st.query(), dot)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "private, max-age=3600")
	return c.Blob(http.StatusOK, "image/svg+xml", svg)
}
