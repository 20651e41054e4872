package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/oracle"
)

// FeatureSubject is a compiled feature model under test and the name it is
// reported by.
type FeatureSubject struct {
	Name  string
	Space configurator.FeatureSpace
}

// ModelDisagreement is one answer of a subject on a feature model that the
// reference (the oracle, or the first subject in Compare) contradicts.
type ModelDisagreement struct {
	Subject string
	Model   *feature.Model
	// Decisions are the decisions of the session, in the order made.
	Decisions []configurator.Decision
	// Check names the question: domains, count, marginals, decide,
	// undo, explain, make-room, conflict, complete, consistent,
	// configuration.
	Check string
	// Feature is the feature the question was about, -1 for none.
	Feature  int
	Got      string
	Want     string
	Walk     int
	Step     int
	Reported string // the reference's name
}

func (d ModelDisagreement) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, decisions [%s]: %s", d.Subject, configurator.ModelName(d.Model), configurator.FormatDecisions(d.Model, d.Decisions), d.Check)
	if d.Feature >= 0 {
		fmt.Fprintf(&b, " %q", d.Model.Features[d.Feature].Name)
	}
	fmt.Fprintf(&b, ": got %s, want %s", d.Got, d.Want)
	if d.Reported != "" {
		fmt.Fprintf(&b, " (as %s answers)", d.Reported)
	}
	fmt.Fprintf(&b, " (walk %d, step %d)", d.Walk, d.Step)
	return b.String()
}

// ModelReport is the outcome of a check of one feature model.
type ModelReport struct {
	Model *feature.Model
	// Subjects names the spaces checked; Time[i] is the time spent in
	// Subjects[i] (its answers and the session logic around them),
	// OracleTime the oracle's.
	Subjects   []string
	Time       []time.Duration
	OracleTime time.Duration
	// Walks and Steps count the walks and their steps.
	Walks, Steps int
	// Disagreements lists the first MaxKept disagreements; Count is how
	// many there were.
	Disagreements []ModelDisagreement
	Count         int
}

// Smallest returns the disagreement with the fewest decisions (the first
// found of those), and false when there is none.
func (r *ModelReport) Smallest() (ModelDisagreement, bool) {
	if len(r.Disagreements) == 0 {
		return ModelDisagreement{}, false
	}
	best := r.Disagreements[0]
	for _, d := range r.Disagreements[1:] {
		if len(d.Decisions) < len(best.Decisions) {
			best = d
		}
	}
	return best, true
}

// modelChecker holds what the check of one feature model needs.
type modelChecker struct {
	m        *feature.Model
	cnf      *feature.CNF // for the parts' clauses, made on first use
	oracle   *oracle.Features
	subjects []FeatureSubject
	rep      *ModelReport
	// found collects the disagreements of the step in progress.
	found      []ModelDisagreement
	walk, step int
}

func newModelChecker(m *feature.Model, subjects []FeatureSubject) (*modelChecker, error) {
	if len(subjects) == 0 {
		return nil, fmt.Errorf("%w: no subjects", ErrSubjects)
	}
	for _, s := range subjects {
		if !sameFeatures(s.Space.FeatureModel(), m) {
			return nil, fmt.Errorf("%w: %s was compiled from another model", ErrSubjects, s.Name)
		}
	}
	rep := &ModelReport{Model: m, Time: make([]time.Duration, len(subjects))}
	for _, s := range subjects {
		rep.Subjects = append(rep.Subjects, s.Name)
	}
	return &modelChecker{m: m, subjects: subjects, rep: rep, walk: -1, step: -1}, nil
}

// disagree records a disagreement of subject i under decisions ds.
func (c *modelChecker) disagree(i int, ds []configurator.Decision, check string, f int, got, want string) {
	c.found = append(c.found, ModelDisagreement{
		Subject: c.subjects[i].Name, Model: c.m, Decisions: slices.Clone(ds),
		Check: check, Feature: f, Got: got, Want: want, Walk: c.walk, Step: c.step,
	})
}

// settle moves the disagreements of the step into the report.
func (c *modelChecker) settle() {
	c.rep.Count += len(c.found)
	for _, d := range c.found {
		if len(c.rep.Disagreements) < MaxKept {
			c.rep.Disagreements = append(c.rep.Disagreements, d)
		}
	}
	c.found = nil
}

func (c *modelChecker) timed(i int, f func()) {
	start := time.Now()
	f()
	c.rep.Time[i] += time.Since(start)
}

func (c *modelChecker) ask(f func()) {
	start := time.Now()
	f()
	c.rep.OracleTime += time.Since(start)
}

func odecisions(ds []configurator.Decision) []oracle.Decision {
	out := make([]oracle.Decision, len(ds))
	for i, d := range ds {
		out[i] = oracle.Decision{Feature: d.Feature, Select: d.Select}
	}
	return out
}

// truth is the oracle's analysis of ds.
func (c *modelChecker) truth(ds []configurator.Decision) (a *oracle.FeatureAnalysis) {
	c.ask(func() { a = c.oracle.Analyze(odecisions(ds)) })
	return a
}

// wantState is the state the oracle's analysis gives feature f under ds.
func wantState(a *oracle.FeatureAnalysis, ds []configurator.Decision, f int) configurator.FeatureState {
	for _, d := range ds {
		if d.Feature == f {
			if d.Select {
				return configurator.Selected
			}
			return configurator.Deselected
		}
	}
	switch {
	case a.On[f] && a.Off[f]:
		return configurator.Open
	case a.On[f]:
		return configurator.ForcedOn
	}
	return configurator.ForcedOff
}

// compareDomains checks a subject's domains under ds against the oracle's
// analysis.
func (c *modelChecker) compareDomains(i int, ds []configurator.Decision, got *configurator.Domains, want *oracle.FeatureAnalysis) {
	if len(got.States) != len(c.m.Features) {
		c.disagree(i, ds, "domains", -1, fmt.Sprintf("%d states", len(got.States)), fmt.Sprintf("%d", len(c.m.Features)))
		return
	}
	for f, st := range got.States {
		if w := wantState(want, ds, f); st != w {
			c.disagree(i, ds, "domains", f, st.String(), w.String())
		}
	}
	if got.Configurations != nil {
		g, w := got.Configurations, int64(want.Configurations)
		switch {
		case got.AtLeast && (!g.IsInt64() || g.Int64() > w):
			c.disagree(i, ds, "count", -1, "at least "+g.String(), fmt.Sprint(w))
		case !got.AtLeast && (!g.IsInt64() || g.Int64() != w):
			c.disagree(i, ds, "count", -1, g.String(), fmt.Sprint(w))
		}
	}
}

// session opens subject i's session on ds and checks it: its domains when
// some configuration keeps ds, its *Conflict otherwise. It returns nil
// when the session cannot be opened (reported) or the context is done
// (err).
func (c *modelChecker) session(ctx context.Context, i int, ds []configurator.Decision, want *oracle.FeatureAnalysis) (*configurator.FeatureSession, error) {
	var s *configurator.FeatureSession
	var err error
	c.timed(i, func() { s, err = configurator.NewFeatureSession(ctx, c.subjects[i].Space, ds) })
	if stop(ctx, err) {
		return nil, err
	}
	if want.Configurations == 0 {
		c.checkConflict(i, ds, err)
		return nil, nil
	}
	if err != nil {
		c.disagree(i, ds, "domains", -1, "error: "+err.Error(), fmt.Sprintf("%d configurations", want.Configurations))
		return nil, nil
	}
	c.compareDomains(i, ds, s.Domains(), want)
	c.checkMarginals(ctx, i, s, want)
	return s, nil
}

// checkMarginals compares a marginaler's counts per feature with the
// oracle's.
func (c *modelChecker) checkMarginals(ctx context.Context, i int, s *configurator.FeatureSession, want *oracle.FeatureAnalysis) {
	var counts []*big.Int
	var err error
	c.timed(i, func() { counts, err = s.Marginals(ctx) })
	if counts == nil && err == nil {
		return
	}
	ds := s.Decisions()
	if err != nil {
		c.disagree(i, ds, "marginals", -1, "error: "+err.Error(), "a count per feature")
		return
	}
	var configs [][]bool
	c.ask(func() { configs = c.oracle.Configurations(odecisions(ds)) })
	for f := range c.m.Features {
		w := 0
		for _, cf := range configs {
			if cf[f] {
				w++
			}
		}
		if f >= len(counts) || counts[f] == nil || !counts[f].IsInt64() || counts[f].Int64() != int64(w) {
			c.disagree(i, ds, "marginals", f, fmt.Sprint(counts[min(f, len(counts)-1)]), fmt.Sprint(w))
			return
		}
	}
}

// checkConflict checks the error of a session on decisions ds that no
// configuration keeps: a *Conflict naming a minimal conflicting subset of
// ds, and parts of the model that refute it.
func (c *modelChecker) checkConflict(i int, ds []configurator.Decision, err error) {
	var cf *configurator.Conflict
	if !errors.As(err, &cf) || !errors.Is(err, configurator.ErrNoSolution) {
		c.disagree(i, ds, "conflict", -1, fmt.Sprintf("error %v", err), "a *Conflict wrapping ErrNoSolution")
		return
	}
	got := "[" + configurator.FormatDecisions(c.m, cf.Decisions) + "]"
	last := -1
	for _, d := range cf.Decisions {
		j := slices.Index(ds, d)
		if j <= last {
			c.disagree(i, ds, "conflict", -1, got, "decisions of the session, in their order, each once")
			return
		}
		last = j
	}
	var consistent bool
	c.ask(func() { consistent = c.oracle.Consistent(odecisions(cf.Decisions)) })
	if consistent {
		c.disagree(i, ds, "conflict", -1, got, "decisions no configuration keeps")
		return
	}
	for j := range cf.Decisions {
		rest := slices.Delete(slices.Clone(cf.Decisions), j, j+1)
		c.ask(func() { consistent = c.oracle.Consistent(odecisions(rest)) })
		if !consistent {
			c.disagree(i, ds, "conflict", -1, got, fmt.Sprintf("a minimal set (without %s the rest conflict)", configurator.FormatDecisions(c.m, cf.Decisions[j:j+1])))
			return
		}
	}
	_, corer := c.subjects[i].Space.(configurator.FeatureCorer)
	minimal := cf.Proof == nil || len(cf.Decisions) == 0 && corer
	if problem := c.partsProblem(cf.Decisions, minimal, cf.Constraints); problem != "" {
		c.disagree(i, ds, "conflict", -1, fmt.Sprintf("%s, parts %v", got, cf.Constraints), problem)
	}
}

// partsMaxFeatures is the most features whose parts the check judges.
const partsMaxFeatures = 16

// partsProblem says what is wrong with the parts of the model given as
// what refutes decisions ds, or "" when they are right: the clauses that
// stand for the parts (feature.Model.CNF, each tagged with its part) admit
// no assignment keeping ds, and, when the parts are said to be a minimal
// set, none can be dropped. The parts are judged by their clauses, as the
// backends and the proofs read them; that the clauses mean what the model
// says is the CNF's own tests' concern, and the domains', which the oracle
// checks with the model's meaning.
func (c *modelChecker) partsProblem(ds []configurator.Decision, minimal bool, parts []feature.Origin) string {
	if parts == nil || len(c.m.Features) > partsMaxFeatures {
		return ""
	}
	var admits bool
	c.ask(func() { admits = c.admits(parts, ds) })
	if admits {
		return "parts of the model whose clauses admit no assignment keeping the decisions"
	}
	if !minimal {
		return ""
	}
	for j := range parts {
		rest := slices.Delete(slices.Clone(parts), j, j+1)
		c.ask(func() { admits = c.admits(rest, ds) })
		if !admits {
			return fmt.Sprintf("a minimal set of parts (without %s the rest still refute)", c.m.Describe(parts[j]))
		}
	}
	return ""
}

// admits reports whether some assignment of the CNF's variables satisfies
// every clause of the parts and keeps the decisions, by a search of its
// own (unit propagation and case splits), apart from the propagator and
// the solvers under test.
func (c *modelChecker) admits(parts []feature.Origin, ds []configurator.Decision) bool {
	if c.cnf == nil {
		c.cnf = c.m.CNF()
	}
	var clauses [][]feature.Lit
	for i := range c.cnf.Len() {
		if slices.Contains(parts, c.cnf.Origin(i)) {
			clauses = append(clauses, c.cnf.Clause(i))
		}
	}
	for _, d := range ds {
		clauses = append(clauses, []feature.Lit{d.Lit()})
	}
	return satisfiable(clauses, make([]int8, c.cnf.Vars+1))
}

// satisfiable decides the clauses by unit propagation and case splits;
// val[v] is 1, -1 or 0 (open) per variable, and is restored on return.
func satisfiable(clauses [][]feature.Lit, val []int8) bool {
	var set []int
	defer func() {
		for _, v := range set {
			val[v] = 0
		}
	}()
	value := func(l feature.Lit) int8 {
		if l < 0 {
			return -val[-l]
		}
		return val[l]
	}
	for changed := true; changed; {
		changed = false
		for _, cl := range clauses {
			open, last := 0, feature.Lit(0)
			sat := false
			for _, l := range cl {
				switch value(l) {
				case 1:
					sat = true
				case 0:
					open, last = open+1, l
				}
			}
			switch {
			case sat:
			case open == 0:
				return false
			case open == 1:
				v := last.Var()
				val[v] = 1
				if last < 0 {
					val[v] = -1
				}
				set, changed = append(set, v), true
			}
		}
	}
	for _, cl := range clauses {
		for _, l := range cl {
			if v := l.Var(); val[v] == 0 {
				for _, x := range []int8{1, -1} {
					val[v] = x
					if satisfiable(clauses, val) {
						val[v] = 0
						return true
					}
				}
				val[v] = 0
				return false
			}
		}
	}
	return true
}

// checkExplain asks subject i's session why feature f is as the oracle
// says, and checks the answer: for a forced feature every reason forces it
// and is minimal, the list is every minimal reason when it says so, the
// parts of each refute it, the room is a fewest undoing that frees it;
// for any other feature, ErrNotForced.
func (c *modelChecker) checkExplain(ctx context.Context, i int, s *configurator.FeatureSession, f int, want *oracle.FeatureAnalysis) error {
	ds := s.Decisions()
	var e *configurator.FeatureExplanation
	var err error
	c.timed(i, func() { e, err = s.Explain(ctx, f) })
	if stop(ctx, err) {
		return err
	}
	st := wantState(want, ds, f)
	if st != configurator.ForcedOn && st != configurator.ForcedOff {
		if !errors.Is(err, configurator.ErrNotForced) {
			c.disagree(i, ds, "explain", f, fmt.Sprintf("%v, error %v", e, err), "ErrNotForced")
		}
		return nil
	}
	if err != nil {
		c.disagree(i, ds, "explain", f, "error: "+err.Error(), "an explanation")
		return nil
	}
	other := st == configurator.ForcedOff // the value no configuration gives f
	od := odecisions(ds)
	var minimal [][]int
	var merr error
	c.ask(func() { minimal, merr = c.oracle.MinimalReasons(od, f, other) })
	core := merr == nil && len(minimal) == 1 && len(minimal[0]) == 0
	switch {
	case e.Feature != f || e.State != st || len(e.Reasons) == 0:
		c.disagree(i, ds, "explain", f, fmt.Sprintf("feature %d %v, %d reasons", e.Feature, e.State, len(e.Reasons)), fmt.Sprintf("%v with a reason", st))
		return nil
	case merr == nil && e.Core != core:
		c.disagree(i, ds, "explain", f, fmt.Sprintf("core %v", e.Core), fmt.Sprintf("core %v", core))
		return nil
	}
	var got [][]int
	for _, r := range e.Reasons {
		set, problem := c.reasonProblem(ds, f, other, r)
		if problem != "" {
			c.disagree(i, ds, "explain", f, "["+configurator.FormatDecisions(c.m, r.Decisions)+"]", problem)
			return nil
		}
		got = append(got, set)
	}
	if merr == nil && !e.More && !sameSets(got, minimal) {
		c.disagree(i, ds, "explain", f, fmt.Sprintf("reasons %v (complete)", got), fmt.Sprintf("every minimal reason: %v", minimal))
		return nil
	}
	if merr == nil && e.More && len(got) >= len(minimal) {
		c.disagree(i, ds, "explain", f, fmt.Sprintf("%d reasons and more", len(got)), fmt.Sprintf("%d reasons in all", len(minimal)))
		return nil
	}
	c.checkRoom(i, ds, f, other, e.Core, e.Room, "explain")
	return nil
}

// reasonProblem checks one reason: decisions of the session, each once,
// that force the feature (no configuration keeping them gives it the
// value other), none of which can be dropped, with parts of the model that
// refute them with that value. It returns the reason as indices into ds
// (increasing), or what is wrong with it.
func (c *modelChecker) reasonProblem(ds []configurator.Decision, f int, other bool, r configurator.FeatureReason) ([]int, string) {
	var set []int
	for _, d := range r.Decisions {
		j := slices.Index(ds, d)
		if j < 0 || slices.Contains(set, j) {
			return nil, "decisions of the session, each once"
		}
		set = append(set, j)
	}
	if !slices.IsSorted(set) {
		return nil, "decisions in the order they were made"
	}
	od := odecisions(r.Decisions)
	var forces bool
	c.ask(func() { forces = c.oracle.Forces(od, f, other) })
	if !forces {
		return nil, "decisions that alone force the feature"
	}
	for j := range od {
		rest := slices.Delete(slices.Clone(od), j, j+1)
		c.ask(func() { forces = c.oracle.Forces(rest, f, other) })
		if forces {
			return nil, fmt.Sprintf("a minimal reason (without %s the rest still force it)", configurator.FormatDecisions(c.m, r.Decisions[j:j+1]))
		}
	}
	with := append(slices.Clone(r.Decisions), configurator.Decision{Feature: f, Select: other})
	if problem := c.partsProblem(with, r.Proof == nil, r.Constraints); problem != "" {
		return nil, problem
	}
	return set, ""
}

// sameSets reports whether two lists of sets hold the same sets, in any
// order.
func sameSets(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for _, s := range a {
		if !slices.ContainsFunc(b, func(t []int) bool { return slices.Equal(s, t) }) {
			return false
		}
	}
	return true
}

// checkRoom checks a room (decisions to undo so that feature f can take
// the value other): decisions of the session in their order, each once,
// whose undoing frees f, as few as any such undoing; nil exactly when the
// model alone forces f.
func (c *modelChecker) checkRoom(i int, ds []configurator.Decision, f int, other, core bool, room []configurator.Decision, check string) {
	got := "[" + configurator.FormatDecisions(c.m, room) + "]"
	od := odecisions(ds)
	var k int
	var possible bool
	c.ask(func() { k, possible = c.oracle.MinUndo(od, f, other) })
	if !possible {
		if room != nil || !core {
			c.disagree(i, ds, check, f, got+fmt.Sprintf(", core %v", core), "no room: the model alone forces the feature")
		}
		return
	}
	last := -1
	for _, d := range room {
		j := slices.Index(ds, d)
		if j <= last {
			c.disagree(i, ds, check, f, got, "decisions of the session, in their order, each once")
			return
		}
		last = j
	}
	kept := slices.DeleteFunc(slices.Clone(ds), func(d configurator.Decision) bool { return slices.Contains(room, d) })
	var freed bool
	c.ask(func() { freed = !c.oracle.Forces(odecisions(kept), f, other) })
	switch {
	case !freed:
		c.disagree(i, ds, check, f, got, "an undoing that frees the feature")
	case len(room) != k:
		c.disagree(i, ds, check, f, got, fmt.Sprintf("a fewest undoing, %d decisions", k))
	}
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
	for w := range opt.Walks {
		c.walk = w
		if err := c.walkOnce(ctx, rand.New(rand.NewPCG(opt.Seed, uint64(w))), opt.Steps); err != nil {
			return c.rep, fmt.Errorf("crosscheck %s walk %d: %w", configurator.ModelName(m), w, err)
		}
		c.rep.Walks++
	}
	return c.rep, nil
}

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

// sameFeatures reports whether a and b have the same features, by name in
// order: a subject compiled from m, or from a model equal to it (a board's
// space makes its own feature model).
func sameFeatures(a, b *feature.Model) bool {
	if a == b {
		return true
	}
	if len(a.Features) != len(b.Features) {
		return false
	}
	for i := range a.Features {
		if a.Features[i].Name != b.Features[i].Name {
			return false
		}
	}
	return true
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
// that fails is reported and reopened on ds.
func (w *modelWalker) apply(ctx context.Context, ds []configurator.Decision, change func(*configurator.FeatureSession) error) error {
	before := w.ds
	w.ds, w.want = ds, w.truth(ds)
	for i, s := range w.sessions {
		if s == nil {
			if err := w.reopen(ctx, i); err != nil {
				return err
			}
			continue
		}
		var err error
		w.timed(i, func() { err = change(s) })
		if stop(ctx, err) {
			return err
		}
		if err != nil || !slices.Equal(s.Decisions(), ds) {
			w.disagree(i, before, "decide", -1, fmt.Sprintf("[%s], error %v", configurator.FormatDecisions(w.m, s.Decisions()), err), "["+configurator.FormatDecisions(w.m, ds)+"]")
			if err := w.reopen(ctx, i); err != nil {
				return err
			}
			continue
		}
		w.compareDomains(i, ds, s.Domains(), w.want)
		w.checkMarginals(ctx, i, s, w.want)
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
// and checks each.
func (w *modelWalker) complete(ctx context.Context, rng *rand.Rand) error {
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
		var ok bool
		w.ask(func() { ok = err == nil && w.oracle.IsConfiguration(config) })
		for _, d := range w.ds {
			ok = ok && config[d.Feature] == d.Select
		}
		if !ok {
			w.disagree(i, w.ds, "complete", -1, fmt.Sprintf("%v, error %v", config, err), "a configuration keeping the decisions")
		}
	}
	return nil
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
		case want:
			ok := w.oracle.IsConfiguration(config)
			for _, d := range ds {
				ok = ok && config[d.Feature] == d.Select
			}
			if !ok {
				w.disagree(i, ds, "configuration", -1, fmt.Sprint(config), "a configuration keeping the decisions")
			}
		}
	}
	return nil
}

// CompareModel takes seeded random walks of decisions on a feature model
// of any size and checks every subject's domains against the first
// subject's, the reference, after every decision: the state of every
// feature, and the counts where both count. Each step decides a feature
// the reference shows open, the value drawn at random, through the
// session logic. It suits models beyond the oracle's reach, where two
// backends check each other. Walk w draws from a generator seeded with
// (Seed, w).
func CompareModel(ctx context.Context, m *feature.Model, subjects []FeatureSubject, opt WalkOptions) (*ModelReport, error) {
	c, err := newModelChecker(m, subjects)
	if err != nil {
		return nil, err
	}
	for w := range opt.Walks {
		c.walk = w
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(w)))
		sessions := make([]*configurator.FeatureSession, len(subjects))
		var ds []configurator.Decision
		for step := 0; step <= opt.Steps; step++ {
			c.step = step
			if err := ctx.Err(); err != nil {
				return c.rep, err
			}
			var next *configurator.Decision
			if step > 0 {
				ref := sessions[0]
				if ref == nil {
					break
				}
				open := ref.Domains().In(configurator.Open)
				f, ok := pick(rng, open)
				if !ok {
					break
				}
				next = &configurator.Decision{Feature: f, Select: rng.IntN(2) == 0}
				ds = append(ds, *next)
			}
			for i, sub := range subjects {
				var err error
				c.timed(i, func() {
					if sessions[i] == nil || next == nil {
						sessions[i], err = configurator.NewFeatureSession(ctx, sub.Space, ds)
					} else {
						err = sessions[i].Decide(ctx, *next)
					}
				})
				if stop(ctx, err) {
					return c.rep, err
				}
				if err != nil {
					c.disagree(i, ds, "domains", -1, "error: "+err.Error(), "domains")
					sessions[i] = nil
				}
			}
			if sessions[0] == nil {
				c.settle()
				break
			}
			ref := sessions[0].Domains()
			for i, s := range sessions[1:] {
				if s != nil {
					c.compareWith(i+1, ds, s.Domains(), ref)
				}
			}
			if step > 0 {
				c.rep.Steps++
			}
			c.settle()
		}
		c.rep.Walks++
	}
	return c.rep, nil
}

// compareWith checks subject i's domains under ds against the reference's.
func (c *modelChecker) compareWith(i int, ds []configurator.Decision, got, ref *configurator.Domains) {
	n := len(c.found)
	for f, st := range got.States {
		if st != ref.States[f] {
			c.disagree(i, ds, "domains", f, st.String(), ref.States[f].String())
		}
	}
	if g, r := got.Configurations, ref.Configurations; g != nil && r != nil {
		switch {
		case !got.AtLeast && !ref.AtLeast && g.Cmp(r) != 0,
			got.AtLeast && !ref.AtLeast && g.Cmp(r) > 0,
			!got.AtLeast && ref.AtLeast && r.Cmp(g) > 0:
			c.disagree(i, ds, "count", -1, countText(got), countText(ref))
		}
	}
	for k := n; k < len(c.found); k++ {
		c.found[k].Reported = c.subjects[0].Name
	}
}

// countText says a count in words: "123", "at least 1000".
func countText(d *configurator.Domains) string {
	if d.AtLeast {
		return "at least " + d.Configurations.String()
	}
	return d.Configurations.String()
}
