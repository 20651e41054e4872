package server

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
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
	status := http.StatusOK
	if err != nil {
		p := s.pageFailure(c, err)
		v, status = &view.ModelCompletion{Title: "Complete", Err: p.Message}, p.Status
	}
	return s.render(c, status, panel(c, "model-completion"), v)
}

// panel is the template of a panel of the model page: name, the panel
// itself, for htmx, which swaps it in; name-page, a page of its own,
// without JavaScript.
func panel(c echo.Context, name string) string {
	if isHTMX(c.Request()) {
		return name
	}
	return name + "-page"
}

func (s *Server) featureCompletion(c echo.Context) (*view.ModelCompletion, error) {
	ctx := c.Request().Context()
	v := c.QueryParams()
	how, err := configurator.ParseHow(v.Get("how"))
	if err != nil {
		return nil, problem.New(http.StatusBadRequest, "%s is not a way to complete: choose uniform, fewest or most.", words.Quote(v.Get("how")))
	}
	mo, st, err := s.openPage(ctx, v, func(sp configurator.Space) bool {
		_, ok := sp.(configurator.FeatureSampler)
		return how != configurator.Uniform || ok
	})
	if errors.Is(err, errNoSpace) {
		return nil, problem.New(http.StatusUnprocessableEntity, "No backend of this server that has the model ready draws configurations uniformly at random: choose fewest or most.")
	}
	if err != nil {
		return nil, err
	}
	defer mo.done()
	fctx, fcancel := context.WithTimeout(mo.ctx, time.Duration(optimizeShare*float64(s.deadline(mo.backend))))
	defer fcancel()
	start := time.Now()
	done, err := mo.session.Finish(fctx, how, newRand())
	if err != nil {
		return nil, modelWorkProblem(mo.ctx, mo.backend, err)
	}
	return view.NewModelCompletion(st, mo.model, mo.backend, done, words.Duration(time.Since(start))), nil
}

// pageDecisions reads the model and the decisions of the model page's
// address v.
func (s *Server) pageDecisions(ctx context.Context, v url.Values) (modelstate.State, *feature.Model, []configurator.Decision, error) {
	st, err := modelstate.Parse(v)
	if err != nil {
		return st, nil, nil, err
	}
	m, _, err := s.models.Model(ctx, st.Model)
	if err != nil {
		return st, nil, nil, err
	}
	ds, err := configurator.ParseDecisions(m, st.Select, st.Deselect)
	return st, m, ds, err
}

// openPage opens the session that a request of the model page other than
// a step works on (a completion, a sample, a configuration file): the
// model and the decisions of the page's address v, on the space that
// pageSpace finds with use, in that backend's turn and under its deadline,
// as the API's requests are. The caller calls done when it has finished.
func (s *Server) openPage(ctx context.Context, v url.Values, use func(configurator.Space) bool) (*modelSession, modelstate.State, error) {
	st, m, ds, err := s.pageDecisions(ctx, v)
	if err != nil {
		return nil, st, err
	}
	name, sp, err := s.pageSpace(ctx, st, use)
	if err != nil {
		return nil, st, err
	}
	mo, err := s.openSession(ctx, &modelSession{id: st.Model, backend: name, model: m, decisions: ds, compiled: sp.Took}, sp.Space)
	return mo, st, err
}

// errNoSpace: no backend has the model ready with the facet asked for.
var errNoSpace = errors.New("no backend has the model ready")

// pageSpace is the space of the state's model that a request of the page
// other than a step uses: of the first backend of the page's mode, then
// of the server's others, whose space is ready (within the page's quick
// wait) and that use accepts; errNoSpace when none is but some backend
// answers, else the first backend's error.
func (s *Server) pageSpace(ctx context.Context, st modelstate.State, use func(configurator.Space) bool) (string, *spaces.Space, error) {
	names := s.lineup.Backends(s.pageMode(st))
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
			why = cmp.Or(why, err) // the first error of the search
		case !use(sp.Space):
			why = cmp.Or(why, errNoSpace)
		default:
			return name, sp, nil
		}
	}
	return "", nil, cmp.Or(why, errNoSpace)
}
