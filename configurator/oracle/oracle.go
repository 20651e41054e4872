// Package oracle answers N-Queens questions, and questions about small
// feature models (Features), by brute force, as the reference the
// cross-check compares the backends against.
//
// It is deliberately independent of package configurator: it has its own
// cell type and its own rule for when two queens attack (same row, same
// column, or |Δrow| == |Δcol|), and it never reads configurator.Model. A bug
// in the shared model therefore shows as a disagreement between the oracle
// and every backend, instead of hiding in all of them at once.
//
// A Board enumerates every solution once, by plain backtracking, and answers
// each question by filtering that list. It aims at being obviously correct,
// not fast: the list holds 724 solutions at N=10 and 73,712 at N=13.
// Features does the same for a feature model: it judges every assignment of
// its features with the model's own meaning (a function the caller passes,
// feature.Model.Valid in the cross-check), never with the clauses a backend
// compiles.
package oracle

import (
	"errors"
	"fmt"
	"slices"
)

// MaxN is the largest board the oracle enumerates (73,712 solutions).
const MaxN = 13

// Cell is a square: Row 0 is the first rank, Col 0 the first file.
type Cell struct {
	Row, Col int
}

// State is what a cell is under a placement.
type State uint8

const (
	// Free: empty, and some solution holding the placement has a queen here.
	Free State = iota
	// Blocked: no solution holding the placement has a queen here.
	Blocked
	// Queen: the placement has a queen here.
	Queen
	// Forced: not in the placement, but every solution holding it has a
	// queen here.
	Forced
)

var stateNames = [...]string{Free: "free", Blocked: "blocked", Queen: "queen", Forced: "forced"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "State(?)"
}

// Attacks reports whether queens on two distinct cells attack each other:
// same row, same column, or same diagonal (|Δrow| == |Δcol|).
func Attacks(a, b Cell) bool {
	if a == b {
		return false
	}
	dr, dc := a.Row-b.Row, a.Col-b.Col
	return dr == 0 || dc == 0 || dr == dc || dr == -dc
}

// Board holds every solution of the n-queens problem. It is immutable and
// safe for concurrent use.
type Board struct {
	n int
	// sols lists the solutions; solution i puts its queen of row r on
	// column sols[i*n+r].
	sols []int8
}

// ErrSize reports a board size the oracle does not enumerate.
var ErrSize = errors.New("board size out of the oracle's range")

// New enumerates the solutions of the n-queens problem, 1 <= n <= MaxN.
func New(n int) (*Board, error) {
	if n < 1 || n > MaxN {
		return nil, fmt.Errorf("oracle for %d-queens (1..%d): %w", n, MaxN, ErrSize)
	}
	b := &Board{n: n}
	// Backtracking, one queen per row: a queen goes on (r, c) when it
	// attacks none of the queens of rows 0..r-1.
	queens := make([]Cell, 0, n)
	var place func(r int)
	place = func(r int) {
		if r == n {
			for _, q := range queens {
				b.sols = append(b.sols, int8(q.Col))
			}
			return
		}
		for c := range n {
			cell := Cell{r, c}
			if !slices.ContainsFunc(queens, func(q Cell) bool { return Attacks(q, cell) }) {
				queens = append(queens, cell)
				place(r + 1)
				queens = queens[:len(queens)-1]
			}
		}
	}
	place(0)
	return b, nil
}

// N is the board size.
func (b *Board) N() int { return b.n }

// Count is the number of solutions of the whole problem.
func (b *Board) Count() int { return len(b.sols) / b.n }

// Solution returns solution i (0 <= i < Count) as one cell per row.
func (b *Board) Solution(i int) []Cell {
	s := make([]Cell, b.n)
	for r := range b.n {
		s[r] = Cell{r, int(b.sols[i*b.n+r])}
	}
	return s
}

// has reports whether solution i has a queen on c.
func (b *Board) has(i int, c Cell) bool {
	return c.Row >= 0 && c.Row < b.n && int(b.sols[i*b.n+c.Row]) == c.Col
}

// holds reports whether solution i has a queen on every cell of queens.
func (b *Board) holds(i int, queens []Cell) bool {
	for _, q := range queens {
		if !b.has(i, q) {
			return false
		}
	}
	return true
}

// Extending returns the indices of the solutions that hold every queen of
// queens (all solutions for an empty placement).
func (b *Board) Extending(queens []Cell) []int {
	var idx []int
	for i := range b.Count() {
		if b.holds(i, queens) {
			idx = append(idx, i)
		}
	}
	return idx
}

// CountWith is the number of solutions holding every queen of queens.
func (b *Board) CountWith(queens []Cell) int { return len(b.Extending(queens)) }

// Satisfiable reports whether some solution has a queen on every cell of
// with and on no cell of without.
func (b *Board) Satisfiable(with, without []Cell) bool {
	for i := range b.Count() {
		if b.holds(i, with) && !slices.ContainsFunc(without, func(c Cell) bool { return b.has(i, c) }) {
			return true
		}
	}
	return false
}

// Analysis is the oracle's view of a placement.
type Analysis struct {
	N         int
	Cells     []State // row-major
	Solutions int     // solutions holding the placement
}

// At is the state of cell c.
func (a *Analysis) At(c Cell) State { return a.Cells[c.Row*a.N+c.Col] }

// Analyze classifies every cell under the placement queens, which must be
// on the board and distinct. A placement no solution holds leaves every
// cell but the queens blocked and Solutions 0.
func (b *Board) Analyze(queens []Cell) *Analysis {
	n := b.n
	a := &Analysis{N: n, Cells: make([]State, n*n)}
	hits := make([]int, n*n) // solutions holding queens with a queen on the cell
	for i := range b.Count() {
		if !b.holds(i, queens) {
			continue
		}
		a.Solutions++
		for r := range n {
			hits[r*n+int(b.sols[i*n+r])]++
		}
	}
	for v := range a.Cells {
		switch {
		case hits[v] == 0:
			a.Cells[v] = Blocked
		case hits[v] == a.Solutions:
			a.Cells[v] = Forced
		default:
			a.Cells[v] = Free
		}
	}
	for _, q := range queens {
		a.Cells[q.Row*n+q.Col] = Queen
	}
	return a
}

// Blocked reports whether no solution holds queens and a queen on c.
func (b *Board) Blocked(queens []Cell, c Cell) bool {
	return !b.Satisfiable(append(append([]Cell(nil), queens...), c), nil)
}

// Forced reports whether every solution holding queens has a queen on c
// (true when no solution holds queens).
func (b *Board) Forced(queens []Cell, c Cell) bool {
	return !b.Satisfiable(queens, []Cell{c})
}

// IsSolution reports whether cells is a solution: n cells, one per row, on
// the board, no two attacking.
func (b *Board) IsSolution(cells []Cell) bool {
	if len(cells) != b.n {
		return false
	}
	rows := make([]bool, b.n)
	for i, c := range cells {
		if c.Row < 0 || c.Row >= b.n || c.Col < 0 || c.Col >= b.n || rows[c.Row] {
			return false
		}
		rows[c.Row] = true
		if slices.ContainsFunc(cells[:i], func(d Cell) bool { return Attacks(c, d) }) {
			return false
		}
	}
	return true
}

// MinRemoval is the size of the smallest subset of queens whose removal
// lets c hold a queen in some solution: len(queens) minus the most queens
// any solution through c keeps. ok is false when no solution at all has a
// queen on c, so that no removal helps.
func (b *Board) MinRemoval(queens []Cell, c Cell) (k int, ok bool) {
	best := -1
	for i := range b.Count() {
		if !b.has(i, c) {
			continue
		}
		kept := 0
		for _, q := range queens {
			if b.has(i, q) {
				kept++
			}
		}
		best = max(best, kept)
	}
	if best < 0 {
		return 0, false
	}
	return len(queens) - best, true
}
