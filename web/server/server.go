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
// The files, each using only those after it (no two refer to each
// other): run.go (Run); routes.go (the routes, the middleware and the
// error handler); pages.go and api.go (the handlers); respond.go
// (rendering, logging failures); view.go (what the templates print);
// work.go (a step on every backend of a mode, with the session); debug.go
// (the loopback debug routes); server.go (Server, New, compiles); cache.go
// (compiled spaces); state.go (the board in the URL); problem.go (errors
// in words); diagram.go (DOT to SVG); config.go.
package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/frontend"
)

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
	clients  *clientLimiter // the per-client limits of every route that does work
	metrics  *metrics       // what /metrics on the debug listener serves

	quit     chan struct{} // closed when shutdown begins: progress streams end
	quitOnce sync.Once

	// life ends when the server closes (end): the work that requests
	// share but none of them owns (see countEmpty) runs under it, and
	// Close waits for it (detached).
	life     context.Context
	end      context.CancelFunc
	detached sync.WaitGroup
	// counting holds, for each key whose compile is counting its empty
	// board's solutions, when the count began (time.Time), for the
	// progress page.
	counting sync.Map
}

// templateFuncs are the helpers the templates use.
var templateFuncs = template.FuncMap{
	"heatSteps": func() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} },
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
		lim:      limits{maxN: map[string]int{}, why: map[string]string{}, ordered: map[string]bool{}, filers: map[string]configurator.Filer{}},
		quit:     make(chan struct{}),
		draw:     newDrawer(),
		clients:  newClientLimiter(cfg.Client, cfg.Loopback),
	}
	s.life, s.end = context.WithCancel(context.Background())
	for _, e := range engines {
		name := e.Backend.Name()
		if _, dup := s.backends[name]; dup {
			return nil, fmt.Errorf("web server: two backends named %q", name)
		}
		s.backends[name] = e
		l := e.Backend.Limits()
		s.lim.names = append(s.lim.names, name)
		s.lim.maxN[name], s.lim.why[name], s.lim.ordered[name] = l.MaxN, l.Bound, l.Ordered
		if f, ok := e.Backend.(configurator.Filer); ok {
			s.lim.filers[name] = f
		}
		s.warnBound(name, l)
	}
	s.cache = newSpaceCache(s.compile, cfg.CacheBytes, s.heavyCompile, cfg.CompileSlots, cfg.CompileGrace)
	s.metrics = newMetrics(s)
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

// warnBound logs, at start, what makes a backend's largest board smaller
// than its flag allows, so that the person who runs the server knows what
// to change: a board served from a compiled file alone whose file is
// missing (and the command that makes it), or the backend's own bound
// (its node budget, in its words). A board lowered by the flag alone is
// what was asked for, and not logged.
func (s *Server) warnBound(name string, l configurator.Limits) {
	if l.Bound == "" {
		return
	}
	next := l.MaxN + 1
	msg := fmt.Sprintf("%s serves boards up to %d×%d only, not up to its largest board setting: ", strings.ToUpper(name), l.MaxN, l.MaxN)
	if f, ok := s.lim.file(name, next, configurator.RowMajor); ok && f.Missing() {
		msg += fmt.Sprintf("it compiles boards up to %d×%d itself and serves %d×%d from a compiled file alone, which is not there", l.MaxN, l.MaxN, next, next)
		if f.Command == "" {
			s.log.Warn(msg+", and the server keeps no directory of compiled files", "backend", name)
			return
		}
		s.log.Warn(msg+"; make it once with the command below and restart the server", "backend", name, "command", f.Command)
		return
	}
	s.log.Warn(msg+l.Bound, "backend", name)
}

// beginShutdown ends the progress streams, which would otherwise hold the
// graceful shutdown open until its deadline.
func (s *Server) beginShutdown() { s.quitOnce.Do(func() { close(s.quit) }) }

// Close cancels the compiles in progress and the detached work, waits
// for them, and releases the renderer.
func (s *Server) Close() {
	s.beginShutdown()
	s.end()
	s.cache.Close()
	s.detached.Wait()
	s.draw.Close()
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
	s.metrics.compiled(k.backend, time.Since(start), err)
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
	s.counting.Store(k, time.Now())
	a, left, err := s.countEmpty(ctx, k, sp, res)
	s.counting.Delete(k)
	switch {
	case left:
		s.log.Info("the empty board's count goes on without the compile's waiters", "backend", k.backend, "n", k.n, "err", err)
	case err != nil && !errors.Is(err, configurator.ErrNoSolution):
		s.log.Warn("counting the empty board's solutions", "backend", k.backend, "n", k.n, "err", err)
	}
	res.setTotal(a, err)
	verb := "compiled"
	if res.loaded() {
		verb = "loaded from its compiled file"
	}
	s.log.Info(verb, "backend", k.backend, "n", k.n, "order", k.order.String(), "took", took, "bytes", res.bytes)
	return res, nil
}

// countEmpty analyses the empty board of a fresh space, for the count of
// all its solutions. The analysis is work that every request on the space
// shares (a BDD keeps it, 5 to 7 s of a core at 16×16, and a request that
// asks for it meanwhile waits for the one under way), so it runs detached
// from the requests waiting for the compile: under the server's lifetime
// and the compile deadline, never cancelled by a waiter that gives up (a
// client gone, a request's deadline) or by the last one leaving, so that
// a later request finds it done or under way instead of starting it
// again. When ctx ends first, countEmpty returns with left set and the
// analysis goes on: it then fills in res's total when it ends (the space
// is cached by then, and a solved board says "one of N" from then on),
// or, if it fails, logs why itself.
func (s *Server) countEmpty(ctx context.Context, k spaceKey, sp configurator.Space, res *compiled) (a *configurator.Analysis, left bool, err error) {
	type answer struct {
		a   *configurator.Analysis
		err error
	}
	done := make(chan answer, 1)
	var mu sync.Mutex // held to answer, and to leave: one or the other
	gone := false
	s.detached.Add(1)
	go func() {
		defer s.detached.Done()
		dctx, cancel := context.WithTimeout(s.life, s.cfg.CompileDeadline)
		defer cancel()
		start := time.Now()
		a, err := sp.Analyze(dctx, nil)
		mu.Lock()
		defer mu.Unlock()
		if !gone {
			done <- answer{a, err}
			return
		}
		res.setTotal(a, err)
		if err != nil && !errors.Is(err, configurator.ErrNoSolution) {
			s.log.Warn("counting the empty board's solutions", "backend", k.backend, "n", k.n, "after", time.Since(start), "err", err)
		}
	}()
	select {
	case r := <-done:
		return r.a, false, r.err
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		select {
		case r := <-done:
			return r.a, false, r.err
		default:
			gone = true
			return nil, true, ctx.Err()
		}
	}
}

// loading reports whether a compile of k is a load: its backend keeps
// compiled spaces in files (configurator.Filer) and has k's, which
// Compile loads instead of compiling (unless the file proves unsound).
func (s *Server) loading(k spaceKey) (configurator.SpaceFile, bool) {
	f, ok := s.lim.file(k.backend, k.n, k.order)
	return f, ok && f.Path != ""
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
