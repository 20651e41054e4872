package configurator_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

func TestNewSizes(t *testing.T) {
	for _, n := range []int{-1, 0, configurator.MaxN + 1} {
		if _, err := configurator.New(n, configurator.RowMajor); !errors.Is(err, configurator.ErrSize) {
			t.Errorf("New(%d) = %v, want ErrSize", n, err)
		}
	}
	if _, err := configurator.New(5, configurator.Order(9)); !errors.Is(err, configurator.ErrOrder) {
		t.Errorf("New with Order(9) = %v, want ErrOrder", err)
	}
}

// TestConstraints counts the lines: N ranks (exactly one), N files, and
// 2N-3 diagonals and as many anti-diagonals (at most one); the two corner
// lines of a single cell are left out, so N=1 has only its rank and file.
func TestConstraints(t *testing.T) {
	tests := []struct {
		n                            int
		ranks, files, diag, antiDiag int
	}{
		{1, 1, 1, 0, 0},
		{2, 2, 2, 1, 1},
		{3, 3, 3, 3, 3},
		{4, 4, 4, 5, 5},
		{8, 8, 8, 13, 13},
		{27, 27, 27, 51, 51},
	}
	for _, tt := range tests {
		m := configuratortest.Model(t, tt.n, configurator.RowMajor)
		var ranks, files, diag, anti, cellsInLines int
		for _, c := range m.Constraints() {
			switch {
			case strings.HasPrefix(c.Name, "rank "):
				ranks++
				if c.Kind != configurator.ExactlyOne || len(c.Cells) != tt.n {
					t.Errorf("N=%d %s: kind %v, %d cells", tt.n, c.Name, c.Kind, len(c.Cells))
				}
			case strings.HasPrefix(c.Name, "file "):
				files++
			case strings.HasPrefix(c.Name, "diagonal "):
				diag++
			case strings.HasPrefix(c.Name, "anti-diagonal "):
				anti++
			default:
				t.Errorf("N=%d: unexpected constraint %q", tt.n, c.Name)
			}
			if c.Kind != configurator.ExactlyOne && c.Kind != configurator.AtMostOne {
				t.Errorf("N=%d %s: kind %v", tt.n, c.Name, c.Kind)
			}
			if len(c.Cells) < 2 && tt.n > 1 {
				t.Errorf("N=%d %s: a line of %d cells", tt.n, c.Name, len(c.Cells))
			}
			// Every pair of cells of a line attacks, by the oracle's
			// independent rule; the cells are listed row-major.
			for i, a := range c.Cells {
				for _, b := range c.Cells[i+1:] {
					if !oracle.Attacks(oracle.Cell(a), oracle.Cell(b)) {
						t.Errorf("N=%d %s: %v and %v do not attack", tt.n, c.Name, a, b)
					}
					if m.Var(a) >= m.Var(b) {
						t.Errorf("N=%d %s: %v before %v, not row-major", tt.n, c.Name, a, b)
					}
				}
			}
			cellsInLines += len(c.Cells)
		}
		if ranks != tt.ranks || files != tt.files || diag != tt.diag || anti != tt.antiDiag {
			t.Errorf("N=%d: %d ranks, %d files, %d diagonals, %d anti-diagonals; want %d, %d, %d, %d",
				tt.n, ranks, files, diag, anti, tt.ranks, tt.files, tt.diag, tt.antiDiag)
		}
		// Each cell is on a rank, a file, a diagonal and an anti-diagonal,
		// less the four corner lines of one cell (two when N = 1).
		want := 4*tt.n*tt.n - 4
		if tt.n == 1 {
			want = 2
		}
		if cellsInLines != want {
			t.Errorf("N=%d: %d cell memberships, want %d", tt.n, cellsInLines, want)
		}
	}
}

func TestConstraintNames(t *testing.T) {
	m := configuratortest.Model(t, 8, configurator.RowMajor)
	var names []string
	for _, c := range m.Constraints() {
		names = append(names, c.Name)
	}
	for _, want := range []string{"rank 1", "rank 8", "file a", "file h", "diagonal a1-h8", "diagonal a7-b8", "diagonal g1-h2", "anti-diagonal b1-a2", "anti-diagonal h1-a8", "anti-diagonal h7-g8"} {
		if !slices.Contains(names, want) {
			t.Errorf("no constraint named %q in %v", want, names)
		}
	}
}

// TestAttacks compares the model with the oracle's own rule on every pair
// of cells of boards up to 9×9, and spells out a few cases.
func TestAttacks(t *testing.T) {
	m := configuratortest.Model(t, 8, configurator.RowMajor)
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"a1", "h8", true},  // diagonal
		{"h1", "a8", true},  // anti-diagonal
		{"d4", "g1", true},  // anti-diagonal
		{"a1", "a8", true},  // file
		{"c5", "h5", true},  // rank
		{"a1", "b3", false}, // knight's move
		{"c5", "b3", false},
		{"a1", "a1", false}, // not itself
	} {
		if got := m.Attacks(configuratortest.Cell(t, tt.a), configuratortest.Cell(t, tt.b)); got != tt.want {
			t.Errorf("Attacks(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	for n := 1; n <= 9; n++ {
		m := configuratortest.Model(t, n, configurator.Orders()[n%4])
		for v := range m.Vars() {
			for w := range m.Vars() {
				a, b := m.Cell(v), m.Cell(w)
				if got, want := m.Attacks(a, b), oracle.Attacks(oracle.Cell(a), oracle.Cell(b)); got != want {
					t.Errorf("N=%d: Attacks(%v, %v) = %v, oracle says %v", n, a, b, got, want)
				}
			}
		}
	}
}

// TestCustom: a custom model attacks exactly as it constrains.
func TestCustom(t *testing.T) {
	full := configuratortest.Model(t, 5, configurator.RowMajor)
	var cs []configurator.Constraint
	for _, c := range full.Constraints() {
		if c.Name != "anti-diagonal e1-a5" {
			cs = append(cs, c)
		}
	}
	if len(cs) != len(full.Constraints())-1 {
		t.Fatalf("no anti-diagonal e1-a5 among %d constraints", len(full.Constraints()))
	}
	m, err := configurator.Custom(5, configurator.ColMajor, cs)
	if err != nil {
		t.Fatal(err)
	}
	if m.N() != 5 || m.Order() != configurator.ColMajor || len(m.Constraints()) != len(cs) {
		t.Errorf("Custom: N %d, order %v, %d constraints", m.N(), m.Order(), len(m.Constraints()))
	}
	if m.Attacks(configuratortest.Cell(t, "e1"), configuratortest.Cell(t, "c3")) || m.Attacks(configuratortest.Cell(t, "a5"), configuratortest.Cell(t, "b4")) {
		t.Error("cells of the missing anti-diagonal still attack")
	}
	if !m.Attacks(configuratortest.Cell(t, "a5"), configuratortest.Cell(t, "a1")) || !m.Attacks(configuratortest.Cell(t, "b4"), configuratortest.Cell(t, "c5")) || !m.Attacks(configuratortest.Cell(t, "c3"), configuratortest.Cell(t, "e5")) {
		t.Error("cells on other lines stopped attacking")
	}

	bad := []configurator.Constraint{{Kind: configurator.AtMostOne, Name: "outside", Cells: []configurator.Cell{{Row: 0, Col: 0}, {Row: 5, Col: 0}}}}
	if _, err := configurator.Custom(5, configurator.RowMajor, bad); !errors.Is(err, configurator.ErrOffBoard) {
		t.Errorf("Custom with a cell off the board: %v, want ErrOffBoard", err)
	}
	if _, err := configurator.Custom(0, configurator.RowMajor, nil); !errors.Is(err, configurator.ErrSize) {
		t.Errorf("Custom(0): %v, want ErrSize", err)
	}
}

func TestVarCell(t *testing.T) {
	m := configuratortest.Model(t, 7, configurator.RowMajor)
	if m.N() != 7 || m.Vars() != 49 {
		t.Fatalf("N %d, Vars %d", m.N(), m.Vars())
	}
	for v := range m.Vars() {
		c := m.Cell(v)
		if !m.Contains(c) || m.Var(c) != v || v != c.Row*7+c.Col {
			t.Errorf("var %d: cell %v, back %d", v, c, m.Var(c))
		}
	}
	for _, c := range []configurator.Cell{{Row: -1, Col: 0}, {Row: 0, Col: -1}, {Row: 7, Col: 0}, {Row: 0, Col: 7}} {
		if m.Contains(c) {
			t.Errorf("Contains(%#v) on a 7×7 board", c)
		}
	}
}

// TestOrders: every order is a permutation of the variables, Level and
// VarAt are inverse, and the first positions are as documented.
func TestOrders(t *testing.T) {
	first := map[configurator.Order]map[int]string{
		configurator.RowMajor:  {3: "a1,b1,c1,a2,b2,c2,a3,b3,c3"},
		configurator.ColMajor:  {3: "a1,a2,a3,b1,b2,b3,c1,c2,c3"},
		configurator.Diagonal:  {3: "a1,b1,a2,c1,b2,a3,c2,b3,c3"},
		configurator.MiddleOut: {4: "a3,b3,c3,d3,a2,b2,c2,d2,a4,b4,c4,d4,a1,b1,c1,d1", 5: "a3,b3,c3,d3,e3,a4,b4,c4,d4,e4,a2,b2,c2,d2,e2,a5,b5,c5,d5,e5,a1,b1,c1,d1,e1"},
	}
	for _, o := range configurator.Orders() {
		for n := 1; n <= 9; n++ {
			m := configuratortest.Model(t, n, o)
			seen := make([]bool, m.Vars())
			var order []configurator.Cell
			for l := range m.Vars() {
				v := m.VarAt(l)
				if v < 0 || v >= m.Vars() || seen[v] {
					t.Fatalf("%v N=%d: VarAt(%d) = %d, not a permutation", o, n, l, v)
				}
				seen[v] = true
				if m.Level(v) != l {
					t.Errorf("%v N=%d: Level(VarAt(%d)) = %d", o, n, l, m.Level(v))
				}
				order = append(order, m.Cell(v))
			}
			if want, ok := first[o][n]; ok {
				if got := configurator.FormatCells(order); got != want {
					t.Errorf("%v N=%d: order %s, want %s", o, n, got, want)
				}
			}
		}
	}
}

func TestParseOrder(t *testing.T) {
	for _, o := range configurator.Orders() {
		got, err := configurator.ParseOrder(o.String())
		if err != nil || got != o {
			t.Errorf("ParseOrder(%q) = %v, %v", o.String(), got, err)
		}
	}
	if names := []string{"row", "col", "diag", "middle"}; len(configurator.Orders()) != len(names) {
		t.Errorf("%d orders, want %v", len(configurator.Orders()), names)
	}
	for _, s := range []string{"", "Row", "rows", "column", "random"} {
		if _, err := configurator.ParseOrder(s); !errors.Is(err, configurator.ErrOrder) {
			t.Errorf("ParseOrder(%q) = %v, want ErrOrder", s, err)
		}
	}
	if got := configurator.Order(7).String(); got != "Order(7)" {
		t.Errorf("Order(7).String() = %q", got)
	}
}

func TestCheck(t *testing.T) {
	m := configuratortest.Model(t, 8, configurator.RowMajor)
	tests := []struct {
		queens string
		want   error
		inMsg  string
	}{
		{"", nil, ""},
		{"a1,c5", nil, ""},
		{"a1,b1", nil, ""}, // attacking queens are a backend's question
		{"a1,i1", configurator.ErrOffBoard, "i1"},
		{"a9", configurator.ErrOffBoard, "a9"},
		{"a1,c5,a1", configurator.ErrDuplicate, "a1"},
	}
	for _, tt := range tests {
		err := m.Check(configuratortest.Cells(t, tt.queens))
		if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("Check(%s) = %v, want %v", tt.queens, err, tt.want)
		}
		if err != nil && !strings.Contains(err.Error(), tt.inMsg) {
			t.Errorf("Check(%s) = %q, does not name %s", tt.queens, err, tt.inMsg)
		}
	}
	if err := m.Check([]configurator.Cell{{Row: -1, Col: 0}}); !errors.Is(err, configurator.ErrOffBoard) {
		t.Errorf("Check of a negative row: %v", err)
	}
}

func TestStateNames(t *testing.T) {
	for s, want := range map[configurator.State]string{configurator.Free: "free", configurator.Blocked: "blocked", configurator.Queen: "queen", configurator.Forced: "forced", 9: "State(?)"} {
		if s.String() != want {
			t.Errorf("State %d: %q, want %q", s, s.String(), want)
		}
	}
}

func TestAnalysisAtIn(t *testing.T) {
	a := &configurator.Analysis{N: 2, Cells: []configurator.State{configurator.Queen, configurator.Blocked, configurator.Blocked, configurator.Forced}}
	if a.At(configurator.Cell{Row: 1, Col: 1}) != configurator.Forced || a.At(configurator.Cell{Row: 0, Col: 1}) != configurator.Blocked {
		t.Error("At reads the wrong cell")
	}
	if got := configurator.FormatCells(a.In(configurator.Blocked)); got != "b1,a2" {
		t.Errorf("In(Blocked) = %s, want b1,a2", got)
	}
	if got := a.In(configurator.Free); got != nil {
		t.Errorf("In(Free) = %v, want none", got)
	}
}

// TestBoardReason: a reason of a board's square in the board's words.
func TestBoardReason(t *testing.T) {
	m, err := configurator.New(8, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	queens := func(list string) []configurator.Decision {
		cells, err := configurator.ParseCells(list)
		if err != nil {
			t.Fatal(err)
		}
		return configurator.BoardDecisions(m, cells)
	}
	tests := []struct {
		state      configurator.FeatureState
		reason     configurator.FeatureReason
		kind, want string
	}{
		{configurator.ForcedOff, configurator.FeatureReason{Decisions: queens("d4"), Attack: true}, "attack", "attacked by d4"},
		{configurator.ForcedOff, configurator.FeatureReason{Decisions: queens("a1,c5")}, "no-completion", "no solution holds queens on a1, c5 and here"},
		{configurator.ForcedOff, configurator.FeatureReason{}, "no-completion", "no solution has a queen here, whatever else is placed"},
		{configurator.ForcedOn, configurator.FeatureReason{Decisions: queens("b1")}, "forced", "every solution with queens on b1 has a queen here"},
		{configurator.ForcedOn, configurator.FeatureReason{}, "forced", "every solution has a queen here"},
		{configurator.ForcedOff, configurator.FeatureReason{Decisions: append(queens("a1"), configurator.Decision{Feature: m.Var(configurator.Cell{Row: 1, Col: 2})})}, "no-completion",
			"no solution holds queens on a1, none on c2 and here"},
	}
	for _, tt := range tests {
		e := &configurator.FeatureExplanation{Feature: m.Var(configurator.Cell{Row: 7, Col: 7}), State: tt.state, Reasons: []configurator.FeatureReason{tt.reason}}
		if kind, got := configurator.BoardReason(m, e, tt.reason); kind != tt.kind || got != tt.want {
			t.Errorf("%v %+v: %s %q, want %s %q", tt.state, tt.reason, kind, got, tt.kind, tt.want)
		}
	}
}
