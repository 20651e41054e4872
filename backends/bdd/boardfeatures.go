package bdd

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// A board's space answers the decisions of its feature model too
// (configurator.Model.FeatureModel): a selected square is a queen, a
// deselected one a square the person rules out. Decisions that only place
// queens are the board's own questions, answered with the space's kept
// answers and symmetries; squares ruled out restrict the same sweeps
// further (their levels false), so every answer stays exact and counted.

// FeatureModel is the board as a feature model: a feature per square,
// numbered as the board numbers its variables.
func (s *Space) FeatureModel() *feature.Model {
	fm, err := s.model.FeatureModel()
	if err != nil {
		// FeatureModel fails only on a model New and Custom refuse.
		panic(fmt.Sprintf("bdd: a board's feature model: %v", err))
	}
	return fm
}

// place splits decisions into the queens and the squares ruled out, and
// returns the assignment of both with the squares the queens attack false
// (exclude). ok is false when the decisions contradict each other.
func (s *Space) place(decisions []configurator.Decision) (queens, without []configurator.Cell, a robdd.Assignment, ok bool, err error) {
	for _, d := range decisions {
		c := s.model.Cell(d.Feature)
		if d.Select {
			queens = append(queens, c)
		} else {
			without = append(without, c)
		}
	}
	a, ok, err = s.assign(queens, without)
	if err != nil {
		return nil, nil, nil, false, err
	}
	s.exclude(a, queens)
	return queens, without, a, ok, nil
}

// Domains classifies every square under the decisions and counts the
// solutions that keep them.
func (s *Space) Domains(ctx context.Context, decisions []configurator.Decision) (*configurator.Domains, error) {
	start := time.Now()
	queens, without, a, ok, err := s.place(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	var an *configurator.Analysis
	if len(without) == 0 {
		an, err = s.Analyze(ctx, queens)
	} else {
		an, err = s.analyzeAt(ctx, queens, a, start)
	}
	if err != nil {
		return nil, err
	}
	d := &configurator.Domains{States: make([]configurator.FeatureState, len(an.Cells)),
		Configurations: an.Solutions, AtLeast: an.AtLeast, Work: an.Work}
	for v, st := range an.Cells {
		switch st {
		case configurator.Queen:
			d.States[v] = configurator.Selected
		case configurator.Blocked:
			d.States[v] = configurator.ForcedOff
		case configurator.Forced:
			d.States[v] = configurator.ForcedOn
		}
	}
	for _, c := range without {
		d.States[s.model.Var(c)] = configurator.Deselected
	}
	d.Elapsed = time.Since(start)
	return d, nil
}

// Consistent reports whether some solution keeps every decision.
func (s *Space) Consistent(ctx context.Context, decisions []configurator.Decision) (bool, error) {
	queens, without, _, _, err := s.place(decisions)
	if err != nil {
		return false, err
	}
	return s.Satisfiable(ctx, queens, without)
}

// Configuration returns the first solution in the diagram's order that
// keeps the decisions.
func (s *Space) Configuration(ctx context.Context, decisions []configurator.Decision) ([]bool, error) {
	_, _, a, ok, err := s.place(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	x, found, err := s.search(ctx, a)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, noConfiguration(decisions)
	}
	return s.squares(x), nil
}

// SampleConfiguration draws a solution that keeps the decisions, each
// equally likely.
func (s *Space) SampleConfiguration(ctx context.Context, decisions []configurator.Decision, rng *rand.Rand) ([]bool, error) {
	queens, without, a, ok, err := s.place(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	if len(without) == 0 {
		cells, err := s.Sample(ctx, queens, rng)
		if err != nil {
			return nil, err
		}
		x := make([]bool, s.model.Vars())
		for _, c := range cells {
			x[s.model.Var(c)] = true
		}
		return x, nil
	}
	var x []bool
	if err := s.sweep(ctx, a, func(p *robdd.Part) { x, ok = p.RandomSat(rng) }); err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	return s.squares(x), nil
}

// FeatureMarginals counts, for every square, the solutions that keep the
// decisions and put a queen there.
func (s *Space) FeatureMarginals(ctx context.Context, decisions []configurator.Decision) ([]*big.Int, error) {
	queens, without, a, ok, err := s.place(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	if len(without) == 0 {
		return s.Marginals(ctx, queens)
	}
	out, err := s.marginalsAt(ctx, a)
	if err == nil && out == nil {
		err = noConfiguration(decisions)
	}
	return out, err
}

// squares turns a solution indexed by level into one indexed by square.
func (s *Space) squares(x []bool) []bool {
	out := make([]bool, s.model.Vars())
	for v := range out {
		out[v] = x[s.model.Level(v)]
	}
	return out
}

// FeatureGraph draws the reduced diagram of the solutions that keep the
// decisions, a level per square in the board's order, labelled by its
// square: the diagram the model page shows of a board.
func (s *Space) FeatureGraph(ctx context.Context, decisions []configurator.Decision, maxNodes int) (*configurator.Graph, error) {
	_, _, a, ok, err := s.place(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	budget, release, err := s.beginDrawingPart(ctx, a, len(decisions) > 1, s.budget)
	if err != nil {
		return nil, err
	}
	defer release()
	m, root, g, err := restrictedGraph(ctx, s.m, s.root, a, decisions, budget, s.levels, s.levels)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	reducedGraph(g, m, root, maxNodes, s.nameLevel)
	if !g.Truncated {
		fillPaths(g, nil)
	}
	return g, nil
}

// DiagramOrder returns the squares from the diagram's top level down, and
// the board's order they follow.
func (s *Space) DiagramOrder() (features []int, heuristic string) {
	features = make([]int, s.model.Vars())
	for l := range features {
		features[l] = s.model.VarAt(l)
	}
	return features, s.model.Order().String()
}
