package configurator_test

import (
	"context"
	"errors"
	"slices"
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

// TestFeasiblePrefix: the longest start of a hand-edited placement that
// some solution holds, checked against the oracle's count of each start.
func TestFeasiblePrefix(t *testing.T) {
	tests := []struct {
		n      int
		queens string
		want   string
	}{
		{8, "", ""},
		{8, "a1,c5", "a1,c5"},
		{8, "a1,c5,b2,h8", "a1,c5"},
		{8, "a1,b3", "a1"},          // b3 is in no solution with a1, though not attacked
		{8, "a1,a1,c5", "a1"},       // a duplicate ends the sound start
		{8, "b2,a1", "b2"},          // order matters: the first queen stays
		{4, "a1", ""},               // no 4×4 solution uses a corner
		{6, "b1,d2,f3", "b1,d2,f3"}, // one of the four 6×6 solutions
	}
	for _, b := range backends {
		for _, tt := range tests {
			sp := space(t, b, tt.n)
			got := configurator.FeasiblePrefix(context.Background(), sp, configuratortest.Cells(t, tt.queens))
			if configurator.FormatCells(got) != tt.want {
				t.Errorf("%s %d×%d [%s]: prefix %q, want %q", b.Name(), tt.n, tt.n, tt.queens, configurator.FormatCells(got), tt.want)
			}
		}
	}
}

// TestCompare: answers of two backends to the same step agree; answers to
// different placements differ on cells and counts, said in words.
func TestCompare(t *testing.T) {
	ctx := context.Background()
	bs, ss := space(t, backends[0], 8), space(t, backends[1], 8)
	answer := func(name string, sp configurator.Space, queens string) *configurator.Answer {
		s, err := configurator.NewSession(ctx, sp, configuratortest.Cells(t, queens))
		return &configurator.Answer{Backend: name, Session: s, Err: err}
	}
	if d := configurator.Compare(answer("bdd", bs, "a1,c5"), answer("sat", ss, "a1,c5")); !d.None() {
		t.Errorf("same step: %+v, want agreement", d)
	}
	d := configurator.Compare(answer("bdd", bs, "a1"), answer("sat", ss, "a1,c5"))
	if len(d.Cells) == 0 {
		t.Error("a1 against a1,c5: no cell differs")
	}
	for _, c := range d.Cells {
		if c.States[0] == c.States[1] {
			t.Errorf("%v listed with equal states %v", c.Cell, c.States)
		}
	}
	if !slices.Contains(d.Other, "BDD counts 4 solutions, SAT counts 1") {
		t.Errorf("other differences %q, want the counts", d.Other)
	}
	// A failure that is not an answer (a deadline) is no disagreement; a
	// refusal where the reference finds a board is one.
	late := &configurator.Answer{Backend: "sat", Err: context.DeadlineExceeded}
	if d := configurator.Compare(answer("bdd", bs, "a1"), late); !d.None() {
		t.Errorf("deadline: %+v, want no disagreement", d)
	}
	refused := &configurator.Answer{Backend: "sat", Err: configurator.ErrNoSolution}
	if d := configurator.Compare(answer("bdd", bs, "a1"), refused); len(d.Other) != 1 || !strings.HasPrefix(d.Other[0], "SAT finds no solution here, BDD does") {
		t.Errorf("refusal: %q, want SAT finds no solution here", d.Other)
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
