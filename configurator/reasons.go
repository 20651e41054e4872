package configurator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Reason says why a cell is blocked or forced.
type Reason uint8

const (
	// Attack: a single user queen attacks the cell.
	Attack Reason = iota
	// NoCompletion: no queen attacks the cell, but no solution holds the
	// queens in Because together with a queen on the cell.
	NoCompletion
	// Forcing: every solution holding the queens in Because has a queen on
	// the cell.
	Forcing
)

var reasonNames = [...]string{Attack: "attack", NoCompletion: "no-completion", Forcing: "forced"}

func (r Reason) String() string { return nameIn(reasonNames[:], int(r), "Reason(?)") }

// Cause is one minimal reason for a cell's state: a set of the user's
// queens that rules the cell as it is ruled now (blocked or forced) and no
// part of which does.
type Cause struct {
	Reason Reason
	Queens []Cell // in placement order
	// Proof is the chain of deductions by which the model's constraints alone
	// refute the queens with (blocked) or without (forced) a queen on the
	// cell; nil for an attack, and when propagation alone does not refute
	// it.
	Proof []Deduction
	// Split, when propagation alone does not refute it, is a proof by
	// cases that fits on a screen; Solutions, when none fits, lists every
	// solution that holds Queens (none has a queen on the cell, or each
	// has, as the reason says) when there are at most MaxListed. When all
	// three are empty, only the backend's search refuted it.
	Split     *Split
	Solutions [][]Cell
}

// prove attaches to cause, a reason for c, the proof a person can check:
// by propagation, else by cases, else the list of the solutions holding
// its queens.
func (cause *Cause) prove(m *Model, c Cell) {
	var with, without []Cell
	switch cause.Reason {
	case NoCompletion:
		with = append(slices.Clone(cause.Queens), c)
	case Forcing:
		with, without = cause.Queens, []Cell{c}
	default:
		return
	}
	if cause.Proof = Refute(m, with, without); cause.Proof != nil {
		return
	}
	if cause.Split = RefuteByCases(m, with, without); cause.Split != nil {
		return
	}
	if sols, ok := Completions(m, cause.Queens, MaxListed); ok {
		cause.Solutions = sols
	}
}

// String says the reason in words, as the page shows it.
func (c Cause) String() string {
	names := make([]string, len(c.Queens))
	for i, q := range c.Queens {
		names[i] = q.String()
	}
	list := strings.Join(names, ", ")
	switch {
	case c.Reason == Attack:
		return "attacked by " + list
	case c.Reason == NoCompletion && len(c.Queens) == 0:
		return "no solution has a queen here, whatever else is placed"
	case c.Reason == NoCompletion:
		return "no solution holds queens on " + list + " and here"
	case len(c.Queens) == 0:
		return "every solution has a queen here"
	default:
		return "every solution with queens on " + list + " has a queen here"
	}
}

// Explanation says why a cell is blocked or forced, in terms of the user's
// own queens only.
type Explanation struct {
	Cell  Cell
	State State // Blocked or Forced
	// Reason and Because are the first of Reasons: Because is
	// subset-minimal, so removing any one of its queens makes that reason
	// disappear.
	Reason  Reason
	Because []Cell
	// Reasons lists the subset-minimal sets of the user's queens that
	// rule the cell: attacks first, then the others by size, then by
	// placement order. Each is independent of the others: a cell stays
	// ruled while any one of them stands.
	Reasons []Cause
	// More reports that Reasons is not all: more than MaxReasons exist, or
	// the search for them ran out of time (more may exist).
	More bool
	// Room, for a blocked cell, is a fewest set of the user's queens whose
	// removal frees it (it meets every reason, found or not), in placement
	// order; nil for a forced cell and for a cell no solution uses.
	Room []Cell
	// RoomAtLeast, when not 0, says Room is not known to be a fewest set:
	// the search for one ran out of its budget, Room frees the cell, and
	// a fewest set has at least RoomAtLeast queens.
	RoomAtLeast int
	Elapsed     time.Duration
}

// String says the first reason in words, as the page shows it.
func (e *Explanation) String() string {
	return Cause{Reason: e.Reason, Queens: e.Because}.String()
}

// Breaks lists the reasons (indices into Reasons) that removing the queen
// on q would break: those it is part of.
func (e *Explanation) Breaks(q Cell) []int {
	var out []int
	for i, r := range e.Reasons {
		if slices.Contains(r.Queens, q) {
			out = append(out, i)
		}
	}
	return out
}

// Explain says why c is blocked or forced: every minimal reason, up to
// MaxReasons, and for a blocked cell the fewest queens to remove to free
// it. A cell that is neither gives ErrNotExplained.
//
// The queens that attack c are reasons of one queen each. The other
// reasons are searched by increasing size among the remaining queens,
// skipping every set that holds a reason already found (it is not minimal)
// and every set inside the queens of a solution found along the way (it
// rules nothing), one question a set (an analysis of the set on an
// Analyzer, a search for a solution otherwise), never twice; so each set
// found is minimal. When no queen attacks c, one reason is first found by deletion
// (each queen in turn dropped while the rest still rules c), so that there
// is always one, however little time the search gets. On a Turner the
// search runs in the space's lane and its own work takes the space's
// turns (see Turner).
func (s *Session) Explain(ctx context.Context, c Cell) (*Explanation, error) {
	if err := s.onBoard(c); err != nil {
		return nil, err
	}
	start := time.Now()
	e := &Explanation{Cell: c, State: s.analysis.At(c)}
	if e.State != Blocked && e.State != Forced {
		return nil, fmt.Errorf("explain %v (%v): %w", c, e.State, ErrNotExplained)
	}
	done, err := lane(ctx, turnerOf(s.space))
	if err != nil {
		return nil, fmt.Errorf("explain %v: %w", c, err)
	}
	defer done()
	cr := s.cellReasons(c, e.State == Blocked)
	rs := cr.search(false)
	if err := rs.run(ctx); err != nil {
		return nil, fmt.Errorf("explain %v: %w", c, err)
	}
	if cr.blocked && !rs.nowhere {
		room, least, err := rs.room(ctx)
		if err != nil {
			return nil, fmt.Errorf("explain %v: make room: %w", c, err)
		}
		e.Room, e.RoomAtLeast = s.cells(room), least
	}
	m := s.space.Model()
	var found [][]int
	found, e.More = rs.capped()
	for _, set := range found {
		cause := Cause{Reason: cr.kind(set), Queens: s.cells(set)}
		cause.prove(m, c)
		e.Reasons = append(e.Reasons, cause)
	}
	e.Reason, e.Because = e.Reasons[0].Reason, e.Reasons[0].Queens
	e.Elapsed = time.Since(start)
	return e, nil
}

// Why says why c is blocked or forced by one minimal reason: an attack on
// it when a queen attacks it (the first placed), else the reason left by
// dropping each queen in turn while the rest still rule it. It asks the
// backend at most one question per queen, where Explain searches every
// reason for up to two seconds and then makes room: it is for messages that
// name one reason, as a refused placement's. The Explanation holds that
// reason alone (the first Explain lists when it is an attack; another
// minimal one may come first there), More set when other queens may form
// others, and no Room.
func (s *Session) Why(ctx context.Context, c Cell) (*Explanation, error) {
	if err := s.onBoard(c); err != nil {
		return nil, err
	}
	start := time.Now()
	e := &Explanation{Cell: c, State: s.analysis.At(c)}
	if e.State != Blocked && e.State != Forced {
		return nil, fmt.Errorf("why %v (%v): %w", c, e.State, ErrNotExplained)
	}
	cr := s.cellReasons(c, e.State == Blocked)
	rs := cr.search(true)
	if err := rs.run(ctx); err != nil {
		return nil, fmt.Errorf("why %v: %w", c, err)
	}
	first := rs.found[0]
	cause := Cause{Reason: cr.kind(first), Queens: s.cells(first)}
	cause.prove(s.space.Model(), c)
	e.Reasons = []Cause{cause}
	e.More = !rs.nowhere && len(first) < len(s.queens)
	e.Reason, e.Because = cause.Reason, cause.Queens
	e.Elapsed = time.Since(start)
	return e, nil
}

// MakeRoom returns the fewest user queens whose removal frees the blocked
// cell c (a minimum correction set), in placement order: a fewest set that
// meets every minimal reason Explain finds, verified to free c, and grown
// by the reasons the verification uncovers when Explain could not list
// them all. The session is not changed: pass the result to Remove.
func (s *Session) MakeRoom(ctx context.Context, c Cell) ([]Cell, error) {
	if err := s.onBoard(c); err != nil {
		return nil, err
	}
	if st := s.analysis.At(c); st != Blocked {
		return nil, fmt.Errorf("make room on %v (%v): %w", c, st, ErrNotExplained)
	}
	e, err := s.Explain(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("make room on %v: %w", c, err)
	}
	if e.Room == nil {
		// No solution uses c at all: no removal frees it.
		return nil, fmt.Errorf("make room on %v: %w", c, ErrNoSolution)
	}
	return e.Room, nil
}

// cells returns the user's queens at the given indices.
func (s *Session) cells(idx []int) []Cell {
	out := make([]Cell, len(idx))
	for i, j := range idx {
		out[i] = s.queens[j]
	}
	return out
}

// cellReasons is what the reason search asks of a board: whether a set of
// the user's queens rules one cell.
type cellReasons struct {
	space   Space
	queens  []Cell
	cell    Cell
	blocked bool // else forced
}

func (s *Session) cellReasons(c Cell, blocked bool) *cellReasons {
	return &cellReasons{space: s.space, queens: s.queens, cell: c, blocked: blocked}
}

// search returns the reason search of the cell: the queens that attack a
// blocked cell are known reasons.
func (cr *cellReasons) search(firstOnly bool) *reasonSearch {
	rs := &reasonSearch{n: len(cr.queens), rules: cr.rules, firstOnly: firstOnly, turner: turnerOf(cr.space)}
	if cr.blocked {
		for j, q := range cr.queens {
			if cr.space.Model().Attacks(q, cr.cell) {
				rs.known = append(rs.known, j)
			}
		}
	}
	return rs
}

// Analyzer is a Space whose Analyze of a placement costs no more than one
// Satisfiable or Solve question under it, and usually far less: a decision
// diagram sweeps the placement's part once for every cell, and keeps the
// analyses of boards of few queens, where its search for one solution may
// visit most of the diagram. Explain and Why ask such a space whether a set
// of queens rules the cell by analysing the set, once a set. A space that
// answers one question by a solver call, as SAT does, is no Analyzer: its
// analysis is a call or more a cell.
type Analyzer interface {
	Space
	// AnalysisFirst marks the space; it does nothing.
	AnalysisFirst()
}

// rules reports whether the queens in set rule the cell: no solution holds
// them with a queen on it (blocked), or every solution holding them has
// one (forced). When the cell is not ruled, the queens of a solution that
// leaves it unruled are held: they prune every set they contain.
func (cr *cellReasons) rules(ctx context.Context, set []int) (bool, []int, error) {
	if _, first := cr.space.(Analyzer); first {
		return cr.rulesByAnalysis(ctx, set)
	}
	return cr.rulesByQuestion(ctx, set)
}

// rulesByQuestion is rules by one question: a solution with a queen on
// the cell (blocked), whose queens then prune every set they contain, or
// the satisfiability of the set without one (forced).
func (cr *cellReasons) rulesByQuestion(ctx context.Context, set []int) (bool, []int, error) {
	queens := cr.pick(set)
	if !cr.blocked {
		ok, err := cr.space.Satisfiable(ctx, queens, []Cell{cr.cell})
		if err != nil || !ok {
			return !ok, nil, err
		}
		return false, slices.Clone(set), nil
	}
	sol, err := cr.space.Solve(ctx, append(queens, cr.cell))
	if errors.Is(err, ErrNoSolution) {
		return true, nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	in := []int{}
	for j, q := range cr.queens {
		if slices.Contains(sol, q) {
			in = append(in, j)
		}
	}
	return false, in, nil
}

// rulesByAnalysis is rules by an analysis of the set: the cell's state
// under it. When the cell is not ruled, the set with every user queen the
// analysis forces has the same solutions, so it does not rule either: it
// prunes every set it contains.
func (cr *cellReasons) rulesByAnalysis(ctx context.Context, set []int) (bool, []int, error) {
	a, err := cr.space.Analyze(ctx, cr.pick(set))
	if err != nil {
		return false, nil, err
	}
	want := Forced
	if cr.blocked {
		want = Blocked
	}
	if a.At(cr.cell) == want {
		return true, nil, nil
	}
	in := []int{}
	for j, q := range cr.queens {
		if st := a.At(q); st == Queen || st == Forced {
			in = append(in, j)
		}
	}
	return false, in, nil
}

// pick returns the queens at the indices of set, with room for one more.
func (cr *cellReasons) pick(set []int) []Cell {
	queens := make([]Cell, len(set), len(set)+1)
	for i, j := range set {
		queens[i] = cr.queens[j]
	}
	return queens
}

// kind is the Reason of a set found.
func (cr *cellReasons) kind(set []int) Reason {
	switch {
	case !cr.blocked:
		return Forcing
	case len(set) == 1 && cr.space.Model().Attacks(cr.queens[set[0]], cr.cell):
		return Attack
	}
	return NoCompletion
}
