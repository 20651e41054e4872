package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/oracle"
)

// compareAnalysis checks a subject's analysis of queens against the
// oracle's, reporting whether they agree.
func (c *checker) compareAnalysis(i int, queens []configurator.Cell, got *configurator.Analysis, want *oracle.Analysis) bool {
	ok := true
	if got.N != c.n || len(got.Cells) != c.n*c.n {
		c.disagree(i, queens, "analyze", nil, fmt.Sprintf("a %d×%d analysis with %d cells", got.N, got.N, len(got.Cells)), fmt.Sprintf("%d×%d", c.n, c.n))
		return false
	}
	for v, s := range want.Cells {
		if g, w := got.Cells[v], state(s); g != w {
			cell := configurator.Cell{Row: v / c.n, Col: v % c.n}
			c.disagree(i, queens, "analyze", &cell, g.String(), w.String())
			ok = false
		}
	}
	if got.Solutions != nil {
		g, w := got.Solutions, int64(want.Solutions)
		switch {
		case got.AtLeast && (!g.IsInt64() || g.Int64() > w):
			c.disagree(i, queens, "count", nil, "at least "+g.String(), fmt.Sprint(w))
			ok = false
		case !got.AtLeast && (!g.IsInt64() || g.Int64() != w):
			c.disagree(i, queens, "count", nil, g.String(), fmt.Sprint(w))
			ok = false
		}
	}
	return ok
}

// session opens a session of subject i on queens and checks its analysis.
// It returns nil when the session cannot be opened (reported) or the
// context is done (err).
func (c *checker) session(ctx context.Context, i int, queens []configurator.Cell, want *oracle.Analysis) (*configurator.Session, error) {
	var s *configurator.Session
	var err error
	c.timed(i, func() { s, err = configurator.NewSession(ctx, c.subjects[i].Space, queens) })
	if stop(ctx, err) {
		return nil, err
	}
	if want.Solutions == 0 {
		// Only the empty placement of a board without solutions gets
		// here: legal clicks reach no other unsolvable placement.
		if !errors.Is(err, configurator.ErrNoSolution) {
			c.disagree(i, queens, "analyze", nil, fmt.Sprintf("error %v", err), "ErrNoSolution")
		}
		return nil, nil
	}
	if err != nil {
		c.disagree(i, queens, "analyze", nil, "error: "+err.Error(), fmt.Sprintf("%d solutions", want.Solutions))
		return nil, nil
	}
	c.compareAnalysis(i, queens, s.Analysis(), want)
	return s, nil
}

// checkRefusals tries to place a queen on every blocked and occupied cell:
// each must fail with the right error and leave the session unchanged.
// Session.Place decides this from the analysis alone, so it is cheap.
func (c *checker) checkRefusals(ctx context.Context, i int, s *configurator.Session, cells []configurator.Cell, want error) {
	queens, a := s.Queens(), s.Analysis()
	for _, cell := range cells {
		var err error
		c.timed(i, func() { err = s.Place(ctx, cell) })
		if !errors.Is(err, want) {
			c.disagree(i, queens, "place", &cell, fmt.Sprintf("error %v", err), fmt.Sprintf("error %v", want))
		}
		if !slices.Equal(s.Queens(), queens) || s.Analysis() != a {
			c.disagree(i, queens, "place", &cell, "session changed ["+configurator.FormatCells(s.Queens())+"]", "unchanged")
			return
		}
	}
}

// checkExplain asks subject i's session why cell is as the oracle says
// (blocked or forced) and verifies the answer with the oracle.
func (c *checker) checkExplain(ctx context.Context, i int, s *configurator.Session, cell configurator.Cell, st oracle.State) error {
	queens := s.Queens()
	var e *configurator.Explanation
	var err error
	c.timed(i, func() { e, err = s.Explain(ctx, cell) })
	if stop(ctx, err) {
		return err
	}
	if st != oracle.Blocked && st != oracle.Forced {
		if !errors.Is(err, configurator.ErrNotExplained) {
			c.disagree(i, queens, "explain", &cell, fmt.Sprintf("%v, error %v", e, err), "ErrNotExplained")
		}
		return nil
	}
	if err != nil {
		c.disagree(i, queens, "explain", &cell, "error: "+err.Error(), "an explanation")
		return nil
	}
	if e.Cell != cell || e.State != state(st) || len(e.Reasons) == 0 || e.Reason != e.Reasons[0].Reason || !slices.Equal(e.Because, e.Reasons[0].Queens) {
		c.disagree(i, queens, "explain", &cell, fmt.Sprintf("%v %v [%s], %d reasons", e.Cell, e.State, configurator.FormatCells(e.Because), len(e.Reasons)),
			fmt.Sprintf("an explanation of %v as %v whose first reason is Because", cell, state(st)))
		return nil
	}
	// One disagreement per explanation: the first reason that is wrong.
	for _, r := range e.Reasons {
		got := fmt.Sprintf("%v [%s] %q", r.Reason, configurator.FormatCells(r.Queens), r.String())
		if problem := c.reasonProblem(queens, cell, st, r); problem != "" {
			c.disagree(i, queens, "explain", &cell, got, problem)
			break
		}
	}
	return nil
}

// reasonProblem says what is wrong with r as a reason why cell is in state
// st under queens, or "" when it is right.
func (c *checker) reasonProblem(queens []configurator.Cell, cell configurator.Cell, st oracle.State, r configurator.Cause) string {
	seen := map[configurator.Cell]bool{}
	for _, q := range r.Queens {
		if !slices.Contains(queens, q) || seen[q] {
			return "only the user's queens, each once"
		}
		seen[q] = true
	}
	// holds says whether the queens qs alone rule the cell as it is.
	holds := func(qs []configurator.Cell) (ok bool) {
		c.ask(func() {
			if st == oracle.Blocked {
				ok = c.board.Blocked(ocells(qs), ocell(cell))
			} else {
				ok = c.board.Forced(ocells(qs), ocell(cell))
			}
		})
		return ok
	}
	attack := len(r.Queens) == 1 && oracle.Attacks(ocell(r.Queens[0]), ocell(cell))
	switch {
	case st == oracle.Forced && r.Reason != configurator.Forcing:
		return "reason forced"
	case st == oracle.Blocked && r.Reason == configurator.Attack && !attack:
		return "an attack by exactly one queen that attacks the cell"
	case st == oracle.Blocked && r.Reason == configurator.NoCompletion && attack:
		return "reason attack, since the one queen attacks the cell"
	case st == oracle.Blocked && r.Reason != configurator.Attack && r.Reason != configurator.NoCompletion:
		return "reason attack or no-completion"
	case !holds(r.Queens):
		return "queens that alone rule the cell out"
	}
	for j := range r.Queens {
		if holds(slices.Delete(slices.Clone(r.Queens), j, j+1)) {
			return fmt.Sprintf("a minimal set (without %v the rest still rules the cell out)", r.Queens[j])
		}
	}
	return ""
}

// checkMakeRoom asks subject i's session which queens to remove to free the
// blocked cell, and verifies the answer is a minimum one.
func (c *checker) checkMakeRoom(ctx context.Context, i int, s *configurator.Session, cell configurator.Cell) ([]configurator.Cell, error) {
	queens := s.Queens()
	var remove []configurator.Cell
	var err error
	c.timed(i, func() { remove, err = s.MakeRoom(ctx, cell) })
	if stop(ctx, err) {
		return nil, err
	}
	var k int
	var possible bool
	c.ask(func() { k, possible = c.board.MinRemoval(ocells(queens), ocell(cell)) })
	if !possible {
		if !errors.Is(err, configurator.ErrNoSolution) {
			c.disagree(i, queens, "make-room", &cell, fmt.Sprintf("[%s], error %v", configurator.FormatCells(remove), err), "ErrNoSolution: no solution uses the cell")
		}
		return nil, nil
	}
	if err != nil {
		c.disagree(i, queens, "make-room", &cell, "error: "+err.Error(), fmt.Sprintf("%d queens to remove", k))
		return nil, nil
	}
	got := "[" + configurator.FormatCells(remove) + "]"
	// In placement order, each queen of the user's once.
	last := -1
	for _, q := range remove {
		j := slices.Index(queens, q)
		if j <= last {
			c.disagree(i, queens, "make-room", &cell, got, "user queens in placement order, each once")
			return nil, nil
		}
		last = j
	}
	kept := slices.DeleteFunc(slices.Clone(queens), func(q configurator.Cell) bool { return slices.Contains(remove, q) })
	var freed bool
	c.ask(func() { freed = !c.board.Blocked(ocells(kept), ocell(cell)) })
	switch {
	case !freed:
		c.disagree(i, queens, "make-room", &cell, got, "a removal that frees the cell")
	case len(remove) != k:
		c.disagree(i, queens, "make-room", &cell, got, fmt.Sprintf("a minimum removal, %d queens", k))
	default:
		return remove, nil
	}
	return nil, nil
}

// isSolutionWith reports whether sol is a solution holding every queen.
func (c *checker) isSolutionWith(sol, queens []configurator.Cell) bool {
	var ok bool
	c.ask(func() { ok = c.board.IsSolution(ocells(sol)) })
	if !ok {
		return false
	}
	for _, q := range queens {
		if !slices.Contains(sol, q) {
			return false
		}
	}
	return true
}

// checkSolve asks subject i's space for a solution holding queens.
func (c *checker) checkSolve(ctx context.Context, i int, queens []configurator.Cell, want *oracle.Analysis) error {
	var sol []configurator.Cell
	var err error
	c.timed(i, func() { sol, err = c.subjects[i].Space.Solve(ctx, queens) })
	if stop(ctx, err) {
		return err
	}
	switch {
	case want.Solutions == 0 && !errors.Is(err, configurator.ErrNoSolution):
		c.disagree(i, queens, "solve", nil, fmt.Sprintf("[%s], error %v", configurator.FormatCells(sol), err), "ErrNoSolution")
	case want.Solutions > 0 && err != nil:
		c.disagree(i, queens, "solve", nil, "error: "+err.Error(), "a solution")
	case want.Solutions > 0 && !c.isSolutionWith(sol, queens):
		c.disagree(i, queens, "solve", nil, "["+configurator.FormatCells(sol)+"]", "a solution holding the queens")
	}
	return nil
}

// checkSatisfiable asks subject i whether a solution has queens on with and
// none on without.
func (c *checker) checkSatisfiable(ctx context.Context, i int, queens, with, without []configurator.Cell) error {
	var got bool
	var err error
	c.timed(i, func() { got, err = c.subjects[i].Space.Satisfiable(ctx, with, without) })
	if stop(ctx, err) {
		return err
	}
	var want bool
	c.ask(func() { want = c.board.Satisfiable(ocells(with), ocells(without)) })
	if err != nil || got != want {
		what := fmt.Sprintf("with [%s] without [%s]", configurator.FormatCells(with), configurator.FormatCells(without))
		c.disagree(i, queens, "satisfiable", nil, fmt.Sprintf("%v (error %v) %s", got, err, what), fmt.Sprint(want))
	}
	return nil
}

// deep checks everything about one placement for subject i: the analysis,
// refusals, an explanation of every cell, room made for every blocked
// cell, and a solution.
func (c *checker) deep(ctx context.Context, i int, queens []configurator.Cell, want *oracle.Analysis) error {
	s, err := c.session(ctx, i, queens, want)
	if err != nil {
		return err
	}
	if s == nil {
		if want.Solutions == 0 {
			return c.checkSolve(ctx, i, queens, want)
		}
		return nil
	}
	c.checkRefusals(ctx, i, s, cellsIn(want, oracle.Blocked), configurator.ErrBlocked)
	c.checkRefusals(ctx, i, s, queens, configurator.ErrOccupied)
	for v, st := range want.Cells {
		cell := configurator.Cell{Row: v / c.n, Col: v % c.n}
		if s.Analysis().Cells[v] != state(st) {
			continue // reported by the analysis; the session would explain its own view
		}
		if err := c.checkExplain(ctx, i, s, cell, st); err != nil {
			return err
		}
		if st == oracle.Blocked {
			if _, err := c.checkMakeRoom(ctx, i, s, cell); err != nil {
				return err
			}
		}
	}
	return c.checkSolve(ctx, i, queens, want)
}

// shrink reduces the placement of disagreement d: while dropping one queen
// keeps a disagreement of the same check for the same subject, it drops it.
// Subsets of a placement some solution holds are held too, so every smaller
// placement is one the user can reach.
func (c *checker) shrink(ctx context.Context, i int, d Disagreement) (Disagreement, error) {
	saved := c.found
	defer func() { c.found = saved }()
	for {
		smaller := false
		for j := range d.Queens {
			sub := slices.Delete(slices.Clone(d.Queens), j, j+1)
			c.found = nil
			if err := c.deep(ctx, i, sub, c.truth(sub)); err != nil {
				return d, err
			}
			k := slices.IndexFunc(c.found, func(e Disagreement) bool { return e.Check == d.Check })
			if k >= 0 {
				walk, step := d.Walk, d.Step
				d = c.found[k]
				d.Walk, d.Step = walk, step
				smaller = true
				break
			}
		}
		if !smaller {
			return d, nil
		}
	}
}
