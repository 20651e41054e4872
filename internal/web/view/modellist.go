package view

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/words"
)

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
	configurator.Unsettled:  "not settled yet (free or forced)",
}

var stateGlyphs = map[configurator.FeatureState]string{
	configurator.Open:       "☐",
	configurator.Selected:   "☑",
	configurator.Deselected: "☒",
	configurator.ForcedOn:   "▣",
	configurator.ForcedOff:  "⊘",
	configurator.Unsettled:  "?",
}

func rowID(f int) string { return fmt.Sprintf("f-%d", f) }

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
	// An unsettled feature may be decided: the next step settles it, or
	// says which decisions exclude the value chosen.
	r.CanDecide = s == configurator.Open || s == configurator.Unsettled
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
		if p := m.Features[f].Parent; p >= 0 {
			r.Path = "in " + m.Features[p].Name
		}
		rows = append(rows, r)
	}
	what := "feature"
	switch l.st.Show {
	case modelstate.Forced, modelstate.Free:
		what = string(l.st.Show) + " feature"
	case modelstate.Mine:
		what = "decided feature"
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
