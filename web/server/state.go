package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// mode is the backend choice of the page: the name of one registered
// backend, or modeAll, every backend side by side.
type mode string

// modeAll runs every registered backend, the primary first, and compares
// each with it. The page calls it Both, after the two it was made for.
const modeAll mode = "both"

// label is the mode's name on the page.
func (m mode) label() string {
	if m == modeAll {
		return "Both"
	}
	return strings.ToUpper(string(m))
}

// boardState is everything the page shows, exactly as the URL carries it:
// /?n=8&q=a1,c5[&auto=c5]&backend=NAME[&order=col][&heat=1][&diagram=1].
// The server keeps no session; this is the session.
type boardState struct {
	N      int
	Queens []configurator.Cell // the user's queens, in placement order
	// Auto lists the queens of Queens that Complete filled in, so that
	// the page shows them apart from those placed by hand.
	Auto    []configurator.Cell
	Mode    mode
	Order   configurator.Order
	Heat    bool
	Diagram bool
}

// orderLabels are the variable orders as the page names them.
var orderLabels = map[configurator.Order]string{
	configurator.RowMajor:  "rank by rank",
	configurator.ColMajor:  "file by file",
	configurator.Diagonal:  "by diagonal",
	configurator.MiddleOut: "middle ranks first",
}

// limits is what the server accepts: the registered backends, in order
// (the first is the primary: it leads every comparison and draws the
// diagram), and the largest board of each.
type limits struct {
	names []string
	maxN  map[string]int // backend name -> largest N
	// why says, for a backend whose limit comes from its memory budget
	// rather than its flag, what the budget holds.
	why map[string]string
	// ordered marks the backends whose spaces depend on the variable
	// order; the others compile one space for every order.
	ordered map[string]bool
	// filers are the backends that keep compiled spaces in files
	// (configurator.Filer), by name.
	filers map[string]configurator.Filer
}

// file is what a backend that keeps compiled spaces in files says of the
// file of the n×n board in order o; ok is false for other backends and
// boards no model has.
func (l limits) file(backend string, n int, o configurator.Order) (f configurator.SpaceFile, ok bool) {
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

// missingFile is the 413 problem of an n×n board in order o that backend
// serves from a compiled file alone, when the file is not there: one
// sentence that gives the command that makes it (Command, which the page
// shows as code) and, when mode m is not all there is, the backend to
// switch to. ok is false when the board needs no missing file.
func (l limits) missingFile(backend string, n int, o configurator.Order, m mode) (p *problem, ok bool) {
	f, filer := l.file(backend, n, o)
	if !filer || !f.Missing() {
		return nil, false
	}
	name := strings.ToUpper(backend)
	what := fmt.Sprintf("%d×%d board", n, n)
	if o != configurator.RowMajor {
		what += " in the order " + quoteLabel(orderLabels[o])
	}
	msg := fmt.Sprintf("The %s backend serves a %s only from its compiled file", name, what)
	if f.Command == "" {
		msg += ", and this server keeps no directory of compiled files"
	} else {
		msg += fmt.Sprintf(", which this server does not have: make it once with %s and restart the server", f.Command)
	}
	if alt, hi, ok := l.alternative(n, m); ok {
		msg += fmt.Sprintf(", or switch to %s, which handles boards up to %d×%d", strings.ToUpper(alt), hi, hi)
	}
	return &problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", Command: f.Command}, true
}

// defaultState is the board a visitor sees first, and the one a page falls
// back to: 8×8 on the primary, or the primary's largest board when that
// is smaller (a board it could not show either).
func (l limits) defaultState() boardState {
	m := mode(l.names[0])
	return boardState{N: min(8, l.max(m)), Mode: m}
}

// modes lists the page's modes: every backend, then all of them when
// there are several.
func (l limits) modes() []mode {
	var ms []mode
	for _, name := range l.names {
		ms = append(ms, mode(name))
	}
	if len(l.names) > 1 {
		ms = append(ms, modeAll)
	}
	return ms
}

// parseMode reads a mode by name, any case; ok is false for a name that
// is neither a registered backend nor modeAll.
func (l limits) parseMode(s string) (m mode, ok bool) {
	s = strings.ToLower(s)
	if s == string(modeAll) && len(l.names) > 1 {
		return modeAll, true
	}
	if slices.Contains(l.names, s) {
		return mode(s), true
	}
	return "", false
}

// backends lists the backends a mode runs, the primary first.
func (l limits) backends(m mode) []string {
	if m == modeAll {
		return l.names
	}
	return []string{string(m)}
}

// max is the largest board a mode allows: the smaller of its backends'.
func (l limits) max(m mode) int {
	n := configurator.MaxN
	for _, b := range l.backends(m) {
		n = min(n, l.maxN[b])
	}
	return n
}

// alternative is a backend to suggest for an n×n board that mode m
// cannot take: the first registered one that m is not, whose largest
// board is large enough.
func (l limits) alternative(n int, m mode) (name string, maxN int, ok bool) {
	for _, b := range l.names {
		if mode(b) != m && l.maxN[b] >= n {
			return b, l.maxN[b], true
		}
	}
	return "", 0, false
}

// choices lists the backends' names for a message, "a, b or c", with
// modeAll's at the end when all is set, each between straight quotes when
// quoted is.
func (l limits) choices(all, quoted bool) string {
	names := slices.Clone(l.names)
	if all && len(names) > 1 {
		names = append(names, string(modeAll))
	}
	for i, n := range names {
		if quoted {
			names[i] = `"` + n + `"`
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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
	return "", problemf(http.StatusBadRequest, "The parameter %q appears more than once in the address; give it once.", name)
}

// stateParams are the query parameters of a board state.
var stateParams = []string{"n", "q", "auto", "backend", "order", "heat", "diagram"}

// parseState reads a board state from query parameters. Absent parameters
// take their defaults; anything malformed is a 400 problem in words, and a
// board beyond the backend's limit a 413. The state returned is valid even
// with an error: the fields read before the fault, defaults for the rest,
// so that the page can still show a board.
func parseState(v url.Values, lim limits) (boardState, error) {
	st := lim.defaultState()
	for _, name := range stateParams {
		if _, err := single(v, name); err != nil {
			return st, err
		}
	}
	if s := v.Get("backend"); s != "" {
		m, ok := lim.parseMode(s)
		if !ok {
			return st, problemf(http.StatusBadRequest, "%s is not a backend: choose %s.", quote(s), lim.choices(true, false))
		}
		st.Mode = m
	}
	if s := v.Get("n"); s != "" {
		n, err := parseSize(s, st.Mode, lim)
		if err != nil {
			return st, err
		}
		st.N = n
	}
	if s := v.Get("order"); s != "" {
		o, err := configurator.ParseOrder(strings.ToLower(s))
		if err != nil {
			return st, problemf(http.StatusBadRequest, "%s is not a variable order: choose row, col, diag or middle.", quote(s))
		}
		st.Order = o
	}
	heat, err := parseFlag(v.Get("heat"), "heat")
	if err != nil {
		return st, err
	}
	st.Heat = heat
	diagram, err := parseFlag(v.Get("diagram"), "diagram")
	if err != nil {
		return st, err
	}
	st.Diagram = diagram
	queens, err := parseQueens(v.Get("q"), st.N)
	if err != nil {
		return st, err
	}
	st.Queens = queens
	auto, err := parseQueens(v.Get("auto"), st.N)
	if err != nil {
		return st, err
	}
	// A square of auto without a queen is dropped, as a step would.
	st.Auto = auto
	st.keepAuto(nil, false)
	return st, nil
}

// keepAuto updates the queens Complete filled in after a step from the
// queens before it: a completion adds the queens it placed, and every step
// keeps only those still on the board, so that the address stays honest.
func (st *boardState) keepAuto(before []configurator.Cell, completed bool) {
	var auto []configurator.Cell
	for _, q := range st.Queens {
		if slices.Contains(st.Auto, q) || completed && !slices.Contains(before, q) {
			auto = append(auto, q)
		}
	}
	st.Auto = auto
}

// parseSize reads a board size and checks it against the mode's limit.
func parseSize(s string, m mode, lim limits) (int, error) {
	hi := lim.max(m)
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, problemf(http.StatusBadRequest, "Board size %s is not a whole number: pick a size from 1 to %d.", quote(s), hi)
	}
	if n < 1 || n > configurator.MaxN {
		return 0, problemf(http.StatusBadRequest, "Board size %d is out of range: pick a size from 1 to %d.", n, hi)
	}
	if n > hi {
		return 0, tooLarge(n, m, lim)
	}
	return n, nil
}

// tooLarge is the 413 problem of a board beyond a mode's limit, pointing to
// what would work instead.
func tooLarge(n int, m mode, lim limits) *problem {
	for _, b := range lim.backends(m) {
		if lim.maxN[b] >= n {
			continue
		}
		// Served from a file alone, and the file is missing: say how to
		// make it rather than call it a limit.
		if p, ok := lim.missingFile(b, n, configurator.RowMajor, m); ok {
			return p
		}
	}
	msg := fmt.Sprintf("A %d×%d board is beyond the limit of the %s backend (%d×%d", n, n, m.label(), lim.max(m), lim.max(m))
	for _, b := range lim.backends(m) {
		if why := lim.why[b]; why != "" && lim.maxN[b] == lim.max(m) {
			msg += ": " + why
			break
		}
	}
	msg += ")."
	if alt, hi, ok := lim.alternative(n, m); ok {
		name := strings.ToUpper(alt)
		msg += fmt.Sprintf(" The %s backend handles boards up to %d×%d: switch to %s.", name, hi, hi, name)
	}
	return &problem{Status: http.StatusRequestEntityTooLarge, Message: msg}
}

// parseFlag reads an on/off parameter.
func parseFlag(s, name string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "0", "off", "false":
		return false, nil
	case "1", "on", "true":
		return true, nil
	}
	return false, problemf(http.StatusBadRequest, "The parameter %q takes 1 or 0, not %s.", name, quote(s))
}

// parseQueens reads the queens of an n×n board in chess notation and checks
// them: on the board, each at most once, and no more than a solution holds.
func parseQueens(s string, n int) ([]configurator.Cell, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > n*n {
		return nil, problemf(http.StatusBadRequest, "The address lists %d queens, more than the %d squares of a %d×%d board.", len(parts), n*n, n, n)
	}
	queens := make([]configurator.Cell, 0, len(parts))
	for _, p := range parts {
		c, err := configurator.ParseCell(p)
		if err != nil {
			if strings.TrimSpace(p) == "" {
				return nil, problemf(http.StatusBadRequest, "The list of queens has an empty entry; name squares like a1 or c5, separated by commas.")
			}
			return nil, problemf(http.StatusBadRequest, "%s is not a square: name squares by file letter and rank, like a1 or c5.", quote(p))
		}
		if c.Row >= n || c.Col >= n {
			return nil, problemf(http.StatusBadRequest, "%s is off the %d×%d board.", quote(p), n, n)
		}
		if slices.Contains(queens, c) {
			return nil, problemf(http.StatusBadRequest, "%v is listed twice among the queens.", c)
		}
		queens = append(queens, c)
	}
	if len(queens) > n {
		return nil, problemf(http.StatusUnprocessableEntity, "A solution on a %d×%d board has %d queens; the address lists %d.", n, n, n, len(queens))
	}
	return queens, nil
}

// query is the canonical query string of the state: parameters in a fixed
// order, defaults of order, heat and diagram left out, and the commas of
// the queen list kept readable.
func (st boardState) query() string {
	var b strings.Builder
	fmt.Fprintf(&b, "n=%d", st.N)
	if len(st.Queens) > 0 {
		b.WriteString("&q=" + configurator.FormatCells(st.Queens))
	}
	if len(st.Auto) > 0 {
		b.WriteString("&auto=" + configurator.FormatCells(st.Auto))
	}
	b.WriteString("&backend=" + string(st.Mode))
	if st.Order != configurator.RowMajor {
		b.WriteString("&order=" + st.Order.String())
	}
	if st.Heat {
		b.WriteString("&heat=1")
	}
	if st.Diagram {
		b.WriteString("&diagram=1")
	}
	return b.String()
}

// href is the state's shareable address.
func (st boardState) href() string { return "/?" + st.query() }

// with returns a copy of the state changed by f; the queen slice is
// copied, so f may change it freely.
func (st boardState) with(f func(*boardState)) boardState {
	st.Queens = slices.Clone(st.Queens)
	st.Auto = slices.Clone(st.Auto)
	f(&st)
	st.keepAuto(nil, false)
	return st
}

// play is the address of an htmx request from this state: the state, the
// timing trail of the recent steps, and the action's parameters as
// name-value pairs.
func (st boardState) play(trail string, kv ...string) string {
	var b strings.Builder
	b.WriteString("/play?" + st.query())
	if trail != "" {
		b.WriteString("&t=" + url.QueryEscape(trail))
	}
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("&" + kv[i] + "=" + strings.ReplaceAll(url.QueryEscape(kv[i+1]), "%2C", ","))
	}
	return b.String()
}

// actionKind is what a request asks of the board.
type actionKind uint8

const (
	actShow     actionKind = iota // show the state (a link, a reload)
	actRefresh                    // show it again after a compile finished
	actPlace                      // place a queen (after removals, if any)
	actRemove                     // remove queens
	actWhy                        // explain a blocked or forced square
	actRoom                       // show which queens would go to free a square
	actComplete                   // fill in a random solution
)

// action is the request's action with its squares.
type action struct {
	Kind   actionKind
	Cell   configurator.Cell   // place, why, room
	Remove []configurator.Cell // remove, and the removals before a place
}

// changesState reports whether the action leads to a new board state, whose
// address the browser's history should record.
func (a action) changesState() bool {
	return a.Kind == actPlace || a.Kind == actRemove || a.Kind == actComplete || a.Kind == actShow
}

// parseAction reads the action parameters of a request against its state:
// place=c5, remove=a1,b3 (also together: make room, then place), why=c5,
// room=c5, complete=1, refresh=1; none means show.
func parseAction(v url.Values, st boardState) (action, error) {
	var a action
	var names []string
	for _, name := range []string{"place", "remove", "why", "room", "complete", "refresh"} {
		if _, ok := v[name]; ok {
			names = append(names, name)
		}
	}
	if len(names) > 1 && !(len(names) == 2 && names[0] == "place" && names[1] == "remove") {
		return a, problemf(http.StatusBadRequest, "One action at a time, please: the address asks for %s.", strings.Join(names, " and "))
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
			return configurator.Cell{}, problemf(http.StatusBadRequest, "The parameter %q names one square, like c5.", name)
		}
		return cells[0], nil
	}
	var err error
	if _, ok := v["remove"]; ok {
		a.Kind = actRemove
		s, err := single(v, "remove")
		if err != nil {
			return a, err
		}
		if a.Remove, err = parseQueens(s, st.N); err != nil {
			return a, err
		}
		if len(a.Remove) == 0 {
			return a, problemf(http.StatusBadRequest, "The parameter \"remove\" names the squares to clear, like a1 or a1,c5.")
		}
	}
	switch {
	case v.Has("place"):
		a.Kind = actPlace
		a.Cell, err = cell("place")
	case v.Has("why"):
		a.Kind = actWhy
		a.Cell, err = cell("why")
	case v.Has("room"):
		a.Kind = actRoom
		a.Cell, err = cell("room")
	case v.Has("complete"):
		a.Kind = actComplete
	case v.Has("refresh"):
		a.Kind = actRefresh
	}
	return a, err
}

// A step is one request's entry in the timing panel: what was done, on
// which board size, and how long each backend took (0 = did not run).
// Steps travel with htmx requests in the parameter t, so the panel shows
// the last few steps without the server keeping anything: the trail is
// not part of the shareable address, and a reload starts it afresh.
type step struct {
	Label string
	N     int
	Times []time.Duration // one per registered backend, in order
}

// maxSteps is how many steps the trail keeps, and maxTimes how many
// backends' times a step may carry.
const (
	maxSteps = 6
	maxTimes = 8
)

// parseTrail reads a timing trail leniently: it is decoration that the
// server wrote itself, so an entry that does not parse is dropped rather
// than refused. Anyone can write an address with a trail, though, so an
// entry with a time no request could have taken (beyond most, the
// request deadline) is dropped too: a forged trail can show only
// plausible timings, never "9223372037 s".
func parseTrail(s string, most time.Duration) []step {
	var steps []step
entries:
	for entry := range strings.SplitSeq(s, "~") {
		if len(steps) == maxSteps {
			break
		}
		f := strings.Split(entry, "_")
		if len(f) < 3 || len(f) > 2+maxTimes || !validLabel(f[0]) {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 || n > configurator.MaxN {
			continue
		}
		st := step{Label: f[0], N: n}
		for _, t := range f[2:] {
			d, err := strconv.ParseInt(t, 10, 64)
			if err != nil || d < 0 || time.Duration(d) > most {
				continue entries
			}
			st.Times = append(st.Times, time.Duration(d))
		}
		steps = append(steps, st)
	}
	return steps
}

// formatTrail writes steps for the parameter t, newest first.
func formatTrail(steps []step) string {
	parts := make([]string, 0, len(steps))
	for _, s := range steps {
		var b strings.Builder
		fmt.Fprintf(&b, "%s_%d", s.Label, s.N)
		for _, d := range s.Times {
			fmt.Fprintf(&b, "_%d", d.Nanoseconds())
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "~")
}

// validLabel reports whether a trail label is one the server could have
// written: short, lower-case letters, digits, spaces and + - , only.
func validLabel(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(" +-,", r)) {
			return false
		}
	}
	return true
}
