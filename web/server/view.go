package server

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// The view types below are what the templates render; they hold strings
// ready to print, so that the templates stay free of logic.

// pageView is a whole page around the app.
type pageView struct {
	Title   string
	Version string
	App     *appView
}

// link is an action of the page: Href is the shareable address (for a
// new tab, or without JavaScript), Play the htmx request.
type link struct {
	Label, Href, Play, Title string
	Current, Primary         bool
}

// field is a hidden input of a form.
type field struct{ Name, Value string }

// option is an entry of a select.
type option struct {
	Value, Label string
	Selected     bool
}

// setting is the form of a select that changes one setting, the board's
// size or the variable order, as soon as it changes.
type setting struct {
	ID, Name     string // the select's id (and the form's class), the query parameter it sets
	Label, Title string
	Options      []option
	Hidden       []field // the other settings
	// Disabled is set, with Reason, where the setting has no effect.
	Disabled bool
	Reason   string
}

// notice is a message above the board: Text, then Command (a command
// line the message gives, shown as code) and After, the rest of the
// sentence.
type notice struct {
	Kind                 string // "error" or "info"
	Text, Command, After string
	Status               int
}

// appView is the interactive part of the page, which every htmx request
// replaces as a whole.
type appView struct {
	State boardState
	Trail string // the timing trail the next request carries
	// Shown is the address of the board a whole page shows when it may
	// not be the one its address asks for (the page's board fell back,
	// see Server.fail): address.js puts it in the address bar, as htmx
	// does for a fragment, so that the address, a reload and the list of
	// steps say what the page shows. "" leaves the address alone.
	Shown string
	Max   int // largest board of the mode

	Fatal      bool // no board to show: only the controls and the notice
	Notice     *notice
	Compiling  *compilingView
	Unsolvable bool
	Board      *boardView

	Count       string // "92 solutions"
	CountNote   string // the other backend's count, in Both
	Solved      bool
	CanComplete bool

	Size, Order                                       setting
	Modes                                             []link
	Reset, Complete, HeatToggle, DiagramToggle, Close link
	Hidden                                            []field // the state, for the board form

	Panel     *panelView
	Agreement *agreementView
	Timing    timingView
	Orders    *ordersView // the order panel, where an ordered backend runs
	Scaling   *chartView  // how each backend scales with N, from the benchmarks
	// ModeNote says what switching to a mode whose limit is below the
	// board does, before anyone clicks.
	ModeNote string
	Heat     heatView
	Diagram  diagramView
}

// boardView is the grid.
type boardView struct {
	N       int
	Hottest int // the largest share of a free square, in percent (heat map)
	Label   string
	Size    string // a CSS class by board size
	Rows    []rowView
	Files   []string
}

type rowView struct {
	Rank  int
	Cells []cellView
}

// cellView is one square: a button whose name and value say what a click
// does (place, remove, or why).
type cellView struct {
	ID, Name      string
	Param         string
	Class         string
	Label         string
	Title         string // queens and forced squares only ("" elsewhere: app.js derives it)
	Tab           int
	Glyph         string // "queen", "forced" or ""
	Disabled      bool
	HeatPercent   string
	Because, Gone bool
}

// agreementView is the badge of Both.
type agreementView struct {
	Agree   bool
	Text    string
	Details []string
}

// heatView is the heat map's toggle and legend.
type heatView struct {
	On, Available bool
	Reason        string
	Took          string
	Hottest       string // the legend's top: the largest share on the board
	// Forced is set when no free square is left to shade: every square
	// is a queen, forced or blocked, so exactly one solution remains and
	// a share of 0% would be false.
	Forced bool
}

// diagramView is the decision diagram's panel: what the viewer
// (frontend/static/diagram.js) asks /api/v1/diagram for, or why there is
// no diagram.
type diagramView struct {
	On, Available bool
	Reason        string
	N             int
	Queens        string // JSON [row, col] pairs, as the API takes them
	Order         string
	// Src is the Graphviz drawing of the restricted diagram, when it has
	// at most Config.DiagramNodes nodes.
	Src   string
	Nodes string
}

// compilingView shows a compile in progress; the page listens to its
// progress stream and reloads the board when it is done.
type compilingView struct {
	Text    string
	Events  string
	Refresh string
}

// noticeOf turns a problem into a notice.
func noticeOf(p *problem) *notice {
	kind := "error"
	if p.Status < 400 {
		kind = "info"
	}
	n := &notice{Kind: kind, Text: p.Message, Status: p.Status}
	if before, after, ok := strings.Cut(p.Message, p.Command); ok && p.Command != "" {
		n.Text, n.Command, n.After = before, p.Command, after
	}
	return n
}

// Title is the browser tab's title: the board's size when there is a
// board. The full page puts it in <title>; a swapped fragment carries it
// in #app's data-title, which app.js copies, so the tab follows the board.
func (v *appView) Title() string {
	if v.Board == nil {
		return "N-Queens configurator"
	}
	return fmt.Sprintf("%d×%d · N-Queens configurator", v.State.N, v.State.N)
}

// pageView wraps an app view into a page.
func (s *Server) pageView(app *appView) *pageView {
	return &pageView{Title: app.Title(), Version: s.version, App: app}
}

// newAppView fills in the controls of a state: everything but the board.
func (s *Server) newAppView(st boardState, trail string) *appView {
	v := &appView{State: st, Trail: trail, Max: s.lim.max(st.Mode),
		Size:  setting{ID: "size", Name: "n", Label: "Board"},
		Order: setting{ID: "order", Name: "order", Label: "Variable order", Title: "The order of the BDD's variables changes its size, never its answers"}}
	for n := 1; n <= v.Max; n++ {
		v.Size.Options = append(v.Size.Options, option{Value: strconv.Itoa(n), Label: fmt.Sprintf("%d × %d", n, n), Selected: n == st.N})
	}
	for _, o := range configurator.Orders() {
		opt := option{Value: o.String(), Label: orderLabels[o], Selected: o == st.Order}
		switch verb := s.longPrep(st.with(func(b *boardState) { b.Order = o })); verb {
		case "compiles", "loads":
			// Choosing it starts a compile, or a load, of seconds: the
			// menu says so before anyone chooses.
			opt.Label += " (" + verb + " first)"
		case "":
		default:
			opt.Label += " (" + verb + ")"
		}
		v.Order.Options = append(v.Order.Options, opt)
	}
	// nav links to another state; step names it in the timing panel.
	nav := func(label, title, step string, next boardState) link {
		return link{Label: label, Title: title, Href: next.href(), Play: next.play(trail, "l", step)}
	}
	var smaller []string // the modes whose limit is below the board
	for _, m := range s.lim.modes() {
		next := st.with(func(b *boardState) { b.Mode = m })
		title := s.modeTitle(m)
		if hi := s.lim.max(m); st.N > hi {
			next.N, next.Queens = hi, fitting(st.Queens, hi)
			title += fmt.Sprintf(" (up to %d×%d: the board shrinks to %d×%d and keeps the queens on it)", hi, hi, hi, hi)
			smaller = append(smaller, m.label())
			if v.ModeNote == "" {
				v.ModeNote = s.shrinkNote(st, next, smaller)
			}
		}
		l := nav(m.label(), title, "use "+string(m), next)
		l.Current = m == st.Mode
		v.Modes = append(v.Modes, l)
	}
	if len(smaller) > 1 {
		// The note names every mode that shrinks; they share the first's
		// limit or a larger one, which the titles give.
		v.ModeNote = strings.Replace(v.ModeNote, smaller[0]+" goes", listNames(smaller)+" go", 1)
	}
	if !slices.ContainsFunc(s.lim.backends(st.Mode), func(b string) bool { return s.lim.ordered[b] }) {
		v.Order.Disabled = true
		v.Order.Reason = fmt.Sprintf("The %s backend ignores the variable order: only a decision diagram depends on it", st.Mode.label())
	}
	v.Reset = nav("Reset", "Remove every queen", "reset", st.with(func(b *boardState) { b.Queens = nil }))
	v.HeatToggle = nav("Heat map", "Shade each free square by the share of remaining solutions with a queen there",
		onOff("heat", !st.Heat), st.with(func(b *boardState) { b.Heat = !b.Heat }))
	v.HeatToggle.Current = st.Heat
	v.DiagramToggle = nav("Diagram", "Show the decision diagram of the remaining solutions",
		onOff("diagram", !st.Diagram), st.with(func(b *boardState) { b.Diagram = !b.Diagram }))
	v.DiagramToggle.Current = st.Diagram
	v.Complete = link{Label: "Complete", Title: "Fill in a random solution that keeps your queens",
		Href: st.play("", "complete", "1"), Play: st.play(trail, "complete", "1")}
	v.Close = nav("Close", "Close this panel", "close", st)

	v.Hidden = stateFields(st, trail)
	v.Size.Hidden = []field{{"backend", string(st.Mode)}, {"l", "size"}}
	v.Order.Hidden = []field{{"n", strconv.Itoa(st.N)}, {"q", configurator.FormatCells(st.Queens)}, {"auto", configurator.FormatCells(st.Auto)}, {"backend", string(st.Mode)}, {"l", "order"}}
	for _, f := range []*[]field{&v.Size.Hidden, &v.Order.Hidden} {
		if st.Heat {
			*f = append(*f, field{"heat", "1"})
		}
		if st.Diagram {
			*f = append(*f, field{"diagram", "1"})
		}
		if trail != "" {
			*f = append(*f, field{"t", trail})
		}
	}
	if st.Order != configurator.RowMajor {
		v.Size.Hidden = append(v.Size.Hidden, field{"order", st.Order.String()})
	}
	v.Heat = heatView{On: st.Heat}
	v.Diagram = diagramView{On: st.Diagram}
	return v
}

// fitting keeps the queens that lie on an n×n board, in their order.
func fitting(queens []configurator.Cell, n int) []configurator.Cell {
	var kept []configurator.Cell
	for _, q := range queens {
		if q.Row < n && q.Col < n {
			kept = append(kept, q)
		}
	}
	return kept
}

// shrinkNote says, before anyone clicks, what switching to a mode whose
// limit is below the board does: the smaller board, the queens kept and
// dropped, and a long compile when the smaller board is not cached yet.
func (s *Server) shrinkNote(st, next boardState, modes []string) string {
	note := fmt.Sprintf("%s goes up to %d×%d: switching shrinks the board to %d×%d", modes[0], next.N, next.N, next.N, next.N)
	switch dropped := len(st.Queens) - len(next.Queens); {
	case len(st.Queens) == 0:
	case dropped == 0:
		note += ", keeping all your queens"
	case len(next.Queens) == 0:
		note += ", where none of your queens fit"
	default:
		note += fmt.Sprintf(", keeping %s; %d of your queens lie beyond it", configurator.ListCells(next.Queens), dropped)
	}
	note += "."
	switch s.longPrep(next) { // a missing file: the switch itself says so
	case "compiles":
		note += fmt.Sprintf(" The %d×%d board is not compiled yet: the switch compiles it first, which takes a while (the page shows its progress and stays usable).",
			next.N, next.N)
	case "loads":
		note += fmt.Sprintf(" The %d×%d board is not in memory yet: the switch loads it from its compiled file first, which takes a while (the page shows its progress and stays usable).",
			next.N, next.N)
	}
	return note
}

// longPrep says how showing st begins when it needs a large space that
// the cache does not hold yet: "compiles", or "loads" when each such space
// is loaded from its compiled file; "not on disk" when one is
// served from a compiled file alone and the file is missing (showing it
// is refused); "" when it needs none.
func (s *Server) longPrep(st boardState) string {
	verb := ""
	for _, b := range s.lim.backends(st.Mode) {
		k := s.key(b, st)
		if s.cache.Cached(k) || !s.heavyCompile(k) {
			continue
		}
		f, ok := s.loading(k)
		switch {
		case f.Missing():
			return "not on disk"
		case !ok:
			verb = "compiles"
		case verb == "":
			verb = "loads"
		}
	}
	return verb
}

// modeTitle says what a mode does: its backend's title, or for all of
// them that they are compared.
func (s *Server) modeTitle(m mode) string {
	if m != modeAll {
		return s.backends[string(m)].Title
	}
	if len(s.engines) == 2 {
		return "Run both backends and compare their answers"
	}
	return fmt.Sprintf("Run all %d backends and compare their answers with the %s's", len(s.engines), strings.ToUpper(s.lim.names[0]))
}

// onOff names a toggle's step: "heat on", "heat off".
func onOff(name string, on bool) string {
	if on {
		return name + " on"
	}
	return name + " off"
}

// stateFields is the state as hidden inputs.
func stateFields(st boardState, trail string) []field {
	f := []field{{"n", strconv.Itoa(st.N)}, {"backend", string(st.Mode)}}
	if len(st.Queens) > 0 {
		f = append(f, field{"q", configurator.FormatCells(st.Queens)})
	}
	if len(st.Auto) > 0 {
		f = append(f, field{"auto", configurator.FormatCells(st.Auto)})
	}
	if st.Order != configurator.RowMajor {
		f = append(f, field{"order", st.Order.String()})
	}
	if st.Heat {
		f = append(f, field{"heat", "1"})
	}
	if st.Diagram {
		f = append(f, field{"diagram", "1"})
	}
	if trail != "" {
		f = append(f, field{"t", trail})
	}
	return f
}

// resultView renders a step's result.
func (s *Server) resultView(r *result, trail []step) *appView {
	st := r.state
	p := r.primary()
	cur := step{Label: r.label(), N: st.N}
	if (r.act.Kind == actShow || r.act.Kind == actRefresh) && r.name != "" {
		cur.Label = r.name
	}
	if r.act.Kind == actRefresh && r.name == "" {
		// The board that a compile was waited for: its first step, which
		// the compile line times apart.
		cur.Label = "first step"
	}
	cur.Times = make([]time.Duration, len(s.lim.names))
	for _, o := range r.runs {
		if i := slices.Index(s.lim.names, o.Backend); i >= 0 {
			cur.Times[i] = o.took
		}
	}
	var kept []step
	for _, t := range trail {
		if t.N == st.N && len(kept) < maxSteps-1 {
			kept = append(kept, t)
		}
	}
	steps := append([]step{cur}, kept...)
	v := s.newAppView(st, formatTrail(steps))
	v.Timing = s.timingView(r, steps)
	v.Scaling = scalingChart()
	if len(trail) > 0 && trail[0].N > st.N && strings.HasPrefix(r.name, "use ") {
		kept := "without queens"
		if len(st.Queens) > 0 {
			kept = "keeping " + configurator.ListCells(st.Queens)
		}
		v.Notice = &notice{Kind: "info", Text: fmt.Sprintf("%s goes up to %d×%d, so the %d×%d board shrank to %d×%d, %s.",
			st.Mode.label(), st.N, st.N, trail[0].N, trail[0].N, st.N, st.N, kept)}
	}

	if p.Unsolvable {
		v.Unsolvable = true
		v.Count = fmt.Sprintf("No solutions: a %d×%d board has none", st.N, st.N)
		v.Board = s.boardView(st, nil, r)
		return v
	}
	a := p.Session.Analysis()
	v.Count, v.Solved = countText(a, p.entry, st.N)
	v.CanComplete = !v.Solved
	if len(r.runs) > 1 {
		if o := r.runs[1]; o.Session != nil {
			if oa := o.Session.Analysis(); oa.Solutions != nil {
				v.CountNote = fmt.Sprintf("%s counts %s", strings.ToUpper(o.Backend), solutionsText(oa.Solutions, oa.AtLeast))
			} else {
				v.CountNote = strings.ToUpper(o.Backend) + " does not count solutions on this board"
			}
		}
		v.Agreement = agreement(r)
	}

	var marginals []*big.Int
	if st.Heat {
		marginals = r.heat.marginals
		v.Heat.Available, v.Heat.Reason = marginals != nil, r.heat.reason
		if marginals != nil {
			v.Heat.Took = duration(r.heat.took)
		}
	}
	v.Board = s.boardView(st, marginals, r)
	v.Heat.Hottest = fmt.Sprintf("%d%%", v.Board.Hottest)
	v.Heat.Forced = len(a.In(configurator.Free)) == 0
	v.Panel = s.panel(r, v)
	if slices.ContainsFunc(s.lim.backends(st.Mode), func(b string) bool { return s.lim.ordered[b] }) {
		v.Orders = s.ordersPanel(context.Background(), st, false)
	}
	if st.Diagram {
		s.diagramPanel(v, r.diagram, st)
	}
	return v
}

// countText says how many solutions remain. A backend that does not
// count still leaves a board whose every square is decided: no free
// square means exactly one solution, so that board is said to be solved
// (or one Complete away) rather than "not counted".
func countText(a *configurator.Analysis, e *compiled, n int) (text string, solved bool) {
	if a.Solutions == nil {
		if len(a.In(configurator.Free)) > 0 {
			return "Solutions not counted by this backend here", false
		}
		if len(a.In(configurator.Queen)) == n {
			return "Solved: a complete solution", true
		}
		return "1 solution: complete it?", false
	}
	if a.AtLeast {
		return "At least " + group(a.Solutions) + " solutions", false
	}
	if a.Solutions.Cmp(big.NewInt(1)) == 0 {
		if len(a.In(configurator.Forced)) == 0 {
			text = "Solved: a complete solution"
			if total, atLeast := e.Total(); total != nil && !atLeast {
				text += fmt.Sprintf(", one of %s", group(total))
			}
			return text, true
		}
		return "1 solution: complete it?", false
	}
	return group(a.Solutions) + " solutions", false
}

// solutionsText is a count for a sentence.
func solutionsText(n *big.Int, atLeast bool) string {
	word := " solutions"
	if n.Cmp(big.NewInt(1)) == 0 {
		word = " solution"
	}
	if atLeast {
		return "at least " + group(n) + word
	}
	return group(n) + word
}

// group writes an integer with thousands separators.
func group(n *big.Int) string {
	s := n.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// agreement is the badge of Both: every backend's answer against the
// primary's.
func agreement(r *result) *agreementView {
	a := &agreementView{Agree: r.agree()}
	names := make([]string, len(r.runs))
	for i, o := range r.runs {
		names[i] = strings.ToUpper(o.Backend)
	}
	for _, o := range r.runs[1:] {
		if o.Err != nil && a.Agree {
			return &agreementView{Agree: true, Text: fmt.Sprintf("%s could not answer this time: %s", strings.ToUpper(o.Backend), describe(o.Err).Message)}
		}
	}
	if a.Agree {
		a.Text = listNames(names) + " agree on every square"
		return a
	}
	a.Text = listNames(names) + " DISAGREE"
	for i, d := range r.differ {
		for _, c := range d.Cells {
			a.Details = append(a.Details, fmt.Sprintf("%v: %s says %s, %s says %s", c.Cell, names[0], c.States[0], names[i], c.States[1]))
		}
	}
	for _, d := range r.differ {
		a.Details = append(a.Details, d.Other...)
	}
	return a
}

// listNames names backends for a sentence: "BDD and SAT", "BDD, SAT and
// SAT-PLAIN".
func listNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// duration writes a duration with three significant digits and a unit
// people read at a glance: 312 µs, 4.21 ms, 1.50 s.
func duration(d time.Duration) string {
	f := func(v float64, unit string) string {
		switch {
		case v >= 100:
			return strconv.FormatFloat(v, 'f', 0, 64) + " " + unit
		case v >= 10:
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
		}
		return strconv.FormatFloat(v, 'f', 2, 64) + " " + unit
	}
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(d.Nanoseconds(), 10) + " ns"
	case d < time.Millisecond:
		return f(float64(d)/float64(time.Microsecond), "µs")
	case d < time.Second:
		return f(float64(d)/float64(time.Millisecond), "ms")
	}
	return f(d.Seconds(), "s")
}

// boardView lays out the grid, rank N at the top as on a chess diagram.
func (s *Server) boardView(st boardState, marginals []*big.Int, r *result) *boardView {
	n := st.N
	b := &boardView{N: n, Label: fmt.Sprintf("%d by %d board", n, n)}
	switch {
	case n <= 8:
		b.Size = "size-s"
	case n <= 14:
		b.Size = "size-m"
	case n <= 22:
		b.Size = "size-l"
	default:
		b.Size = "size-xl"
	}
	for col := range n {
		b.Files = append(b.Files, configurator.FileName(col))
	}
	p := r.primary()
	var a *configurator.Analysis
	var total *big.Int
	if p.Session != nil {
		a = p.Session.Analysis()
		total = a.Solutions
	}
	m := p.entry.space.Model()
	var because, gone []configurator.Cell
	var asked *configurator.Cell
	if p.Explanation != nil {
		asked = &p.Explanation.Cell
		for _, cause := range p.Explanation.Reasons {
			because = append(because, cause.Queens...)
		}
	}
	if p.Room != nil {
		gone, asked, because = p.Room, &r.act.Cell, nil
	}
	differ := map[configurator.Cell]bool{}
	for _, d := range r.differ {
		for _, c := range d.Cells {
			differ[c.Cell] = true
		}
	}
	hottest := 0
	if marginals != nil && a != nil && total != nil && total.Sign() > 0 {
		for _, c := range a.In(configurator.Free) {
			hottest = max(hottest, share(marginals[m.Var(c)], total))
		}
	}
	b.Hottest = hottest
	focus := configurator.Cell{}
	switch {
	case asked != nil:
		focus = *asked
	case r.act.Kind == actPlace || r.act.Kind == actRemove && len(r.act.Remove) == 1:
		focus = r.act.Cell
		if r.act.Kind == actRemove {
			focus = r.act.Remove[0]
		}
	case len(st.Queens) > 0:
		focus = st.Queens[len(st.Queens)-1]
	}
	for row := n - 1; row >= 0; row-- {
		rv := rowView{Rank: row + 1}
		for col := range n {
			c := configurator.Cell{Row: row, Col: col}
			cv := cellView{ID: "cell-" + c.String(), Name: c.String(), Tab: -1}
			if c == focus {
				cv.Tab = 0
			}
			classes := []string{"cell"}
			if (row+col)%2 == 0 {
				classes = append(classes, "dark")
			} else {
				classes = append(classes, "light")
			}
			state := configurator.Blocked
			if a != nil {
				state = a.At(c)
			}
			switch state {
			case configurator.Free:
				cv.Param = "place"
				classes = append(classes, "free")
				// Free and blocked squares, most of a large board, carry no
				// title: app.js gives each its tooltip from its label when
				// the pointer first rests on it, which keeps a 32×32 board's
				// fragment small.
				cv.Label = c.String() + ", free"
				if marginals != nil && total != nil && total.Sign() > 0 {
					pct := share(marginals[m.Var(c)], total)
					classes = append(classes, fmt.Sprintf("heat-%d", heatLevel(pct)))
					cv.HeatPercent = fmt.Sprintf("%d%%", pct)
					cv.Label += fmt.Sprintf(", in %d%% of the remaining solutions", pct)
				}
			case configurator.Queen:
				cv.Param, cv.Glyph = "remove", "queen"
				classes = append(classes, "queen")
				cv.Label = c.String() + ", your queen: press to remove it"
				cv.Title = "Your queen on " + c.String() + ": click to remove it"
				if slices.Contains(st.Auto, c) {
					classes = append(classes, "auto")
					cv.Label = c.String() + ", a queen Complete placed: press to remove it"
				}
			case configurator.Forced:
				cv.Param, cv.Glyph = "why", "forced"
				classes = append(classes, "forced")
				cv.Label = c.String() + ", forced queen: every remaining solution has a queen here"
				cv.Title = "forced: every remaining solution has a queen on " + c.String() + ". Click to ask why."
			case configurator.Blocked:
				cv.Param, cv.Disabled = "why", true
				classes = append(classes, "blocked")
				reason := "no remaining solution has a queen here"
				if r.primary().Unsolvable {
					reason = "this board has no solution"
					cv.Param = ""
				} else {
					for _, q := range st.Queens {
						if m.Attacks(q, c) {
							reason = "attacked by " + q.String()
							break
						}
					}
				}
				cv.Label = c.String() + ", blocked: " + reason
			}
			if slices.Contains(because, c) {
				classes = append(classes, "because")
				cv.Because = true
				cv.Label += " (one of the reasons)"
			}
			if slices.Contains(gone, c) {
				classes = append(classes, "gone")
				cv.Gone = true
				cv.Label += " (would be removed to make room)"
			}
			if asked != nil && *asked == c {
				classes = append(classes, "asked")
			}
			if differ[c] {
				classes = append(classes, "differ")
				cv.Label += " (the backends disagree here)"
			}
			cv.Class = strings.Join(classes, " ")
			rv.Cells = append(rv.Cells, cv)
		}
		b.Rows = append(b.Rows, rv)
	}
	return b
}

// heatLevel maps a share in percent to one of ten shades. The scale is
// absolute but stretched (square root), so that the small shares of a
// large board still show while 50% and 100% stay apart.
func heatLevel(pct int) int {
	return min(9, int(math.Round(9*math.Sqrt(float64(max(pct, 0))/100))))
}

// share is part/total in whole percent, rounded to nearest.
func share(part, total *big.Int) int {
	x := new(big.Int).Mul(part, big.NewInt(200))
	x.Add(x, total)
	x.Quo(x, new(big.Int).Mul(total, big.NewInt(2)))
	return int(x.Int64())
}

// diagramPanel fills in the diagram view: the board the viewer asks the
// API for, and the Graphviz drawing when the restricted diagram is small
// enough for it.
func (s *Server) diagramPanel(v *appView, d diagramData, st boardState) {
	if d.reason != "" {
		v.Diagram.Reason = d.reason
		return
	}
	v.Diagram.Available = true
	v.Diagram.Nodes = group(big.NewInt(int64(d.nodes)))
	v.Diagram.N, v.Diagram.Order = st.N, st.Order.String()
	queens := make([]string, len(st.Queens))
	for i, q := range st.Queens {
		queens[i] = fmt.Sprintf("[%d,%d]", q.Row, q.Col)
	}
	v.Diagram.Queens = "[" + strings.Join(queens, ",") + "]"
	if d.nodes <= s.cfg.DiagramNodes {
		v.Diagram.Src = "/diagram.svg?" + st.query()
	}
}

// upperFirst capitalises the first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
