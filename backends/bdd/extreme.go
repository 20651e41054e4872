package bdd

import (
	"context"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

var _ configurator.FeatureOptimizer = (*ModelSpace)(nil)

// ExtremeConfiguration returns a configuration that keeps the decisions
// and selects the fewest features (most: the most), always the extreme
// (its count is the bound): a shortest (longest) path down the part of
// the diagram the decisions allow, one sweep up and one walk down
// (robdd.Part.ExtremeSat).
func (s *ModelSpace) ExtremeConfiguration(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, int, error) {
	a, err := s.assign(decisions)
	if err != nil {
		return nil, 0, err
	}
	var x []bool
	ones := 0
	ok := false
	if err := s.sweep(ctx, a, func(p *robdd.Part) { x, ones, ok = p.ExtremeSat(most) }); err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, noConfiguration(decisions)
	}
	return x, ones, nil
}
