package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// How is the way Finish completes a configuration: which of the
// configurations that keep the decisions it returns.
type How uint8

const (
	// Uniform: one drawn uniformly at random, on a backend that samples
	// (a FeatureSampler).
	Uniform How = iota
	// Fewest: one that selects the fewest features.
	Fewest
	// Most: one that selects the most features.
	Most
)

var howNames = [...]string{Uniform: "uniform", Fewest: "fewest", Most: "most"}

// String is the way's name as the JSON API and the command line spell it.
func (h How) String() string { return nameIn(howNames[:], int(h), "How(?)") }

// ParseHow is String's inverse.
func ParseHow(s string) (How, error) {
	if h := slices.Index(howNames[:], s); h >= 0 {
		return How(h), nil
	}
	return 0, fmt.Errorf("%q: %w", s, ErrHow)
}

// Errors of Finish.
var (
	// ErrHow: a way to complete that is none of uniform, fewest, most.
	ErrHow = errors.New("not a way to complete a configuration (want uniform, fewest or most)")
	// ErrNoSampler: Uniform on a backend that does not draw
	// configurations uniformly (no FeatureSampler).
	ErrNoSampler = errors.New("this backend does not draw configurations uniformly at random")
	// ErrNoOptimizer: Fewest or Most on a backend that cannot find them
	// (no FeatureOptimizer).
	ErrNoOptimizer = errors.New("this backend does not find the configurations with the fewest or the most features")
)

// FeatureOptimizer is a Space that finds, among the configurations
// that keep decisions, one that selects the fewest features, or the most.
type FeatureOptimizer interface {
	// ExtremeConfiguration returns a configuration that keeps the
	// decisions and selects the fewest features (the most, when most
	// is set), or an error wrapping ErrNoSolution, and bound, what it
	// proved: no such configuration selects fewer (more) features than
	// bound, which equals the configuration's count when it is the
	// extreme. A search that ctx ends after it found one returns the
	// best it found and the bound it reached, and no error; one that
	// ends before gives ctx's error.
	ExtremeConfiguration(ctx context.Context, decisions []Decision, most bool) (selected []bool, bound int, err error)
}

// Completion is a configuration that Finish completed from a session's
// decisions.
type Completion struct {
	How How
	// Selected says, for every feature, whether the configuration
	// selects it.
	Selected []bool
	// Exact, for Fewest and Most, says that no configuration keeping
	// the decisions selects fewer (more) features; false when the search
	// ran out of time and Selected is the best it found. Always false
	// for Uniform.
	Exact bool
	// Bound, for Fewest and Most, is what is proven of the extreme: no
	// configuration keeping the decisions selects fewer (Fewest) or
	// more (Most) features than Bound. It equals Selections when Exact;
	// else it is the closer of the search's own and what the valid
	// domains prove: the features selected or forced on (Fewest), all
	// but those deselected or forced off (Most).
	Bound int
}

// Selections is the number of features the completion selects.
func (c *Completion) Selections() int {
	n := 0
	for _, on := range c.Selected {
		if on {
			n++
		}
	}
	return n
}

// Finish completes the session's configuration the way how says, every
// feature decided and the decisions kept; the session is not changed.
// Uniform needs a FeatureSampler (else ErrNoSampler), Fewest and Most a
// FeatureOptimizer (else ErrNoOptimizer), but on a board: every solution
// of an N-Queens board has N queens, so any is both the fewest and the
// most.
func (s *FeatureSession) Finish(ctx context.Context, how How, rng *rand.Rand) (*Completion, error) {
	c := &Completion{How: how}
	var err error
	switch how {
	case Uniform:
		sm, ok := s.space.(FeatureSampler)
		if !ok {
			return nil, ErrNoSampler
		}
		c.Selected, err = sm.SampleConfiguration(ctx, s.decisions, rng)
	case Fewest, Most:
		if _, ok := s.board(); ok {
			c.Selected, err = s.space.Configuration(ctx, s.decisions)
			c.Bound = c.Selections()
			break
		}
		op, ok := s.space.(FeatureOptimizer)
		if !ok {
			return nil, ErrNoOptimizer
		}
		c.Selected, c.Bound, err = op.ExtremeConfiguration(ctx, s.decisions, how == Most)
	default:
		return nil, fmt.Errorf("finish: How(%d): %w", how, ErrHow)
	}
	if err != nil {
		return nil, fmt.Errorf("complete (%s): %w", how, err)
	}
	if how == Fewest {
		c.Bound = max(c.Bound, s.bound(how))
	}
	if how == Most {
		c.Bound = min(c.Bound, s.bound(how))
	}
	c.Exact = how != Uniform && c.Bound == c.Selections()
	return c, nil
}

// bound is what the domains prove of the fewest (most) features a
// configuration keeping the decisions selects: at least those selected or
// forced on, at most all but those deselected or forced off.
func (s *FeatureSession) bound(how How) int {
	k := 0
	for _, st := range s.domains.States {
		switch {
		case how == Fewest && (st == Selected || st == ForcedOn):
			k++
		case how == Most && st != Deselected && st != ForcedOff:
			k++
		}
	}
	return k
}
