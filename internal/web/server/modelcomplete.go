package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// modelCompleteRequest is the model form of POST /api/v1/complete: the
// decisions and how to complete them (configurator.How by name; empty:
// uniform where the backend samples, fewest where it does not).
type modelCompleteRequest struct {
	modelRequest
	How string `json:"how"`
}

func (modelCompleteRequest) fields() string { return "model, select, deselect, backend, how" }

// modelCompleteResponse is the answer of /complete on a model: a
// configuration that keeps the decisions, every feature once in select or
// deselect (in the model's order), selected the number in select. For
// fewest and most, exact says that no configuration keeping the decisions
// selects fewer (more), and bound is what is proven: none selects fewer
// (more) than bound; both null for uniform.
type modelCompleteResponse struct {
	Model     string   `json:"model"`
	Backend   string   `json:"backend"`
	How       string   `json:"how"`
	Select    []string `json:"select"`
	Deselect  []string `json:"deselect"`
	Selected  int      `json:"selected"`
	Exact     *bool    `json:"exact"`
	Bound     *int     `json:"bound"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// optimizeShare is the share of the time left to a request that a search
// for the fewest or the most features may take: past it the search stops
// and the best it found is the answer, with the bound it reached, in
// time to be sent.
const optimizeShare = 0.75

// apiCompleteModel is POST /api/v1/complete with a "model".
func (s *Server) apiCompleteModel(c echo.Context, body []byte) error {
	var req modelCompleteRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	var how configurator.How
	if req.How != "" {
		var err error
		if how, err = configurator.ParseHow(req.How); err != nil {
			return problem.New(http.StatusBadRequest, "\"how\" is %s; use \"uniform\", \"fewest\" or \"most\".", words.Quote(req.How))
		}
	}
	mo, err := s.openModel(c, req.modelRequest)
	if err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	if _, ok := mo.session.Space().(configurator.FeatureSampler); req.How == "" && !ok {
		how = configurator.Fewest
	}
	start := time.Now()
	dl, _ := mo.ctx.Deadline() // the backend's, which openSession set
	ctx, cancel := context.WithDeadline(mo.ctx, start.Add(time.Duration(optimizeShare*float64(time.Until(dl)))))
	defer cancel()
	done, err := mo.session.Finish(ctx, how, newRand())
	switch {
	case errors.Is(err, configurator.ErrNoSampler):
		return problem.New(http.StatusUnprocessableEntity, "The %s backend does not draw configurations uniformly at random: ask the bdd backend for \"uniform\", or this one for \"fewest\" or \"most\".", mo.backend)
	case errors.Is(err, configurator.ErrNoOptimizer):
		return problem.New(http.StatusUnprocessableEntity, "The %s backend does not search for the fewest or the most features: ask for \"uniform\", or another backend.", mo.backend)
	case err != nil:
		return modelWorkProblem(mo.ctx, mo.backend, err)
	}
	names := configJSON(mo.model, done.Selected)
	resp := modelCompleteResponse{Model: mo.id, Backend: mo.backend, How: done.How.String(), Select: names.Select, Deselect: names.Deselect,
		Selected: done.Selections(), ElapsedMS: ms(time.Since(start))}
	if done.How != configurator.Uniform {
		resp.Exact, resp.Bound = &done.Exact, &done.Bound
	}
	return c.JSON(http.StatusOK, resp)
}
