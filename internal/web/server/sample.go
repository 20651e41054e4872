package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configfile"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// sampleRequest is the body of POST /api/v1/sample: the decisions, and
// either "t": 2 (a pairwise covering sample) or "uniform": k.
type sampleRequest struct {
	modelRequest
	T       *int `json:"t"`
	Uniform *int `json:"uniform"`
}

func (sampleRequest) fields() string { return "model, select, deselect, backend, t, uniform" }

// sampleResponse is the answer of POST /api/v1/sample: the configurations,
// every feature once in each; for a pairwise sample the valid pairs, those
// covered, their share (coverage) and whether every pair was settled
// (complete: false when the request's time ran out first, coverage then a
// lower bound).
type sampleResponse struct {
	Model          string          `json:"model"`
	Backend        string          `json:"backend"`
	Configurations []decisionsJSON `json:"configurations"`
	Size           int             `json:"size"`
	T              *int            `json:"t,omitempty"`
	Pairs          *int            `json:"pairs,omitempty"`
	Covered        *int            `json:"covered,omitempty"`
	Coverage       *float64        `json:"coverage,omitempty"`
	Complete       *bool           `json:"complete,omitempty"`
	ElapsedMS      float64         `json:"elapsed_ms"`
}

// configJSON names a configuration's features: those it selects and the
// others, in the model's order.
func configJSON(m *feature.Model, config []bool) decisionsJSON {
	out := decisionsJSON{Select: []string{}, Deselect: []string{}}
	for f, on := range config {
		if on {
			out.Select = append(out.Select, m.Features[f].Name)
		} else {
			out.Deselect = append(out.Deselect, m.Features[f].Name)
		}
	}
	return out
}

// apiSample is POST /api/v1/sample.
func (s *Server) apiSample(c echo.Context) error {
	var req sampleRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	switch {
	case (req.T == nil) == (req.Uniform == nil):
		return problem.New(http.StatusBadRequest, "Say which sample: \"t\": 2 for a pairwise covering sample, or \"uniform\": k for k configurations drawn uniformly.")
	case req.T != nil && *req.T != 2:
		return problem.New(http.StatusBadRequest, "\"t\" is %d; this server covers pairs only: \"t\": 2.", *req.T)
	case req.Uniform != nil && (*req.Uniform < 1 || *req.Uniform > configurator.MaxUniform):
		return problem.New(http.StatusBadRequest, "\"uniform\" is %d; it must be from 1 to %d.", *req.Uniform, configurator.MaxUniform)
	}
	mo, err := s.openModel(c, req.modelRequest)
	if err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	start := time.Now()
	resp := sampleResponse{Model: mo.id, Backend: mo.backend, Configurations: []decisionsJSON{}}
	var configs [][]bool
	if req.Uniform != nil {
		configs, err = configurator.UniformSample(mo.ctx, mo.session.Space(), mo.decisions, *req.Uniform, newRand())
		if errors.Is(err, configurator.ErrNoSampler) {
			return problem.New(http.StatusUnprocessableEntity, "The %s backend does not draw configurations uniformly at random: ask the bdd backend, or for \"t\": 2.", mo.backend)
		}
	} else {
		var p *configurator.Pairwise
		p, err = configurator.PairwiseSample(mo.ctx, mo.session.Space(), mo.decisions)
		if errors.Is(err, configurator.ErrSampleSize) {
			return problem.New(http.StatusRequestEntityTooLarge, "A pairwise sample covers models of up to %d features; this one has %d.", configurator.MaxSampleFeatures, len(mo.model.Features))
		}
		if err == nil {
			configs = p.Configurations
			coverage := p.Coverage()
			resp.T, resp.Pairs, resp.Covered, resp.Coverage, resp.Complete = req.T, &p.Pairs, &p.Covered, &coverage, &p.Complete
		}
	}
	if err != nil {
		return modelWorkProblem(mo.ctx, mo.backend, err)
	}
	for _, config := range configs {
		resp.Configurations = append(resp.Configurations, configJSON(mo.model, config))
	}
	resp.Size, resp.ElapsedMS = len(configs), ms(time.Since(start))
	return c.JSON(http.StatusOK, resp)
}

// modelSample is GET /model-sample?model=ID&select=..&deselect=..&
// backend=..&t=2 (or &uniform=K): the model page's download of a sample
// as CSV (configfile.WriteSample), found by the first backend of the
// page's mode that has the model ready (for uniform, one that samples),
// under its deadline.
func (s *Server) modelSample(c echo.Context) error {
	if err := s.pageSample(c); err != nil {
		p := problem.Describe(pageProblem(err))
		if p.Status >= 500 {
			s.logFailure(c.Request(), p, err)
		}
		return c.String(p.Status, p.Message+"\n")
	}
	return nil
}

func (s *Server) pageSample(c echo.Context) error {
	ctx := c.Request().Context()
	v := c.QueryParams()
	k := 0
	if u := v.Get("uniform"); u != "" {
		var err error
		if k, err = strconv.Atoi(u); err != nil || k < 1 || k > configurator.MaxUniform {
			return problem.New(http.StatusBadRequest, "uniform=%s: ask for 1 to %d configurations.", words.Quote(u), configurator.MaxUniform)
		}
	} else if v.Get("t") != "2" {
		return problem.New(http.StatusBadRequest, "Say which sample: t=2 for a pairwise covering sample, or uniform=K.")
	}
	st, err := modelstate.Parse(v)
	if err != nil {
		return err
	}
	m, _, err := s.models.Model(ctx, st.Model)
	if err != nil {
		return err
	}
	ds, err := configurator.ParseDecisions(m, st.Select, st.Deselect)
	if err != nil {
		return err
	}
	name, sp, err := s.pageSpace(ctx, st, func(sp configurator.Space) bool {
		_, ok := sp.(configurator.FeatureSampler)
		return k == 0 || ok
	})
	if err != nil {
		return err
	}
	bctx, cancel := context.WithTimeout(ctx, s.deadline(name))
	defer cancel()
	if _, err := s.featureSession(bctx, sp, ds); err != nil {
		return err
	}
	var configs [][]bool
	if k > 0 {
		configs, err = configurator.UniformSample(bctx, sp, ds, k, newRand())
	} else {
		var p *configurator.Pairwise
		if p, err = configurator.PairwiseSample(bctx, sp, ds); err == nil {
			configs = p.Configurations
		}
	}
	if err != nil {
		return modelWorkProblem(bctx, name, err)
	}
	var b bytes.Buffer
	if err := configfile.WriteSample(&b, m, configs); err != nil {
		return err
	}
	kind := "pairwise"
	if k > 0 {
		kind = "uniform"
	}
	c.Response().Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fileName(configurator.ModelName(m))+"-"+kind+".csv"))
	return c.Blob(http.StatusOK, configfile.CSV.MediaType(), b.Bytes())
}
