package board

import (
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
)

// ModelHref is the address of the model page that shows what a board's
// own address asks (/?n=8&q=a1,c5&backend=sat, with its actions): the
// board's model queens-N with those queens selected, so that addresses
// people saved keep working on the one page. The actions are place=c5,
// remove=a1,b3 (also together: make room, then place), why=c5 and room=c5;
// complete=1 and refresh=1, the board page's own, show the board. A size
// that is no board is a 400, and one beyond every backend of the server a
// 413, each in words that name the sizes the server serves; a size some
// backend serves is left to the model page, which says which backend
// answers it. The default board is that of l. The board page's own
// settings (the variable order, the heat map) have no place in the model
// page's address and are dropped.
func ModelHref(v url.Values, l *Lineup) (string, error) {
	for _, name := range append(slices.Clone(stateParams), "place", "remove", "why", "room") {
		if _, err := single(v, name); err != nil {
			return "", err
		}
	}
	n, err := ParseSize(v, l)
	if err != nil {
		return "", err
	}
	queens, err := parseQueens(v.Get("q"), n)
	if err != nil {
		return "", err
	}
	diagram, err := parseFlag(v.Get("diagram"), "diagram")
	if err != nil {
		return "", err
	}
	var acts []string
	for _, name := range []string{"place", "remove", "why", "room", "complete", "refresh"} {
		if v.Has(name) {
			acts = append(acts, name)
		}
	}
	if len(acts) > 1 && !slices.Equal(acts, []string{"place", "remove"}) {
		return "", problem.New(http.StatusBadRequest, "One action at a time, please: the address asks for %s.", strings.Join(acts, " and "))
	}
	remove, err := parseQueens(v.Get("remove"), n)
	if err != nil {
		return "", err
	}
	if v.Has("remove") && len(remove) == 0 {
		return "", problem.New(http.StatusBadRequest, "The parameter \"remove\" names the squares to clear, like a1 or a1,c5.")
	}
	st := modelstate.State{Model: configurator.BoardID(n), Backend: strings.ToLower(v.Get("backend")), Diagram: diagram}
	if st.Backend == l.Primary() {
		st.Backend = ""
	}
	queens = slices.DeleteFunc(queens, func(q configurator.Cell) bool { return slices.Contains(remove, q) })
	room := ""
	for _, name := range []string{"place", "why", "room"} {
		if !v.Has(name) {
			continue
		}
		cells, err := parseQueens(v.Get(name), n)
		if err != nil {
			return "", err
		}
		if len(cells) != 1 {
			return "", problem.New(http.StatusBadRequest, "The parameter %q names one square, like c5.", name)
		}
		switch c := cells[0]; name {
		case "place":
			if !slices.Contains(queens, c) {
				queens = append(queens, c)
			}
		case "why":
			st.Why = c.String()
		case "room":
			room = "&room=" + url.QueryEscape(c.String())
		}
	}
	for _, q := range queens {
		st.Select = append(st.Select, q.String())
	}
	return st.Href() + room, nil
}

// ParseSize reads the size of a board's own address, ?n= (l's default
// board when absent), that some backend of l serves: a whole number from
// 1 to the largest board of any backend, a 400 otherwise, or a 413 past
// every backend.
func ParseSize(v url.Values, l *Lineup) (int, error) {
	s, err := single(v, "n")
	if err != nil || s == "" {
		return l.Default().N, err
	}
	top, hi := l.Primary(), 0
	for _, b := range l.Names() {
		if l.MaxN(b) > hi {
			top, hi = b, l.MaxN(b)
		}
	}
	return parseSize(s, hi, math.MaxInt, func(n int) error { return l.TooLarge(n, Mode(top)) })
}
