package configurator

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"
)

// MaxReasons is the most minimal reasons Explain lists for one cell. A cell
// under many queens can have very many (they grow with the subsets of the
// queens); past this many Explain stops and says that more may exist.
const MaxReasons = 8

// reasonBudget bounds the search for every reason beyond the first, so
// that a large board under many queens answers in time with the reasons
// found so far. The search also never takes more than half the time left
// to its context, leaving the rest for making room.
const reasonBudget = 2 * time.Second

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
	Room    []Cell
	Elapsed time.Duration
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
// is always one, however little time the search gets.
func (s *Session) Explain(ctx context.Context, c Cell) (*Explanation, error) {
	if err := s.onBoard(c); err != nil {
		return nil, err
	}
	start := time.Now()
	e := &Explanation{Cell: c, State: s.analysis.At(c)}
	if e.State != Blocked && e.State != Forced {
		return nil, fmt.Errorf("explain %v (%v): %w", c, e.State, ErrNotExplained)
	}
	rs := &reasonSearch{space: s.space, queens: s.queens, cell: c, blocked: e.State == Blocked}
	if err := rs.run(ctx); err != nil {
		return nil, fmt.Errorf("explain %v: %w", c, err)
	}
	if rs.blocked && !rs.nowhere {
		room, err := rs.room(ctx)
		if err != nil {
			return nil, fmt.Errorf("explain %v: make room: %w", c, err)
		}
		e.Room = s.cells(room)
	}
	m := s.space.Model()
	e.More = rs.more || len(rs.found) > MaxReasons
	for _, set := range rs.found[:min(len(rs.found), MaxReasons)] {
		cause := Cause{Reason: rs.kind(set), Queens: s.cells(set)}
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
	rs := &reasonSearch{space: s.space, queens: s.queens, cell: c, blocked: e.State == Blocked, firstOnly: true}
	if err := rs.run(ctx); err != nil {
		return nil, fmt.Errorf("why %v: %w", c, err)
	}
	first := rs.found[0]
	cause := Cause{Reason: rs.kind(first), Queens: s.cells(first)}
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

// reasonSearch finds the minimal reasons of one cell. Sets of queens are
// increasing lists of indices into queens.
type reasonSearch struct {
	space   Space
	queens  []Cell
	cell    Cell
	blocked bool // else forced

	found   [][]int         // minimal reasons, attacks first
	held    [][]int         // sets some solution holds (with the cell when blocked): nothing inside rules
	asked   map[string]bool // the sets asked about (setKey), and whether they rule
	attacks int             // found[:attacks] are attacks
	nowhere bool            // the empty set rules: the only reason
	more    bool            // the search ran out of time before trying every set
	// firstOnly stops run at the first reason: the attacks, or the one
	// shrink finds.
	firstOnly bool
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
// one (forced). Each set is asked once. When the cell is not ruled, the
// queens of a solution that leaves it unruled prune every set they
// contain (see held).
func (rs *reasonSearch) rules(ctx context.Context, set []int) (bool, error) {
	key := setKey(set)
	if ok, seen := rs.asked[key]; seen {
		return ok, nil
	}
	var ok bool
	var err error
	if _, first := rs.space.(Analyzer); first {
		ok, err = rs.rulesByAnalysis(ctx, set)
	} else {
		ok, err = rs.rulesByQuestion(ctx, set)
	}
	if err != nil {
		return false, err
	}
	if rs.asked == nil {
		rs.asked = make(map[string]bool)
	}
	rs.asked[key] = ok
	return ok, nil
}

// rulesByQuestion is rules by one question: a solution with a queen on
// the cell (blocked), whose queens then prune every set they contain, or
// the satisfiability of the set without one (forced).
func (rs *reasonSearch) rulesByQuestion(ctx context.Context, set []int) (bool, error) {
	queens := rs.pick(set)
	if !rs.blocked {
		ok, err := rs.space.Satisfiable(ctx, queens, []Cell{rs.cell})
		if err == nil && ok {
			rs.held = append(rs.held, slices.Clone(set))
		}
		return !ok, err
	}
	sol, err := rs.space.Solve(ctx, append(queens, rs.cell))
	if errors.Is(err, ErrNoSolution) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	var in []int
	for j, q := range rs.queens {
		if slices.Contains(sol, q) {
			in = append(in, j)
		}
	}
	rs.held = append(rs.held, in)
	return false, nil
}

// rulesByAnalysis is rules by an analysis of the set: the cell's state
// under it. When the cell is not ruled, the set with every user queen the
// analysis forces has the same solutions, so it does not rule either: it
// prunes every set it contains.
func (rs *reasonSearch) rulesByAnalysis(ctx context.Context, set []int) (bool, error) {
	a, err := rs.space.Analyze(ctx, rs.pick(set))
	if err != nil {
		return false, err
	}
	want := Forced
	if rs.blocked {
		want = Blocked
	}
	if a.At(rs.cell) == want {
		return true, nil
	}
	var in []int
	for j, q := range rs.queens {
		if st := a.At(q); st == Queen || st == Forced {
			in = append(in, j)
		}
	}
	rs.held = append(rs.held, in)
	return false, nil
}

// pick returns the queens at the indices of set, with room for one more.
func (rs *reasonSearch) pick(set []int) []Cell {
	queens := make([]Cell, len(set), len(set)+1)
	for i, j := range set {
		queens[i] = rs.queens[j]
	}
	return queens
}

// setKey is the key of a set of indices in reasonSearch.asked.
func setKey(set []int) string {
	var b []byte
	for _, j := range set {
		b = binary.AppendUvarint(b, uint64(j))
	}
	return string(b)
}

// run finds the reasons: the empty set, the attacks, one reason by
// deletion when there is no attack, then the rest by size within the
// budget.
func (rs *reasonSearch) run(ctx context.Context) error {
	if len(rs.queens) == 0 {
		// The cell is ruled with no queen at all: the empty set is
		// the reason, and no question needs asking.
		rs.nowhere, rs.found = true, [][]int{{}}
		return nil
	}
	if ok, err := rs.rules(ctx, nil); err != nil || ok {
		rs.nowhere = ok
		if ok {
			rs.found = [][]int{{}}
		}
		return err
	}
	var rest []int
	for j, q := range rs.queens {
		if rs.blocked && rs.space.Model().Attacks(q, rs.cell) {
			rs.found = append(rs.found, []int{j})
			continue
		}
		rest = append(rest, j)
	}
	rs.attacks = len(rs.found)
	if rs.firstOnly && len(rs.found) > 0 {
		return nil
	}
	if len(rs.found) == 0 {
		all := make([]int, len(rs.queens))
		for j := range all {
			all[j] = j
		}
		r, err := rs.shrink(ctx, all)
		if err != nil {
			return err
		}
		rs.found = append(rs.found, r)
	}
	if rs.firstOnly {
		return nil
	}
	budget := reasonBudget
	if d, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(d)/2)
	}
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	err := rs.bySize(sctx, rest)
	switch {
	case err == nil:
	case ctx.Err() == nil && sctx.Err() != nil:
		rs.more = true
	default:
		return err
	}
	rs.sort()
	return nil
}

// shrink returns a minimal reason inside set, which rules the cell: each
// queen in turn, last placed first, is dropped while the rest still rule.
func (rs *reasonSearch) shrink(ctx context.Context, set []int) ([]int, error) {
	set = slices.Clone(set)
	for i := len(set) - 1; i >= 0; i-- {
		rest := slices.Delete(slices.Clone(set), i, i+1)
		ok, err := rs.rules(ctx, rest)
		if err != nil {
			return nil, err
		}
		if ok {
			set = rest
		}
	}
	return set, nil
}

// bySize tries the sets of rest by increasing size, stopping once more
// than MaxReasons are known: the one past the cap proves that more exist.
func (rs *reasonSearch) bySize(ctx context.Context, rest []int) error {
	for set := range subsetsBySize(rest, 1) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(rs.found) > MaxReasons {
			return nil
		}
		if rs.pruned(set) {
			continue
		}
		ok, err := rs.rules(ctx, set)
		if err != nil {
			return err
		}
		if ok {
			rs.found = append(rs.found, slices.Clone(set))
		}
	}
	return nil
}

// pruned reports whether set need not be tried: it holds a reason found
// (so it is not minimal) or lies inside a solution's queens (so it rules
// nothing).
func (rs *reasonSearch) pruned(set []int) bool {
	for _, r := range rs.found {
		if subset(r, set) {
			return true
		}
	}
	for _, h := range rs.held {
		if subset(set, h) {
			return true
		}
	}
	return false
}

// sort puts the attacks first, then the others by size, then by placement.
func (rs *reasonSearch) sort() {
	slices.SortStableFunc(rs.found[rs.attacks:], func(a, b []int) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return slices.Compare(a, b)
	})
}

// kind is the Reason of a set found.
func (rs *reasonSearch) kind(set []int) Reason {
	switch {
	case !rs.blocked:
		return Forcing
	case len(set) == 1 && rs.space.Model().Attacks(rs.queens[set[0]], rs.cell):
		return Attack
	}
	return NoCompletion
}

// room returns a fewest set of queens that frees the blocked cell. A
// fewest set meeting every reason found is a lower bound on the answer
// (every set that frees the cell meets every reason); when removing it
// frees the cell it is the answer, and otherwise the queens it leaves
// still rule the cell and hold a reason not yet found, which is added
// before trying again.
func (rs *reasonSearch) room(ctx context.Context) ([]int, error) {
	all := slices.Clone(rs.found)
	for {
		hit, err := hittingSet(ctx, all)
		if err != nil {
			return nil, err
		}
		var kept []int
		for j := range rs.queens {
			if !slices.Contains(hit, j) {
				kept = append(kept, j)
			}
		}
		ok, err := rs.rules(ctx, kept)
		if err != nil {
			return nil, err
		}
		if !ok {
			return hit, nil
		}
		r, err := rs.shrink(ctx, kept)
		if err != nil {
			return nil, err
		}
		all = append(all, r)
		if !slices.ContainsFunc(rs.found, func(f []int) bool { return slices.Equal(f, r) }) {
			rs.found = append(rs.found, r)
			rs.more = rs.more || len(rs.found) > MaxReasons
			rs.sort()
		}
	}
}

// hittingSet returns a fewest set of indices that meets every set of sets
// (none is empty), the first such set in increasing lexicographic order
// of its size: the queens placed earliest go first.
func hittingSet(ctx context.Context, sets [][]int) ([]int, error) {
	var universe []int
	for _, s := range sets {
		for _, j := range s {
			if !slices.Contains(universe, j) {
				universe = append(universe, j)
			}
		}
	}
	slices.Sort(universe)
	for set := range subsetsBySize(universe, 0) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if hitsAll(set, sets) {
			return slices.Clone(set), nil
		}
	}
	return nil, errors.New("no set meets every reason") // an empty reason has no hitting set
}

// hitsAll reports whether set shares an element with every one of sets.
func hitsAll(set []int, sets [][]int) bool {
	for _, s := range sets {
		if !slices.ContainsFunc(s, func(j int) bool { return slices.Contains(set, j) }) {
			return false
		}
	}
	return true
}

// subset reports whether the increasing list a lies inside the increasing
// list b.
func subset(a, b []int) bool {
	i := 0
	for _, x := range b {
		if i < len(a) && a[i] == x {
			i++
		}
	}
	return i == len(a)
}

// subsetsBySize yields the subsets of from with at least least elements,
// by increasing size and, within a size, in lexicographic order of their
// positions in from. The slice yielded is reused: clone it to keep it.
func subsetsBySize(from []int, least int) iter.Seq[[]int] {
	return func(yield func([]int) bool) {
		for k := least; k <= len(from); k++ {
			idx := make([]int, k)
			for i := range idx {
				idx[i] = i
			}
			set := make([]int, k)
			for {
				for i, j := range idx {
					set[i] = from[j]
				}
				if !yield(set) {
					return
				}
				if !nextCombination(idx, len(from)) {
					break
				}
			}
		}
	}
}

// nextCombination advances idx, a strictly increasing k-subset of 0..n-1,
// to the next one in lexicographic order, reporting false after the last.
func nextCombination(idx []int, n int) bool {
	k := len(idx)
	i := k - 1
	for i >= 0 && idx[i] == n-k+i {
		i--
	}
	if i < 0 {
		return false
	}
	idx[i]++
	for j := i + 1; j < k; j++ {
		idx[j] = idx[j-1] + 1
	}
	return true
}
