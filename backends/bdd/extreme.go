package bdd

import (
	"context"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

var _ configurator.FeatureOptimizer = (*ModelSpace)(nil)

// ExtremeConfiguration returns a configuration that keeps the decisions
// and selects the fewest features (most: the most), always exact: a
// shortest (longest) path down the part of the diagram the decisions
// allow, one sweep up and one walk down (robdd.Part.ExtremeSat).
func (s *ModelSpace) ExtremeConfiguration(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, bool, error) {
	a, err := s.assign(decisions)
	if err != nil {
		return nil, false, err
	}
	var x []bool
	ok := false
	if err := s.sweep(ctx, a, func(p *robdd.Part) { x, _, ok = p.ExtremeSat(most) }); err != nil {
		return nil, false, err
	}
	if !ok {
		return nil, false, noConfiguration(decisions)
	}
	return x, true, nil
}
