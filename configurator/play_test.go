package configurator_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// TestPlay: one click is one call, on every backend: the board after it,
// or an error that says why the click is refused, the placement unchanged.
func TestPlay(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name          string
		n             int
		queens        string
		remove        string
		place         string
		wantQueens    string
		wantSolutions int64
		wantErr       error
		wantText      string // the error's words, when it fails
	}{
		{name: "first queen", n: 8, place: "a1", wantQueens: "a1", wantSolutions: 4},
		{name: "second queen", n: 8, queens: "a1", place: "c5", wantQueens: "a1,c5", wantSolutions: 1},
		{name: "remove", n: 8, queens: "a1,c5", remove: "a1", wantQueens: "c5", wantSolutions: 12},
		{name: "remove all", n: 8, queens: "a1,c5", remove: "c5,a1", wantSolutions: 92},
		{name: "make room then place", n: 8, queens: "a1,b5", remove: "b5,a1", place: "d7", wantQueens: "d7"},
		{name: "attacked", n: 8, queens: "a1,b5", place: "d7", wantErr: configurator.ErrBlocked, wantText: "d7 is blocked: attacked by b5"},
		{name: "no completion", n: 8, queens: "a1", place: "b3", wantErr: configurator.ErrBlocked, wantText: "b3 is blocked: no solution holds queens on a1 and here"},
		{name: "occupied", n: 8, queens: "a1", place: "a1", wantErr: configurator.ErrOccupied},
		{name: "no such queen", n: 8, queens: "a1", remove: "c5", wantErr: configurator.ErrNoQueen},
		{name: "attacking pair", n: 8, queens: "a1,b2", wantErr: configurator.ErrNoSolution, wantText: "no solution holds these queens: a1 and b2 attack each other"},
		{name: "infeasible before the click", n: 8, queens: "a1,b2", place: "c5", wantErr: configurator.ErrNoSolution, wantText: "a1 and b2 attack each other"},
		{name: "no way to fill the ranks", n: 4, queens: "a1", wantErr: configurator.ErrNoSolution, wantText: "no solution holds queens on a1 together: there is no way to fill the remaining ranks"},
		{name: "no solution at all", n: 3, wantErr: configurator.ErrNoSolution, wantText: "no solution exists on this board"},
	}
	for _, b := range backends {
		for _, tt := range tests {
			t.Run(b.Name()+"/"+tt.name, func(t *testing.T) {
				sp := space(t, b, tt.n)
				var place *configurator.Cell
				if tt.place != "" {
					c := configuratortest.Cell(t, tt.place)
					place = &c
				}
				s, err := configurator.Play(ctx, sp, configuratortest.Cells(t, tt.queens), configuratortest.Cells(t, tt.remove), place)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) || !strings.Contains(fmtErr(err), tt.wantText) {
						t.Fatalf("Play: %v, want %v saying %q", err, tt.wantErr, tt.wantText)
					}
					return
				}
				if err != nil {
					t.Fatalf("Play: %v", err)
				}
				if got := configurator.FormatCells(s.Queens()); got != tt.wantQueens {
					t.Errorf("queens %q, want %q", got, tt.wantQueens)
				}
				truth := configuratortest.Board(t, tt.n)
				want := int64(truth.CountWith(ocells(s.Queens())))
				if tt.wantSolutions != 0 && want != tt.wantSolutions {
					t.Fatalf("the oracle counts %d solutions, the table says %d", want, tt.wantSolutions)
				}
				if got := solutions(s); got != want {
					t.Errorf("%d solutions, the oracle counts %d", got, want)
				}
			})
		}
	}
}

func ocells(cs []configurator.Cell) []oracle.Cell {
	out := make([]oracle.Cell, len(cs))
	for i, c := range cs {
		out[i] = oracle.Cell{Row: c.Row, Col: c.Col}
	}
	return out
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestPlayRefusalExplains: a refused placement carries the explanation the
// Why? panel would give, naming a minimal set of the user's queens.
func TestPlayRefusalExplains(t *testing.T) {
	for _, b := range backends {
		sp := space(t, b, 8)
		d7 := configuratortest.Cell(t, "d7")
		_, err := configurator.Play(context.Background(), sp, configuratortest.Cells(t, "a1,b5"), nil, &d7)
		var r *configurator.Refusal
		if !errors.As(err, &r) || r.Why == nil {
			t.Fatalf("%s: %v, want a *Refusal with its reason", b.Name(), err)
		}
		if r.Cell != d7 || r.Why.Reason != configurator.Attack || configurator.FormatCells(r.Why.Because) != "b5" {
			t.Errorf("%s: refusal %+v because %v, want d7 attacked by b5", b.Name(), r, r.Why.Because)
		}
	}
}

// TestInfeasibleNamesThePair: the first attacking pair in placement order.
func TestInfeasibleNamesThePair(t *testing.T) {
	for _, b := range backends {
		sp := space(t, b, 8)
		_, err := configurator.NewSession(context.Background(), sp, configuratortest.Cells(t, "c5,a1,h8,b2"))
		var inf *configurator.Infeasible
		if !errors.As(err, &inf) {
			t.Fatalf("%s: %v, want *Infeasible", b.Name(), err)
		}
		if got := configurator.FormatCells(inf.Attack); got != "a1,h8" {
			t.Errorf("%s: attacking pair %q, want a1,h8 (the first in placement order)", b.Name(), got)
		}
	}
}

// TestListCells: names for a sentence.
func TestListCells(t *testing.T) {
	for in, want := range map[string]string{"": "no squares", "a1": "a1", "a1,c5": "a1 and c5", "a1,c5,e2": "a1, c5 and e2"} {
		if got := configurator.ListCells(configuratortest.Cells(t, in)); got != want {
			t.Errorf("ListCells(%s) = %q, want %q", in, got, want)
		}
	}
}
