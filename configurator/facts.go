package configurator

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/nqueens/configurator/configurator/feature"
)

// Facts are what a feature model's analysis says of it as a whole, before
// any decision (the questions flamapy and FeatureIDE answer): its core and
// dead features, its false-optional features, its atomic sets, and, where
// the backend counts, its configurations and each feature's share of them.
type Facts struct {
	// Core are the features every configuration selects; Dead those
	// none does. A model without configurations has every feature dead.
	Core, Dead []int
	// FalseOptional are the features the tree makes optional (no root, no
	// mandatory child) that every configuration selecting their parent
	// selects too; a dead feature, or one of a dead parent, is not one.
	FalseOptional []int
	// AtomicSets are the sets of two or more features that take the same
	// value in every configuration, dead features aside, each in the
	// model's order, the sets in the order of their first feature.
	AtomicSets [][]int
	// Configurations counts the configurations, nil when the backend did
	// not count them exactly.
	Configurations *big.Int
	// Selecting counts, per feature, the configurations that select it,
	// nil when the backend does not count them (no FeatureMarginaler, or
	// counts beyond its limits: ErrTooLarge).
	Selecting []*big.Int
}

// factSamples is how many configurations drawn uniformly (on a space that
// draws them) split the candidates for atomic sets before any is checked.
const factSamples = 32

// ModelFacts analyses sp's model as a whole (see Facts). Besides the
// domains of no decision and the marginals, it asks the space, for each
// optional feature whose parent is not dead and that is not core, whether
// a configuration selects the parent without it; and for the atomic sets
// it splits the features that are neither dead nor core by the
// configurations it meets (samples, when the space draws them, and every
// configuration a question finds), then checks each feature left with its
// set's first against a configuration that gives them different values,
// whose witness splits every set at once.
func ModelFacts(ctx context.Context, sp Space) (*Facts, error) {
	m := sp.FeatureModel()
	n := len(m.Features)
	d, err := sp.Domains(ctx, nil)
	if errors.Is(err, ErrNoSolution) {
		all := make([]int, n)
		for f := range all {
			all[f] = f
		}
		return &Facts{Dead: all, Configurations: new(big.Int)}, nil
	}
	if err == nil && !d.Settled() {
		err = ErrUnsettled
	}
	if err != nil {
		return nil, err
	}
	facts := &Facts{Core: d.In(ForcedOn), Dead: d.In(ForcedOff)}
	if d.Configurations != nil && !d.AtLeast {
		facts.Configurations = d.Configurations
	}
	if mg, ok := sp.(FeatureMarginaler); ok {
		facts.Selecting, err = mg.FeatureMarginals(ctx, nil)
		if errors.Is(err, ErrTooLarge) {
			facts.Selecting, err = nil, nil // the facts without the shares
		}
		if err != nil {
			return nil, err
		}
	}
	for f, ft := range m.Features {
		if ft.Parent < 0 || m.Groups[ft.Group].Kind == feature.GroupMandatory || d.States[ft.Parent] == ForcedOff || d.States[f] == ForcedOff {
			continue
		}
		if d.States[f] == ForcedOn {
			facts.FalseOptional = append(facts.FalseOptional, f)
			continue
		}
		ok, err := sp.Consistent(ctx, []Decision{{Feature: ft.Parent, Select: true}, {Feature: f, Select: false}})
		if err != nil {
			return nil, err
		}
		if !ok {
			facts.FalseOptional = append(facts.FalseOptional, f)
		}
	}
	if facts.AtomicSets, err = atomicSets(ctx, sp, d); err != nil {
		return nil, err
	}
	return facts, nil
}

// atomicSets finds the atomic sets of sp's model, whose domains of no
// decision are d (see ModelFacts): the core features are one, and the
// open ones are split.
func atomicSets(ctx context.Context, sp Space, d *Domains) ([][]int, error) {
	core, open := d.In(ForcedOn), d.In(Open)
	// sets holds the candidate sets of open features; a configuration
	// splits each by the value it gives the members.
	var sets [][]int
	if len(open) > 1 {
		sets = append(sets, open)
	}
	split := func(config []bool) {
		var out [][]int
		for _, s := range sets {
			var on, off []int
			for _, f := range s {
				if config[f] {
					on = append(on, f)
				} else {
					off = append(off, f)
				}
			}
			for _, part := range [][]int{on, off} {
				if len(part) > 1 {
					out = append(out, part)
				}
			}
		}
		sets = out
	}
	if sm, ok := sp.(FeatureSampler); ok {
		rng := rand.New(rand.NewPCG(1, 2))
		for range factSamples {
			config, err := sm.SampleConfiguration(ctx, nil, rng)
			if errors.Is(err, ErrTooLarge) {
				break // the checks below split the sets without samples
			}
			if err != nil {
				return nil, err
			}
			split(config)
		}
	}
	var done [][]int
	// same[f] is the feature f was proven equal to: a set split keeps
	// its first member first, so the proofs of its part hold on.
	same := make(map[int]int)
	for len(sets) > 0 {
		s := sets[0]
		r, found := s[0], false
		for _, f := range s[1:] {
			if g, ok := same[f]; ok && g == r {
				continue
			}
			for _, sel := range []bool{true, false} {
				config, err := sp.Configuration(ctx, []Decision{{Feature: r, Select: sel}, {Feature: f, Select: !sel}})
				if errors.Is(err, ErrNoSolution) {
					continue
				}
				if err != nil {
					return nil, err
				}
				split(config)
				found = true
				break
			}
			if found {
				break
			}
			same[f] = r
		}
		if !found {
			// No configuration gives any member another value than r's:
			// the set is atomic.
			done = append(done, s)
			sets = sets[1:]
		}
	}
	if len(core) > 1 {
		done = append(done, core)
	}
	slices.SortFunc(done, func(a, b []int) int { return a[0] - b[0] })
	return done, nil
}
