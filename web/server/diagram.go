package server

import (
	"bytes"
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-graphviz"
	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
)

// drawer renders DOT text to SVG with go-graphviz, which runs Graphviz
// compiled to WebAssembly in one module instance for the whole process:
// its calls must not overlap, and a layout cannot be interrupted. So one
// drawing runs at a time (slot), a request waits for its turn only as long
// as its context allows, and a drawing the request gave up on still
// finishes and lands in the small cache of recent drawings, where the next
// identical request finds it. The node cap upstream keeps each drawing
// short.
type drawer struct {
	slot chan struct{}

	mu    sync.Mutex
	gv    *graphviz.Graphviz // created on first use, under slot
	lru   *list.List         // of *drawing, most recent first
	index map[string]*list.Element
	bytes int
}

type drawing struct {
	key string
	svg []byte
}

// maxDrawingBytes bounds the cache of drawings.
const maxDrawingBytes = 16 << 20

func newDrawer() *drawer {
	return &drawer{slot: make(chan struct{}, 1), lru: list.New(), index: make(map[string]*list.Element)}
}

// SVG returns the drawing of dot, named key for the cache.
func (d *drawer) SVG(ctx context.Context, key, dot string) ([]byte, error) {
	if svg, ok := d.cached(key); ok {
		return svg, nil
	}
	select {
	case d.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to draw the diagram: %w", ctx.Err())
	}
	type answer struct {
		svg []byte
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() { <-d.slot }()
		svg, err := d.render(dot)
		if err == nil {
			d.store(key, svg)
		}
		ch <- answer{svg, err}
	}()
	select {
	case a := <-ch:
		return a.svg, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("drawing the diagram: %w", ctx.Err())
	}
}

// render draws dot; the caller holds the slot.
func (d *drawer) render(dot string) ([]byte, error) {
	// go-graphviz ignores the context inside the WebAssembly call.
	ctx := context.Background()
	if d.gv == nil {
		gv, err := graphviz.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("start graphviz: %w", err)
		}
		d.gv = gv
	}
	g, err := graphviz.ParseBytes([]byte(styleDOT(dot)))
	if err != nil {
		return nil, fmt.Errorf("parse the diagram: %w", err)
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := d.gv.Render(ctx, g, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("draw the diagram: %w", err)
	}
	return buf.Bytes(), nil
}

func (d *drawer) cached(key string) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.index[key]; ok {
		d.lru.MoveToFront(e)
		return e.Value.(*drawing).svg, true
	}
	return nil, false
}

func (d *drawer) store(key string, svg []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.index[key]; ok || len(svg) > maxDrawingBytes {
		return
	}
	d.index[key] = d.lru.PushFront(&drawing{key, svg})
	d.bytes += len(svg)
	for d.bytes > maxDrawingBytes {
		e := d.lru.Back()
		old := e.Value.(*drawing)
		d.lru.Remove(e)
		delete(d.index, old.key)
		d.bytes -= len(old.svg)
	}
}

// Close releases Graphviz once no drawing runs.
func (d *drawer) Close() {
	d.slot <- struct{}{}
	defer func() { <-d.slot }()
	if d.gv != nil {
		d.gv.Close()
		d.gv = nil
	}
}

// dotStyle gives the drawings the page's colours and a sans-serif face;
// the statements go first in the graph, so the diagram's own attributes
// (shapes, dashed low edges) still apply.
const dotStyle = `
	graph [bgcolor="transparent", fontname="sans-serif", nodesep=0.25, ranksep=0.35];
	node [fontname="sans-serif", fontsize=12, color="#2f6f8f", fontcolor="#1f2937", penwidth=1.4, width=0.45, fixedsize=true];
	edge [color="#5f6b7a", arrowsize=0.6];
`

// styleDOT inserts dotStyle after the opening brace of a DOT graph and,
// as drawings of decision diagrams customarily do, leaves out the 0
// terminal and the edges into it: a missing edge leads to 0. What remains
// is exactly the paths to 1, the solutions.
func styleDOT(dot string) string {
	var b strings.Builder
	for line := range strings.Lines(dot) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "n0 [") || strings.HasSuffix(t, "-> n0;") || strings.HasSuffix(t, "-> n0 [style=dashed];") {
			continue
		}
		b.WriteString(line)
		if strings.HasSuffix(t, "{") && !strings.Contains(t, "rank=") {
			b.WriteString(dotStyle)
		}
	}
	return b.String()
}

// The diagram as data: POST /api/v1/diagram answers the remaining
// solutions under a placement as a layered graph that the page's viewer
// lays out and draws itself (frontend/static/diagram.js), in one of two
// views (configurator.GraphView): "ranks", one layer per rank and an edge per file the
// rank's queen can take, or "bdd", the reduced diagram with "hi" and "lo"
// edges. Beyond maxGraphNodes it answers the size alone, per rank.

// maxGraphNodes is the most nodes a diagram answer holds: the viewer lays
// out and draws this many in well under two seconds, and the answer stays
// under a megabyte.
const maxGraphNodes = 5000

// diagramRequest is the body of /api/v1/diagram.
type diagramRequest struct {
	boardRequest
	View string `json:"view"`
}

// diagramResponse is the answer of /api/v1/diagram. Root and One are null
// when Truncated; Solutions, a decimal string, is then absent, and
// WholeProfile, the profile of the whole diagram, present.
type diagramResponse struct {
	View         string         `json:"view"`
	N            int            `json:"n"`
	Backend      string         `json:"backend"`
	Order        string         `json:"order"`
	Queens       [][2]int       `json:"queens"`
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

func (s *Server) apiDiagram(c echo.Context) error {
	var req diagramRequest
	st, backend, err := s.readBoard(c, &req)
	if err != nil {
		return err
	}
	view := configurator.RankView
	if req.View != "" {
		if view, err = configurator.ParseGraphView(req.View); err != nil {
			return problemf(http.StatusBadRequest, "%s is not a view of the diagram: use \"ranks\" or \"bdd\".", quote(req.View))
		}
	}
	if view == configurator.RankView {
		// The rank view reads the ranks off a row-order diagram; the
		// solutions are the same in every order.
		st.Order = configurator.RowMajor
	}
	e, err := s.apiSpace(c, backend, st)
	if err != nil {
		return err
	}
	gr, ok := e.space.(configurator.Grapher)
	if !ok {
		return problemf(http.StatusBadRequest, "The %s backend keeps no diagram to show: use \"backend\": \"bdd\".", backend)
	}
	if err := e.space.Model().Check(st.Queens); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.DiagramDeadline)
	defer cancel()
	done, err := configurator.Admit(ctx, e.space)
	if err != nil {
		return err
	}
	defer done()
	s.use(e)
	start := time.Now()
	g, err := gr.Graph(ctx, st.Queens, view, maxGraphNodes)
	if errors.Is(err, configurator.ErrNoSolution) {
		// The session says why: two queens that attack, say.
		if _, serr := configurator.NewSession(ctx, e.space, st.Queens); serr != nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, graphResponse(g, st, backend, e.key.order.String(), time.Since(start)))
}

// graphResponse turns a graph into the API's answer.
func graphResponse(g *configurator.Graph, st boardState, backend, order string, took time.Duration) diagramResponse {
	resp := diagramResponse{View: g.View.String(), N: st.N, Backend: backend, Order: order, Queens: pairs(st.Queens),
		Layers: g.Layers, Nodes: make([]graphNode, len(g.Nodes)), Edges: make([]graphEdge, len(g.Edges)),
		Truncated: g.Truncated, MaxNodes: maxGraphNodes, DiagramNodes: g.DiagramNodes, ElapsedMS: ms(took)}
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
	resp.Profile = profileOf(g.Profile)
	if g.Whole != nil {
		resp.WholeProfile = profileOf(g.Whole)
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
