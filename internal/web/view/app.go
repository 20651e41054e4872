// Package view is what the web server's pages show: the view models that
// the templates (package frontend) render, and the functions that build
// them from what the server hands over. A view is handed everything it
// shows: a step's answers and the facts of the spaces behind them (Step),
// how each board the page links to begins (Prep), the order panel's
// figures (OrderFacts), a compile's progress (Preparing). Building a view
// never calls the cache of compiled spaces or a backend, so that one click
// passes each of the server's packages once, down to the backends and
// back up to the page.
//
// The view models hold strings ready to print, so that the templates stay
// free of logic; their words come from package words.
//
// The board page's views are in app.go (the controls and the grid),
// panel.go (Why? and Make room), timing.go, orders.go and progress.go,
// built from what step.go says a step hands over; the charts in chart.go
// and scaling.go; the templates are parsed in templates.go. A page of another kind adds its own
// files beside these, built from the same parts (Page, Link, Notice,
// Setting, Chart).
package view

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// Site is what every page shows whatever its board: the backends the page
// offers, a line on what each does, and the figures of the server's own.
type Site struct {
	Lineup *board.Lineup
	Titles map[string]string // by backend name
	// DiagramNodes is the largest diagram the server draws with Graphviz.
	DiagramNodes int
	// Version is a digest of the static files, for cache busting.
	Version string
}

// Page is a whole page around the app.
type Page struct {
	Title   string
	Version string
	App     *App
}

// NewPage wraps an app view into a page.
func NewPage(site *Site, app *App) *Page {
	return &Page{Title: app.Title(), Version: site.Version, App: app}
}

// Link is an action of the page: Href is the shareable address (for a
// new tab, or without JavaScript), Play the htmx request.
type Link struct {
	Label, Href, Play, Title string
	Current, Primary         bool
}

// Field is a hidden input of a form.
type Field struct{ Name, Value string }

// Option is an entry of a select.
type Option struct {
	Value, Label string
	Selected     bool
}

// Setting is the form of a select that changes one setting, the board's
// size or the variable order, as soon as it changes.
type Setting struct {
	ID, Name     string // the select's id (and the form's class), the query parameter it sets
	Label, Title string
	Options      []Option
	Hidden       []Field // the other settings
	// Disabled is set, with Reason, where the setting has no effect.
	Disabled bool
	Reason   string
}

// Notice is a message above the board: Text, then Command (a command
// line the message gives, shown as code) and After, the rest of the
// sentence.
type Notice struct {
	Kind                 string // "error" or "info"
	Text, Command, After string
	Status               int
	// Alt links to a board that would serve what was asked.
	Alt, AltLabel string
}

// NoticeOf turns a problem into a notice.
func NoticeOf(p *problem.Problem) *Notice {
	kind := "error"
	if p.Status < 400 {
		kind = "info"
	}
	n := &Notice{Kind: kind, Text: p.Message, Status: p.Status, Alt: p.Alt, AltLabel: p.AltLabel}
	if before, after, ok := strings.Cut(p.Message, p.Command); ok && p.Command != "" {
		n.Text, n.Command, n.After = before, p.Command, after
	}
	return n
}

// App is the interactive part of the page, which every htmx request
// replaces as a whole.
type App struct {
	State board.State
	Trail string // the timing trail the next request carries
	// Shown is the address of the board a whole page shows when it may
	// not be the one its address asks for (the page's board fell back):
	// address.js puts it in the address bar, as htmx does for a fragment,
	// so that the address, a reload and the list of steps say what the
	// page shows. "" leaves the address alone.
	Shown string
	Max   int // largest board of the mode

	Fatal      bool // no board to show: only the controls and the notice
	Notice     *Notice
	Compiling  *Compiling
	Unsolvable bool
	Board      *Grid

	Count       string // "92 solutions"
	CountNote   string // the other backend's count, in Both
	Solved      bool
	CanComplete bool

	Size, Order                                       Setting
	Modes                                             []Link
	Reset, Complete, HeatToggle, DiagramToggle, Close Link
	Hidden                                            []Field // the state, for the board form

	Panel     *Panel
	Agreement *Agreement
	Timing    Timing
	Orders    *OrdersPanel // the order panel, where an ordered backend runs
	Scaling   *Chart       // how each backend scales with N, from the benchmarks
	// ScalingNote says what the chart does not show of this server.
	ScalingNote string
	// ModeNote says what switching to a mode whose limit is below the
	// board does, before anyone clicks.
	ModeNote string
	Heat     HeatPanel
	Diagram  DiagramPanel
}

// Grid is the board's squares.
type Grid struct {
	N       int
	Hottest int // the largest share of a free square, in percent (heat map)
	Label   string
	Size    string // a CSS class by board size
	Rows    []Rank
	Files   []string
}

// Rank is a row of the grid.
type Rank struct {
	Rank  int
	Cells []Square
}

// Square is one square: a button whose name and value say what a click
// does (place, remove, or why).
type Square struct {
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

// Agreement is the badge of Both.
type Agreement struct {
	Agree   bool
	Text    string
	Details []string
}

// HeatPanel is the heat map's toggle and legend.
type HeatPanel struct {
	On, Available bool
	Reason        string
	Took          string
	Hottest       string // the legend's top: the largest share on the board
	// Forced is set when no free square is left to shade: every square
	// is a queen, forced or blocked, so exactly one solution remains and
	// a share of 0% would be false.
	Forced bool
}

// DiagramPanel is the decision diagram's panel: what the viewer
// (frontend/static/diagram.js) asks /api/v1/diagram for, or why there is
// no diagram.
type DiagramPanel struct {
	On, Available bool
	Reason        string
	N             int
	Queens        string // JSON [row, col] pairs, as the API takes them
	Order         string
	// Src is the Graphviz drawing of the restricted diagram, when it has
	// at most Site.DiagramNodes nodes.
	Src   string
	Nodes string
}

// Title is the browser tab's title: the board's size when there is a
// board. The full page puts it in <title>; a swapped fragment carries it
// in #app's data-title, which app.js copies, so the tab follows the board.
func (v *App) Title() string {
	if v.Board == nil {
		return "BDD/SAT configurator"
	}
	return fmt.Sprintf("%d×%d · BDD/SAT configurator", v.State.N, v.State.N)
}

// PrepKey names a board the page links to, as far as how showing it
// begins goes: the backends of a mode, a board size and an order.
type PrepKey struct {
	Mode  board.Mode
	N     int
	Order configurator.Order
}

// Prep says, for each board the controls link to (PrepKeys), how showing
// it begins when it needs a large space the cache does not hold yet:
// "compiles", "loads" when each such space is loaded from its saved file,
// "not on disk" when one is served from its file alone and the file is
// missing (showing it is refused), "" when it needs none.
type Prep map[PrepKey]string

// PrepKeys lists the boards whose Prep the controls of st show: st in
// every order (the order menu) and the smaller board of each mode whose
// largest is below st's (the mode switch shrinks the board).
func PrepKeys(site *Site, st board.State) []PrepKey {
	var keys []PrepKey
	for _, o := range configurator.Orders() {
		keys = append(keys, PrepKey{st.Mode, st.N, o})
	}
	for _, m := range site.Lineup.Modes() {
		if hi := site.Lineup.Max(m); st.N > hi {
			keys = append(keys, PrepKey{m, hi, st.Order})
		}
	}
	return keys
}

// NewApp fills in the controls of a state: everything but the board.
func NewApp(site *Site, st board.State, trail string, prep Prep) *App {
	l := site.Lineup
	v := &App{State: st, Trail: trail, Max: l.Max(st.Mode),
		Size:  Setting{ID: "size", Name: "n", Label: "Board"},
		Order: Setting{ID: "order", Name: "order", Label: "Variable order", Title: "The order of the BDD's variables changes its size, never its answers"}}
	for n := 1; n <= v.Max; n++ {
		v.Size.Options = append(v.Size.Options, Option{Value: strconv.Itoa(n), Label: fmt.Sprintf("%d × %d", n, n), Selected: n == st.N})
	}
	for _, o := range configurator.Orders() {
		opt := Option{Value: o.String(), Label: words.Order(o), Selected: o == st.Order}
		switch verb := prep[PrepKey{st.Mode, st.N, o}]; verb {
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
	nav := func(label, title, step string, next board.State) Link {
		return Link{Label: label, Title: title, Href: next.Href(), Play: next.PlayHref(trail, "l", step)}
	}
	var smaller []string // the modes whose limit is below the board
	for _, m := range l.Modes() {
		next := st.With(func(b *board.State) { b.Mode = m })
		title := modeTitle(site, m)
		if hi := l.Max(m); st.N > hi {
			next.N, next.Queens = hi, fitting(st.Queens, hi)
			title += fmt.Sprintf(" (up to %d×%d: the board shrinks to %d×%d and keeps the queens on it)", hi, hi, hi, hi)
			smaller = append(smaller, m.Label())
			if v.ModeNote == "" {
				v.ModeNote = shrinkNote(st, next, smaller, prep[PrepKey{m, hi, st.Order}])
			}
		}
		link := nav(m.Label(), title, "use "+string(m), next)
		link.Current = m == st.Mode
		v.Modes = append(v.Modes, link)
	}
	if len(smaller) > 1 {
		// The note names every mode that shrinks; they share the first's
		// limit or a larger one, which the titles give.
		v.ModeNote = strings.Replace(v.ModeNote, smaller[0]+" goes", words.List(smaller, "and")+" go", 1)
	}
	if !l.AnyOrdered(st.Mode) {
		v.Order.Disabled = true
		v.Order.Reason = fmt.Sprintf("The %s backend ignores the variable order: only a decision diagram depends on it", st.Mode.Label())
	}
	v.Reset = nav("Reset", "Remove every queen", "reset", st.With(func(b *board.State) { b.Queens = nil }))
	v.HeatToggle = nav("Heat map", "Shade each free square by the share of remaining solutions with a queen there",
		words.OnOff("heat", !st.Heat), st.With(func(b *board.State) { b.Heat = !b.Heat }))
	v.HeatToggle.Current = st.Heat
	v.DiagramToggle = nav("Diagram", "Show the decision diagram of the remaining solutions",
		words.OnOff("diagram", !st.Diagram), st.With(func(b *board.State) { b.Diagram = !b.Diagram }))
	v.DiagramToggle.Current = st.Diagram
	v.Complete = Link{Label: "Complete", Title: "Fill in a random solution that keeps your queens",
		Href: st.PlayHref("", "complete", "1"), Play: st.PlayHref(trail, "complete", "1")}
	v.Close = nav("Close", "Close this panel", "close", st)

	v.Hidden = stateFields(st, trail)
	v.Size.Hidden = []Field{{"backend", string(st.Mode)}, {"l", "size"}}
	v.Order.Hidden = []Field{{"n", strconv.Itoa(st.N)}, {"q", configurator.FormatCells(st.Queens)}, {"auto", configurator.FormatCells(st.Auto)}, {"backend", string(st.Mode)}, {"l", "order"}}
	for _, f := range []*[]Field{&v.Size.Hidden, &v.Order.Hidden} {
		if st.Heat {
			*f = append(*f, Field{"heat", "1"})
		}
		if st.Diagram {
			*f = append(*f, Field{"diagram", "1"})
		}
		if trail != "" {
			*f = append(*f, Field{"t", trail})
		}
	}
	if st.Order != configurator.RowMajor {
		v.Size.Hidden = append(v.Size.Hidden, Field{"order", st.Order.String()})
	}
	v.Heat = HeatPanel{On: st.Heat}
	v.Diagram = DiagramPanel{On: st.Diagram}
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
// dropped, and a long compile when the smaller board is not cached yet
// (prep, how showing it begins).
func shrinkNote(st, next board.State, modes []string, prep string) string {
	note := fmt.Sprintf("%s goes up to %d×%d: switching shrinks the board to %d×%d", modes[0], next.N, next.N, next.N, next.N)
	switch dropped := len(st.Queens) - len(next.Queens); {
	case len(st.Queens) == 0:
	case dropped == 0:
		note += ", keeping all your queens"
	case len(next.Queens) == 0:
		note += ", where none of your queens fit"
	default:
		var gone []configurator.Cell
		for _, q := range st.Queens {
			if !slices.Contains(next.Queens, q) {
				gone = append(gone, q)
			}
		}
		beyond := "the queen on " + configurator.ListCells(gone) + " lies beyond it"
		if len(gone) > 1 {
			beyond = "the queens on " + configurator.ListCells(gone) + " lie beyond it"
		}
		note += fmt.Sprintf(", keeping %s; %s", configurator.ListCells(next.Queens), beyond)
	}
	note += "."
	switch prep { // a missing file: the switch itself says so
	case "compiles":
		note += fmt.Sprintf(" The %d×%d board is not compiled yet: the switch compiles it first, which takes a while (the page shows its progress and stays usable).",
			next.N, next.N)
	case "loads":
		note += fmt.Sprintf(" The %d×%d board is not in memory yet: the switch loads it from its compiled file first, which takes a while (the page shows its progress and stays usable).",
			next.N, next.N)
	}
	return note
}

// modeTitle says what a mode does: its backend's title, or for all of
// them that they are compared.
func modeTitle(site *Site, m board.Mode) string {
	if m != board.All {
		return site.Titles[string(m)]
	}
	names := site.Lineup.Names()
	if len(names) == 2 {
		return "Run both backends and compare their answers"
	}
	return fmt.Sprintf("Run all %d backends and compare their answers with the %s's", len(names), strings.ToUpper(names[0]))
}

// stateFields is the state as hidden inputs.
func stateFields(st board.State, trail string) []Field {
	f := []Field{{"n", strconv.Itoa(st.N)}, {"backend", string(st.Mode)}}
	if len(st.Queens) > 0 {
		f = append(f, Field{"q", configurator.FormatCells(st.Queens)})
	}
	if len(st.Auto) > 0 {
		f = append(f, Field{"auto", configurator.FormatCells(st.Auto)})
	}
	if st.Order != configurator.RowMajor {
		f = append(f, Field{"order", st.Order.String()})
	}
	if st.Heat {
		f = append(f, Field{"heat", "1"})
	}
	if st.Diagram {
		f = append(f, Field{"diagram", "1"})
	}
	if trail != "" {
		f = append(f, Field{"t", trail})
	}
	return f
}

// StepApp renders a step's result, the trail of the steps before it
// carried by the request.
func StepApp(site *Site, r *Step, trail []board.Step, prep Prep) *App {
	st := r.State
	p := r.Primary()
	names := site.Lineup.Names()
	cur := board.Step{Label: r.Act.Label(), N: st.N}
	if (r.Act.Kind == board.Show || r.Act.Kind == board.Refresh) && r.Name != "" {
		cur.Label = r.Name
	}
	if r.Act.Kind == board.Refresh && r.Name == "" {
		// The board that a compile was waited for: its first step, which
		// the compile line times apart.
		cur.Label = "first step"
	}
	cur.Times = make([]time.Duration, len(names))
	for _, o := range r.Runs {
		if i := slices.Index(names, o.Backend); i >= 0 {
			cur.Times[i] = o.Took
		}
	}
	var kept []board.Step
	for _, t := range trail {
		if t.N == st.N && len(kept) < board.MaxSteps-1 {
			kept = append(kept, t)
		}
	}
	steps := append([]board.Step{cur}, kept...)
	v := NewApp(site, st, board.FormatTrail(steps), prep)
	v.Timing = newTiming(names, r, steps)
	v.Scaling = scalingChart()
	v.ScalingNote = scalingNote(site.Lineup)
	if len(trail) > 0 && trail[0].N > st.N && strings.HasPrefix(r.Name, "use ") {
		kept := "without queens"
		if len(st.Queens) > 0 {
			kept = "keeping " + configurator.ListCells(st.Queens)
		}
		v.Notice = &Notice{Kind: "info", Text: fmt.Sprintf("%s goes up to %d×%d, so the %d×%d board shrank to %d×%d, %s.",
			st.Mode.Label(), st.N, st.N, trail[0].N, trail[0].N, st.N, st.N, kept)}
	}

	if p.Unsolvable {
		v.Unsolvable = true
		v.Count = fmt.Sprintf("No solutions: a %d×%d board has none", st.N, st.N)
		v.Board = grid(st, nil, r)
		return v
	}
	a := p.Session.Analysis()
	v.Count, v.Solved = countText(a, p.Space, st.N)
	v.CanComplete = !v.Solved
	if len(r.Runs) > 1 {
		if o := r.Runs[1]; o.Session != nil {
			if oa := o.Session.Analysis(); oa.Solutions != nil {
				v.CountNote = fmt.Sprintf("%s counts %s", strings.ToUpper(o.Backend), words.Solutions(oa.Solutions, oa.AtLeast))
			} else {
				v.CountNote = strings.ToUpper(o.Backend) + " does not count solutions on this board"
			}
		}
		v.Agreement = agreement(r)
	}

	var marginals []*big.Int
	if st.Heat {
		marginals = r.Heat.Marginals
		v.Heat.Available, v.Heat.Reason = marginals != nil, heatReason(site, r.Heat)
		if marginals != nil {
			v.Heat.Took = words.Duration(r.Heat.Took)
		}
	}
	v.Board = grid(st, marginals, r)
	v.Heat.Hottest = fmt.Sprintf("%d%%", v.Board.Hottest)
	v.Heat.Forced = len(a.In(configurator.Free)) == 0
	v.Panel = panel(r, v)
	if r.Orders != nil {
		v.Orders = NewOrdersPanel(st, r.Orders)
	}
	if st.Diagram {
		diagramPanel(site, v, r.Diagram, st)
	}
	return v
}

// countText says how many solutions remain. A backend that does not
// count still leaves a board whose every square is decided: no free
// square means exactly one solution, so that board is said to be solved
// (or one Complete away) rather than "not counted".
func countText(a *configurator.Analysis, sp SpaceFacts, n int) (text string, solved bool) {
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
		return "At least " + words.Group(a.Solutions) + " solutions", false
	}
	if a.Solutions.Cmp(big.NewInt(1)) == 0 {
		if len(a.In(configurator.Forced)) == 0 {
			text = "Solved: a complete solution"
			if sp.Total != nil && !sp.TotalAtLeast {
				text += fmt.Sprintf(", one of %s", words.Group(sp.Total))
			}
			return text, true
		}
		return "1 solution: complete it?", false
	}
	return words.Group(a.Solutions) + " solutions", false
}

// agreement is the badge of Both: every backend's answer against the
// primary's.
func agreement(r *Step) *Agreement {
	a := &Agreement{Agree: r.Agree()}
	names := make([]string, len(r.Runs))
	for i, o := range r.Runs {
		names[i] = strings.ToUpper(o.Backend)
	}
	for _, o := range r.Runs[1:] {
		if o.Err != nil && a.Agree {
			return &Agreement{Agree: true, Text: fmt.Sprintf("%s could not answer this time: %s", strings.ToUpper(o.Backend), problem.Describe(o.Err).Message)}
		}
	}
	if a.Agree {
		a.Text = words.List(names, "and") + " agree on every square"
		return a
	}
	a.Text = words.List(names, "and") + " DISAGREE"
	for i, d := range r.Differ {
		for _, c := range d.Cells {
			a.Details = append(a.Details, fmt.Sprintf("%v: %s says %s, %s says %s", c.Cell, names[0], c.States[0], names[i], c.States[1]))
		}
	}
	for _, d := range r.Differ {
		a.Details = append(a.Details, d.Other...)
	}
	return a
}

// boardSize is the class that sizes a board of n squares a side: its
// squares, labels and marks shrink as it grows.
func boardSize(n int) string {
	switch {
	case n <= 8:
		return "size-s"
	case n <= 14:
		return "size-m"
	case n <= 22:
		return "size-l"
	}
	return "size-xl"
}

// grid lays out the board, rank N at the top as on a chess diagram.
func grid(st board.State, marginals []*big.Int, r *Step) *Grid {
	n := st.N
	b := &Grid{N: n, Label: fmt.Sprintf("%d by %d board", n, n), Size: boardSize(n)}
	for col := range n {
		b.Files = append(b.Files, configurator.FileName(col))
	}
	p := r.Primary()
	var a *configurator.Analysis
	var total *big.Int
	if p.Session != nil {
		a = p.Session.Analysis()
		total = a.Solutions
	}
	m := r.Model
	var because, gone []configurator.Cell
	var asked *configurator.Cell
	if p.Explanation != nil {
		asked = &p.Explanation.Cell
		for _, cause := range p.Explanation.Reasons {
			because = append(because, cause.Queens...)
		}
	}
	if p.Room != nil {
		gone, asked, because = p.Room, &r.Act.Cell, nil
	}
	differ := map[configurator.Cell]bool{}
	for _, d := range r.Differ {
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
	case r.Act.Kind == board.Place || r.Act.Kind == board.Remove && len(r.Act.Remove) == 1:
		focus = r.Act.Cell
		if r.Act.Kind == board.Remove {
			focus = r.Act.Remove[0]
		}
	case len(st.Queens) > 0:
		focus = st.Queens[len(st.Queens)-1]
	}
	for row := n - 1; row >= 0; row-- {
		rv := Rank{Rank: row + 1}
		for col := range n {
			c := configurator.Cell{Row: row, Col: col}
			cv := Square{ID: "cell-" + c.String(), Name: c.String(), Tab: -1}
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
				// the pointer first rests on it, which keeps a large board's
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
				if p.Unsolvable {
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
func diagramPanel(site *Site, v *App, d DiagramSize, st board.State) {
	if reason := diagramReason(site, d); reason != "" {
		v.Diagram.Reason = reason
		return
	}
	v.Diagram.Available = true
	v.Diagram.Nodes = words.Number(int64(d.Nodes))
	v.Diagram.N, v.Diagram.Order = st.N, st.Order.String()
	queens := make([]string, len(st.Queens))
	for i, q := range st.Queens {
		queens[i] = fmt.Sprintf("[%d,%d]", q.Row, q.Col)
	}
	v.Diagram.Queens = "[" + strings.Join(queens, ",") + "]"
	if d.Nodes <= site.DiagramNodes {
		v.Diagram.Src = "/diagram.svg?" + st.Query()
	}
}
