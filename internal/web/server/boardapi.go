package server

import (
	"errors"
	"fmt"
	"net/http"
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

// The board's shorthand of the JSON API: {"n": 8, "queens": [[0, 0]],
// "backend": "bdd", "order": "row"} (and "cell": [row, col] for explain)
// on POST /api/v1/analyze, /explain and /complete. A board request is the
// model request of the board queens-N with the queens' squares selected:
// it is checked in the board's words (apiState), then answered by the
// session every model request opens (openSession) on the board's space in
// the order asked for, and its answer written in the board's words, a
// square as a [row, col] pair.

// boardRequest is the part every API request shares.
type boardRequest struct {
	N       *int    `json:"n"`
	Queens  [][]int `json:"queens"`
	Backend string  `json:"backend"`
	Order   string  `json:"order"`
}

func (boardRequest) fields() string {
	return "n, queens, backend, order (and cell for explain, view for diagram)"
}

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

// completeResponse is the answer of /complete.
type completeResponse struct {
	N         int      `json:"n"`
	Backend   string   `json:"backend"`
	Queens    [][2]int `json:"queens"`
	Solution  [][2]int `json:"solution"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

// bodyBoard decodes a request's body into req and checks the board it
// holds, br (req's own, or the one it embeds), as apiState does.
func (s *Server) bodyBoard(body []byte, req fieldLister, br *boardRequest) (board.State, string, error) {
	if err := decodeJSON(body, req); err != nil {
		return board.State{}, "", err
	}
	return s.apiState(*br)
}

// apiState checks a request's board: the size against the limits (400
// out of range, 413 beyond the backend), the backend and order names, and
// the queens (on the board, no duplicates).
func (s *Server) apiState(req boardRequest) (board.State, string, error) {
	st := s.lineup.Default()
	backend := string(st.Mode)
	if req.Backend != "" {
		var err error
		if backend, err = s.apiBackend(req.Backend); err != nil {
			return st, "", err
		}
	}
	st.Mode = board.Mode(backend)
	n, err := s.apiSize(req.N, backend)
	if err != nil {
		return st, "", err
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

// apiBackend reads the name of one backend of the server, any case.
func (s *Server) apiBackend(name string) (string, error) {
	m, ok := s.lineup.ParseMode(name)
	if !ok || m == board.All {
		return "", problem.New(http.StatusBadRequest, "%s is not a backend: use %s.", words.Quote(name), s.lineup.Choices(false, true))
	}
	return string(m), nil
}

// apiSize checks a request's board size n against the limits of backend:
// 400 when absent or out of range, 413 beyond the backend.
func (s *Server) apiSize(n *int, backend string) (int, error) {
	if n == nil {
		return 0, problem.New(http.StatusBadRequest, "Say the board size: \"n\" is required, a whole number from 1 to %d.", s.lineup.MaxN(backend))
	}
	if *n < 1 || *n > configurator.MaxN {
		return 0, problem.New(http.StatusBadRequest, "\"n\" is %d; it must be from 1 to %d.", *n, s.lineup.MaxN(backend))
	}
	if *n > s.lineup.MaxN(backend) {
		return 0, s.lineup.TooLarge(*n, board.Mode(backend))
	}
	return *n, nil
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
	k := s.spaces.Key(backend, st.N, st.Order)
	e, err := s.space(ctx, k)
	if err != nil {
		return nil, s.compileProblem(ctx, k, err)
	}
	return e, nil
}

// boardSession opens the session of a checked board request: the board's
// space on the backend in the order asked for (apiSpace), answering the
// board's feature model with the queens' squares selected. Its errors are
// in the board's words (boardProblem); the space is returned once found,
// even when the session fails. The caller calls mo.done when it has
// finished.
func (s *Server) boardSession(c echo.Context, st board.State, backend string) (*modelSession, *spaces.Space, error) {
	e, err := s.apiSpace(c, backend, st)
	if err != nil {
		return nil, nil, err
	}
	s.spaces.Use(e)
	mo := &modelSession{id: configurator.BoardID(st.N), backend: backend, model: e.FeatureModel(),
		decisions: configurator.BoardDecisions(e.Board().Model(), st.Queens), compiled: e.Took}
	mo, err = s.openSession(c.Request().Context(), mo, e.Space)
	if err != nil {
		return nil, e, boardProblem(e.Board().Model(), st.Queens, err)
	}
	return mo, e, nil
}

// squares are the squares of features of the board bm.
func squares(bm *configurator.Model, features []int) []configurator.Cell {
	out := make([]configurator.Cell, len(features))
	for i, f := range features {
		out[i] = bm.Cell(f)
	}
	return out
}

// boardProblem words the error of a board's session: queens that no
// solution holds (a *configurator.Conflict) are a 422 that names two of
// them that attack each other, the first pair in the order placed, else
// the fewest of them that no solution holds together; a board without
// solutions is nothing to explain or complete. Other errors are left as
// they are.
func boardProblem(bm *configurator.Model, queens []configurator.Cell, err error) error {
	var conflict *configurator.Conflict
	if !errors.As(err, &conflict) {
		return err
	}
	p := &problem.Problem{Status: http.StatusUnprocessableEntity, Err: err}
	for i, a := range queens {
		for _, b := range queens[:i] {
			if bm.Attacks(a, b) {
				p.Message = fmt.Sprintf("No solution holds these queens: %v and %v attack each other.", b, a)
				return p
			}
		}
	}
	held := make([]configurator.Cell, len(conflict.Decisions))
	for i, d := range conflict.Decisions {
		held[i] = bm.Cell(d.Feature)
	}
	if len(held) == 0 {
		p.Message = fmt.Sprintf("A %d×%d board has no solution at all, so there is nothing to explain or complete.", bm.N(), bm.N())
		return p
	}
	p.Message = fmt.Sprintf("No solution holds queens on %s together: there is no way to fill the remaining ranks.", configurator.ListCells(held))
	return p
}

// apiAnalyzeBoard is POST /api/v1/analyze with a board: every square's
// state and the solutions left. A board without solutions (2×2, 3×3)
// answers every square blocked and no solution.
func (s *Server) apiAnalyzeBoard(c echo.Context, body []byte) error {
	var req boardRequest
	st, backend, err := s.bodyBoard(body, &req, &req)
	if err != nil {
		return err
	}
	mo, e, err := s.boardSession(c, st, backend)
	if err != nil && (e == nil || len(st.Queens) > 0 || !errors.Is(err, configurator.ErrNoSolution)) {
		return err
	}
	resp := analyzeResponse{N: st.N, Backend: backend, Order: e.Key.Order.String(), Queens: pairs(st.Queens),
		Forced: [][2]int{}, Blocked: [][2]int{}, Free: [][2]int{}, Work: newWorkJSON(e.Space, configurator.Work{})}
	if err != nil {
		for v := range st.N * st.N {
			resp.Blocked = append(resp.Blocked, [2]int{v / st.N, v % st.N})
		}
		resp.Solutions = "0"
		return c.JSON(http.StatusOK, resp)
	}
	defer mo.done()
	d := mo.session.Domains()
	bm := e.Board().Model()
	resp.ElapsedMS, resp.Work = ms(mo.took), newWorkJSON(e.Space, d.Work)
	for f, fst := range d.States {
		switch configurator.BoardState(fst) {
		case configurator.Forced:
			resp.Forced = append(resp.Forced, pair(bm.Cell(f)))
		case configurator.Blocked:
			resp.Blocked = append(resp.Blocked, pair(bm.Cell(f)))
		case configurator.Free:
			resp.Free = append(resp.Free, pair(bm.Cell(f)))
		}
	}
	if d.Configurations != nil {
		resp.Solutions, resp.SolutionsAtLeast = d.Configurations.String(), d.AtLeast
	}
	return c.JSON(http.StatusOK, resp)
}

// apiExplainBoard is POST /api/v1/explain with a board: why a square is
// blocked or forced (FeatureSession.Explain of its feature).
func (s *Server) apiExplainBoard(c echo.Context, body []byte) error {
	var req explainRequest
	st, backend, err := s.bodyBoard(body, &req, &req.boardRequest)
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
	mo, e, err := s.boardSession(c, st, backend)
	if err != nil {
		return err
	}
	defer mo.done()
	bm := e.Board().Model()
	start := time.Now()
	ex, err := mo.session.Explain(mo.ctx, bm.Var(cell))
	if errors.Is(err, configurator.ErrNotForced) {
		p := &problem.Problem{Status: http.StatusUnprocessableEntity, Err: err,
			Message: fmt.Sprintf("%v is free: a queen can go there, so there is nothing to explain.", cell)}
		if mo.session.Domains().States[bm.Var(cell)] == configurator.Selected {
			p.Message = fmt.Sprintf("%v holds your own queen; Why? applies to blocked squares.", cell)
		}
		return p
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newExplainResponse(bm, ex, time.Since(start)))
}

// newExplainResponse writes the explanation of a board's square in the
// board's words (configurator.BoardReason), the attacks first: an attack
// needs no proof.
func newExplainResponse(bm *configurator.Model, ex *configurator.FeatureExplanation, took time.Duration) explainResponse {
	resp := explainResponse{Cell: pair(bm.Cell(ex.Feature)), State: configurator.BoardState(ex.State).String(), Because: [][2]int{},
		Reasons: [][][2]int{}, More: ex.More, Details: []reasonJSON{}, ElapsedMS: ms(took)}
	for i, r := range configurator.BoardReasons(ex) {
		queens := configurator.BoardQueens(bm, r.Decisions)
		kind, text := configurator.BoardReason(bm, ex, r)
		d := reasonJSON{Kind: kind, Text: text}
		if !r.Attack {
			d.Proof = r.Argument
			for _, sol := range r.Solutions {
				d.Solutions = append(d.Solutions, pairs(squares(bm, sol)))
			}
		}
		if i == 0 {
			resp.Kind, resp.Because, resp.Text = kind, pairs(queens), text
		}
		resp.Reasons = append(resp.Reasons, pairs(queens))
		resp.Details = append(resp.Details, d)
	}
	if ex.State == configurator.ForcedOff && !ex.Core {
		resp.MakeRoom, resp.MakeRoomAtLeast = pairs(configurator.BoardQueens(bm, ex.Room)), ex.RoomAtLeast
	}
	return resp
}

// apiCompleteBoard is POST /api/v1/complete with a board: a solution that
// holds the queens, drawn uniformly where the backend samples.
func (s *Server) apiCompleteBoard(c echo.Context, body []byte) error {
	var req boardRequest
	st, backend, err := s.bodyBoard(body, &req, &req)
	if err != nil {
		return err
	}
	mo, e, err := s.boardSession(c, st, backend)
	if err != nil {
		return err
	}
	defer mo.done()
	start := time.Now()
	config, err := mo.session.Complete(mo.ctx, newRand())
	if err != nil {
		return err
	}
	var sol []int
	for f, on := range config {
		if on {
			sol = append(sol, f)
		}
	}
	return c.JSON(http.StatusOK, completeResponse{N: st.N, Backend: backend, Queens: pairs(st.Queens),
		Solution: pairs(squares(e.Board().Model(), sol)), ElapsedMS: ms(mo.took + time.Since(start))})
}

// pair writes a square as a [row, col] pair.
func pair(c configurator.Cell) [2]int { return [2]int{c.Row, c.Col} }
