package server

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// outcome is one backend's answer to one request: the session's answer
// (for configurator.Compare), the space it came from and how long it took.
// Err is a secondary backend's failure, shown beside the primary's answer;
// a primary's failure fails the request instead.
type outcome struct {
	configurator.Answer
	entry *compiled
	took  time.Duration // the whole step on this backend
	// searched holds, for each reason of the explanation that a search
	// refuted (not an attack, no proof by propagation), the work of this
	// backend's analysis under that reason's queens alone: how a solver
	// found the square ruled. Nil for a space with a diagram, whose
	// answer is a walk, not a search.
	searched []*configurator.Work
}

// result is a request's answer over the backends of its mode.
type result struct {
	state  boardState // after the action
	act    action
	before []configurator.Cell // the queens before the action
	runs   []outcome           // the primary backend first
	// differ holds, for every run after the first, what it disagrees on
	// with the primary (configurator.Compare); differ[0] is empty.
	differ []configurator.Disagreement
	// name is what the page calls a step that only shows a board (the
	// parameter l: "reset", "use sat", "heat on"); actions name themselves.
	name string
	// heat and diagram are what the page's panels show, computed after
	// the step when the state asks for them.
	heat    heatData
	diagram diagramData
}

// heatData is the heat map of a result: the primary's solutions through
// every square, or why there are none.
type heatData struct {
	marginals []*big.Int
	took      time.Duration
	reason    string
}

// diagramData is the size of the primary's diagram under the placement,
// or why it is not known.
type diagramData struct {
	nodes  int
	reason string
}

// primary is the leading backend's outcome.
func (r *result) primary() *outcome { return &r.runs[0] }

// label names the step in the timing panel.
func (r *result) label() string {
	switch a := r.act; a.Kind {
	case actPlace:
		if len(a.Remove) > 0 {
			return "-" + configurator.FormatCells(a.Remove) + " +" + a.Cell.String()
		}
		return "+" + a.Cell.String()
	case actRemove:
		return "-" + configurator.FormatCells(a.Remove)
	case actWhy:
		return "why " + a.Cell.String()
	case actRoom:
		return "room " + a.Cell.String()
	case actComplete:
		return "complete"
	case actRefresh:
		return "compiled"
	}
	return "show"
}

// compilingError reports that the spaces a request needs are still being
// compiled; the page shows progress instead of waiting.
type compilingError struct{ keys []spaceKey }

func (e *compilingError) Error() string { return "still compiling" }

// spaces returns the compiled spaces of the state's mode, primary first.
// With wait > 0 it waits at most that long and then returns a
// *compilingError; otherwise it waits until ctx ends.
func (s *Server) spaces(ctx context.Context, st boardState, wait time.Duration) ([]*compiled, error) {
	wctx := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	var out []*compiled
	var pending []spaceKey
	for _, b := range s.lim.backends(st.Mode) {
		k := s.key(b, st)
		e, err := s.space(wctx, k)
		switch {
		case err == nil:
			out = append(out, e)
		case wait > 0 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && wctx.Err() != nil:
			pending = append(pending, k)
		default:
			return nil, s.compileProblem(ctx, k, err)
		}
	}
	if len(pending) > 0 {
		return nil, &compilingError{keys: pending}
	}
	return out, nil
}

// compileProblem words a failed compile.
func (s *Server) compileProblem(ctx context.Context, k spaceKey, err error) error {
	name := strings.ToUpper(k.backend)
	switch {
	case errors.Is(err, configurator.ErrTooLarge):
		if p, ok := s.lim.missingFile(k.backend, k.n, k.order, mode(k.backend)); ok {
			p.err = err
			return p
		}
		msg := fmt.Sprintf("The %d×%d board does not fit the %s backend's limits", k.n, k.n, name)
		if budget := s.backends[k.backend].Budget; budget > 0 {
			msg = fmt.Sprintf("The %d×%d board does not fit the %s backend's node budget of %s", k.n, k.n, name, bytesize.Format(budget))
			if k.order != configurator.RowMajor {
				msg += fmt.Sprintf(" in the order %s; rank by rank needs the fewest nodes", quoteLabel(orderLabels[k.order]))
			}
			if largest := s.cache.Largest(k.backend); largest > 0 && largest < k.n {
				msg += fmt.Sprintf("; the largest %s compiled here is %d×%d", name, largest, largest)
			}
			if alt, hi, ok := s.lim.alternative(k.n, mode(k.backend)); ok {
				alt = strings.ToUpper(alt)
				msg += fmt.Sprintf(". The %s backend handles boards up to %d×%d: switch to %s", alt, hi, hi, alt)
			}
		}
		return &problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", err: err}
	case ctx.Err() != nil:
		started, running := s.cache.Progress(k)
		if running {
			so := "for " + sinceText(started) + " so far"
			if since, ok := s.counting.Load(k); ok {
				return retryable(5, err, "The %d×%d %s is made and counting all its solutions (for %s so far); try again in a few seconds.",
					k.n, k.n, name, sinceText(since.(time.Time)))
			}
			if f, ok := s.loading(k); ok {
				return retryable(5, err, "The %d×%d %s is still being loaded from its compiled file (%s, %s); try again in a few seconds.",
					k.n, k.n, name, bytesize.Format(f.Bytes), so)
			}
			return retryable(5, err, "The %d×%d %s is still being compiled (%s); try again in a few seconds.", k.n, k.n, name, so)
		}
		return describe(ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("Compiling the %d×%d board with %s took longer than allowed (%s). Try a smaller board", k.n, k.n, name, s.cfg.CompileDeadline)
		if s.heavyCompile(k) {
			if alt, _, ok := s.lim.alternative(k.n, mode(k.backend)); ok {
				msg += " or the " + strings.ToUpper(alt) + " backend"
			}
		}
		return retryable(30, err, "%s.", msg)
	}
	return describe(err)
}

// sinceText says for people how long ago start was: to a tenth of a
// second under ten seconds, to the second beyond.
func sinceText(start time.Time) string {
	d := time.Since(start)
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// quoteLabel puts a label of the page between curly quotes.
func quoteLabel(s string) string { return "“" + s + "”" }

// play is a page's whole step: the spaces of the state's mode (a
// *compilingError when they take longer than the quick wait), the action
// on each, and what the panels show.
func (s *Server) play(ctx context.Context, st boardState, act action) (*result, error) {
	spaces, err := s.spaces(ctx, st, s.cfg.QuickWait)
	if err != nil {
		return nil, err
	}
	r, err := s.step(ctx, st, act, spaces)
	if err != nil {
		return nil, err
	}
	s.measure(ctx, r)
	return r, nil
}

// step runs an action on every backend of the state's mode. The primary
// backend's failure fails the step; a secondary's is recorded beside it,
// and when it contradicts the primary it is a disagreement.
func (s *Server) step(ctx context.Context, st boardState, act action, spaces []*compiled) (*result, error) {
	r := &result{state: st, act: act, before: st.Queens}
	rng := newRand()
	for i, e := range spaces {
		a := act
		if i > 0 && act.Kind == actComplete {
			// Only the primary draws the random solution; the others
			// analyze the board it drew.
			a = action{Kind: actShow}
			st = r.state
		}
		o, err := s.apply(ctx, e, st, a, rng)
		if err == nil {
			s.searchWork(ctx, &o)
		}
		if i == 0 {
			if err != nil {
				return nil, err
			}
			if o.Session != nil {
				r.state.Queens = o.Session.Queens()
				r.state.keepAuto(r.before, act.Kind == actComplete)
			}
		} else {
			o.Err = err
		}
		r.runs = append(r.runs, o)
	}
	r.compare()
	return r, nil
}

// apply runs an action on one backend, under that backend's deadline and
// in its turn (configurator.Admit), with one call into the session.
func (s *Server) apply(ctx context.Context, e *compiled, st boardState, act action, rng *rand.Rand) (o outcome, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.deadline(e.key.backend))
	defer cancel()
	o = outcome{Answer: configurator.Answer{Backend: e.key.backend}, entry: e}
	done, err := configurator.Admit(ctx, e.space)
	if err != nil {
		return o, err
	}
	defer done()
	s.use(e)
	sp := e.space
	start := time.Now()
	defer func() {
		o.took = time.Since(start)
		s.metrics.stepped(e.key.backend, &o)
	}()
	switch act.Kind {
	case actShow, actRefresh:
		o.Session, err = configurator.NewSession(ctx, sp, st.Queens)
		if len(st.Queens) == 0 && errors.Is(err, configurator.ErrNoSolution) {
			o.Unsolvable, err = true, nil
		}
	case actPlace:
		o.Session, err = configurator.Play(ctx, sp, st.Queens, act.Remove, &act.Cell)
	case actRemove:
		o.Session, err = configurator.Play(ctx, sp, st.Queens, act.Remove, nil)
	case actWhy, actRoom, actComplete:
		o.Session, err = configurator.NewSession(ctx, sp, st.Queens)
		if err != nil {
			if len(st.Queens) == 0 && errors.Is(err, configurator.ErrNoSolution) {
				return o, problemf(http.StatusUnprocessableEntity, "A %d×%d board has no solution at all, so there is nothing to explain or complete.", st.N, st.N)
			}
			return o, err
		}
		switch act.Kind {
		case actWhy:
			o.Explanation, err = o.Session.Explain(ctx, act.Cell)
		case actRoom:
			// The reasons come with the room, so that the panel says
			// which reason each removal breaks; MakeRoom says why there
			// is no room to make (a forced square, one no solution uses).
			o.Explanation, err = o.Session.Explain(ctx, act.Cell)
			if err == nil && o.Explanation.Room != nil {
				o.Room = o.Explanation.Room
			} else if err == nil || errors.Is(err, configurator.ErrNotExplained) {
				o.Explanation = nil
				o.Room, err = o.Session.MakeRoom(ctx, act.Cell)
			}
		case actComplete:
			err = o.Session.Complete(ctx, rng)
		}
	}
	return o, actionProblem(o.Session, st, act, err)
}

// actionProblem words the errors of an action that name its squares (a
// square taken, a queen not there, a square that needs no explanation);
// describe words every other.
func actionProblem(sess *configurator.Session, st boardState, act action, err error) error {
	switch {
	case errors.Is(err, configurator.ErrOccupied):
		return &problem{Status: http.StatusUnprocessableEntity, err: err, Message: fmt.Sprintf("%v already holds your queen.", act.Cell)}
	case errors.Is(err, configurator.ErrNoQueen):
		for _, c := range act.Remove {
			if !slices.Contains(st.Queens, c) {
				return &problem{Status: http.StatusUnprocessableEntity, err: err, Message: fmt.Sprintf("There is no queen of yours on %v to remove.", c)}
			}
		}
	case errors.Is(err, configurator.ErrNotExplained) && sess != nil:
		return notExplained(sess, act, err)
	}
	return err
}

// notExplained words Why? or Make room on a square that needs no reason.
func notExplained(sess *configurator.Session, act action, err error) error {
	verb := "Why?"
	if act.Kind == actRoom {
		verb = "Make room"
	}
	p := &problem{Status: http.StatusUnprocessableEntity, err: err}
	switch sess.Analysis().At(act.Cell) {
	case configurator.Queen:
		p.Message = fmt.Sprintf("%v holds your own queen; %s applies to blocked squares.", act.Cell, verb)
	case configurator.Forced:
		p.Message = fmt.Sprintf("%v holds a forced queen, which is not in the way; Make room applies to blocked squares.", act.Cell)
	default:
		p.Message = fmt.Sprintf("%v is free: a queen can go there, so there is nothing to explain.", act.Cell)
	}
	return p
}

// measure computes what the state's panels show beyond the step: the heat
// map and the size of the diagram, each from the primary's space under
// the primary's deadline.
func (s *Server) measure(ctx context.Context, r *result) {
	p := r.primary()
	if p.Session == nil {
		return
	}
	if r.state.Heat {
		r.heat = s.heatMap(ctx, p, r.state.Queens)
	}
	if r.state.Diagram {
		r.diagram = s.diagramSize(ctx, p, r.state.Queens)
	}
}

// heatMap counts the solutions through every square, when the space
// counts per square (a configurator.Marginaler); otherwise it says why not.
func (s *Server) heatMap(ctx context.Context, p *outcome, queens []configurator.Cell) heatData {
	mg, ok := p.entry.space.(configurator.Marginaler)
	if !ok {
		return heatData{reason: "The heat map needs the number of solutions through every square, which only the BDD backend counts. Switch to BDD or Both to see it."}
	}
	ctx, cancel := context.WithTimeout(ctx, s.deadline(p.Backend))
	defer cancel()
	start := time.Now()
	m, err := mg.Marginals(ctx, queens)
	if err != nil {
		return heatData{reason: "The heat map could not be computed this time: " + describe(err).Message}
	}
	return heatData{marginals: m, took: time.Since(start)}
}

// diagramSize counts the nodes of the space's diagram under the placement,
// when the space has one (a configurator.Diagrammer); otherwise it says why
// not.
func (s *Server) diagramSize(ctx context.Context, p *outcome, queens []configurator.Cell) diagramData {
	dg, ok := p.entry.space.(configurator.Diagrammer)
	if !ok {
		return diagramData{reason: "Only the BDD backend has a diagram to draw: the SAT backend keeps clauses, not a diagram. Switch to BDD or Both to see it."}
	}
	ctx, cancel := context.WithTimeout(ctx, s.deadline(p.Backend))
	defer cancel()
	// Only the count (a cap of 0): the drawing is asked for apart, by
	// /diagram.svg or the viewer, so writing its text here would be lost.
	_, nodes, err := dg.Diagram(ctx, queens, 0)
	if err != nil {
		return diagramData{reason: "The diagram could not be built this time: " + describe(err).Message}
	}
	return diagramData{nodes: nodes}
}

// use counts a request on e and retires e from the cache after
// -recycle requests when its memory is not known to stay put.
func (s *Server) use(e *compiled) {
	if !e.sized && s.cfg.Recycle > 0 && e.uses.Add(1) == int64(s.cfg.Recycle) {
		s.cache.Retire(e)
	}
}

// compare fills in what each backend after the primary disagrees on with
// it.
func (r *result) compare() {
	r.differ = make([]configurator.Disagreement, len(r.runs))
	for i := 1; i < len(r.runs); i++ {
		r.differ[i] = configurator.Compare(&r.runs[0].Answer, &r.runs[i].Answer)
	}
}

// agree reports whether every backend agrees with the primary.
func (r *result) agree() bool {
	for _, d := range r.differ {
		if !d.None() {
			return false
		}
	}
	return true
}

// newRand returns a generator for Complete, seeded afresh per request.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
