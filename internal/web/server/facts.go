package server

import (
	"context"
	"math/big"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/view"
	"github.com/nqueens/configurator/internal/web/words"
)

// factsRequest is the body of POST /api/v1/facts.
type factsRequest struct {
	Model   *string `json:"model"`
	Backend string  `json:"backend"`
}

func (factsRequest) fields() string { return "model, backend" }

// factsResponse is the answer of POST /api/v1/facts (configurator.Facts),
// by name in the model's order: configurations a decimal string and
// commonality each feature's share of them (0 to 1), both null when the
// backend does not count.
type factsResponse struct {
	Model          string             `json:"model"`
	Backend        string             `json:"backend"`
	Core           []string           `json:"core"`
	Dead           []string           `json:"dead"`
	FalseOptional  []string           `json:"false_optional"`
	AtomicSets     [][]string         `json:"atomic_sets"`
	Configurations *string            `json:"configurations"`
	Commonality    map[string]float64 `json:"commonality"`
	ElapsedMS      float64            `json:"elapsed_ms"`
}

// apiFacts is POST /api/v1/facts: the model's facts as a whole, under
// the backend's deadline.
func (s *Server) apiFacts(c echo.Context) error {
	var req factsRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	mo, err := s.openModel(c, modelRequest{Model: req.Model, Backend: req.Backend})
	if err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	start := time.Now()
	facts, err := configurator.ModelFacts(mo.ctx, mo.session.Space())
	if err != nil {
		return modelWorkProblem(mo.ctx, mo.backend, err)
	}
	resp := newFactsResponse(mo.model, facts)
	resp.Model, resp.Backend, resp.ElapsedMS = mo.id, mo.backend, ms(time.Since(start))
	return c.JSON(http.StatusOK, resp)
}

// newFactsResponse writes facts for the API.
func newFactsResponse(m *feature.Model, f *configurator.Facts) factsResponse {
	resp := factsResponse{Core: featureNames(m, f.Core), Dead: featureNames(m, f.Dead), FalseOptional: featureNames(m, f.FalseOptional), AtomicSets: [][]string{}}
	for _, set := range f.AtomicSets {
		resp.AtomicSets = append(resp.AtomicSets, featureNames(m, set))
	}
	if f.Configurations != nil {
		n := f.Configurations.String()
		resp.Configurations = &n
	}
	if f.Selecting != nil && f.Configurations != nil && f.Configurations.Sign() > 0 {
		resp.Commonality = make(map[string]float64, len(f.Selecting))
		for i, k := range f.Selecting {
			share, _ := new(big.Rat).SetFrac(k, f.Configurations).Float64()
			resp.Commonality[m.Features[i].Name] = share
		}
	}
	return resp
}

// modelFacts is GET /model-facts?model=ID&backend=..: the model page's
// panel of the model's facts, found by the first backend of the page's
// mode that has the model ready, under its deadline; a page of its own
// without JavaScript.
func (s *Server) modelFacts(c echo.Context) error {
	v, err := s.pageFacts(c)
	status := http.StatusOK
	if err != nil {
		p := s.pageFailure(c, err)
		v, status = &view.ModelFacts{Title: "Model facts", Err: p.Message}, p.Status
	}
	return s.render(c, status, panel(c, "model-facts"), v)
}

func (s *Server) pageFacts(c echo.Context) (*view.ModelFacts, error) {
	ctx := c.Request().Context()
	st, err := modelstate.Parse(c.QueryParams())
	if err != nil {
		return nil, err
	}
	m, _, err := s.models.Model(ctx, st.Model)
	if err != nil {
		return nil, err
	}
	name, sp, err := s.pageSpace(ctx, st, func(configurator.Space) bool { return true })
	if err != nil {
		return nil, err
	}
	bctx, cancel := context.WithTimeout(ctx, s.deadline(name))
	defer cancel()
	done, err := configurator.Admit(bctx, sp.Space)
	if err != nil {
		return nil, modelWorkProblem(bctx, name, err)
	}
	defer done()
	start := time.Now()
	f, err := configurator.ModelFacts(bctx, sp.Space)
	if err != nil {
		return nil, modelWorkProblem(bctx, name, err)
	}
	return view.NewModelFacts(st, m, name, f, words.Duration(time.Since(start))), nil
}
