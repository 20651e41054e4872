package server

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// post sends a JSON body to the API.
func post(t testing.TB, ts *httptest.Server, path, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return do(t, req)
}

// postOK posts body to path and decodes the answer into v. An answer other
// than 200 is an error of the test, and postOK returns false.
func postOK(t testing.TB, ts *httptest.Server, path, body string, v any) bool {
	t.Helper()
	res, out := post(t, ts, path, body)
	if res.StatusCode != http.StatusOK {
		t.Errorf("%s %s: status %d: %s", path, body, res.StatusCode, out)
		return false
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatal(err)
	}
	return true
}

// TestAPIErrors is the specification of the API's refusals: each bad
// request, the status it earns and the message. Never a 500, never a hang.
func TestAPIErrors(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	big := `{"n":8,"queens":[` + strings.Repeat(`[0,0],`, 11000) + `[0,0]]}` // over 64 KiB
	tests := []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"empty body", "/api/v1/analyze", ``, 400, `The request body is empty`},
		{"not JSON", "/api/v1/analyze", `{"n":8,`, 400, `The request body ends in the middle of its JSON.`},
		{"broken JSON", "/api/v1/analyze", `{"n":8 "queens":[]}`, 400, `The request body is not valid JSON (at byte 8)`},
		{"not an object", "/api/v1/analyze", `[8]`, 400, `The request body must be a JSON object, not array.`},
		{"two values", "/api/v1/analyze", `{"n":8}{"n":8}`, 400, `holds more than one JSON value`},
		{"unknown field", "/api/v1/analyze", `{"n":8,"size":9}`, 400, `Unknown field "size"`},
		{"cell is unknown to analyze", "/api/v1/analyze", `{"n":8,"cell":[0,0]}`, 400, `Unknown field "cell"`},
		{"n missing", "/api/v1/analyze", `{"queens":[]}`, 400, `"n" is required`},
		{"n in words", "/api/v1/analyze", `{"n":"eight"}`, 400, `"n" must be a whole number, not string.`},
		{"n fractional", "/api/v1/analyze", `{"n":8.5}`, 400, `"n" must be a whole number, not number 8.5.`},
		{"n zero", "/api/v1/analyze", `{"n":0}`, 400, `"n" is 0; it must be from 1 to 10.`},
		{"n negative", "/api/v1/analyze", `{"n":-1}`, 400, `"n" is -1; it must be from 1 to 10.`},
		{"n 10^18", "/api/v1/analyze", `{"n":1000000000000000000}`, 400, `"n" is 1000000000000000000; it must be from 1 to 10.`},
		{"n 10^30", "/api/v1/analyze", `{"n":1000000000000000000000000000000}`, 400, `"n" must be a whole number`},
		{"n beyond the BDD", "/api/v1/analyze", `{"n":11}`, 413, `A 11×11 board is beyond the limit of the BDD backend (10×10). The SAT backend handles boards up to 16×16: switch to SAT.`},
		{"n beyond the SAT", "/api/v1/analyze", `{"n":17,"backend":"sat"}`, 413, `A 17×17 board is beyond the limit of the SAT backend (16×16).`},
		{"queens not a list", "/api/v1/analyze", `{"n":8,"queens":"a1"}`, 400, `"queens" must be a list of [row, col] pairs of whole numbers, not string.`},
		{"queen not a pair", "/api/v1/analyze", `{"n":8,"queens":[[0]]}`, 400, `queens[0] must be a pair [row, col], not 1 numbers.`},
		{"queen of strings", "/api/v1/analyze", `{"n":8,"queens":[[0,"a"]]}`, 400, `must be a list of [row, col] pairs of whole numbers`},
		{"queen off the board", "/api/v1/analyze", `{"n":8,"queens":[[0,0],[8,0]]}`, 400, `queens[1] is [8,0], off the 8×8 board (rows and columns count from 0 to 7).`},
		{"queen at -1", "/api/v1/analyze", `{"n":8,"queens":[[-1,0]]}`, 400, `queens[0] is [-1,0], off the 8×8 board`},
		{"queen twice", "/api/v1/analyze", `{"n":8,"queens":[[0,0],[0,0]]}`, 400, `queens[1] is [0,0] again: each square may hold one queen.`},
		{"queens that attack", "/api/v1/analyze", `{"n":8,"queens":[[0,0],[1,1]]}`, 422, `No solution holds these queens: a1 and b2 attack each other.`},
		{"queens no solution holds", "/api/v1/analyze", `{"n":8,"queens":[[0,0],[1,2]]}`, 422, `No solution holds queens on a1 and c2 together: there is no way to fill the remaining ranks.`},
		{"too many queens", "/api/v1/analyze", `{"n":2,"queens":[[0,0],[1,1],[0,1]]}`, 422, `A solution on a 2×2 board has 2 queens; the request places 3.`},
		{"unknown backend", "/api/v1/analyze", `{"n":8,"backend":"zdd"}`, 400, `“zdd” is not a backend: use "bdd" or "sat".`},
		{"both is for the page", "/api/v1/analyze", `{"n":8,"backend":"both"}`, 400, `“both” is not a backend`},
		{"unknown order", "/api/v1/analyze", `{"n":8,"order":"zigzag"}`, 400, `“zigzag” is not a variable order`},
		{"backend as a number", "/api/v1/analyze", `{"n":8,"backend":1}`, 400, `"backend" must be a string, not number.`},
		{"invalid UTF-8", "/api/v1/analyze", "{\"n\":8,\"backend\":\"\xff\"}", 400, "“\uFFFD” is not a backend"},
		{"script in the backend", "/api/v1/analyze", `{"n":8,"backend":"<script>"}`, 400, `“\u003cscript\u003e” is not a backend`},
		{"a body over the limit", "/api/v1/analyze", big, 413, `The request body is too large.`},
		{"null", "/api/v1/analyze", `null`, 400, `"n" is required`},
		{"n null", "/api/v1/analyze", `{"n":null}`, 400, `"n" is required`},
		{"n as markup", "/api/v1/analyze", `{"n":"<script>alert(1)</script>"}`, 400, `"n" must be a whole number, not string.`},
		{"n true", "/api/v1/analyze", `{"n":true}`, 400, `"n" must be a whole number, not bool.`},
		{"queen at 10^18", "/api/v1/analyze", `{"n":8,"queens":[[1000000000000000000,0]]}`, 400, `queens[0] is [1000000000000000000,0], off the 8×8 board`},
		{"queen at 1e18", "/api/v1/analyze", `{"n":8,"queens":[[1e18,0]]}`, 400, `must be a list of [row, col] pairs of whole numbers, not number 1e18.`},
		{"queens as an object", "/api/v1/analyze", `{"n":8,"queens":{"a":1}}`, 400, `"queens" must be a list of [row, col] pairs of whole numbers, not object.`},
		{"order as a list", "/api/v1/analyze", `{"n":8,"order":["row"]}`, 400, `"order" must be a string, not array.`},
		{"n twice", "/api/v1/analyze", `{"n":8,"n":9}`, 400, `Duplicate field "n": each field may appear once.`},
		{"queens twice, both empty", "/api/v1/analyze", `{"n":8,"queens":[],"queens":[]}`, 400, `Duplicate field "queens"`},
		{"n twice, escaped once", "/api/v1/analyze", `{"n":8,"\u006e":9}`, 400, `Duplicate field "n"`},
		{"N in capitals", "/api/v1/analyze", `{"N":8}`, 400, `Unknown field "N"; the fields are n, queens, backend, order`},
		{"Backend capitalised", "/api/v1/analyze", `{"n":8,"Backend":"sat"}`, 400, `Unknown field "Backend"`},
		{"QUEENS in capitals", "/api/v1/analyze", `{"n":8,"QUEENS":[]}`, 400, `Unknown field "QUEENS"`},
		{"queens with a long s", "/api/v1/analyze", `{"n":8,"queenſ":[[0,0]]}`, 400, `Unknown field "queenſ"`}, // encoding/json folds ſ to s
		{"CELL in capitals", "/api/v1/explain", `{"n":8,"CELL":[0,0]}`, 400, `Unknown field "CELL"`},
		{"cell twice", "/api/v1/explain", `{"n":8,"cell":[0,0],"cell":[1,1]}`, 400, `Duplicate field "cell"`},
		{"a field name with a bidi override", "/api/v1/analyze", "{\"n\":8,\"\u202eevil\":1}", 400, `Unknown field "\u202eevil"`},
		{"markup as a field name", "/api/v1/analyze", `{"n":8,"<script>":1}`, 400, `Unknown field "<script>"; the fields are n, queens, backend, order`},
		{"invalid UTF-8 in the order", "/api/v1/analyze", "{\"n\":8,\"order\":\"\xff\xfe<b>\"}", 400, "“\uFFFD\uFFFD\u003cb\u003e” is not a variable order"},
		{"a 100 KB query string", "/api/v1/analyze?x=" + strings.Repeat("a", 100<<10), `{"n":8}`, 414,
			`This address is too long (100 KiB of parameters; the limit is 8 KiB). Start again from a fresh board.`},

		{"explain without a cell", "/api/v1/explain", `{"n":8,"queens":[[0,0]]}`, 400, `Say which square to explain: "cell": [row, col].`},
		{"explain a cell off the board", "/api/v1/explain", `{"n":8,"queens":[[0,0]],"cell":[9,9]}`, 400, `cell is [9,9], off the 8×8 board`},
		{"explain a cell that is not a pair", "/api/v1/explain", `{"n":8,"cell":[1,2,3]}`, 400, `cell must be a pair [row, col], not 3 numbers.`},
		{"explain a cell in notation", "/api/v1/explain", `{"n":8,"cell":"a1"}`, 400, `"cell" must be a pair [row, col] of whole numbers, not string.`},
		{"explain an empty cell", "/api/v1/explain", `{"n":8,"cell":[]}`, 400, `cell must be a pair [row, col], not 0 numbers.`},
		{"explain a free cell", "/api/v1/explain", `{"n":8,"queens":[[0,0]],"cell":[1,4]}`, 422, `e2 is free: a queen can go there, so there is nothing to explain.`},
		{"explain a queen", "/api/v1/explain", `{"n":8,"queens":[[0,0]],"cell":[0,0]}`, 422, `a1 holds your own queen; Why? applies to blocked squares.`},
		{"explain under queens no solution holds", "/api/v1/explain", `{"n":8,"queens":[[0,0],[1,1]],"cell":[2,2]}`, 422, `a1 and b2 attack each other`},
		{"complete queens no solution holds", "/api/v1/complete", `{"n":8,"queens":[[0,0],[1,2]]}`, 422, `No solution holds queens on a1 and c2 together`},
		{"complete an unsolvable board", "/api/v1/complete", `{"n":3}`, 422, `A 3×3 board has no solution at all`},

		{"GET is not allowed", "/api/v1/analyze", "", 405, `This address does not accept that method: send POST with a JSON body.`},
		{"no such endpoint", "/api/v1/solve", `{}`, 404, `There is no API endpoint POST “/api/v1/solve”`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res *http.Response
			var body string
			if tt.status == 405 {
				res, body = get(t, ts, tt.path)
			} else {
				res, body = post(t, ts, tt.path, tt.body)
			}
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", res.StatusCode, tt.status, body)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type %q", ct)
			}
			var e apiError
			if err := json.Unmarshal([]byte(body), &e); err != nil {
				t.Fatalf("the error is not JSON {\"error\": ...}: %v: %s", err, body)
			}
			if !strings.Contains(e.Error, tt.want) && !strings.Contains(body, tt.want) {
				t.Errorf("error %q, want it to say %q", e.Error, tt.want)
			}
			if strings.Contains(body, "<") {
				t.Errorf("the JSON carries a raw '<': %s", body)
			}
		})
	}
	// After all that, the server goes on serving.
	if res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"queens":[[0,0]]}`); res.StatusCode != 200 || !strings.Contains(body, `"solutions":"4"`) {
		t.Errorf("after the bad requests: %d %s", res.StatusCode, body)
	}
}

// TestAPIAnalyze checks the answers of /analyze against the brute-force
// oracle, on both backends: empty boards for every size, and random
// placements taken from solutions (so that they have some) and from
// anywhere (so that some have none).
func TestAPIAnalyze(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	rng := rand.New(rand.NewPCG(1, 2))
	for _, backend := range []string{"bdd", "sat"} {
		for n := 1; n <= 8; n++ {
			o := configuratortest.Board(t, n)
			placements := [][]oracle.Cell{nil}
			for range 6 {
				if o.Count() > 0 {
					sol := o.Solution(rng.IntN(o.Count()))
					k := rng.IntN(n + 1)
					placements = append(placements, sol[:k])
				}
				var q []oracle.Cell
				for range rng.IntN(3) + 1 {
					c := oracle.Cell{Row: rng.IntN(n), Col: rng.IntN(n)}
					if !slices.Contains(q, c) {
						q = append(q, c)
					}
				}
				placements = append(placements, q)
			}
			for _, q := range placements {
				checkAnalyze(t, ts, backend, o, q)
			}
		}
	}
}

// checkAnalyze compares one /analyze answer with the oracle.
func checkAnalyze(t *testing.T, ts *httptest.Server, backend string, o *oracle.Board, q []oracle.Cell) {
	t.Helper()
	n := o.N()
	pairs := make([][2]int, len(q))
	for i, c := range q {
		pairs[i] = [2]int{c.Row, c.Col}
	}
	reqBody, _ := json.Marshal(map[string]any{"n": n, "queens": pairs, "backend": backend})
	res, body := post(t, ts, "/api/v1/analyze", string(reqBody))
	want := o.Analyze(q)
	if len(q) > 0 && want.Solutions == 0 {
		if res.StatusCode != 422 {
			t.Errorf("%s n=%d %v: no solution holds these queens, but the status is %d: %s", backend, n, q, res.StatusCode, body)
		}
		return
	}
	if res.StatusCode != 200 {
		t.Fatalf("%s n=%d %v: status %d: %s", backend, n, q, res.StatusCode, body)
	}
	var got analyzeResponse
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if got.N != n || got.Backend != backend || got.ElapsedMS < 0 {
		t.Errorf("%s n=%d: header fields %+v", backend, n, got)
	}
	if got.Solutions != fmt.Sprint(want.Solutions) || got.SolutionsAtLeast {
		t.Errorf("%s n=%d %v: solutions %q (at least %v), want %d", backend, n, q, got.Solutions, got.SolutionsAtLeast, want.Solutions)
	}
	states := map[[2]int]string{}
	for _, p := range got.Forced {
		states[p] = "forced"
	}
	for _, p := range got.Blocked {
		states[p] = "blocked"
	}
	for _, p := range got.Free {
		states[p] = "free"
	}
	for _, p := range got.Queens {
		states[p] = "queen"
	}
	for r := range n {
		for c := range n {
			w := want.At(oracle.Cell{Row: r, Col: c}).String()
			if want.Solutions == 0 && w != "queen" {
				w = "blocked"
			}
			if states[[2]int{r, c}] != w {
				t.Errorf("%s n=%d %v: cell [%d,%d] is %q, the oracle says %q", backend, n, q, r, c, states[[2]int{r, c}], w)
			}
		}
	}
}

// TestAPIExplainAndComplete checks explanations and completions.
func TestAPIExplainAndComplete(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	for _, backend := range []string{"bdd", "sat"} {
		tests := []struct {
			body string
			want explainResponse
		}{
			{`{"n":8,"queens":[[0,0]],"cell":[1,1]}`, explainResponse{Cell: [2]int{1, 1}, State: "blocked", Kind: "attack", Because: [][2]int{{0, 0}}, Text: "attacked by a1"}},
			{`{"n":8,"queens":[[0,0]],"cell":[1,2]}`, explainResponse{Cell: [2]int{1, 2}, State: "blocked", Kind: "no-completion", Because: [][2]int{{0, 0}}, Text: "no solution holds queens on a1 and here"}},
			{`{"n":8,"queens":[[0,0],[1,6]],"cell":[7,2]}`, explainResponse{Cell: [2]int{7, 2}, State: "forced", Kind: "forced", Because: [][2]int{{0, 0}, {1, 6}},
				Text: "every solution with queens on a1, g2 has a queen here"}},
			{`{"n":4,"cell":[0,0]}`, explainResponse{Cell: [2]int{0, 0}, State: "blocked", Kind: "no-completion", Because: [][2]int{}, Text: "no solution has a queen here, whatever else is placed"}},
		}
		for _, tt := range tests {
			body := strings.TrimSuffix(tt.body, "}") + `,"backend":"` + backend + `"}`
			var got explainResponse
			if !postOK(t, ts, "/api/v1/explain", body, &got) {
				continue
			}
			// The first reason's fields; the lists of every reason are
			// checked against the oracle by TestAPIReasons.
			got.ElapsedMS, got.Reasons, got.More, got.Details, got.MakeRoom = 0, nil, false, nil, nil
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%s %s:\n got %+v\nwant %+v", backend, body, got, tt.want)
			}
		}

		o := configuratortest.Board(t, 8)
		for _, q := range [][]oracle.Cell{{}, {{Row: 0, Col: 0}}, {{Row: 0, Col: 0}, {Row: 1, Col: 6}}, {{Row: 3, Col: 3}}} {
			checkComplete(t, ts, backend, o, q)
		}
	}
}

// TestAPIDeadline checks that work beyond the request's deadline ends in a
// 503 with Retry-After, promptly.
func TestAPIDeadline(t *testing.T) {
	cfg := testConfig()
	cfg.SAT.Deadline = time.Nanosecond
	cfg.BDD.Deadline = time.Nanosecond
	_, ts := newTestServer(t, cfg)
	for _, backend := range []string{"bdd", "sat"} {
		start := time.Now()
		res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"queens":[[0,0]],"backend":"`+backend+`"}`)
		if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "took longer than the time allowed") {
			t.Errorf("%s past its deadline: status %d, Retry-After %q: %s", backend, res.StatusCode, res.Header.Get("Retry-After"), body)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v to give up", backend, d)
		}
	}
}

// TestAPIBusy fills the SAT backend's queue: the requests that find it
// full get 503 with Retry-After at once, and every other one an answer.
func TestAPIBusy(t *testing.T) {
	cfg := testConfig()
	cfg.SAT.Queue = 1
	_, ts := newTestServer(t, cfg)
	rng := rand.New(rand.NewPCG(3, 4))
	o := configuratortest.Board(t, 12)
	var mu sync.Mutex
	counts := map[int]int{}
	for wave := 0; wave < 20 && counts[503] == 0; wave++ {
		var wg sync.WaitGroup
		for range 12 {
			sol := o.Solution(rng.IntN(o.Count()))
			q, _ := json.Marshal(pairsOf(sol[:3]))
			wg.Go(func() {
				res, body := post(t, ts, "/api/v1/analyze", `{"n":12,"backend":"sat","queens":`+string(q)+`}`)
				mu.Lock()
				defer mu.Unlock()
				counts[res.StatusCode]++
				switch res.StatusCode {
				case 200:
				case 503:
					if res.Header.Get("Retry-After") == "" || !strings.Contains(body, "busy") {
						t.Errorf("503 without Retry-After or reason: %s", body)
					}
				default:
					t.Errorf("status %d: %s", res.StatusCode, body)
				}
			})
		}
		wg.Wait()
	}
	t.Logf("statuses with a queue of 1: %v", counts)
	if counts[503] == 0 {
		t.Errorf("twelve concurrent requests never found a queue of one full")
	}
}

// checkExplain asks why a square one of the queens attacks is blocked;
// when that queen is needed, the answer is that attack.
func checkExplain(t *testing.T, ts *httptest.Server, backend string, o *oracle.Board, q []oracle.Cell, rng *rand.Rand) {
	t.Helper()
	if len(q) == 0 {
		return
	}
	n, a := o.N(), q[rng.IntN(len(q))]
	var target oracle.Cell
	found := false
	for _, c := range []oracle.Cell{{Row: a.Row, Col: (a.Col + 1) % n}, {Row: (a.Row + 1) % n, Col: a.Col}} {
		if c != a && !slices.Contains(q, c) {
			target, found = c, true
			break
		}
	}
	if !found {
		return
	}
	body, _ := json.Marshal(map[string]any{"n": n, "queens": pairsOf(q), "backend": backend, "cell": [2]int{target.Row, target.Col}})
	var got explainResponse
	if !postOK(t, ts, "/api/v1/explain", string(body), &got) {
		return
	}
	if got.State != "blocked" || (got.Kind == "attack") != o.Satisfiable([]oracle.Cell{target}, nil) {
		t.Errorf("%s explain %v under %v: %+v", backend, target, q, got)
	}
	if got.Kind == "attack" {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		if len(got.Because) != 1 || !slices.Contains(q, oracle.Cell{Row: got.Because[0][0], Col: got.Because[0][1]}) ||
			!m.Attacks(configurator.Cell{Row: got.Because[0][0], Col: got.Because[0][1]}, configurator.Cell{Row: target.Row, Col: target.Col}) {
			t.Errorf("%s explain %v under %v: attacked by %v, not one of the queens attacking it", backend, target, q, got.Because)
		}
	}
}

// checkComplete asks for a solution holding q and checks it: a solution
// the oracle accepts, holding every queen of q, which the answer repeats.
func checkComplete(t *testing.T, ts *httptest.Server, backend string, o *oracle.Board, q []oracle.Cell) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"n": o.N(), "queens": pairsOf(q), "backend": backend})
	var got completeResponse
	if !postOK(t, ts, "/api/v1/complete", string(body), &got) {
		return
	}
	var sol []oracle.Cell
	for _, p := range got.Solution {
		sol = append(sol, oracle.Cell{Row: p[0], Col: p[1]})
	}
	if !o.IsSolution(sol) {
		t.Errorf("%s complete %v: %v is not a solution", backend, q, sol)
	}
	for _, c := range q {
		if !slices.Contains(sol, c) {
			t.Errorf("%s complete %v: the solution %v drops %v", backend, q, sol, c)
		}
	}
	if !slices.Equal(got.Queens, pairsOf(q)) {
		t.Errorf("%s complete %v: the answer's queens are %v", backend, q, got.Queens)
	}
}

// checkPlay places a queen through the one page's htmx control on a
// square the oracle says is free, and checks the count the app shows and
// the address it pushes.
func checkPlay(t *testing.T, ts *httptest.Server, backend string, o *oracle.Board, q []oracle.Cell, rng *rand.Rand) {
	t.Helper()
	n := o.N()
	var free []oracle.Cell
	for r := range n {
		for c := range n {
			cell := oracle.Cell{Row: r, Col: c}
			if !slices.Contains(q, cell) && o.CountWith(append(slices.Clone(q), cell)) > 0 {
				free = append(free, cell)
			}
		}
	}
	if len(free) == 0 {
		return
	}
	c := free[rng.IntN(len(free))]
	names := func(cs []oracle.Cell) string {
		var s []string
		for _, c := range cs {
			s = append(s, configurator.Cell{Row: c.Row, Col: c.Col}.String())
		}
		return strings.Join(s, ",")
	}
	path := fmt.Sprintf("/?model=queens-%d&select=%s&backend=%s&square=%s", n, names(q), backend, names([]oracle.Cell{c}))
	res, body := get(t, ts, path, "HX-Request", "true")
	after := append(slices.Clone(q), c)
	if want := configurationsText(o.CountWith(after)); res.StatusCode != 200 || !strings.Contains(body, `id="count">`+want+`<`) {
		t.Errorf("%s: status %d, want %s", path, res.StatusCode, want)
	}
	if got, want := res.Header.Get("HX-Push-Url"), fmt.Sprintf("/?model=queens-%d&select=%s&backend=%s", n, names(after), backend); got != want {
		t.Errorf("%s: pushes %q, want %q", path, got, want)
	}
}

// configurationsText is the one page's count of n configurations.
func configurationsText(n int) string {
	if n == 1 {
		return "1 configuration"
	}
	return fmt.Sprintf("%d configurations", n)
}

// pairsOf converts oracle cells to [row, col] pairs.
func pairsOf(cs []oracle.Cell) [][2]int {
	out := make([][2]int, len(cs))
	for i, c := range cs {
		out[i] = [2]int{c.Row, c.Col}
	}
	return out
}

// TestConcurrentRequests sends mixed requests from many goroutines to
// both backends at once (run it with -race): analyses, explanations and
// completions through the API, pages, and the page's htmx actions (place,
// why, complete). Every answer must match the oracle, and the cache must
// compile each space once.
func TestConcurrentRequests(t *testing.T) {
	cfg := testConfig()
	var compiles compileCounter
	_, ts, _ := serveWith(t, cfg.config(), compiles.wrap(cfg.engines())...)
	boards := map[int]*oracle.Board{}
	for n := 4; n <= 9; n++ {
		boards[n] = configuratortest.Board(t, n)
	}
	var wg sync.WaitGroup
	for g := range 24 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := range 8 {
				n := 4 + rng.IntN(6)
				o := boards[n]
				sol := o.Solution(rng.IntN(o.Count()))
				q := sol[:rng.IntN(n)]
				backend := []string{"bdd", "sat"}[(g+i)%2]
				switch (g + i) % 6 {
				case 0:
					checkAnalyze(t, ts, backend, o, q)
				case 1:
					checkExplain(t, ts, backend, o, q, rng)
				case 2:
					checkComplete(t, ts, backend, o, q)
				case 3:
					checkPlay(t, ts, backend, o, q, rng)
				default:
					mode := []string{"bdd", "sat", "both"}[rng.IntN(3)]
					var names []string
					for _, c := range q {
						names = append(names, configurator.Cell{Row: c.Row, Col: c.Col}.String())
					}
					res, body := get(t, ts, fmt.Sprintf("/?model=queens-%d&select=%s&backend=%s", n, strings.Join(names, ","), mode))
					want := `id="count">` + configurationsText(o.CountWith(q)) + `<`
					if res.StatusCode != 200 || !strings.Contains(body, want) {
						t.Errorf("page n=%d q=%v %s: status %d, want %q", n, names, mode, res.StatusCode, want)
					}
				}
			}
		})
	}
	wg.Wait()
	compiles.calls.Range(func(k, v any) bool {
		if c := v.(*atomic.Int32).Load(); c != 1 {
			t.Errorf("%+v compiled %d times", k, c)
		}
		return true
	})
}

func TestHasField(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"n": 8, "queens": [[0, 0]]}`, false},
		{`{"model": "berkeleydb", "decisions": []}`, true},
		{`{"n": 8, "\u006dodel": "berkeleydb"}`, true}, // an escaped name is the name
		{`{"n": 8, "backend": "model"}`, false},        // a value is no field
		{`{"n": 8, "x": {"model": 1}}`, false},         // nor is a nested one
		{`{"n": 8, "x": "\"model\""}`, false},
		{`["model"]`, false},
		{`{"model"`, true},
		{``, false},
	}
	for _, tt := range tests {
		if got := hasField([]byte(tt.body), "model"); got != tt.want {
			t.Errorf("hasField(%s, model) = %v, want %v", tt.body, got, tt.want)
		}
	}
}
