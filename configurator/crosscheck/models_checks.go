package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/oracle"
)

// wantDomains is the oracle's analysis want of ds as domains, to compare
// a subject's with (compareDomains).
func (c *modelChecker) wantDomains(want *oracle.FeatureAnalysis, ds []configurator.Decision) *configurator.Domains {
	d := &configurator.Domains{States: make([]configurator.FeatureState, len(c.m.Features)), Configurations: big.NewInt(int64(want.Configurations))}
	for f := range d.States {
		d.States[f] = wantState(want, ds, f)
	}
	return d
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
	c.compareDomains(i, ds, s.Domains(), c.wantDomains(want, ds))
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
	if _, ok := positions(ds, cf.Decisions); !ok {
		c.disagree(i, ds, "conflict", -1, got, "decisions of the session, in their order, each once")
		return
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
		if attack := c.attack(f, st, r); r.Attack != attack {
			c.disagree(i, ds, "explain", f, kind(r.Attack)+" ["+configurator.FormatDecisions(c.m, r.Decisions)+"]", kind(attack))
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

// attack reports whether reason r of feature f, in state st, is an
// attack on a board: one queen that attacks the square f, blocked, by the
// oracle's own rule.
func (c *modelChecker) attack(f int, st configurator.FeatureState, r configurator.FeatureReason) bool {
	if c.board == nil || st != configurator.ForcedOff || len(r.Decisions) != 1 || !r.Decisions[0].Select {
		return false
	}
	return oracle.Attacks(ocell(c.board.Cell(r.Decisions[0].Feature)), ocell(c.board.Cell(f)))
}

// kind names a reason's kind as the board's words do: an attack or not.
func kind(attack bool) string {
	if attack {
		return "attack"
	}
	return "no attack"
}

// reasonProblem checks one reason: decisions of the session, each once,
// that force the feature (no configuration keeping them gives it the
// value other), none of which can be dropped, with parts of the model that
// refute them with that value. It returns the reason as indices into ds
// (increasing), or what is wrong with it.
func (c *modelChecker) reasonProblem(ds []configurator.Decision, f int, other bool, r configurator.FeatureReason) ([]int, string) {
	set, ok := positions(ds, r.Decisions)
	if !ok {
		return nil, "decisions of the session, in their order, each once"
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

// positions returns the indices into ds of the decisions of sub, and
// whether they are decisions of ds, each once, in the order of ds.
func positions(ds, sub []configurator.Decision) ([]int, bool) {
	var set []int
	for _, d := range sub {
		j := slices.Index(ds, d)
		if j < 0 || len(set) > 0 && j <= set[len(set)-1] {
			return nil, false
		}
		set = append(set, j)
	}
	return set, true
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
	if _, ok := positions(ds, room); !ok {
		c.disagree(i, ds, check, f, got, "decisions of the session, in their order, each once")
		return
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
