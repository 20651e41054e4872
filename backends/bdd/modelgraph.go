package bdd

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

var _ configurator.FeatureGrapher = (*ModelSpace)(nil)

// FeatureGraph returns the reduced diagram of the configurations that keep
// decisions as a layered graph (configurator.FeatureGrapher), each level
// named by the feature of its variable (the representative of those
// merged into it; fixed features and free ones have no level), unless it has more than maxNodes nodes (terminal
// included): then the graph is truncated to its size and profile. The
// restriction under decisions is copied into a Manager of its own, as a
// board's Graph copies it, so the shared diagram is only read; the call
// holds the work space of that copy while it runs. Without decisions it
// reads the whole diagram in place.
func (s *ModelSpace) FeatureGraph(ctx context.Context, decisions []configurator.Decision, maxNodes int) (*configurator.Graph, error) {
	a, vals, ok, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	budget := s.m.Budget()
	if len(decisions) > 0 {
		var release func()
		budget, release, err = s.beginDrawingPart(ctx, a, true, budget)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	m, root, g, err := restrictedGraph(ctx, s.m, s.root, a, decisions, budget, s.m.LevelSizes, s.m.LevelSizes)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	levels := reducedGraph(g, m, root, maxNodes, func(level int) (string, configurator.Cell, bool) {
		return s.model.Features[s.features[m.VarAt(level)]].Name, configurator.Cell{}, false
	})
	if g.Truncated {
		return g, nil
	}
	// A feature left free that a path skips is either way in its
	// configurations: free[l] counts the free features above level l.
	free := make([]uint, len(a)+1)
	for l := range len(a) {
		free[l+1] = free[l]
		if a[m.VarAt(l)] == robdd.Unassigned {
			free[l+1]++
		}
	}
	levelOf := func(i int) int {
		switch {
		case i < 0:
			return -1
		case i == g.One:
			return len(a)
		}
		return levels[g.Nodes[i].Layer]
	}
	fillPaths(g, func(from, to int) uint { return free[levelOf(to)] - free[levelOf(from)+1] })
	g.Solutions.Lsh(g.Solutions, s.unset(vals)) // the free variables'
	return g, nil
}

// restrictedGraph begins a FeatureGraph of the diagram root of m: under
// decisions (a), the restriction copied into a Manager of its own within
// budget bytes, so that the shared diagram is only read, else the whole
// diagram in place; and the graph's head: its nodes per level (profile of
// the whole diagram, or of the copy), the whole diagram's beside them, and
// its node count. Decisions no configuration keeps give the error that
// says so.
func restrictedGraph(ctx context.Context, m *robdd.Manager, root robdd.Node, a robdd.Assignment, decisions []configurator.Decision, budget int64, profile, whole func() []int) (*robdd.Manager, robdd.Node, *configurator.Graph, error) {
	if len(decisions) > 0 {
		var err error
		m, root, err = m.Extract(ctx, root, a, budget)
		if errors.Is(err, robdd.ErrNodeLimit) {
			return nil, 0, nil, fmt.Errorf("the diagram under %d decisions has more than %d nodes, more than this server copies at once: %w: %w",
				len(decisions), budget/robdd.BytesPerNode, configurator.ErrTooLarge, err)
		}
		if err != nil {
			return nil, 0, nil, fmt.Errorf("graph under %d decisions: %w", len(decisions), err)
		}
		profile = func() []int { return m.LevelProfile(root) }
	}
	if root == robdd.False {
		return nil, 0, nil, noConfiguration(decisions)
	}
	g := &configurator.Graph{View: configurator.ReducedView, Root: -1, One: -1, Profile: profile(), Whole: whole()}
	for _, k := range g.Profile {
		g.DiagramNodes += k
	}
	return m, root, g, nil
}

// DiagramOrder returns the features of the diagram's levels (see
// FeatureGraph) from the top level down and the name of the heuristic the
// compile started from (it sifted the order further).
func (s *ModelSpace) DiagramOrder() (features []int, heuristic string) {
	order := s.m.Order()
	for l, v := range order {
		order[l] = s.features[v]
	}
	return order, s.order.resolve().String()
}
