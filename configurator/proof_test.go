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
