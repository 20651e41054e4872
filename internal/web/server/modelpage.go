package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
)

// The model page (GET /?model=ID&select=A,B&deselect=C): one feature
// model configured by decisions, answered by every backend of the mode.
// Like the board, it keeps nothing on the server: the decisions come with
// every request, the compiled spaces from the store of models.

// modelPage serves the model page and the htmx requests of its controls:
// it reads the state and the step from the query, runs the step on the
// backends of the mode, and answers with the page, or with the app for
// htmx, telling htmx which address to push (a decision, Why?) or to put in
// place of the one shown (a search, a subtree opened).
func (s *Server) modelPage(c echo.Context, v url.Values) error {
	ctx := c.Request().Context()
	if v.Has("poll") {
		ctx = context.WithValue(ctx, askingAgain{}, true)
	}
	st, err := modelstate.Parse(v)
	if err != nil {
		return s.modelFail(c, st, err)
	}
	act, err := modelstate.ParseAction(v)
	if err != nil {
		return s.modelFail(c, st, err)
	}
	m, info, err := s.models.Model(ctx, st.Model)
	if err != nil {
		return s.modelFail(c, st, err)
	}
	// What the page cannot show as asked, it shows as near as it can,
	// with a notice that says what it changed: an unknown backend gives
	// way to the first; decisions that no configuration keeps lose the
	// smallest set of them that conflicts (a hand-made address); a step
	// that cannot be taken leaves the configuration as it was.
	var notice *problem.Problem
	if _, ok := s.lineup.ParseMode(st.Backend); st.Backend != "" && !ok {
		notice = problem.New(http.StatusBadRequest, "%s is not a backend: choose %s. The page shows the first.", words.Quote(st.Backend), s.lineup.Choices(true, false))
		st.Backend = ""
	}
	before := st
	if st, err = applyStep(st, act, m); err != nil {
		return s.modelFail(c, before, err)
	}
	r, err := s.modelStep(ctx, before, st, act, m)
	var conflict *configurator.Conflict
	switch {
	case err != nil && act.Decides():
		// A decision the others exclude: the notice says why, over the
		// configuration as it was.
		notice, act, st = problem.Describe(pageProblem(err)), modelstate.Action{}, before
		r, err = s.modelStep(ctx, before, st, act, m)
	case errors.As(err, &conflict) && len(conflict.Decisions) > 0:
		names := make([]string, len(conflict.Decisions))
		for i, d := range conflict.Decisions {
			names[i] = m.Features[d.Feature].Name
		}
		notice = problem.New(http.StatusUnprocessableEntity, "%s The page shows the configuration without %s.",
			words.Sentence(conflict.Error()), words.List(names, "and"))
		st = st.Without(names...)
		r, err = s.modelStep(ctx, before, st, act, m)
	}
	if err != nil {
		return s.modelFail(c, st, err)
	}
	r.RuleOut, r.Name = modelstate.RuleOut(v), info.Name
	if n, ok := configurator.ParseBoardID(st.Model); ok {
		// What the order does is the board's own lesson: the figures of
		// the orders the cache holds, and a button that makes the others.
		if f := s.orderFacts(ctx, n, false); f != nil {
			r.Orders = view.NewOrdersPanel(n, f)
		}
	}
	r.Trail = board.ParseTrail(v.Get("t"), s.cfg.Guard.RequestDeadline)
	if !v.Has("poll") {
		// The page asking again by itself (poll) is no step of the
		// person's.
		r.Trail = append([]board.Step{s.modelTrailStep(r, act)}, r.Trail...)
	}
	if len(r.Trail) > board.MaxSteps {
		r.Trail = r.Trail[:board.MaxSteps]
	}
	if act.Kind != modelstate.View && !isHTMX(c.Request()) && notice == nil {
		// Without JavaScript the form lands here: answer with the new
		// state's address, so that a reload does not repeat the step.
		return c.Redirect(http.StatusSeeOther, r.State.Href())
	}
	return s.modelRender(c, r.State, act, r, notice)
}

// modelRender answers with the page, or with the app for htmx.
func (s *Server) modelRender(c echo.Context, st modelstate.State, act modelstate.Action, r *view.ModelStep, p *problem.Problem) error {
	app := view.NewModelApp(s.site, r)
	status := http.StatusOK
	if p != nil {
		app.Notice, status = view.NoticeOf(p), p.Status
	}
	if isHTMX(c.Request()) {
		h := c.Response().Header()
		if act.Kept() || otherPage(c.Request(), st) {
			h.Set("HX-Push-Url", st.Href())
		} else {
			h.Set("HX-Replace-Url", st.Href())
		}
		return s.render(c, status, "model-app", app)
	}
	return s.render(c, status, "model-page", view.NewModelPage(s.site, app))
}

// otherPage reports whether an htmx request asks for another model or
// backend than the page it came from (htmx's HX-Current-URL): a board
// size or a backend chosen is an entry of the browser's history of its
// own, which Back undoes, as a decision is.
func otherPage(r *http.Request, st modelstate.State) bool {
	cur, err := url.Parse(r.Header.Get("HX-Current-URL"))
	if err != nil || cur.RawQuery == "" {
		return false
	}
	q := cur.Query()
	return q.Get("model") != st.Model || strings.ToLower(q.Get("backend")) != st.Backend
}

// modelFail answers a request of the model page that cannot show its
// model: a notice for htmx, the page with the notice otherwise.
func (s *Server) modelFail(c echo.Context, st modelstate.State, err error) error {
	if errors.As(err, new(*stillCompiling)) {
		// No backend can answer yet: not a dead end but a wait, which
		// the page says and ends by itself, asking again until one
		// answers.
		app := view.ModelNotice(st, &problem.Problem{Status: http.StatusOK,
			Message: words.Sentence(err.Error()) + " The page asks again every few seconds, by itself, and shows the features as soon as a backend answers."})
		app.Poll = st.Href()
		if isHTMX(c.Request()) {
			c.Response().Header().Set("HX-Replace-Url", st.Href())
			return s.render(c, http.StatusOK, "model-app", app)
		}
		return s.render(c, http.StatusOK, "model-page", view.NewModelPage(s.site, app))
	}
	p := s.pageFailure(c, err)
	if isHTMX(c.Request()) {
		return s.renderNotice(c, p)
	}
	return s.render(c, p.Status, "model-page", view.NewModelPage(s.site, view.ModelNotice(st, p)))
}

// pageFailure words the error of a request of the model page
// (pageProblem), and logs it when it is the server's fault.
func (s *Server) pageFailure(c echo.Context, err error) *problem.Problem {
	p := problem.Describe(pageProblem(err))
	if p.Status >= 500 {
		s.logFailure(c.Request(), p, err)
	}
	return p
}

// pageProblem words the errors of models that only the server knows
// (a model no longer kept, a compile still running) and a backend's
// bounds and deadline in a model's terms; problem.Describe words the others, those
// of the sessions and the readers included.
func pageProblem(err error) error {
	switch {
	case errors.As(err, new(*models.NoBoard)):
		return &problem.Problem{Status: http.StatusNotFound, Message: words.Sentence(err.Error()), Err: err}
	case errors.Is(err, models.ErrNotFound):
		return &problem.Problem{Status: http.StatusNotFound, Err: err,
			Message: "This server has no such model: it may have been forgotten to make room for others. Open it again from its file."}
	case errors.Is(err, configurator.ErrTooLarge):
		if p := (*problem.Problem)(nil); errors.As(err, &p) {
			return p // a board's, in the board's words (featureSpace)
		}
		// The backend's own words say which of its bounds the model passes.
		return &problem.Problem{Status: http.StatusRequestEntityTooLarge, Message: words.Sentence(err.Error()), Err: err}
	case errors.As(err, new(*stillCompiling)):
		return problem.Retry(5, err, "%s", words.Sentence(err.Error()))
	case errors.Is(err, context.DeadlineExceeded):
		return problem.Retry(5, err, "That took longer than the time allowed for one request on this model.")
	}
	return err
}

// applyStep returns the state after a step that needs no backend: a
// decision made or taken back, a subtree opened or closed, Why? asked or
// closed. Make room needs the backends and is done by modelStep.
func applyStep(st modelstate.State, act modelstate.Action, m *feature.Model) (modelstate.State, error) {
	name := act.Feature
	if act.Kind == modelstate.Toggle {
		name = modelstate.ParseOpen(name).Feature
	}
	if act.Kind != modelstate.View && act.Kind != modelstate.Close {
		if _, ok := m.ID(name); !ok {
			return st, fmt.Errorf("feature %q: %w", name, configurator.ErrUnknownFeature)
		}
	}
	decided, _ := st.Decided(name)
	switch act.Kind {
	case modelstate.Pick, modelstate.Drop:
		if decided {
			return st, fmt.Errorf("decide %q: %w", name, configurator.ErrDecided)
		}
		return st.With(func(s *modelstate.State) {
			if act.Kind == modelstate.Pick {
				s.Select = append(s.Select, name)
			} else {
				s.Deselect = append(s.Deselect, name)
			}
			if s.Why == name {
				s.Why = ""
			}
		}), nil
	case modelstate.Undo:
		if !decided {
			return st, fmt.Errorf("undo %q: %w", name, configurator.ErrUndecided)
		}
		return st.Without(name), nil
	case modelstate.Toggle:
		// toggle=A opens A's subtree, toggle=-A closes it, toggle=*A
		// lists every child of its groups; each replaces what the
		// state said of A before.
		return st.With(func(s *modelstate.State) {
			s.Open = slices.DeleteFunc(s.Open, func(o string) bool { return modelstate.ParseOpen(o).Feature == name })
			s.Open = append(s.Open, act.Feature)
		}), nil
	case modelstate.Ask:
		return st.With(func(s *modelstate.State) { s.Why = name }), nil
	case modelstate.Close:
		return st.With(func(s *modelstate.State) { s.Why = "" }), nil
	}
	return st, nil
}

// modelStep runs a state on every backend of its mode: each backend's
// classification, the marginals of the first that counts them, the
// explanation the state asks for, and what a step that changed the
// decisions did, against the state before it. A mode whose backend
// cannot configure the model falls back to the backends that can, and
// says so. Make room is done here, on the leading backend.
func (s *Server) modelStep(ctx context.Context, before, st modelstate.State, act modelstate.Action, m *feature.Model) (*view.ModelStep, error) {
	mode := s.pageMode(st)
	r := &view.ModelStep{State: st, Act: act, Model: m}
	type compiled struct {
		name string
		sp   *spaces.Space
	}
	var answering []compiled
	var refused []view.ModelRun
	// Both leaves out the backends (never its first) that missed their
	// deadline on this model lately, and every mode says so beforehand.
	both := s.lineup.Backends(board.All)
	left := s.missed.leftOut(st.Model, both[1:], time.Now())
	r.LeftOut = leftOutNote(left, s.deadline)
	for _, name := range s.lineup.Backends(mode) {
		if mode == board.All && slices.Contains(left, name) {
			continue
		}
		sp, err := s.modelSpace(ctx, st.Model, name)
		if err != nil {
			if ctx.Err() != nil || !(errors.Is(err, configurator.ErrTooLarge) || errors.Is(err, configurator.ErrBoardsOnly) || errors.As(err, new(*stillCompiling))) {
				return nil, err
			}
			refused = append(refused, view.ModelRun{Backend: name, Err: pageProblem(err)})
			if errors.As(err, new(*stillCompiling)) {
				r.Pending = append(r.Pending, name)
			}
			continue
		}
		answering = append(answering, compiled{name, sp})
	}
	if len(answering) == 0 {
		// The mode's backend cannot configure this model: the first that
		// can answers instead.
		for _, name := range s.lineup.Names() {
			if slices.Contains(s.lineup.Backends(mode), name) {
				continue
			}
			sp, err := s.modelSpace(ctx, st.Model, name)
			if err == nil {
				answering = append(answering, compiled{name, sp})
				r.Fallback = fallbackNote(string(mode), name, refused[0].Err)
				refused = nil
				break
			}
			if ctx.Err() != nil {
				return nil, err
			}
		}
		if len(answering) == 0 {
			return nil, refused[0].Err
		}
	}
	ds, err := configurator.ParseDecisions(m, st.Select, st.Deselect)
	if err != nil {
		return nil, err
	}
	var lead *configurator.FeatureSession
	for i, cp := range answering {
		start := time.Now()
		run := view.ModelRun{Backend: cp.name, Compile: cp.sp.Took, Loaded: cp.sp.Loaded()}
		// The answers of a state shown before (the same decisions searched,
		// filtered, opened further) are remembered: only Why? and Make room
		// need the leading backend's session itself.
		if i > 0 || (act.Kind != modelstate.Room && st.Why == "") {
			if a, ok := s.answers.get(answerKey(st.Model, cp.name, ds)); ok {
				run.Domains, run.Remembered = a.domains, true
				if r.Marginals == nil {
					r.Marginals = a.marginals
				}
				r.Runs = append(r.Runs, run)
				continue
			}
		}
		bctx, cancel := context.WithTimeout(ctx, s.deadline(cp.name))
		defer cancel()
		sess, err := s.featureSession(bctx, cp.sp.Space, ds)
		if err != nil && ctx.Err() == nil && errors.Is(bctx.Err(), context.DeadlineExceeded) {
			s.missed.note(st.Model, cp.name, time.Now())
		}
		if err != nil {
			if i == 0 {
				return nil, err
			}
			// The time it took to fail (a deadline passed) is the
			// backend's, not the rest of the server's.
			run.Err, run.Took = pageProblem(err), time.Since(start)
			r.Runs = append(r.Runs, run)
			continue
		}
		if i == 0 && act.Kind == modelstate.Room {
			f, _ := m.ID(act.Feature)
			room, err := sess.MakeRoom(bctx, f)
			if err != nil {
				return nil, err
			}
			sel, desel := configurator.DecisionNames(m, room)
			st = st.Without(append(sel, desel...)...)
			st.Why = ""
			r.State = st
			if ds, err = configurator.ParseDecisions(m, st.Select, st.Deselect); err != nil {
				return nil, err
			}
			if sess, err = s.featureSession(bctx, cp.sp.Space, ds); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			lead = sess
		}
		a := answer{domains: sess.Domains()}
		if a.marginals, err = sess.Marginals(bctx); err != nil {
			return nil, err
		}
		if a.domains.Settled() {
			// A partial answer is asked again at the next request.
			s.answers.put(answerKey(st.Model, cp.name, ds), a)
		}
		if r.Marginals == nil {
			r.Marginals = a.marginals
		}
		run.Domains, run.Took = a.domains, time.Since(start)
		s.metrics.opened(cp.name, run.Took, &a.domains.Work)
		r.Runs = append(r.Runs, run)
	}
	r.Runs = append(r.Runs, refused...)
	if first := r.Runs[0]; act.Decides() && first.Domains != nil {
		r.Changed = s.changed(ctx, answering[0].name, answering[0].sp, st.Model, m, before, first.Domains)
	}
	if f, ok := m.ID(st.Why); ok && lead != nil {
		switch lead.Domains().States[f] {
		case configurator.ForcedOn, configurator.ForcedOff:
			ectx, cancel := context.WithTimeout(ctx, s.deadline(answering[0].name))
			defer cancel()
			start := time.Now()
			r.Why, r.WhyErr = lead.Explain(ectx, f)
			// The explanation is the leading backend's work too.
			r.Runs[0].Took += time.Since(start)
			if r.WhyErr != nil && ctx.Err() != nil {
				return nil, r.WhyErr
			}
		default:
			// No longer forced: the panel has nothing to say.
			r.State.Why = ""
		}
	}
	return r, nil
}

// pageMode is the mode a state of the model page names: its backend, or
// all of them, or the primary when it names none the server has.
func (s *Server) pageMode(st modelstate.State) board.Mode {
	if m, ok := s.lineup.ParseMode(st.Backend); ok {
		return m
	}
	return board.Mode(s.lineup.Primary())
}

// changed is what a step did: the domains after it against those of the
// state before it, remembered or asked of the leading backend again; nil
// when the state before cannot be classified (a hand-made address).
func (s *Server) changed(ctx context.Context, backend string, sp *spaces.Space, id string, m *feature.Model, before modelstate.State, after *configurator.Domains) *configurator.Changes {
	ds, err := configurator.ParseDecisions(m, before.Select, before.Deselect)
	if err != nil {
		return nil
	}
	var d *configurator.Domains
	if a, ok := s.answers.get(answerKey(id, backend, ds)); ok {
		d = a.domains
	} else {
		bctx, cancel := context.WithTimeout(ctx, s.deadline(backend))
		defer cancel()
		sess, err := s.featureSession(bctx, sp.Space, ds)
		if err != nil {
			return nil
		}
		d = sess.Domains()
	}
	c := configurator.Changed(d, after)
	return &c
}

// featureSession is a session on sp under the decisions, within sp's turn
// when it takes turns.
func (s *Server) featureSession(ctx context.Context, sp configurator.Space, ds []configurator.Decision) (*configurator.FeatureSession, error) {
	done, err := configurator.Admit(ctx, sp)
	if err != nil {
		return nil, err
	}
	defer done()
	return configurator.NewFeatureSession(ctx, sp, ds)
}

// modelTrailStep is the step for the session chart: its label, and each
// backend's time in the order registered.
func (s *Server) modelTrailStep(r *view.ModelStep, act modelstate.Action) board.Step {
	label := map[modelstate.Kind]string{modelstate.Pick: "select", modelstate.Drop: "deselect", modelstate.Undo: "undo",
		modelstate.Room: "make room", modelstate.Ask: "why", modelstate.Toggle: "open", modelstate.Close: "close"}[act.Kind]
	label = cmp.Or(label, "show")
	names := s.lineup.Names()
	st := board.Step{Label: label, N: 1, Times: make([]time.Duration, len(names))}
	for _, run := range r.Runs {
		if i := slices.Index(names, run.Backend); i >= 0 && run.Domains != nil && !run.Remembered {
			st.Times[i] = max(run.Took, 1)
		}
	}
	return st
}

// modelsPage serves the page that opens a model: the bundled examples and
// an upload.
func (s *Server) modelsPage(c echo.Context) error {
	var examples, boards []view.ModelLink
	for _, info := range s.models.List() {
		link := view.ModelLink{Name: info.Name, Href: modelstate.State{Model: info.ID}.Href(),
			Format: strings.ToUpper(string(info.Format)), Features: words.Plural(int64(info.Features), "feature")}
		switch {
		case info.Example:
			examples = append(examples, link)
		case info.Board >= 4 && info.Board <= 16:
			// The boards a person can watch being pruned: from the
			// first with a solution past the trivial to the largest a
			// BDD answers on this machine kind.
			link.Name = fmt.Sprintf("%d×%d", info.Board, info.Board)
			boards = append(boards, link)
		}
	}
	return s.render(c, http.StatusOK, "models-page", view.NewModelsPage(s.site, examples, boards, models.MaxSize, nil))
}

// askingAgain marks the context of the page's own asking again while a
// backend compiles (poll): it waits the whole quick wait for the compile,
// so that a compile queued behind others (the cache's lanes and room)
// starts when its turn comes, which it does only while a request waits
// for it (spaces.Cache).
type askingAgain struct{}

// modelSpace is a backend's space of the model, waited for at most the
// page's quick wait from the compile's start (a step that finds the
// compile running waits only what is left of it): a longer compile goes
// on (for as long as the cache lets a compile nobody waits for run, and
// each step asks again) while the backends that are ready answer, and
// the page says so. A person never waits on one backend's compile for a
// page.
func (s *Server) modelSpace(ctx context.Context, id, backend string) (*spaces.Space, error) {
	k := s.modelKey(id, backend)
	wait := s.cfg.QuickWait
	if since, running := s.spaces.Compiling(k); running && ctx.Value(askingAgain{}) == nil {
		// Asking joins the compile (so that it goes on while the page is
		// open); two people who open a board at once both wait the few
		// milliseconds of its compile, and a step on a page that waits
		// for a long one does not wait again.
		wait = max(0, wait-time.Since(since))
	}
	qctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	sp, err := s.featureSpace(qctx, id, backend)
	if err != nil && ctx.Err() == nil && qctx.Err() != nil {
		if sc, ok := s.stillCompiling(k, err); ok {
			return nil, sc
		}
	}
	if errors.Is(err, spaces.ErrNoWork) {
		// A HEAD request starts no heavy compile: it answers as a GET
		// would once the compile outlasts its quick wait.
		return nil, &stillCompiling{k: k, since: time.Now(), err: err}
	}
	return sp, err
}

// fallbackNote says why backend did not answer and which one did.
func fallbackNote(backend, instead string, err error) string {
	b, i := strings.ToUpper(backend), strings.ToUpper(instead)
	if sc := (*stillCompiling)(nil); errors.As(err, &sc) {
		return sc.note(backend, instead)
	}
	if errors.Is(err, configurator.ErrBoardsOnly) {
		return fmt.Sprintf("%s configures N-Queens boards only, not feature models: %s answers this model instead.", b, i)
	}
	return fmt.Sprintf("%s cannot answer this model, so %s answers it instead: %s", b, i, words.Sentence(problem.Describe(err).Message))
}

// answer is what a backend said of one state: the classification and,
// when it counts them, each feature's share.
type answer struct {
	domains   *configurator.Domains
	marginals []*big.Int
}

// answerKey names a state's answer: the model, the backend and the
// decisions in order.
func answerKey(model, backend string, ds []configurator.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s", model, backend)
	for _, d := range ds {
		fmt.Fprintf(&b, "|%d:%t", d.Feature, d.Select)
	}
	return b.String()
}

// maxAnswers bounds the model page's answers remembered (Server.answers),
// so that a search, a filter or a subtree opened over the same decisions
// asks no backend again: a model of tens of thousands of features costs a
// byte and a count per feature for each.
const maxAnswers = 32
