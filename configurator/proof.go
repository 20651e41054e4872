package configurator

import (
	"fmt"
	"slices"
)

// Deduction is one line of a proof by propagation. A line that must hold a
// queen (a rank; a file too, since the ranks need as many queens as there
// are files and no file holds two) has every square but one covered by the
// queens so far, so a queen goes on the one left; or it has none left,
// which refutes the assumption.
type Deduction struct {
	Line  string // the line's name in the model: "rank 3", "file c"
	Empty bool   // no square left: the contradiction that ends the proof
	Queen Cell   // the square left, where a queen goes (when not Empty)
	// By lists the queens, given or placed by earlier deductions, that cover the
	// line's other squares, in the order they were placed; Excluded the
	// squares of the line the assumption keeps empty.
	By       []Cell
	Excluded []Cell
}

// String says the deduction in words.
func (s Deduction) String() string {
	subject, verb := "the queens on "+ListCells(s.By), "leave"
	switch {
	case len(s.By) == 0:
		subject, verb = "no queen on "+ListCells(s.Excluded), "leaves"
	case len(s.By) == 1:
		subject, verb = "the queen on "+ListCells(s.By), "leaves"
	}
	if len(s.By) > 0 && len(s.Excluded) > 0 {
		subject += ", with none on " + ListCells(s.Excluded) + ","
	}
	if s.Empty {
		return fmt.Sprintf("On %s, %s %s no square: no queen can go there.", s.Line, subject, verb)
	}
	return fmt.Sprintf("On %s, %s %s only %v: a queen must go there.", s.Line, subject, verb, s.Queen)
}

// Refute tries to refute "queens on every cell of with, none on any cell of
// without" by propagation on m's constraints alone: each queen covers the
// lines through it, and a line that must hold a queen with one square left
// gets one. It returns the deductions that lead to a line with no square left,
// only those the contradiction depends on, in order; nil when propagation
// stops without one (a search is needed) or when two queens of with attack
// each other (no deductions are needed).
func Refute(m *Model, with, without []Cell) []Deduction {
	p := settle(m, with, without)
	if p == nil || p.empty < 0 {
		return nil
	}
	return p.proof(len(with))
}

// settle places the queens of with, keeps the squares of without empty
// and propagates until a line has no square left or no line has one
// square left. It returns nil when two queens of with attack each other.
func settle(m *Model, with, without []Cell) *propagation {
	p := newPropagation(m)
	for _, q := range with {
		if !m.Contains(q) || !p.place(q, nil) {
			return nil
		}
	}
	for _, c := range without {
		if m.Contains(c) {
			p.cover(m.Var(c), assumed)
		}
	}
	for p.empty < 0 && len(p.queue) > 0 {
		line := p.queue[0]
		p.queue = p.queue[1:]
		if p.queen[line] || p.left[line] != 1 {
			continue
		}
		for _, c := range m.Constraints()[line].Cells {
			if p.by[m.Var(c)] == uncovered {
				p.forced = append(p.forced, forcing{line: line, queen: int32(len(p.placed))})
				p.place(c, p.coverers(line))
				break
			}
		}
	}
	return p
}

// Marks of propagation.by beyond the index of a queen placed.
const (
	uncovered = -2 // no queen covers the square
	assumed   = -1 // the assumption keeps the square empty
)

// propagation is the state of Refute: which queen covers each square
// (row-major), how many squares each line that must hold a queen has left,
// and the queens it forced.
type propagation struct {
	m        *Model
	must     []bool    // per constraint: the line must hold a queen
	by       []int32   // per square: the index in placed of the queen covering it, or a mark
	left     []int32   // per constraint that must hold a queen: squares not covered
	queen    []bool    // per constraint: a queen stands on it
	placed   []Cell    // queens in order, given ones first
	premises [][]int32 // per queen placed: the coverers its forcing relied on (nil for given ones)
	queue    []int32   // lines with one square left
	forced   []forcing // forced queens, in order
	empty    int32     // the line left with no square, or -1
}

// forcing is a queen forced on a line; the queen's index in placed.
type forcing struct {
	line, queen int32
}

func newPropagation(m *Model) *propagation {
	cs := m.Constraints()
	p := &propagation{m: m, must: mustHold(m), by: make([]int32, m.Vars()),
		left: make([]int32, len(cs)), queen: make([]bool, len(cs)), empty: -1}
	for v := range p.by {
		p.by[v] = uncovered
	}
	for i, c := range cs {
		if p.must[i] {
			p.left[i] = int32(len(c.Cells))
		}
	}
	return p
}

// place puts a queen on q, relying on premises, and covers every square
// that shares a line with it. It reports false when q is already covered.
func (p *propagation) place(q Cell, premises []int32) bool {
	v := p.m.Var(q)
	if p.by[v] != uncovered {
		return false
	}
	me := int32(len(p.placed))
	p.placed = append(p.placed, q)
	p.premises = append(p.premises, premises)
	p.by[v] = me
	for _, line := range p.m.linesOf(v) {
		p.queen[line] = true
	}
	for _, line := range p.m.linesOf(v) {
		for _, c := range p.m.Constraints()[line].Cells {
			p.cover(p.m.Var(c), me)
		}
	}
	return true
}

// cover marks square v as covered by queen who (or assumed) and notes the
// lines it leaves with one square or none.
func (p *propagation) cover(v int, who int32) {
	if p.by[v] != uncovered {
		return
	}
	p.by[v] = who
	for _, line := range p.m.linesOf(v) {
		if !p.must[line] {
			continue
		}
		p.left[line]--
		switch {
		case p.queen[line]:
		case p.left[line] == 0 && p.empty < 0:
			p.empty = line
		case p.left[line] == 1:
			p.queue = append(p.queue, line)
		}
	}
}

// coverers lists the queens (indices in placed, increasing) and the
// assumption (assumed) covering the squares of line.
func (p *propagation) coverers(line int32) []int32 {
	var out []int32
	for _, c := range p.m.Constraints()[line].Cells {
		if who := p.by[p.m.Var(c)]; who != uncovered {
			out = append(out, who)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// proof returns the deductions the contradiction depends on, given the number
// of queens that were given.
func (p *propagation) proof(given int) []Deduction {
	last := p.coverers(p.empty)
	return append(p.needed(given, last), p.words(p.empty, last, true, Cell{}))
}

// words makes the Deduction of a line covered by who.
func (p *propagation) words(line int32, who []int32, empty bool, q Cell) Deduction {
	s := Deduction{Line: p.m.Constraints()[line].Name, Empty: empty, Queen: q}
	for _, w := range who {
		if w >= 0 {
			s.By = append(s.By, p.placed[w])
		}
	}
	for _, c := range p.m.Constraints()[line].Cells {
		if p.by[p.m.Var(c)] == assumed {
			s.Excluded = append(s.Excluded, c)
		}
	}
	return s
}

// mustHold marks the constraints that must hold a queen: the ExactlyOne
// lines, and a family of AtMostOne lines when the ExactlyOne lines
// partition the board into k lines and those AtMostOne lines partition it
// into k as well (k queens in k lines of at most one each: one in each).
// The family is taken greedily, in the model's order, from the lines
// disjoint from those taken before; a model whose lines do not fit the
// count gets no such family, so the inference stays sound for any model.
func mustHold(m *Model) []bool {
	cs := m.Constraints()
	must := make([]bool, len(cs))
	n := m.N()
	exact, covered := 0, make([]int, n*n)
	for i, c := range cs {
		if c.Kind == ExactlyOne {
			must[i] = true
			exact++
			for _, cell := range c.Cells {
				covered[m.Var(cell)]++
			}
		}
	}
	if slices.ContainsFunc(covered, func(k int) bool { return k != 1 }) {
		return must
	}
	taken := make([]bool, n*n)
	var family []int
	cells := 0
	for i, c := range cs {
		if c.Kind != AtMostOne || len(c.Cells) == 0 {
			continue
		}
		if slices.ContainsFunc(c.Cells, func(cell Cell) bool { return taken[m.Var(cell)] }) {
			continue
		}
		for _, cell := range c.Cells {
			taken[m.Var(cell)] = true
		}
		family = append(family, i)
		cells += len(c.Cells)
	}
	if cells == n*n && len(family) == exact {
		for _, i := range family {
			must[i] = true
		}
	}
	return must
}
