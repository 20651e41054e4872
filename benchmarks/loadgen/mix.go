package loadgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator"
)

// Kind is a kind of request of the configurator.
type Kind string

// The kinds of request of the configurator's workload.
const (
	// Analyze: POST /api/v1/analyze with a placement.
	Analyze Kind = "analyze"
	// Explain: POST /api/v1/explain, mostly on a square a queen attacks.
	Explain Kind = "explain"
	// Complete: POST /api/v1/complete.
	Complete Kind = "complete"
	// Page: GET / with a board (its model, queens-N) in its address, as
	// a link or a reload, sometimes with the diagram's panel open.
	Page Kind = "page"
	// Play: a step of the page as its htmx controls send it: place a
	// queen or rule a square out, take one back, ask why, make room,
	// complete (GET /model-complete).
	Play Kind = "play"
	// Diagram: GET /model-diagram of a small board with no queen or one.
	Diagram Kind = "diagram"
	// Bad: a request the server must refuse with a 4xx: malformed JSON,
	// wrong types, sizes out of range, bad squares, hostile markup, an
	// oversized body or address, a path out of the static tree.
	Bad Kind = "bad"
)

// Kinds lists every kind, in a fixed order.
var Kinds = []Kind{Analyze, Explain, Complete, Page, Play, Diagram, Bad}

// Mix is a workload of the BDD/SAT configurator: its JSON API and its
// pages, on both backends, on boards of the given sizes, with placements
// drawn at random (queens that attack no other, so most have solutions
// and some do not), and a share of bad requests.
type Mix struct {
	// BDD and SAT list the board sizes asked of each backend; a backend
	// with no sizes gets no requests. Sizes are drawn uniformly.
	BDD, SAT []int
	// Weights gives the share of each kind; kinds absent get none. Bad
	// requests ignore the sizes, except one that asks for a board one past
	// the largest size of a backend and expects 413: give Bad a weight
	// only when the largest sizes are the server's limits.
	Weights map[Kind]float64
	// Orders allows the BDD's other variable orders on boards up to
	// this size (they compile larger diagrams); 0 asks row order only.
	Orders int
	// DiagramMaxN is the largest board of Diagram requests; 0 means 5
	// (diagrams of larger boards exceed the server's drawing cap unless
	// queens shrink them). It must be within the server's BDD limit.
	DiagramMaxN int
}

// SoakMix is the soak test's workload: every kind, both backends, every
// size from 1 to the limits given, and one request in ten bad.
func SoakMix(bddMaxN, satMaxN int) Mix {
	m := Mix{
		Weights: map[Kind]float64{Analyze: 30, Explain: 15, Complete: 10, Page: 15, Play: 15, Diagram: 5, Bad: 10},
		Orders:  10,
	}
	for n := 1; n <= bddMaxN; n++ {
		m.BDD = append(m.BDD, n)
	}
	for n := 1; n <= satMaxN; n++ {
		m.SAT = append(m.SAT, n)
	}
	return m
}

// Generator checks the mix and returns its request generator.
func (m Mix) Generator() (Generator, error) {
	if len(m.BDD) == 0 && len(m.SAT) == 0 {
		return nil, errors.New("mix: no board sizes for either backend")
	}
	g := &mixGen{mix: m, models: make(map[int]*configurator.Model)}
	if g.mix.DiagramMaxN == 0 {
		g.mix.DiagramMaxN = 5
	}
	diagramSizes := make([]int, 0, g.mix.DiagramMaxN)
	for n := 1; n <= g.mix.DiagramMaxN; n++ {
		diagramSizes = append(diagramSizes, n)
	}
	for _, n := range slices.Concat(m.BDD, m.SAT, diagramSizes) {
		if n < 1 || n > configurator.MaxN {
			return nil, fmt.Errorf("mix: board size %d out of range", n)
		}
		if g.models[n] == nil {
			model, err := configurator.New(n, configurator.RowMajor)
			if err != nil {
				return nil, fmt.Errorf("mix: %w", err)
			}
			g.models[n] = model
		}
	}
	var total float64
	for _, k := range Kinds {
		if w := m.Weights[k]; w > 0 {
			total += w
			g.kinds = append(g.kinds, k)
			g.cum = append(g.cum, total)
		} else if w < 0 {
			return nil, fmt.Errorf("mix: weight of %s is negative", k)
		}
	}
	for k := range m.Weights {
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("mix: unknown kind %q", k)
		}
	}
	if total == 0 {
		return nil, errors.New("mix: every weight is zero")
	}
	g.bdd, g.sat = maxOf(m.BDD), maxOf(m.SAT)
	return g.next, nil
}

// MustGenerator is Generator for mixes known to be valid; it panics on an
// error.
func (m Mix) MustGenerator() Generator {
	g, err := m.Generator()
	if err != nil {
		panic(err)
	}
	return g
}

func maxOf(s []int) int {
	if len(s) == 0 {
		return 0
	}
	return slices.Max(s)
}

// mixGen is a Mix ready to generate. It is read-only once built, so its
// next method is safe for concurrent use.
type mixGen struct {
	mix      Mix
	models   map[int]*configurator.Model
	kinds    []Kind
	cum      []float64 // cumulative weights of kinds
	bdd, sat int       // the largest sizes
}

// Statuses the requests expect. A placement drawn at random may have no
// solution (422); a board still compiling gives the page's progress (200).
var (
	wantOK       = []int{http.StatusOK, http.StatusUnprocessableEntity}
	wantRedirect = []int{http.StatusOK, http.StatusSeeOther, http.StatusUnprocessableEntity}
)

func (g *mixGen) next(rng *rand.Rand) Request {
	r := rng.Float64() * g.cum[len(g.cum)-1]
	k := g.kinds[len(g.kinds)-1]
	for i, c := range g.cum {
		if r < c {
			k = g.kinds[i]
			break
		}
	}
	switch k {
	case Bad:
		return g.bad(rng)
	case Diagram:
		return g.diagram(rng)
	}
	backend, n := g.board(rng)
	m := g.models[n]
	queens := Placement(rng, m, rng.IntN(n/2+2))
	switch k {
	case Analyze, Complete:
		return g.api(k, backend, n, queens, nil, rng)
	case Explain:
		c := explainCell(rng, m, queens)
		return g.api(k, backend, n, queens, &c, rng)
	case Page:
		return g.page(rng, backend, n, queens)
	}
	return g.play(rng, backend, n, queens)
}

// board draws a backend with sizes, then a size.
func (g *mixGen) board(rng *rand.Rand) (string, int) {
	switch {
	case len(g.mix.SAT) == 0:
		return "bdd", g.mix.BDD[rng.IntN(len(g.mix.BDD))]
	case len(g.mix.BDD) == 0:
		return "sat", g.mix.SAT[rng.IntN(len(g.mix.SAT))]
	case rng.IntN(2) == 0:
		return "bdd", g.mix.BDD[rng.IntN(len(g.mix.BDD))]
	}
	return "sat", g.mix.SAT[rng.IntN(len(g.mix.SAT))]
}

// Placement puts up to k queens on random ranks, each on a random square
// that no queen already placed attacks (Model.Attacks), in random order:
// the placements of the load, which the backends' benchmarks draw too.
func Placement(rng *rand.Rand, m *configurator.Model, k int) []configurator.Cell {
	n := m.N()
	var queens []configurator.Cell
	for _, row := range rng.Perm(n) {
		if len(queens) >= k {
			break
		}
		var free []configurator.Cell
		for col := range n {
			c := configurator.Cell{Row: row, Col: col}
			if !slices.ContainsFunc(queens, func(q configurator.Cell) bool { return m.Attacks(q, c) }) {
				free = append(free, c)
			}
		}
		if len(free) > 0 {
			queens = append(queens, free[rng.IntN(len(free))])
		}
	}
	return queens
}

// explainCell picks the square to explain: mostly one that a queen
// attacks (blocked, with a reason), otherwise any square without a queen
// (which may be free: a 422).
func explainCell(rng *rand.Rand, m *configurator.Model, queens []configurator.Cell) configurator.Cell {
	n := m.N()
	if len(queens) > 0 && rng.IntN(4) != 0 {
		q := queens[rng.IntN(len(queens))]
		var attacked []configurator.Cell
		for v := range m.Vars() {
			if c := m.Cell(v); m.Attacks(q, c) && !slices.Contains(queens, c) {
				attacked = append(attacked, c)
			}
		}
		if len(attacked) > 0 {
			return attacked[rng.IntN(len(attacked))]
		}
	}
	for {
		c := configurator.Cell{Row: rng.IntN(n), Col: rng.IntN(n)}
		if !slices.Contains(queens, c) || len(queens) == n*n {
			return c
		}
	}
}

// apiBody is the JSON of the API's requests.
type apiBody struct {
	N       int      `json:"n"`
	Queens  [][2]int `json:"queens"`
	Backend string   `json:"backend"`
	Order   string   `json:"order,omitempty"`
	Cell    *[2]int  `json:"cell,omitempty"`
}

func pairs(cells []configurator.Cell) [][2]int {
	out := make([][2]int, len(cells))
	for i, c := range cells {
		out[i] = [2]int{c.Row, c.Col}
	}
	return out
}

// order draws a BDD variable order: other than row only on boards up to
// Mix.Orders.
func (g *mixGen) order(rng *rand.Rand, backend string, n int) string {
	if backend != "bdd" || n > g.mix.Orders || rng.IntN(4) != 0 {
		return ""
	}
	orders := configurator.Orders()
	return orders[rng.IntN(len(orders))].String()
}

func (g *mixGen) api(k Kind, backend string, n int, queens []configurator.Cell, cell *configurator.Cell, rng *rand.Rand) Request {
	body := apiBody{N: n, Queens: pairs(queens), Backend: backend, Order: g.order(rng, backend, n)}
	if cell != nil {
		body.Cell = &[2]int{cell.Row, cell.Col}
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic(err) // a struct of ints and strings always marshals
	}
	return Request{Label: string(k) + " " + backend, Method: http.MethodPost, Path: "/api/v1/" + string(k), Body: b, Want: wantOK}
}

// boardQuery is the query string of a board on the page: its model
// (queens-N) with the queens selected, and the backend.
func boardQuery(n int, queens []configurator.Cell, backend string) string {
	q := "model=" + configurator.BoardID(n)
	if len(queens) > 0 {
		q += "&select=" + configurator.FormatCells(queens)
	}
	if backend != "" {
		q += "&backend=" + backend
	}
	return q
}

func (g *mixGen) page(rng *rand.Rand, backend string, n int, queens []configurator.Cell) Request {
	// "Both" runs both backends: only on boards both take.
	if rng.IntN(4) == 0 && n <= g.bdd && n <= g.sat && len(g.mix.BDD) > 0 && len(g.mix.SAT) > 0 {
		backend = "both"
	}
	q := boardQuery(n, queens, backend)
	if rng.IntN(10) == 0 {
		// The diagram panel counts the nodes of the restricted diagram,
		// a copy of it as large as the whole on an empty board.
		q += "&diagram=1"
	}
	return Request{Label: "page " + backend, Path: "/?" + q, Want: wantOK}
}

func (g *mixGen) play(rng *rand.Rand, backend string, n int, queens []configurator.Cell) Request {
	m := g.models[n]
	q := boardQuery(n, queens, backend)
	path := "/?" + q + "&"
	switch r := rng.IntN(6); {
	case r < 2 || len(queens) == 0:
		c := configurator.Cell{Row: rng.IntN(n), Col: rng.IntN(n)}
		switch {
		case slices.Contains(queens, c):
			path += "undo=" + c.String()
		case rng.IntN(4) == 0:
			path += "square=" + c.String() + "&rule=1"
		default:
			path += "square=" + c.String()
		}
	case r == 2:
		path += "undo=" + queens[rng.IntN(len(queens))].String()
	case r == 3:
		path += "ask=" + explainCell(rng, m, queens).String()
	case r == 4:
		path += "room=" + explainCell(rng, m, queens).String()
	default:
		path = "/model-complete?" + q + "&how=" + []string{"fewest", "most"}[rng.IntN(2)]
	}
	h := http.Header{"Hx-Request": {"true"}}
	label := "play " + backend
	if rng.IntN(8) == 0 {
		// Without JavaScript the form lands on the page, and a step
		// redirects to the address of its state.
		h = nil
		label = "play nojs " + backend
	}
	return Request{Label: label, Path: path, Header: h, Want: wantRedirect}
}

func (g *mixGen) diagram(rng *rand.Rand) Request {
	n := 1 + rng.IntN(g.mix.DiagramMaxN)
	if g.bdd > 0 {
		n = min(n, g.bdd)
	}
	queens := Placement(rng, g.models[n], rng.IntN(2))
	return diagramRequest(n, queens)
}

// diagramRequest asks for the diagram of a board. The diagram of a board
// without solutions, or one the BDD does not take, is refused (422,
// 413).
func diagramRequest(n int, queens []configurator.Cell) Request {
	return Request{Label: "diagram", Path: "/model-diagram?" + boardQuery(n, queens, ""),
		Want: []int{http.StatusOK, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity}}
}

// DiagramPaths lists the paths of every diagram the mix's Diagram
// requests ask for (boards up to DiagramMaxN with no queen or one), so
// that a soak can ask for each once before its baseline.
func DiagramPaths(m Mix) []string {
	maxN := m.DiagramMaxN
	if maxN == 0 {
		maxN = 5
	}
	if b := maxOf(m.BDD); b > 0 {
		maxN = min(maxN, b)
	}
	var paths []string
	for n := 1; n <= maxN; n++ {
		paths = append(paths, diagramRequest(n, nil).Path)
		for v := range n * n {
			paths = append(paths, diagramRequest(n, []configurator.Cell{{Row: v / n, Col: v % n}}).Path)
		}
	}
	return paths
}

// badCase is one kind of bad request.
type badCase struct {
	name string
	make func(g *mixGen, rng *rand.Rand) Request
}

// hostile is markup that must come back escaped.
const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>`

// post is a bad API request.
func post(body string, want ...int) Request {
	return Request{Method: http.MethodPost, Path: "/api/v1/analyze", Body: []byte(body), Want: want}
}

var badCases = []badCase{
	{"malformed json", func(*mixGen, *rand.Rand) Request { return post(`{"n":8,`, 400) }},
	{"not an object", func(*mixGen, *rand.Rand) Request { return post(`[8]`, 400) }},
	{"n in words", func(*mixGen, *rand.Rand) Request { return post(`{"n":"eight"}`, 400) }},
	{"n missing", func(*mixGen, *rand.Rand) Request { return post(`{"queens":[]}`, 400) }},
	{"n zero", func(*mixGen, *rand.Rand) Request { return post(`{"n":0}`, 400) }},
	{"n negative", func(*mixGen, *rand.Rand) Request { return post(`{"n":-1}`, 400) }},
	{"n 10^18", func(*mixGen, *rand.Rand) Request { return post(`{"n":1000000000000000000}`, 400) }},
	{"n past the limit", func(g *mixGen, rng *rand.Rand) Request {
		if g.bdd > 0 && (g.sat == 0 || rng.IntN(2) == 0) {
			return post(fmt.Sprintf(`{"n":%d,"backend":"bdd"}`, g.bdd+1), 413)
		}
		return post(fmt.Sprintf(`{"n":%d,"backend":"sat"}`, g.sat+1), 413)
	}},
	{"queen off the board", func(*mixGen, *rand.Rand) Request { return post(`{"n":8,"queens":[[8,0]]}`, 400) }},
	{"queen twice", func(*mixGen, *rand.Rand) Request { return post(`{"n":8,"queens":[[0,0],[0,0]]}`, 400) }},
	{"queens attacking", func(*mixGen, *rand.Rand) Request { return post(`{"n":8,"queens":[[0,0],[1,1]],"backend":"sat"}`, 422) }},
	{"unknown backend", func(*mixGen, *rand.Rand) Request { return post(`{"n":8,"backend":"zdd"}`, 400) }},
	{"unknown order", func(*mixGen, *rand.Rand) Request { return post(`{"n":8,"order":"zigzag"}`, 400) }},
	{"script in a field", func(*mixGen, *rand.Rand) Request {
		b, _ := json.Marshal(map[string]any{"n": 8, "backend": hostile})
		return post(string(b), 400)
	}},
	{"invalid utf-8", func(*mixGen, *rand.Rand) Request { return post("{\"n\":8,\"order\":\"\xff\xfe\"}", 400) }},
	{"body over the limit", func(*mixGen, *rand.Rand) Request {
		return post(`{"n":8,"queens":[`+strings.Repeat(`[0,0],`, 12000)+`[0,0]]}`, 413)
	}},
	{"get on the api", func(*mixGen, *rand.Rand) Request {
		return Request{Path: "/api/v1/analyze", Want: []int{405}}
	}},
	{"page square z99", func(*mixGen, *rand.Rand) Request {
		return Request{Path: "/?model=queens-8&select=z99", Want: []int{400}}
	}},
	{"page square a0", func(*mixGen, *rand.Rand) Request {
		return Request{Path: "/?model=queens-8&select=a0", Want: []int{400}}
	}},
	{"page queen twice", func(*mixGen, *rand.Rand) Request {
		return Request{Path: "/?model=queens-8&select=a1,a1", Want: []int{400}}
	}},
	{"page script", func(_ *mixGen, rng *rand.Rand) Request {
		params := []string{"model", "select", "backend", "diagram"}
		p := params[rng.IntN(len(params))]
		if p == "model" {
			return Request{Path: "/?model=" + url.QueryEscape(hostile), Want: []int{400}}
		}
		return Request{Path: "/?model=queens-8&" + p + "=" + url.QueryEscape(hostile), Want: []int{400}}
	}},
	{"a saved board address, n in words", func(*mixGen, *rand.Rand) Request { return Request{Path: "/?n=eight", Want: []int{400}} }},
	{"a saved board address, square z99", func(*mixGen, *rand.Rand) Request { return Request{Path: "/?n=8&q=z99", Want: []int{400}} }},
	{"play on a blocked square", func(*mixGen, *rand.Rand) Request {
		return Request{Path: "/?model=queens-8&select=a1&backend=bdd&square=b2", Header: http.Header{"Hx-Request": {"true"}}, Want: []int{422}}
	}},
	// Past the server's 8 KiB query limit (414, in words) and within its
	// 16 KiB header cap (a request line past the cap gets the guard's plain
	// 414; the server's own tests cover it).
	{"a 12 KB address", func(*mixGen, *rand.Rand) Request {
		return Request{Path: "/?model=queens-8&select=" + strings.Repeat("a1,", 4000), Want: []int{414}}
	}},
	{"out of the static tree", func(*mixGen, *rand.Rand) Request { return Request{Path: "/static/../go.mod", Want: []int{404}} }},
}

func (g *mixGen) bad(rng *rand.Rand) Request {
	c := badCases[rng.IntN(len(badCases))]
	r := c.make(g, rng)
	r.Label = "bad: " + c.name
	return r
}
