package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// TestAPIReasonsD7 is a square with two reasons: on /?n=8&q=a1,b5, d7 is
// attacked by b5 and, apart from that, has no solution with a1; both must
// go. The second reason's proof goes by cases, as the page's does.
func TestAPIReasonsD7(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	m := configuratortest.Model(t, 8, configurator.RowMajor)
	split := configurator.RefuteByCases(m, configuratortest.Cells(t, "a1,d7"), nil)
	if split == nil || len(split.Lines()) != 6 {
		t.Fatalf("a1 and d7 on 8×8: no proof by cases of six lines: %v", split)
	}
	for _, backend := range []string{"bdd", "sat"} {
		var got explainResponse
		if !postOK(t, ts, "/api/v1/explain", `{"n":8,"queens":[[0,0],[4,1]],"cell":[6,3],"backend":"`+backend+`"}`, &got) {
			continue
		}
		want := explainResponse{Cell: [2]int{6, 3}, State: "blocked", Kind: "attack", Because: [][2]int{{4, 1}}, Text: "attacked by b5",
			Reasons: [][][2]int{{{4, 1}}, {{0, 0}}}, Details: []reasonJSON{{Kind: "attack", Text: "attacked by b5"}, {Kind: "no-completion", Text: "no solution holds queens on a1 and here", Proof: split.Lines()}},
			MakeRoom: [][2]int{{0, 0}, {4, 1}}}
		got.ElapsedMS = 0
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s d7 under a1,b5:\n got %+v\nwant %+v", backend, got, want)
		}
	}
	// h6 under a1 alone: no proof by cases fits, and the 4 solutions that
	// hold a1 are listed, none with a queen on h6.
	var got explainResponse
	if postOK(t, ts, "/api/v1/explain", `{"n":8,"queens":[[0,0]],"cell":[5,7]}`, &got) {
		board := configuratortest.Board(t, 8)
		var want [][][2]int
		for _, i := range board.Extending([]oracle.Cell{{Row: 0, Col: 0}}) {
			want = append(want, pairs(cellsOf(board.Solution(i))))
		}
		if len(got.Details) != 1 || got.Details[0].Proof != nil || fmt.Sprint(got.Details[0].Solutions) != fmt.Sprint(want) || len(want) != 4 {
			t.Errorf("h6 under a1: details %+v, want the solutions %v", got.Details, want)
		}
		for _, sol := range got.Details[0].Solutions {
			if slices.Contains(sol, [2]int{5, 7}) {
				t.Errorf("h6 under a1: the solution listed %v has a queen on h6", sol)
			}
		}
	}
	// A forced square has no room to make: "make_room" is null.
	_, body := post(t, ts, "/api/v1/explain", `{"n":8,"queens":[[0,0],[4,2]],"cell":[1,4]}`)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &raw); err != nil || string(raw["make_room"]) != "null" || string(raw["reasons"]) != "[[[0,0],[4,2]]]" || string(raw["more"]) != "false" {
		t.Errorf("forced e2 under a1,c5: %s", body)
	}
}

// TestAPIReasons checks /api/v1/explain against the oracle on every board
// reachable by legal clicks up to 6×6 and on a seeded walk of clicks on
// 7×7 to 10×10 (BDD): every reason listed rules the square and is
// minimal, none is missing up to 6×6 (the oracle lists them all), and
// make_room frees the square with the fewest queens. Each board is asked
// about three of its blocked or forced squares, drawn by a seeded
// generator (configurator's TestReasonsExhaustive asks about every square
// of the same boards through the session, without HTTP). With -short, to
// 5×5 and walks on 7×7 and 8×8.
func TestAPIReasons(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	pick := rand.New(rand.NewPCG(6, 3))
	top, walkTop := 6, 10
	if testing.Short() {
		top, walkTop = 5, 8
	}
	for n := 1; n <= top; n++ {
		o := configuratortest.Board(t, n)
		seen := map[string]bool{}
		for i := range o.Count() {
			sol := o.Solution(i)
			for set := range 1 << n {
				var q []oracle.Cell
				for r, c := range sol {
					if set&(1<<r) != 0 {
						q = append(q, c)
					}
				}
				if key := fmt.Sprint(q); !seen[key] {
					seen[key] = true
					checkReasonsAPI(t, ts, o, q, true, pick)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 10))
	for n := 7; n <= walkTop; n++ {
		o := configuratortest.Board(t, n)
		var q []oracle.Cell
		for {
			a := o.Analyze(q)
			var free []oracle.Cell
			for v, st := range a.Cells {
				if st == oracle.Free {
					free = append(free, oracle.Cell{Row: v / n, Col: v % n})
				}
			}
			if len(free) == 0 {
				break
			}
			q = append(q, free[rng.IntN(len(free))])
			checkReasonsAPI(t, ts, o, q, false, pick)
		}
	}
}

// checkReasonsAPI explains three blocked or forced squares under q, drawn
// by pick.
func checkReasonsAPI(t *testing.T, ts *httptest.Server, o *oracle.Board, q []oracle.Cell, all bool, pick *rand.Rand) {
	t.Helper()
	n := o.N()
	a := o.Analyze(q)
	var ruled []int
	for v, st := range a.Cells {
		if st == oracle.Blocked || st == oracle.Forced {
			ruled = append(ruled, v)
		}
	}
	pick.Shuffle(len(ruled), func(i, j int) { ruled[i], ruled[j] = ruled[j], ruled[i] })
	for _, v := range ruled[:min(3, len(ruled))] {
		st := a.Cells[v]
		c := oracle.Cell{Row: v / n, Col: v % n}
		body, _ := json.Marshal(map[string]any{"n": n, "queens": pairsOf(q), "backend": "bdd", "cell": [2]int{c.Row, c.Col}})
		var got explainResponse
		if !postOK(t, ts, "/api/v1/explain", string(body), &got) {
			t.FailNow()
		}
		where := fmt.Sprintf("N=%d %v %v", n, q, c)
		// rules says whether the queens alone rule c as it is ruled.
		rules := func(qs []oracle.Cell) bool {
			if st == oracle.Blocked {
				return o.Blocked(qs, c)
			}
			return o.Forced(qs, c)
		}
		if len(got.Reasons) == 0 || fmt.Sprint(got.Reasons[0]) != fmt.Sprint(got.Because) || len(got.Details) != len(got.Reasons) {
			t.Fatalf("%s: because %v, reasons %v, %d details", where, got.Because, got.Reasons, len(got.Details))
		}
		for _, r := range got.Reasons {
			qs := make([]oracle.Cell, len(r))
			for i, p := range r {
				qs[i] = oracle.Cell{Row: p[0], Col: p[1]}
				if !slices.Contains(q, qs[i]) {
					t.Errorf("%s: reason %v names a square without a queen", where, r)
				}
			}
			if !rules(qs) {
				t.Errorf("%s: reason %v does not rule the square", where, r)
			}
			for i := range qs {
				if rules(slices.Delete(slices.Clone(qs), i, i+1)) {
					t.Errorf("%s: reason %v is not minimal", where, r)
				}
			}
		}
		if all && !got.More {
			if want := countMinimal(q, rules); len(got.Reasons) != want {
				t.Errorf("%s: %d reasons %v, the oracle finds %d", where, len(got.Reasons), got.Reasons, want)
			}
		}
		if st == oracle.Forced {
			if got.MakeRoom != nil {
				t.Errorf("%s: forced, yet make_room %v", where, got.MakeRoom)
			}
			continue
		}
		k, ok := o.MinRemoval(q, c)
		var kept []oracle.Cell
		for _, x := range q {
			if !slices.Contains(got.MakeRoom, [2]int{x.Row, x.Col}) {
				kept = append(kept, x)
			}
		}
		switch {
		case !ok && got.MakeRoom != nil:
			t.Errorf("%s: no solution uses the square, yet make_room %v", where, got.MakeRoom)
		case ok && (len(got.MakeRoom) != k || o.Blocked(kept, c)):
			t.Errorf("%s: make_room %v does not free it with the fewest queens (%d)", where, got.MakeRoom, k)
		}
	}
}

// countMinimal counts the subset-minimal sets of q for which rules holds.
func countMinimal(q []oracle.Cell, rules func([]oracle.Cell) bool) int {
	holds := make([]bool, 1<<len(q))
	for set := range holds {
		var qs []oracle.Cell
		for j, x := range q {
			if set&(1<<j) != 0 {
				qs = append(qs, x)
			}
		}
		holds[set] = rules(qs)
	}
	k := 0
	for set, ok := range holds {
		minimal := ok
		for j := range q {
			if set&(1<<j) != 0 && holds[set&^(1<<j)] {
				minimal = false
			}
		}
		if minimal {
			k++
		}
	}
	return k
}

// TestWhyProofs: the one page's Why? panel of a board proves a reason by
// propagation over the board's lines when they alone refute it, else by
// cases, step by step; where no such proof fits a screen, it says so and
// that the backend's search settled it, on every backend.
func TestWhyProofs(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	tests := []struct {
		path string
		want []string
	}{
		{"/?model=queens-6&select=b1&backend=bdd&why=d6", []string{
			`<ol class="steps"><li>On rank 5, the queens on b1 and d6 leave only a5: a queen must go there.</li>`,
			`<li>On rank 3, the queens on b1, d6, a5 and f2 leave no square: no queen can go there.</li></ol>`}},
		// The README's example: propagation stops short, and a case
		// split over rank 5 proves the reason of a1.
		{"/?model=queens-8&select=a1,b5&backend=both&why=d7", []string{
			`<ol class="steps"><li>The queen of rank 5 can only go on c5, g5 or h5 (the queens on a1 and d7 cover its other squares); each is refuted in turn.</li>`,
			`<li>If c5 and g8: On file b, the queens on a1, d7, c5 and g8 leave no square: no queen can go there.</li>`}},
		// Neither propagation nor cases within a screen.
		{"/?model=queens-9&select=a1,c2&backend=both&why=g4", []string{
			`<p class="reason-text">You selected “a1”</p><ul class="carry"><li>(no proof by propagation over the ranks, files and diagonals, nor by cases, fits on a screen: the backend&#39;s search settled it)</li></ul>`}},
		{"/?model=queens-9&select=a1,c2&backend=sat&why=g4", []string{
			`(no proof by propagation over the ranks, files and diagonals, nor by cases, fits on a screen: the backend&#39;s search settled it)`}},
	}
	for _, tt := range tests {
		res, body := get(t, ts, tt.path, "HX-Request", "true")
		if res.StatusCode != 200 {
			t.Errorf("%s: status %d", tt.path, res.StatusCode)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the panel lacks %q\n%s", tt.path, w, between(body, `id="panel"`, `</section>`))
			}
		}
	}
}

// cellsOf converts the oracle's cells.
func cellsOf(cs []oracle.Cell) []configurator.Cell {
	out := make([]configurator.Cell, len(cs))
	for i, c := range cs {
		out[i] = configurator.Cell(c)
	}
	return out
}
