package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// TestAPIDiagram checks /api/v1/diagram against the oracle under every
// placement that legal clicks reach up to 6×6 (every subset of a
// solution) and seeded walks on 7×7 to 9×9: the rank view has one path
// from root to one per remaining solution, the edges of each rank are
// the files the remaining solutions use there, and the BDD view has the
// engine's node count. With -short, to 7×7.
func TestAPIDiagram(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	rng := rand.New(rand.NewPCG(7, 12))
	top := 9
	if testing.Short() {
		top = 7
	}
	for n := 1; n <= top; n++ {
		if n == 2 || n == 3 {
			continue // no solution
		}
		board := configuratortest.Board(t, n)
		engine := configuratortest.Space(t, bdd.New(bdd.Options{}), configuratortest.Model(t, n, configurator.RowMajor)).(configurator.Diagrammer)
		for _, queens := range clickedPlacements(board, rng) {
			body := fmt.Sprintf(`{"n":%d,"queens":%s,"backend":"bdd","view":"ranks"}`, n, jsonPairs(queens))
			var ranks diagramResponse
			if !postOK(t, ts, "/api/v1/diagram", body, &ranks) {
				return
			}
			checkRankResponse(t, board, queens, &ranks)

			body = fmt.Sprintf(`{"n":%d,"queens":%s,"backend":"bdd","view":"bdd"}`, n, jsonPairs(queens))
			var reduced diagramResponse
			if !postOK(t, ts, "/api/v1/diagram", body, &reduced) {
				return
			}
			_, nodes, err := engine.Diagram(context.Background(), configuratorCells(queens), 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if nodes+1 > maxGraphNodes {
				if !reduced.Truncated || reduced.DiagramNodes != nodes || len(reduced.Nodes) != 0 {
					t.Errorf("%s: %d nodes past the cap: truncated %v, diagram_nodes %d", body, nodes, reduced.Truncated, reduced.DiagramNodes)
				}
				continue
			}
			want := board.CountWith(queens)
			if got := len(reduced.Nodes) - 1; reduced.View != "bdd" || got != nodes || reduced.DiagramNodes != nodes || responsePaths(&reduced) != want {
				t.Errorf("%s: BDD view %q has %d nodes (diagram_nodes %d) and %d paths; the engine draws %d nodes, the oracle counts %d solutions",
					body, reduced.View, got, reduced.DiagramNodes, responsePaths(&reduced), nodes, want)
			}
			for _, e := range reduced.Edges {
				if e.Label != "hi" && e.Label != "lo" || (e.Label == "hi") != (e.Cell != nil) {
					t.Fatalf("%s: BDD view edge %+v", body, e)
				}
			}
		}
	}
}

// clickedPlacements lists the placements to check on board: up to 6×6
// every subset of every solution (each queen of a solution is free or
// forced while the others stand, so clicks reach it), beyond that ten
// seeded walks that place a random solution's queens in a random order.
func clickedPlacements(board *oracle.Board, rng *rand.Rand) [][]oracle.Cell {
	n := board.N()
	seen := map[string]bool{}
	out := [][]oracle.Cell{nil}
	add := func(queens []oracle.Cell) {
		key := fmt.Sprint(queens)
		if !seen[key] {
			seen[key] = true
			out = append(out, slices.Clone(queens))
		}
	}
	if n <= 6 {
		for i := range board.Count() {
			sol := board.Solution(i)
			for mask := 1; mask < 1<<n; mask++ {
				var queens []oracle.Cell
				for r, c := range sol {
					if mask&(1<<r) != 0 {
						queens = append(queens, c)
					}
				}
				add(queens)
			}
		}
		return out
	}
	for range 10 {
		sol := board.Solution(rng.IntN(board.Count()))
		var queens []oracle.Cell
		for _, r := range rng.Perm(n) {
			queens = append(queens, sol[r])
			add(queens)
		}
	}
	return out
}

func jsonPairs(cells []oracle.Cell) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprintf("[%d,%d]", c.Row, c.Col)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func configuratorCells(cells []oracle.Cell) []configurator.Cell {
	out := make([]configurator.Cell, len(cells))
	for i, c := range cells {
		out[i] = configurator.Cell{Row: c.Row, Col: c.Col}
	}
	return out
}

// checkRankResponse checks a rank view against the oracle.
func checkRankResponse(t *testing.T, board *oracle.Board, queens []oracle.Cell, g *diagramResponse) {
	t.Helper()
	n := board.N()
	remaining := board.Extending(queens)
	if g.View != "ranks" || g.Truncated || g.Order != "row" || len(g.Layers) != n+1 {
		t.Fatalf("%v: view %q, truncated %v, order %q, layers %q", queens, g.View, g.Truncated, g.Order, g.Layers)
	}
	if got := responsePaths(g); got != len(remaining) || g.Solutions != fmt.Sprint(len(remaining)) {
		t.Errorf("%v: the rank view has %d paths (solutions %q); the oracle counts %d", queens, got, g.Solutions, len(remaining))
	}
	used := make([][]bool, n) // used[r][f]: a remaining solution has its rank-r queen on file f
	for r := range used {
		used[r] = make([]bool, n)
	}
	for _, i := range remaining {
		for _, c := range board.Solution(i) {
			used[c.Row][c.Col] = true
		}
	}
	edges := make([][]bool, n)
	for r := range edges {
		edges[r] = make([]bool, n)
	}
	for _, e := range g.Edges {
		r := g.Nodes[e.From].Layer
		if e.Cell == nil || e.Cell[0] != r || g.Nodes[e.To].Layer != r+1 || configurator.FileName(e.Cell[1]) != e.Label {
			t.Fatalf("%v: edge %+v from layer %d to %d", queens, e, r, g.Nodes[e.To].Layer)
		}
		edges[r][e.Cell[1]] = true
	}
	for r := range n {
		if !slices.Equal(edges[r], used[r]) {
			t.Errorf("%v: rank %d's edges take files %v; the remaining solutions %v", queens, r+1, edges[r], used[r])
		}
	}
}

// responsePaths counts the paths from root to one of an answer, from its
// edges alone.
func responsePaths(g *diagramResponse) int {
	if g.Root == nil || g.One == nil {
		return 0
	}
	out := make([][]int, len(g.Nodes))
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e.To)
	}
	memo := make([]int, len(g.Nodes))
	for i := range memo {
		memo[i] = -1
	}
	var paths func(int) int
	paths = func(i int) int {
		if i == *g.One {
			return 1
		}
		if memo[i] < 0 {
			memo[i] = 0
			for _, j := range out[i] {
				memo[i] += paths(j)
			}
		}
		return memo[i]
	}
	return paths(*g.Root)
}

// TestAPIDiagramCases is the specification of the answers beyond the
// oracle's: the known sizes, the orders, the cap and the refusals.
func TestAPIDiagramCases(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	t.Run("empty 6×6 BDD view", func(t *testing.T) {
		var g diagramResponse
		if postOK(t, ts, "/api/v1/diagram", `{"n":6,"view":"bdd"}`, &g) && (len(g.Nodes) != 130 || g.DiagramNodes != 129 || g.Solutions != "4" || g.Order != "row" || g.WholeProfile != nil) {
			t.Errorf("6×6 BDD view: %d nodes with the terminal (want 130), diagram_nodes %d, solutions %q, order %q", len(g.Nodes), g.DiagramNodes, g.Solutions, g.Order)
		}
	})
	t.Run("the rank view is the default and reads a row-order diagram", func(t *testing.T) {
		var g diagramResponse
		if postOK(t, ts, "/api/v1/diagram", `{"n":8,"order":"col"}`, &g) && (g.View != "ranks" || g.Order != "row" || g.Solutions != "92" || len(g.Nodes) != 288) {
			t.Errorf("8×8 in col order: view %q, order %q, solutions %q, %d nodes (want ranks, row, 92, 288)", g.View, g.Order, g.Solutions, len(g.Nodes))
		}
	})
	t.Run("the BDD view keeps the order", func(t *testing.T) {
		var g diagramResponse
		model := configuratortest.Model(t, 6, configurator.ColMajor)
		want := configuratortest.Space(t, bdd.New(bdd.Options{}), model).(*bdd.Space).Nodes()
		if postOK(t, ts, "/api/v1/diagram", `{"n":6,"order":"col","view":"bdd"}`, &g) && (g.Order != "col" || g.DiagramNodes != want || responsePaths(&g) != 4) {
			t.Errorf("6×6 BDD view in col order: order %q, %d nodes (want %d), %d paths", g.Order, g.DiagramNodes, want, responsePaths(&g))
		}
	})
	t.Run("past the cap the profile only", func(t *testing.T) {
		var g diagramResponse
		if !postOK(t, ts, "/api/v1/diagram", `{"n":9,"view":"bdd"}`, &g) {
			return
		}
		sum := 0
		for _, p := range g.Profile {
			sum += p.Nodes
		}
		if !slices.Equal(g.WholeProfile, g.Profile) {
			t.Errorf("9×9 BDD view without queens: whole profile %v, profile %v", g.WholeProfile, g.Profile)
		}
		if !g.Truncated || len(g.Nodes) != 0 || len(g.Edges) != 0 || g.Root != nil || g.Solutions != "" ||
			len(g.Profile) != 9 || g.Profile[0].Label != "rank 1" || sum != 9557 || g.DiagramNodes != 9557 || g.MaxNodes != maxGraphNodes {
			t.Errorf("9×9 BDD view: truncated %v, %d nodes, %d edges, root %v, solutions %q, profile %v (sum %d, want 9557), max %d",
				g.Truncated, len(g.Nodes), len(g.Edges), g.Root, g.Solutions, g.Profile, sum, g.MaxNodes)
		}
	})
	for _, tt := range []struct {
		name, body string
		status     int
		want       string
	}{
		{"unknown view", `{"n":8,"view":"dot"}`, 400, `is not a view of the diagram: use \"ranks\" or \"bdd\".`},
		{"the SAT backend", `{"n":8,"backend":"sat"}`, 400, `The sat backend keeps no diagram to show: use \"backend\": \"bdd\".`},
		{"queens that attack", `{"n":8,"queens":[[0,0],[1,1]]}`, 422, `a1 and b2 attack each other`},
		{"no solution", `{"n":6,"queens":[[0,0]]}`, 422, `No solution holds queens on a1 together`},
		{"unknown field", `{"n":8,"views":"bdd"}`, 400, `Unknown field \"views\"; the fields are n, queens, backend, order (and cell for explain, view for diagram).`},
		{"n beyond the BDD", `{"n":11}`, 413, `beyond the limit of the BDD backend`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, out := post(t, ts, "/api/v1/diagram", tt.body)
			if res.StatusCode != tt.status || !strings.Contains(out, tt.want) {
				t.Errorf("%s: %d %s, want %d %q", tt.body, res.StatusCode, out, tt.status, tt.want)
			}
		})
	}
	res, _ := get(t, ts, "/api/v1/diagram")
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/v1/diagram: %d, want 405", res.StatusCode)
	}
}
