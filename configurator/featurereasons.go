package configurator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator/feature"
)

// FeatureCorer is a Space that finds which parts of its model
// refute a set of decisions, where propagation alone does not show it.
type FeatureCorer interface {
	// Core returns a minimal set of the model's parts (the origins of the
	// clauses of feature.Model.CNF) that no configuration satisfies
	// together with the decisions: without any one of them, some
	// assignment satisfies the others and keeps the decisions. Decisions
	// that a configuration keeps give an error.
	Core(ctx context.Context, decisions []Decision) ([]feature.Origin, error)
}

// FeatureReason is one minimal reason why a feature is forced: a set of
// the person's decisions under which no configuration gives the feature
// its other value, and no part of which does.
type FeatureReason struct {
	// Decisions are the reason's decisions, in the order they were made;
	// none when the model alone forces the feature.
	Decisions []Decision
	// Proof is the chain of deductions by which the model's clauses
	// refute the decisions with the feature's other value; nil when
	// propagation alone does not refute them (a search does).
	Proof []Implication
	// Constraints are the parts of the model that carry the reason: those
	// the proof uses, or else a minimal set that the space found (a
	// FeatureCorer) within its time (proofBudget); nil when neither is
	// known.
	Constraints []feature.Origin
	// Argument is a proof a person can check in the words of a model
	// that has its own (a board's: by propagation over its ranks, files
	// and diagonals, else by cases, see RefuteByCases), one line a step;
	// nil for other models and where no such proof fits on a screen.
	Argument []string
	// Attack, on a board, marks the reason of one queen that attacks the
	// square by the board's lines, known without asking the space.
	Attack bool
	// Solutions, on a board where no Argument fits and the reason's
	// decisions are all queens, lists every solution that holds them
	// (each as the squares it selects, rank by rank) when there are at
	// most MaxListed: none has a queen on the square, or each has, as the
	// reason says. Nil otherwise.
	Solutions [][]int
}

// FeatureExplanation says why a feature is forced, in terms of the
// person's decisions and the model's own words.
type FeatureExplanation struct {
	Feature int
	State   FeatureState // ForcedOn or ForcedOff
	// Core reports that the model alone forces the feature (a core
	// feature when ForcedOn, a dead one when ForcedOff): its one reason
	// has no decision, and no undoing frees it.
	Core bool
	// Reasons lists the subset-minimal sets of decisions that force the
	// feature, by size, then by the order the decisions were made; each
	// forces it alone. More reports that the list is not all: more than
	// MaxReasons exist, or the search ran out of time.
	Reasons []FeatureReason
	More    bool
	// Room is a fewest set of decisions whose undoing frees the feature
	// (meets every reason, found or not), in the order they were made; nil
	// for a Core feature.
	Room []Decision
	// RoomAtLeast, when not 0, says Room is not known to be a fewest set:
	// the search for one ran out of its budget, undoing Room frees the
	// feature, and a fewest set has at least RoomAtLeast decisions.
	RoomAtLeast int
	Elapsed     time.Duration
}

// Constraints returns the parts of the model that carry the reasons, each
// once, in the order the reasons name them.
func (e *FeatureExplanation) Constraints() []feature.Origin {
	var out []feature.Origin
	for _, r := range e.Reasons {
		for _, o := range r.Constraints {
			if !slices.Contains(out, o) {
				out = append(out, o)
			}
		}
	}
	return out
}

// Explain says why feature f is forced: every minimal set of decisions
// that forces it, up to MaxReasons, each with the parts of the model that
// carry it, and the fewest decisions to undo to free it. A feature that
// is not forced gives ErrNotForced.
//
// The reasons come from the shared reason search (reasonSearch), which
// asks of a set of decisions whether a configuration keeps it with f's
// other value: on a board the queens that attack the square come first,
// known without a question (each marked Attack). On a Turner the search
// runs in the space's lane and its own work takes the space's turns.
func (s *FeatureSession) Explain(ctx context.Context, f int) (*FeatureExplanation, error) {
	return s.explain(ctx, f, false)
}

// MakeRoom returns the fewest decisions whose undoing frees the forced
// feature f (a minimum correction set), in the order they were made: see
// Explain. The session is not changed: pass their features to Undo. A
// feature the model alone forces gives an error wrapping ErrNoSolution.
func (s *FeatureSession) MakeRoom(ctx context.Context, f int) ([]Decision, error) {
	e, err := s.Explain(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("make room: %w", err)
	}
	if e.Core {
		return nil, fmt.Errorf("make room for %q: the model alone forces it: %w", s.Model().Features[f].Name, ErrNoSolution)
	}
	return e.Room, nil
}

// explain is Explain; firstOnly stops at the first reason (found by
// halves) and makes no room, for the message of a refused decision.
func (s *FeatureSession) explain(ctx context.Context, f int, firstOnly bool) (*FeatureExplanation, error) {
	m := s.Model()
	if f < 0 || f >= len(m.Features) {
		return nil, fmt.Errorf("explain feature %d of a model of %d: %w", f, len(m.Features), ErrUnknownFeature)
	}
	start := time.Now()
	e := &FeatureExplanation{Feature: f, State: s.domains.States[f]}
	if e.State != ForcedOn && e.State != ForcedOff {
		return nil, fmt.Errorf("explain %q (%v): %w", m.Features[f].Name, e.State, ErrNotForced)
	}
	if !firstOnly {
		done, err := lane(ctx, turnerOf(s.space))
		if err != nil {
			return nil, fmt.Errorf("explain %q: %w", m.Features[f].Name, err)
		}
		defer done()
	}
	// other is the value no remaining configuration gives f.
	other := Decision{Feature: f, Select: e.State == ForcedOff}
	ds := s.decisions
	rs := &reasonSearch{n: len(ds), firstOnly: firstOnly, turner: turnerOf(s.space), known: s.attacks(f, e.State),
		rules: func(ctx context.Context, set []int) (bool, []int, error) {
			config, err := s.space.Configuration(ctx, append(pickDecisions(ds, set), other))
			if errors.Is(err, ErrNoSolution) {
				return true, nil, nil
			}
			if err != nil {
				return false, nil, err
			}
			held := []int{}
			for j, d := range ds {
				if config[d.Feature] == d.Select {
					held = append(held, j)
				}
			}
			return false, held, nil
		}}
	if err := rs.run(ctx); err != nil {
		return nil, fmt.Errorf("explain %q: %w", m.Features[f].Name, err)
	}
	e.Core = rs.nowhere
	if !firstOnly && !rs.nowhere {
		room, least, err := rs.room(ctx)
		if err != nil {
			return nil, fmt.Errorf("explain %q: make room: %w", m.Features[f].Name, err)
		}
		e.Room, e.RoomAtLeast = pickDecisions(ds, room), least
	}
	// At most MaxReasons of the reasons, by size, then by the order of the
	// decisions: a board's attacks, found first, take their place among
	// the others.
	found := slices.Clone(rs.found[:min(len(rs.found), MaxReasons)])
	e.More = rs.more || len(rs.found) > MaxReasons
	slices.SortStableFunc(found, compareReasons)
	if firstOnly {
		found = found[:1]
		e.More = !rs.nowhere && len(found[0]) < len(ds)
	}
	pctx, cancel := budgeted(ctx, proofBudget)
	defer cancel()
	for _, set := range found {
		r := FeatureReason{Decisions: pickDecisions(ds, set), Attack: len(set) == 1 && slices.Contains(rs.known, set[0])}
		premises := append(slices.Clone(r.Decisions), other)
		if r.Argument = s.boardArgument(premises); r.Argument == nil {
			r.Solutions = s.boardSolutions(r.Decisions)
			if err := s.prove(ctx, pctx, &r, premises); err != nil {
				return nil, fmt.Errorf("explain %q: %w", m.Features[f].Name, err)
			}
		}
		e.Reasons = append(e.Reasons, r)
	}
	e.Elapsed = time.Since(start)
	return e, nil
}

// proofBudget bounds the search for the parts of the model that carry
// the reasons propagation does not prove (FeatureCorer.Core), for one
// explanation: on a model of thousands of parts it may take many solver
// calls. It never takes more than half the time left to its context.
const proofBudget = time.Second

// budgeted returns ctx within budget, and within half the time left to
// ctx, so that a bounded search leaves the rest to what follows it.
func budgeted(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(d)/2)
	}
	return context.WithTimeout(ctx, budget)
}

// prove finds, for r, what refutes decisions that no configuration
// keeps: a proof by propagation over the model's clauses and the parts of the
// model it uses; or, where propagation does not refute them, the minimal
// set of parts a FeatureCorer finds within pctx (a context of ctx); none
// when it finds none in that time. It fails only when ctx ends.
func (s *FeatureSession) prove(ctx, pctx context.Context, r *FeatureReason, decisions []Decision) error {
	if s.prop == nil {
		s.cnf = s.Model().CNF()
		s.prop = feature.NewPropagator(s.cnf)
	}
	lits := make([]feature.Lit, len(decisions))
	for i, d := range decisions {
		lits[i] = d.Lit()
	}
	if proof := refute(s.cnf, s.prop, lits); proof != nil {
		r.Proof, r.Constraints = proof, origins(proof)
		return nil
	}
	c, ok := s.space.(FeatureCorer)
	if !ok {
		return nil
	}
	core, err := c.Core(pctx, decisions)
	if err != nil && ctx.Err() != nil {
		return err
	}
	if err == nil {
		r.Constraints = core
	}
	return nil
}

// boardArgument is the board's own proof that decisions (a queen on each
// selected square, none on a deselected one) hold in no solution, when
// the session's model is a board (BoardOf): by propagation over its lines
// (Refute), else by cases (RefuteByCases); nil otherwise.
func (s *FeatureSession) boardArgument(decisions []Decision) []string {
	bm, ok := s.board()
	if !ok {
		return nil
	}
	with, without := boardCells(bm, decisions)
	if steps := Refute(bm, with, without); steps != nil {
		return stringsOf(steps)
	}
	if split := RefuteByCases(bm, with, without); split != nil {
		return split.Lines()
	}
	return nil
}

// board returns the board the session's space answers: the model of its
// Board, whose lines are those the space was compiled from, else the board
// its feature model lays out (BoardOf).
func (s *FeatureSession) board() (*Model, bool) {
	if b, ok := s.space.(Board); ok {
		return b.Model(), true
	}
	return BoardOf(s.Model())
}

// attacks are the queens (selected squares) that attack square f, when
// the session's model is a board and the decisions block f: reasons of
// one decision each, known without asking the space.
func (s *FeatureSession) attacks(f int, st FeatureState) []int {
	bm, ok := s.board()
	if !ok || st != ForcedOff {
		return nil
	}
	var out []int
	for j, d := range s.decisions {
		if d.Select && bm.Attacks(bm.Cell(d.Feature), bm.Cell(f)) {
			out = append(out, j)
		}
	}
	return out
}

// boardSolutions lists, when the session's model is a board and
// decisions are all queens, every solution that holds them, each as the
// squares it selects, when there are at most MaxListed (Completions); nil
// otherwise.
func (s *FeatureSession) boardSolutions(decisions []Decision) [][]int {
	bm, ok := s.board()
	if !ok {
		return nil
	}
	queens := make([]Cell, len(decisions))
	for i, d := range decisions {
		if !d.Select {
			return nil
		}
		queens[i] = bm.Cell(d.Feature)
	}
	sols, ok := Completions(bm, queens, MaxListed)
	if !ok {
		return nil
	}
	out := make([][]int, len(sols))
	for i, sol := range sols {
		for _, q := range sol {
			out[i] = append(out[i], bm.Var(q))
		}
	}
	return out
}

// BoardState is the state of a board's square in the board's words: a
// selected square holds the person's Queen, a square forced on a Forced
// queen, one forced off or ruled out is Blocked, an open one Free.
func BoardState(st FeatureState) State {
	switch st {
	case Selected:
		return Queen
	case ForcedOn:
		return Forced
	case ForcedOff, Deselected:
		return Blocked
	}
	return Free
}

// BoardReason says reason r of explanation e, the explanation of a
// square of the board bm, in the board's words: its kind, "attack" (one
// queen attacks the square: r.Attack), "no-completion" (no solution holds the
// reason's queens with one on the square) or "forced" (every solution
// holding them has one there), and the sentence the board's API and
// command line give ("attacked by a1", "no solution holds queens on a1,
// c5 and here"). Squares the reason rules out are named after its queens.
func BoardReason(bm *Model, e *FeatureExplanation, r FeatureReason) (kind, text string) {
	queens, empty := boardCells(bm, r.Decisions)
	list := strings.Join(stringsOf(queens), ", ")
	if len(empty) > 0 {
		list = strings.TrimPrefix(list+", none on "+strings.Join(stringsOf(empty), ", "), ", ")
	}
	switch {
	case r.Attack:
		return "attack", "attacked by " + list
	case e.State == ForcedOff && len(r.Decisions) == 0:
		return "no-completion", "no solution has a queen here, whatever else is placed"
	case e.State == ForcedOff:
		return "no-completion", "no solution holds queens on " + list + " and here"
	case len(r.Decisions) == 0:
		return "forced", "every solution has a queen here"
	}
	return "forced", "every solution with queens on " + list + " has a queen here"
}

// BoardReasons lists the reasons of e, the explanation of a board's
// square, as the board's words give them: the attacks first, then the
// others in their order.
func BoardReasons(e *FeatureExplanation) []FeatureReason {
	out := slices.Clone(e.Reasons)
	slices.SortStableFunc(out, func(a, b FeatureReason) int { return b2i(b.Attack) - b2i(a.Attack) })
	return out
}
