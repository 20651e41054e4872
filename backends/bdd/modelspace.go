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

var (
	_ configurator.ModelCompiler     = (*Backend)(nil)
	_ configurator.Space             = (*ModelSpace)(nil)
	_ configurator.FeatureSampler    = (*ModelSpace)(nil)
	_ configurator.FeatureMarginaler = (*ModelSpace)(nil)
	_ configurator.Sizer             = (*ModelSpace)(nil)
)

// ModelSpace is a compiled feature model: the diagram of its
// configurations, one variable per feature (variable f is feature f,
// wherever the order puts it), in a Manager that nothing writes once
// CompileModel returns. Every query is a sweep over the part of the
// diagram that the decisions allow, or a search down it, holding work
// space from the Backend's bound as a board's Space does (see diagram). It
// is immutable and safe for concurrent use.
//
// Besides configurator.Space it is a configurator.FeatureSampler,
// FeatureMarginaler, FeatureGrapher and Sizer.
type ModelSpace struct {
	model *feature.Model
	diagram
	order ModelOrder
	// source is the file CompileModel loaded the diagram from; "" if
	// compiled.
	source string
	// core is CoreNodes.
	core int
}

// FeatureModel is the model the space was compiled from.
func (s *ModelSpace) FeatureModel() *feature.Model { return s.model }

// Manager is the Manager that holds the diagram. Callers must only use its
// read-only methods.
func (s *ModelSpace) Manager() *robdd.Manager { return s.m }

// Root is the root of the diagram of all configurations.
func (s *ModelSpace) Root() robdd.Node { return s.root }

// Nodes is the size of the diagram, terminals excluded.
func (s *ModelSpace) Nodes() int { return s.nodes }

// CoreNodes is the size of the diagram the compile built, terminals
// excluded: over the features it keeps as variables (preprocess: neither
// fixed by the model nor merged into an equal feature, and mentioned by a
// constraint), before it put the others back (each fixed feature a node,
// each merged one nodes beside every node of the feature it equals). It is
// the size to compare with a diagram of the model made without those
// features, as exports that drop them have it. 0 for a space loaded from
// a file.
func (s *ModelSpace) CoreNodes() int { return s.core }

// Bytes is the memory the diagram holds.
func (s *ModelSpace) Bytes() int64 { return s.m.Bytes() }

// Order is the heuristic the diagram's variable order started from; the
// compile sifted it further (Manager().Order() is the order it ended
// with).
func (s *ModelSpace) Order() ModelOrder { return s.order }

// Source is the file of Options.Dir that CompileModel loaded the space
// from, or "" when it compiled the space.
func (s *ModelSpace) Source() string { return s.source }

// assign turns decisions into a partial assignment of the features. It
// refuses a feature out of range and one decided twice.
func (s *ModelSpace) assign(decisions []configurator.Decision) (robdd.Assignment, error) {
	a := s.m.NewAssignment()
	for _, d := range decisions {
		if d.Feature < 0 || d.Feature >= len(a) {
			return nil, fmt.Errorf("decision on feature %d of a model of %d", d.Feature, len(a))
		}
		if a[d.Feature] != robdd.Unassigned {
			return nil, fmt.Errorf("feature %q decided twice", s.model.Features[d.Feature].Name)
		}
		a[d.Feature] = 0
		if d.Select {
			a[d.Feature] = 1
		}
	}
	return a, nil
}

// noConfiguration is the error of decisions that no configuration keeps.
func noConfiguration(decisions []configurator.Decision) error {
	return fmt.Errorf("no configuration keeps these %d decisions: %w", len(decisions), configurator.ErrNoSolution)
}

// Domains classifies every feature by its valid domain under the decisions
// and counts the configurations that keep them: one sweep up the part of
// the diagram the decisions allow counts, one sweep down marks the
// domains (robdd.Part.ValidDomains). The count comes with the domains, so
// Work.Domains is the whole step and Work.Count is zero; Work.NodesVisited
// is the nodes of the part.
func (s *ModelSpace) Domains(ctx context.Context, decisions []configurator.Decision) (*configurator.Domains, error) {
	start := time.Now()
	a, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	var dom []robdd.Domain
	var count *big.Int
	visited := 0
	err = s.sweep(ctx, a, func(p *robdd.Part) {
		dom, count = p.ValidDomains()
		visited = p.Visited()
	})
	if err != nil {
		return nil, err
	}
	if count.Sign() == 0 {
		return nil, noConfiguration(decisions)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d := &configurator.Domains{States: make([]configurator.FeatureState, len(a)), Configurations: count}
	for f, x := range a {
		switch {
		case x == 1:
			d.States[f] = configurator.Selected
		case x == 0:
			d.States[f] = configurator.Deselected
		case dom[f]&robdd.CanBeFalse == 0:
			d.States[f] = configurator.ForcedOn
		case dom[f]&robdd.CanBeTrue == 0:
			d.States[f] = configurator.ForcedOff
		default:
			d.States[f] = configurator.Open
		}
	}
	d.Elapsed = time.Since(start)
	d.Work = configurator.Work{Domains: d.Elapsed, Nodes: int64(s.nodes), NodesVisited: int64(visited)}
	return d, nil
}

// Consistent reports whether some configuration keeps every decision: one
// search for a path of the diagram that agrees with them.
func (s *ModelSpace) Consistent(ctx context.Context, decisions []configurator.Decision) (bool, error) {
	a, err := s.assign(decisions)
	if err != nil {
		return false, err
	}
	_, found, err := s.search(ctx, a)
	return found, err
}

// Configuration returns the first configuration in the diagram's order
// that keeps the decisions.
func (s *ModelSpace) Configuration(ctx context.Context, decisions []configurator.Decision) ([]bool, error) {
	a, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	x, found, err := s.search(ctx, a)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, noConfiguration(decisions)
	}
	return x, nil
}

// SampleConfiguration returns a configuration that keeps the decisions,
// drawn uniformly at random: a count up the part of the diagram the
// decisions allow and one walk down it.
func (s *ModelSpace) SampleConfiguration(ctx context.Context, decisions []configurator.Decision, rng *rand.Rand) ([]bool, error) {
	a, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	var x []bool
	ok := false
	if err := s.sweep(ctx, a, func(p *robdd.Part) { x, ok = p.RandomSat(rng) }); err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	return x, nil
}

// FeatureMarginals returns, for every feature, the number of
// configurations that keep the decisions and select it: one count up and
// one down the part of the diagram the decisions allow.
func (s *ModelSpace) FeatureMarginals(ctx context.Context, decisions []configurator.Decision) ([]*big.Int, error) {
	a, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	var ones []*big.Int
	var total *big.Int
	if err := s.sweep(ctx, a, func(p *robdd.Part) { ones, total = p.Marginals() }); err != nil {
		return nil, err
	}
	if total.Sign() == 0 {
		return nil, noConfiguration(decisions)
	}
	return ones, nil
}
