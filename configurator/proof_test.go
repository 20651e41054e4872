package configurator_test

import (
	"slices"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

func TestRefute(t *testing.T) {
	tests := []struct {
		n             int
		with, without string
		steps         []string // nil: propagation does not refute
	}{
		// 4×4: b1 covers a2, b2 and c2; with none on d2, rank 2 is empty.
		{4, "b1", "d2", []string{"On rank 2, the queen on b1, with none on d2, leaves no square: no queen can go there."}},
		// 6×6: b1 and a queen on d6 force a5 and c4; c4 forces f2, and
		// rank 3 runs out. (Other forced steps are left out: the
		// contradiction does not depend on them.)
		{6, "b1,d6", "", []string{
			"On rank 5, the queens on b1 and d6 leave only a5: a queen must go there.",
			"On rank 4, the queens on b1, d6 and a5 leave only c4: a queen must go there.",
			"On rank 2, the queens on b1, d6 and c4 leave only f2: a queen must go there.",
			"On rank 3, the queens on b1, d6, a5 and f2 leave no square: no queen can go there.",
		}},
		// A file must hold a queen too: 6 queens in 6 files.
		{6, "b1,d5", "", []string{
			"On file c, the queens on b1 and d5 leave only c3: a queen must go there.",
			"On file e, the queens on b1, d5 and c3 leave only e2: a queen must go there.",
			"On rank 6, the queens on b1, d5, c3 and e2 leave no square: no queen can go there.",
		}},
		// Two queens on one rank: refuted by the rules at once.
		{8, "a1,c1", "", nil},
		// a1 with d7 has no solution on 8×8, but propagation alone does not
		// show it: a search does.
		{8, "a1,d7", "", nil},
		// A solution is never refuted.
		{4, "b1,d2,a3,c4", "", nil},
	}
	for _, tt := range tests {
		m := configuratortest.Model(t, tt.n, configurator.RowMajor)
		steps := configurator.Refute(m, configuratortest.Cells(t, tt.with), configuratortest.Cells(t, tt.without))
		var got []string
		for _, s := range steps {
			got = append(got, s.String())
		}
		if !slices.Equal(got, tt.steps) {
			t.Errorf("N=%d with [%s] without [%s]:\n got %q\nwant %q", tt.n, tt.with, tt.without, got, tt.steps)
		}
	}
}

// TestRefuteSound: on every placement of three queens up to 7×7, a
// refutation by propagation is only found where the oracle finds no
// solution, and its last step is a line left empty.
func TestRefuteSound(t *testing.T) {
	for n := 4; n <= 7; n++ {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		board := configuratortest.Board(t, n)
		refuted := 0
		for a := range n * n {
			for b := a + 1; b < n*n; b++ {
				for c := b + 1; c < n*n; c++ {
					with := []configurator.Cell{m.Cell(a), m.Cell(b), m.Cell(c)}
					steps := configurator.Refute(m, with, nil)
					if steps == nil {
						continue
					}
					refuted++
					if board.Satisfiable(oracleCells(with), nil) || !steps[len(steps)-1].Empty {
						t.Fatalf("N=%d: [%s] refuted by %v", n, configurator.FormatCells(with), steps)
					}
				}
			}
		}
		if refuted == 0 {
			t.Errorf("N=%d: no three queens refuted by propagation", n)
		}
	}
}

func TestRefuteByCases(t *testing.T) {
	tests := []struct {
		n             int
		with, without string
		lines         []string // nil: no proof by cases (propagation refutes, or none fits)
	}{
		// The README's example: a1 with d7 has no solution on 8×8, and
		// propagation alone does not show it; rank 5 has three squares
		// left, and each is refuted, c5 by cases again.
		{8, "a1,d7", "", []string{
			"The queen of rank 5 can only go on c5, g5 or h5 (the queens on a1 and d7 cover its other squares); each is refuted in turn.",
			"If c5: The queen of rank 8 can only go on b8 or g8 (the queens on a1, d7 and c5 cover its other squares); each is refuted in turn.",
			"If c5 and b8: On rank 3, the queens on a1, d7, c5 and b8 leave only f3: a queen must go there. On rank 2, the queens on a1, d7, c5, b8 and f3 leave no square: no queen can go there.",
			"If c5 and g8: On file b, the queens on a1, d7, c5 and g8 leave no square: no queen can go there.",
			"If g5: On rank 6, the queens on a1, d7 and g5 leave only b6: a queen must go there. On rank 3, the queens on a1, d7, g5 and b6 leave only f3: a queen must go there. On rank 8, the queens on a1, d7, g5, b6 and f3 leave no square: no queen can go there.",
			"If h5: On rank 6, the queens on a1, d7 and h5 leave only b6: a queen must go there. On rank 3, the queens on a1, d7, h5 and b6 leave only g3: a queen must go there. On file e, the queens on a1, d7, h5 and b6 leave only e4: a queen must go there. On rank 2, the queens on a1, d7, h5, b6, g3 and e4 leave no square: no queen can go there.",
		}},
		// Propagation alone refutes it: Refute's proof, not this one.
		{6, "b1,d6", "", nil},
		// Two queens on one rank: refuted by the rules at once.
		{8, "a1,c1", "", nil},
		// A solution's queens are never refuted.
		{8, "a1,e2,h3", "", nil},
		// An empty 8×8 board has solutions.
		{8, "", "", nil},
	}
	for _, tt := range tests {
		m := configuratortest.Model(t, tt.n, configurator.RowMajor)
		var with, without []configurator.Cell
		if tt.with != "" {
			with = configuratortest.Cells(t, tt.with)
		}
		if tt.without != "" {
			without = configuratortest.Cells(t, tt.without)
		}
		var got []string
		if s := configurator.RefuteByCases(m, with, without); s != nil {
			got = s.Lines()
		}
		if !slices.Equal(got, tt.lines) {
			t.Errorf("N=%d with [%s] without [%s]:\n got %q\nwant %q", tt.n, tt.with, tt.without, got, tt.lines)
		}
	}
}

// TestRefuteByCasesSound: on every placement of two queens up to 8×8 and
// every placement of two queens with a square kept empty up to 6×6, a proof
// by cases is only found where the oracle finds no solution, every case is
// a square its line has left, the cases are all of them, and each ends in
// a line with no square or in cases again; and where propagation stops
// short on 8×8, most placements with no solution get one. With -short it
// stops at 7×7.
func TestRefuteByCasesSound(t *testing.T) {
	top := 8
	if testing.Short() {
		top = 7
	}
	var check func(t *testing.T, m *configurator.Model, s *configurator.Split, depth int)
	check = func(t *testing.T, m *configurator.Model, s *configurator.Split, depth int) {
		t.Helper()
		if depth > 2 || len(s.Cases) < 2 {
			t.Fatalf("split over %s: depth %d, %d cases", s.Line, depth, len(s.Cases))
		}
		for _, k := range s.Cases {
			switch {
			case k.Split != nil:
				check(t, m, k.Split, depth+1)
			case len(k.Steps) == 0 || !k.Steps[len(k.Steps)-1].Empty:
				t.Fatalf("case %v of %s ends in %v", k.Queen, s.Line, k.Steps)
			}
		}
	}
	for n := 4; n <= top; n++ {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		board := configuratortest.Board(t, n)
		byCases, stuck := 0, 0
		for a := range n * n {
			for b := a + 1; b < n*n; b++ {
				with := []configurator.Cell{m.Cell(a), m.Cell(b)}
				withouts := [][]configurator.Cell{nil}
				if n <= 6 {
					for c := range n * n {
						if c != a && c != b {
							withouts = append(withouts, []configurator.Cell{m.Cell(c)})
						}
					}
				}
				for _, without := range withouts {
					s := configurator.RefuteByCases(m, with, without)
					sat := board.Satisfiable(oracleCells(with), oracleCells(without))
					if s == nil {
						if !sat && configurator.Refute(m, with, without) == nil && !m.Attacks(with[0], with[1]) {
							stuck++
						}
						continue
					}
					byCases++
					if sat {
						t.Fatalf("N=%d: [%s] without [%s] has a solution, refuted by cases: %q", n, configurator.FormatCells(with), configurator.FormatCells(without), s.Lines())
					}
					check(t, m, s, 1)
					if l := len(s.Lines()); l > configurator.MaxProofLines+1 {
						t.Errorf("N=%d: [%s]: %d lines", n, configurator.FormatCells(with), l)
					}
				}
			}
		}
		if n == 8 && (byCases == 0 || stuck > byCases) {
			t.Errorf("N=8: %d placements refuted by cases, %d with no proof", byCases, stuck)
		}
	}
}

// TestCompletions: the solutions listed are exactly the oracle's, for every
// placement of one or two queens up to 8×8 that at most MaxListed solutions
// hold; more are never listed. With -short it stops at 7×7.
func TestCompletions(t *testing.T) {
	top := 8
	if testing.Short() {
		top = 7
	}
	for n := 4; n <= top; n++ {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		board := configuratortest.Board(t, n)
		listed := 0
		for a := range n * n {
			for b := a; b < n*n; b++ {
				with := []configurator.Cell{m.Cell(a)}
				if b != a {
					with = append(with, m.Cell(b))
				}
				want := board.Extending(oracleCells(with))
				sols, ok := configurator.Completions(m, with, configurator.MaxListed)
				if len(want) > configurator.MaxListed {
					if ok {
						t.Fatalf("N=%d [%s]: %d solutions, listed %d", n, configurator.FormatCells(with), len(want), len(sols))
					}
					continue
				}
				if !ok {
					t.Fatalf("N=%d [%s]: %d solutions, none listed", n, configurator.FormatCells(with), len(want))
				}
				listed++
				var got, exp []string
				for _, s := range sols {
					got = append(got, configurator.FormatCells(s))
				}
				for _, i := range want {
					var cells []configurator.Cell
					for _, c := range board.Solution(i) {
						cells = append(cells, configurator.Cell(c))
					}
					exp = append(exp, configurator.FormatCells(cells))
				}
				slices.Sort(got)
				slices.Sort(exp)
				if !slices.Equal(got, exp) {
					t.Fatalf("N=%d [%s]: listed %q, want %q", n, configurator.FormatCells(with), got, exp)
				}
			}
		}
		if listed == 0 {
			t.Errorf("N=%d: nothing listed", n)
		}
	}
}
