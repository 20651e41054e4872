// Package server is the BDD/SAT configurator's web server: a page on
// which a person configures a model (a feature model of their own, a
// bundled example, or a built-in N-Queens board drawn as a board) and
// sees, after every step, which choices stay possible, what is forced,
// how many configurations remain and why, answered by any registered
// backend or all of them side by side; and a JSON API with the same
// answers. cmd/web runs it; tests, the soak driver and the benchmarks
// start it in their own process with Run or New.
//
// The server owns the routes, the handlers and the step: a handler reads
// the state from the address (packages modelstate and board), takes the
// compiled spaces of its mode from the store of models (package models),
// whose built-in boards, like the board API's, come from the one cache of
// compiled boards (package spaces), makes its calls into the one session
// (configurator.FeatureSession) on each backend, and hands what it got to
// the views (package view), which render it. The HTTP guard (package
// guard) stands in front of every route; errors reach people as problems
// (package problem). The server imports no backend: what it offers of
// each follows from the backend's facets (configurator's optional
// interfaces), and cmd/web names the backends.
package server

import (
	"cmp"
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
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/guard"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/view"
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
	cfg     Config
	log     *slog.Logger
	engines map[string]Engine      // by name
	lineup  *board.Lineup          // the backends in the order registered: the first is the primary
	spaces  *spaces.Cache          // the compiled spaces of boards and models
	models  *models.Store          // the feature models: files, uploads, IDs
	answers recent[string, answer] // the model page's last answers (see answerKey)
	missed  missedDeadlines        // the backends Both leaves out, by model
	site    *view.Site
	tmpl    *template.Template
	static  fs.FS
	guard   *guard.Guard
	metrics *metrics // what /metrics on the debug listener serves
	// graphs holds, by backend name, whether the backend's boards lay out
	// a graph (configurator.Grapher), known from the spaces it compiled.
	graphs sync.Map
}

// New returns a server over the given engines, the primary first. It
// compiles nothing until asked; Close releases what it holds.
func New(cfg Config, log *slog.Logger, engines ...Engine) (*Server, error) {
	// First, before anything is allocated: a build without a script its
	// pages load serves pages that do not work.
	if err := frontend.Check(frontend.Files); err != nil {
		return nil, fmt.Errorf("web server: %w", err)
	}
	if len(engines) == 0 {
		return nil, errors.New("web server: no backend")
	}
	backends := make([]configurator.Backend, len(engines))
	for i, e := range engines {
		backends[i] = e.Backend
	}
	lineup, err := board.NewLineup(backends...)
	if err != nil {
		return nil, fmt.Errorf("web server: %w", err)
	}
	s := &Server{
		cfg:     cfg,
		log:     log,
		answers: recent[string, answer]{max: maxAnswers},
		missed:  missedDeadlines{at: recent[missKey, time.Time]{max: maxMissed}},
		engines: make(map[string]Engine),
		lineup:  lineup,
		guard:   guard.New(cfg.Guard),
		site:    &view.Site{Lineup: lineup, Titles: map[string]string{}},
	}
	for _, e := range engines {
		name := e.Backend.Name()
		s.engines[name] = e
		s.site.Titles[name] = e.Title
		s.warnBound(name, e.Backend.Limits())
	}
	s.metrics = newMetrics(s)
	if s.models, err = models.New(cfg.Models, log); err != nil {
		return nil, fmt.Errorf("web server: %w", err)
	}
	// A model's compile holds its memory in the one bound, as a board's
	// does: up to its backend's budget, never more than the bound, and
	// reserving at most the models' share of memory.
	sc := cfg.Spaces
	sc.Budgets = make(map[string]int64, len(engines))
	for _, e := range engines {
		if e.Budget > 0 {
			sc.Budgets[e.Backend.Name()] = min(e.Budget, cfg.Spaces.Bytes)
		}
	}
	sc.ModelReserve = cmp.Or(sc.ModelReserve, cfg.Models.Bytes)
	s.spaces = spaces.New(backends, s.readModel, sc, log, s.compiled)
	if s.static, err = fs.Sub(frontend.Files, "static"); err != nil {
		return nil, err
	}
	if s.site.Version, err = hashFiles(s.static); err != nil {
		return nil, err
	}
	if s.tmpl, err = view.ParseTemplates(); err != nil {
		return nil, fmt.Errorf("web server: %w", err)
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
	if f, ok := s.lineup.File(name, next, configurator.RowMajor); ok && f.Missing() {
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

// compiled is the cache's observer: it counts every compile for the
// metrics and learns from each board's space whether its backend's
// spaces lay out a graph.
func (s *Server) compiled(k spaces.Key, sp configurator.Board, took time.Duration, err error) {
	s.metrics.compiled(k.Backend, took, err)
	if sp != nil {
		_, graph := sp.(configurator.Grapher)
		s.graphs.Store(k.Backend, graph)
	}
}

// Close cancels the compiles in progress and the detached work, and
// waits for them.
func (s *Server) Close() {
	s.spaces.Close()
	s.models.Close()
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

// deadline is the per-request deadline of a backend.
func (s *Server) deadline(backend string) time.Duration {
	if e, ok := s.engines[backend]; ok {
		return e.Deadline
	}
	return s.engines[s.lineup.Primary()].Deadline
}
