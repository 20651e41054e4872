package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// The diagram as data: POST /api/v1/diagram answers the remaining
// solutions under a placement as a layered graph that the page's viewer
// lays out and draws itself (frontend/static/diagram.js), in one of two
// views (configurator.GraphView): "ranks", one layer per rank and an edge
// per file the rank's queen can take, or "bdd", the reduced diagram with
// "hi" and "lo" edges. Beyond maxGraphNodes it answers the size alone, per
// rank.

// maxGraphNodes is the most nodes a diagram answer holds: as many as the
// viewer lays out and draws at once, in an answer that stays under a
// megabyte.
const maxGraphNodes = 5000

// diagramRequest is the body of /api/v1/diagram.
type diagramRequest struct {
	boardRequest
	View string `json:"view"`
}

// diagramResponse is the answer of /api/v1/diagram. Root and One are null
// when Truncated; Solutions, a decimal string, is then absent, and
// WholeProfile, the profile of the whole diagram, present. A model's
// diagram names the model and its decisions instead of N and Queens.
type diagramResponse struct {
	View         string         `json:"view"`
	Model        string         `json:"model,omitempty"`
	Decisions    *decisionsJSON `json:"decisions,omitempty"`
	N            int            `json:"n,omitzero"`
	Backend      string         `json:"backend"`
	Order        string         `json:"order"`
	Queens       [][2]int       `json:"queens,omitzero"`
	Layers       []string       `json:"layers"`
	Nodes        []graphNode    `json:"nodes"`
	Edges        []graphEdge    `json:"edges"`
	Root         *int           `json:"root"`
	One          *int           `json:"one"`
	Truncated    bool           `json:"truncated"`
	MaxNodes     int            `json:"max_nodes"`
	Solutions    string         `json:"solutions,omitempty"`
	DiagramNodes int            `json:"diagram_nodes"`
	Profile      []profileEntry `json:"profile"`
	WholeProfile []profileEntry `json:"whole_profile,omitempty"`
	ElapsedMS    float64        `json:"elapsed_ms"`
}

// graphNode is a node of the answer: Paths is the number of paths below
// it to 1 (a decimal string), Cells the squares it stands for.
type graphNode struct {
	ID    int      `json:"id"`
	Layer int      `json:"layer"`
	Label string   `json:"label"`
	Paths string   `json:"paths"`
	Cells [][2]int `json:"cells"`
}

// graphEdge is an edge of the answer: Cell is the square it puts a queen
// on, absent for a "lo" edge.
type graphEdge struct {
	From  int     `json:"from"`
	To    int     `json:"to"`
	Label string  `json:"label"`
	Cell  *[2]int `json:"cell,omitempty"`
}

// profileEntry is the number of nodes of the restricted diagram labelled
// by a square of one rank.
type profileEntry struct {
	Label string `json:"label"`
	Nodes int    `json:"nodes"`
}

// apiDiagramBoard is POST /api/v1/diagram with a board.
func (s *Server) apiDiagramBoard(c echo.Context, body []byte) error {
	var req diagramRequest
	st, backend, err := s.bodyBoard(body, &req, &req.boardRequest)
	if err != nil {
		return err
	}
	gv := configurator.RankView
	if req.View != "" {
		if gv, err = configurator.ParseGraphView(req.View); err != nil {
			return problem.New(http.StatusBadRequest, "%s is not a view of the diagram: use \"ranks\" or \"bdd\".", words.Quote(req.View))
		}
	}
	if gv == configurator.RankView {
		// The rank view reads the ranks off a row-order diagram; the
		// solutions are the same in every order.
		st.Order = configurator.RowMajor
	}
	e, err := s.apiSpace(c, backend, st)
	if err != nil {
		return err
	}
	gr, ok := e.Space.(configurator.Grapher)
	if !ok {
		return s.noGraph(backend)
	}
	if err := e.Board().Model().Check(st.Queens); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.DiagramDeadline)
	defer cancel()
	done, err := configurator.Admit(ctx, e.Space)
	if err != nil {
		return err
	}
	defer done()
	s.spaces.Use(e)
	start := time.Now()
	g, err := gr.Graph(ctx, st.Queens, gv, maxGraphNodes)
	if errors.Is(err, configurator.ErrNoSolution) {
		// The session says why, as the board's session does: two queens
		// that attack, say.
		bm := e.Board().Model()
		if _, serr := configurator.NewFeatureSession(ctx, e.Board(), configurator.BoardDecisions(bm, st.Queens)); serr != nil {
			err = boardProblem(bm, st.Queens, serr)
		}
	}
	if err != nil {
		return err
	}
	resp := graphJSON(g, maxGraphNodes, time.Since(start))
	resp.N, resp.Backend, resp.Order, resp.Queens, resp.Profile = st.N, backend, e.Key.Order.String(), pairs(st.Queens), profileOf(g.Profile)
	if g.Whole != nil {
		resp.WholeProfile = profileOf(g.Whole)
	}
	return c.JSON(http.StatusOK, resp)
}

// noGraph is the 400 of a diagram asked of a backend whose spaces lay out
// no graph (configurator.Grapher), naming, in the order registered, those
// known to from the spaces they compiled.
func (s *Server) noGraph(backend string) *problem.Problem {
	var have []string
	for _, name := range s.lineup.Names() {
		if g, ok := s.graphs.Load(name); ok && g.(bool) {
			have = append(have, `"backend": "`+name+`"`)
		}
	}
	if len(have) == 0 {
		return problem.New(http.StatusBadRequest, "The %s backend keeps no diagram to show.", backend)
	}
	return problem.New(http.StatusBadRequest, "The %s backend keeps no diagram to show: use %s.", backend, words.List(have, "or"))
}

// graphJSON is the answer of graph g, a board's or a model's, of at most
// maxNodes nodes, made in took: its layers, nodes and edges, and its
// root, terminal and solutions when it is not truncated. The caller says
// whose diagram it is, and its profile.
func graphJSON(g *configurator.Graph, maxNodes int, took time.Duration) diagramResponse {
	resp := diagramResponse{View: g.View.String(), Layers: g.Layers, Nodes: make([]graphNode, len(g.Nodes)),
		Edges: make([]graphEdge, len(g.Edges)), Truncated: g.Truncated, MaxNodes: maxNodes, DiagramNodes: g.DiagramNodes, ElapsedMS: ms(took)}
	if resp.Layers == nil {
		resp.Layers = []string{}
	}
	for i, nd := range g.Nodes {
		resp.Nodes[i] = graphNode{ID: i, Layer: nd.Layer, Label: nd.Label, Paths: nd.Paths.String(), Cells: pairs(nd.Cells)}
	}
	for i, ed := range g.Edges {
		resp.Edges[i] = graphEdge{From: ed.From, To: ed.To, Label: ed.Label}
		if ed.HasCell {
			resp.Edges[i].Cell = &[2]int{ed.Cell.Row, ed.Cell.Col}
		}
	}
	if !g.Truncated {
		resp.Root, resp.One = &g.Root, &g.One
		resp.Solutions = g.Solutions.String()
	}
	return resp
}

// profileOf labels a profile's counts by rank.
func profileOf(counts []int) []profileEntry {
	out := make([]profileEntry, len(counts))
	for r, k := range counts {
		out[r] = profileEntry{Label: fmt.Sprintf("rank %d", r+1), Nodes: k}
	}
	return out
}
