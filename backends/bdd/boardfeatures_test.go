package bdd

import (
	"context"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/oracle"
)

// TestBoardFeatureGraph: the board's diagram as the model page draws it:
// the whole diagram without decisions (its known node count, its paths the
// solutions), and under decisions, squares ruled out included, as many
// paths as the oracle has solutions that keep them.
func TestBoardFeatureGraph(t *testing.T) {
	ctx := context.Background()
	for n := 4; n <= 8; n++ {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		g, err := sp.FeatureGraph(ctx, nil, 1<<20)
		if err != nil {
			t.Fatalf("%d×%d: %v", n, n, err)
		}
		if got := len(g.Nodes) - 1; got != int(knownNodes[n-1]) || g.DiagramNodes != got || countPaths(g) != solutionsOf(t, n, nil, nil) {
			t.Errorf("%d×%d: %d decision nodes (profile %d), %d paths; want %v nodes", n, n, got, g.DiagramNodes, countPaths(g), knownNodes[n-1])
		}
		order, heuristic := sp.DiagramOrder()
		if len(order) != n*n || order[0] != 0 || heuristic != "row" {
			t.Errorf("%d×%d: order %v (%s)", n, n, order[:3], heuristic)
		}
	}
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	for _, tc := range []struct{ queens, without []configurator.Cell }{
		{[]configurator.Cell{{Row: 0, Col: 0}}, nil},
		{[]configurator.Cell{{Row: 0, Col: 0}}, []configurator.Cell{{Row: 1, Col: 4}}},
		{nil, []configurator.Cell{{Row: 0, Col: 0}, {Row: 0, Col: 1}, {Row: 3, Col: 3}}},
	} {
		var ds []configurator.Decision
		for _, q := range tc.queens {
			ds = append(ds, configurator.Decision{Feature: q.Row*8 + q.Col, Select: true})
		}
		for _, c := range tc.without {
			ds = append(ds, configurator.Decision{Feature: c.Row*8 + c.Col})
		}
		g, err := sp.FeatureGraph(ctx, ds, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if want := solutionsOf(t, 8, tc.queens, tc.without); countPaths(g) != want {
			t.Errorf("%v without %v: %d paths, want %d", tc.queens, tc.without, countPaths(g), want)
		}
	}
}

// solutionsOf counts the n×n board's solutions with queens and without
// the cells of without, by the oracle.
func solutionsOf(t *testing.T, n int, queens, without []configurator.Cell) int64 {
	t.Helper()
	b, err := oracle.New(n)
	if err != nil {
		t.Fatal(err)
	}
	count := int64(0)
	for i := range b.Count() {
		sol := b.Solution(i)
		has := func(c configurator.Cell) bool {
			for _, q := range sol {
				if q.Row == c.Row && q.Col == c.Col {
					return true
				}
			}
			return false
		}
		keeps := true
		for _, q := range queens {
			keeps = keeps && has(q)
		}
		for _, c := range without {
			keeps = keeps && !has(c)
		}
		if keeps {
			count++
		}
	}
	return count
}
