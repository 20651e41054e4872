package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/oracle"
)

// featureOracle is the oracle of m: every assignment judged by
// feature.Model.Valid, or, for a board (configurator.BoardOf), whose
// squares are too many for that, the solutions the board oracle finds by
// its own search with its own attack rules.
func featureOracle(m *feature.Model) (*oracle.Features, error) {
	board, ok := configurator.BoardOf(m)
	if !ok || len(m.Features) <= oracle.MaxFeatures {
		return oracle.NewFeatures(len(m.Features), m.Valid)
	}
	b, err := oracle.New(board.N())
	if err != nil {
		return nil, err
	}
	configs := make([][]bool, b.Count())
	for i := range configs {
		configs[i] = make([]bool, board.Vars())
		for _, q := range b.Solution(i) {
			configs[i][board.Var(configurator.Cell{Row: q.Row, Col: q.Col})] = true
		}
	}
	return oracle.FeaturesOf(len(m.Features), configs)
}

// WalkModel takes seeded random walks on a feature model of at most
// oracle.MaxFeatures features (a board of at most oracle.MaxListed
// squares), with every subject, through the session
// logic (configurator.FeatureSession), and checks every answer against the
// oracle, which enumerates the model's configurations with
// feature.Model.Valid (never the CNF the backends compile). A step decides
// an open feature (now and then a forced one the other way, or a decided
// one, which must be refused), undoes a decision, explains a feature,
// makes room for a forced one (sometimes taking the advice), completes
// the configuration, opens a session on decisions no configuration keeps,
// or asks whether random decisions are consistent; after every change each
// subject's domains (and count, and marginals) are compared with the
// oracle's. Walk w draws from a generator seeded with (Seed, w).
func WalkModel(ctx context.Context, m *feature.Model, subjects []FeatureSubject, opt WalkOptions) (*ModelReport, error) {
	c, err := newOracleChecker(m, subjects)
	if err != nil {
		return nil, err
	}
	for w := range opt.Walks {
		c.walk = w
		if err := c.walkOnce(ctx, rand.New(rand.NewPCG(opt.Seed, uint64(w))), opt.Steps); err != nil {
			return c.rep, fmt.Errorf("crosscheck %s walk %d: %w", configurator.ModelName(m), w, err)
		}
		c.rep.Walks++
	}
	return c.rep, nil
}

// newOracleChecker is the checker of m's subjects against the oracle.
func newOracleChecker(m *feature.Model, subjects []FeatureSubject) (*modelChecker, error) {
	c, err := newModelChecker(m, subjects)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	c.oracle, err = featureOracle(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSubjects, err)
	}
	c.rep.OracleTime = time.Since(start)
	return c, nil
}

// ExhaustiveModel checks every set of decisions reachable by selecting,
// one after another, features that some remaining configuration selects
// (free or forced on), each set once: on a board, every placement
// reachable by legal clicks. Each set is checked in depth with every
// subject, through the session logic: the domains (and count, and
// marginals), and the explanation of every forced feature (its reasons,
// their minimality and parts, the room), against the oracle. It suits
// models with few configurations, such as the boards up to 6×6.
func ExhaustiveModel(ctx context.Context, m *feature.Model, subjects []FeatureSubject) (*ModelReport, error) {
	c, err := newOracleChecker(m, subjects)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var visit func(ds []configurator.Decision) error
	visit = func(ds []configurator.Decision) error {
		selected := make([]int, len(ds))
		for i, d := range ds {
			selected[i] = d.Feature
		}
		slices.Sort(selected)
		if key := fmt.Sprint(selected); seen[key] {
			return nil
		} else {
			seen[key] = true
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		want := c.truth(ds)
		c.rep.Visited++
		for i := range c.subjects {
			s, err := c.session(ctx, i, ds, want)
			if err != nil {
				return err
			}
			for f := range c.m.Features {
				st := wantState(want, ds, f)
				if s != nil && (st == configurator.ForcedOn || st == configurator.ForcedOff) && s.Domains().States[f] == st {
					if err := c.checkExplain(ctx, i, s, f, want); err != nil {
						return err
					}
				}
			}
		}
		c.settle()
		for f := range c.m.Features {
			if st := wantState(want, ds, f); st == configurator.Open || st == configurator.ForcedOn {
				if err := visit(append(slices.Clone(ds), configurator.Decision{Feature: f, Select: true})); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := visit(nil); err != nil {
		return c.rep, fmt.Errorf("crosscheck %s: %w", configurator.ModelName(m), err)
	}
	return c.rep, nil
}

// modelWalker is the state of one walk: the decisions the oracle holds
// true and every subject's session on them (nil when a subject's session
// could not be opened or has dropped out after a disagreement).
type modelWalker struct {
	*modelChecker
	ds       []configurator.Decision
	want     *oracle.FeatureAnalysis
	sessions []*configurator.FeatureSession
}

func (c *modelChecker) walkOnce(ctx context.Context, rng *rand.Rand, steps int) error {
	w := &modelWalker{modelChecker: c, sessions: make([]*configurator.FeatureSession, len(c.subjects))}
	c.step = 0
	w.want = c.truth(nil)
	for i := range c.subjects {
		if err := w.reopen(ctx, i); err != nil {
			return err
		}
	}
	c.settle()
	if w.want.Configurations == 0 {
		return nil // a model without configurations: its conflict is checked
	}
	for step := 1; step <= steps; step++ {
		c.step = step
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.move(ctx, rng); err != nil {
			return err
		}
		c.rep.Steps++
		c.settle()
	}
	return nil
}

// reopen gives subject i a fresh session on the walk's decisions.
func (w *modelWalker) reopen(ctx context.Context, i int) error {
	s, err := w.session(ctx, i, w.ds, w.want)
	w.sessions[i] = s
	return err
}

// featuresIn lists the features the oracle puts in state st under the
// walk's decisions.
func (w *modelWalker) featuresIn(st configurator.FeatureState) []int {
	var out []int
	for f := range w.m.Features {
		if wantState(w.want, w.ds, f) == st {
			out = append(out, f)
		}
	}
	return out
}

func pick(rng *rand.Rand, xs []int) (int, bool) {
	if len(xs) == 0 {
		return 0, false
	}
	return xs[rng.IntN(len(xs))], true
}

// move takes one random step of the walk.
func (w *modelWalker) move(ctx context.Context, rng *rand.Rand) error {
	open := w.featuresIn(configurator.Open)
	forced := append(w.featuresIn(configurator.ForcedOn), w.featuresIn(configurator.ForcedOff)...)
	switch p := rng.IntN(100); {
	case p < 35 && len(open) > 0:
		f, _ := pick(rng, open)
		d := configurator.Decision{Feature: f, Select: rng.IntN(2) == 0}
		return w.apply(ctx, append(slices.Clone(w.ds), d), func(s *configurator.FeatureSession) error { return s.Decide(ctx, d) })
	case p < 42:
		w.refusals(ctx, rng, forced)
		return nil
	case p < 57 && len(w.ds) > 0:
		d := w.ds[rng.IntN(len(w.ds))]
		ds := slices.DeleteFunc(slices.Clone(w.ds), func(x configurator.Decision) bool { return x == d })
		return w.apply(ctx, ds, func(s *configurator.FeatureSession) error { return s.Undo(ctx, d.Feature) })
	case p < 72:
		pool := forced
		if rng.IntN(10) == 0 {
			pool = append(slices.Clone(pool), open...)
		}
		f, ok := pick(rng, pool)
		if !ok {
			return nil
		}
		for i, s := range w.sessions {
			if s != nil && s.Domains().States[f] == wantState(w.want, w.ds, f) {
				if err := w.checkExplain(ctx, i, s, f, w.want); err != nil {
					return err
				}
			}
		}
		return nil
	case p < 82:
		return w.makeRoom(ctx, rng, forced)
	case p < 87:
		return w.complete(ctx, rng)
	case p < 93:
		return w.conflicts(ctx, rng, forced)
	default:
		return w.probe(ctx, rng)
	}
}

// apply performs the same change on every session and checks that each
// now holds ds and classifies the features as the oracle does. A session
// that fails is reported and reopened on ds, as is one dropped before.
func (w *modelWalker) apply(ctx context.Context, ds []configurator.Decision, change func(*configurator.FeatureSession) error) error {
	before := w.ds
	w.ds, w.want = ds, w.truth(ds)
	for i, s := range w.sessions {
		if s != nil {
			var err error
			w.timed(i, func() { err = change(s) })
			if stop(ctx, err) {
				return err
			}
			if err == nil && slices.Equal(s.Decisions(), ds) {
				w.compareDomains(i, ds, s.Domains(), w.wantDomains(w.want, ds))
				w.checkMarginals(ctx, i, s, w.want)
				continue
			}
			w.disagree(i, before, "decide", -1, fmt.Sprintf("[%s], error %v", configurator.FormatDecisions(w.m, s.Decisions()), err), "["+configurator.FormatDecisions(w.m, ds)+"]")
		}
		if err := w.reopen(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// refusals decides a forced feature the other way, which must fail with
// ErrExcluded, and a decided feature again, which must fail with
// ErrDecided; both leave the session unchanged.
func (w *modelWalker) refusals(ctx context.Context, rng *rand.Rand, forced []int) {
	var tries []configurator.Decision
	var wants []error
	if f, ok := pick(rng, forced); ok {
		tries = append(tries, configurator.Decision{Feature: f, Select: wantState(w.want, w.ds, f) == configurator.ForcedOff})
		wants = append(wants, configurator.ErrExcluded)
	}
	if len(w.ds) > 0 {
		d := w.ds[rng.IntN(len(w.ds))]
		tries = append(tries, configurator.Decision{Feature: d.Feature, Select: rng.IntN(2) == 0})
		wants = append(wants, configurator.ErrDecided)
	}
	for i, s := range w.sessions {
		if s == nil {
			continue
		}
		for k, d := range tries {
			if !errors.Is(wants[k], configurator.ErrDecided) && s.Domains().States[d.Feature] != wantState(w.want, w.ds, d.Feature) {
				continue // reported by the domains
			}
			domains := s.Domains()
			var err error
			w.timed(i, func() { err = s.Decide(ctx, d) })
			if !errors.Is(err, wants[k]) {
				w.disagree(i, w.ds, "decide", d.Feature, fmt.Sprintf("error %v", err), fmt.Sprintf("error %v", wants[k]))
			}
			if !slices.Equal(s.Decisions(), w.ds) || s.Domains() != domains {
				w.disagree(i, w.ds, "decide", d.Feature, "session changed", "unchanged")
				w.sessions[i] = nil
				break
			}
		}
	}
}

// makeRoom asks every session for the fewest decisions to undo to free a
// forced feature, checks each answer, and half the time takes the first
// subject's (verified) advice.
func (w *modelWalker) makeRoom(ctx context.Context, rng *rand.Rand, forced []int) error {
	f, ok := pick(rng, forced)
	if !ok {
		return nil
	}
	other := wantState(w.want, w.ds, f) == configurator.ForcedOff
	var advice []configurator.Decision
	for i, s := range w.sessions {
		if s == nil || s.Domains().States[f] != wantState(w.want, w.ds, f) {
			continue
		}
		var room []configurator.Decision
		var err error
		w.timed(i, func() { room, err = s.MakeRoom(ctx, f) })
		if stop(ctx, err) {
			return err
		}
		core := errors.Is(err, configurator.ErrNoSolution)
		if err != nil && !core {
			w.disagree(i, w.ds, "make-room", f, "error: "+err.Error(), "decisions to undo")
			continue
		}
		before := w.rep.Count + len(w.found)
		w.checkRoom(i, w.ds, f, other, core, room, "make-room")
		if advice == nil && w.rep.Count+len(w.found) == before {
			advice = room
		}
	}
	if len(advice) > 0 && rng.IntN(2) == 0 {
		ds := slices.DeleteFunc(slices.Clone(w.ds), func(d configurator.Decision) bool { return slices.Contains(advice, d) })
		features := make([]int, len(advice))
		for k, d := range advice {
			features[k] = d.Feature
		}
		return w.apply(ctx, ds, func(s *configurator.FeatureSession) error { return s.Undo(ctx, features...) })
	}
	return nil
}

// complete asks every session for a configuration keeping its decisions,
// and checks each: one from Complete, then one by each way of Finish (but
// Uniform on a subject that does not sample, or refuses a space too large
// to sample), whose fewest and most must
// select as few and as many features as the oracle's.
func (w *modelWalker) complete(ctx context.Context, rng *rand.Rand) error {
	var fewest, most int
	w.ask(func() { fewest, most, _ = w.oracle.Selections(odecisions(w.ds)) })
	for i, s := range w.sessions {
		if s == nil {
			continue
		}
		var config []bool
		var err error
		w.timed(i, func() { config, err = s.Complete(ctx, rand.New(rand.NewPCG(rng.Uint64(), 0))) })
		if stop(ctx, err) {
			return err
		}
		if !w.keeps(w.ds, config, err) {
			w.disagree(i, w.ds, "complete", -1, fmt.Sprintf("%v, error %v", config, err), "a configuration keeping the decisions")
		}
		for _, how := range []configurator.How{configurator.Uniform, configurator.Fewest, configurator.Most} {
			var c *configurator.Completion
			w.timed(i, func() { c, err = s.Finish(ctx, how, rand.New(rand.NewPCG(rng.Uint64(), 0))) })
			if stop(ctx, err) {
				return err
			}
			if how == configurator.Uniform && (errors.Is(err, configurator.ErrNoSampler) || errors.Is(err, configurator.ErrTooLarge)) {
				continue // no sampler, or a diagram too large for its exact counts
			}
			check := "complete " + how.String()
			switch {
			case err != nil || !w.keeps(w.ds, c.Selected, nil):
				w.disagree(i, w.ds, check, -1, fmt.Sprintf("%v, error %v", c, err), "a configuration keeping the decisions")
			case how == configurator.Fewest && (!c.Exact || c.Selections() != fewest):
				w.disagree(i, w.ds, check, -1, fmt.Sprintf("%d selected, exact %v", c.Selections(), c.Exact), fmt.Sprintf("%d selected, exact", fewest))
			case how == configurator.Most && (!c.Exact || c.Selections() != most):
				w.disagree(i, w.ds, check, -1, fmt.Sprintf("%d selected, exact %v", c.Selections(), c.Exact), fmt.Sprintf("%d selected, exact", most))
			}
		}
	}
	return nil
}

// keeps reports whether config, which came with err, is a configuration
// that keeps the decisions ds.
func (w *modelWalker) keeps(ds []configurator.Decision, config []bool, err error) bool {
	var ok bool
	w.ask(func() { ok = err == nil && w.oracle.IsConfiguration(config) })
	for _, d := range ds {
		ok = ok && config[d.Feature] == d.Select
	}
	return ok
}

// conflicts opens a session on the walk's decisions and a forced feature
// decided the other way (or random decisions, when none is forced), which
// no configuration keeps when the oracle says so, and checks the
// conflict each subject reports.
func (w *modelWalker) conflicts(ctx context.Context, rng *rand.Rand, forced []int) error {
	ds := slices.Clone(w.ds)
	if f, ok := pick(rng, forced); ok {
		ds = append(ds, configurator.Decision{Feature: f, Select: wantState(w.want, w.ds, f) == configurator.ForcedOff})
	} else {
		ds = w.randomDecisions(rng)
	}
	want := w.truth(ds)
	for i := range w.subjects {
		if _, err := w.session(ctx, i, ds, want); err != nil {
			return err
		}
	}
	return nil
}

// randomDecisions draws up to four decisions on distinct features.
func (w *modelWalker) randomDecisions(rng *rand.Rand) []configurator.Decision {
	var ds []configurator.Decision
	for range 1 + rng.IntN(4) {
		f := rng.IntN(len(w.m.Features))
		if !slices.ContainsFunc(ds, func(d configurator.Decision) bool { return d.Feature == f }) {
			ds = append(ds, configurator.Decision{Feature: f, Select: rng.IntN(2) == 0})
		}
	}
	return ds
}

// probe asks every space whether random decisions are consistent, and for
// a configuration keeping them.
func (w *modelWalker) probe(ctx context.Context, rng *rand.Rand) error {
	ds := w.randomDecisions(rng)
	var want bool
	w.ask(func() { want = w.oracle.Consistent(odecisions(ds)) })
	for i, sub := range w.subjects {
		var got bool
		var err error
		w.timed(i, func() { got, err = sub.Space.Consistent(ctx, ds) })
		if stop(ctx, err) {
			return err
		}
		if err != nil || got != want {
			w.disagree(i, ds, "consistent", -1, fmt.Sprintf("%v, error %v", got, err), fmt.Sprint(want))
		}
		var config []bool
		w.timed(i, func() { config, err = sub.Space.Configuration(ctx, ds) })
		if stop(ctx, err) {
			return err
		}
		switch {
		case !want && !errors.Is(err, configurator.ErrNoSolution):
			w.disagree(i, ds, "configuration", -1, fmt.Sprintf("%v, error %v", config, err), "ErrNoSolution")
		case want && err != nil:
			w.disagree(i, ds, "configuration", -1, "error: "+err.Error(), "a configuration")
		case want && !w.keeps(ds, config, nil):
			w.disagree(i, ds, "configuration", -1, fmt.Sprint(config), "a configuration keeping the decisions")
		}
	}
	return nil
}
