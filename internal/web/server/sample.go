package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configfile"
	"github.com/nqueens/configurator/configurator/feature"
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
	k := 0
	if req.Uniform != nil {
		k = *req.Uniform
	}
	configs, p, err := drawSample(mo, k)
	if err != nil {
		return err
	}
	if p != nil {
		coverage := p.Coverage()
		resp.T, resp.Pairs, resp.Covered, resp.Coverage, resp.Complete = req.T, &p.Pairs, &p.Covered, &coverage, &p.Complete
	}
	for _, config := range configs {
		resp.Configurations = append(resp.Configurations, configJSON(mo.model, config))
	}
	resp.Size, resp.ElapsedMS = len(configs), ms(time.Since(start))
	return c.JSON(http.StatusOK, resp)
}

// drawSample draws k configurations uniformly from mo's session, or a
// pairwise covering sample (and its coverage) when k is 0: the API's
// sample and the page's download alike.
func drawSample(mo *modelSession, k int) ([][]bool, *configurator.Pairwise, error) {
	if k > 0 {
		configs, err := configurator.UniformSample(mo.ctx, mo.session.Space(), mo.decisions, k, newRand())
		if errors.Is(err, configurator.ErrNoSampler) {
			return nil, nil, problem.New(http.StatusUnprocessableEntity, "The %s backend does not draw configurations uniformly at random: ask the bdd backend, or for a pairwise sample.", mo.backend)
		}
		if err != nil {
			return nil, nil, modelWorkProblem(mo.ctx, mo.backend, err)
		}
		return configs, nil, nil
	}
	p, err := configurator.PairwiseSample(mo.ctx, mo.session.Space(), mo.decisions)
	if errors.Is(err, configurator.ErrSampleSize) {
		return nil, nil, problem.New(http.StatusRequestEntityTooLarge, "A pairwise sample covers models of up to %d features; this one has %d.", configurator.MaxSampleFeatures, len(mo.model.Features))
	}
	if err != nil {
		return nil, nil, modelWorkProblem(mo.ctx, mo.backend, err)
	}
	return p.Configurations, p, nil
}

// modelSample is GET /model-sample?model=ID&select=..&deselect=..&
// backend=..&t=2 (or &uniform=K): the model page's download of a sample
// as CSV (configfile.WriteSample), found by the first backend of the
// page's mode that has the model ready (for uniform, one that samples),
// under its deadline.
func (s *Server) modelSample(c echo.Context) error {
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
	mo, _, err := s.openPage(c.Request().Context(), v, func(sp configurator.Space) bool {
		_, ok := sp.(configurator.FeatureSampler)
		return k == 0 || ok
	})
	if err != nil {
		return err
	}
	defer mo.done()
	configs, _, err := drawSample(mo, k)
	if err != nil {
		return err
	}
	m := mo.model
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
