package view

import (
	"cmp"
	"encoding/json"
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
	// Orders is the order panel of a board's page; nil on any other.
	Orders *OrdersPanel
	// Name is the model's name as the store knows it (its namespace, or
	// its file's name); "" to name it from the model alone.
	Name string
	// LeftOut says which backends Both leaves out on this model, and why
	// (they missed their deadline at an earlier step); "" for none.
	LeftOut string
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
	LeftOut       string // the backends Both leaves out, and why
	// Poll is the address the page asks again, after a pause, while a
	// backend of its mode is still compiling the model; "" otherwise.
	Poll  string
	Reset Link

	Count     string
	Exact     string // a count too long for the headline, in full
	CountNote string
	// Unsettled says which features the lead backend's deadline left
	// unsettled (configurator.Unsettled); "" when it settled every one.
	Unsettled string
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
	ShareNote string // why they do not

	Why    *WhyPanel
	Timing *ModelTiming
	// Sizes chooses another board, on a board's page; nil on any other.
	Sizes *BoardSizes
	// Orders is a board's order panel: what the variable order does to
	// its diagram; nil on any other page.
	Orders *OrdersPanel
	// DiagramBoard is a board's own diagram (its rank view and its BDD
	// in the board's order) in place of the model's, while no square is
	// ruled out (the board's diagram knows queens only); nil otherwise.
	DiagramBoard *DiagramBoard
}

// DiagramBoard is what the diagram viewer asks the board's diagram for
// (POST /api/v1/diagram): the size and the queens, as JSON pairs.
type DiagramBoard struct {
	N      int
	Queens string
}

// BoardSizes is the choice of a board's size: every board some backend of
// the server serves, each the model queens-N, on the page's backend.
type BoardSizes struct {
	Options []Option
	Backend string
}

// diagramBoard is the board diagram's request of the queens named by
// selected on the board model m.
func diagramBoard(m *feature.Model, selected []string) *DiagramBoard {
	pairs := make([][2]int, 0, len(selected))
	for _, name := range selected {
		if f, ok := m.ID(name); ok {
			pairs = append(pairs, [2]int{f / m.Grid.Cols, f % m.Grid.Cols})
		}
	}
	q, _ := json.Marshal(pairs)
	return &DiagramBoard{N: m.Grid.Rows, Queens: string(q)}
}

// boardSizes is the size choice of the page of an n×n board.
func boardSizes(site *Site, n int, backend string) *BoardSizes {
	hi := 0
	for _, b := range site.Lineup.Names() {
		hi = max(hi, site.Lineup.MaxN(b))
	}
	bs := &BoardSizes{Backend: backend}
	for k := 1; k <= hi; k++ {
		bs.Options = append(bs.Options, Option{Value: configurator.BoardID(k), Label: fmt.Sprintf("%d × %d", k, k), Selected: k == n})
	}
	return bs
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
	if g := m.Grid; g != nil && g.Queens {
		v.Sizes = boardSizes(site, g.Rows, st.Backend)
		if len(st.Deselect) == 0 {
			v.DiagramBoard = diagramBoard(m, st.Select)
		}
	}
	v.DiagramSrc = "/model-diagram?" + modelstate.State{Model: st.Model, Backend: st.Backend, Select: st.Select, Deselect: st.Deselect}.Query()
	v.Diagram = st.Diagram
	v.DiagramToggle = st.With(func(s *modelstate.State) { s.Diagram = !s.Diagram }).Href()
	v.Hidden = modelFields(st)
	v.Reset = Link{Label: "Reset", Href: st.With(func(s *modelstate.State) { s.Select, s.Deselect, s.Why = nil, nil, "" }).Href(),
		Title: "Take back every decision"}
	v.Modes = modelModes(site, st, r.LeftOut)
	v.ModeNote, v.LeftOut = r.Fallback, r.LeftOut
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
	if len(d.In(configurator.Open)) > 0 || !d.Settled() {
		v.Completes = completeLinks(st)
	}
	if n := len(d.In(configurator.Unsettled)); n > 0 {
		v.Unsettled = fmt.Sprintf("%s's deadline came before it settled %s (marked ?): each may be free or forced. The others are settled; your next step, or a reload, asks again.",
			strings.ToUpper(lead.Backend), words.Plural(int64(n), "feature"))
	}
	v.Files = configFiles(st, m)
	v.FactsSrc = "/model-facts?" + modelstate.State{Model: st.Model, Backend: st.Backend}.Query()
	if r.Changed != nil {
		v.Changed = stepChanges(st, r.Act, m, *r.Changed)
	}
	if r.Marginals == nil || d.Configurations == nil || d.Configurations.Sign() <= 0 {
		v.ShareNote = "Each feature's share of the configurations needs a backend that counts them for every feature (the BDD)."
	}
	v.Agreement, v.CountNote = modelAgreement(m, r.Runs)
	l := newLister(st, m, d, r.Marginals)
	if m.Grid != nil {
		v.Grid = featureGrid(l, r.RuleOut)
		v.Grid.ShareNote = v.ShareNote
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
	v.Orders = r.Orders
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
	h := ModelHead{ID: id, Name: cmp.Or(name, configurator.ModelName(m)), Format: strings.ToUpper(string(m.Format)),
		Features: words.Plural(int64(len(m.Features)), "feature")}
	h.Constraints = words.Plural(int64(len(m.Constraints)), "constraint")
	if len(m.Clauses) > 0 {
		h.Constraints = words.Plural(int64(len(m.Clauses)), "clause")
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

// modelModes are the backend switch's links: every backend, then Both,
// whose title ends with leftOut (see ModelStep.LeftOut).
func modelModes(site *Site, st modelstate.State, leftOut string) []Link {
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
			if leftOut != "" {
				title += ". " + leftOut
			}
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
	case n == nil && len(d.In(configurator.Open)) == 0 && d.Settled():
		// Every feature decided or forced, and the decisions kept: one
		// configuration is left, counted or not.
		return "1 configuration"
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
// badge of Both, the alarm that names the first features of m on which
// they differ, and the other backends' counts when they differ in kind
// (one exact, one a lower bound).
func modelAgreement(m *feature.Model, runs []ModelRun) (*Agreement, string) {
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
					a.Details = append(a.Details, fmt.Sprintf("%s: %s says %s, %s says %s", m.Features[f].Name,
						strings.ToUpper(lead.Backend), stateTexts[lead.Domains.States[f]], name, stateTexts[s]))
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
		switch {
		case c2 == nil && c1 != nil && len(o.Domains.In(configurator.Open)) > 0:
			// The count shown is the leader's alone.
			notes = append(notes, name+" does not count the configurations of this model")
		case c2 != nil && (c1 == nil || lead.Domains.AtLeast != o.Domains.AtLeast):
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
	Name, Href, Format, Features string
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
