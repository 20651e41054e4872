package board

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// Lineup is the backends a board page offers, in the order registered:
// the first is the primary (it leads every comparison and draws the
// diagram). It knows what each states of itself (configurator.Limits) and,
// of those that keep compiled spaces in files (configurator.Filer), what
// their files are.
type Lineup struct {
	names  []string
	limits map[string]configurator.Limits
	filers map[string]configurator.Filer
}

// NewLineup returns the lineup of backends, the primary first; two
// backends of one name are an error.
func NewLineup(backends ...configurator.Backend) (*Lineup, error) {
	if len(backends) == 0 {
		return nil, fmt.Errorf("no backend")
	}
	l := &Lineup{limits: map[string]configurator.Limits{}, filers: map[string]configurator.Filer{}}
	for _, b := range backends {
		name := b.Name()
		if _, dup := l.limits[name]; dup {
			return nil, fmt.Errorf("two backends named %q", name)
		}
		l.names = append(l.names, name)
		l.limits[name] = b.Limits()
		if f, ok := b.(configurator.Filer); ok {
			l.filers[name] = f
		}
	}
	return l, nil
}

// Names lists the backends' names, the primary first.
func (l *Lineup) Names() []string { return slices.Clone(l.names) }

// Primary is the primary backend's name.
func (l *Lineup) Primary() string { return l.names[0] }

// MaxN is the largest board of a backend.
func (l *Lineup) MaxN(backend string) int { return l.limits[backend].MaxN }

// Ordered reports whether a backend's spaces depend on the variable
// order; the others compile one space for every order.
func (l *Lineup) Ordered(backend string) bool { return l.limits[backend].Ordered }

// File is what a backend that keeps compiled spaces in files says of the
// file of the n×n board in order o; ok is false for other backends and
// boards no model has.
func (l *Lineup) File(backend string, n int, o configurator.Order) (f configurator.SpaceFile, ok bool) {
	fl, ok := l.filers[backend]
	if !ok {
		return f, false
	}
	m, err := configurator.New(n, o)
	if err != nil {
		return f, false
	}
	return fl.File(m), true
}

// MissingFile is the 413 problem of an n×n board in order o that backend
// serves from a compiled file alone, when the file is not there: one
// sentence that gives the command that makes it (Command, which the page
// shows as code) and, when mode m is not all there is, the backend to
// switch to. ok is false when the board needs no missing file.
func (l *Lineup) MissingFile(backend string, n int, o configurator.Order, m Mode) (p *problem.Problem, ok bool) {
	f, filer := l.File(backend, n, o)
	if !filer || !f.Missing() {
		return nil, false
	}
	name := strings.ToUpper(backend)
	what := fmt.Sprintf("%d×%d board", n, n)
	if o != configurator.RowMajor {
		what += " in the order " + words.Curly(words.Order(o))
	}
	msg := fmt.Sprintf("The %s backend serves a %s only from its compiled file", name, what)
	if f.Command == "" {
		msg += ", and this server keeps no directory of compiled files"
	} else {
		msg += fmt.Sprintf(", which this server does not have: make it once with %s and restart the server", f.Command)
	}
	p = &problem.Problem{Status: http.StatusRequestEntityTooLarge, Command: f.Command}
	if alt, hi, ok := l.Alternative(n, m); ok {
		msg += fmt.Sprintf(", or switch to %s, which handles boards up to %d×%d", strings.ToUpper(alt), hi, hi)
		p.Alt, p.AltLabel = altBoard(n, alt)
	}
	p.Message = msg + "."
	return p, true
}

// TooLarge is the 413 problem of a board beyond a mode's largest,
// pointing to what would work instead.
func (l *Lineup) TooLarge(n int, m Mode) *problem.Problem {
	for _, b := range l.Backends(m) {
		if l.MaxN(b) >= n {
			continue
		}
		// Served from a file alone, and the file is missing: say how to
		// make it rather than call it a limit.
		if p, ok := l.MissingFile(b, n, configurator.RowMajor, m); ok {
			return p
		}
	}
	hi := l.Max(m)
	msg := fmt.Sprintf("A %d×%d board is beyond the limit of the %s backend (%d×%d", n, n, m.Label(), hi, hi)
	for _, b := range l.Backends(m) {
		if bound := l.limits[b].Bound; bound != "" && l.MaxN(b) == hi {
			msg += ": " + bound
			break
		}
	}
	msg += ")."
	p := &problem.Problem{Status: http.StatusRequestEntityTooLarge}
	if alt, hi, ok := l.Alternative(n, m); ok {
		name := strings.ToUpper(alt)
		msg += fmt.Sprintf(" The %s backend handles boards up to %d×%d: switch to %s.", name, hi, hi, name)
		p.Alt, p.AltLabel = altBoard(n, alt)
	}
	p.Message = msg
	return p
}

// altBoard is the address of the empty n×n board on backend and the
// words of its link.
func altBoard(n int, backend string) (href, label string) {
	href = modelstate.State{Model: configurator.BoardID(n), Backend: backend}.Href()
	return href, fmt.Sprintf("Open the %d×%d board on %s", n, n, strings.ToUpper(backend))
}

// Default is the board a visitor sees first, and the one a page falls
// back to: 8×8 on the primary, or the primary's largest board when that
// is smaller (a board it could not show either).
func (l *Lineup) Default() State {
	m := Mode(l.names[0])
	return State{N: min(8, l.Max(m)), Mode: m}
}

// Modes lists the page's modes: every backend, then all of them when
// there are several.
func (l *Lineup) Modes() []Mode {
	var ms []Mode
	for _, name := range l.names {
		ms = append(ms, Mode(name))
	}
	if len(l.names) > 1 {
		ms = append(ms, All)
	}
	return ms
}

// ParseMode reads a mode by name, any case; ok is false for a name that
// is neither a registered backend nor All.
func (l *Lineup) ParseMode(s string) (m Mode, ok bool) {
	s = strings.ToLower(s)
	if s == string(All) && len(l.names) > 1 {
		return All, true
	}
	if slices.Contains(l.names, s) {
		return Mode(s), true
	}
	return "", false
}

// Backends lists the backends a mode runs, the primary first.
func (l *Lineup) Backends(m Mode) []string {
	if m == All {
		return l.names
	}
	return []string{string(m)}
}

// Max is the largest board a mode allows: the smaller of its backends'.
func (l *Lineup) Max(m Mode) int {
	n := configurator.MaxN
	for _, b := range l.Backends(m) {
		n = min(n, l.MaxN(b))
	}
	return n
}

// Alternative is a backend to suggest for an n×n board that mode m
// cannot take: the first registered one that m is not, whose largest
// board is large enough.
func (l *Lineup) Alternative(n int, m Mode) (name string, maxN int, ok bool) {
	for _, b := range l.names {
		if Mode(b) != m && l.MaxN(b) >= n {
			return b, l.MaxN(b), true
		}
	}
	return "", 0, false
}

// Choices lists the backends' names for a message, "a, b or c", with
// All's at the end when all is set, each between straight quotes when
// quoted is.
func (l *Lineup) Choices(all, quoted bool) string {
	names := slices.Clone(l.names)
	if all && len(names) > 1 {
		names = append(names, string(All))
	}
	for i, n := range names {
		if quoted {
			names[i] = `"` + n + `"`
		}
	}
	return words.List(names, "or")
}
