package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
)

// Grapher is a Board that lays out its remaining solutions under a
// placement as a layered graph: what a diagram viewer draws, whatever the
// backend keeps inside.
type Grapher interface {
	// Graph returns the remaining solutions under queens as view shows
	// them, unless the graph has more than maxNodes nodes (the terminal
	// included): then it returns the graph truncated, its size only. The
	// placement must leave a solution (ErrNoSolution otherwise).
	Graph(ctx context.Context, queens []Cell, view GraphView, maxNodes int) (*Graph, error)
}

// RankProfiler is a Board made of a decision diagram that says how its
// nodes spread over the board's ranks.
type RankProfiler interface {
	// RankProfile returns, per rank r (0-based), the nodes labelled by
	// the cells of rank r+1 in the space's order; they sum to the
	// diagram's nodes.
	RankProfile() []int
}

// FeatureGrapher is a Space made of a decision diagram that lays
// out the configurations left under decisions as its reduced diagram, and
// names the variable order it uses: what the model page draws and charts.
type FeatureGrapher interface {
	// FeatureGraph returns the reduced diagram of the configurations that
	// keep decisions, in ReducedView: one layer per level that holds a
	// node, labelled by its feature's name, a node labelled by the
	// feature it tests, "hi" edges for selecting it and "lo" edges for
	// deselecting it. Above maxNodes nodes (the terminal included) it is
	// truncated to its size. Profile has one entry per level of the
	// diagram, top first (see DiagramOrder): the decision nodes of the
	// restricted diagram that test its feature; Whole is the same of the
	// whole diagram, always set. The decisions must leave a configuration
	// (ErrNoSolution otherwise).
	FeatureGraph(ctx context.Context, decisions []Decision, maxNodes int) (*Graph, error)
	// DiagramOrder returns the features of the diagram's levels from the
	// top down (a diagram may test fewer features than the model has:
	// those it does not test are fixed, or equal to one it does, or
	// free), and the name of the heuristic that order started from.
	DiagramOrder() (features []int, heuristic string)
}

// Sourcer is a Space that may have been read from its saved file instead
// of compiled (see Filer): Source names the file, "" when the space was
// compiled. Its compile time is then the time of the load.
type Sourcer interface {
	Source() string
}

// GraphView names one way of showing the remaining solutions as a layered
// graph.
type GraphView uint8

const (
	// RankView is one layer per rank of the board, a node for each
	// distinct set of ways to finish the board from the start of a rank,
	// an edge for each file the queen of that rank can take. It reads the
	// ranks off a row-major space: the solutions are the same in every
	// order, so callers ask a row-major space for it.
	RankView GraphView = iota
	// ReducedView is the reduced decision diagram itself: one node per
	// decision node, one layer per square of the variable order, edges
	// "hi" (a queen on the node's square) and "lo" (none).
	ReducedView
)

var graphViewNames = [...]string{RankView: "ranks", ReducedView: "bdd"}

// String is the view's name as ParseGraphView accepts it.
func (v GraphView) String() string {
	return nameIn(graphViewNames[:], int(v), fmt.Sprintf("GraphView(%d)", uint8(v)))
}

// ErrGraphView reports a view name ParseGraphView does not know.
var ErrGraphView = errors.New("unknown diagram view (want ranks or bdd)")

// ParseGraphView parses a view name: ranks or bdd.
func ParseGraphView(s string) (GraphView, error) {
	if v := slices.Index(graphViewNames[:], s); v >= 0 {
		return GraphView(v), nil
	}
	return 0, fmt.Errorf("view %q: %w", s, ErrGraphView)
}

// Graph is a set of solutions laid out in layers: each solution exactly
// one path from Root to One. When the graph has more nodes than asked for,
// Truncated is set and Layers, Nodes and Edges are empty; Profile still
// says how large it is.
type Graph struct {
	View GraphView
	// Layers labels each layer, top first: "rank 1", ... in the rank view,
	// the squares of the variable order in the reduced view; the last
	// layer holds the 1 terminal and is labelled "1".
	Layers    []string
	Nodes     []GraphNode
	Edges     []GraphEdge
	Root, One int // indices in Nodes; -1 when truncated
	Truncated bool
	// DiagramNodes is the size of the reduced diagram restricted to the
	// placement, terminals excluded: Diagrammer's count.
	DiagramNodes int
	// Profile is, for every rank of the board, the decision nodes of that
	// restricted diagram labelled by a square of that rank (for every
	// level of a FeatureGrapher's diagram, by its feature).
	Profile []int
	// Whole, set when Truncated (always by a FeatureGrapher), is the same
	// profile of the whole diagram, the placement aside (RankProfiler's).
	Whole []int
	// Solutions is the number of remaining solutions, the paths from Root
	// to One (nil when truncated).
	Solutions *big.Int
}

// GraphNode is one node of a Graph.
type GraphNode struct {
	Layer int
	// Label is the node's square in the reduced view, its Paths in the
	// rank view, and "1" for the terminal.
	Label string
	// Cells are the squares the node stands for on the board: in the rank
	// view the squares its edges place a queen on, in the reduced view
	// the square it tests.
	Cells []Cell
	// Paths is the number of paths from the node down to One: the
	// remaining solutions through it, counted below it.
	Paths *big.Int
}

// GraphEdge is one edge of a Graph, between indices of its Nodes.
type GraphEdge struct {
	From, To int
	// Label is the file letter in the rank view, "hi" or "lo" in the
	// reduced view.
	Label string
	// Cell is the square the edge places a queen on, if any (HasCell).
	Cell    Cell
	HasCell bool
}
