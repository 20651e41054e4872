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

// ask runs f, a question to the oracle, and charges its time to the
// oracle.
func (c *checker) ask(f func()) {
	start := time.Now()
	f()
	c.rep.OracleTime += time.Since(start)
}

// truth is the oracle's analysis of queens.
func (c *checker) truth(queens []configurator.Cell) (a *oracle.Analysis) {
	c.ask(func() { a = c.board.Analyze(ocells(queens)) })
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
