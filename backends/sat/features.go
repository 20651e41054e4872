package sat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// The facets of a feature model's space.
var (
	_ configurator.ModelCompiler = (*Backend)(nil)
	_ configurator.Admitter      = (*featureSpace)(nil)
	_ configurator.FeatureCorer  = (*featureSpace)(nil)
	_ configurator.Sizer         = (*featureSpace)(nil)
)

// featureSpace is a compiled feature model: the skeleton's space (see
// featureEngine for how it decides), admitted through its Backend.
type featureSpace struct {
	*satbase.FeatureSpace
	b *Backend
}

// Admit waits for a request's slot on the space's Backend: see the
// package doc's Admission.
func (sp *featureSpace) Admit(ctx context.Context) (done func(), err error) {
	return sp.b.admit(ctx)
}

// CompileModel translates m into CNF (feature.Model.CNF) for gophersat and
// indexes it for propagation. It is cheap and calls no solver; the solver
// is built on first use. It implements configurator.ModelCompiler.
func (b *Backend) CompileModel(ctx context.Context, m *feature.Model) (configurator.Space, error) {
	return b.base.CompileModel(ctx, m, b.newFeatureEngine, func(sp *satbase.FeatureSpace) configurator.Space {
		return &featureSpace{FeatureSpace: sp, b: b}
	})
}

// featureEngine decides a feature model's valid domains by the backbone
// method that uses every configuration found to rule out many candidates
// at once (Janota, Lynce and Marques-Silva, "Algorithms for computing
// backbones of propositional formulae", 2015), after cheaper means:
//
//   - The answers of the last questions (keepAnswers of them): the same
//     decisions again take the states remembered; more decisions take
//     the features forced under fewer as forced, since a decision only
//     removes configurations.
//   - Unit propagation of the decisions over the CNF (and of the
//     features forced under the answer remembered under the most of
//     them, or else the model alone forces, learned once per space: the
//     backbone of the empty configuration): what it sets is forced.
//   - One configuration from the solver; each feature it leaves unset is
//     a candidate for the value it has there. The configurations found by
//     earlier questions (the last keepSeen of them) that keep the
//     decisions rule candidates out too.
//   - A candidate whose value can be flipped in a configuration found
//     without breaking any clause (every clause holding it holds another
//     true literal) takes both values: it is open, with no solver call.
//   - A candidate whose other value propagation refutes (a failed
//     literal) is forced.
//   - The solver is asked for a configuration with the candidate's other
//     value: none, and the feature is forced (and propagated, which may
//     force other candidates); one, and every candidate whose value
//     differs there, or can be flipped there, is open.
//
// So most features are decided without a solver call, and the calls are
// about one per forced feature left to the solver and one per
// configuration that opens a batch of candidates. The configurations come
// from gophersat, each verified against the model (feature.Model.Valid);
// a flip is checked against every clause of the flipped variable, so the
// flipped assignment is a model of the CNF as the one it comes from.
type featureEngine struct {
	b  *Backend
	sp *satbase.FeatureSpace
	// props holds idle propagators of the CNF, its units propagated.
	props sync.Pool
	// root is the backbone of the empty configuration, per feature 1
	// (forced on), -1 (forced off) or 0, once a question has found it: of
	// a partial answer (a deadline's) until a whole one is found, so
	// that its zeros may hide forced features, never its other values.
	root atomic.Pointer[[]int8]
	// seen keeps the last configurations the solver found, whole
	// assignments of the CNF's variables: a later question whose
	// decisions one of them keeps takes it as a witness too.
	seenMu sync.Mutex
	seen   [keepSeen][]bool
	nseen  int
	// answers are the last answers, for Decide.
	answersMu sync.Mutex
	answers   [keepAnswers]answer
	nanswers  int
}

// keepSeen is how many configurations a space keeps (featureEngine.seen).
const keepSeen = 32

// remember keeps model among the configurations seen.
func (e *featureEngine) remember(model []bool) {
	e.seenMu.Lock()
	e.seen[e.nseen%keepSeen] = model
	e.nseen++
	e.seenMu.Unlock()
}

// keeping returns the configurations seen that keep the decisions.
func (e *featureEngine) keeping(decisions []configurator.Decision) [][]bool {
	e.seenMu.Lock()
	defer e.seenMu.Unlock()
	var out [][]bool
	for _, m := range e.seen[:min(e.nseen, keepSeen)] {
		if !slices.ContainsFunc(decisions, func(d configurator.Decision) bool { return m[d.Feature] != d.Select }) {
			out = append(out, m)
		}
	}
	return out
}

func (b *Backend) newFeatureEngine(sp *satbase.FeatureSpace) satbase.FeatureEngine {
	e := &featureEngine{b: b, sp: sp}
	e.props.New = func() any { return feature.NewPropagator(sp.CNF) }
	return e
}

// Decide classifies every feature under the decisions (see featureEngine).
// The same decisions as an answer remembered (an undo, a page reloaded)
// take its states again, with no work; more decisions than one take the
// features forced under it as forced.
func (e *featureEngine) Decide(ctx context.Context, q *satbase.FeatureQuery, decisions []configurator.Decision) (*configurator.Domains, error) {
	key := decisionKey(decisions)
	same, under := e.recall(key)
	if same != nil {
		return &configurator.Domains{States: same}, nil
	}
	root := e.root.Load()
	if root == nil && len(decisions) > 0 {
		// The empty configuration's answer, kept for every question after
		// this one, takes at most half of what is left before ctx's
		// deadline: the rest is the decisions' own. Its forced values are
		// true even when it is partial, and are kept until a whole answer
		// of no decisions takes their place.
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if dl, ok := ctx.Deadline(); ok {
			rctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		}
		d, err := e.decide(rctx, q, nil, nil)
		cancel()
		switch {
		case err == nil:
			r := backbone(d.States)
			root = &r
			e.root.Store(root)
		case ctx.Err() != nil || !errors.Is(rctx.Err(), context.DeadlineExceeded):
			return nil, err
		}
	}
	known := under
	if known == nil && root != nil {
		known = *root
	}
	d, err := e.decide(ctx, q, decisions, known)
	if err != nil {
		return nil, err
	}
	if len(decisions) == 0 && d.Settled() {
		r := backbone(d.States)
		e.root.Store(&r)
	}
	if d.Settled() {
		e.keep(key, d.States)
	}
	return d, nil
}

// pastDeadline reports whether err, a question's failure, came of ctx's
// deadline passing: decide then answers with the features it settled.
func pastDeadline(ctx context.Context, err error) bool {
	return err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// keepAnswers is how many answers a space remembers (featureEngine.answers).
const keepAnswers = 16

// answer is an answer remembered: the literals of its decisions, sorted,
// and the states.
type answer struct {
	key    []feature.Lit
	states []configurator.FeatureState
}

// decisionKey returns the literals of decisions, sorted: the same for the
// same decisions in any order.
func decisionKey(decisions []configurator.Decision) []feature.Lit {
	key := satbase.Lits(decisions)
	slices.Sort(key)
	return key
}

// keep remembers the states decided under the decisions of key.
func (e *featureEngine) keep(key []feature.Lit, states []configurator.FeatureState) {
	e.answersMu.Lock()
	defer e.answersMu.Unlock()
	e.answers[e.nanswers%keepAnswers] = answer{key: key, states: slices.Clone(states)}
	e.nanswers++
}

// recall returns the states remembered under the decisions of key, or
// else the forced values (see backbone) of the answer remembered under
// the most decisions that key holds every one of (nil: none).
func (e *featureEngine) recall(key []feature.Lit) (same []configurator.FeatureState, under []int8) {
	e.answersMu.Lock()
	defer e.answersMu.Unlock()
	var best *answer
	for i := range e.answers[:min(e.nanswers, keepAnswers)] {
		a := &e.answers[i]
		switch {
		case slices.Equal(a.key, key):
			return slices.Clone(a.states), nil
		case subset(a.key, key) && (best == nil || len(a.key) > len(best.key)):
			best = a
		}
	}
	if best == nil {
		return nil, nil
	}
	return nil, backbone(best.states)
}

// subset reports whether every literal of a, sorted, is in b, sorted.
func subset(a, b []feature.Lit) bool {
	i := 0
	for _, l := range b {
		if i < len(a) && a[i] == l {
			i++
		}
	}
	return i == len(a)
}

// backbone returns the forced values of states: 1 for a feature forced
// on, -1 for one forced off, 0 otherwise.
func backbone(states []configurator.FeatureState) []int8 {
	out := make([]int8, len(states))
	for f, st := range states {
		switch st {
		case configurator.ForcedOn:
			out[f] = 1
		case configurator.ForcedOff:
			out[f] = -1
		}
	}
	return out
}

// decide is Decide given the forced values known (nil: none).
func (e *featureEngine) decide(ctx context.Context, q *satbase.FeatureQuery, decisions []configurator.Decision, known []int8) (*configurator.Domains, error) {
	nf := len(e.sp.FeatureModel().Features)
	p := e.props.Get().(*feature.Propagator)
	defer e.props.Put(p)
	if !p.Assume() { // the units: their conflict stays for every question
		return nil, configurator.ErrNoSolution
	}
	base := p.Mark()
	defer p.Undo(base)

	lits := satbase.Lits(decisions)
	for f, v := range known {
		if v != 0 {
			lits = append(lits, feature.FeatureLit(f, v > 0))
		}
	}
	if !p.Assume(lits...) {
		return nil, configurator.ErrNoSolution
	}
	// value[f] is f's value in every configuration (1, -1) once known;
	// cand[f] its value in the configurations found, while it may be
	// forced; open[f] is set once both values are found.
	value := make([]int8, nf)
	by := make([]uint8, nf)
	for f := range nf {
		if v := p.Value(feature.FeatureLit(f, true)); v != 0 {
			value[f], by[f] = v, byPropagation
		}
	}
	// The assumptions of the questions: the decisions and every feature
	// forced so far.
	assume := slices.Clip(lits[:len(decisions)])
	for f, v := range value {
		if v != 0 {
			assume = append(assume, feature.FeatureLit(f, v > 0))
		}
	}
	model, err := e.ask(ctx, q, assume, nil)
	if err != nil {
		return nil, err
	}
	if model == nil {
		return nil, configurator.ErrNoSolution
	}
	cand := make([]bool, nf)
	open := make([]bool, nf)
	// closed lists the candidates neither open nor forced yet, in the
	// model's order; sweep drops those decided since.
	var closed []int
	for f := range nf {
		if value[f] == 0 {
			cand[f] = model[f]
			closed = append(closed, f)
		}
	}
	isClosed := func(f int) bool { return f < nf && !open[f] && value[f] == 0 }
	sweep := func() { closed = slices.DeleteFunc(closed, func(f int) bool { return !isClosed(f) }) }
	// filter opens every candidate whose value in model is not its
	// candidate value, or can be flipped there.
	filter := func(model []bool, means uint8) {
		for _, f := range closed {
			switch {
			case model[f] != cand[f]:
				open[f], by[f] = true, means
			case flippable(e.sp.CNF, p, model, f+1):
				open[f], by[f] = true, byWitness
			}
		}
		sweep()
	}
	// near is filter for a configuration that differs from model, which
	// filter has seen, in the variables of changed only: a candidate
	// still closed can be open there only if it is one of them, or
	// shares a clause with one (a flip elsewhere meets the clauses it met
	// in model). Each neighbour is looked at once per call (checked[g] is
	// the call's stamp), and the clauses of a literal in more than
	// nearMax of them are passed over: a flip missed costs a repair or a
	// call later, never a wrong answer.
	checked := make([]uint32, nf)
	stamp := uint32(0)
	near := func(repaired []bool, changed []feature.Lit) {
		stamp++
		for _, l := range changed {
			if f := l.Var() - 1; isClosed(f) && repaired[f] != cand[f] {
				open[f], by[f] = true, byWitness
			}
		}
		for _, l := range changed {
			for _, side := range [2]feature.Lit{l, -l} {
				occ := p.Occurrences(side)
				if len(occ) > nearMax {
					continue
				}
				for _, i := range occ {
					for _, k := range e.sp.CNF.Clause(int(i)) {
						g := k.Var() - 1
						if !isClosed(g) || checked[g] == stamp {
							continue
						}
						checked[g] = stamp
						if flippable(e.sp.CNF, p, repaired, g+1) {
							open[g], by[g] = true, byWitness
						}
					}
				}
			}
		}
	}
	filter(model, bySolver)
	for _, m := range e.keeping(decisions) {
		for _, f := range closed {
			if m[f] != cand[f] {
				open[f], by[f] = true, byWitness
			}
		}
		sweep()
	}
	// Configurations that prefer every candidate still closed to take
	// its other value, for as long as each opens a tenth of them.
	// partial: ctx's deadline came before every candidate was settled;
	// those left are answered Unsettled (see configurator.Domains).
	partial := false
	for len(closed) > 0 {
		before := len(closed)
		next, err := e.ask(ctx, q, assume, unlike(closed, cand))
		if pastDeadline(ctx, err) {
			partial = true
			break
		}
		if err != nil {
			return nil, err
		}
		if next == nil {
			return nil, fmt.Errorf("%w: no configuration keeps what one found keeps", satbase.ErrSolver)
		}
		model = next
		filter(model, bySolver)
		if len(closed) > before*9/10 {
			break
		}
	}
	// Each candidate left: its other value propagated, then repaired
	// into the last configuration found (built in scratch, a copy of
	// model), then asked of the solver.
	var scratch []bool
	var changed []feature.Lit
	for _, f := range slices.Clone(closed) {
		if partial {
			break
		}
		if !isClosed(f) {
			continue
		}
		if err := ctx.Err(); err != nil {
			if partial = pastDeadline(ctx, err); partial {
				break
			}
			return nil, err
		}
		other := feature.FeatureLit(f, !cand[f])
		mark := p.Mark()
		failed := !p.Assume(other)
		repaired := false
		if !failed {
			if scratch == nil {
				scratch = slices.Clone(model)
			}
			changed, repaired = repair(e.sp.CNF, p, mark, scratch, changed)
			if repaired {
				near(scratch, changed)
			}
			restore(scratch, model, changed)
		}
		p.Undo(mark)
		if repaired {
			continue
		}
		if !failed {
			sweep()
			next, err := e.ask(ctx, q, append(assume, other), unlike(closed, cand))
			if partial = pastDeadline(ctx, err); partial {
				break
			}
			if err != nil {
				return nil, err
			}
			if next != nil {
				model, scratch = next, nil
				filter(model, bySolver)
				continue
			}
		}
		// f is forced: propagated, it may force other candidates.
		means := uint8(bySolver)
		if failed {
			means = byPropagation
		}
		value[f], by[f] = -1, means
		if cand[f] {
			value[f] = 1
		}
		forced := -other
		assume = append(assume, forced)
		mark = p.Mark()
		if !p.Assume(forced) {
			return nil, fmt.Errorf("%w: propagation refutes a value a configuration found has", satbase.ErrSolver)
		}
		for _, l := range p.Since(mark) {
			if g := l.Var() - 1; isClosed(g) {
				value[g], by[g] = -1, byPropagation
				if l > 0 {
					value[g] = 1
				}
			}
		}
	}

	d := &configurator.Domains{States: make([]configurator.FeatureState, nf)}
	for f := range nf {
		switch {
		case value[f] > 0:
			d.States[f] = configurator.ForcedOn
		case value[f] < 0:
			d.States[f] = configurator.ForcedOff
		case partial && isClosed(f):
			d.States[f] = configurator.Unsettled
		}
	}
	for _, dc := range decisions {
		d.States[dc.Feature] = configurator.Deselected
		if dc.Select {
			d.States[dc.Feature] = configurator.Selected
		}
		by[dc.Feature] = undecided
	}
	for _, means := range by {
		switch means {
		case byPropagation:
			d.Work.ByPropagation++
		case byWitness: // a configuration found, with one feature flipped
			d.Work.ByWitness++
		case bySolver:
			d.Work.BySolver++
		}
	}
	return d, nil
}

// unlike returns the literals that give each feature of closed its other
// value than cand's: a configuration found preferring them flips as many
// of them as it can.
func unlike(closed []int, cand []bool) []feature.Lit {
	out := make([]feature.Lit, len(closed))
	for i, f := range closed {
		out[i] = feature.FeatureLit(f, !cand[f])
	}
	return out
}

// ask asks the query's solver for a configuration with every literal of
// lits, trying those of prefer first, in sliced turns (see callSliced):
// the configuration, verified, or nil when there is none.
func (e *featureEngine) ask(ctx context.Context, q *satbase.FeatureQuery, lits, prefer []feature.Lit) ([]bool, error) {
	var model []bool
	err := e.b.callSliced(ctx, q.Calls, func(ctx context.Context) (err error) {
		model, err = q.Ask(ctx, lits, prefer)
		return err
	})
	if model != nil {
		e.remember(model)
	}
	return model, err
}

// nearMax bounds the clauses of one literal through which the valid
// domains look for candidates a repaired configuration opens.
const nearMax = 64

// repairTries bounds the literals repair chooses for one candidate.
const repairTries = 16

// repair looks for a configuration close to model that keeps what p has
// set since mark (the consequences of one more literal under the
// assumptions model keeps): model with those literals, then, while a
// clause is broken, one of its literals that p leaves open made true and
// propagated, at most repairTries times. It builds it in out, which holds
// model on the call, and returns the literals it set there that differ
// from model's, appended to changed[:0], and whether out then breaks no
// clause of c. The caller sets those variables back (restore) before its
// next call. Only the clauses of the variables that differ from model can
// break, and only those are checked (p lists the clauses of each
// literal). p may have set more when it returns.
func repair(c *feature.CNF, p *feature.Propagator, mark int, out []bool, changed []feature.Lit) ([]feature.Lit, bool) {
	changed = changed[:0]
	seen := mark
	// broken holds the clauses found broken, some mended since: a clause
	// can break only when one of its literals is made false, so each
	// literal's clauses are looked at once, when it is set.
	var broken []int32
	for tries := 0; ; tries++ {
		since := p.Since(mark)
		start := len(changed)
		for _, l := range since[seen-mark:] {
			if v := l.Var(); out[v-1] != (l > 0) {
				out[v-1] = l > 0
				changed = append(changed, l)
			}
		}
		seen = mark + len(since)
		for _, l := range changed[start:] {
			for _, i := range p.Occurrences(-l) {
				if !satisfied(c.Clause(int(i)), out) {
					broken = append(broken, i)
				}
			}
		}
		broken = slices.DeleteFunc(broken, func(i int32) bool { return satisfied(c.Clause(int(i)), out) })
		if len(broken) == 0 {
			return changed, true
		}
		if tries == repairTries {
			return changed, false
		}
		fix := feature.Lit(0)
		for _, l := range c.Clause(int(broken[0])) {
			if p.Value(l) == 0 {
				fix = l
				break
			}
		}
		if fix == 0 || !p.Assume(fix) {
			return changed, false
		}
	}
}

// restore sets the variables of changed in out back to their value in
// model.
func restore(out, model []bool, changed []feature.Lit) {
	for _, l := range changed {
		out[l.Var()-1] = model[l.Var()-1]
	}
}

// satisfied reports whether some literal of clause is true in model.
func satisfied(clause []feature.Lit, model []bool) bool {
	for _, l := range clause {
		if model[l.Var()-1] == (l > 0) {
			return true
		}
	}
	return false
}

// flippable reports whether variable v can take the other value in model
// (model[v-1] is v's value) with every clause still satisfied: each clause
// holding v's present literal holds another true literal.
func flippable(c *feature.CNF, p *feature.Propagator, model []bool, v int) bool {
	l := feature.Lit(v)
	if !model[v-1] {
		l = -l
	}
	for _, i := range p.Occurrences(l) {
		sat := false
		for _, k := range c.Clause(int(i)) {
			if k.Var() != v && model[k.Var()-1] == (k > 0) {
				sat = true
				break
			}
		}
		if !sat {
			return false
		}
	}
	return true
}
