package oracle

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"testing"
)

// a000170 is OEIS A000170, the number of solutions of N-Queens, N = 1..13.
var a000170 = []int{1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712}

func TestCountIsA000170(t *testing.T) {
	top := 12 // 13: see TestCount13
	if testing.Short() {
		top = 11
	}
	for n := 1; n <= top; n++ {
		b, err := New(n)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := b.Count(), a000170[n-1]; got != want {
			t.Errorf("N=%d: %d solutions, want %d", n, got, want)
		}
	}
}

var long = flag.Bool("oracle.long", false, "also enumerate the 73,712 solutions of N=13 (16 s under -race)")

func TestCount13(t *testing.T) {
	if !*long {
		t.Skip("enumerates 73,712 solutions; run with -oracle.long")
	}
	b, err := New(13)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Count(); got != 73712 {
		t.Errorf("N=13: %d solutions, want 73712", got)
	}
}

func TestNewRejectsSizes(t *testing.T) {
	for _, n := range []int{-1, 0, MaxN + 1} {
		if _, err := New(n); !errors.Is(err, ErrSize) {
			t.Errorf("New(%d) = %v, want ErrSize", n, err)
		}
	}
}

func TestAttacks(t *testing.T) {
	tests := []struct {
		a, b Cell
		want bool
	}{
		{Cell{0, 0}, Cell{0, 0}, false}, // a queen does not attack itself
		{Cell{0, 0}, Cell{0, 7}, true},  // row
		{Cell{2, 3}, Cell{6, 3}, true},  // column
		{Cell{0, 0}, Cell{7, 7}, true},  // diagonal
		{Cell{3, 4}, Cell{5, 2}, true},  // anti-diagonal
		{Cell{5, 2}, Cell{3, 4}, true},  // symmetric
		{Cell{0, 0}, Cell{1, 2}, false}, // knight's move
		{Cell{0, 0}, Cell{2, 1}, false},
		{Cell{4, 4}, Cell{1, 2}, false},
	}
	for _, tt := range tests {
		if got := Attacks(tt.a, tt.b); got != tt.want {
			t.Errorf("Attacks(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestSolutionsAgainstPermutations checks the backtracking enumerator
// against a second, dumber one: every permutation of the columns, kept when
// no two queens share a diagonal.
func TestSolutionsAgainstPermutations(t *testing.T) {
	for n := 1; n <= 8; n++ {
		b, err := New(n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := range b.Count() {
			s := b.Solution(i)
			if !b.IsSolution(s) {
				t.Errorf("N=%d: solution %d %v is not a solution", n, i, s)
			}
			got = append(got, fmt.Sprint(s))
		}
		var want []string
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		for {
			ok := true
			for r1 := range n {
				for r2 := r1 + 1; r2 < n; r2++ {
					if d := perm[r2] - perm[r1]; d == r2-r1 || d == r1-r2 {
						ok = false
					}
				}
			}
			if ok {
				s := make([]Cell, n)
				for r, c := range perm {
					s[r] = Cell{r, c}
				}
				want = append(want, fmt.Sprint(s))
			}
			if !nextPermutation(perm) {
				break
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("N=%d: backtracking found %d solutions, permutations %d", n, len(got), len(want))
		}
	}
}

// nextPermutation advances p to the next permutation in lexicographic
// order, reporting false after the last.
func nextPermutation(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}

// TestSymmetry: the solutions are closed under the eight symmetries of the
// square, a property the enumerator does not use.
func TestSymmetry(t *testing.T) {
	for n := 1; n <= 9; n++ {
		b, err := New(n)
		if err != nil {
			t.Fatal(err)
		}
		set := map[string]bool{}
		for i := range b.Count() {
			set[key(b.Solution(i))] = true
		}
		maps := []func(Cell) Cell{
			func(c Cell) Cell { return Cell{c.Col, n - 1 - c.Row} },         // rotate
			func(c Cell) Cell { return Cell{c.Row, n - 1 - c.Col} },         // mirror
			func(c Cell) Cell { return Cell{c.Col, c.Row} },                 // transpose
			func(c Cell) Cell { return Cell{n - 1 - c.Col, n - 1 - c.Row} }, // anti-transpose
		}
		for i := range b.Count() {
			for j, f := range maps {
				var img []Cell
				for _, c := range b.Solution(i) {
					img = append(img, f(c))
				}
				if !set[key(img)] {
					t.Errorf("N=%d: image %d of %v is not a solution", n, j, b.Solution(i))
				}
			}
		}
	}
}

func key(cells []Cell) string {
	s := slices.Clone(cells)
	slices.SortFunc(s, func(a, b Cell) int { return a.Row - b.Row })
	return fmt.Sprint(s)
}

func TestAnalyze(t *testing.T) {
	// The two 4-queens solutions are S1 = b1 d2 a3 c4 and S2 = c1 a2 d3 b4;
	// the four 6-queens solutions have columns 1 3 5 0 2 4, 2 5 1 4 0 3,
	// 3 0 4 1 5 2 and 4 2 0 5 3 1 by rank. Rows below are rank 1 first:
	// Q queen, f forced, x blocked, . free.
	tests := []struct {
		n      int
		queens []Cell
		want   []string
		count  int
	}{
		{1, nil, []string{"f"}, 1},
		{2, nil, []string{"xx", "xx"}, 0},
		{4, nil, []string{"x..x", ".xx.", ".xx.", "x..x"}, 2},
		{4, []Cell{{2, 0}}, []string{"xfxx", "xxxf", "Qxxx", "xxfx"}, 1},
		{4, []Cell{{0, 1}, {1, 3}}, []string{"xQxx", "xxxQ", "fxxx", "xxfx"}, 1},
		{4, []Cell{{0, 0}}, []string{"Qxxx", "xxxx", "xxxx", "xxxx"}, 0},
		{5, nil, []string{".....", ".....", ".....", ".....", "....."}, 10},
		{6, nil, []string{"x....x", ".x..x.", "..xx..", "..xx..", ".x..x.", "x....x"}, 4},
		{6, []Cell{{0, 1}}, []string{"xQxxxx", "xxxfxx", "xxxxxf", "fxxxxx", "xxfxxx", "xxxxfx"}, 1},
	}
	for _, tt := range tests {
		b, err := New(tt.n)
		if err != nil {
			t.Fatal(err)
		}
		a := b.Analyze(tt.queens)
		if a.Solutions != tt.count {
			t.Errorf("N=%d %v: %d solutions, want %d", tt.n, tt.queens, a.Solutions, tt.count)
		}
		if b.CountWith(tt.queens) != tt.count {
			t.Errorf("N=%d %v: CountWith %d, want %d", tt.n, tt.queens, b.CountWith(tt.queens), tt.count)
		}
		if len(tt.want) != tt.n {
			t.Fatalf("N=%d: test table has %d ranks", tt.n, len(tt.want))
		}
		for r, row := range tt.want {
			for c := range tt.n {
				want := map[byte]State{'.': Free, 'x': Blocked, 'Q': Queen, 'f': Forced}[row[c]]
				if got := a.At(Cell{r, c}); got != want {
					t.Errorf("N=%d %v: cell (%d,%d) %v, want %v", tt.n, tt.queens, r, c, got, want)
				}
			}
		}
	}
}

func TestBlockedForcedSatisfiable(t *testing.T) {
	b, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	b1, d2, a3, c1, a2 := Cell{0, 1}, Cell{1, 3}, Cell{2, 0}, Cell{0, 2}, Cell{1, 0}
	tests := []struct {
		queens          []Cell
		c               Cell
		blocked, forced bool
	}{
		{nil, b1, false, false},
		{nil, Cell{0, 0}, true, false},
		{[]Cell{b1}, d2, false, true},
		{[]Cell{b1}, c1, true, false},    // same rank
		{[]Cell{b1}, a2, true, false},    // diagonal
		{[]Cell{a3}, b1, false, true},    // a3 picks S1
		{[]Cell{b1, c1}, a3, true, true}, // no solution: both, vacuously
	}
	for _, tt := range tests {
		if got := b.Blocked(tt.queens, tt.c); got != tt.blocked {
			t.Errorf("Blocked(%v, %v) = %v, want %v", tt.queens, tt.c, got, tt.blocked)
		}
		if got := b.Forced(tt.queens, tt.c); got != tt.forced {
			t.Errorf("Forced(%v, %v) = %v, want %v", tt.queens, tt.c, got, tt.forced)
		}
	}
	if !b.Satisfiable([]Cell{b1}, []Cell{c1, a2}) || b.Satisfiable([]Cell{b1}, []Cell{d2}) {
		t.Error("Satisfiable with b1: wrong answer on without-lists")
	}
	if got := b.Extending([]Cell{a2}); !slices.Equal(got, []int{1}) {
		t.Errorf("Extending(a2) = %v, want [1] (S2, the second in backtracking order)", got)
	}
}

func TestMinRemoval(t *testing.T) {
	b, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	b1, c1, d2, a2, a3, b4 := Cell{0, 1}, Cell{0, 2}, Cell{1, 3}, Cell{1, 0}, Cell{2, 0}, Cell{3, 1}
	tests := []struct {
		queens []Cell
		c      Cell
		k      int
		ok     bool
	}{
		{nil, b1, 0, true},
		{nil, Cell{0, 0}, 0, false},            // a1 is in no 4-queens solution
		{[]Cell{b1}, c1, 1, true},              // c1 lives in S2 only
		{[]Cell{b1, d2}, a2, 2, true},          // a2 likewise
		{[]Cell{b1, d2}, a3, 0, true},          // a3 is forced: nothing to remove
		{[]Cell{b1, d2}, Cell{3, 3}, 0, false}, // d4 in no solution
		{[]Cell{b1, d2, a3}, b4, 3, true},
		{[]Cell{c1, b4}, a3, 2, true},
		{[]Cell{c1, b4}, a2, 0, true},
	}
	for _, tt := range tests {
		k, ok := b.MinRemoval(tt.queens, tt.c)
		if k != tt.k || ok != tt.ok {
			t.Errorf("MinRemoval(%v, %v) = %d, %v, want %d, %v", tt.queens, tt.c, k, ok, tt.k, tt.ok)
		}
	}
}

func TestIsSolution(t *testing.T) {
	b, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cells []Cell
		want  bool
	}{
		{[]Cell{{0, 1}, {1, 3}, {2, 0}, {3, 2}}, true},
		{[]Cell{{3, 2}, {2, 0}, {1, 3}, {0, 1}}, true}, // any order
		{[]Cell{{0, 1}, {1, 3}, {2, 0}}, false},        // too few
		{[]Cell{{0, 1}, {1, 3}, {2, 0}, {2, 0}}, false},
		{[]Cell{{0, 0}, {1, 2}, {2, 0}, {3, 3}}, false},
		{[]Cell{{0, 1}, {1, 3}, {2, 0}, {3, 4}}, false}, // off the board
	}
	for _, tt := range tests {
		if got := b.IsSolution(tt.cells); got != tt.want {
			t.Errorf("IsSolution(%v) = %v, want %v", tt.cells, got, tt.want)
		}
	}
}
