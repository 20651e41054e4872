// Package configurator is the interactive configurator over any model:
// the interfaces that decision procedures implement (a Backend or a
// ModelCompiler compiles a model into a Space, whose optional
// capabilities are small interfaces a caller asks for), and the one
// session that configures a model on a Space (FeatureSession): it
// decides, undoes, explains every forced feature by its minimal reasons in
// the model's words, makes room, completes, samples and states the
// model's facts.
//
// Models are feature models (package feature: UVL, DIMACS CNF, FeatureIDE
// XML). The N-Queens board is one of them, built in (Model.FeatureModel,
// BoardID): its rules are written once, in Model, as data, so that every
// backend compiles the same list of constraints, a bug in the rules shows
// in all backends at once and the independent oracle of the cross-check
// catches it; and a board keeps what only a board has (squares, ranks,
// proofs by cases, the Board a Backend compiles it into).
package configurator

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/nqueens/configurator/configurator/feature"
)

// MaxN is the largest board any model may describe. Backends have lower
// limits of their own; this one only keeps a hostile request from allocating
// an absurd board.
const MaxN = 1000

// Kind says how many queens a constraint's cells may hold.
type Kind uint8

const (
	// ExactlyOne: one queen on the line, no more, no fewer (the rows).
	ExactlyOne Kind = iota
	// AtMostOne: no two queens on the line (columns and diagonals).
	AtMostOne
)

// Constraint is one line of the board together with what it demands.
type Constraint struct {
	Kind  Kind
	Name  string // for people: "row 3", "file c", "diagonal a1-h8"
	Cells []Cell // in row-major order
}

// Model is the N-Queens problem on an N×N board: a Boolean variable per cell
// ("a queen stands here"), numbered row-major (Var), the constraints over
// them, and the variable order decision diagrams use. A Model is immutable.
type Model struct {
	n           int
	order       Order
	constraints []Constraint
	level       []int32 // variable -> position in the order
	atLevel     []int32 // position in the order -> variable
	// The constraints variable v is in are lines[lineStart[v]:lineStart[v+1]],
	// one flat slice for the whole board (a million cells at MaxN).
	lineStart []int32
	lines     []int32
	// queens marks the N-Queens rules (New), not a custom model's.
	queens bool
	// features is FeatureModel, made once when first asked for.
	features func() (*feature.Model, error)
}

// New returns the N-Queens model of an n×n board with the given variable
// order: exactly one queen per row, at most one per column, per diagonal and
// per anti-diagonal.
func New(n int, order Order) (*Model, error) {
	if n < 1 || n > MaxN {
		return nil, fmt.Errorf("board size %d: %w", n, ErrSize)
	}
	cs := make([]Constraint, 0, 6*n)
	for r := range n {
		c := Constraint{Kind: ExactlyOne, Name: fmt.Sprintf("rank %d", r+1), Cells: make([]Cell, 0, n)}
		for col := range n {
			c.Cells = append(c.Cells, Cell{r, col})
		}
		cs = append(cs, c)
	}
	for col := range n {
		c := Constraint{Kind: AtMostOne, Name: "file " + FileName(col), Cells: make([]Cell, 0, n)}
		for r := range n {
			c.Cells = append(c.Cells, Cell{r, col})
		}
		cs = append(cs, c)
	}
	// Diagonals keep r-c constant, anti-diagonals r+c; lines of one cell
	// constrain nothing and are left out. Each is gathered in buf and kept
	// as a copy of its own length.
	var buf []Cell
	diagonal := func(kind string, col func(r int) int) {
		buf = buf[:0]
		for r := range n {
			if c := col(r); c >= 0 && c < n {
				buf = append(buf, Cell{r, c})
			}
		}
		cs = append(cs, Constraint{Kind: AtMostOne, Name: kind + " " + buf[0].String() + "-" + buf[len(buf)-1].String(), Cells: slices.Clone(buf)})
	}
	for d := -(n - 2); d <= n-2; d++ {
		diagonal("diagonal", func(r int) int { return r - d })
	}
	for s := 1; s <= 2*n-3; s++ {
		diagonal("anti-diagonal", func(r int) int { return s - r })
	}
	m, err := Custom(n, order, cs)
	if err != nil {
		return nil, err
	}
	m.queens = true
	return m, nil
}

// Custom returns a model of an n×n board with the given constraints instead
// of the N-Queens rules. The cross-check uses it to plant faults (a model
// missing a line) and prove that the suite notices.
func Custom(n int, order Order, constraints []Constraint) (*Model, error) {
	if n < 1 || n > MaxN {
		return nil, fmt.Errorf("board size %d: %w", n, ErrSize)
	}
	m := &Model{n: n, order: order, constraints: constraints, lineStart: make([]int32, n*n+1)}
	m.features = sync.OnceValues(m.featureModel)
	for _, c := range constraints {
		for _, cell := range c.Cells {
			if !m.Contains(cell) {
				return nil, fmt.Errorf("constraint %q: cell %v: %w", c.Name, cell, ErrOffBoard)
			}
			m.lineStart[m.Var(cell)+1]++
		}
	}
	for v := range n * n {
		m.lineStart[v+1] += m.lineStart[v]
	}
	m.lines = make([]int32, m.lineStart[n*n])
	fill := slices.Clone(m.lineStart[:n*n])
	for i, c := range constraints {
		for _, cell := range c.Cells {
			v := m.Var(cell)
			m.lines[fill[v]] = int32(i)
			fill[v]++
		}
	}
	var err error
	if m.atLevel, err = order.permutation(n); err != nil {
		return nil, err
	}
	m.level = make([]int32, n*n)
	for l, v := range m.atLevel {
		m.level[v] = int32(l)
	}
	return m, nil
}

// N is the board size.
func (m *Model) N() int { return m.n }

// Order is the variable order of the model.
func (m *Model) Order() Order { return m.order }

// Constraints returns the model's constraints; callers must not modify them.
func (m *Model) Constraints() []Constraint { return m.constraints }

// Vars is the number of variables, N*N.
func (m *Model) Vars() int { return m.n * m.n }

// Var is the variable of a cell: Row*N + Col.
func (m *Model) Var(c Cell) int { return c.Row*m.n + c.Col }

// Cell is the cell of variable v.
func (m *Model) Cell(v int) Cell { return Cell{v / m.n, v % m.n} }

// Level is the position of variable v in the variable order (0 = top).
func (m *Model) Level(v int) int { return int(m.level[v]) }

// VarAt is the variable at position l of the variable order.
func (m *Model) VarAt(l int) int { return int(m.atLevel[l]) }

// Contains reports whether c is on the board.
func (m *Model) Contains(c Cell) bool {
	return c.Row >= 0 && c.Row < m.n && c.Col >= 0 && c.Col < m.n
}

// Attacks reports whether queens on a and b would break a constraint: two
// distinct cells on a common line. It is derived from the constraints, so a
// custom model attacks exactly as it constrains.
func (m *Model) Attacks(a, b Cell) bool {
	if a == b {
		return false
	}
	lb := m.linesOf(m.Var(b))
	return slices.ContainsFunc(m.linesOf(m.Var(a)), func(i int32) bool { return slices.Contains(lb, i) })
}

// linesOf lists the constraints variable v is in, in the model's order.
func (m *Model) linesOf(v int) []int32 { return m.lines[m.lineStart[v]:m.lineStart[v+1]] }

// Check validates a placement of queens for this board: every cell on the
// board, no cell twice. It does not check that a solution holds them all:
// that is a question for a backend.
func (m *Model) Check(queens []Cell) error {
	seen := make(map[Cell]bool, len(queens))
	for _, q := range queens {
		if !m.Contains(q) {
			return fmt.Errorf("queen %v on a %d×%d board: %w", q, m.n, m.n, ErrOffBoard)
		}
		if seen[q] {
			return fmt.Errorf("queen %v: %w", q, ErrDuplicate)
		}
		seen[q] = true
	}
	return nil
}

// Order is a variable order for decision diagrams. It changes nothing about
// the solutions, only the size of a diagram that represents them.
type Order uint8

const (
	// RowMajor orders cells rank by rank, file by file: a1, b1, ..., a2, ...
	RowMajor Order = iota
	// ColMajor orders cells file by file: a1, a2, ..., b1, ...
	ColMajor
	// Diagonal orders cells by anti-diagonal (Row+Col), then by row.
	Diagonal
	// MiddleOut orders whole ranks from the middle of the board outwards,
	// each rank file by file.
	MiddleOut
)

var orderNames = [...]string{RowMajor: "row", ColMajor: "col", Diagonal: "diag", MiddleOut: "middle"}

// Orders lists every order, for menus and tests.
func Orders() []Order { return []Order{RowMajor, ColMajor, Diagonal, MiddleOut} }

// String is the order's name as ParseOrder accepts it.
func (o Order) String() string {
	return nameIn(orderNames[:], int(o), fmt.Sprintf("Order(%d)", uint8(o)))
}

// ParseOrder parses an order name: row, col, diag or middle.
func ParseOrder(s string) (Order, error) {
	if o := slices.Index(orderNames[:], s); o >= 0 {
		return Order(o), nil
	}
	return 0, fmt.Errorf("order %q: %w", s, ErrOrder)
}

// permutation lists the variables of an n×n board in order o.
func (o Order) permutation(n int) ([]int32, error) {
	vars := make([]int32, 0, n*n)
	for v := range n * n {
		vars = append(vars, int32(v))
	}
	row := func(v int32) int { return int(v) / n }
	col := func(v int32) int { return int(v) % n }
	var less func(a, b int32) bool
	switch o {
	case RowMajor:
		return vars, nil
	case ColMajor:
		less = func(a, b int32) bool { return col(a) < col(b) || col(a) == col(b) && row(a) < row(b) }
	case Diagonal:
		less = func(a, b int32) bool {
			da, db := row(a)+col(a), row(b)+col(b)
			return da < db || da == db && row(a) < row(b)
		}
	case MiddleOut:
		// Ranks by distance from the middle of the board; of two ranks
		// equally far, the upper one comes first.
		dist := func(v int32) int {
			d := 2*row(v) - (n - 1)
			if d < 0 {
				return -2*d + 1
			}
			return 2 * d
		}
		less = func(a, b int32) bool {
			return dist(a) < dist(b) || dist(a) == dist(b) && a < b
		}
	default:
		return nil, fmt.Errorf("%v: %w", o, ErrOrder)
	}
	sort.Slice(vars, func(i, j int) bool { return less(vars[i], vars[j]) })
	return vars, nil
}

// Errors of input validation. Handlers map them to statuses; errors.Is
// recognises them through any wrapping.
var (
	ErrSize      = errors.New("board size out of range")
	ErrOrder     = errors.New("unknown variable order (want row, col, diag or middle)")
	ErrOffBoard  = errors.New("cell is off the board")
	ErrDuplicate = errors.New("queen placed twice")
)
