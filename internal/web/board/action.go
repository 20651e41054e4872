package board

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
)

// Kind is what a click asks of the board.
type Kind uint8

const (
	Show   Kind = iota // show the state (a link, a reload, complete=1, refresh=1)
	Place              // place a queen (after removals, if any)
	Remove             // remove queens
	Why                // explain a blocked or forced square
	Room               // show which queens would go to free a square
)

// Action is a click's action with its squares.
type Action struct {
	Kind   Kind
	Cell   configurator.Cell   // place, why, room
	Remove []configurator.Cell // remove, and the removals before a place
}

// ParseAction reads the action parameters of a request against its
// state: place=c5, remove=a1,b3 (also together: make room, then place),
// why=c5, room=c5; none, or complete=1 or refresh=1 (the board page's own
// actions, which the model page takes no further), means show.
func ParseAction(v url.Values, st State) (Action, error) {
	var a Action
	var names []string
	for _, name := range []string{"place", "remove", "why", "room", "complete", "refresh"} {
		if _, ok := v[name]; ok {
			names = append(names, name)
		}
	}
	if len(names) > 1 && !(len(names) == 2 && names[0] == "place" && names[1] == "remove") {
		return a, problem.New(http.StatusBadRequest, "One action at a time, please: the address asks for %s.", strings.Join(names, " and "))
	}
	cell := func(name string) (configurator.Cell, error) {
		s, err := single(v, name)
		if err != nil {
			return configurator.Cell{}, err
		}
		cells, err := parseQueens(s, st.N)
		if err != nil {
			return configurator.Cell{}, err
		}
		if len(cells) != 1 {
			return configurator.Cell{}, problem.New(http.StatusBadRequest, "The parameter %q names one square, like c5.", name)
		}
		return cells[0], nil
	}
	var err error
	if _, ok := v["remove"]; ok {
		a.Kind = Remove
		s, err := single(v, "remove")
		if err != nil {
			return a, err
		}
		if a.Remove, err = parseQueens(s, st.N); err != nil {
			return a, err
		}
		if len(a.Remove) == 0 {
			return a, problem.New(http.StatusBadRequest, "The parameter \"remove\" names the squares to clear, like a1 or a1,c5.")
		}
	}
	switch {
	case v.Has("place"):
		a.Kind = Place
		a.Cell, err = cell("place")
	case v.Has("why"):
		a.Kind = Why
		a.Cell, err = cell("why")
	case v.Has("room"):
		a.Kind = Room
		a.Cell, err = cell("room")
	}
	return a, err
}
