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
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
)

// A step is one click: the compiled spaces of the state's mode from the
// cache, the action on each with one call into the session, and what the
// panels show beyond it. The step goes down (board state, spaces,
// configurator, backend) and comes back up as a view.Step, which the
// views render without calling back.

// outcome is one backend's answer to one click: the session's answer, the
// space it came from and how long it took. Err is a secondary backend's
// failure, shown beside the primary's answer; a primary's failure fails
// the request instead.
type outcome struct {
	configurator.Answer
	entry *spaces.Space
	took  time.Duration // the whole step on this backend
	// searched holds, for each reason of the explanation that a search
	// refuted, the work of this backend's analysis under that reason's
	// queens alone (see searchWork).
	searched []*configurator.Work
}

// compilingError reports that the spaces a request needs are still being
// compiled; the page shows progress instead of waiting.
type compilingError struct{ keys []spaces.Key }

func (e *compilingError) Error() string { return "still compiling" }

// spacesFor returns the compiled spaces of the state's mode, primary
// first. With wait > 0 it waits at most that long and then returns a
// *compilingError; otherwise it waits until ctx ends.
func (s *Server) spacesFor(ctx context.Context, st board.State, wait time.Duration) ([]*spaces.Space, error) {
	wctx := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	var out []*spaces.Space
	var pending []spaces.Key
	for _, b := range s.lineup.Backends(st.Mode) {
		k := s.key(b, st)
		e, err := s.space(wctx, k)
		switch {
		case err == nil:
			out = append(out, e)
		case wait > 0 && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) && wctx.Err() != nil,
			wait > 0 && errors.Is(err, spaces.ErrNoWork):
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
func (s *Server) compileProblem(ctx context.Context, k spaces.Key, err error) error {
	name := strings.ToUpper(k.Backend)
	var crowded *spaces.Crowded
	var tooBig *spaces.TooBig
	switch {
	case errors.As(err, &tooBig):
		return tooBigProblem(tooBig)
	case errors.Is(err, spaces.ErrNoWork):
		return problem.Retry(5, err, "The %d×%d %s is not compiled yet, and a HEAD request starts no compile: ask with GET.", k.N, k.N, name)
	case errors.Is(err, configurator.ErrTooLarge):
		if p, ok := s.lineup.MissingFile(k.Backend, k.N, k.Order, board.Mode(k.Backend)); ok {
			p.Err = err
			return p
		}
		msg := fmt.Sprintf("The %d×%d board does not fit the %s backend's limits", k.N, k.N, name)
		if budget := s.engines[k.Backend].Budget; budget > 0 {
			msg = fmt.Sprintf("The %d×%d board does not fit the %s backend's node budget of %s", k.N, k.N, name, bytesize.Format(budget))
			if k.Order != configurator.RowMajor {
				msg += fmt.Sprintf(" in the order %s; rank by rank needs the fewest nodes", words.Curly(words.Order(k.Order)))
			}
			if largest := s.spaces.Largest(k.Backend); largest > 0 && largest < k.N {
				msg += fmt.Sprintf("; the largest %s compiled here is %d×%d", name, largest, largest)
			}
			if alt, hi, ok := s.lineup.Alternative(k.N, board.Mode(k.Backend)); ok {
				alt = strings.ToUpper(alt)
				msg += fmt.Sprintf(". The %s backend handles boards up to %d×%d: switch to %s", alt, hi, hi, alt)
			}
		}
		return &problem.Problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", Err: err}
	case ctx.Err() != nil:
		started, running := s.spaces.Compiling(k)
		if running {
			so := "for " + words.Since(started) + " so far"
			if since, ok := s.spaces.Counting(k); ok {
				return problem.Retry(5, err, "The %d×%d %s is made and counting all its solutions (for %s so far); try again in a few seconds.",
					k.N, k.N, name, words.Since(since))
			}
			if since, ok := s.spaces.Settling(k); ok {
				return problem.Retry(5, err, "The %d×%d %s is made and computing the answers it keeps for the first clicks (for %s so far); try again in a few seconds.",
					k.N, k.N, name, words.Since(since))
			}
			if f, ok := s.loading(k); ok {
				return problem.Retry(5, err, "The %d×%d %s is still being loaded from its compiled file (%s, %s); try again in a few seconds.",
					k.N, k.N, name, bytesize.Format(f.Bytes), so)
			}
			return problem.Retry(5, err, "The %d×%d %s is still being compiled (%s); try again in a few seconds.", k.N, k.N, name, so)
		}
		return problem.Describe(ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("Compiling the %d×%d board with %s took longer than allowed (%s). Try a smaller board", k.N, k.N, name, s.cfg.Spaces.Deadline)
		if s.spaces.Heavy(k) {
			if alt, _, ok := s.lineup.Alternative(k.N, board.Mode(k.Backend)); ok {
				msg += " or the " + strings.ToUpper(alt) + " backend"
			}
		}
		return problem.Retry(30, err, "%s.", msg)
	case errors.As(err, &crowded):
		return crowdedProblem(crowded)
	}
	return problem.Describe(err)
}

// tooBigProblem is the 413 of a space whose compile needs more memory
// than the server has for compiled spaces, naming the largest board that
// fits.
func tooBigProblem(e *spaces.TooBig) *problem.Problem {
	k := e.Key
	msg := fmt.Sprintf("The %d×%d board needs about %s to compile with %s", k.N, k.N, bytesize.Format(e.Need), strings.ToUpper(k.Backend))
	if k.Order != configurator.RowMajor {
		msg += fmt.Sprintf(" in the order %s", words.Curly(words.Order(k.Order)))
	}
	msg += fmt.Sprintf(", more than this server's memory for compiled spaces (%s)", bytesize.Format(e.Bound))
	if e.Largest > 0 {
		msg += fmt.Sprintf(": boards up to %d×%d fit", e.Largest, e.Largest)
	}
	if k.Order != configurator.RowMajor {
		msg += "; rank by rank needs the fewest nodes"
	}
	return &problem.Problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", Err: e}
}

// crowdedProblem is the 503 of a space that fits only by evicting spaces
// other people are using.
func crowdedProblem(e *spaces.Crowded) *problem.Problem {
	return &problem.Problem{
		Status:     http.StatusServiceUnavailable,
		RetryAfter: max(int(e.Retry/time.Second), 1),
		Message: fmt.Sprintf("The %d×%d %s space needs %s, and the server's cache of compiled spaces (%s) has only %s free beside the spaces other people are using. Try a smaller board, or again later.",
			e.Key.N, e.Key.N, e.Key.Backend, bytesize.Format(e.Need), bytesize.Format(e.Bound), bytesize.Format(e.Room)),
		Err: e,
	}
}

// loading reports whether a compile of k is a load: its backend keeps
// compiled spaces in files (configurator.Filer) and has k's, which
// Compile loads instead of compiling (unless the file proves unsound).
func (s *Server) loading(k spaces.Key) (configurator.SpaceFile, bool) {
	f, ok := s.lineup.File(k.Backend, k.N, k.Order)
	return f, ok && f.Path != ""
}

// step is a page's whole click: the spaces of the state's mode (a
// *compilingError when they take longer than the quick wait), the action
// on each, and what the panels show.
func (s *Server) step(ctx context.Context, st board.State, act board.Action) (*view.Step, error) {
	entries, err := s.spacesFor(ctx, st, s.cfg.QuickWait)
	if err != nil {
		return nil, err
	}
	r, err := s.stepOn(ctx, st, act, entries)
	if err != nil {
		return nil, err
	}
	s.measure(ctx, r, entries[0])
	return r, nil
}

// stepOn runs an action on every backend of the state's mode, on their
// spaces. The primary backend's failure fails the step; a secondary's is
// recorded beside it, and when it contradicts the primary it is a
// disagreement.
func (s *Server) stepOn(ctx context.Context, st board.State, act board.Action, entries []*spaces.Space) (*view.Step, error) {
	r := &view.Step{State: st, Act: act, Before: st.Queens, Model: entries[0].Space.Model()}
	rng := newRand()
	for i, e := range entries {
		a := act
		if i > 0 && act.Kind == board.Complete {
			// Only the primary draws the random solution; the others
			// analyze the board it drew.
			a = board.Action{Kind: board.Show}
			st = r.State
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
				r.State.Queens = o.Session.Queens()
				r.State.KeepAuto(r.Before, act.Kind == board.Complete)
			}
		} else {
			o.Err = err
		}
		r.Runs = append(r.Runs, view.Run{Answer: o.Answer, Took: o.took, Space: s.facts(e), Searched: o.searched})
	}
	compare(r)
	return r, nil
}

// compare fills in what each backend after the primary disagrees on with
// it.
func compare(r *view.Step) {
	r.Differ = make([]configurator.Disagreement, len(r.Runs))
	for i := 1; i < len(r.Runs); i++ {
		r.Differ[i] = configurator.Compare(&r.Runs[0].Answer, &r.Runs[i].Answer)
	}
}

// facts is what the views say of a compiled space.
func (s *Server) facts(e *spaces.Space) view.SpaceFacts {
	f := view.SpaceFacts{Backend: e.Key.Backend, N: e.Key.N, Order: e.Key.Order, Ordered: s.lineup.Ordered(e.Key.Backend),
		Took: e.Took, Loaded: e.Loaded(), Bytes: e.Bytes, Nodes: -1}
	_, f.Diagram = e.Space.(configurator.Diagrammer)
	_, f.Sampler = e.Space.(configurator.Sampler)
	if p, ok := e.Space.(configurator.RankProfiler); ok {
		f.Nodes = sum(p.RankProfile())
	}
	f.Total, f.TotalAtLeast = e.Total()
	return f
}

// apply runs an action on one backend, under that backend's deadline and
// in its turn (configurator.Admit), with one call into the session.
func (s *Server) apply(ctx context.Context, e *spaces.Space, st board.State, act board.Action, rng *rand.Rand) (o outcome, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.deadline(e.Key.Backend))
	defer cancel()
	o = outcome{Answer: configurator.Answer{Backend: e.Key.Backend}, entry: e}
	done, err := configurator.Admit(ctx, e.Space)
	if err != nil {
		return o, err
	}
	defer done()
	s.spaces.Use(e)
	sp := e.Space
	start := time.Now()
	defer func() {
		o.took = time.Since(start)
		s.metrics.stepped(e.Key.Backend, &o)
	}()
	switch act.Kind {
	case board.Show, board.Refresh:
		o.Session, err = configurator.NewSession(ctx, sp, st.Queens)
		if len(st.Queens) == 0 && errors.Is(err, configurator.ErrNoSolution) {
			o.Unsolvable, err = true, nil
		}
	case board.Place:
		o.Session, err = configurator.Play(ctx, sp, st.Queens, act.Remove, &act.Cell)
	case board.Remove:
		o.Session, err = configurator.Play(ctx, sp, st.Queens, act.Remove, nil)
	case board.Why, board.Room, board.Complete:
		o.Session, err = configurator.NewSession(ctx, sp, st.Queens)
		if err != nil {
			if len(st.Queens) == 0 && errors.Is(err, configurator.ErrNoSolution) {
				return o, problem.New(http.StatusUnprocessableEntity, "A %d×%d board has no solution at all, so there is nothing to explain or complete.", st.N, st.N)
			}
			return o, err
		}
		switch act.Kind {
		case board.Why:
			o.Explanation, err = o.Session.Explain(ctx, act.Cell)
		case board.Room:
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
		case board.Complete:
			err = o.Session.Complete(ctx, rng)
		}
	}
	return o, actionProblem(o.Session, st, act, err)
}

// actionProblem words the errors of an action that name its squares (a
// square taken, a queen not there, a square that needs no explanation);
// problem.Describe words every other.
func actionProblem(sess *configurator.Session, st board.State, act board.Action, err error) error {
	switch {
	case errors.Is(err, configurator.ErrOccupied):
		return &problem.Problem{Status: http.StatusUnprocessableEntity, Err: err, Message: fmt.Sprintf("%v already holds your queen.", act.Cell)}
	case errors.Is(err, configurator.ErrNoQueen):
		for _, c := range act.Remove {
			if !slices.Contains(st.Queens, c) {
				return &problem.Problem{Status: http.StatusUnprocessableEntity, Err: err, Message: fmt.Sprintf("There is no queen of yours on %v to remove.", c)}
			}
		}
	case errors.Is(err, configurator.ErrNotExplained) && sess != nil:
		return notExplained(sess, act, err)
	}
	return err
}

// notExplained words Why? or Make room on a square that needs no reason.
func notExplained(sess *configurator.Session, act board.Action, err error) error {
	verb := "Why?"
	if act.Kind == board.Room {
		verb = "Make room"
	}
	p := &problem.Problem{Status: http.StatusUnprocessableEntity, Err: err}
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
// the primary's deadline, and the order panel's figures of the spaces the
// cache holds.
func (s *Server) measure(ctx context.Context, r *view.Step, primary *spaces.Space) {
	p := r.Primary()
	if p.Session == nil {
		return
	}
	if r.State.Heat {
		r.Heat = s.heatMap(ctx, primary, r.State.Queens)
	}
	if r.State.Diagram {
		r.Diagram = s.diagramSize(ctx, primary, r.State.Queens)
	}
	if s.lineup.AnyOrdered(r.State.Mode) {
		r.Orders = s.orderFacts(ctx, r.State, false)
	}
}

// heatMap counts the solutions through every square, when the space
// counts per square (a configurator.Marginaler); otherwise it says which
// backends do.
func (s *Server) heatMap(ctx context.Context, e *spaces.Space, queens []configurator.Cell) view.Heat {
	mg, ok := e.Space.(configurator.Marginaler)
	if !ok {
		return view.Heat{Missing: &view.Missing{Backend: e.Key.Backend, Have: s.having(func(f facets) bool { return f.marginals })}}
	}
	ctx, cancel := context.WithTimeout(ctx, s.deadline(e.Key.Backend))
	defer cancel()
	start := time.Now()
	m, err := mg.Marginals(ctx, queens)
	if err != nil {
		return view.Heat{Err: err}
	}
	return view.Heat{Marginals: m, Took: time.Since(start)}
}

// diagramSize counts the nodes of the space's diagram under the placement,
// when the space has one (a configurator.Diagrammer); otherwise it says
// which backends do.
func (s *Server) diagramSize(ctx context.Context, e *spaces.Space, queens []configurator.Cell) view.DiagramSize {
	dg, ok := e.Space.(configurator.Diagrammer)
	if !ok {
		return view.DiagramSize{Missing: &view.Missing{Backend: e.Key.Backend, Have: s.having(func(f facets) bool { return f.diagram })}}
	}
	ctx, cancel := context.WithTimeout(ctx, s.deadline(e.Key.Backend))
	defer cancel()
	// Only the count (a cap of 0): the drawing is asked for apart, by
	// /diagram.svg or the viewer, so writing its text here would be lost.
	_, nodes, err := dg.Diagram(ctx, queens, 0)
	if err != nil {
		return view.DiagramSize{Err: err}
	}
	return view.DiagramSize{Nodes: nodes}
}

// searchWork fills in o.searched: for a space without a diagram, the
// work of its analysis under each searched reason's queens alone, under
// the backend's deadline (a reason whose analysis fails keeps nil).
func (s *Server) searchWork(ctx context.Context, o *outcome) {
	ex := o.Explanation
	if ex == nil || o.entry == nil {
		return
	}
	if _, ok := o.entry.Space.(configurator.Diagrammer); ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.deadline(o.Backend))
	defer cancel()
	o.searched = make([]*configurator.Work, len(ex.Reasons))
	for i, cause := range ex.Reasons {
		if cause.Reason == configurator.Attack || len(cause.Queens) == 0 || len(cause.Proof) > 0 || cause.Split != nil || cause.Solutions != nil {
			continue
		}
		if a, err := o.entry.Space.Analyze(ctx, cause.Queens); err == nil {
			o.searched[i] = &a.Work
		}
	}
}

// prep says how showing each board the controls of st link to begins
// (view.PrepKeys).
func (s *Server) prep(st board.State) view.Prep {
	p := view.Prep{}
	for _, k := range view.PrepKeys(s.site, st) {
		p[k] = s.longPrep(k)
	}
	return p
}

// longPrep says how showing a board begins when it needs a large space
// that the cache does not hold yet: "compiles", or "loads" when each such
// space is loaded from its compiled file; "not on disk" when one is
// served from a compiled file alone and the file is missing (showing it
// is refused); "" when it needs none.
func (s *Server) longPrep(b view.PrepKey) string {
	verb := ""
	for _, name := range s.lineup.Backends(b.Mode) {
		k := s.spaces.Key(name, b.N, b.Order)
		if s.spaces.Cached(k) || !s.spaces.Heavy(k) {
			continue
		}
		f, ok := s.loading(k)
		switch {
		case f.Missing():
			return "not on disk"
		case !ok:
			verb = "compiles"
		case verb == "":
			verb = "loads"
		}
	}
	return verb
}

// preparing is what the page says of the spaces of keys while it waits
// for them.
func (s *Server) preparing(keys []spaces.Key) []view.Preparing {
	out := make([]view.Preparing, 0, len(keys))
	for _, k := range keys {
		p := view.Preparing{Backend: k.Backend, N: k.N, Cached: s.spaces.Cached(k)}
		if s.lineup.Ordered(k.Backend) {
			p.Order = words.Order(k.Order)
		}
		var f configurator.SpaceFile
		f, p.Loading = s.loading(k)
		p.File = f.Bytes
		p.Started, p.Running = s.spaces.Compiling(k)
		p.Counted, p.Counting = s.spaces.Counting(k)
		p.Settled, p.Settling = s.spaces.Settling(k)
		for m := k.N - 1; m >= max(1, k.N-3); m-- {
			if took, ok := s.spaces.Took(spaces.Key{Backend: k.Backend, N: m, Order: k.Order}); ok {
				p.EarlierN, p.Earlier = m, took
				break
			}
		}
		out = append(out, p)
	}
	return out
}

// newRand returns a generator for Complete, seeded afresh per request.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
