package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator/feature"
)

// Errors of the sessions on feature models. Handlers map them to statuses;
// errors.Is recognises them through any wrapping.
var (
	// ErrUnknownFeature: a name that is no feature of the model.
	ErrUnknownFeature = errors.New("no such feature")
	// ErrDecidedTwice: two decisions on one feature.
	ErrDecidedTwice = errors.New("feature decided twice")
	// ErrDecided: a decision on a feature the person has decided already.
	ErrDecided = errors.New("feature already decided")
	// ErrUndecided: undoing a decision the person has not made.
	ErrUndecided = errors.New("no decision of yours on that feature")
	// ErrExcluded: a decision that the others exclude (the feature is
	// forced the other way).
	ErrExcluded = errors.New("the decisions force the feature the other way")
	// ErrNotForced: Why? or Make room on a feature that is not forced.
	ErrNotForced = errors.New("feature is not forced")
	// ErrBoardsOnly: a feature model for a backend that is no
	// ModelCompiler.
	ErrBoardsOnly = errors.New("this backend configures N-Queens boards only, not feature models")
)

// CompileFeatureModel compiles m with b and measures how long that took.
// A board (a model whose grid marks the N-Queens rules, BoardOf) is
// compiled as a board, with the backend's own engine for boards (a Board,
// whose FeatureModel is the board's own, equal to m); any other model needs
// a ModelCompiler, and another backend fails with an error wrapping
// ErrBoardsOnly.
func CompileFeatureModel(ctx context.Context, b Backend, m *feature.Model) (Space, time.Duration, error) {
	start := time.Now()
	if board, ok := BoardOf(m); ok {
		return Compile(ctx, b, board)
	}
	mc, ok := b.(ModelCompiler)
	if !ok {
		return nil, 0, fmt.Errorf("%s: %w", b.Name(), ErrBoardsOnly)
	}
	sp, err := mc.CompileModel(ctx, m)
	if err != nil {
		return nil, 0, fmt.Errorf("compile %s with %s: %w", ModelName(m), b.Name(), err)
	}
	return sp, time.Since(start), nil
}

// ModelName is m's name for people: its own, or "the model" when it has
// none (a CNF file's reader does not know it).
func ModelName(m *feature.Model) string {
	if m.Name != "" {
		return m.Name
	}
	return "the model"
}

// DecisionNames is ParseDecisions' inverse: the names of the features ds
// selects and of those it deselects, each in the order of ds (empty, not
// nil, when there are none).
func DecisionNames(m *feature.Model, ds []Decision) (sel, desel []string) {
	sel, desel = []string{}, []string{}
	for _, d := range ds {
		if d.Select {
			sel = append(sel, m.Features[d.Feature].Name)
		} else {
			desel = append(desel, m.Features[d.Feature].Name)
		}
	}
	return sel, desel
}

// ParseDecisions returns the decisions that select the features named in
// sel and deselect those in desel, in that order. A name that is no
// feature gives an error wrapping ErrUnknownFeature that names it, and a
// feature named twice one wrapping ErrDecidedTwice.
func ParseDecisions(m *feature.Model, sel, desel []string) ([]Decision, error) {
	ds := make([]Decision, 0, len(sel)+len(desel))
	for _, list := range []struct {
		names []string
		value bool
	}{{sel, true}, {desel, false}} {
		for _, name := range list.names {
			f, ok := m.ID(name)
			if !ok {
				return nil, fmt.Errorf("feature %q: %w", name, ErrUnknownFeature)
			}
			ds = append(ds, Decision{Feature: f, Select: list.value})
		}
	}
	if err := CheckDecisions(m, ds); err != nil {
		return nil, err
	}
	return ds, nil
}

// CheckDecisions validates decisions for m: every feature in range, none
// decided twice. It does not check that a configuration keeps them: that
// is a question for a backend.
func CheckDecisions(m *feature.Model, ds []Decision) error {
	seen := make(map[int]bool, len(ds))
	for _, d := range ds {
		if d.Feature < 0 || d.Feature >= len(m.Features) {
			return fmt.Errorf("feature %d of a model of %d: %w", d.Feature, len(m.Features), ErrUnknownFeature)
		}
		if seen[d.Feature] {
			return fmt.Errorf("feature %q: %w", m.Features[d.Feature].Name, ErrDecidedTwice)
		}
		seen[d.Feature] = true
	}
	return nil
}

// FormatDecisions names decisions for people: "+A, -B" (+ selects, -
// deselects).
func FormatDecisions(m *feature.Model, ds []Decision) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		sign := "-"
		if d.Select {
			sign = "+"
		}
		parts[i] = sign + m.Features[d.Feature].Name
	}
	return strings.Join(parts, ", ")
}

// FeatureSession is one person's configuration of a feature model: the
// decisions they made, in order, and the domains under them. Forced
// features are derived by every analysis and never stored as decisions.
// Every method leaves the session as it was when it returns an error. A
// FeatureSession is not safe for concurrent use; its Space is.
type FeatureSession struct {
	space     Space
	decisions []Decision
	domains   *Domains
	// cnf and prop prove by propagation; built on the first proof.
	cnf  *feature.CNF
	prop *feature.Propagator
}

// NewFeatureSession checks decisions (features of the model, none twice)
// and classifies every feature under them. Decisions that no
// configuration keeps give a *Conflict.
func NewFeatureSession(ctx context.Context, sp Space, decisions []Decision) (*FeatureSession, error) {
	if err := CheckDecisions(sp.FeatureModel(), decisions); err != nil {
		return nil, err
	}
	s := &FeatureSession{space: sp}
	err := s.set(ctx, slices.Clone(decisions))
	if errors.Is(err, ErrNoSolution) {
		return nil, s.conflict(ctx, decisions)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// set classifies the features under decisions and, when that succeeds,
// makes them the session's.
func (s *FeatureSession) set(ctx context.Context, decisions []Decision) error {
	start := time.Now()
	d, err := s.space.Domains(ctx, decisions)
	if err != nil {
		return err
	}
	d.Elapsed = time.Since(start)
	s.decisions, s.domains = decisions, d
	return nil
}

// Space is the compiled model the session queries.
func (s *FeatureSession) Space() Space { return s.space }

// Model is the session's feature model.
func (s *FeatureSession) Model() *feature.Model { return s.space.FeatureModel() }

// Decisions returns the person's decisions in the order they were made.
func (s *FeatureSession) Decisions() []Decision { return slices.Clone(s.decisions) }

// Domains is the classification of the features under the decisions.
func (s *FeatureSession) Domains() *Domains { return s.domains }

// Decide adds a decision. A feature decided already gives ErrDecided; a
// decision the others exclude (the feature forced the other way) gives a
// *Excluded that says why. A feature forced the way decided becomes the
// person's own decision.
func (s *FeatureSession) Decide(ctx context.Context, d Decision) error {
	m := s.Model()
	if d.Feature < 0 || d.Feature >= len(m.Features) {
		return fmt.Errorf("decide feature %d of a model of %d: %w", d.Feature, len(m.Features), ErrUnknownFeature)
	}
	st := s.domains.States[d.Feature]
	switch {
	case st == Selected || st == Deselected:
		return fmt.Errorf("decide %q: %w", m.Features[d.Feature].Name, ErrDecided)
	case st == ForcedOn && !d.Select, st == ForcedOff && d.Select:
		return s.excluded(ctx, d)
	}
	err := s.set(ctx, append(slices.Clone(s.decisions), d))
	if st != Unsettled || !errors.Is(err, ErrNoSolution) {
		return err
	}
	// A deadline left the feature unsettled, and it is forced the other
	// way: the session knows it now, and says why.
	settled := *s.domains
	settled.States = slices.Clone(settled.States)
	settled.States[d.Feature] = ForcedOn
	if d.Select {
		settled.States[d.Feature] = ForcedOff
	}
	s.domains = &settled
	return s.excluded(ctx, d)
}

// excluded is the *Excluded of decision d, on a feature forced the other
// way, with its first reason when the search finds one.
func (s *FeatureSession) excluded(ctx context.Context, d Decision) error {
	why, err := s.explain(ctx, d.Feature, true)
	if err != nil && ctx.Err() != nil {
		return err
	}
	return &Excluded{Model: s.Model(), Decision: d, Why: why}
}

// Undo takes back the person's decisions on the given features, whichever
// they are; forced features are derived again.
func (s *FeatureSession) Undo(ctx context.Context, features ...int) error {
	decisions := slices.Clone(s.decisions)
	for _, f := range features {
		i := slices.IndexFunc(decisions, func(d Decision) bool { return d.Feature == f })
		if i < 0 {
			return fmt.Errorf("undo feature %d: %w", f, ErrUndecided)
		}
		decisions = slices.Delete(decisions, i, i+1)
	}
	return s.set(ctx, decisions)
}

// Complete returns a configuration that keeps the decisions (selected[f]
// for every feature f), drawn uniformly when the space is a
// FeatureSampler that can draw it (a sampler may refuse a space too large
// for its exact counts, ErrTooLarge: then any configuration). The session
// is not changed.
func (s *FeatureSession) Complete(ctx context.Context, rng *rand.Rand) ([]bool, error) {
	var config []bool
	err := ErrNoSampler
	if sm, ok := s.space.(FeatureSampler); ok {
		config, err = sm.SampleConfiguration(ctx, s.decisions, rng)
	}
	if errors.Is(err, ErrNoSampler) || errors.Is(err, ErrTooLarge) {
		config, err = s.space.Configuration(ctx, s.decisions)
	}
	if err != nil {
		return nil, fmt.Errorf("complete: %w", err)
	}
	return config, nil
}

// Marginals returns, for every feature, how many of the remaining
// configurations select it (each feature's share of
// Domains().Configurations), or nil when the space does not count them
// (it is no FeatureMarginaler).
func (s *FeatureSession) Marginals(ctx context.Context) ([]*big.Int, error) {
	mg, ok := s.space.(FeatureMarginaler)
	if !ok {
		return nil, nil
	}
	counts, err := mg.FeatureMarginals(ctx, s.decisions)
	if err != nil {
		return nil, fmt.Errorf("marginals: %w", err)
	}
	return counts, nil
}

// Conflict is the error of decisions that no configuration keeps, or of a
// model that has no configuration at all. It wraps ErrNoSolution and says
// why: a minimal set of the decisions that no configuration keeps (none
// when the model alone has no configuration), and the parts of the model
// that refute them.
type Conflict struct {
	Model *feature.Model
	// Decisions is a minimal conflicting subset of the decisions, in the
	// order they were made: drop any one and some configuration keeps
	// the rest. Empty when the model has no configuration at all.
	Decisions []Decision
	// Proof is the propagation that refutes them, nil when propagation
	// alone does not. Constraints are the parts of the model the
	// refutation rests on: for a model without configurations a minimal
	// set of them when the space finds one (FeatureCorer); else the
	// proof's, or, without a proof, a minimal set the space found; nil
	// when none is known.
	Proof       []Implication
	Constraints []feature.Origin
}

func (e *Conflict) Error() string {
	var b strings.Builder
	if len(e.Decisions) == 0 {
		fmt.Fprintf(&b, "%s has no configuration", ModelName(e.Model))
	} else {
		fmt.Fprintf(&b, "no configuration keeps %s", FormatDecisions(e.Model, e.Decisions))
	}
	b.WriteString(describeParts(e.Model, e.Constraints))
	return b.String()
}

// describeParts names parts of m in an error message: after ": ", one
// from the next by "; "; "" when there are none.
func describeParts(m *feature.Model, parts []feature.Origin) string {
	if len(parts) == 0 {
		return ""
	}
	names := make([]string, len(parts))
	for i, o := range parts {
		names[i] = m.Describe(o)
	}
	return ": " + strings.Join(names, "; ")
}

func (e *Conflict) Unwrap() error { return ErrNoSolution }

// conflict describes decisions that no configuration keeps: a minimal
// subset by the reason search, and what refutes it. When the search itself
// fails, the conflict names every decision.
func (s *FeatureSession) conflict(ctx context.Context, decisions []Decision) error {
	e := &Conflict{Model: s.Model(), Decisions: slices.Clone(decisions)}
	rs := &reasonSearch{n: len(decisions), firstOnly: true,
		rules: func(ctx context.Context, set []int) (bool, []int, error) {
			ok, err := s.space.Consistent(ctx, pickDecisions(decisions, set))
			return !ok, nil, err
		}}
	if err := rs.run(ctx); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return e
	}
	e.Decisions = pickDecisions(decisions, rs.found[0])
	pctx, cancel := budgeted(ctx, proofBudget)
	defer cancel()
	var r FeatureReason
	if err := s.prove(ctx, pctx, &r, e.Decisions); err != nil {
		return err
	}
	e.Proof, e.Constraints = r.Proof, r.Constraints
	if c, ok := s.space.(FeatureCorer); ok && len(e.Decisions) == 0 && e.Proof != nil {
		// The chain of a proof may use more parts than conflict: the
		// parts of a model without configurations are a minimal set.
		core, err := c.Core(pctx, nil)
		switch {
		case err == nil:
			e.Constraints = core
		case ctx.Err() != nil:
			return err
		}
	}
	return e
}

// pickDecisions returns the decisions at the indices of set, with room
// for one more.
func pickDecisions(ds []Decision, set []int) []Decision {
	out := make([]Decision, len(set), len(set)+1)
	for i, j := range set {
		out[i] = ds[j]
	}
	return out
}

// Excluded is the error of a decision that the person's other decisions
// exclude. It wraps ErrExcluded; Why says why the feature is forced the
// other way by one reason (nil when the explanation itself failed, say
// for lack of time).
type Excluded struct {
	Model    *feature.Model
	Decision Decision
	Why      *FeatureExplanation
}

func (e *Excluded) Error() string {
	verb := "deselect"
	if e.Decision.Select {
		verb = "select"
	}
	msg := fmt.Sprintf("cannot %s %q: the decisions force it the other way", verb, e.Model.Features[e.Decision.Feature].Name)
	if e.Why != nil && len(e.Why.Reasons) > 0 {
		r := e.Why.Reasons[0]
		if e.Why.Core {
			msg = fmt.Sprintf("cannot %s %q: the model alone forces it the other way", verb, e.Model.Features[e.Decision.Feature].Name)
		} else {
			msg += " (" + FormatDecisions(e.Model, r.Decisions) + ")"
		}
		msg += describeParts(e.Model, r.Constraints)
	}
	return msg
}

func (e *Excluded) Unwrap() error { return ErrExcluded }
