package satbase

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// DefaultModelCountCap is the default of Backend.ModelCountCap.
const DefaultModelCountCap = 1000

// CountMaxFeatures is the most features a model may have for
// FeatureSpace.Domains to count its configurations. Each configuration
// counted costs a solver call, whose cost grows with the model, and on
// larger models the count would soon say no more than "at least the cap".
const CountMaxFeatures = 200

// FeatureEngine is a backend's own way of deciding a feature model's valid
// domains, as Engine is for boards.
type FeatureEngine interface {
	// Decide classifies every feature under the decisions, which the
	// FeatureSpace has checked, and tells in Work how each was decided, or
	// fails with an error wrapping configurator.ErrNoSolution when no
	// configuration keeps them. The FeatureSpace adds the count and the
	// rest of the Work.
	Decide(ctx context.Context, q *FeatureQuery, decisions []configurator.Decision) (*configurator.Domains, error)
}

// FeatureSpace is a compiled feature model: its CNF for gophersat, the
// pool of its solvers, and the FeatureEngine that decides its domains. It
// implements configurator.FeatureSpace, configurator.FeatureCorer and
// configurator.Sizer, and is safe for concurrent use.
type FeatureSpace struct {
	m *feature.Model
	// CNF is the model's CNF (feature.Model.CNF), which engines may read.
	CNF *feature.CNF
	// clauses are the CNF's clauses of two literals or more, each
	// without a repeated literal, none always true: the problem of every
	// solver of the space. units are its clauses of one literal, assumed
	// instead (gophersat's Assume forgets the units of the base problem).
	// dead is set when a clause is empty: no configuration at all.
	clauses [][]int
	units   []solver.Lit
	dead    bool
	engine  FeatureEngine
	solvers *solvers
	// cores is the problem the FeatureCorer questions ask, made on the
	// first of them: see Core.
	coresOnce sync.Once
	cores     *coreProblem
}

// featureCost is what a space is charged per literal of its CNF, the
// solvers it keeps and what they learn included, beyond 64 KiB.
const featureCost = 400

// CompileModel returns the space of m, whose domains the FeatureEngine
// that newEngine makes of the space decides, as wrap makes it of the
// skeleton's FeatureSpace (nil wrap: the FeatureSpace itself). It
// translates m into CNF and calls no solver: a space builds its first on
// its first question. An ended ctx gives its error.
func (b *Backend) CompileModel(ctx context.Context, m *feature.Model, newEngine func(*FeatureSpace) FeatureEngine, wrap func(*FeatureSpace) configurator.Space) (configurator.Space, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sp := &FeatureSpace{m: m, CNF: m.CNF()}
	sp.clauses, sp.units, sp.dead = problem(sp.CNF)
	sp.solvers = b.solvers(sp.Bytes(), func() *solver.Solver { return solver.New(solver.ParseSliceNb(sp.clauses, sp.CNF.Vars)) })
	sp.engine = newEngine(sp)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if wrap == nil {
		return sp, nil
	}
	return wrap(sp), nil
}

// problem splits the clauses of c for gophersat: those of two literals or
// more, each literal once and none always true; the units; and whether a
// clause is empty.
func problem(c *feature.CNF) (clauses [][]int, units []solver.Lit, dead bool) {
	var lits []int
	ends := []int{0}
	for i := range c.Len() {
		start := len(lits)
		taut := false
		for _, l := range c.Clause(i) {
			switch {
			case slices.Contains(lits[start:], int(l)):
			case slices.Contains(lits[start:], -int(l)):
				taut = true
			default:
				lits = append(lits, int(l))
			}
		}
		switch n := len(lits) - start; {
		case taut:
			lits = lits[:start]
		case n == 0:
			dead = true
		case n == 1:
			units = append(units, solver.IntToLit(int32(lits[start])))
			lits = lits[:start]
		default:
			ends = append(ends, len(lits))
		}
	}
	clauses = make([][]int, len(ends)-1)
	for i := range clauses {
		clauses[i] = lits[ends[i]:ends[i+1]:ends[i+1]]
	}
	return clauses, units, dead
}

// FeatureModel is the model the space was compiled from.
func (sp *FeatureSpace) FeatureModel() *feature.Model { return sp.m }

// Bytes estimates the memory the space holds, its solvers and what they
// learn included: 64 KiB and featureCost bytes per literal of its CNF.
func (sp *FeatureSpace) Bytes() int64 {
	lits := 0
	for i := range sp.CNF.Len() {
		lits += len(sp.CNF.Clause(i))
	}
	return 64<<10 + featureCost*int64(lits+sp.CNF.Vars)
}

// Domains classifies every feature under the decisions, as the
// FeatureEngine decides them.
//
// Counting policy: on models of up to CountMaxFeatures features, once the
// features are decided, the configurations are listed with blocking
// clauses over the open features (the others are the same in all of
// them), up to the backend's ModelCountCap and within its ModelCountTime,
// and checked against the features decided: "at least" what was counted
// beyond either. Larger models are not
// counted. Work times the two apart (Domains, Count) and sums the
// solver's work.
func (sp *FeatureSpace) Domains(ctx context.Context, decisions []configurator.Decision) (*configurator.Domains, error) {
	start := time.Now()
	if err := configurator.CheckDecisions(sp.m, decisions); err != nil {
		return nil, fmt.Errorf("domains: %w", err)
	}
	var d *configurator.Domains
	err := sp.do(ctx, func(ctx context.Context, q *FeatureQuery) (err error) {
		d, err = q.domains(ctx, decisions)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("domains under %s: %w", configurator.FormatDecisions(sp.m, decisions), err)
	}
	d.Elapsed = time.Since(start)
	return d, nil
}

// Consistent reports whether some configuration keeps every decision.
func (sp *FeatureSpace) Consistent(ctx context.Context, decisions []configurator.Decision) (bool, error) {
	config, err := sp.Configuration(ctx, decisions)
	if errors.Is(err, configurator.ErrNoSolution) {
		return false, nil
	}
	return config != nil, err
}

// Configuration returns the first configuration gophersat finds that
// keeps the decisions, verified; not a uniformly random one (the space is
// no configurator.FeatureSampler).
func (sp *FeatureSpace) Configuration(ctx context.Context, decisions []configurator.Decision) ([]bool, error) {
	if err := configurator.CheckDecisions(sp.m, decisions); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	var config []bool
	err := sp.do(ctx, func(ctx context.Context, q *FeatureQuery) error {
		var model []bool
		err := q.Call(ctx, func() (err error) {
			model, err = q.Ask(ctx, Lits(decisions), nil)
			return err
		})
		if err == nil && model == nil {
			err = configurator.ErrNoSolution
		}
		if err == nil {
			config = model[:len(sp.m.Features)]
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("configuration under %s: %w", configurator.FormatDecisions(sp.m, decisions), err)
	}
	return config, nil
}

// do runs f as one query (solvers.query) with a FeatureQuery of its own.
func (sp *FeatureSpace) do(ctx context.Context, f func(ctx context.Context, q *FeatureQuery) error) error {
	return sp.solvers.query(ctx, func(ctx context.Context, c *Calls) error {
		return f(ctx, &FeatureQuery{Calls: c, sp: sp})
	})
}

// Lits returns the literals of decisions.
func Lits(decisions []configurator.Decision) []feature.Lit {
	lits := make([]feature.Lit, len(decisions))
	for i, d := range decisions {
		lits[i] = d.Lit()
	}
	return lits
}

// FeatureQuery is the work of one query on a feature model's space: its
// solver calls (Calls) and the space it asks about. It is not safe for
// concurrent use.
type FeatureQuery struct {
	*Calls
	sp *FeatureSpace
}

// Space is the space the query asks about.
func (q *FeatureQuery) Space() *FeatureSpace { return q.sp }

// Ask asks the query's solver, within a solver turn the caller holds, for
// an assignment of the CNF's variables that makes every literal of lits
// true, and returns it (model[v-1] is variable v), verified: its features
// are a configuration of the model (feature.Model.Valid) and every literal
// holds. It returns nil when there is none. The search tries the literals
// of prefer first (they make no difference to whether there is one). The
// assumptions replace those of the previous question; a question that ctx
// ends is interrupted and returns ctx's error.
func (q *FeatureQuery) Ask(ctx context.Context, lits, prefer []feature.Lit) ([]bool, error) {
	if q.sp.dead {
		return nil, nil
	}
	s := q.solver()
	var pref []solver.Lit
	for _, l := range prefer {
		pref = append(pref, solver.IntToLit(int32(l)))
	}
	found, err := q.work.under(ctx, s, q.sp.assumptions(lits), pref)
	if !found || err != nil {
		return nil, err
	}
	model := slices.Clone(s.Model())
	if err := q.sp.verify(model, lits); err != nil {
		return nil, err
	}
	return model, nil
}

// assumptions returns the units of the CNF and lits, as gophersat's
// literals.
func (sp *FeatureSpace) assumptions(lits []feature.Lit) []solver.Lit {
	out := slices.Grow(slices.Clone(sp.units), len(lits))
	for _, l := range lits {
		out = append(out, solver.IntToLit(int32(l)))
	}
	return out
}

// verify checks an assignment gophersat returned: its features are a
// configuration of the model and every literal of lits holds.
func (sp *FeatureSpace) verify(model []bool, lits []feature.Lit) error {
	if len(model) < len(sp.m.Features) || !sp.m.Valid(model[:len(sp.m.Features)]) {
		return fmt.Errorf("%w: the configuration it found breaks the model", ErrSolver)
	}
	for _, l := range lits {
		if model[l.Var()-1] != (l > 0) {
			return fmt.Errorf("%w: the configuration it found breaks the assumption %d", ErrSolver, l)
		}
	}
	return nil
}

// domains does the work of FeatureSpace.Domains.
func (q *FeatureQuery) domains(ctx context.Context, decisions []configurator.Decision) (*configurator.Domains, error) {
	if q.sp.dead {
		return nil, configurator.ErrNoSolution
	}
	start := time.Now()
	d, err := q.sp.engine.Decide(ctx, q, decisions)
	if err != nil {
		return nil, err
	}
	d.Work.Domains = time.Since(start)
	if len(q.sp.m.Features) <= CountMaxFeatures {
		start = time.Now()
		if err := q.count(ctx, decisions, d); err != nil {
			return nil, err
		}
		d.Work.Count = time.Since(start)
	}
	q.work.fill(&d.Work)
	return d, nil
}

// count lists the configurations that keep the decisions, each verified,
// up to the backend's ModelCountCap and within its ModelCountTime (the
// count is the answer's extra, never what makes it slow), with a solver of its own (thrown away
// after: a blocking clause appended under assumptions holds only under
// them), and sets d's count. Each blocking clause names the open features
// only: every configuration counted agrees with d on the others, which
// the count checks, and when it is complete every open feature takes both
// values in some configuration. Disagreement is a bug, reported as an
// error wrapping ErrSolver.
func (q *FeatureQuery) count(ctx context.Context, decisions []configurator.Decision, d *configurator.Domains) error {
	limit := q.sv.b.ModelCountCap
	var until time.Time
	if t := q.sv.b.ModelCountTime; t > 0 {
		until = time.Now().Add(t)
	}
	open := d.In(configurator.Open)
	lits := Lits(decisions)
	var s *solver.Solver
	var model []bool
	seen := make([][2]bool, len(open)) // seen[i][b]: open[i] takes value b
	n := 0
	for {
		found := false
		err := q.Call(ctx, func() (err error) {
			if s == nil {
				s = q.sv.build()
				found, err = q.work.under(ctx, s, q.sp.assumptions(lits), nil)
			} else {
				block := make([]solver.Lit, len(open))
				for i, f := range open {
					block[i] = solver.IntToLit(int32(feature.FeatureLit(f, !model[f])))
				}
				s.AppendClause(solver.NewClause(block))
				found, err = q.work.solve(ctx, s)
			}
			if found {
				model = slices.Clone(s.Model())
			}
			return err
		})
		if err != nil {
			return err
		}
		complete := !found
		if found && (n == limit || n > 0 && !until.IsZero() && time.Now().After(until)) {
			d.Configurations, d.AtLeast = big.NewInt(int64(n)), true
			return nil
		}
		if found {
			if err := q.sp.verify(model, lits); err != nil {
				return err
			}
			if err := agree(model, d.States); err != nil {
				return err
			}
			for i, f := range open {
				seen[i][b2i(model[f])] = true
			}
			n++
		}
		if complete {
			for _, sn := range seen {
				if !sn[0] || !sn[1] {
					return fmt.Errorf("%w: the configurations counted and the features decided disagree", ErrSolver)
				}
			}
			if n == 0 {
				return fmt.Errorf("%w: no configuration counted, one found", ErrSolver)
			}
			d.Configurations = big.NewInt(int64(n))
			return nil
		}
		if len(open) == 0 {
			// The one configuration: nothing open to block it by.
			d.Configurations = big.NewInt(1)
			return nil
		}
	}
}

// agree checks a configuration against the states decided: every feature
// not open has the value its state says.
func agree(model []bool, states []configurator.FeatureState) error {
	for f, st := range states {
		on := st == configurator.Selected || st == configurator.ForcedOn
		off := st == configurator.Deselected || st == configurator.ForcedOff
		if on && !model[f] || off && model[f] {
			return fmt.Errorf("%w: a configuration counted gives feature %d another value than its state %v", ErrSolver, f, st)
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
