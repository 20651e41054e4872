package configurator

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Cell is a square of the board: Row 0 is rank 1, Col 0 is file a.
type Cell struct {
	Row, Col int
}

// String returns the cell in chess notation: the file letters (a..z, then
// aa, ab, ... as spreadsheet columns) followed by the rank, Row+1.
func (c Cell) String() string {
	if c.Row < 0 || c.Col < 0 {
		return fmt.Sprintf("(%d,%d)", c.Row, c.Col)
	}
	return FileName(c.Col) + fmt.Sprint(c.Row+1)
}

// FileName returns the letters naming column col: a..z, aa..az, ba, ...
func FileName(col int) string {
	var b []byte
	for col >= 0 {
		b = append(b, byte('a'+col%26))
		col = col/26 - 1
	}
	slices.Reverse(b)
	return string(b)
}

// maxNotation bounds the digits and letters ParseCell reads, so that a
// hostile string cannot overflow the arithmetic.
const maxNotation = 6

// ParseCell parses chess notation such as "a1" or "ab12" (case-insensitive).
// It checks only the syntax; Model.Contains checks the board.
func ParseCell(s string) (Cell, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= 'a' && t[i] <= 'z' {
		i++
	}
	letters, digits := t[:i], t[i:]
	if letters == "" || digits == "" || len(letters) > maxNotation || len(digits) > maxNotation {
		return Cell{}, fmt.Errorf("cell %q: %w", s, ErrNotation)
	}
	col := 0
	for _, l := range []byte(letters) {
		col = col*26 + int(l-'a') + 1
	}
	rank := 0
	for j, d := range []byte(digits) {
		if d < '0' || d > '9' || (j == 0 && d == '0') {
			return Cell{}, fmt.Errorf("cell %q: %w", s, ErrNotation)
		}
		rank = rank*10 + int(d-'0')
	}
	return Cell{Row: rank - 1, Col: col - 1}, nil
}

// ParseCells parses a comma-separated list of cells in chess notation; the
// empty string is the empty list.
func ParseCells(s string) ([]Cell, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	cells := make([]Cell, 0, len(parts))
	for _, p := range parts {
		c, err := ParseCell(p)
		if err != nil {
			return nil, err
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// FormatCells joins cells in chess notation with commas, the inverse of
// ParseCells.
func FormatCells(cells []Cell) string {
	return strings.Join(stringsOf(cells), ",")
}

// stringsOf says each of xs in words (its String): cells in chess
// notation, deductions as sentences.
func stringsOf[T fmt.Stringer](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.String()
	}
	return out
}

// ErrNotation reports a cell name that is not chess notation.
var ErrNotation = errors.New("not a cell in chess notation (file letters then rank, like a1 or c5)")

// ListCells names cells for a sentence: "a1", "a1 and c5", "a1, c5 and e2".
func ListCells(cells []Cell) string {
	names := stringsOf(cells)
	switch len(names) {
	case 0:
		return "no squares"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
