package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
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
func newWorkJSON(sp configurator.Space, w configurator.Work) workJSON {
	j := workJSON{DomainsMS: ms(w.Domains), CountMS: ms(w.Count)}
	if _, ok := sp.(configurator.Diagrammer); ok || w.Nodes > 0 {
		j.Nodes, j.NodesVisited = &w.Nodes, &w.NodesVisited
		return j
	}
	j.SolverCalls, j.Conflicts, j.Decisions, j.Learned = &w.SolverCalls, &w.Conflicts, &w.Decisions, &w.Learned
	j.ByPropagation, j.ByWitness, j.BySolver = &w.ByPropagation, &w.ByWitness, &w.BySolver
	return j
}

// modelOrBoard is the handler of POST /api/v1/analyze, /explain,
// /complete and /diagram: a model's request (its "model" field) goes to
// model, the board's shorthand to board.
func modelOrBoard(model, board func(echo.Context, []byte) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := readJSON(c)
		if err != nil {
			return err
		}
		if hasField(body, "model") {
			return model(c, body)
		}
		return board(c, body)
	}
}

// decode reads a JSON request body strictly: sent as application/json,
// one object, no unknown fields, each field once and spelled exactly, the
// right types. Its errors are 400s (413 past the body limit, 415 for
// another content type) that say what is wrong and where.
func decode(c echo.Context, v fieldLister) error {
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

// fieldLister is a request type, as every one is, that names its fields
// for the message of an unknown one.
type fieldLister interface{ fields() string }

// decodeJSON is decode's parser, separate for the fuzz test.
func decodeJSON(body []byte, v fieldLister) error {
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
			strings.TrimPrefix(err.Error(), "json: unknown field "), v.fields())
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
func checkFields(body []byte, v fieldLister) error {
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
			return problem.New(http.StatusBadRequest, "Unknown field %s; the fields are %s.", words.Field(name), v.fields())
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
