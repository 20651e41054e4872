package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/words"
)

// The JSON API: POST /api/v1/analyze, /explain and /complete here,
// /diagram in diagram.go and /orders in orders.go. Squares are
// [row, col] pairs counted from 0, row 0 being rank 1 and col 0 file a.
// Every error is {"error": "..."} with 400 for malformed input, 413 for a
// body or board too large, 415 for a body not sent as application/json,
// 422 for queens no solution holds, 429 when a client sends too fast and
// 503 (with Retry-After) when a backend is busy.

// apiError is the body of every API error.
type apiError struct {
	Error string `json:"error"`
}

// boardRequest is the part every API request shares.
type boardRequest struct {
	N       *int    `json:"n"`
	Queens  [][]int `json:"queens"`
	Backend string  `json:"backend"`
	Order   string  `json:"order"`
}

// board returns the board of any request, explainRequest's included.
func (r boardRequest) board() boardRequest { return r }

// explainRequest adds the square to explain.
type explainRequest struct {
	boardRequest
	Cell []int `json:"cell"`
}

// analyzeResponse is the answer of /analyze. Solutions is a decimal
// string (counts outgrow JSON numbers); SolutionsAtLeast marks it as a
// lower bound, and it is absent when the backend does not count.
type analyzeResponse struct {
	N                int      `json:"n"`
	Backend          string   `json:"backend"`
	Order            string   `json:"order"`
	Queens           [][2]int `json:"queens"`
	Forced           [][2]int `json:"forced"`
	Blocked          [][2]int `json:"blocked"`
	Free             [][2]int `json:"free"`
	Solutions        string   `json:"solutions,omitempty"`
	SolutionsAtLeast bool     `json:"solutions_at_least,omitempty"`
	ElapsedMS        float64  `json:"elapsed_ms"`
	Work             workJSON `json:"work"`
}

// workJSON is what the backend did to answer (configurator.Work): the
// domains and the count timed apart, and the backend's own figures, a
// diagram's (nodes, nodes_visited) for a space with a diagram, a solver's
// (calls, gophersat's statistics, squares by means of decision)
// otherwise. The other kind's fields are absent; zero means none.
type workJSON struct {
	DomainsMS     float64 `json:"domains_ms"`
	CountMS       float64 `json:"count_ms"`
	Nodes         *int64  `json:"nodes,omitempty"`
	NodesVisited  *int64  `json:"nodes_visited,omitempty"`
	SolverCalls   *int64  `json:"solver_calls,omitempty"`
	Conflicts     *int64  `json:"conflicts,omitempty"`
	Decisions     *int64  `json:"decisions,omitempty"`
	Learned       *int64  `json:"learned,omitempty"`
	ByPropagation *int    `json:"by_propagation,omitempty"`
	ByWitness     *int    `json:"by_witness,omitempty"`
	BySolver      *int    `json:"by_solver,omitempty"`
}

// newWorkJSON writes the work of a space (a board's or a feature
// model's) for the API: a diagram's figures for a space with a diagram, a
// solver's otherwise.
func newWorkJSON(sp any, w configurator.Work) workJSON {
	j := workJSON{DomainsMS: ms(w.Domains), CountMS: ms(w.Count)}
	if _, ok := sp.(configurator.Diagrammer); ok || w.Nodes > 0 {
		j.Nodes, j.NodesVisited = &w.Nodes, &w.NodesVisited
		return j
	}
	j.SolverCalls, j.Conflicts, j.Decisions, j.Learned = &w.SolverCalls, &w.Conflicts, &w.Decisions, &w.Learned
	j.ByPropagation, j.ByWitness, j.BySolver = &w.ByPropagation, &w.ByWitness, &w.BySolver
	return j
}

// explainResponse is the answer of /explain. Because, Kind and Text are
// the first of Reasons, every subset-minimal set of the user's queens that
// rules the square (the first configurator.MaxReasons, More when there are
// more or the search ran out of time); Details says each in words, with
// its proof by propagation when there is one. MakeRoom is a fewest set of
// queens to remove to free a blocked square (null for a forced one, and
// for a square no solution uses).
//
// MakeRoomAtLeast, when set, says MakeRoom is the smallest set the search
// found within its bounds, which frees the square, and that a fewest set
// has at least this many queens (as a feature model's make_room_at_least).
type explainResponse struct {
	Cell      [2]int       `json:"cell"`
	State     string       `json:"state"`
	Kind      string       `json:"kind"`
	Because   [][2]int     `json:"because"`
	Text      string       `json:"text"`
	Reasons   [][][2]int   `json:"reasons"`
	More      bool         `json:"more"`
	Details   []reasonJSON `json:"details"`
	MakeRoom  [][2]int     `json:"make_room"`
	ElapsedMS float64      `json:"elapsed_ms"`

	MakeRoomAtLeast int `json:"make_room_at_least,omitempty"`
}

// reasonJSON is one reason of /explain in words: its kind, the sentence
// the page shows, and the proof the page gives: the steps of a proof by
// propagation or by cases, or the solutions that hold the reason's queens
// when there are few (both absent when only the backend's search refuted
// it).
type reasonJSON struct {
	Kind      string     `json:"kind"`
	Text      string     `json:"text"`
	Proof     []string   `json:"proof,omitempty"`
	Solutions [][][2]int `json:"solutions,omitempty"`
}

// newExplainResponse writes an explanation for the API.
func newExplainResponse(ex *configurator.Explanation, took time.Duration) explainResponse {
	resp := explainResponse{Cell: [2]int{ex.Cell.Row, ex.Cell.Col}, State: ex.State.String(), Kind: ex.Reason.String(),
		Because: pairs(ex.Because), Text: ex.String(), Reasons: [][][2]int{}, More: ex.More, Details: []reasonJSON{}, ElapsedMS: ms(took)}
	for _, r := range ex.Reasons {
		resp.Reasons = append(resp.Reasons, pairs(r.Queens))
		d := reasonJSON{Kind: r.Reason.String(), Text: r.String()}
		for _, st := range r.Proof {
			d.Proof = append(d.Proof, st.String())
		}
		if r.Split != nil {
			d.Proof = r.Split.Lines()
		}
		for _, sol := range r.Solutions {
			d.Solutions = append(d.Solutions, pairs(sol))
		}
		resp.Details = append(resp.Details, d)
	}
	if ex.Room != nil {
		resp.MakeRoom, resp.MakeRoomAtLeast = pairs(ex.Room), ex.RoomAtLeast
	}
	return resp
}

// completeResponse is the answer of /complete.
type completeResponse struct {
	N         int      `json:"n"`
	Backend   string   `json:"backend"`
	Queens    [][2]int `json:"queens"`
	Solution  [][2]int `json:"solution"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

func (s *Server) apiAnalyze(c echo.Context) error {
	body, err := readJSON(c)
	if err != nil {
		return err
	}
	if hasField(body, "model") {
		return s.apiAnalyzeModel(c, body)
	}
	var req boardRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	st, backend, err := s.apiState(req)
	if err != nil {
		return err
	}
	e, o, err := s.apiApply(c, backend, st, board.Action{Kind: board.Show}, nil)
	if err != nil {
		return err
	}
	resp := analyzeResponse{N: st.N, Backend: backend, Order: e.Key.Order.String(), Queens: pairs(st.Queens),
		Forced: [][2]int{}, Blocked: [][2]int{}, Free: [][2]int{}, ElapsedMS: ms(o.took), Work: newWorkJSON(e.Space, configurator.Work{})}
	if o.Unsolvable {
		for v := range st.N * st.N {
			resp.Blocked = append(resp.Blocked, [2]int{v / st.N, v % st.N})
		}
		resp.Solutions = "0"
		return c.JSON(http.StatusOK, resp)
	}
	a := o.Session.Analysis()
	resp.Work = newWorkJSON(e.Space, a.Work)
	resp.Forced = pairs(a.In(configurator.Forced))
	resp.Blocked = pairs(a.In(configurator.Blocked))
	resp.Free = pairs(a.In(configurator.Free))
	if a.Solutions != nil {
		resp.Solutions, resp.SolutionsAtLeast = a.Solutions.String(), a.AtLeast
	}
	return c.JSON(http.StatusOK, resp)
}

func (s *Server) apiExplain(c echo.Context) error {
	body, err := readJSON(c)
	if err != nil {
		return err
	}
	if hasField(body, "model") {
		return s.apiExplainModel(c, body)
	}
	var req explainRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	st, backend, err := s.apiState(req.board())
	if err != nil {
		return err
	}
	if req.Cell == nil {
		return problem.New(http.StatusBadRequest, "Say which square to explain: \"cell\": [row, col].")
	}
	cell, err := apiCell(req.Cell, st.N, "cell")
	if err != nil {
		return err
	}
	_, o, err := s.apiApply(c, backend, st, board.Action{Kind: board.Why, Cell: cell}, nil)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newExplainResponse(o.Explanation, o.took))
}

func (s *Server) apiComplete(c echo.Context) error {
	body, err := readJSON(c)
	if err != nil {
		return err
	}
	if hasField(body, "model") {
		return s.apiCompleteModel(c, body)
	}
	var req boardRequest
	if err := decodeJSON(body, &req); err != nil {
		return err
	}
	st, backend, err := s.apiState(req)
	if err != nil {
		return err
	}
	_, o, err := s.apiApply(c, backend, st, board.Action{Kind: board.Complete}, newRand())
	if err != nil {
		return err
	}
	sol := o.Session.Queens()
	slices.SortFunc(sol, func(a, b configurator.Cell) int { return a.Row - b.Row })
	return c.JSON(http.StatusOK, completeResponse{N: st.N, Backend: backend, Queens: pairs(st.Queens), Solution: pairs(sol), ElapsedMS: ms(o.took)})
}

// apiApply finds (or compiles) the space of a checked board and applies act
// to it: the step every API route takes.
func (s *Server) apiApply(c echo.Context, backend string, st board.State, act board.Action, rng *rand.Rand) (*spaces.Space, outcome, error) {
	e, err := s.apiSpace(c, backend, st)
	if err != nil {
		return nil, outcome{}, err
	}
	o, err := s.apply(c.Request().Context(), e, st, act, rng)
	return e, o, err
}

// readBoard decodes the request's body into req and checks the board it
// holds, as apiState does.
func (s *Server) readBoard(c echo.Context, req interface{ board() boardRequest }) (board.State, string, error) {
	if err := decode(c, req); err != nil {
		return board.State{}, "", err
	}
	return s.apiState(req.board())
}

// apiState checks a request's board: the size against the limits (400
// out of range, 413 beyond the backend), the backend and order names, and
// the queens (on the board, no duplicates).
func (s *Server) apiState(req boardRequest) (board.State, string, error) {
	st := s.lineup.Default()
	backend := string(st.Mode)
	if req.Backend != "" {
		m, ok := s.lineup.ParseMode(req.Backend)
		if !ok || m == board.All {
			return st, "", problem.New(http.StatusBadRequest, "%s is not a backend: use %s.", words.Quote(req.Backend), s.lineup.Choices(false, true))
		}
		backend = string(m)
	}
	st.Mode = board.Mode(backend)
	if req.N == nil {
		return st, "", problem.New(http.StatusBadRequest, "Say the board size: \"n\" is required, a whole number from 1 to %d.", s.lineup.MaxN(backend))
	}
	n := *req.N
	if n < 1 || n > configurator.MaxN {
		return st, "", problem.New(http.StatusBadRequest, "\"n\" is %d; it must be from 1 to %d.", n, s.lineup.MaxN(backend))
	}
	if n > s.lineup.MaxN(backend) {
		return st, "", s.lineup.TooLarge(n, st.Mode)
	}
	st.N = n
	if req.Order != "" {
		o, err := configurator.ParseOrder(strings.ToLower(req.Order))
		if err != nil {
			return st, "", problem.New(http.StatusBadRequest, "%s is not a variable order: use \"row\", \"col\", \"diag\" or \"middle\".", words.Quote(req.Order))
		}
		st.Order = o
	}
	if len(req.Queens) > n*n {
		return st, "", problem.New(http.StatusBadRequest, "%d queens cannot fit on the %d squares of a %d×%d board.", len(req.Queens), n*n, n, n)
	}
	for i, q := range req.Queens {
		c, err := apiCell(q, n, fmt.Sprintf("queens[%d]", i))
		if err != nil {
			return st, "", err
		}
		if slices.Contains(st.Queens, c) {
			return st, "", problem.New(http.StatusBadRequest, "queens[%d] is [%d,%d] again: each square may hold one queen.", i, c.Row, c.Col)
		}
		st.Queens = append(st.Queens, c)
	}
	if len(st.Queens) > n {
		return st, "", problem.New(http.StatusUnprocessableEntity, "A solution on a %d×%d board has %d queens; the request places %d.", n, n, n, len(st.Queens))
	}
	return st, backend, nil
}

// apiCell checks one [row, col] pair.
func apiCell(p []int, n int, what string) (configurator.Cell, error) {
	if len(p) != 2 {
		return configurator.Cell{}, problem.New(http.StatusBadRequest, "%s must be a pair [row, col], not %d numbers.", what, len(p))
	}
	c := configurator.Cell{Row: p[0], Col: p[1]}
	if c.Row < 0 || c.Row >= n || c.Col < 0 || c.Col >= n {
		return c, problem.New(http.StatusBadRequest, "%s is [%d,%d], off the %d×%d board (rows and columns count from 0 to %d).", what, c.Row, c.Col, n, n, n-1)
	}
	return c, nil
}

// apiSpace returns the compiled space, waiting for a compile as long as
// the request's deadline allows.
func (s *Server) apiSpace(c echo.Context, backend string, st board.State) (*spaces.Space, error) {
	ctx := c.Request().Context()
	k := s.key(backend, st)
	e, err := s.space(ctx, k)
	if err != nil {
		return nil, s.compileProblem(ctx, k, err)
	}
	return e, nil
}

// decode reads a JSON request body strictly: sent as application/json,
// one object, no unknown fields, each field once and spelled exactly, the
// right types. Its errors are 400s (413 past the body limit, 415 for
// another content type) that say what is wrong and where.
func decode(c echo.Context, v any) error {
	body, err := readJSON(c)
	if err != nil {
		return err
	}
	return decodeJSON(body, v)
}

// readJSON reads a request body sent as application/json, for decodeJSON.
func readJSON(c echo.Context) ([]byte, error) {
	if err := jsonContentType(c.Request().Header.Get(echo.HeaderContentType)); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var he *echo.HTTPError
		if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
			return nil, problem.New(http.StatusRequestEntityTooLarge, "The request body is too large.")
		}
		return nil, problem.New(http.StatusBadRequest, "The request body could not be read.")
	}
	return body, nil
}

// hasField reports whether body is a JSON object with a field spelled
// name at its top level.
func hasField(body []byte, name string) bool {
	// Without an escape, a field spelled name appears in body as "name":
	// a body without it is settled without parsing, as every board's is.
	if bytes.IndexByte(body, '\\') < 0 && !bytes.Contains(body, []byte(`"`+name+`"`)) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if tok == name {
			return true
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return false
		}
	}
	return false
}

// fieldLister is a request type that names its fields for the message of
// an unknown one; the board's requests name theirs in boardFields.
type fieldLister interface{ fields() string }

// boardFields names the fields of the board's requests.
const boardFields = "n, queens, backend, order (and cell for explain, view for diagram)"

// fieldsOf names the fields of the request type of v.
func fieldsOf(v any) string {
	if l, ok := v.(fieldLister); ok {
		return l.fields()
	}
	return boardFields
}

// decodeJSON is decode's parser, separate for the fuzz test.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return problem.New(http.StatusBadRequest, `The request body is empty; send a JSON object such as {"n": 8, "queens": [[0, 0]]}.`)
	}
	if err := checkFields(body, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, err := dec.Token(); err != io.EOF {
			return problem.New(http.StatusBadRequest, "The request body holds more than one JSON value; send one object.")
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return problem.New(http.StatusBadRequest, "The request body is not valid JSON (at byte %d): %s.", syn.Offset, syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return problem.New(http.StatusBadRequest, "The request body must be a JSON object, not %s.", typ.Value)
		}
		return problem.New(http.StatusBadRequest, "%q must be %s, not %s.", field, expected(field), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return problem.New(http.StatusBadRequest, "The request body ends in the middle of its JSON.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return problem.New(http.StatusBadRequest, "Unknown field %s; the fields are %s.",
			strings.TrimPrefix(err.Error(), "json: unknown field "), fieldsOf(v))
	}
	return problem.New(http.StatusBadRequest, "The request body is not the JSON expected: %s.", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonContentType checks a request's Content-Type: the API reads only
// application/json (in UTF-8, the only charset JSON has). A form or a
// text/plain body is refused, so a page on another site cannot post to
// the API from a visitor's browser without a CORS preflight, which this
// server never grants.
func jsonContentType(ct string) error {
	if ct == "" {
		return problem.New(http.StatusUnsupportedMediaType, "The request says no Content-Type; send the JSON body with Content-Type: application/json.")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		if cs, ok := params["charset"]; !ok || strings.EqualFold(cs, "utf-8") {
			return nil
		}
	}
	return problem.New(http.StatusUnsupportedMediaType, "The request body is sent as %s; the API reads only JSON: send it with Content-Type: application/json.", words.Quote(ct))
}

// checkFields walks the names of a JSON object's fields as the body spells
// them: each must be a field of v spelled exactly (encoding/json would
// also take "N" for "n") and appear once (encoding/json would keep the
// last). The request types hold no objects inside, so the top level is
// the only one to check. A body that is not an object, or not JSON, is
// left to the decoder, which words those errors.
func checkFields(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	names := fieldNames(reflect.TypeOf(v))
	seen := make(map[string]bool, len(names))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := tok.(string)
		switch {
		case !slices.Contains(names, name):
			return problem.New(http.StatusBadRequest, "Unknown field %s; the fields are %s.", words.Field(name), fieldsOf(v))
		case seen[name]:
			return problem.New(http.StatusBadRequest, "Duplicate field %s: each field may appear once.", words.Field(name))
		}
		seen[name] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
	}
	return nil
}

// fieldNames lists the JSON names of a struct's fields (through a pointer,
// and those of embedded structs).
func fieldNames(t reflect.Type) []string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for f := range t.Fields() {
		if f.Anonymous {
			names = append(names, fieldNames(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// expected says what a field holds, for type errors.
func expected(field string) string {
	switch {
	case field == "n":
		return "a whole number"
	case strings.HasPrefix(field, "queens"):
		return "a list of [row, col] pairs of whole numbers"
	case strings.HasPrefix(field, "cell"):
		return "a pair [row, col] of whole numbers"
	case strings.HasPrefix(field, "select"), strings.HasPrefix(field, "deselect"):
		return "a list of feature names"
	}
	return "a string"
}

// pairs writes cells as [row, col] pairs, never null.
func pairs(cells []configurator.Cell) [][2]int {
	out := make([][2]int, 0, len(cells))
	for _, c := range cells {
		out = append(out, [2]int{c.Row, c.Col})
	}
	return out
}

// ms is a duration in milliseconds, to the microsecond.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
