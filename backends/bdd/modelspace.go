package bdd

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
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
// configurations over the variables its compile kept (see bindings), in a
// Manager that nothing writes once CompileModel returns. Every query is a
// sweep over the part of the diagram that the decisions allow, or a
// search down it, holding work space from the Backend's bound as a
// board's Space does (see diagram), and answers over every feature. It is
// immutable and safe for concurrent use.
//
// Besides configurator.Space it is a configurator.FeatureSampler,
// FeatureMarginaler, FeatureGrapher and Sizer.
type ModelSpace struct {
	model *feature.Model
	diagram
	bindings
	order ModelOrder
	// source is the file CompileModel loaded the diagram from; "" if
	// compiled.
	source string
}

// FeatureModel is the model the space was compiled from.
func (s *ModelSpace) FeatureModel() *feature.Model { return s.model }

// Nodes is the size of the diagram, terminals excluded: over the
// features the compile keeps as variables (neither fixed by the model nor
// merged into an equal feature, and mentioned by a constraint), as
// exports that drop the others have it.
func (s *ModelSpace) Nodes() int { return s.nodes }

// Configurations is the number of the model's configurations.
func (s *ModelSpace) Configurations() *big.Int {
	vals, _ := s.bindings.assign(nil)
	return new(big.Int).Lsh(s.m.SatCount(s.root), s.unset(vals))
}

// Bytes is the memory the diagram holds.
func (s *ModelSpace) Bytes() int64 { return s.m.Bytes() }

// Order is the heuristic the diagram's variable order started from; the
// compile sifted it further (Manager().Order() is the order it ended
// with).
func (s *ModelSpace) Order() ModelOrder { return s.order }

// Source is the file of Options.Dir that CompileModel loaded the space
// from, or "" when it compiled the space.
func (s *ModelSpace) Source() string { return s.source }

// assign turns decisions into values of the space's variables (see
// bindings.assign): the diagram's, a, then the free ones', vals. ok is
// false when the decisions contradict one another or a fixed feature. It
// refuses a feature out of range and one decided twice.
func (s *ModelSpace) assign(decisions []configurator.Decision) (a, vals robdd.Assignment, ok bool, err error) {
	decided := make([]bool, len(s.of))
	for _, d := range decisions {
		if d.Feature < 0 || d.Feature >= len(decided) {
			return nil, nil, false, fmt.Errorf("decision on feature %d of a model of %d", d.Feature, len(decided))
		}
		if decided[d.Feature] {
			return nil, nil, false, fmt.Errorf("feature %q decided twice", s.model.Features[d.Feature].Name)
		}
		decided[d.Feature] = true
	}
	vals, ok = s.bindings.assign(decisions)
	return vals[:s.vars], vals, ok, nil
}

// exactCounts refuses, with an error wrapping configurator.ErrTooLarge, a
// query that needs the exact count below every node of the diagram (a
// uniform sample, the marginals) when those counts may pass the Backend's
// work space: each can take a word per 64 variables, and math/big holds
// them beside the sweep's own work space, which does not count them.
func (s *ModelSpace) exactCounts() error {
	need := int64(s.nodes) * ((int64(s.vars)+63)/64*8 + 40)
	if need <= s.work.bound {
		return nil
	}
	return fmt.Errorf("the exact counts below every node of this diagram of %d nodes over %d variables may take %s, more than the %s of work space of the BDD queries: %w",
		s.nodes, s.vars, bytesize.Format(need), bytesize.Format(s.work.bound), configurator.ErrTooLarge)
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
	a, vals, ok, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
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
	d := &configurator.Domains{States: make([]configurator.FeatureState, len(s.of)), Configurations: count.Lsh(count, s.unset(vals))}
	for f, x := range s.domains(dom, vals) {
		switch {
		case x&robdd.CanBeFalse == 0:
			d.States[f] = configurator.ForcedOn
		case x&robdd.CanBeTrue == 0:
			d.States[f] = configurator.ForcedOff
		default:
			d.States[f] = configurator.Open
		}
	}
	for _, dc := range decisions {
		d.States[dc.Feature] = configurator.Deselected
		if dc.Select {
			d.States[dc.Feature] = configurator.Selected
		}
	}
	d.Elapsed = time.Since(start)
	d.Work = configurator.Work{Domains: d.Elapsed, Nodes: int64(s.nodes), NodesVisited: int64(visited)}
	return d, nil
}

// Consistent reports whether some configuration keeps every decision: one
// search for a path of the diagram that agrees with them.
func (s *ModelSpace) Consistent(ctx context.Context, decisions []configurator.Decision) (bool, error) {
	a, _, ok, err := s.assign(decisions)
	if err != nil || !ok {
		return false, err
	}
	_, found, err := s.search(ctx, a)
	return found, err
}

// Configuration returns the first configuration in the diagram's order
// that keeps the decisions, a free feature deselected.
func (s *ModelSpace) Configuration(ctx context.Context, decisions []configurator.Decision) ([]bool, error) {
	a, vals, ok, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	var x []bool
	found := false
	if ok {
		if x, found, err = s.search(ctx, a); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, noConfiguration(decisions)
	}
	return s.configuration(x, vals, func(int) bool { return false }), nil
}

// SampleConfiguration returns a configuration that keeps the decisions,
// drawn uniformly at random: a count up the part of the diagram the
// decisions allow and one walk down it. It refuses a diagram whose exact
// counts may pass the work space (exactCounts).
func (s *ModelSpace) SampleConfiguration(ctx context.Context, decisions []configurator.Decision, rng *rand.Rand) ([]bool, error) {
	a, vals, ok, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	if err := s.exactCounts(); err != nil {
		return nil, err
	}
	var x []bool
	if ok {
		if err := s.sweep(ctx, a, func(p *robdd.Part) { x, ok = p.RandomSat(rng) }); err != nil {
			return nil, err
		}
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	return s.configuration(x, vals, func(int) bool { return rng.IntN(2) == 1 }), nil
}

// FeatureMarginals returns, for every feature, the number of
// configurations that keep the decisions and select it: one count up and
// one down the part of the diagram the decisions allow. It refuses a
// diagram whose exact counts may pass the work space (exactCounts).
func (s *ModelSpace) FeatureMarginals(ctx context.Context, decisions []configurator.Decision) ([]*big.Int, error) {
	a, vals, ok, err := s.assign(decisions)
	if err != nil {
		return nil, err
	}
	if err := s.exactCounts(); err != nil {
		return nil, err
	}
	if !ok {
		return nil, noConfiguration(decisions)
	}
	var ones []*big.Int
	var total *big.Int
	if err := s.sweep(ctx, a, func(p *robdd.Part) { ones, total = p.Marginals() }); err != nil {
		return nil, err
	}
	if total.Sign() == 0 {
		return nil, noConfiguration(decisions)
	}
	return s.marginals(ones, total, vals), nil
}
