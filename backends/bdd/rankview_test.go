package bdd

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// TestGraphEmptyBoard checks both views of the whole space against the
// OEIS counts and the known diagram sizes.
func TestGraphEmptyBoard(t *testing.T) {
	solutions := []int64{1, 0, 0, 2, 10, 4, 40, 92}
	for n := 4; n <= 8; n++ {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		ranks, err := sp.Graph(context.Background(), nil, configurator.RankView, 1<<20)
		if err != nil {
			t.Fatalf("%d×%d rank view: %v", n, n, err)
		}
		if ranks.Solutions.Int64() != solutions[n-1] || countPaths(ranks) != solutions[n-1] {
			t.Errorf("%d×%d rank view: %v solutions, %d paths; want %d", n, n, ranks.Solutions, countPaths(ranks), solutions[n-1])
		}
		if len(ranks.Layers) != n+1 || ranks.Layers[0] != "rank 1" || ranks.Nodes[ranks.One].Layer != n {
			t.Errorf("%d×%d rank view: layers %q, 1 on layer %d", n, n, ranks.Layers, ranks.Nodes[ranks.One].Layer)
		}
		if !slices.Equal(ranks.Profile, sp.RankProfile()) || ranks.DiagramNodes != int(knownNodes[n-1]) {
			t.Errorf("%d×%d: profile %v (%d nodes), want %v (%v)", n, n, ranks.Profile, ranks.DiagramNodes, sp.RankProfile(), knownNodes[n-1])
		}
		reduced, err := sp.Graph(context.Background(), nil, configurator.ReducedView, 1<<20)
		if err != nil {
			t.Fatalf("%d×%d diagram view: %v", n, n, err)
		}
		if got := len(reduced.Nodes) - 1; got != int(knownNodes[n-1]) {
			t.Errorf("%d×%d diagram view: %d decision nodes, want %v", n, n, got, knownNodes[n-1])
		}
		if countPaths(reduced) != solutions[n-1] {
			t.Errorf("%d×%d diagram view: %d paths, want %d", n, n, countPaths(reduced), solutions[n-1])
		}
	}
}

// TestGraphAgainstOracle checks both views under every placement that
// legal clicks reach on boards up to 6×6 (every subset of a solution:
// each of its queens is free or forced while the others stand), and
// under seeded random walks on 7×7 to 9×9: the rank view has one path
// per remaining solution, its edges of rank r are exactly the files the
// remaining solutions use in rank r, and the diagram view has Diagram's
// node count and one path per remaining solution. With -short, to 7×7.
func TestGraphAgainstOracle(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(12, 1))
	top := 9
	if testing.Short() {
		top = 7
	}
	for n := 1; n <= top; n++ {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		board := configuratortest.Board(t, n)
		if board.Count() == 0 {
			if _, err := sp.Graph(ctx, nil, configurator.RankView, 1<<20); !errors.Is(err, configurator.ErrNoSolution) {
				t.Errorf("%d×%d has no solution; the rank view: %v", n, n, err)
			}
			continue
		}
		for _, queens := range placements(board, rng) {
			ranks, err := sp.Graph(ctx, queens, configurator.RankView, 1<<20)
			if err != nil {
				t.Fatalf("%d×%d %s: rank view: %v", n, n, configurator.FormatCells(queens), err)
			}
			checkRanks(t, board, queens, ranks)
			reduced, err := sp.Graph(ctx, queens, configurator.ReducedView, 1<<20)
			if err != nil {
				t.Fatalf("%d×%d %s: diagram view: %v", n, n, configurator.FormatCells(queens), err)
			}
			_, nodes, err := sp.Diagram(ctx, queens, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			want := int64(board.CountWith(oracleCells(queens)))
			if got := len(reduced.Nodes) - 1; got != nodes || reduced.DiagramNodes != nodes || countPaths(reduced) != want {
				t.Errorf("%d×%d %s: diagram view has %d nodes (DiagramNodes %d) and %d paths; Diagram counts %d nodes, the oracle %d solutions",
					n, n, configurator.FormatCells(queens), got, reduced.DiagramNodes, countPaths(reduced), nodes, want)
			}
		}
	}
}

// placements lists the placements to check on board: up to 6×6 every
// subset of every solution, beyond that 40 seeded walks that place the
// queens of a random solution one by one in a random order.
func placements(board *oracle.Board, rng *rand.Rand) [][]configurator.Cell {
	n := board.N()
	seen := map[string]bool{}
	var out [][]configurator.Cell
	add := func(queens []configurator.Cell) {
		key := configurator.FormatCells(queens)
		if !seen[key] {
			seen[key] = true
			out = append(out, slices.Clone(queens))
		}
	}
	add(nil)
	if board.Count() == 0 {
		return out
	}
	if n <= 6 {
		for i := range board.Count() {
			sol := board.Solution(i)
			for mask := 1; mask < 1<<n; mask++ {
				var queens []configurator.Cell
				for r, c := range sol {
					if mask&(1<<r) != 0 {
						queens = append(queens, configurator.Cell{Row: c.Row, Col: c.Col})
					}
				}
				add(queens)
			}
		}
		return out
	}
	for range 40 {
		sol := board.Solution(rng.IntN(board.Count()))
		var queens []configurator.Cell
		for _, r := range rng.Perm(n) {
			queens = append(queens, configurator.Cell{Row: sol[r].Row, Col: sol[r].Col})
			add(queens)
		}
	}
	return out
}

func oracleCells(cells []configurator.Cell) []oracle.Cell {
	out := make([]oracle.Cell, len(cells))
	for i, c := range cells {
		out[i] = oracle.Cell{Row: c.Row, Col: c.Col}
	}
	return out
}

// checkRanks checks a rank view against the oracle's remaining solutions.
func checkRanks(t *testing.T, board *oracle.Board, queens []configurator.Cell, g *configurator.Graph) {
	t.Helper()
	n := board.N()
	name := configurator.FormatCells(queens)
	remaining := board.Extending(oracleCells(queens))
	if got := countPaths(g); got != int64(len(remaining)) || g.Solutions.Int64() != got {
		t.Errorf("%d×%d %s: rank view has %d paths (Solutions %v), the oracle %d solutions", n, n, name, got, g.Solutions, len(remaining))
	}
	// used[r] is the set of files the remaining solutions use in rank r.
	used := make([]map[string]bool, n)
	for r := range used {
		used[r] = map[string]bool{}
	}
	for _, i := range remaining {
		for _, c := range board.Solution(i) {
			used[c.Row][configurator.FileName(c.Col)] = true
		}
	}
	edges := make([]map[string]bool, n)
	for r := range edges {
		edges[r] = map[string]bool{}
	}
	for _, e := range g.Edges {
		r := g.Nodes[e.From].Layer
		if g.Nodes[e.To].Layer != r+1 || !e.HasCell || e.Cell.Row != r || configurator.FileName(e.Cell.Col) != e.Label {
			t.Fatalf("%d×%d %s: edge %+v from layer %d to %d", n, n, name, e, r, g.Nodes[e.To].Layer)
		}
		edges[r][e.Label] = true
	}
	for r := range n {
		if !mapsEqual(edges[r], used[r]) {
			t.Errorf("%d×%d %s: rank %d's edges use files %v; the remaining solutions use %v", n, n, name, r+1, edges[r], used[r])
		}
	}
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// countPaths counts the paths from g's root to its 1 terminal, from the
// edges alone.
func countPaths(g *configurator.Graph) int64 {
	if g.Root < 0 || g.One < 0 {
		return 0
	}
	out := make([][]int, len(g.Nodes))
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e.To)
	}
	memo := map[int]int64{}
	var paths func(int) int64
	paths = func(i int) int64 {
		if i == g.One {
			return 1
		}
		if p, ok := memo[i]; ok {
			return p
		}
		var p int64
		for _, j := range out[i] {
			p += paths(j)
		}
		memo[i] = p
		return p
	}
	return paths(g.Root)
}

// TestGraphTruncatedAndOrders checks the cap, the profile left when it
// is reached, and the orders.
func TestGraphTruncatedAndOrders(t *testing.T) {
	ctx := context.Background()
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	for _, view := range []configurator.GraphView{configurator.RankView, configurator.ReducedView} {
		g, err := sp.Graph(ctx, nil, view, 100)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Truncated || len(g.Nodes) != 0 || len(g.Edges) != 0 || g.Root != -1 || g.Solutions != nil {
			t.Errorf("%v view of 8×8 capped at 100 nodes: truncated %v, %d nodes, %d edges, root %d", view, g.Truncated, len(g.Nodes), len(g.Edges), g.Root)
		}
		if !slices.Equal(g.Profile, sp.RankProfile()) || !slices.Equal(g.Whole, g.Profile) || g.DiagramNodes != 2451 {
			t.Errorf("%v view of 8×8 truncated: profile %v, whole %v (%d nodes), want %v (2451)", view, g.Profile, g.Whole, g.DiagramNodes, sp.RankProfile())
		}
	}
	// With a queen, the profile is the restriction's, Whole the diagram's.
	g, err := sp.Graph(ctx, configuratortest.Cells(t, "d1"), configurator.ReducedView, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, nodes, _ := sp.Diagram(ctx, configuratortest.Cells(t, "d1"), 0); !g.Truncated || g.DiagramNodes != nodes || sum(g.Profile) != nodes || !slices.Equal(g.Whole, sp.RankProfile()) {
		t.Errorf("8×8 d1 diagram view capped at 100: truncated %v, %d nodes (Diagram: %d), profile %v, whole %v", g.Truncated, g.DiagramNodes, nodes, g.Profile, g.Whole)
	}
	// The whole 8×8 rank view fits a few hundred nodes.
	g, err = sp.Graph(ctx, nil, configurator.RankView, 1000)
	if err != nil || g.Truncated || len(g.Nodes) > 1000 || g.Whole != nil {
		t.Fatalf("8×8 rank view within 1000 nodes: %v, truncated %v", err, g != nil && g.Truncated)
	}
	t.Logf("8×8 rank view: %d nodes, %d edges", len(g.Nodes), len(g.Edges))

	col := compileSpace(t, 6, configurator.ColMajor, Direct)
	if _, err := col.Graph(ctx, nil, configurator.RankView, 1000); !errors.Is(err, ErrRankOrder) {
		t.Errorf("rank view in col order: %v, want ErrRankOrder", err)
	}
	reduced, err := col.Graph(ctx, nil, configurator.ReducedView, 1000)
	if err != nil || len(reduced.Nodes)-1 != col.Nodes() || countPaths(reduced) != 4 {
		t.Errorf("6×6 diagram view in col order: %v, %d nodes (want %d), %d paths (want 4)", err, len(reduced.Nodes)-1, col.Nodes(), countPaths(reduced))
	}
	if _, err := sp.Graph(ctx, configuratortest.Cells(t, "a1,b2"), configurator.RankView, 1000); !errors.Is(err, configurator.ErrNoSolution) {
		t.Errorf("a1,b2: %v, want ErrNoSolution", err)
	}
	if _, err := sp.Graph(ctx, nil, configurator.GraphView(9), 1000); !errors.Is(err, configurator.ErrGraphView) {
		t.Errorf("GraphView(9): %v, want ErrGraphView", err)
	}
}

// BenchmarkGraph times the views the page's viewer asks for most: the
// whole rank view of 10×10 (2,426 nodes), the whole 8×8 diagram (2,452),
// and the profile alone of 12×12 (435,170 nodes, past the cap).
func BenchmarkGraph(b *testing.B) {
	for _, bm := range []struct {
		name string
		n    int
		view configurator.GraphView
	}{
		{"ranks-10", 10, configurator.RankView},
		{"bdd-8", 8, configurator.ReducedView},
		{"profile-12", 12, configurator.ReducedView},
	} {
		sp := compileSpace(b, bm.n, configurator.RowMajor, Direct)
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := sp.Graph(context.Background(), nil, bm.view, 5000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
