package configurator

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nqueens/configurator/configurator/feature"
)

// A feature model (package feature: a UVL feature model or a DIMACS CNF
// file) is configured by decisions on its features, as a board is by
// queens. The types below are the backends' side of it: a ModelCompiler
// compiles a model once into a Space, which answers every question about
// decisions on it; the sessions and explanations are built on them.

// Decision is one choice a person makes on a feature model: Feature
// (an index into feature.Model.Features) selected, or deselected when
// Select is false.
type Decision struct {
	Feature int
	Select  bool
}

// Lit is the decision as a literal of the model's CNF (feature.Lit).
func (d Decision) Lit() feature.Lit { return feature.FeatureLit(d.Feature, d.Select) }

// FeatureState is what the configurator shows of a feature under a list of
// decisions.
type FeatureState uint8

const (
	// Open: both values remain: some remaining configuration selects the
	// feature and some does not.
	Open FeatureState = iota
	// Selected: the person selected it.
	Selected
	// Deselected: the person deselected it.
	Deselected
	// ForcedOn: every remaining configuration selects it, and the person
	// has not decided it.
	ForcedOn
	// ForcedOff: no remaining configuration selects it, and the person has
	// not decided it.
	ForcedOff
	// Unsettled: the backend's deadline came before it settled the
	// feature, which may be open or forced (see Domains). A person may
	// still decide it: the next step settles it, or says which decisions
	// conflict.
	Unsettled
)

var featureStateNames = [...]string{Open: "free", Selected: "select", Deselected: "deselect", ForcedOn: "forced_on", ForcedOff: "forced_off", Unsettled: "unsettled"}

// String is the state's name as the JSON API spells it: free, select,
// deselect, forced_on, forced_off, unsettled.
func (s FeatureState) String() string {
	return nameIn(featureStateNames[:], int(s), "FeatureState(?)")
}

// Domains is the configurator's view of a feature model under a list of
// decisions: the valid domain of every feature (complete and
// backtrack-free: a feature shown Open can take either value in some
// configuration that keeps every decision) and how many configurations
// remain.
//
// A backend whose deadline (ctx's) comes after it found a configuration
// that keeps the decisions, but before it settled every feature, may
// answer with what it settled and mark the rest Unsettled, instead of
// losing the whole answer: every other state is then as true as in a
// whole answer. Callers that need every feature settled check Settled.
type Domains struct {
	// States has one entry per feature of the model.
	States []FeatureState
	// Configurations counts the configurations that keep the decisions;
	// nil when the backend did not count. AtLeast marks it as a lower
	// bound (a counting cap was hit).
	Configurations *big.Int
	AtLeast        bool
	// Elapsed is how long the backend took to answer.
	Elapsed time.Duration
	// Work is what the backend did to answer, in its own terms.
	Work Work
}

// Settled reports whether the backend settled every feature: no feature
// is Unsettled.
func (d *Domains) Settled() bool { return !slices.Contains(d.States, Unsettled) }

// ErrUnsettled: an answer that leaves features Unsettled where every
// feature must be settled (facts of a model, samples).
var ErrUnsettled = errors.New("the backend's deadline came before it settled every feature")

// In lists the features in state s, in the model's order.
func (d *Domains) In(s FeatureState) []int {
	var out []int
	for f, st := range d.States {
		if st == s {
			out = append(out, f)
		}
	}
	return out
}

// ModelCompiler is a Backend that configures feature models besides
// N-Queens boards.
type ModelCompiler interface {
	// CompileModel prepares m. It honours ctx; a model beyond the
	// backend's limits (a decision diagram past its node budget) fails
	// with an error that errors.Is(err, ErrTooLarge) recognises and that
	// says what was exceeded.
	CompileModel(ctx context.Context, m *feature.Model) (Space, error)
}

// Space is a compiled model, a feature model's as a board's (a Board): the
// one interface every compiled model answers. It is immutable and safe for
// concurrent use. Every method takes the person's decisions, at most one
// per feature, which the caller has checked (features in range, none
// decided twice). Abilities only some spaces have are facets declared once
// each and discovered by type assertion, as io.WriterTo is: Admitter,
// Turner, Sizer, Sourcer, FeatureSampler, FeatureMarginaler,
// FeatureGrapher, FeatureCorer and FeatureOptimizer; and Board, a board's
// space that answers in squares too, with facets of its own.
type Space interface {
	// FeatureModel is the model the space was compiled from.
	FeatureModel() *feature.Model
	// Domains classifies every feature under the decisions. Decisions
	// that no configuration keeps give an error wrapping ErrNoSolution.
	Domains(ctx context.Context, decisions []Decision) (*Domains, error)
	// Consistent reports whether some configuration keeps every decision.
	Consistent(ctx context.Context, decisions []Decision) (bool, error)
	// Configuration returns one configuration that keeps the decisions
	// (selected[f] for every feature f), or an error wrapping
	// ErrNoSolution.
	Configuration(ctx context.Context, decisions []Decision) (selected []bool, err error)
}

// FeatureSampler is a Space that draws configurations uniformly at
// random.
type FeatureSampler interface {
	// SampleConfiguration returns a configuration that keeps the
	// decisions, each such configuration equally likely; an error
	// wrapping ErrTooLarge when the space is too large to draw from.
	SampleConfiguration(ctx context.Context, decisions []Decision, rng *rand.Rand) ([]bool, error)
}

// FeatureMarginaler is a Space that counts, for every feature, the
// remaining configurations that select it: each feature's share of them.
type FeatureMarginaler interface {
	// FeatureMarginals returns one count per feature.
	FeatureMarginals(ctx context.Context, decisions []Decision) ([]*big.Int, error)
}

// Changes is what a step did to the features that the person has not
// decided: those it forced on or off, and those it freed (forced before,
// free now, as after an undo).
type Changes struct {
	ForcedOn, ForcedOff, Freed []int
}

// Empty reports whether the step changed no feature's state.
func (c Changes) Empty() bool {
	return len(c.ForcedOn) == 0 && len(c.ForcedOff) == 0 && len(c.Freed) == 0
}

// Changed compares the domains after a step with those before it, feature
// by feature, in the model's order. A feature the person decided, now or
// before, is the step itself, not a consequence of it, and is left out; so
// is one unsettled before or after, of which the change is not known.
func Changed(before, after *Domains) Changes {
	var c Changes
	decided := func(s FeatureState) bool { return s == Selected || s == Deselected || s == Unsettled }
	forced := func(s FeatureState) bool { return s == ForcedOn || s == ForcedOff }
	for f, now := range after.States {
		was := before.States[f]
		switch {
		case decided(now) || decided(was) || now == was:
		case now == ForcedOn:
			c.ForcedOn = append(c.ForcedOn, f)
		case now == ForcedOff:
			c.ForcedOff = append(c.ForcedOff, f)
		case now == Open && forced(was):
			c.Freed = append(c.Freed, f)
		}
	}
	return c
}
