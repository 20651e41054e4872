package view

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// The model page: a feature model (UVL) or a CNF file (DIMACS) configured
// by decisions on its features, answered by every backend that compiles
// models. Its views are built from a ModelStep, as the board's are from a
// Step.

// ModelStep is one request of the model page as the server hands it to the
// views: the state after the step, the model, each backend's answer, and
// the explanation the state asks for.
type ModelStep struct {
	State modelstate.State
	Act   modelstate.Action
	Model *feature.Model
	// Runs are the answers of the backends of the state's mode, the one
	// that leads first; a run whose backend could not answer has Err.
	Runs []ModelRun
	// Marginals is each feature's count of the remaining configurations
	// that select it, from the first run that counts them; nil when none
	// does.
	Marginals []*big.Int
	// Why is the explanation of State.Why, nil when the state asks for
	// none or it failed (WhyErr).
	Why    *configurator.FeatureExplanation
	WhyErr error
	// Fallback says why the mode asked for is not the one that answered
	// (a backend that cannot configure this model); "" when it is.
	Fallback string
	// Trail is the session chart's steps, newest first, this one
	// included.
	Trail []board.Step
	// RuleOut: a click on a square of the grid rules it out (deselects
	// it) rather than selects it (modelstate.Square).
	RuleOut bool
	// Changed is what a step that changed the decisions did to the other
	// features; nil for any other step.
	Changed *configurator.Changes
	// Pending are the backends of the mode still compiling the model,
	// which the page asks again by itself.
	Pending []string
	// Name is the model's name as the store knows it (its namespace, or
	// its file's name); "" to name it from the model alone.
	Name string
}

// ModelRun is one backend's answer to a step of the model page.
type ModelRun struct {
	Backend string
	// Domains is the classification of the features, nil with Err.
	Domains *configurator.Domains
	Err     error
	// Took is the backend's whole step; Compile how long its compile of
	// the model took (the first time it was asked), or its load from the
	// backend's saved file when Loaded.
	Took    time.Duration
	Compile time.Duration
	Loaded  bool
	// Remembered marks an answer the server gave before for the same
	// decisions (a search or a subtree opened asks no backend again).
	Remembered bool
}

// ModelPage is a whole model page around its app.
type ModelPage struct {
	Title   string
	Version string
	App     *ModelApp
}

// ModelApp is the part of the model page every step replaces.
type ModelApp struct {
	Title string
	Href  string // the state's address
	// DiagramSrc is the address of the decision diagram of the
	// configurations left (GET /model-diagram), "" on a page with no
	// configuration to show.
	DiagramSrc string
	// Diagram is the diagram's panel shown open (the state's diagram=1),
	// and DiagramToggle the address with it the other way, which the
	// panel's heading asks for as it opens or closes.
	Diagram       bool
	DiagramToggle string
	Model         ModelHead
	Notice        *Notice
	Fatal         bool
	Hidden        []Field // the state, for the page's form
	Trail         string
	Modes         []Link
	ModeNote      string
	// Poll is the address the page asks again, after a pause, while a
	// backend of its mode is still compiling the model; "" otherwise.
	Poll  string
	Reset Link

	Count     string
	Exact     string // a count too long for the headline, in full
	CountNote string
	Agreement *Agreement
	Decisions []Chip
	// Completes are the Complete choices (GET /model-complete), shown
	// once the configuration is not complete.
	Completes []Link
	// Files are the downloads of the configuration and the way to open
	// one.
	Files *ConfigFiles
	// FactsSrc is the address of the model's facts (GET /model-facts).
	FactsSrc string

	// Changed says first what the step did: the features it forced on
	// and off, or freed; nil when the step decided nothing.
	Changed *StepChanges

	Find     string
	Shows    []Option
	ListNote string
	Tree     bool
	// Grid draws the features on the model's grid (a board) above the
	// list; nil for a model without one.
	Grid      *FeatureGrid
	Rows      []*FeatureRow
	Prev      *Link
	Next      *Link
	Shares    bool   // rows carry their share of the configurations
	ShareNote string // why they do not

	Why    *WhyPanel
	Timing *ModelTiming
}

// ModelHead says which model the page configures.
type ModelHead struct {
	ID, Name, Format      string
	Features, Constraints string
}

// Chip is one of the person's decisions, with the feature named for the
// button that takes it back.
type Chip struct {
	Text, Feature string
	Select        bool
}

// FeatureRow is one feature of the list or the tree.
type FeatureRow struct {
	ID, Name string
	// State is the feature's state as the API spells it (free, select,
	// deselect, forced_on, forced_off); StateText says it in words and
	// Glyph shows it by shape.
	State, StateText, Glyph string
	// Edge is the feature's relation to its parent in a mandatory or an
	// optional group; Path, in a flat list, the feature's parent.
	Edge, Path string
	Abstract   bool
	// Share is a free feature's share of the remaining configurations,
	// and Heat its level (0-9) for the bar.
	Share string
	Heat  int
	// The buttons a row offers.
	CanDecide, CanUndo, CanWhy bool
	Asked                      bool // its Why? is open
	Hit                        bool // it matches the search
	// Kids, Open and Hidden are the subtree's: it has children, they are
	// shown, and how many features a closed one holds.
	Kids, Open bool
	Hidden     string
	Groups     []*GroupRow
}

// GroupRow is one group of a feature's children in the tree, drawn as
// FeatureIDE draws it: mandatory and optional children marked on their
// edge, an or, an alternative or a cardinality named on the group.
type GroupRow struct {
	Kind, Label string
	Rows        []*FeatureRow
	// More says how many of the group's children are not listed, ""
	// when every child is; the button that lists them (all of Parent's
	// children) stands before Rows[MoreAt], where the first of them
	// would be (at the end when MoreAt is len(Rows)).
	More, Parent string
	MoreAt       int
}

// WhyPanel says why a feature is forced.
type WhyPanel struct {
	Feature, Title, Text string
	Core                 bool
	Reasons              []WhyReason
	More                 string
	// Room names the decisions Make room undoes; "" when none can.
	Room  string
	Took  string
	Error string
}

// WhyReason is one minimal reason: the decisions that force the feature
// (their rows' ids in Rows, for highlighting) and the parts of the model
// that carry it.
type WhyReason struct {
	Text, Rows  string
	Constraints []string
}

// ModelTiming is the comparison: each backend's time per question and
// its work.
type ModelTiming struct {
	// Backend is the backends' time of this request in nanoseconds (the
	// answers remembered cost none), which the page's own end-to-end
	// figure sets apart from the rest.
	Backend  int64
	Columns  []string
	Rows     []TimingRow
	Compiles []string
	Work     []WorkLine
	Chart    *Chart
}

// TimingRow is one question of the step and each backend's time.
type TimingRow struct {
	Label, Title string
	Cells        []string
}

// Limits of the list, so that a model of any size renders a page of
// bounded size.
const (
	// treeRows is how many features the tree shows before the person
	// opens more: it opens level after level while they fit.
	treeRows = 250
	// groupRows is how many children of a group an open subtree lists
	// before the person asks for all of them; the children on the way
	// to a decision or to Why? are listed besides. A wide group of a
	// large model (a root of hundreds of branches) shows a screenful, and
	// each answer stays small enough to send and paint at once.
	groupRows = 25
	// maxRows is the most rows a page ever lists, whatever is open.
	maxRows = 500
	// pageRows is a page of a flat list.
	pageRows = 200
)

var stateTexts = map[configurator.FeatureState]string{
	configurator.Open:       "free",
	configurator.Selected:   "selected by you",
	configurator.Deselected: "deselected by you",
	configurator.ForcedOn:   "forced on",
	configurator.ForcedOff:  "forced off",
}

var stateGlyphs = map[configurator.FeatureState]string{
	configurator.Open:       "☐",
	configurator.Selected:   "☑",
	configurator.Deselected: "☒",
	configurator.ForcedOn:   "▣",
	configurator.ForcedOff:  "⊘",
}

// Title is the tab's title.
func (v *ModelApp) title() string {
	if v.Model.Name == "" {
		return "Model · BDD/SAT configurator"
	}
	return v.Model.Name + " · BDD/SAT configurator"
}

// NewModelPage wraps a model app into a page.
func NewModelPage(site *Site, app *ModelApp) *ModelPage {
	return &ModelPage{Title: app.Title, Version: site.Version, App: app}
}

// ModelNotice is the app of a model page that shows no model: the notice
// of p, and a way back.
func ModelNotice(st modelstate.State, p *problem.Problem) *ModelApp {
	v := &ModelApp{Href: st.Href(), Notice: NoticeOf(p), Fatal: true}
	v.Title = v.title()
	return v
}

// NewModelApp builds the model page's app from a step.
func NewModelApp(site *Site, r *ModelStep) *ModelApp {
	st, m := r.State, r.Model
	v := &ModelApp{
		Href:  st.Href(),
		Model: modelHead(st.Model, r.Name, m),
		Find:  st.Find,
		Trail: board.FormatTrail(r.Trail),
	}
	v.Title = v.title()
	v.DiagramSrc = "/model-diagram?" + modelstate.State{Model: st.Model, Backend: st.Backend, Select: st.Select, Deselect: st.Deselect}.Query()
	v.Diagram = st.Diagram
	v.DiagramToggle = st.With(func(s *modelstate.State) { s.Diagram = !s.Diagram }).Href()
	v.Hidden = modelFields(st)
	v.Reset = Link{Label: "Reset", Href: st.With(func(s *modelstate.State) { s.Select, s.Deselect, s.Why = nil, nil, "" }).Href(),
		Title: "Take back every decision"}
	v.Modes = modelModes(site, st)
	v.ModeNote = r.Fallback
	if len(r.Pending) > 0 {
		// The page asks again by itself until the compile ends, and so
		// keeps it going while the page is open.
		v.Poll = st.Href()
	}
	for _, o := range []struct {
		show  modelstate.Show
		label string
	}{{modelstate.All, "every feature"}, {modelstate.Forced, "only forced"}, {modelstate.Free, "only free"}, {modelstate.Mine, "only my decisions"}} {
		v.Shows = append(v.Shows, Option{Value: string(o.show), Label: o.label, Selected: st.Show == o.show})
	}
	lead := leadRun(r.Runs)
	if lead == nil {
		v.Fatal = true
		return v
	}
	d := lead.Domains
	v.Count, v.Exact = configurations(lead.Backend, d), exactCount(d)
	v.Decisions = chips(m, d)
	if len(d.In(configurator.Open)) > 0 {
		v.Completes = completeLinks(st)
	}
	v.Files = configFiles(st, m)
	v.FactsSrc = factsSrc(st)
	if r.Changed != nil {
		v.Changed = stepChanges(st, r.Act, m, *r.Changed)
	}
	v.Shares = r.Marginals != nil && d.Configurations != nil && d.Configurations.Sign() > 0
	if !v.Shares {
		v.ShareNote = "Each feature's share of the configurations needs a backend that counts them for every feature (the BDD)."
	}
	v.Agreement, v.CountNote = modelAgreement(r.Runs)
	l := newLister(st, m, d, r.Marginals)
	if m.Grid != nil {
		v.Grid = featureGrid(l, r.RuleOut)
	}
	v.Tree = l.tree()
	if v.Tree {
		v.Rows, v.ListNote = l.treeRows()
	} else {
		v.Rows, v.ListNote, v.Prev, v.Next = l.flatRows()
	}
	if st.Why != "" {
		v.Why = whyPanel(st, m, r.Why, r.WhyErr)
	}
	v.Timing = modelTiming(r)
	return v
}

// leadRun is the first run that answered.
func leadRun(runs []ModelRun) *ModelRun {
	for i := range runs {
		if runs[i].Domains != nil {
			return &runs[i]
		}
	}
	return nil
}

func modelHead(id, name string, m *feature.Model) ModelHead {
	if name == "" {
		name = configurator.ModelName(m)
	}
	h := ModelHead{ID: id, Name: name, Format: strings.ToUpper(string(m.Format)),
		Features: words.Plural(int64(len(m.Features)), "feature")}
	switch {
	case len(m.Clauses) > 0:
		h.Constraints = words.Plural(int64(len(m.Clauses)), "clause")
	default:
		h.Constraints = words.Plural(int64(len(m.Constraints)), "constraint")
	}
	return h
}

// modelFields are the state's hidden fields in the page's form: every
// parameter but those the form's own controls set (the search and the
// filter).
func modelFields(st modelstate.State) []Field {
	fs := []Field{{"model", st.Model}}
	add := func(k, v string) {
		if v != "" {
			fs = append(fs, Field{k, v})
		}
	}
	add("select", modelstate.JoinNames(st.Select))
	add("deselect", modelstate.JoinNames(st.Deselect))
	add("backend", st.Backend)
	add("why", st.Why)
	add("open", modelstate.JoinNames(st.Open))
	if st.Diagram {
		add("diagram", "1")
	}
	return fs
}

// modelModes are the backend switch's links: every backend, then Both.
func modelModes(site *Site, st modelstate.State) []Link {
	var ls []Link
	for _, m := range site.Lineup.Modes() {
		name := string(m)
		if name == site.Lineup.Primary() {
			name = ""
		}
		cur := st.Backend == name || (st.Backend == site.Lineup.Primary() && name == "")
		title := site.Titles[string(m)]
		if m == board.All {
			title = "Every backend on every step, each checked against the first"
		}
		href := st.With(func(s *modelstate.State) { s.Backend = name }).Href()
		ls = append(ls, Link{Label: m.Label(), Href: href, Title: title, Current: cur})
	}
	return ls
}

// configurations says how many configurations remain, as far as the
// backend counted them; a count of more than maxDigits digits in powers of
// ten, so that it reads at a glance and fits a phone.
func configurations(backend string, d *configurator.Domains) string {
	n := d.Configurations
	switch {
	case n == nil:
		return fmt.Sprintf("%s does not count the configurations of this model", strings.ToUpper(backend))
	case d.AtLeast:
		return "at least " + count(n) + " configurations"
	case n.Cmp(big.NewInt(1)) == 0:
		return "1 configuration"
	}
	return count(n) + " configurations"
}

// maxDigits is the longest count written out in full.
const maxDigits = 15

// count writes n with thousands separators, or past maxDigits digits as
// "about 2.91 × 10¹¹⁴".
func count(n *big.Int) string {
	digits := n.String()
	if len(digits) <= maxDigits {
		return words.Group(n)
	}
	mant, exp, _ := strings.Cut(new(big.Float).SetInt(n).Text('e', 2), "e+")
	var sup strings.Builder
	for _, c := range strings.TrimLeft(exp, "0") {
		sup.WriteRune([]rune("⁰¹²³⁴⁵⁶⁷⁸⁹")[c-'0'])
	}
	return fmt.Sprintf("about %s × 10%s", mant, sup.String())
}

// exactCount is the whole count when count wrote it in powers of ten.
func exactCount(d *configurator.Domains) string {
	if n := d.Configurations; n != nil && len(n.String()) > maxDigits {
		return "Exactly " + words.Group(n) + "."
	}
	return ""
}

func chips(m *feature.Model, d *configurator.Domains) []Chip {
	var cs []Chip
	for f, s := range d.States {
		if s == configurator.Selected || s == configurator.Deselected {
			sign := "−"
			if s == configurator.Selected {
				sign = "+"
			}
			cs = append(cs, Chip{Text: sign + m.Features[f].Name, Feature: m.Features[f].Name, Select: s == configurator.Selected})
		}
	}
	return cs
}

// modelAgreement compares every run with the first that answered: the
// badge of Both, and the other backends' counts when they differ in kind
// (one exact, one a lower bound).
func modelAgreement(runs []ModelRun) (*Agreement, string) {
	if len(runs) < 2 {
		return nil, ""
	}
	lead := leadRun(runs)
	var names, notes []string
	a := &Agreement{Agree: true}
	for i := range runs {
		o := &runs[i]
		name := strings.ToUpper(o.Backend)
		if o.Domains == nil {
			notes = append(notes, fmt.Sprintf("%s could not answer: %s", name, strings.TrimSuffix(lowerFirst(problem.Describe(o.Err).Message), ".")))
			continue
		}
		names = append(names, name)
		if o == lead {
			continue
		}
		differ := 0
		for f, s := range o.Domains.States {
			if s != lead.Domains.States[f] {
				if differ < 10 {
					a.Details = append(a.Details, fmt.Sprintf("feature %d: %s says %s, %s says %s", f, strings.ToUpper(lead.Backend), lead.Domains.States[f], name, s))
				}
				differ++
			}
		}
		if differ > 0 {
			a.Agree = false
		}
		c1, c2 := lead.Domains.Configurations, o.Domains.Configurations
		if c1 != nil && c2 != nil && !lead.Domains.AtLeast && !o.Domains.AtLeast && c1.Cmp(c2) != 0 {
			a.Agree = false
			a.Details = append(a.Details, fmt.Sprintf("%s counts %s configurations, %s %s", strings.ToUpper(lead.Backend), words.Group(c1), name, words.Group(c2)))
		}
		if c2 != nil && (c1 == nil || lead.Domains.AtLeast != o.Domains.AtLeast) {
			notes = append(notes, name+": "+configurations(o.Backend, o.Domains))
		}
	}
	if len(names) < 2 {
		// Nothing to compare: the notes say who could not answer.
		return nil, words.Sentence(strings.Join(notes, "; "))
	}
	if a.Agree {
		a.Text = words.List(names, "and") + " agree on every feature"
	} else {
		a.Text = words.List(names, "and") + " DISAGREE"
	}
	return a, words.Sentence(strings.Join(notes, "; "))
}

// whyPanel words an explanation.
func whyPanel(st modelstate.State, m *feature.Model, e *configurator.FeatureExplanation, err error) *WhyPanel {
	p := &WhyPanel{Feature: st.Why, Title: "Why is " + words.Curly(st.Why) + " forced?"}
	if err != nil {
		p.Error = problem.Describe(err).Message
		return p
	}
	if e == nil {
		return p
	}
	how := "on"
	if e.State == configurator.ForcedOff {
		how = "off"
	}
	p.Title = fmt.Sprintf("Why is %s forced %s?", words.Curly(st.Why), how)
	p.Took = words.Duration(e.Elapsed)
	if e.Core {
		p.Core = true
		kind := "a core feature: every configuration selects it"
		if e.State == configurator.ForcedOff {
			kind = "a dead feature: no configuration selects it"
		}
		p.Text = "The model alone forces it, whatever you decide: it is " + kind + "."
	} else {
		p.Text = fmt.Sprintf("%s, each a smallest set of your decisions that forces it; undo one decision of every reason to free it.",
			words.UpperFirst(words.Plural(int64(len(e.Reasons)), "reason")))
	}
	for _, r := range e.Reasons {
		var parts, ids []string
		for _, d := range r.Decisions {
			verb := "deselected"
			if d.Select {
				verb = "selected"
			}
			parts = append(parts, fmt.Sprintf("%s %s", verb, words.Curly(m.Features[d.Feature].Name)))
			ids = append(ids, rowID(d.Feature))
		}
		wr := WhyReason{Rows: strings.Join(ids, " ")}
		if len(parts) == 0 {
			wr.Text = "The model itself"
		} else {
			wr.Text = "You " + words.List(parts, "and")
		}
		for _, o := range r.Constraints {
			wr.Constraints = append(wr.Constraints, m.Describe(o))
		}
		if len(wr.Constraints) == 0 {
			wr.Constraints = []string{"(the parts of the model that carry it were not found within the time)"}
		}
		p.Reasons = append(p.Reasons, wr)
	}
	if e.More {
		p.More = "There are more reasons than these: the search stopped at its limit."
	}
	if len(e.Room) > 0 {
		p.Room = configurator.FormatDecisions(m, e.Room)
	}
	return p
}

func rowID(f int) string { return fmt.Sprintf("f-%d", f) }

// modelTiming is the comparison panel.
func modelTiming(r *ModelStep) *ModelTiming {
	t := &ModelTiming{}
	rows := []TimingRow{
		{Label: "Valid domains", Title: "Which features are forced on, forced off or free"},
		{Label: "Count", Title: "How many configurations remain"},
		{Label: "Whole step", Title: "The backend's part of this request, the explanation included"},
	}
	var names []string
	for _, o := range r.Runs {
		name := strings.ToUpper(o.Backend)
		t.Columns = append(t.Columns, name)
		names = append(names, name)
		switch {
		case o.Err != nil:
			rows[0].Cells = append(rows[0].Cells, "–")
			rows[1].Cells = append(rows[1].Cells, "–")
			// A backend that failed (past its deadline) took its time too,
			// booked to it.
			rows[2].Cells = append(rows[2].Cells, words.MaybeDuration(o.Took))
			t.Backend += int64(o.Took)
			t.Compiles = append(t.Compiles, name+": "+lowerFirst(problem.Describe(o.Err).Message))
			continue
		case o.Domains != nil && o.Remembered:
			for i := range rows {
				rows[i].Cells = append(rows[i].Cells, "remembered")
			}
			t.Work = append(t.Work, WorkLine{Backend: name, Text: "none: the answer for these decisions was remembered"})
		case o.Domains != nil:
			w := o.Domains.Work
			rows[0].Cells = append(rows[0].Cells, words.MaybeDuration(w.Domains))
			rows[1].Cells = append(rows[1].Cells, words.MaybeDuration(w.Count))
			rows[2].Cells = append(rows[2].Cells, words.Duration(o.Took))
			t.Backend += int64(o.Took)
			t.Work = append(t.Work, WorkLine{Backend: name, Text: featureWork(w)})
		}
		c := fmt.Sprintf("%s: compiled in %s", name, words.Duration(o.Compile))
		if o.Loaded {
			c = fmt.Sprintf("%s: loaded from its saved file in %s", name, words.Duration(o.Compile))
		}
		if o.Domains != nil && o.Domains.Work.Nodes > 0 {
			c += ", " + words.Plural(o.Domains.Work.Nodes, "node")
		}
		t.Compiles = append(t.Compiles, c)
	}
	t.Rows = rows
	if len(r.Trail) >= 2 {
		cols := make([]int, len(r.Runs))
		for i := range cols {
			cols[i] = i
		}
		t.Chart = sessionChart(names, cols, r.Trail)
	}
	return t
}

// featureWork says what a backend did for a step on a model, in its own
// terms: a diagram's nodes, a solver's calls and how the features were
// decided.
func featureWork(w configurator.Work) string {
	var parts []string
	if w.Nodes > 0 {
		parts = append(parts, words.Plural(w.Nodes, "node")+" in the diagram")
	}
	if w.NodesVisited > 0 {
		parts = append(parts, words.Number(w.NodesVisited)+" visited")
	}
	if w.SolverCalls > 0 {
		parts = append(parts, words.Plural(w.SolverCalls, "solver call"), words.Plural(w.Conflicts, "conflict"), words.Plural(w.Decisions, "decision"))
	}
	if n := w.ByPropagation + w.ByWitness + w.BySolver; n > 0 {
		parts = append(parts, fmt.Sprintf("features decided by propagation %s, by a configuration found %s, by the solver %s",
			words.Number(int64(w.ByPropagation)), words.Number(int64(w.ByWitness)), words.Number(int64(w.BySolver))))
	}
	if len(parts) == 0 {
		return "no work figures"
	}
	return strings.Join(parts, "; ")
}

// lister lays out the features for the page.
type lister struct {
	st      modelstate.State
	m       *feature.Model
	d       *configurator.Domains
	shares  []*big.Int
	groups  [][]int // groups of each feature, by index into m.Groups
	depth   []int
	size    []int // features in each subtree, the root of it included
	rows    int   // rows laid out so far
	openAt  int   // features shallower than this are open by default
	opened  map[int]bool
	closed  map[int]bool
	all     map[int]bool // subtrees whose groups list every child
	onPath  map[int]bool // a decided feature, the one asked about, and their ancestors
	find    string
	matches func(f int) bool
}

func newLister(st modelstate.State, m *feature.Model, d *configurator.Domains, shares []*big.Int) *lister {
	l := &lister{st: st, m: m, d: d, shares: shares, find: strings.ToLower(st.Find)}
	l.matches = func(f int) bool {
		if l.find != "" && !strings.Contains(strings.ToLower(m.Features[f].Name), l.find) {
			return false
		}
		s := d.States[f]
		switch st.Show {
		case modelstate.Forced:
			return s == configurator.ForcedOn || s == configurator.ForcedOff
		case modelstate.Free:
			return s == configurator.Open
		case modelstate.Mine:
			return s == configurator.Selected || s == configurator.Deselected
		}
		return true
	}
	return l
}

// tree reports whether the features are shown as their tree: a model with
// one, neither searched nor filtered.
func (l *lister) tree() bool {
	return l.m.Root >= 0 && l.find == "" && l.st.Show == modelstate.All
}

// row is feature f's row, without its subtree.
func (l *lister) row(f int) *FeatureRow {
	ft := &l.m.Features[f]
	s := l.d.States[f]
	r := &FeatureRow{ID: rowID(f), Name: ft.Name, State: s.String(), StateText: stateTexts[s], Glyph: stateGlyphs[s], Abstract: ft.Abstract}
	r.CanDecide = s == configurator.Open
	r.CanUndo = s == configurator.Selected || s == configurator.Deselected
	r.CanWhy = s == configurator.ForcedOn || s == configurator.ForcedOff
	r.Asked = ft.Name == l.st.Why
	if s == configurator.Open && l.shares != nil && l.d.Configurations != nil && l.d.Configurations.Sign() > 0 {
		// A decided or forced feature is in all of them or none; a free
		// one in some but not all, which its rounded share must not hide.
		pct := share(l.shares[f], l.d.Configurations)
		r.Share, r.Heat = fmt.Sprintf("%d%%", pct), heatLevel(pct)
		switch pct {
		case 0:
			r.Share = "<1%"
		case 100:
			r.Share = ">99%"
		}
	}
	if ft.Group >= 0 {
		switch l.m.Groups[ft.Group].Kind {
		case feature.GroupMandatory:
			r.Edge = "mandatory"
		case feature.GroupOptional:
			r.Edge = "optional"
		}
	}
	return r
}

// treeRows lays out the tree: level after level open while the rows fit
// in treeRows, the subtrees the person opened, and the paths to every
// decided feature and to the one asked about; at most maxRows rows.
func (l *lister) treeRows() ([]*FeatureRow, string) {
	m := l.m
	n := len(m.Features)
	l.groups = make([][]int, n)
	for gi, g := range m.Groups {
		l.groups[g.Parent] = append(l.groups[g.Parent], gi)
	}
	l.depth, l.size = make([]int, n), make([]int, n)
	perDepth := []int{}
	for f := range m.Features {
		if p := m.Features[f].Parent; p >= 0 {
			l.depth[f] = l.depth[p] + 1
		}
		for len(perDepth) <= l.depth[f] {
			perDepth = append(perDepth, 0)
		}
		perDepth[l.depth[f]]++
	}
	for f := n - 1; f >= 0; f-- {
		l.size[f]++
		if p := m.Features[f].Parent; p >= 0 {
			l.size[p] += l.size[f]
		}
	}
	// Open every feature shallower than openAt: the rows down to depth
	// openAt, the deepest level whose rows, with those above, fit.
	l.openAt, l.rows = 1, 0
	for total, d := perDepth[0], 1; d < len(perDepth); d++ {
		if total += perDepth[d]; total > treeRows {
			break
		}
		l.openAt = d
	}
	l.opened, l.closed, l.all, l.onPath = map[int]bool{}, map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, name := range l.st.Open {
		how := modelstate.ParseOpen(name)
		f, ok := m.ID(how.Feature)
		if !ok {
			continue
		}
		switch {
		case how.Closed:
			l.closed[f] = true
		case how.All:
			l.opened[f], l.all[f] = true, true
		default:
			l.opened[f] = true
		}
	}
	show := func(f int) {
		l.onPath[f] = true
		for p := m.Features[f].Parent; p >= 0; p = m.Features[p].Parent {
			l.opened[p], l.onPath[p] = true, true
		}
	}
	for f, s := range l.d.States {
		if s == configurator.Selected || s == configurator.Deselected {
			show(f)
		}
	}
	if f, ok := m.ID(l.st.Why); ok {
		show(f)
	}
	root := l.subtree(m.Root)
	note := ""
	if l.rows >= maxRows {
		note = fmt.Sprintf("The tree shows its first %s rows: close some subtrees, or search, to see the others.", words.Number(maxRows))
	}
	return []*FeatureRow{root}, note
}

// open reports whether f's subtree is shown.
func (l *lister) open(f int) bool {
	if l.closed[f] {
		return false
	}
	return l.opened[f] || l.depth[f] < l.openAt
}

// subtree lays out f and, when it is open, its groups.
func (l *lister) subtree(f int) *FeatureRow {
	r := l.row(f)
	l.rows++
	r.Kids = len(l.groups[f]) > 0
	if !r.Kids {
		return r
	}
	r.Open = l.open(f)
	if !r.Open || l.rows >= maxRows {
		r.Open = false
		r.Hidden = words.Plural(int64(l.size[f]-1), "feature")
		return r
	}
	for _, gi := range l.groups[f] {
		g := &l.m.Groups[gi]
		gr := &GroupRow{Kind: g.Kind.String()}
		lo, hi := g.Bounds()
		switch g.Kind {
		case feature.GroupOr:
			gr.Label = "or: at least one"
		case feature.GroupAlternative:
			gr.Label = "alternative: exactly one"
		case feature.GroupCardinality:
			gr.Label = fmt.Sprintf("[%d..%d]: between %d and %d", lo, hi, lo, hi)
		}
		more := 0
		skip := func(n int) {
			if more == 0 {
				gr.MoreAt = len(gr.Rows)
			}
			more += n
		}
		for i, c := range g.Children {
			if l.rows >= maxRows {
				skip(len(g.Children) - i)
				break
			}
			if i >= groupRows && !l.all[f] && !l.onPath[c] {
				skip(1)
				continue
			}
			gr.Rows = append(gr.Rows, l.subtree(c))
		}
		if more > 0 {
			gr.More, gr.Parent = words.Plural(int64(more), "more feature"), l.m.Features[f].Name
		}
		r.Groups = append(r.Groups, gr)
	}
	return r
}

// flatRows lists the features that match the search and the filter, a page
// of them from the state's From, with links to the pages before and after.
func (l *lister) flatRows() (rows []*FeatureRow, note string, prev, next *Link) {
	m := l.m
	var hits []int
	for f := range m.Features {
		if l.matches(f) {
			hits = append(hits, f)
		}
	}
	from := min(l.st.From, max(len(hits)-1, 0))
	from -= from % pageRows
	to := min(from+pageRows, len(hits))
	for _, f := range hits[from:to] {
		r := l.row(f)
		r.Hit = l.find != ""
		if p := m.Features[f].Parent; p >= 0 {
			r.Path = "in " + m.Features[p].Name
		}
		rows = append(rows, r)
	}
	what := "feature"
	switch {
	case l.find != "" && l.st.Show != modelstate.All:
		what = fmt.Sprintf("%s feature", strings.TrimPrefix(string(l.st.Show), "only "))
	case l.st.Show != modelstate.All:
		what = string(l.st.Show) + " feature"
	}
	switch {
	case len(hits) == 0 && l.find != "":
		note = fmt.Sprintf("No %s matches %s.", what, words.Curly(l.st.Find))
	case len(hits) == 0:
		note = fmt.Sprintf("No %s.", what)
	case l.find != "":
		note = fmt.Sprintf("%s match %s.", words.UpperFirst(words.Plural(int64(len(hits)), what)), words.Curly(l.st.Find))
	default:
		note = words.UpperFirst(words.Plural(int64(len(hits)), what)) + "."
	}
	if len(hits) > pageRows {
		note += fmt.Sprintf(" Showing %s to %s.", words.Number(int64(from+1)), words.Number(int64(to)))
		if from > 0 {
			prev = &Link{Label: "Previous " + words.Number(pageRows), Href: l.st.With(func(s *modelstate.State) { s.From = from - pageRows }).Href()}
		}
		if to < len(hits) {
			next = &Link{Label: "Next " + words.Number(int64(min(pageRows, len(hits)-to))), Href: l.st.With(func(s *modelstate.State) { s.From = to }).Href()}
		}
	}
	return rows, note, prev, next
}

// ModelsPage is the page that opens a model: the bundled examples and an
// upload.
type ModelsPage struct {
	Title, Version string
	Examples       []ModelLink
	// Boards are the built-in N-Queens boards offered, by size.
	Boards []ModelLink
	// Limit says the largest file the upload takes, before it starts.
	Limit  string
	Notice *Notice
}

// ModelLink is a model the page offers.
type ModelLink struct {
	Name, Href, Format, Features, About string
}

// NewModelsPage is the page that opens a model.
func NewModelsPage(site *Site, examples, boards []ModelLink, limit int64, n *Notice) *ModelsPage {
	return &ModelsPage{Title: "Open a model · BDD/SAT configurator", Version: site.Version, Examples: slices.Clone(examples), Boards: slices.Clone(boards),
		Limit: bytesize.Format(limit), Notice: n}
}

// lowerFirst starts a sentence in the middle of another.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
