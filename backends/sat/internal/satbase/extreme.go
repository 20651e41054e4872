package satbase

import (
	"context"
	"fmt"
	"slices"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

var _ configurator.FeatureOptimizer = (*FeatureSpace)(nil)

// ExtremeConfiguration returns a configuration that keeps the decisions
// and selects the fewest features (most: the most), by gophersat's own
// way of optimising (its Minimize): a configuration, then, as long as
// there is one, another that selects fewer (more) than the best so far,
// asked with a pseudo-Boolean constraint over the features appended to a
// solver of its own (thrown away after: the constraints hold only for
// this question). The last question answered UNSAT proves the best
// exact. Each question is a call of its own, in a solver turn of its own;
// when ctx ends after a configuration was found, the best found is the
// answer, not exact. Every configuration is verified against the model.
func (sp *FeatureSpace) ExtremeConfiguration(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, bool, error) {
	if err := configurator.CheckDecisions(sp.m, decisions); err != nil {
		return nil, false, fmt.Errorf("extreme configuration: %w", err)
	}
	var best []bool
	exact := false
	err := sp.do(ctx, func(ctx context.Context, q *FeatureQuery) error {
		var err error
		best, exact, err = q.extreme(ctx, decisions, most)
		return err
	})
	if err != nil {
		how := configurator.Fewest
		if most {
			how = configurator.Most
		}
		return nil, false, fmt.Errorf("configuration with the %s features under %s: %w", how, configurator.FormatDecisions(sp.m, decisions), err)
	}
	return best, exact, nil
}

// extreme does the work of ExtremeConfiguration.
func (q *FeatureQuery) extreme(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, bool, error) {
	if q.sp.dead {
		return nil, false, configurator.ErrNoSolution
	}
	n := len(q.sp.m.Features)
	lits := Lits(decisions)
	// Each search tries the extreme value of every feature first.
	prefer := make([]solver.Lit, n)
	for f := range prefer {
		prefer[f] = solver.IntToLit(int32(feature.FeatureLit(f, most)))
	}
	var s *solver.Solver
	var best []bool
	for {
		found := false
		err := q.Call(ctx, func() (err error) {
			if s == nil {
				s = q.sv.build()
				found, err = q.work.under(ctx, s, q.sp.assumptions(lits), prefer)
			} else {
				s.AppendClause(better(n, selections(best), most))
				s.Prefer(prefer)
				found, err = q.work.solve(ctx, s)
			}
			if found {
				model := slices.Clone(s.Model())
				if err = q.sp.verify(model, lits); err == nil {
					best = model[:n]
				}
			}
			return err
		})
		switch {
		case err != nil && best != nil && ctx.Err() != nil:
			return best, false, nil
		case err != nil:
			return nil, false, err
		case !found && best == nil:
			return nil, false, configurator.ErrNoSolution
		case !found:
			return best, true, nil
		}
		if k := selections(best); most && k == n || !most && k == 0 {
			return best, true, nil
		}
	}
}

// better is the constraint that a configuration of n features selects
// fewer than k of them (most: more): at least n-k+1 deselected, or k+1
// selected. 0 < k for the fewer, k < n for the more.
func better(n, k int, most bool) *solver.Clause {
	lits := make([]solver.Lit, n)
	for f := range lits {
		lits[f] = solver.IntToLit(int32(feature.FeatureLit(f, most)))
	}
	if most {
		return solver.NewPBClause(lits, nil, k+1)
	}
	return solver.NewPBClause(lits, nil, n-k+1)
}

// selections counts the features a configuration selects.
func selections(config []bool) int {
	k := 0
	for _, on := range config {
		if on {
			k++
		}
	}
	return k
}
