package configurator_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// The session logic is shared by every backend, so each test runs it on
// both real ones.
var backends = []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{})}

// space compiles the n×n board, in row-major order, with b.
func space(t *testing.T, b configurator.Backend, n int) configurator.Space {
	t.Helper()
	return configuratortest.Space(t, b, configuratortest.Model(t, n, configurator.RowMajor))
}

// spaces compiles, with b, each board size the first time it is asked for.
func spaces(t *testing.T, b configurator.Backend) func(n int) configurator.Space {
	compiled := map[int]configurator.Space{}
	return func(n int) configurator.Space {
		t.Helper()
		if compiled[n] == nil {
			compiled[n] = space(t, b, n)
		}
		return compiled[n]
	}
}

func session(t *testing.T, sp configurator.Space, queens string) *configurator.Session {
	t.Helper()
	s, err := configurator.NewSession(context.Background(), sp, configuratortest.Cells(t, queens))
	if err != nil {
		t.Fatalf("N=%d: session on [%s]: %v", sp.Model().N(), queens, err)
	}
	return s
}

// solutions is the session's count, -1 when the backend gives none.
func solutions(s *configurator.Session) int64 {
	if a := s.Analysis(); a.Solutions != nil && !a.AtLeast {
		return a.Solutions.Int64()
	}
	return -1
}

// unchanged fails the test when s no longer holds queens with analysis a.
func unchanged(t *testing.T, s *configurator.Session, queens string, a *configurator.Analysis) {
	t.Helper()
	if got := configurator.FormatCells(s.Queens()); got != queens || s.Analysis() != a {
		t.Errorf("session changed to [%s] after a refused request; want [%s] and the same analysis", got, queens)
	}
}

func TestCompile(t *testing.T) {
	for _, b := range backends {
		sp, d, err := configurator.Compile(context.Background(), b, configuratortest.Model(t, 8, configurator.RowMajor))
		if err != nil || sp.Model().N() != 8 || d <= 0 {
			t.Errorf("%s: Compile = %v, %v, %v", b.Name(), sp, d, err)
		}
	}
}

func TestNewSession(t *testing.T) {
	tests := []struct {
		queens string
		want   error
		count  int64
	}{
		{"", nil, 92},
		{"a1", nil, 4},
		{"c5", nil, 12},
		{"a1,c5", nil, 1},
		{"c5,a1", nil, 1},
		{"a1,b1", configurator.ErrNoSolution, 0}, // same rank
		{"a1,b3", configurator.ErrNoSolution, 0}, // no attack, yet no solution
		{"a1,i1", configurator.ErrOffBoard, 0},
		{"a1,a1", configurator.ErrDuplicate, 0},
	}
	for _, b := range backends {
		sp := space(t, b, 8)
		for _, tt := range tests {
			s, err := configurator.NewSession(context.Background(), sp, configuratortest.Cells(t, tt.queens))
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("%s [%s]: %v, want %v", b.Name(), tt.queens, err, tt.want)
				continue
			}
			if err != nil {
				continue
			}
			if got := solutions(s); got != tt.count {
				t.Errorf("%s [%s]: %d solutions, want %d", b.Name(), tt.queens, got, tt.count)
			}
			if got := configurator.FormatCells(s.Queens()); got != tt.queens {
				t.Errorf("%s [%s]: queens [%s]", b.Name(), tt.queens, got)
			}
			if s.Space() != sp {
				t.Errorf("%s: Space() is not the session's space", b.Name())
			}
		}
	}
}

func TestPlace(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		s := session(t, space(t, b, 8), "")
		if err := s.Place(ctx, configuratortest.Cell(t, "a1")); err != nil {
			t.Fatalf("%s: place a1: %v", b.Name(), err)
		}
		if err := s.Place(ctx, configuratortest.Cell(t, "c5")); err != nil {
			t.Fatalf("%s: place c5: %v", b.Name(), err)
		}
		a := s.Analysis()
		if solutions(s) != 1 || a.At(configuratortest.Cell(t, "a1")) != configurator.Queen || a.At(configuratortest.Cell(t, "c5")) != configurator.Queen {
			t.Errorf("%s a1,c5: %d solutions, a1 %v, c5 %v", b.Name(), solutions(s), a.At(configuratortest.Cell(t, "a1")), a.At(configuratortest.Cell(t, "c5")))
		}
		// The one solution left forces six queens, derived, never stored
		// as the user's.
		if got := configurator.FormatCells(a.In(configurator.Forced)); got != "e2,h3,f4,g6,b7,d8" {
			t.Errorf("%s a1,c5: forced %s, want e2,h3,f4,g6,b7,d8", b.Name(), got)
		}
		if got := configurator.FormatCells(s.Queens()); got != "a1,c5" {
			t.Errorf("%s: queens [%s], want a1,c5", b.Name(), got)
		}

		// Refusals leave everything as it was.
		for _, tt := range []struct {
			cell string
			want error
		}{
			{"b1", configurator.ErrBlocked},  // attacked by a1
			{"b3", configurator.ErrBlocked},  // in no solution with a1
			{"g2", configurator.ErrBlocked},  // in no solution with a1 and c5
			{"c5", configurator.ErrOccupied}, // the user's queen
			{"i1", configurator.ErrOffBoard},
		} {
			err := s.Place(ctx, configuratortest.Cell(t, tt.cell))
			if !errors.Is(err, tt.want) {
				t.Errorf("%s: place %s: %v, want %v", b.Name(), tt.cell, err, tt.want)
			}
			unchanged(t, s, "a1,c5", a)
		}

		// A forced cell may be placed on: the queen becomes the user's.
		if err := s.Place(ctx, configuratortest.Cell(t, "e2")); err != nil {
			t.Fatalf("%s: place on forced e2: %v", b.Name(), err)
		}
		if a := s.Analysis(); a.At(configuratortest.Cell(t, "e2")) != configurator.Queen || solutions(s) != 1 || len(a.In(configurator.Forced)) != 5 {
			t.Errorf("%s: after e2: e2 %v, %d solutions, %d forced", b.Name(), a.At(configuratortest.Cell(t, "e2")), solutions(s), len(a.In(configurator.Forced)))
		}
	}
}

func TestRemove(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		s := session(t, space(t, b, 8), "a1,c5,e2")
		// Any queen, not only the last.
		if err := s.Remove(ctx, configuratortest.Cell(t, "a1")); err != nil {
			t.Fatalf("%s: remove a1: %v", b.Name(), err)
		}
		if got := configurator.FormatCells(s.Queens()); got != "c5,e2" {
			t.Errorf("%s: queens [%s] after removing a1, want c5,e2", b.Name(), got)
		}
		b8 := configuratortest.Board(t, 8)
		if want := int64(b8.CountWith([]oracle.Cell{{Row: 4, Col: 2}, {Row: 1, Col: 4}})); solutions(s) != want {
			t.Errorf("%s c5,e2: %d solutions, oracle says %d", b.Name(), solutions(s), want)
		}
		a := s.Analysis()
		for _, c := range []string{"a1", "h3", "i9"} { // no queen there; h3 not even forced now
			if err := s.Remove(ctx, configuratortest.Cell(t, c)); !errors.Is(err, configurator.ErrNoQueen) {
				t.Errorf("%s: remove %s: %v, want ErrNoQueen", b.Name(), c, err)
			}
			unchanged(t, s, "c5,e2", a)
		}
		// A forced queen is not the user's to remove.
		s = session(t, space(t, b, 8), "a1,c5")
		a = s.Analysis()
		if err := s.Remove(ctx, configuratortest.Cell(t, "e2")); !errors.Is(err, configurator.ErrNoQueen) {
			t.Errorf("%s: remove forced e2: %v, want ErrNoQueen", b.Name(), err)
		}
		unchanged(t, s, "a1,c5", a)
		// Several at once; one bad cell refuses them all.
		if err := s.Remove(ctx, configuratortest.Cell(t, "c5"), configuratortest.Cell(t, "b2")); !errors.Is(err, configurator.ErrNoQueen) {
			t.Errorf("%s: remove c5,b2: %v, want ErrNoQueen", b.Name(), err)
		}
		unchanged(t, s, "a1,c5", a)
		if err := s.Remove(ctx, configuratortest.Cell(t, "c5"), configuratortest.Cell(t, "a1")); err != nil || len(s.Queens()) != 0 || solutions(s) != 92 {
			t.Errorf("%s: remove c5,a1: %v, queens %v, %d solutions", b.Name(), err, s.Queens(), solutions(s))
		}
	}
}

func TestExplain(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		n       int
		queens  string
		cell    string
		state   configurator.State
		reason  configurator.Reason
		because string
		words   string
	}{
		{8, "a1,c5", "b1", configurator.Blocked, configurator.Attack, "a1", "attacked by a1"},
		{8, "a1,c5", "h5", configurator.Blocked, configurator.Attack, "c5", "attacked by c5"},
		{8, "a1,c5", "b3", configurator.Blocked, configurator.NoCompletion, "a1", "no solution holds queens on a1 and here"},
		{8, "a1,c5", "g2", configurator.Blocked, configurator.NoCompletion, "a1,c5", "no solution holds queens on a1, c5 and here"},
		// e4 is ruled out by a1 alone and by c5 alone: deletion keeps
		// the first.
		{8, "a1,c5", "e4", configurator.Blocked, configurator.NoCompletion, "a1", "no solution holds queens on a1 and here"},
		{8, "c5,a1", "e4", configurator.Blocked, configurator.NoCompletion, "c5", "no solution holds queens on c5 and here"},
		{8, "a1,c5", "e2", configurator.Forced, configurator.Forcing, "a1,c5", "every solution with queens on a1, c5 has a queen here"},
		// 4×4: the solutions are b1 d2 a3 c4 and c1 a2 d3 b4.
		{4, "b1", "d2", configurator.Forced, configurator.Forcing, "b1", "every solution with queens on b1 has a queen here"},
		{4, "b1", "d3", configurator.Blocked, configurator.Attack, "b1", "attacked by b1"},
		// a1 is attacked by b1, but in no solution at all: no queen is
		// needed to rule it out.
		{4, "b1", "a1", configurator.Blocked, configurator.NoCompletion, "", "no solution has a queen here, whatever else is placed"},
		{4, "", "b2", configurator.Blocked, configurator.NoCompletion, "", "no solution has a queen here, whatever else is placed"},
		{1, "", "a1", configurator.Forced, configurator.Forcing, "", "every solution has a queen here"},
	}
	for _, b := range backends {
		spaceOf := spaces(t, b)
		for _, tt := range tests {
			s := session(t, spaceOf(tt.n), tt.queens)
			a := s.Analysis()
			e, err := s.Explain(ctx, configuratortest.Cell(t, tt.cell))
			if err != nil {
				t.Errorf("%s N=%d [%s] %s: %v", b.Name(), tt.n, tt.queens, tt.cell, err)
				continue
			}
			if e.Cell != configuratortest.Cell(t, tt.cell) || e.State != tt.state || e.Reason != tt.reason || configurator.FormatCells(e.Because) != tt.because || e.String() != tt.words {
				t.Errorf("%s N=%d [%s] %s: %v %v [%s] %q; want %v %v [%s] %q", b.Name(), tt.n, tt.queens, tt.cell,
					e.State, e.Reason, configurator.FormatCells(e.Because), e.String(), tt.state, tt.reason, tt.because, tt.words)
			}
			unchanged(t, s, tt.queens, a)
		}
		// Nothing to explain on a free cell or a queen; off the board is
		// an error of its own.
		s := session(t, space(t, b, 8), "a1")
		for _, tt := range []struct {
			cell string
			want error
		}{{"e2", configurator.ErrNotExplained}, {"a1", configurator.ErrNotExplained}, {"a9", configurator.ErrOffBoard}} {
			if _, err := s.Explain(ctx, configuratortest.Cell(t, tt.cell)); !errors.Is(err, tt.want) {
				t.Errorf("%s: explain %s under a1: %v, want %v", b.Name(), tt.cell, err, tt.want)
			}
		}
	}
}

func TestMakeRoom(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		n      int
		queens string
		cell   string
		remove string
		err    error
	}{
		{8, "a1,c5", "b1", "a1", nil},
		{8, "a1,c5", "g2", "a1", nil}, // either queen would do; the search tries a1 first
		{8, "a1,c5", "e4", "a1,c5", nil},
		{8, "c5,a1", "e4", "c5,a1", nil}, // placement order
		{8, "a1,c5", "h5", "c5", nil},
		{4, "b1,d2", "a2", "b1,d2", nil},
		{4, "b1", "a1", "", configurator.ErrNoSolution}, // no solution uses a1
		{8, "a1,c5", "e2", "", configurator.ErrNotExplained},
		{8, "a1", "e2", "", configurator.ErrNotExplained},
		{8, "a1", "a1", "", configurator.ErrNotExplained},
		{8, "a1", "j1", "", configurator.ErrOffBoard},
	}
	for _, b := range backends {
		spaceOf := spaces(t, b)
		for _, tt := range tests {
			s := session(t, spaceOf(tt.n), tt.queens)
			a := s.Analysis()
			remove, err := s.MakeRoom(ctx, configuratortest.Cell(t, tt.cell))
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) || configurator.FormatCells(remove) != tt.remove {
				t.Errorf("%s N=%d [%s] make room on %s: [%s], %v; want [%s], %v", b.Name(), tt.n, tt.queens, tt.cell, configurator.FormatCells(remove), err, tt.remove, tt.err)
				continue
			}
			unchanged(t, s, tt.queens, a)
			if err != nil {
				continue
			}
			// Taking the advice frees the cell.
			if err := s.Remove(ctx, remove...); err != nil {
				t.Fatal(err)
			}
			if st := s.Analysis().At(configuratortest.Cell(t, tt.cell)); st != configurator.Free && st != configurator.Forced {
				t.Errorf("%s N=%d [%s]: after removing %s, %s is %v", b.Name(), tt.n, tt.queens, tt.remove, tt.cell, st)
			}
		}
	}
}

func TestComplete(t *testing.T) {
	ctx := context.Background()
	board := configuratortest.Board(t, 8)
	for _, b := range backends {
		s := session(t, space(t, b, 8), "c5,a1")
		if err := s.Complete(ctx, rand.New(rand.NewPCG(1, 2))); err != nil {
			t.Fatalf("%s: complete: %v", b.Name(), err)
		}
		q := s.Queens()
		var oq []oracle.Cell
		for _, c := range q {
			oq = append(oq, oracle.Cell(c))
		}
		// The only solution with a1 and c5, the user's queens first.
		if !board.IsSolution(oq) || !slices.Equal(q[:2], configuratortest.Cells(t, "c5,a1")) || solutions(s) != 1 {
			t.Errorf("%s: completed to [%s], %d solutions", b.Name(), configurator.FormatCells(q), solutions(s))
		}
		if n := len(s.Analysis().In(configurator.Queen)); n != 8 {
			t.Errorf("%s: %d queens after completing", b.Name(), n)
		}
		// A full board completes to itself.
		before := configurator.FormatCells(s.Queens())
		if err := s.Complete(ctx, rand.New(rand.NewPCG(3, 4))); err != nil || configurator.FormatCells(s.Queens()) != before {
			t.Errorf("%s: completing a solution: [%s], %v", b.Name(), configurator.FormatCells(s.Queens()), err)
		}
	}
}
