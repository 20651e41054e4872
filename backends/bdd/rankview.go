package bdd

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

// ErrRankOrder reports a rank view asked of a space compiled in another
// order than row-major: the rank view reads the board's ranks as
// consecutive levels of the diagram, which only that order has. The
// solutions do not depend on the order, so a caller computes the rank view
// from the row-major space of the same board.
var ErrRankOrder = errors.New("the rank view needs the diagram in row order")

// A Space lays out its solutions, profiles its ranks and names the file
// it was loaded from.
var (
	_ configurator.Grapher      = (*Space)(nil)
	_ configurator.RankProfiler = (*Space)(nil)
	_ configurator.Sourcer      = (*Space)(nil)
)

// Graph returns the remaining solutions under queens as the layered graph
// view shows them (configurator.Grapher), unless it has more than maxNodes
// nodes (terminal included), in which case it returns the graph truncated:
// its size only. The rank view needs a space compiled in row order
// (ErrRankOrder). The placement must leave a solution
// (configurator.ErrNoSolution otherwise). The restriction is copied into a
// Manager of its own, as Diagram copies it, so the shared diagram is only
// read; the call holds the work space of a drawing of that restriction
// while it runs (see beginDrawing).
func (s *Space) Graph(ctx context.Context, queens []configurator.Cell, view configurator.GraphView, maxNodes int) (*configurator.Graph, error) {
	if view == configurator.RankView && s.model.Order() != configurator.RowMajor {
		return nil, fmt.Errorf("rank view in %v order: %w", s.model.Order(), ErrRankOrder)
	}
	if view != configurator.RankView && view != configurator.ReducedView {
		return nil, fmt.Errorf("graph: %v: %w", view, configurator.ErrGraphView)
	}
	a, budget, release, err := s.beginDrawing(ctx, queens)
	if err != nil {
		return nil, err
	}
	defer release()
	m, root := s.m, s.root
	if len(queens) > 0 {
		m, root, err = s.m.Extract(ctx, s.root, a, budget)
		if errors.Is(err, robdd.ErrNodeLimit) {
			return nil, tooLargeToCopy(queens, budget, err)
		}
		if err != nil {
			return nil, fmt.Errorf("graph of %s: %w", configurator.FormatCells(queens), err)
		}
	}
	if root == robdd.False {
		return nil, noSolution(queens)
	}
	g := &configurator.Graph{View: view, Root: -1, One: -1, Profile: s.rankProfile(m, root)}
	for _, k := range g.Profile {
		g.DiagramNodes += k
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if view == configurator.RankView {
		s.rankGraph(g, m, root, a, queens, maxNodes)
	} else {
		reducedGraph(g, m, root, maxNodes, s.nameLevel)
	}
	switch {
	case !g.Truncated:
		fillPaths(g, nil)
	case len(queens) == 0:
		g.Whole = g.Profile
	default:
		g.Whole = s.RankProfile()
	}
	return g, nil
}

// fixLines completes the assignment of queens for a drawing (Diagram,
// Graph): each queen's square true, the other squares of every ExactlyOne
// line through it (its rank and its file) false.
func (s *Space) fixLines(a robdd.Assignment, queens []configurator.Cell) {
	for _, c := range s.model.Constraints() {
		if c.Kind != configurator.ExactlyOne {
			continue
		}
		for _, q := range queens {
			if slices.Contains(c.Cells, q) {
				for _, other := range c.Cells {
					if l := s.level(other); a[l] != 1 {
						a[l] = 0
					}
				}
			}
		}
	}
}

// rankGraph fills in the rank view of the diagram root of m, restricted by
// a to the placement queens, breadth first, rank by rank, and stops as
// truncated past maxNodes. A node of rank r is a node of the diagram met
// at the start of rank r (one whose square is of rank r or later), so
// two nodes of one rank are distinct sets of ways to finish the board; its
// edge for file f is where the diagram leads with the queen of rank r on
// f and no other queen in rank r. A rank holding one of the queens has
// no node of the restricted diagram: its one edge, the queen's file,
// leads to the same node one rank down.
func (s *Space) rankGraph(g *configurator.Graph, m *robdd.Manager, root robdd.Node, a robdd.Assignment, queens []configurator.Cell, maxNodes int) {
	n := s.model.N()
	placed := make([]int, n) // the file of rank r's queen + 1, 0 for none
	for _, q := range queens {
		placed[q.Row] = q.Col + 1
	}
	for r := range n {
		g.Layers = append(g.Layers, fmt.Sprintf("rank %d", r+1))
	}
	g.Layers = append(g.Layers, "1")
	type key struct {
		rank int
		node robdd.Node
	}
	index := map[key]int{{0, root}: 0}
	g.Nodes = append(g.Nodes, configurator.GraphNode{Layer: 0})
	at := []robdd.Node{root} // the diagram node of each graph node
	start := 0
	for r := range n {
		end := len(g.Nodes)
		for i := start; i < end; i++ {
			for f := range n {
				c := configurator.Cell{Row: r, Col: f}
				if a[s.level(c)] == 0 || placed[r] != 0 && placed[r] != f+1 {
					continue
				}
				next := s.placeRank(m, at[i], r, f)
				if next == robdd.False {
					continue
				}
				k := key{r + 1, next}
				j, ok := index[k]
				if !ok {
					if len(g.Nodes) >= maxNodes {
						truncateGraph(g)
						return
					}
					j = len(g.Nodes)
					index[k] = j
					g.Nodes = append(g.Nodes, configurator.GraphNode{Layer: r + 1})
					at = append(at, next)
				}
				g.Edges = append(g.Edges, configurator.GraphEdge{From: i, To: j, Label: configurator.FileName(f), Cell: c, HasCell: true})
				g.Nodes[i].Cells = append(g.Nodes[i].Cells, c)
			}
		}
		start = end
	}
	g.Root = 0
	// In row order every path to 1 passes a queen in every rank, so 1 is
	// met at the start of rank n only.
	if j, ok := index[key{n, robdd.True}]; ok {
		g.One = j
		g.Nodes[j].Label = "1"
	}
}

// placeRank follows the diagram from u through the squares of rank r with
// the queen of that rank on file f: a row-order diagram tests them one
// after the other. It returns the node where rank r+1 starts.
func (s *Space) placeRank(m *robdd.Manager, u robdd.Node, r, f int) robdd.Node {
	for !m.IsTerminal(u) {
		c := s.model.Cell(s.model.VarAt(m.Level(u)))
		if c.Row != r {
			break
		}
		if c.Col == f {
			u = m.High(u)
		} else {
			u = m.Low(u)
		}
	}
	return u
}

// levelName names a level of a diagram in a graph: the label of its layer
// and of its nodes, and the square of the board it tests, if any (isCell).
type levelName func(level int) (label string, c configurator.Cell, isCell bool)

// nameLevel names a level by the square of the board it tests.
func (s *Space) nameLevel(level int) (string, configurator.Cell, bool) {
	c := s.model.Cell(s.model.VarAt(level))
	return c.String(), c, true
}

// reducedGraph fills in the reduced diagram root of m as a graph, one
// layer per level that holds a node, each named by name, unless it has
// more than maxNodes nodes, the 1 terminal included. It returns the level
// of each layer but the terminal's.
func reducedGraph(g *configurator.Graph, m *robdd.Manager, root robdd.Node, maxNodes int, name levelName) (levels []int) {
	if g.DiagramNodes+1 > maxNodes {
		truncateGraph(g)
		return nil
	}
	index := map[robdd.Node]int{}
	var order []robdd.Node
	stack := []robdd.Node{root}
	index[root] = 0
	order = append(order, root)
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if m.IsTerminal(u) {
			continue
		}
		for _, c := range [2]robdd.Node{m.Low(u), m.High(u)} {
			if _, ok := index[c]; !ok && c != robdd.False {
				index[c] = len(order)
				order = append(order, c)
				stack = append(stack, c)
			}
		}
	}
	// One layer per level that holds a node, and the terminal last.
	for _, u := range order {
		if !m.IsTerminal(u) {
			levels = append(levels, m.Level(u))
		}
	}
	slices.Sort(levels)
	levels = slices.Compact(levels)
	layer := make(map[int]int, len(levels))
	for i, l := range levels {
		layer[l] = i
		label, _, _ := name(l)
		g.Layers = append(g.Layers, label)
	}
	g.Layers = append(g.Layers, "1")
	g.Nodes = make([]configurator.GraphNode, len(order))
	for i, u := range order {
		if m.IsTerminal(u) {
			g.Nodes[i] = configurator.GraphNode{Layer: len(levels), Label: "1"}
			g.One = i
			continue
		}
		label, c, isCell := name(m.Level(u))
		g.Nodes[i] = configurator.GraphNode{Layer: layer[m.Level(u)], Label: label}
		if isCell {
			g.Nodes[i].Cells = []configurator.Cell{c}
		}
		if lo := m.Low(u); lo != robdd.False {
			g.Edges = append(g.Edges, configurator.GraphEdge{From: i, To: index[lo], Label: "lo"})
		}
		if hi := m.High(u); hi != robdd.False {
			g.Edges = append(g.Edges, configurator.GraphEdge{From: i, To: index[hi], Label: "hi", Cell: c, HasCell: isCell})
		}
	}
	g.Root = 0
	return levels
}

// truncateGraph leaves the graph's size only.
func truncateGraph(g *configurator.Graph) {
	g.Truncated = true
	g.Layers, g.Nodes, g.Edges = nil, nil, nil
	g.Root, g.One = -1, -1
}

// fillPaths sets every node's Paths, from the bottom up, and Solutions.
// Every edge leads to a later layer, so the nodes by descending layer are
// in order. skipped, if not nil, is the number of free variables an edge
// between the nodes from and to passes over (from -1: those above the
// root), each of which doubles the solutions down that edge; nil counts
// the paths themselves.
func fillPaths(g *configurator.Graph, skipped func(from, to int) uint) {
	if skipped == nil {
		skipped = func(int, int) uint { return 0 }
	}
	byLayer := make([]int, len(g.Nodes))
	for i := range byLayer {
		byLayer[i] = i
	}
	slices.SortStableFunc(byLayer, func(i, j int) int { return g.Nodes[j].Layer - g.Nodes[i].Layer })
	out := make([][]int, len(g.Nodes))
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e.To)
	}
	var below big.Int
	for _, i := range byLayer {
		p := new(big.Int)
		if i == g.One {
			p.SetInt64(1)
		}
		for _, j := range out[i] {
			p.Add(p, below.Lsh(g.Nodes[j].Paths, skipped(i, j)))
		}
		g.Nodes[i].Paths = p
	}
	g.Solutions = new(big.Int).Lsh(g.Nodes[g.Root].Paths, skipped(-1, g.Root))
	for i := range g.Nodes {
		if g.Nodes[i].Label == "" {
			g.Nodes[i].Label = g.Nodes[i].Paths.String()
		}
	}
}
