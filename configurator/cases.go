package configurator

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Where propagation alone stops short of a contradiction, a proof a person
// can check goes on by cases: a line that must hold a queen has a few
// squares left, and a queen on each of them is refuted in turn, by
// propagation or by cases again. A proof is for reading, so it is only
// given while it fits on a screen.
const (
	// MaxProofLines is the most deductions a proof by cases holds.
	MaxProofLines = 16
	// MaxListed is the most solutions a proof by their list names.
	MaxListed = 8

	splitDepth = 2     // cases within cases, at most
	splitWidth = 4     // the most squares a line split on has left
	splitTries = 3     // lines tried at each split, fewest squares left first
	listBudget = 25000 // squares the propagations of a search for the list may cover
)

// Split is a proof by cases over a line that must hold a queen.
type Split struct {
	// Steps are the deductions of propagation before the split that the
	// rest relies on (none leaves a line empty).
	Steps []Deduction
	Line  string // the line split on: "rank 2"
	// By lists the queens, given or forced by Steps, that cover the
	// line's other squares; Excluded the squares the assumption keeps
	// empty.
	By, Excluded []Cell
	// Cases are the line's squares left, one each, in the line's order.
	Cases []Case
}

// Case is a queen on one square of a Split's line, refuted by Steps (the
// last leaves a line with no square) or, where they stop short, by a
// Split within it.
type Case struct {
	Queen Cell
	Steps []Deduction
	Split *Split
}

// RefuteByCases tries to refute "queens on every cell of with, none on any
// cell of without" by cases (see Split), nested at most twice, in at most
// MaxProofLines deductions, the fewest it finds. It returns nil when
// propagation alone refutes it (Refute gives that proof), when two queens
// of with attack each other, and when no proof by cases fits.
func RefuteByCases(m *Model, with, without []Cell) *Split {
	p := settle(m, with, without)
	if p == nil || p.empty >= 0 {
		return nil
	}
	s, _ := p.split(with, without, splitDepth, MaxProofLines)
	return s
}

// split refutes the settled propagation p by cases over one of its lines,
// within depth nested splits and budget deductions, trying the lines with
// the fewest squares left first and keeping the shortest proof. It
// returns the proof and its size in deductions, or nil.
func (p *propagation) split(with, without []Cell, depth, budget int) (*Split, int) {
	var lines []int32
	for i := range p.m.Constraints() {
		if p.must[i] && !p.queen[i] && p.left[i] >= 2 && p.left[i] <= splitWidth {
			lines = append(lines, int32(i))
		}
	}
	slices.SortStableFunc(lines, func(a, b int32) int { return cmp.Compare(p.left[a], p.left[b]) })
	given := append(slices.Clone(with), p.placed[len(with):]...)
	var best *Split
	bestSize := budget + 1
	for _, line := range lines[:min(len(lines), splitTries)] {
		s := &Split{Line: p.m.Constraints()[line].Name}
		size := 1 // the split itself
		for _, c := range p.m.Constraints()[line].Cells {
			if size >= bestSize {
				break
			}
			if p.by[p.m.Var(c)] != uncovered {
				continue
			}
			in := append(slices.Clone(given), c)
			q := settle(p.m, in, without)
			k, n := Case{Queen: c}, 0 // n: the case's deductions, 0 while unrefuted
			switch {
			case q == nil:
			case q.empty >= 0:
				k.Steps = q.proof(len(in))
				n = len(k.Steps)
			case depth > 1:
				k.Split, n = q.split(in, without, depth-1, bestSize-size-1)
			}
			if n == 0 {
				size = bestSize
				break
			}
			size += n
			s.Cases = append(s.Cases, k)
		}
		if size >= bestSize {
			continue
		}
		who := p.coverers(line)
		cover := p.words(line, who, false, Cell{})
		s.By, s.Excluded = cover.By, cover.Excluded
		for _, c := range s.cells() {
			who = append(who, int32(slices.Index(p.placed, c)))
		}
		s.Steps = p.needed(len(with), who)
		if size += len(s.Steps); size < bestSize {
			best, bestSize = s, size
		}
	}
	if best == nil {
		return nil, 0
	}
	return best, bestSize
}

// needed returns the deductions of the queens p forced (beyond the first
// given placed) among who (indices in placed, or marks), with those they
// rely on, in order.
func (p *propagation) needed(given int, who []int32) []Deduction {
	need := make([]bool, len(p.placed))
	var mark func(who []int32)
	mark = func(who []int32) {
		for _, w := range who {
			if w >= int32(given) && !need[w] {
				need[w] = true
				mark(p.premises[w])
			}
		}
	}
	mark(who)
	var out []Deduction
	for _, f := range p.forced {
		if need[f.queen] {
			out = append(out, p.words(f.line, p.premises[f.queen], false, p.placed[f.queen]))
		}
	}
	return out
}

// cells lists the queens the cases' deductions rely on.
func (s *Split) cells() []Cell {
	var out []Cell
	for _, k := range s.Cases {
		for _, d := range k.Steps {
			out = append(out, d.By...)
		}
		if k.Split != nil {
			out = append(out, k.Split.By...)
			for _, d := range k.Split.Steps {
				out = append(out, d.By...)
			}
			out = append(out, k.Split.cells()...)
		}
	}
	return out
}

// String says the split itself in words: the squares its line has left.
func (s *Split) String() string {
	left := make([]Cell, len(s.Cases))
	for i, k := range s.Cases {
		left[i] = k.Queen
	}
	why := "the queen on " + ListCells(s.By) + " covers its other squares"
	if len(s.By) > 1 {
		why = "the queens on " + ListCells(s.By) + " cover its other squares"
	}
	if len(s.Excluded) > 0 {
		why += ", with none on " + ListCells(s.Excluded)
	}
	return fmt.Sprintf("The queen of %s can only go on %s (%s); each is refuted in turn.", s.Line, orCells(left), why)
}

// Lines says the proof in words, one line a deduction or a case, in the
// order a person reads it: the deductions before the split, the split,
// then each case, named by the squares it puts queens on ("If c2:", "If
// c2 and g4:").
func (s *Split) Lines() []string {
	return s.lines(nil)
}

func (s *Split) lines(path []Cell) []string {
	prefix := ""
	if len(path) > 0 {
		prefix = "If " + ListCells(path) + ": "
	}
	var out []string
	for _, d := range s.Steps {
		out = append(out, prefix+d.String())
	}
	out = append(out, prefix+s.String())
	for _, k := range s.Cases {
		in := append(slices.Clone(path), k.Queen)
		if k.Split != nil {
			out = append(out, k.Split.lines(in)...)
			continue
		}
		out = append(out, "If "+ListCells(in)+": "+strings.Join(stringsOf(k.Steps), " "))
	}
	return out
}

// orCells names cells as alternatives: "c2", "c2 or e2", "c2, e2 or f2".
func orCells(cells []Cell) string {
	s := ListCells(cells)
	if i := strings.LastIndex(s, " and "); i >= 0 {
		s = s[:i] + " or " + s[i+len(" and "):]
	}
	return s
}

// Completions returns every solution of m that holds the queens of with,
// each in rank order and all in that order, when there are at most max and a search by
// propagation and cases of bounded size finds them all; ok is false when
// there are more, or the search would take longer.
func Completions(m *Model, with []Cell, max int) (sols [][]Cell, ok bool) {
	budget := listBudget
	byRank := func(a, b Cell) int { return cmp.Or(cmp.Compare(a.Row, b.Row), cmp.Compare(a.Col, b.Col)) }
	var walk func(in []Cell) bool
	walk = func(in []Cell) bool {
		if budget -= m.Vars(); budget < 0 {
			return false
		}
		p := settle(m, in, nil)
		if p == nil || p.empty >= 0 {
			return true
		}
		line := int32(-1)
		for i, c := range m.Constraints() {
			if (p.must[i] || c.Kind == ExactlyOne) && !p.queen[i] && (line < 0 || p.left[i] < p.left[line]) {
				line = int32(i)
			}
		}
		if line < 0 {
			if len(sols) == max {
				return false
			}
			sol := slices.Clone(p.placed)
			slices.SortFunc(sol, byRank)
			sols = append(sols, sol)
			return true
		}
		for _, c := range m.Constraints()[line].Cells {
			if p.by[m.Var(c)] == uncovered && !walk(append(slices.Clone(p.placed), c)) {
				return false
			}
		}
		return true
	}
	if !walk(slices.Clone(with)) {
		return nil, false
	}
	slices.SortFunc(sols, func(a, b []Cell) int { return slices.CompareFunc(a, b, byRank) })
	return sols, true
}
