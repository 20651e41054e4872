package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// outcome is one backend's answer to one request.
type outcome struct {
	backend string
	entry   *compiled
	session *configurator.Session // the placement after the action; nil when unsolvable
	took    time.Duration         // the whole step on this backend
	explain *configurator.Explanation
	room    []configurator.Cell
	// unsolvable: the empty board has no solution at all (N = 2, 3).
	unsolvable bool
	// err is a secondary backend's failure, shown beside the primary's
	// answer; a primary's failure fails the request instead.
	err error
}

// difference is a square on which the backends of "Both" disagree.
type difference struct {
	Cell   configurator.Cell
	States []configurator.State // one per backend, in the order of the run
}

// result is a request's answer over the backends of its mode.
type result struct {
	state boardState // after the action
	act   action
	runs  []outcome // the primary backend first
	// disagree lists the squares the backends classify differently;
	// mismatch says in words any other disagreement (counts,
	// explanations, one backend finding no solution).
	disagree []difference
	mismatch []string
	// name is what the page calls a step that only shows a board (the
	// parameter l: "reset", "use sat", "heat on"); actions name themselves.
	name string
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
	for _, b := range st.Mode.backends() {
		k := s.key(b, st)
		e, err := s.cache.Get(wctx, k)
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
		msg := fmt.Sprintf("The %d×%d board does not fit the %s backend's limits", k.n, k.n, name)
		if budget := s.backends[k.backend].Budget; budget > 0 {
			msg = fmt.Sprintf("The %d×%d board does not fit the %s backend's node budget of %s", k.n, k.n, name, bytesize.Format(budget))
			if k.order != configurator.RowMajor {
				msg += fmt.Sprintf(" in the order %s; rank by rank needs the fewest nodes", quoteLabel(orderLabels[k.order]))
			}
			if largest := s.cache.Largest(k.backend); largest > 0 && largest < k.n {
				msg += fmt.Sprintf("; the largest %s compiled here is %d×%d", name, largest, largest)
			}
			if alt, ok := s.alternative(k.n, k.backend); ok {
				msg += fmt.Sprintf(". The %s backend handles boards up to %d×%d: switch to %s", alt.name, alt.maxN, alt.maxN, alt.name)
			}
		}
		return &problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", err: err}
	case ctx.Err() != nil:
		started, running := s.cache.Progress(k)
		if running {
			return retryable(5, err, "The %d×%d %s is still being compiled (for %s so far); try again in a few seconds.",
				k.n, k.n, name, time.Since(started).Round(time.Second))
		}
		return describe(ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("Compiling the %d×%d board with %s took longer than allowed (%s). Try a smaller board", k.n, k.n, name, s.cfg.CompileDeadline)
		if e := s.backends[k.backend]; e.Backend != nil && e.Backend.Cost(k.n, k.order).Heavy {
			if alt, ok := s.alternative(k.n, k.backend); ok {
				msg += " or the " + alt.name + " backend"
			}
		}
		return retryable(30, err, "%s.", msg)
	}
	return describe(err)
}

// alternative is a backend to suggest for an n×n board that backend
// cannot take: the first registered other one whose largest board is large
// enough, named as the page names it.
func (s *Server) alternative(n int, backend string) (alt struct {
	name string
	maxN int
}, ok bool) {
	for _, e := range s.engines {
		name := e.Backend.Name()
		if name != backend && s.lim.maxN[name] >= n {
			alt.name, alt.maxN = strings.ToUpper(name), s.lim.maxN[name]
			return alt, true
		}
	}
	return alt, false
}

// quoteLabel puts a label of the page between curly quotes.
func quoteLabel(s string) string { return "“" + s + "”" }

// step runs an action on every backend of the state's mode. The primary
// backend's failure fails the step; a secondary's is recorded beside it,
// and when it contradicts the primary it is a disagreement.
func (s *Server) step(ctx context.Context, st boardState, act action, spaces []*compiled) (*result, error) {
	r := &result{state: st, act: act}
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
		if i == 0 {
			if err != nil {
				return nil, err
			}
			if o.session != nil {
				r.state.Queens = o.session.Queens()
			}
		} else if err != nil {
			o.err = err
		}
		r.runs = append(r.runs, o)
	}
	r.compare()
	return r, nil
}

// apply runs an action on one backend, under that backend's deadline.
func (s *Server) apply(ctx context.Context, e *compiled, st boardState, act action, rng *rand.Rand) (o outcome, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.deadline(e.key.backend))
	defer cancel()
	o = outcome{backend: e.key.backend, entry: e}
	if e.key.backend == "sat" {
		leave, err := s.satGate.enter(ctx)
		if err != nil {
			return o, err
		}
		defer leave()
	}
	s.use(e)
	sp := e.space
	start := time.Now()
	defer func() { o.took = time.Since(start) }()
	switch act.Kind {
	case actShow, actRefresh:
		o.session, err = configurator.NewSession(ctx, sp, st.Queens)
		if err != nil && len(st.Queens) == 0 && errors.Is(err, configurator.ErrNoSolution) {
			o.unsolvable, err = true, nil
		} else if err != nil {
			err = s.infeasible(ctx, sp, st.Queens, err)
		}
	case actPlace, actRemove:
		queens := slices.Clone(st.Queens)
		for _, c := range act.Remove {
			i := slices.Index(queens, c)
			if i < 0 {
				return o, problemf(http.StatusUnprocessableEntity, "There is no queen of yours on %v to remove.", c)
			}
			queens = slices.Delete(queens, i, i+1)
		}
		if act.Kind == actPlace {
			if slices.Contains(queens, act.Cell) {
				return o, problemf(http.StatusUnprocessableEntity, "%v already holds your queen.", act.Cell)
			}
			queens = append(queens, act.Cell)
		}
		o.session, err = configurator.NewSession(ctx, sp, queens)
		if err != nil && act.Kind == actPlace && errors.Is(err, configurator.ErrNoSolution) {
			err = s.refusal(ctx, sp, queens[:len(queens)-1], act.Cell)
		} else if err != nil {
			err = s.infeasible(ctx, sp, queens, err)
		}
	case actWhy, actRoom, actComplete:
		o.session, err = configurator.NewSession(ctx, sp, st.Queens)
		if err != nil {
			if len(st.Queens) == 0 && errors.Is(err, configurator.ErrNoSolution) {
				return o, problemf(http.StatusUnprocessableEntity, "A %d×%d board has no solution at all, so there is nothing to explain or complete.", st.N, st.N)
			}
			return o, s.infeasible(ctx, sp, st.Queens, err)
		}
		switch act.Kind {
		case actWhy:
			o.explain, err = o.session.Explain(ctx, act.Cell)
		case actRoom:
			o.room, err = o.session.MakeRoom(ctx, act.Cell)
		case actComplete:
			err = o.session.Complete(ctx, rng)
		}
		if errors.Is(err, configurator.ErrNotExplained) {
			err = s.notExplained(o.session, act)
		}
	}
	return o, err
}

// use counts a request on e and retires e from the cache after
// -recycle requests when its memory is not known to stay put.
func (s *Server) use(e *compiled) {
	if !e.sized && s.cfg.Recycle > 0 && e.uses.Add(1) == int64(s.cfg.Recycle) {
		s.cache.Retire(e)
	}
}

// refusal explains why a queen cannot go on c: the square is blocked, and
// here is why; or the queens before it are themselves in no solution.
func (s *Server) refusal(ctx context.Context, sp configurator.Space, before []configurator.Cell, c configurator.Cell) error {
	prior, err := configurator.NewSession(ctx, sp, before)
	if err != nil {
		return s.infeasible(ctx, sp, before, err)
	}
	ex, err := prior.Explain(ctx, c)
	if err != nil {
		return &problem{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("%v is blocked: no remaining solution has a queen there.", c), err: err}
	}
	return &problem{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("%v is blocked: %s.", c, ex), err: configurator.ErrBlocked}
}

// infeasible words an analysis failure; queens in no solution get a 422
// naming them, and two queens that attack each other are named as such.
func (s *Server) infeasible(ctx context.Context, sp configurator.Space, queens []configurator.Cell, err error) error {
	if !errors.Is(err, configurator.ErrNoSolution) {
		return err
	}
	m := sp.Model()
	for i, a := range queens {
		for _, b := range queens[:i] {
			if m.Attacks(a, b) {
				return &problem{Status: http.StatusUnprocessableEntity, err: err,
					Message: fmt.Sprintf("No solution holds these queens: %v and %v attack each other.", b, a)}
			}
		}
	}
	return &problem{Status: http.StatusUnprocessableEntity, err: err,
		Message: fmt.Sprintf("No solution holds queens on %s together: there is no way to fill the remaining ranks.", join(queens))}
}

// notExplained words Why? or Make room on a square that needs no reason.
func (s *Server) notExplained(sess *configurator.Session, act action) error {
	verb := "Why?"
	if act.Kind == actRoom {
		verb = "Make room"
	}
	st := sess.Analysis().At(act.Cell)
	switch st {
	case configurator.Queen:
		return problemf(http.StatusUnprocessableEntity, "%v holds your own queen; %s applies to blocked squares.", act.Cell, verb)
	case configurator.Forced:
		return problemf(http.StatusUnprocessableEntity, "%v holds a forced queen, which is not in the way; Make room applies to blocked squares.", act.Cell)
	}
	return problemf(http.StatusUnprocessableEntity, "%v is free: a queen can go there, so there is nothing to explain.", act.Cell)
}

// compare fills in the disagreements between the primary and the others.
func (r *result) compare() {
	if len(r.runs) < 2 {
		return
	}
	p := r.primary()
	name := func(o *outcome) string { return strings.ToUpper(o.backend) }
	for i := 1; i < len(r.runs); i++ {
		o := &r.runs[i]
		if o.err != nil {
			if errors.Is(o.err, configurator.ErrNoSolution) || errors.Is(o.err, configurator.ErrBlocked) {
				r.mismatch = append(r.mismatch, fmt.Sprintf("%s finds no solution here, %s does: %s", name(o), name(p), describe(o.err).Message))
			}
			continue
		}
		switch {
		case p.unsolvable != o.unsolvable:
			r.mismatch = append(r.mismatch, fmt.Sprintf("%s and %s disagree on whether the board has any solution", name(p), name(o)))
			continue
		case p.session == nil || o.session == nil:
			continue
		}
		pa, oa := p.session.Analysis(), o.session.Analysis()
		for v := range pa.Cells {
			if pa.Cells[v] != oa.Cells[v] {
				c := configurator.Cell{Row: v / pa.N, Col: v % pa.N}
				r.disagree = append(r.disagree, difference{Cell: c, States: []configurator.State{pa.Cells[v], oa.Cells[v]}})
			}
		}
		if pa.Solutions != nil && oa.Solutions != nil && !pa.AtLeast && !oa.AtLeast && pa.Solutions.Cmp(oa.Solutions) != 0 {
			r.mismatch = append(r.mismatch, fmt.Sprintf("%s counts %s solutions, %s counts %s", name(p), pa.Solutions, name(o), oa.Solutions))
		}
		if pa.Solutions != nil && oa.Solutions != nil && oa.AtLeast && oa.Solutions.Cmp(pa.Solutions) > 0 {
			r.mismatch = append(r.mismatch, fmt.Sprintf("%s counts at least %s solutions, %s only %s", name(o), oa.Solutions, name(p), pa.Solutions))
		}
		if p.explain != nil && o.explain != nil && (p.explain.Reason != o.explain.Reason || !slices.Equal(p.explain.Because, o.explain.Because)) {
			r.mismatch = append(r.mismatch, fmt.Sprintf("%s says %q, %s says %q", name(p), p.explain, name(o), o.explain))
		}
		if p.room != nil && o.room != nil && len(p.room) != len(o.room) {
			r.mismatch = append(r.mismatch, fmt.Sprintf("%s would remove %s, %s would remove %s", name(p), join(p.room), name(o), join(o.room)))
		}
	}
}

// join names cells for a sentence: "a1", "a1 and c5", "a1, c5 and e2".
func join(cells []configurator.Cell) string {
	names := make([]string, len(cells))
	for i, c := range cells {
		names[i] = c.String()
	}
	switch len(names) {
	case 0:
		return "no squares"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// newRand returns a generator for Complete, seeded afresh per request.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
