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
// (robdd.Part.ExtremeSat), each variable weighing the features it
// selects set true and set false (see bindings).
func (s *ModelSpace) ExtremeConfiguration(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, int, error) {
	a, vals, ok, err := s.assign(decisions)
	if err != nil {
		return nil, 0, err
	}
	w := make(robdd.Weights, s.vars+s.free)
	for _, b := range s.of {
		if b.v >= 0 {
			w[b.v][1-b.flip]++
		}
	}
	var x []bool
	if ok {
		if err := s.sweep(ctx, a, func(p *robdd.Part) { x, _, ok = p.ExtremeSat(most, w[:s.vars]) }); err != nil {
			return nil, 0, err
		}
	}
	if !ok {
		return nil, 0, noConfiguration(decisions)
	}
	// A free variable takes the value that selects fewer (more) features.
	c := s.configuration(x, vals, func(v int) bool { return (w[v][1] > w[v][0]) == most && w[v][1] != w[v][0] })
	selected := 0
	for _, on := range c {
		if on {
			selected++
		}
	}
	return c, selected, nil
}
