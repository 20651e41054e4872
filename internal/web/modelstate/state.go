// Package modelstate is the model page's state as its address carries it:
// which model, the person's decisions by feature name
// (/?model=ID&select=A,B&deselect=C), the backend, the feature whose Why?
// is open, how the feature list is shown (a search, a filter, the
// subtrees opened or closed, the first row of a long list) and whether the
// decision diagram's panel is open. A list of names is separated by
// commas; a name that holds a comma is quoted (see SplitNames). The page keeps
// no state on the server: every request carries it, so that an address
// can be bookmarked and shared and Back and Forward undo and redo.
package modelstate

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// Show filters the features the page lists.
type Show string

const (
	// All lists every feature (the tree of a feature model).
	All Show = ""
	// Forced lists the features the decisions force on or off.
	Forced Show = "forced"
	// Free lists the features that remain open.
	Free Show = "free"
	// Mine lists the features the person decided.
	Mine Show = "mine"
)

// State is the page's state, exactly as the address carries it.
type State struct {
	Model string
	// Select and Deselect name the person's decisions, each list in the
	// order the decisions were made.
	Select, Deselect []string
	// Backend is a backend's name or "both"; "" is the primary.
	Backend string
	// Why names the forced feature whose reasons are shown; "" none.
	Why string
	// Find is a search of the features' names; Show a filter by state.
	Find string
	Show Show
	// Open lists the subtrees opened beyond those the page opens by
	// itself; a name with a leading "-" is a subtree closed, one with a
	// leading "*" a subtree opened with every child of its groups listed
	// (see ParseOpen).
	Open []string
	// From is the first row shown of a list longer than a page.
	From int
	// Diagram is the decision diagram's panel open (diagram=1).
	Diagram bool
}

// Limits on what an address may carry, so that a request's work is
// bounded before any model is read.
const (
	maxNames = 10000
	maxFind  = 200
)

// params are the query parameters of a state; actions are the
// parameters of one step.
var (
	params  = []string{"model", "select", "deselect", "backend", "why", "find", "show", "open", "from", "diagram"}
	actions = []string{"pick", "drop", "undo", "room", "toggle", "ask", "close"}
)

// modelID is what a model's identifier looks like: a content hash or a
// bundled example's name.
var modelID = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,80}$`)

// Parse reads a state from a query. Anything malformed is a 400 problem in
// words.
func Parse(v url.Values) (State, error) {
	var st State
	for _, name := range append(slices.Clone(params), actions...) {
		if len(v[name]) > 1 {
			return st, problem.New(http.StatusBadRequest, "The parameter %q appears more than once in the address; give it once.", name)
		}
	}
	st.Model = v.Get("model")
	if !modelID.MatchString(st.Model) {
		return st, problem.New(http.StatusBadRequest, "%s names no model: a model's address is /?model= followed by the identifier its upload returned or a bundled example's name.", words.Quote(st.Model))
	}
	var err error
	if st.Select, err = names(v.Get("select"), "select"); err != nil {
		return st, err
	}
	if st.Deselect, err = names(v.Get("deselect"), "deselect"); err != nil {
		return st, err
	}
	if len(st.Select)+len(st.Deselect) > maxNames {
		return st, problem.New(http.StatusRequestURITooLong, "The address makes more than %s decisions.", words.Number(maxNames))
	}
	st.Backend = strings.ToLower(v.Get("backend"))
	st.Why = v.Get("why")
	st.Find = v.Get("find")
	if len(st.Find) > maxFind {
		return st, problem.New(http.StatusBadRequest, "The search is longer than %d characters.", maxFind)
	}
	switch sh := Show(v.Get("show")); sh {
	case All, Forced, Free, Mine:
		st.Show = sh
	case "all":
		st.Show = All
	default:
		return st, problem.New(http.StatusBadRequest, "%s is no filter: show=forced, free or mine, or none for every feature.", words.Quote(string(sh)))
	}
	if st.Open, err = names(v.Get("open"), "open"); err != nil {
		return st, err
	}
	if s := v.Get("from"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return st, problem.New(http.StatusBadRequest, "from=%s is not a row number.", words.Quote(s))
		}
		st.From = n
	}
	switch d := v.Get("diagram"); d {
	case "", "0":
	case "1":
		st.Diagram = true
	default:
		return st, problem.New(http.StatusBadRequest, "The parameter \"diagram\" takes 1 or 0, not %s.", words.Quote(d))
	}
	return st, nil
}

// names reads a list of feature names (SplitNames), at most maxNames of
// them.
func names(s, param string) ([]string, error) {
	out, err := SplitNames(s)
	if err != nil {
		return nil, problem.New(http.StatusBadRequest, "The list in %s cannot be read: %v.", param, err)
	}
	if len(out) > maxNames {
		return nil, problem.New(http.StatusRequestURITooLong, "The address lists more than %s names in %s.", words.Number(maxNames), param)
	}
	return out, nil
}

// SplitNames reads a list of feature names as an address carries it: the
// names separated by commas, spaces around them dropped, and so are empty
// entries (a trailing comma). A name that holds a comma, or starts with a
// double quote, is written between double quotes, a double quote in it
// doubled, as in CSV: "Size, large",Colour is the two names Size, large
// and Colour. The rest of a list reads as it is written, so that the
// usual names stay readable in the address bar.
func SplitNames(s string) ([]string, error) {
	var out []string
	for s != "" {
		var name string
		if t := strings.TrimLeft(s, " "); strings.HasPrefix(t, `"`) {
			var b strings.Builder
			i := 1
			for {
				j := strings.IndexByte(t[i:], '"')
				if j < 0 {
					return nil, fmt.Errorf("the quote before %s is not closed", words.Quote(t[1:]))
				}
				b.WriteString(t[i : i+j])
				i += j + 1
				if !strings.HasPrefix(t[i:], `"`) {
					break
				}
				b.WriteByte('"')
				i++
			}
			rest := strings.TrimLeft(t[i:], " ")
			if rest != "" && rest[0] != ',' {
				return nil, fmt.Errorf("the quoted name %s is followed by %s, not by a comma", words.Quote(b.String()), words.Quote(rest))
			}
			name, s = b.String(), strings.TrimPrefix(rest, ",")
		} else {
			name, s, _ = strings.Cut(s, ",")
			name = strings.TrimSpace(name)
		}
		if name != "" {
			out = append(out, name)
		}
	}
	return out, nil
}

// JoinNames writes a list of feature names as SplitNames reads it.
func JoinNames(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.Contains(n, ",") || strings.HasPrefix(n, `"`) || n != strings.TrimSpace(n) {
			n = `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
		}
		b.WriteString(n)
	}
	return b.String()
}

// Query writes the state as a query string, parameters in a fixed order
// and defaults left out, so that one state has one address.
func (st State) Query() string {
	var b strings.Builder
	add := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(escape(v))
	}
	add("model", st.Model)
	add("select", JoinNames(st.Select))
	add("deselect", JoinNames(st.Deselect))
	add("backend", st.Backend)
	add("why", st.Why)
	add("find", st.Find)
	add("show", string(st.Show))
	add("open", JoinNames(st.Open))
	if st.From > 0 {
		add("from", strconv.Itoa(st.From))
	}
	if st.Diagram {
		add("diagram", "1")
	}
	return b.String()
}

// escape escapes a query value but keeps the commas that separate names,
// the star of a subtree listed whole and the characters names are
// usually made of readable.
func escape(s string) string {
	e := url.QueryEscape(s)
	return strings.NewReplacer("%2C", ",", "%2A", "*", "%2F", "/", "%3A", ":").Replace(e)
}

// Href is the state's address.
func (st State) Href() string { return "/?" + st.Query() }

// With returns a copy of the state changed by f; the lists are copied, so
// f may change them.
func (st State) With(f func(*State)) State {
	st.Select, st.Deselect, st.Open = slices.Clone(st.Select), slices.Clone(st.Deselect), slices.Clone(st.Open)
	f(&st)
	return st
}

// Decided reports whether the person decided the feature named name, and
// how.
func (st State) Decided(name string) (decided, selected bool) {
	if slices.Contains(st.Select, name) {
		return true, true
	}
	return slices.Contains(st.Deselect, name), false
}

// Without is the state without the person's decisions on the named
// features.
func (st State) Without(names ...string) State {
	return st.With(func(s *State) {
		drop := func(n string) bool { return slices.Contains(names, n) }
		s.Select = slices.DeleteFunc(s.Select, drop)
		s.Deselect = slices.DeleteFunc(s.Deselect, drop)
	})
}

// Opened is one entry of State.Open, read.
type Opened struct {
	Feature string
	// Closed marks a subtree closed, All one whose groups list every
	// child, not only the first ones.
	Closed, All bool
}

// ParseOpen reads an entry of State.Open or of a toggle: "A" opens A's
// subtree, "-A" closes it and "*A" opens it with every child listed.
func ParseOpen(s string) Opened {
	switch {
	case strings.HasPrefix(s, "-"):
		return Opened{Feature: s[1:], Closed: true}
	case strings.HasPrefix(s, "*"):
		return Opened{Feature: s[1:], All: true}
	}
	return Opened{Feature: s}
}

// Kind is what a step does.
type Kind uint8

const (
	// View shows the state: a page, a reload.
	View Kind = iota
	// Pick selects a feature.
	Pick
	// Drop deselects a feature.
	Drop
	// Undo takes back the person's decision on a feature.
	Undo
	// Room undoes the fewest decisions that free a forced feature.
	Room
	// Toggle opens a subtree of the tree, or closes it, or lists every
	// child of its groups (ParseOpen).
	Toggle
	// Ask opens Why? for a forced feature.
	Ask
	// Close closes Why?.
	Close
)

// Action is one step: what it does and to which feature.
type Action struct {
	Kind    Kind
	Feature string
}

// Decides reports whether the action changes the decisions.
func (a Action) Decides() bool { return a.Kind >= Pick && a.Kind <= Room }

// Kept reports whether the browser's history keeps the step as an entry
// of its own (Back undoes it), rather than replacing the entry shown: the
// decisions and the Why? panel, not how the list is shown.
func (a Action) Kept() bool { return a.Decides() || a.Kind == Ask || a.Kind == Close }

// ParseAction reads the step of a request: at most one of pick, drop,
// undo, room, toggle, ask (each naming a feature), close, and square (a
// square of a grid: pick, or drop with RuleOut).
func ParseAction(v url.Values) (Action, error) {
	var a Action
	for i, name := range actions {
		f := v.Get(name)
		if f == "" {
			continue
		}
		if a.Kind != View {
			return Action{}, problem.New(http.StatusBadRequest, "The address asks for two steps at once (%s and %s); ask for one.", actions[a.Kind-1], name)
		}
		a = Action{Kind: Kind(i + 1), Feature: f}
	}
	if f := v.Get("square"); f != "" {
		// A square of a grid, clicked: selected, or deselected when the
		// page's control says a click rules squares out (RuleOut).
		if a.Kind != View {
			return Action{}, problem.New(http.StatusBadRequest, "The address asks for two steps at once (%s and square); ask for one.", actions[a.Kind-1])
		}
		a = Action{Kind: Pick, Feature: f}
		if RuleOut(v) {
			a.Kind = Drop
		}
	}
	return a, nil
}

// RuleOut reports whether a click on a square of a grid rules it out
// (deselects its feature) rather than selects it: the page's control,
// sent with every step of its form (rule=1).
func RuleOut(v url.Values) bool { return v.Get("rule") == "1" }

// Label names a step for the list of steps: "+A" selects, "−A"
// deselects, "undo A", "make room for A".
func (a Action) Label() string {
	switch a.Kind {
	case Pick:
		return "+" + a.Feature
	case Drop:
		return "−" + a.Feature
	case Undo:
		return "undo " + a.Feature
	case Room:
		return "make room for " + a.Feature
	}
	return ""
}

// String is the state for logs and tests.
func (st State) String() string { return fmt.Sprintf("model state %s", st.Query()) }
