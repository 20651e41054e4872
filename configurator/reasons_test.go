package configurator_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// minimalReasons returns, by brute force over the oracle's solutions, every
// subset-minimal set of queens (a bit mask over queens) that rules c as
// blocked (no solution holds the set and c) or forced (every solution
// holding the set holds c).
func minimalReasons(board *oracle.Board, queens []configurator.Cell, c configurator.Cell, blocked bool) []uint32 {
	// A set rules c when no solution of the other kind (through c when
	// blocked, avoiding it when forced) holds it.
	var others []uint32
	for i := range board.Count() {
		sol := board.Solution(i)
		if slices.Contains(sol, oracle.Cell(c)) != blocked {
			continue
		}
		var mask uint32
		for j, q := range queens {
			if slices.Contains(sol, oracle.Cell(q)) {
				mask |= 1 << j
			}
		}
		if !slices.Contains(others, mask) {
			others = append(others, mask)
		}
	}
	rules := make([]bool, 1<<len(queens))
	for set := range rules {
		rules[set] = !slices.ContainsFunc(others, func(m uint32) bool { return uint32(set)&^m == 0 })
	}
	var out []uint32
	for set, ok := range rules {
		if !ok {
			continue
		}
		minimal := true
		for j := range queens {
			if set&(1<<j) != 0 && rules[set&^(1<<j)] {
				minimal = false
			}
		}
		if minimal {
			out = append(out, uint32(set))
		}
	}
	return out
}

// maskOf is the bit mask over queens of cells.
func maskOf(t *testing.T, queens, cells []configurator.Cell) uint32 {
	t.Helper()
	var m uint32
	for _, c := range cells {
		j := slices.Index(queens, c)
		if j < 0 {
			t.Fatalf("%v is not one of the queens %s", c, configurator.FormatCells(queens))
		}
		m |= 1 << j
	}
	return m
}

// checkReasons checks s's explanation of every blocked and forced cell
// against the oracle: each reason listed is minimal and rules the cell,
// attacks come first and the rest by size, none is missing unless More,
// and Room is a fewest set that meets every reason and frees the cell.
func checkReasons(t *testing.T, name string, board *oracle.Board, s *configurator.Session) {
	t.Helper()
	ctx := context.Background()
	queens := s.Queens()
	a := s.Analysis()
	m := s.Space().Model()
	for v, st := range a.Cells {
		if st != configurator.Blocked && st != configurator.Forced {
			continue
		}
		c := m.Cell(v)
		where := fmt.Sprintf("%s N=%d [%s] %v", name, m.N(), configurator.FormatCells(queens), c)
		e, err := s.Explain(ctx, c)
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		want := minimalReasons(board, queens, c, st == configurator.Blocked)
		var got []uint32
		for i, r := range e.Reasons {
			mask := maskOf(t, queens, r.Queens)
			got = append(got, mask)
			attack := len(r.Queens) == 1 && oracle.Attacks(oracle.Cell(r.Queens[0]), oracle.Cell(c))
			switch {
			case !slices.Contains(want, mask):
				t.Errorf("%s: reason [%s] is not a minimal set that rules the square; the minimal ones are %s", where, configurator.FormatCells(r.Queens), masks(queens, want))
			case st == configurator.Forced && r.Reason != configurator.Forcing,
				st == configurator.Blocked && attack != (r.Reason == configurator.Attack):
				t.Errorf("%s: reason [%s] is a %v", where, configurator.FormatCells(r.Queens), r.Reason)
			}
			if i > 0 {
				prev := e.Reasons[i-1]
				if prev.Reason != configurator.Attack && (r.Reason == configurator.Attack || len(r.Queens) < len(prev.Queens)) {
					t.Errorf("%s: reason %d [%s] comes after [%s]", where, i, configurator.FormatCells(r.Queens), configurator.FormatCells(prev.Queens))
				}
			}
		}
		if len(e.Reasons) == 0 || e.Reason != e.Reasons[0].Reason || !slices.Equal(e.Because, e.Reasons[0].Queens) {
			t.Errorf("%s: because %v [%s] is not the first of %d reasons", where, e.Reason, configurator.FormatCells(e.Because), len(e.Reasons))
		}
		switch {
		case len(got) > configurator.MaxReasons:
			t.Errorf("%s: %d reasons, above the cap of %d", where, len(got), configurator.MaxReasons)
		case !e.More && len(got) != len(want):
			t.Errorf("%s: reasons %s, want all of %s", where, masks(queens, got), masks(queens, want))
		case e.More && len(want) <= len(got):
			t.Errorf("%s: says more may exist, but all %d are listed", where, len(got))
		}
		if st == configurator.Forced {
			if e.Room != nil {
				t.Errorf("%s: forced square with room [%s]", where, configurator.FormatCells(e.Room))
			}
			continue
		}
		k, ok := board.MinRemoval(oracleCells(queens), oracle.Cell(c))
		if !ok {
			if e.Room != nil {
				t.Errorf("%s: no solution uses the square, yet room [%s]", where, configurator.FormatCells(e.Room))
			}
			continue
		}
		room := maskOf(t, queens, e.Room)
		for _, r := range want {
			if r&room == 0 {
				t.Errorf("%s: room [%s] leaves reason %s standing", where, configurator.FormatCells(e.Room), masks(queens, []uint32{r}))
			}
		}
		var kept []oracle.Cell
		for _, q := range queens {
			if !slices.Contains(e.Room, q) {
				kept = append(kept, oracle.Cell(q))
			}
		}
		if len(e.Room) != k || board.Blocked(kept, oracle.Cell(c)) {
			t.Errorf("%s: room [%s] (%d queens) does not free it with the fewest (%d)", where, configurator.FormatCells(e.Room), len(e.Room), k)
		}
	}
}

// masks names sets of queens for a message: "[a1] [b5 c3]".
func masks(queens []configurator.Cell, sets []uint32) string {
	var b strings.Builder
	for _, m := range sets {
		var cs []configurator.Cell
		for j, q := range queens {
			if m&(1<<j) != 0 {
				cs = append(cs, q)
			}
		}
		fmt.Fprintf(&b, "[%s]", configurator.FormatCells(cs))
	}
	return b.String()
}

func oracleCells(cs []configurator.Cell) []oracle.Cell {
	out := make([]oracle.Cell, len(cs))
	for i, c := range cs {
		out[i] = oracle.Cell(c)
	}
	return out
}

// TestReasonsExhaustive explains every blocked and forced square of every
// board reachable by legal clicks up to 6×6 (every set of queens some
// solution holds, placed rank by rank), with the BDD backend, and up to 5×5
// with the SAT backend too (the cross-check checks each reason of every
// backend up to 6×6 as well); with -short, one size less.
func TestReasonsExhaustive(t *testing.T) {
	ctx := context.Background()
	top := 6
	if testing.Short() {
		top = 5
	}
	for bi, b := range backends {
		for n := 1; n <= top-bi; n++ {
			board := configuratortest.Board(t, n)
			sp := space(t, b, n)
			seen := map[string]bool{}
			for i := range board.Count() {
				sol := board.Solution(i)
				for set := range 1 << n {
					queens := subset(sol, set)
					key := configurator.FormatCells(queens)
					if seen[key] {
						continue
					}
					seen[key] = true
					s, err := configurator.NewSession(ctx, sp, queens)
					if err != nil {
						t.Fatalf("%s N=%d [%s]: %v", b.Name(), n, key, err)
					}
					checkReasons(t, b.Name(), board, s)
				}
			}
		}
	}
}

// TestReasonsWalks explains every blocked and forced square along seeded
// random walks of clicks on 7×7 to 10×10 (with -short, to 8×8), with the
// BDD backend: each click places a queen on a free square, in a random
// order.
func TestReasonsWalks(t *testing.T) {
	b := bdd.New(bdd.Options{})
	top := 10
	if testing.Short() {
		top = 8
	}
	for n := 7; n <= top; n++ {
		board := configuratortest.Board(t, n)
		sp := space(t, b, n)
		walk(t, sp, rand.New(rand.NewPCG(uint64(n), 11)), 3, func(s *configurator.Session) {
			checkReasons(t, b.Name(), board, s)
		})
	}
}

// subset is the queens of sol on the ranks whose bits are set in set.
func subset(sol []oracle.Cell, set int) []configurator.Cell {
	var queens []configurator.Cell
	for r, q := range sol {
		if set&(1<<r) != 0 {
			queens = append(queens, configurator.Cell(q))
		}
	}
	return queens
}

// walk takes walks random walks of clicks on sp, each from the empty board
// until no square is free, a queen on a random free square at a time, and
// calls each after every click.
func walk(t *testing.T, sp configurator.Space, rng *rand.Rand, walks int, each func(*configurator.Session)) {
	t.Helper()
	ctx := context.Background()
	for range walks {
		s, err := configurator.NewSession(ctx, sp, nil)
		if err != nil {
			t.Fatal(err)
		}
		for {
			free := s.Analysis().In(configurator.Free)
			if len(free) == 0 {
				break
			}
			if err := s.Place(ctx, free[rng.IntN(len(free))]); err != nil {
				t.Fatal(err)
			}
			each(s)
		}
	}
}

func TestReasons(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		n       int
		queens  string
		cell    string
		reasons []string // each as FormatCells
		words   []string
		room    string
	}{
		// Two reasons of one queen each: b5 attacks d7, and a1 alone
		// leaves no solution through it; both must go.
		{8, "a1,b5", "d7", []string{"b5", "a1"}, []string{"attacked by b5", "no solution holds queens on a1 and here"}, "a1,b5"},
		{8, "a1,c5", "e4", []string{"a1", "c5"}, []string{"no solution holds queens on a1 and here", "no solution holds queens on c5 and here"}, "a1,c5"},
		{8, "a1,c5", "g2", []string{"a1,c5"}, []string{"no solution holds queens on a1, c5 and here"}, "a1"},
		{8, "a1,c5", "e2", []string{"a1,c5"}, []string{"every solution with queens on a1, c5 has a queen here"}, ""},
		{4, "b1", "a1", []string{""}, []string{"no solution has a queen here, whatever else is placed"}, ""},
	}
	for _, b := range backends {
		spaceOf := spaces(t, b)
		for _, tt := range tests {
			s := session(t, spaceOf(tt.n), tt.queens)
			e, err := s.Explain(ctx, configuratortest.Cell(t, tt.cell))
			if err != nil {
				t.Fatalf("%s N=%d [%s] %s: %v", b.Name(), tt.n, tt.queens, tt.cell, err)
			}
			var got, words []string
			for _, r := range e.Reasons {
				got, words = append(got, configurator.FormatCells(r.Queens)), append(words, r.String())
			}
			if !slices.Equal(got, tt.reasons) || !slices.Equal(words, tt.words) || e.More || configurator.FormatCells(e.Room) != tt.room {
				t.Errorf("%s N=%d [%s] %s: reasons %q %q more %v room [%s]; want %q %q, all, room [%s]", b.Name(), tt.n, tt.queens, tt.cell,
					got, words, e.More, configurator.FormatCells(e.Room), tt.reasons, tt.words, tt.room)
			}
		}
	}
	// Removing a1 breaks the second reason of d7, b5 the first.
	s := session(t, space(t, backends[0], 8), "a1,b5")
	e, err := s.Explain(ctx, configuratortest.Cell(t, "d7"))
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]int{"a1": {1}, "b5": {0}} {
		if got := e.Breaks(configuratortest.Cell(t, q)); !slices.Equal(got, want) {
			t.Errorf("removing %s breaks reasons %v, want %v", q, got, want)
		}
	}
}

// TestReasonsBounded: on a 32×32 SAT board with 13 queens the search stops
// in time, with at least one reason and a room that frees the square.
func TestReasonsBounded(t *testing.T) {
	sp := space(t, sat.New(sat.Options{}), 32)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(32, 13))
	s, err := configurator.NewSession(ctx, sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	for len(s.Queens()) < 13 {
		free := s.Analysis().In(configurator.Free)
		if err := s.Place(ctx, free[rng.IntN(len(free))]); err != nil {
			t.Fatal(err)
		}
	}
	// Every blocked square has an attacker here; its other reasons are
	// searched among the twelve other queens.
	blocked := s.Analysis().In(configurator.Blocked)
	hard := []configurator.Cell{blocked[rng.IntN(len(blocked))], blocked[rng.IntN(len(blocked))]}
	const limit = 8 * time.Second
	for _, c := range hard {
		tctx, cancel := context.WithTimeout(ctx, limit)
		start := time.Now()
		e, err := s.Explain(tctx, c)
		cancel()
		if err != nil {
			t.Fatalf("explain %v under [%s]: %v", c, configurator.FormatCells(s.Queens()), err)
		}
		if took := time.Since(start); took > limit {
			t.Errorf("explain %v took %v", c, took)
		}
		first, err := sp.Satisfiable(ctx, append(slices.Clone(e.Because), c), nil)
		if err != nil || first {
			t.Errorf("explain %v: [%s] does not rule it out (%v)", c, configurator.FormatCells(e.Because), err)
		}
		var kept []configurator.Cell
		for _, q := range s.Queens() {
			if !slices.Contains(e.Room, q) {
				kept = append(kept, q)
			}
		}
		if ok, err := sp.Satisfiable(ctx, append(kept, c), nil); err != nil || !ok {
			t.Errorf("explain %v: removing [%s] does not free it (%v)", c, configurator.FormatCells(e.Room), err)
		}
		t.Logf("%v: %d reasons (more: %v), room [%s], %v", c, len(e.Reasons), e.More, configurator.FormatCells(e.Room), e.Elapsed)
	}
}

// TestWhy: Why gives one of the minimal reasons Explain lists (the same
// first one when it is an attack), with its words and proof, More when
// other queens may form others, and no room; on every blocked and forced
// square of every placement of queens of a solution, 1×1 to 6×6 on the
// BDD, and of three seeded walks on 8×8; with -short, to 5×5 and one walk.
func TestWhy(t *testing.T) {
	ctx := context.Background()
	top, walks := 6, 3
	if testing.Short() {
		top, walks = 5, 1
	}
	check := func(s *configurator.Session) {
		t.Helper()
		for _, st := range []configurator.State{configurator.Blocked, configurator.Forced} {
			for _, c := range s.Analysis().In(st) {
				e, err := s.Explain(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				w, err := s.Why(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("[%s] %v", configurator.FormatCells(s.Queens()), c)
				if len(w.Reasons) != 1 || w.Room != nil || w.State != e.State || w.Reason != w.Reasons[0].Reason ||
					configurator.FormatCells(w.Because) != configurator.FormatCells(w.Reasons[0].Queens) {
					t.Fatalf("%s: Why %+v, want one reason, its fields as Because and Reason, and no room", where, w)
				}
				got := w.Reasons[0]
				in := slices.ContainsFunc(e.Reasons, func(r configurator.Cause) bool {
					return r.Reason == got.Reason && slices.Equal(r.Queens, got.Queens) && len(r.Proof) == len(got.Proof)
				})
				if !in && !e.More {
					t.Errorf("%s: Why's reason %s (%v) is not among Explain's %v", where, configurator.FormatCells(got.Queens), got.Reason, e.Reasons)
				}
				if e.Reasons[0].Reason == configurator.Attack && !slices.Equal(got.Queens, e.Reasons[0].Queens) {
					t.Errorf("%s: Why's reason [%s], want Explain's first attack [%s]", where, configurator.FormatCells(got.Queens), configurator.FormatCells(e.Reasons[0].Queens))
				}
				if others := len(e.Reasons) > 1 || e.More; others && !w.More {
					t.Errorf("%s: Why's More is false though Explain lists %d reasons (more: %v)", where, len(e.Reasons), e.More)
				}
			}
		}
	}
	b := backends[0]
	for n := 1; n <= top; n++ {
		board := configuratortest.Board(t, n)
		sp := space(t, b, n)
		for i := range board.Count() {
			sol := board.Solution(i)
			for set := range 1 << n {
				queens := subset(sol, set)
				s, err := configurator.NewSession(ctx, sp, queens)
				if err != nil {
					t.Fatal(err)
				}
				check(s)
			}
		}
	}
	sp := space(t, b, 8)
	walk(t, sp, rand.New(rand.NewPCG(8, 14)), walks, check)
	if _, err := session(t, sp, "a1").Why(ctx, configuratortest.Cell(t, "c5")); !errors.Is(err, configurator.ErrNotExplained) {
		t.Errorf("Why on a free square: %v, want ErrNotExplained", err)
	}
}
