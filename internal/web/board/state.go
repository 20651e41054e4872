// Package board is a board's state as its shorthands carry it: the saved
// address of a board, /?n=8&q=a1,c5[&auto=c5]&backend=NAME[&order=col]
// [&heat=1][&diagram=1] with the action a click asked for (place, remove,
// why, make room), which ModelHref turns into the one page's address of
// the board as a model; and the board's state the JSON API's shorthand
// reads (State). With it are the timing trail the page carries from click
// to click and the lineup of backends the server offers. Its refusals are
// problems in words. It renders nothing and runs nothing: the server
// steps, the views show.
package board

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// Mode is the backend choice of the page: the name of one registered
// backend, or All, every backend side by side.
type Mode string

// All runs every registered backend, the primary first, and compares
// each with it. The page calls it Both.
const All Mode = "both"

// Label is the mode's name on the page.
func (m Mode) Label() string {
	if m == All {
		return "Both"
	}
	return strings.ToUpper(string(m))
}

// State is a board as the JSON API's shorthand reads it.
type State struct {
	N      int
	Queens []configurator.Cell // the user's queens, in placement order
	Mode   Mode
	Order  configurator.Order
}

// single returns the one value of a query parameter, "" when absent, and a
// problem when the parameter is repeated (which would make the state
// ambiguous).
func single(v url.Values, name string) (string, error) {
	switch vs := v[name]; len(vs) {
	case 0:
		return "", nil
	case 1:
		return vs[0], nil
	}
	return "", problem.New(http.StatusBadRequest, "The parameter %q appears more than once in the address; give it once.", name)
}

// stateParams are the query parameters of a board's own address.
var stateParams = []string{"n", "q", "auto", "backend", "order", "heat", "diagram"}

// parseSize reads a board size from 1 to hi: past limit a 400 says it is
// out of range, and past hi otherwise tooLarge says why.
func parseSize(s string, hi, limit int, tooLarge func(n int) error) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, problem.New(http.StatusBadRequest, "Board size %s is out of range: pick a size from 1 to %d.", words.Quote(s), hi)
	case err != nil:
		return 0, problem.New(http.StatusBadRequest, "Board size %s is not a whole number: pick a size from 1 to %d.", words.Quote(s), hi)
	case n < 1 || n > limit:
		return 0, problem.New(http.StatusBadRequest, "Board size %d is out of range: pick a size from 1 to %d.", n, hi)
	case n > hi:
		return 0, tooLarge(n)
	}
	return n, nil
}

// parseFlag reads an on/off parameter.
func parseFlag(s, name string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "0", "off", "false":
		return false, nil
	case "1", "on", "true":
		return true, nil
	}
	return false, problem.New(http.StatusBadRequest, "The parameter %q takes 1 or 0, not %s.", name, words.Quote(s))
}

// parseQueens reads the queens of an n×n board in chess notation and checks
// them: on the board, each at most once, and no more than a solution holds.
// With an error it returns the queens read before the fault (the first n
// when there are too many), so that a page can show them.
func parseQueens(s string, n int) ([]configurator.Cell, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > n*n {
		return nil, problem.New(http.StatusBadRequest, "The address lists %d queens, more than the %d squares of a %d×%d board.", len(parts), n*n, n, n)
	}
	queens := make([]configurator.Cell, 0, len(parts))
	for _, p := range parts {
		c, err := configurator.ParseCell(p)
		if err != nil {
			if strings.TrimSpace(p) == "" {
				return queens, problem.New(http.StatusBadRequest, "The list of queens has an empty entry; name squares like a1 or c5, separated by commas.")
			}
			return queens, problem.New(http.StatusBadRequest, "%s is not a square: name squares by file letter and rank, like a1 or c5.", words.Quote(p))
		}
		if c.Row >= n || c.Col >= n {
			return queens, problem.New(http.StatusBadRequest, "%s is off the %d×%d board.", words.Quote(p), n, n)
		}
		if slices.Contains(queens, c) {
			return queens, problem.New(http.StatusBadRequest, "%v is listed twice among the queens.", c)
		}
		queens = append(queens, c)
	}
	if len(queens) > n {
		return queens[:n], problem.New(http.StatusUnprocessableEntity, "A solution on a %d×%d board has %d queens; the address lists %d.", n, n, n, len(queens))
	}
	return queens, nil
}
