package satbase

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

var _ configurator.FeatureOptimizer = (*FeatureSpace)(nil)

// ExtremeConfiguration returns a configuration that keeps the decisions
// and selects the fewest features (most: the most), and the bound it
// proved, by a search over gophersat's pseudo-Boolean constraints with a
// solver of its own (thrown away after). The cost of a configuration is
// the number of features that do not take the extreme value (selected,
// for the fewest; deselected, for the most); the search keeps the best
// configuration found (an upper bound of the least cost) and a lower
// bound, and halves the gap between them: it asks for a configuration of
// cost at most their middle, under a constraint guarded by a literal of
// its own that only that question assumes. A configuration found lowers
// the upper bound to its cost; none raises the lower bound past the
// middle. The bounds meet at the extreme; when ctx ends first, the best
// configuration found and the lower bound reached are the answer. Each
// question is a call of its own, in a solver turn of its own, and every
// configuration is verified against the model.
func (sp *FeatureSpace) ExtremeConfiguration(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, int, error) {
	if err := configurator.CheckDecisions(sp.m, decisions); err != nil {
		return nil, 0, fmt.Errorf("extreme configuration: %w", err)
	}
	var best []bool
	lb := 0
	err := sp.do(ctx, func(ctx context.Context, q *FeatureQuery) error {
		var err error
		best, lb, err = q.extreme(ctx, decisions, most)
		return err
	})
	if err != nil {
		how := configurator.Fewest
		if most {
			how = configurator.Most
		}
		return nil, 0, fmt.Errorf("configuration with the %s features under %s: %w", how, configurator.FormatDecisions(sp.m, decisions), err)
	}
	if most {
		return best, len(sp.m.Features) - lb, nil
	}
	return best, lb, nil
}

// extreme does the work of ExtremeConfiguration: the best configuration
// and the lower bound of the cost.
func (q *FeatureQuery) extreme(ctx context.Context, decisions []configurator.Decision, most bool) ([]bool, int, error) {
	if q.sp.dead {
		return nil, 0, configurator.ErrNoSolution
	}
	n := len(q.sp.m.Features)
	base := q.sp.assumptions(Lits(decisions))
	// good are the features' extreme values: the search tries them
	// first, and the cost counts the features not at theirs.
	good := make([]solver.Lit, n)
	for f := range good {
		good[f] = solver.IntToLit(int32(feature.FeatureLit(f, most)))
	}
	cost := func(config []bool) int {
		k := 0
		for _, on := range config {
			if on != most {
				k++
			}
		}
		return k
	}
	// The first half of the time the search descends: each question asks
	// for a cost below the best's, which the solver, trying the extreme
	// values first, often answers with a much better one. Then, from a
	// fresh solver, it halves the gap, which raises the lower bound too.
	descend := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		descend, cancel = context.WithDeadline(ctx, dl.Add(-time.Until(dl)/2))
		defer cancel()
	}
	var s *solver.Solver
	var best []bool
	lb, ub := 0, n+1
	for lb < ub {
		// The first question has no bound; each after asks for a cost
		// of at most mid, below the best's.
		mid := -1
		switch {
		case best != nil && descend.Err() == nil:
			mid = ub - 1
		case best != nil:
			mid = lb + (ub-lb-1)/2
		}
		qctx := ctx // the first question, and the halving's
		if mid >= 0 && descend.Err() == nil {
			qctx = descend
		}
		found := false
		err := q.Call(ctx, func() (err error) {
			switch {
			case mid < 0:
				s = q.sv.build()
				found, err = q.work.under(qctx, s, base, good)
			default:
				if s == nil {
					s = q.sv.build()
					s.Assume(base)
				}
				// At least n-mid features at their extreme value,
				// appended with the decisions assumed, as they stay:
				// the solver simplifies it by them, and a bound they
				// leave no room for makes it unsatisfiable at once,
				// which only a new Assume would forget.
				s.AppendClause(solver.NewPBClause(slices.Clone(good), nil, n-mid))
				s.Prefer(good)
				found, err = q.work.solve(qctx, s)
			}
			if found {
				model := slices.Clone(s.Model())
				if err = q.sp.verify(model, Lits(decisions)); err == nil {
					best = model[:n]
				}
			}
			return err
		})
		switch {
		case err != nil && best != nil && ctx.Err() != nil:
			return best, lb, nil
		case err != nil && best != nil && qctx.Err() != nil:
			// The descent's time is up: the halving starts afresh.
			s = nil
			continue
		case err != nil:
			return nil, 0, err
		case !found && mid < 0:
			return nil, 0, configurator.ErrNoSolution
		case !found:
			// The solver holds a bound that no configuration meets:
			// the next question, looser, needs one without it.
			lb, s = mid+1, nil
		case mid >= 0 && cost(best) > mid:
			return nil, 0, fmt.Errorf("%w: a configuration of cost %d found under the bound %d", ErrSolver, cost(best), mid)
		default:
			// A tighter bound holds whatever the next question: the
			// solver keeps it.
			ub = cost(best)
		}
	}
	return best, lb, nil
}
