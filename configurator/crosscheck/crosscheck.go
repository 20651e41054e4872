// Package crosscheck drives configurator spaces and the brute-force oracle
// over the same placements and reports every disagreement between them.
//
// Each space answers through the real session logic (configurator.Session),
// so a check covers the backend and the shared code on top of it:
//
//   - Analyze: every cell's state and the number of solutions (a count
//     marked AtLeast is compared as a lower bound, a missing one not at all);
//   - Place on a blocked or occupied cell fails with ErrBlocked or
//     ErrOccupied and leaves the session as it was;
//   - Explain: the reason holds for the queens in Because (the oracle finds
//     the cell blocked, or forced, given only those queens), and removing
//     any one of them breaks it (subset-minimal); an Attack names one queen
//     that attacks the cell, by the oracle's own rule;
//   - MakeRoom: removing the answer frees the cell, and no smaller set
//     does (the oracle computes the minimum directly);
//   - Solve and Complete: a full solution that extends the placement;
//   - Satisfiable on random sets of cells with and without queens.
//
// Exhaustive checks every placement reachable by legal clicks on a small
// board; Walk follows seeded random walks on larger ones. The oracle, not the
// spaces, decides which moves are legal, so a space that disagrees does not
// steer the walk.
package crosscheck

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/oracle"
)

// Subject is a compiled space under test and the name it is reported by.
type Subject struct {
	Name  string
	Space configurator.Space
}

// Disagreement is one answer of a subject that the oracle contradicts.
type Disagreement struct {
	Subject string
	N       int
	// Queens is the placement, in the order the queens were placed.
	Queens []configurator.Cell
	// Check names the question: analyze, count, place, explain,
	// make-room, solve, complete, satisfiable.
	Check string
	// Cell is the cell the question was about, when HasCell.
	Cell    configurator.Cell
	HasCell bool
	Got     string
	Want    string
	// Walk and Step locate a disagreement of a random walk (both -1 for
	// the exhaustive check).
	Walk, Step int
}

func (d Disagreement) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, N=%d, queens [%s]: %s", d.Subject, d.N, configurator.FormatCells(d.Queens), d.Check)
	if d.HasCell {
		fmt.Fprintf(&b, " %v", d.Cell)
	}
	fmt.Fprintf(&b, ": got %s, want %s", d.Got, d.Want)
	if d.Walk >= 0 {
		fmt.Fprintf(&b, " (walk %d, step %d)", d.Walk, d.Step)
	}
	return b.String()
}

// MaxKept bounds the disagreements a Report lists; Report.Count counts them
// all.
const MaxKept = 200

// Report is the outcome of a check of one board size.
type Report struct {
	N int
	// Subjects names the spaces checked; Time[i] is the time spent in
	// Subjects[i] (its answers and the session logic around them, not its
	// compilation), OracleTime the oracle's.
	Subjects   []string
	Time       []time.Duration
	OracleTime time.Duration
	// Placements is the number of distinct placements checked in depth
	// (every cell explained, every blocked cell made room for).
	Placements int
	// Walks and Steps count the random walks and their steps.
	Walks, Steps int
	// Disagreements lists the first MaxKept disagreements found (each
	// reduced to a smallest placement that still shows it); Count is how
	// many there were.
	Disagreements []Disagreement
	Count         int

	smallest *Disagreement // of all found, listed or not
}

// Smallest returns the disagreement with the fewest queens (the first found
// of those), and false when there is none.
func (r *Report) Smallest() (Disagreement, bool) {
	if r.smallest == nil {
		return Disagreement{}, false
	}
	return *r.smallest, true
}

// ErrSubjects reports subjects that cannot be checked together: none, or
// boards of different sizes, or a board beyond the oracle.
var ErrSubjects = errors.New("crosscheck: bad subjects")

// checker holds what one check of one board size needs.
type checker struct {
	n        int
	board    *oracle.Board
	subjects []Subject
	rep      *Report
	// found collects the disagreements of the step in progress.
	found      []Disagreement
	walk, step int
	// shrinks counts the disagreements reduced so far; past maxShrinks
	// they are recorded as found, so a badly broken subject cannot make
	// a walk crawl.
	shrinks int
}

// maxShrinks bounds the disagreements of one Report that Walk reduces.
const maxShrinks = 10

func newChecker(subjects []Subject) (*checker, error) {
	if len(subjects) == 0 {
		return nil, fmt.Errorf("%w: no subjects", ErrSubjects)
	}
	n := subjects[0].Space.Model().N()
	rep := &Report{N: n, Time: make([]time.Duration, len(subjects))}
	for _, s := range subjects {
		if s.Space.Model().N() != n {
			return nil, fmt.Errorf("%w: %s has N=%d, %s N=%d", ErrSubjects, s.Name, s.Space.Model().N(), subjects[0].Name, n)
		}
		rep.Subjects = append(rep.Subjects, s.Name)
	}
	start := time.Now()
	board, err := oracle.New(n)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSubjects, err)
	}
	rep.OracleTime = time.Since(start)
	return &checker{n: n, board: board, subjects: subjects, rep: rep, walk: -1, step: -1}, nil
}

// disagree records a disagreement of subject i on the placement queens.
func (c *checker) disagree(i int, queens []configurator.Cell, check string, cell *configurator.Cell, got, want string) {
	d := Disagreement{
		Subject: c.subjects[i].Name, N: c.n, Queens: slices.Clone(queens),
		Check: check, Got: got, Want: want, Walk: c.walk, Step: c.step,
	}
	if cell != nil {
		d.Cell, d.HasCell = *cell, true
	}
	c.found = append(c.found, d)
}

// record moves the disagreements found into the report.
func (c *checker) record(ds []Disagreement) {
	c.rep.Count += len(ds)
	for _, d := range ds {
		if c.rep.smallest == nil || len(d.Queens) < len(c.rep.smallest.Queens) {
			c.rep.smallest = &d
		}
		if len(c.rep.Disagreements) < MaxKept {
			c.rep.Disagreements = append(c.rep.Disagreements, d)
		}
	}
}

// timed runs f and charges its time to subject i.
func (c *checker) timed(i int, f func()) {
	start := time.Now()
	f()
	c.rep.Time[i] += time.Since(start)
}

// truth is the oracle's analysis of queens, timed.
func (c *checker) truth(queens []configurator.Cell) *oracle.Analysis {
	start := time.Now()
	a := c.board.Analyze(ocells(queens))
	c.rep.OracleTime += time.Since(start)
	return a
}

func ocell(x configurator.Cell) oracle.Cell { return oracle.Cell{Row: x.Row, Col: x.Col} }

func ocells(xs []configurator.Cell) []oracle.Cell {
	out := make([]oracle.Cell, len(xs))
	for i, x := range xs {
		out[i] = ocell(x)
	}
	return out
}

// state maps the oracle's states onto the configurator's.
func state(s oracle.State) configurator.State {
	switch s {
	case oracle.Blocked:
		return configurator.Blocked
	case oracle.Queen:
		return configurator.Queen
	case oracle.Forced:
		return configurator.Forced
	}
	return configurator.Free
}

// cellsIn lists the cells of the oracle's analysis in state s, row-major.
func cellsIn(a *oracle.Analysis, s oracle.State) []configurator.Cell {
	var out []configurator.Cell
	for v, st := range a.Cells {
		if st == s {
			out = append(out, configurator.Cell{Row: v / a.N, Col: v % a.N})
		}
	}
	return out
}

// stop reports whether err ends the whole check (the context is done)
// rather than being an answer to compare.
func stop(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil
}

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
	got := fmt.Sprintf("%v [%s] %q", e.Reason, configurator.FormatCells(e.Because), e.String())
	if problem := c.explanationProblem(queens, cell, st, e); problem != "" {
		c.disagree(i, queens, "explain", &cell, got, problem)
	}
	return nil
}

// explanationProblem says what is wrong with e as the reason why cell is in
// state st under queens, or "" when it is right.
func (c *checker) explanationProblem(queens []configurator.Cell, cell configurator.Cell, st oracle.State, e *configurator.Explanation) string {
	if e.Cell != cell || e.State != state(st) {
		return fmt.Sprintf("an explanation of %v as %v", cell, state(st))
	}
	seen := map[configurator.Cell]bool{}
	for _, q := range e.Because {
		if !slices.Contains(queens, q) || seen[q] {
			return "only the user's queens, each once"
		}
		seen[q] = true
	}
	// holds says whether the queens qs alone rule the cell as it is.
	holds := func(qs []configurator.Cell) bool {
		if st == oracle.Blocked {
			return c.board.Blocked(ocells(qs), ocell(cell))
		}
		return c.board.Forced(ocells(qs), ocell(cell))
	}
	attack := len(e.Because) == 1 && oracle.Attacks(ocell(e.Because[0]), ocell(cell))
	switch {
	case st == oracle.Forced && e.Reason != configurator.Forcing:
		return "reason forced"
	case st == oracle.Blocked && e.Reason == configurator.Attack && !attack:
		return "an attack by exactly one queen that attacks the cell"
	case st == oracle.Blocked && e.Reason == configurator.NoCompletion && attack:
		return "reason attack, since the one queen attacks the cell"
	case st == oracle.Blocked && e.Reason != configurator.Attack && e.Reason != configurator.NoCompletion:
		return "reason attack or no-completion"
	case !holds(e.Because):
		return "queens that alone rule the cell out"
	}
	for j := range e.Because {
		if holds(slices.Delete(slices.Clone(e.Because), j, j+1)) {
			return fmt.Sprintf("a minimal set (without %v the rest still rules the cell out)", e.Because[j])
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
	k, possible := c.board.MinRemoval(ocells(queens), ocell(cell))
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
	switch {
	case c.board.Blocked(ocells(kept), ocell(cell)):
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
	if !c.board.IsSolution(ocells(sol)) {
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
	want := c.board.Satisfiable(ocells(with), ocells(without))
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

// Exhaustive checks every placement a user can reach by legal clicks on the
// subjects' board (placing queens on free or forced cells, in any order:
// every subset of every solution), each once as a set, in depth: analysis,
// refusals, explanations of every blocked and forced cell, room made for
// every blocked cell, a solution. It suits boards up to N=6 or 7.
func Exhaustive(ctx context.Context, subjects []Subject) (*Report, error) {
	c, err := newChecker(subjects)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var visit func(queens []configurator.Cell) error
	visit = func(queens []configurator.Cell) error {
		key := setKey(queens)
		if seen[key] {
			return nil
		}
		seen[key] = true
		if err := ctx.Err(); err != nil {
			return err
		}
		want := c.truth(queens)
		c.rep.Placements++
		for i := range c.subjects {
			if err := c.deep(ctx, i, queens, want); err != nil {
				return err
			}
		}
		c.record(c.found)
		c.found = nil
		for v, st := range want.Cells {
			if st == oracle.Free || st == oracle.Forced {
				if err := visit(append(slices.Clone(queens), configurator.Cell{Row: v / c.n, Col: v % c.n})); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := visit(nil); err != nil {
		return c.rep, fmt.Errorf("crosscheck N=%d: %w", c.n, err)
	}
	return c.rep, nil
}

// setKey names a placement as a set.
func setKey(queens []configurator.Cell) string {
	s := slices.Clone(queens)
	slices.SortFunc(s, func(a, b configurator.Cell) int {
		return cmp.Or(cmp.Compare(a.Row, b.Row), cmp.Compare(a.Col, b.Col))
	})
	return configurator.FormatCells(s)
}

// WalkOptions says how many random walks to take and how long.
type WalkOptions struct {
	Walks, Steps int
	// Seed makes the walks reproducible: walk w on board N draws from a
	// generator seeded with (Seed, N<<32 | w).
	Seed uint64
}

// Walk takes seeded random walks on the subjects' board. A step places a
// queen (now and then on a blocked or occupied cell, which must be
// refused), removes one, explains a blocked or forced cell, makes room for
// a blocked cell (and sometimes takes the advice), completes the placement,
// or asks a random satisfiability question; after every change each
// subject's analysis is compared with the oracle's. A disagreement is
// reduced to a smallest placement that still shows it.
func Walk(ctx context.Context, subjects []Subject, opt WalkOptions) (*Report, error) {
	c, err := newChecker(subjects)
	if err != nil {
		return nil, err
	}
	for w := range opt.Walks {
		c.walk = w
		if err := c.walkOnce(ctx, rand.New(rand.NewPCG(opt.Seed, uint64(c.n)<<32|uint64(w))), opt.Steps); err != nil {
			return c.rep, fmt.Errorf("crosscheck N=%d walk %d: %w", c.n, w, err)
		}
		c.rep.Walks++
	}
	return c.rep, nil
}

// walker is the state of one walk: the placement the oracle holds true and
// every subject's session on it (nil when a subject has dropped out of
// this walk after a disagreement it could not recover from).
type walker struct {
	*checker
	queens   []configurator.Cell
	want     *oracle.Analysis
	sessions []*configurator.Session
}

func (c *checker) walkOnce(ctx context.Context, rng *rand.Rand, steps int) error {
	w := &walker{checker: c, sessions: make([]*configurator.Session, len(c.subjects))}
	w.want = c.truth(nil)
	c.step = 0
	for i := range c.subjects {
		s, err := c.session(ctx, i, nil, w.want)
		if err != nil {
			return err
		}
		w.sessions[i] = s
	}
	if err := c.settle(ctx); err != nil {
		return err
	}
	for step := 1; step <= steps; step++ {
		c.step = step
		if err := w.move(ctx, rng); err != nil {
			return err
		}
		c.rep.Steps++
		if err := c.settle(ctx); err != nil {
			return err
		}
	}
	return nil
}

// settle shrinks and records the disagreements of the step just taken.
func (c *checker) settle(ctx context.Context) error {
	found := c.found
	c.found = nil
	for k, d := range found {
		i := slices.Index(c.rep.Subjects, d.Subject)
		first := k == 0 || d.Check != found[k-1].Check || d.Subject != found[k-1].Subject
		if first && c.shrinks < maxShrinks {
			c.shrinks++
			var err error
			if d, err = c.shrink(ctx, i, d); err != nil {
				return err
			}
		}
		c.record([]Disagreement{d})
	}
	return nil
}

// random returns a random element of cells, false when it is empty.
func random(rng *rand.Rand, cells []configurator.Cell) (configurator.Cell, bool) {
	if len(cells) == 0 {
		return configurator.Cell{}, false
	}
	return cells[rng.IntN(len(cells))], true
}

// move takes one random step of the walk.
func (w *walker) move(ctx context.Context, rng *rand.Rand) error {
	free := append(cellsIn(w.want, oracle.Free), cellsIn(w.want, oracle.Forced)...)
	blocked := cellsIn(w.want, oracle.Blocked)
	forced := cellsIn(w.want, oracle.Forced)
	switch p := rng.IntN(100); {
	case p < 35 && len(free) > 0:
		cell, _ := random(rng, free)
		return w.apply(ctx, append(slices.Clone(w.queens), cell), func(s *configurator.Session) error { return s.Place(ctx, cell) })
	case p < 42:
		// A refused click: a blocked cell, or a queen already there.
		for i, s := range w.sessions {
			if s == nil {
				continue
			}
			if cell, ok := random(rng, blocked); ok && s.Analysis().At(cell) == configurator.Blocked {
				w.checkRefusals(ctx, i, s, []configurator.Cell{cell}, configurator.ErrBlocked)
			}
			if cell, ok := random(rng, w.queens); ok {
				w.checkRefusals(ctx, i, s, []configurator.Cell{cell}, configurator.ErrOccupied)
			}
		}
		return nil
	case p < 60 && len(w.queens) > 0:
		cell, _ := random(rng, w.queens)
		queens := slices.DeleteFunc(slices.Clone(w.queens), func(q configurator.Cell) bool { return q == cell })
		return w.apply(ctx, queens, func(s *configurator.Session) error { return s.Remove(ctx, cell) })
	case p < 75:
		// Explain a blocked or forced cell (or, rarely, a free one,
		// which must be refused).
		pool := append(slices.Clone(blocked), forced...)
		if rng.IntN(10) == 0 {
			pool = append(pool, free...)
		}
		cell, ok := random(rng, pool)
		if !ok {
			return nil
		}
		for i, s := range w.sessions {
			if s != nil && s.Analysis().At(cell) == state(w.want.At(ocell(cell))) {
				if err := w.checkExplain(ctx, i, s, cell, w.want.At(ocell(cell))); err != nil {
					return err
				}
			}
		}
		return nil
	case p < 88:
		cell, ok := random(rng, blocked)
		if !ok {
			return nil
		}
		var advice []configurator.Cell
		for i, s := range w.sessions {
			if s == nil || s.Analysis().At(cell) != configurator.Blocked {
				continue
			}
			remove, err := w.checkMakeRoom(ctx, i, s, cell)
			if err != nil {
				return err
			}
			if advice == nil {
				advice = remove
			}
		}
		// Take the (verified) advice of the first subject half the time:
		// every session removes those queens.
		if len(advice) > 0 && rng.IntN(2) == 0 {
			queens := slices.DeleteFunc(slices.Clone(w.queens), func(q configurator.Cell) bool { return slices.Contains(advice, q) })
			return w.apply(ctx, queens, func(s *configurator.Session) error { return s.Remove(ctx, advice...) })
		}
		return nil
	case p < 93:
		return w.complete(ctx, rng)
	default:
		return w.probe(ctx, rng)
	}
}

// apply performs the same change on every session and checks that each
// now holds queens and analyzes it as the oracle does. A session that
// fails is reported and reopened on queens.
func (w *walker) apply(ctx context.Context, queens []configurator.Cell, change func(*configurator.Session) error) error {
	before := w.queens
	w.queens, w.want = queens, w.truth(queens)
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
		if err != nil || !slices.Equal(s.Queens(), queens) {
			w.disagree(i, before, "session", nil, fmt.Sprintf("[%s], error %v", configurator.FormatCells(s.Queens()), err), "["+configurator.FormatCells(queens)+"]")
			if err := w.reopen(ctx, i); err != nil {
				return err
			}
			continue
		}
		w.compareAnalysis(i, queens, s.Analysis(), w.want)
	}
	return nil
}

// reopen gives subject i a fresh session on the walk's placement.
func (w *walker) reopen(ctx context.Context, i int) error {
	s, err := w.session(ctx, i, w.queens, w.want)
	w.sessions[i] = s
	return err
}

// complete asks every session to complete the placement and checks each
// answer; the walk then goes on from one random completion the oracle
// picks, every session reopened on it.
func (w *walker) complete(ctx context.Context, rng *rand.Rand) error {
	for i, s := range w.sessions {
		if s == nil {
			continue
		}
		before := s.Queens()
		var err error
		w.timed(i, func() { err = s.Complete(ctx, rand.New(rand.NewPCG(rng.Uint64(), 0))) })
		if stop(ctx, err) {
			return err
		}
		after := s.Queens()
		if err != nil || !w.isSolutionWith(after, before) || !slices.Equal(after[:len(before)], before) {
			w.disagree(i, before, "complete", nil, fmt.Sprintf("[%s], error %v", configurator.FormatCells(after), err), "a solution extending the queens, theirs first")
		} else if a := s.Analysis(); len(a.In(configurator.Queen)) != w.n {
			w.disagree(i, after, "analyze", nil, fmt.Sprintf("%d queens", len(a.In(configurator.Queen))), fmt.Sprintf("%d queens", w.n))
		}
	}
	ext := w.board.Extending(ocells(w.queens))
	if len(ext) == 0 {
		return nil
	}
	queens := slices.Clone(w.queens)
	for _, q := range w.board.Solution(ext[rng.IntN(len(ext))]) {
		if cell := (configurator.Cell{Row: q.Row, Col: q.Col}); !slices.Contains(queens, cell) {
			queens = append(queens, cell)
		}
	}
	w.queens, w.want = queens, w.truth(queens)
	for i := range w.sessions {
		if err := w.reopen(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

// probe asks every space a random satisfiability question around the
// placement, and for a solution of it.
func (w *walker) probe(ctx context.Context, rng *rand.Rand) error {
	var with, without []configurator.Cell
	for _, q := range w.queens {
		if rng.IntN(2) == 0 {
			with = append(with, q)
		}
	}
	for range rng.IntN(3) {
		cell := configurator.Cell{Row: rng.IntN(w.n), Col: rng.IntN(w.n)}
		if slices.Contains(with, cell) || slices.Contains(without, cell) {
			continue
		}
		if rng.IntN(2) == 0 {
			with = append(with, cell)
		} else {
			without = append(without, cell)
		}
	}
	for i := range w.subjects {
		if err := w.checkSatisfiable(ctx, i, w.queens, with, without); err != nil {
			return err
		}
		if err := w.checkSolve(ctx, i, w.queens, w.want); err != nil {
			return err
		}
	}
	return nil
}
