package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
)

// The model page's Complete (GET /model-complete?model=ID&select=..&
// deselect=..&backend=..&how=uniform|fewest|most): a configuration that
// keeps the decisions, found by the first backend of the page's mode that
// can (for uniform, one that samples: another backend of the server when
// the mode's cannot), shown in place under the controls (for htmx), or as
// a page of its own without JavaScript. Its Apply link decides every
// feature as the configuration says.

// modelComplete serves GET /model-complete.
func (s *Server) modelComplete(c echo.Context) error {
	v, err := s.featureCompletion(c)
	if err != nil {
		p := problem.Describe(pageProblem(err))
		if p.Status >= 500 {
			s.logFailure(c.Request(), p, err)
		}
		v = &view.ModelCompletion{Title: "Complete", Err: p.Message}
		return s.render(c, p.Status, s.completionTemplate(c), v)
	}
	return s.render(c, http.StatusOK, s.completionTemplate(c), v)
}

// completionTemplate is the fragment for htmx, the page otherwise.
func (s *Server) completionTemplate(c echo.Context) string {
	if isHTMX(c.Request()) {
		return "model-completion"
	}
	return "model-completion-page"
}

func (s *Server) featureCompletion(c echo.Context) (*view.ModelCompletion, error) {
	ctx := c.Request().Context()
	v := c.QueryParams()
	how, err := configurator.ParseHow(v.Get("how"))
	if err != nil {
		return nil, problem.New(http.StatusBadRequest, "%s is not a way to complete: choose uniform, fewest or most.", words.Quote(v.Get("how")))
	}
	st, err := modelstate.Parse(v)
	if err != nil {
		return nil, err
	}
	m, _, err := s.models.Model(ctx, st.Model)
	if err != nil {
		return nil, err
	}
	ds, err := configurator.ParseDecisions(m, st.Select, st.Deselect)
	if err != nil {
		return nil, err
	}
	name, sp, err := s.pageSpace(ctx, st, func(sp configurator.Space) bool {
		_, ok := sp.(configurator.FeatureSampler)
		return how != configurator.Uniform || ok
	})
	if errors.Is(err, errNoSpace) {
		return nil, problem.New(http.StatusUnprocessableEntity, "No backend of this server that has the model ready draws configurations uniformly at random: choose fewest or most.")
	}
	if err != nil {
		return nil, err
	}
	bctx, cancel := context.WithTimeout(ctx, s.deadline(name))
	defer cancel()
	sess, err := s.featureSession(bctx, sp, ds)
	if err != nil {
		return nil, err
	}
	fctx, fcancel := context.WithTimeout(bctx, time.Duration(optimizeShare*float64(s.deadline(name))))
	defer fcancel()
	start := time.Now()
	done, err := sess.Finish(fctx, how, newRand())
	if err != nil {
		return nil, modelWorkProblem(bctx, name, err)
	}
	return view.NewModelCompletion(st, m, name, done, words.Duration(time.Since(start))), nil
}

// errNoSpace: no backend has the model ready with the facet asked for.
var errNoSpace = errors.New("no backend has the model ready")

// pageSpace is the space of the state's model that a request of the page
// other than a step uses: of the first backend of the page's mode, then
// of the server's others, whose space is ready (within the page's quick
// wait) and that use accepts; errNoSpace when none is but some backend
// answers, else the first backend's error.
func (s *Server) pageSpace(ctx context.Context, st modelstate.State, use func(configurator.Space) bool) (string, configurator.Space, error) {
	mode := board.Mode(s.lineup.Primary())
	if md, ok := s.lineup.ParseMode(st.Backend); st.Backend != "" && ok {
		mode = md
	}
	names := s.lineup.Backends(mode)
	for _, n := range s.lineup.Names() {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var why error
	for _, name := range names {
		sp, err := s.modelSpace(ctx, st.Model, name)
		switch {
		case err != nil && ctx.Err() != nil:
			return "", nil, err
		case err != nil:
			why = firstErr(why, err)
		case !use(sp.Space):
			why = firstErr(why, errNoSpace)
		default:
			return name, sp.Space, nil
		}
	}
	if why == nil {
		why = errNoSpace
	}
	return "", nil, why
}

// firstErr keeps the first error of a search.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
