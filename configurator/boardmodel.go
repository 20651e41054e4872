package configurator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// FeatureModel returns the board as a feature model, N-Queens being one
// kind of model among others: a feature per square, named as the board
// names it ("a1"), numbered as the model numbers its variables (Var), no
// tree, and a constraint per line of the board, in the model's order, in
// its words ("rank 1: exactly one of a1, b1, c1, d1"). A queen on a square
// is the decision that selects its feature, so the feature model's
// configurations are the board's solutions. Its grid lays the squares out
// as the board does, rank by rank, and marks the N-Queens rules (a model
// of New, not Custom's) so that a backend may answer it as a board. It is
// made once, when first asked for, and shared: callers must not change it.
func (m *Model) FeatureModel() (*feature.Model, error) { return m.features() }

func (m *Model) featureModel() (*feature.Model, error) {
	parts := feature.Model{Name: BoardName(m.n), Format: feature.Board, Root: -1, Grid: &feature.Grid{Rows: m.n, Cols: m.n, Queens: m.queens}}
	for v := range m.Vars() {
		parts.Features = append(parts.Features, feature.Feature{Name: m.Cell(v).String(), Parent: -1, Group: -1})
	}
	for i, c := range m.constraints {
		vars := make([]*feature.Expr, len(c.Cells))
		for j, cell := range c.Cells {
			vars[j] = feature.Var(m.Var(cell))
		}
		var pairs []*feature.Expr
		for j, a := range vars {
			for _, b := range vars[j+1:] {
				pairs = append(pairs, feature.Not(feature.And(a, b)))
			}
		}
		how, e := "at most one of", feature.And(pairs...)
		if c.Kind == ExactlyOne {
			how, e = "exactly one of", feature.And(append([]*feature.Expr{feature.Or(vars...)}, pairs...)...)
		}
		parts.Constraints = append(parts.Constraints, feature.Constraint{
			Expr: e,
			Text: fmt.Sprintf("%s: %s %s", c.Name, how, strings.Join(stringsOf(c.Cells), ", ")),
			Pos:  feature.Pos{Line: i + 1, Column: 1},
		})
	}
	fm, err := feature.New(parts)
	if err != nil {
		return nil, fmt.Errorf("%d-queens as a feature model: %w", m.n, err)
	}
	return fm, nil
}

// BoardName is the name of the n×n board as a model: "8-queens".
func BoardName(n int) string { return fmt.Sprintf("%d-queens", n) }

// BoardIDPrefix starts every BoardID, and no other model's ID.
const BoardIDPrefix = "queens-"

// BoardID is the ID that names the n×n board as a model wherever models
// are named (the server's store, the command line): "queens-8".
func BoardID(n int) string { return BoardIDPrefix + strconv.Itoa(n) }

// ParseBoardID reads a BoardID: the board size, 1 to MaxN, written
// without a sign or leading zeros.
func ParseBoardID(id string) (n int, ok bool) {
	digits, ok := strings.CutPrefix(id, BoardIDPrefix)
	if !ok || digits == "" || len(digits) > 4 || digits[0] < '1' || digits[0] > '9' {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n <= MaxN
}

// BoardOf returns the board a feature model lays out, when its grid marks
// the N-Queens rules: the model of New in the row-major order, whose
// FeatureModel has the same features and configurations.
func BoardOf(fm *feature.Model) (*Model, bool) {
	g := fm.Grid
	if g == nil || !g.Queens {
		return nil, false
	}
	m, err := New(g.Rows, RowMajor)
	return m, err == nil
}

// BoardDecisions are the decisions that place queens on the squares of
// the board m, in the order placed: their features selected.
func BoardDecisions(m *Model, queens []Cell) []Decision {
	ds := make([]Decision, len(queens))
	for i, q := range queens {
		ds[i] = Decision{Feature: m.Var(q), Select: true}
	}
	return ds
}

// BoardQueens is BoardDecisions' inverse: the squares of the board m that
// decisions select, in their order (the squares they rule out left
// aside).
func BoardQueens(m *Model, ds []Decision) []Cell {
	queens, _ := boardCells(m, ds)
	return queens
}

// boardCells splits decisions on the squares of the board m into the
// queens they place and the squares they rule out, each in their order.
func boardCells(m *Model, ds []Decision) (queens, without []Cell) {
	for _, d := range ds {
		if d.Select {
			queens = append(queens, m.Cell(d.Feature))
		} else {
			without = append(without, m.Cell(d.Feature))
		}
	}
	return queens, without
}
