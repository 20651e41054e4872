package server

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// The model page's diagram (GET /model-diagram?model=ID&select=..&deselect=..):
// the reduced decision diagram of the configurations left under the
// decisions, in the shape of /api/v1/diagram's answer so that the board's
// viewer draws it (frontend/static/diagram.js), when it has at most the
// server's drawing limit of nodes (Config.DiagramNodes); its size and
// profile per level otherwise. The first backend of the page's mode whose
// spaces lay out a feature graph (configurator.FeatureGrapher) answers; a
// mode with none says why there is no diagram.

// maxProfileRows is the most rows of a profile answered: a diagram of more
// levels has runs of consecutive levels summed into one row, so that a
// model of thousands of features charts in a few screens.
const maxProfileRows = 64

// modelDiagram answers the diagram, or its failure as the API answers one
// (JSON with the reason in "error"), which the viewer shows.
func (s *Server) modelDiagram(c echo.Context) error {
	if err := s.featureDiagram(c); err != nil {
		p := s.pageFailure(c, err)
		if p.RetryAfter > 0 {
			c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
		}
		return c.JSON(p.Status, apiError{Error: p.Message})
	}
	return nil
}

func (s *Server) featureDiagram(c echo.Context) error {
	ctx := c.Request().Context()
	st, m, ds, err := s.pageDecisions(ctx, c.QueryParams())
	if err != nil {
		return err
	}
	mode := s.pageMode(st)
	if _, ok := s.lineup.ParseMode(st.Backend); st.Backend != "" && !ok {
		return problem.New(http.StatusBadRequest, "%s is not a backend: choose %s.", words.Quote(st.Backend), s.lineup.Choices(true, false))
	}
	var why error
	for _, name := range s.lineup.Backends(mode) {
		sp, err := s.modelSpace(ctx, st.Model, name)
		if err != nil {
			why = cmp.Or(why, err) // the first backend's error
			continue
		}
		fg, ok := sp.Space.(configurator.FeatureGrapher)
		if !ok {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, s.cfg.DiagramDeadline)
		defer cancel()
		done, err := configurator.Admit(dctx, sp.Space)
		if err != nil {
			return err
		}
		defer done()
		resp, err := s.modelGraph(dctx, fg, st.Model, m, ds, name)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, resp)
	}
	if why != nil {
		return why
	}
	return problem.New(http.StatusNotFound, "The %s backend keeps no decision diagram: choose a BDD to see one.", mode)
}

// modelGraph is the diagram of model id (m) under the decisions on the
// space fg of backend, in the shape of /api/v1/diagram's answer: its
// levels named by their features, its profile by levels. The caller holds
// the space's turn; ctx bounds the drawing.
func (s *Server) modelGraph(ctx context.Context, fg configurator.FeatureGrapher, id string, m *feature.Model, ds []configurator.Decision, backend string) (diagramResponse, error) {
	start := time.Now()
	g, err := fg.FeatureGraph(ctx, ds, s.cfg.DiagramNodes)
	if err != nil {
		return diagramResponse{}, err
	}
	order, heuristic := fg.DiagramOrder()
	labels := make([]string, len(order))
	for l, f := range order {
		labels[l] = m.Features[f].Name
	}
	resp := graphJSON(g, s.cfg.DiagramNodes, time.Since(start))
	dec := newDecisionsJSON(m, ds)
	resp.Model, resp.Decisions, resp.Backend, resp.Order = id, &dec, backend, heuristic
	resp.Profile, resp.WholeProfile = levelProfile(labels, g.Profile), levelProfile(labels, g.Whole)
	return resp, nil
}

// apiDiagramModel is POST /api/v1/diagram with a "model": the diagram the
// model page's viewer draws (modelGraph), on the backend named or the
// first that configures models, drawn in its turn within the time of a
// diagram. A backend that keeps no diagram is refused before any work on
// the decisions; the session that checks them says which conflict.
func (s *Server) apiDiagramModel(c echo.Context, body []byte) error {
	var req modelRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	mo, sp, err := s.findModel(c, req)
	if err != nil {
		return err
	}
	fg, ok := sp.(configurator.FeatureGrapher)
	if !ok {
		return s.noGraph(mo.backend)
	}
	if mo, err = s.openSession(c.Request().Context(), mo, sp); err != nil {
		return modelError(c, err)
	}
	defer mo.done()
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.DiagramDeadline)
	defer cancel()
	resp, err := s.modelGraph(ctx, fg, mo.id, mo.model, mo.decisions, mo.backend)
	if err != nil {
		return modelWorkProblem(ctx, mo.backend, err)
	}
	return c.JSON(http.StatusOK, resp)
}

// levelProfile labels a profile's counts by the features of the levels,
// top first, summing runs of consecutive levels into at most
// maxProfileRows rows, each labelled by its first and last feature.
func levelProfile(labels []string, counts []int) []profileEntry {
	per := (len(counts) + maxProfileRows - 1) / maxProfileRows
	var out []profileEntry
	for lo := 0; lo < len(counts); lo += per {
		hi := min(lo+per, len(counts))
		e := profileEntry{Label: labels[lo]}
		if hi-lo > 1 {
			e.Label += " … " + labels[hi-1]
		}
		for _, k := range counts[lo:hi] {
			e.Nodes += k
		}
		out = append(out, e)
	}
	return out
}
