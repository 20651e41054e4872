package view

import (
	"fmt"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
)

// completeWays are the model page's Complete choices: the way, its label
// and what it does.
var completeWays = []struct {
	how          configurator.How
	label, title string
}{
	{configurator.Uniform, "At random", "A configuration drawn uniformly at random from those left (a backend that counts them: the BDD)"},
	{configurator.Fewest, "Fewest features", "A configuration of those left that selects the fewest features"},
	{configurator.Most, "Most features", "A configuration of those left that selects the most features"},
}

// completeLinks are the addresses of the Complete choices for the state's
// decisions (GET /model-complete).
func completeLinks(st modelstate.State) []Link {
	q := modelstate.State{Model: st.Model, Backend: st.Backend, Select: st.Select, Deselect: st.Deselect}.Query()
	out := make([]Link, len(completeWays))
	for i, w := range completeWays {
		out[i] = Link{Label: w.label, Title: w.title, Href: "/model-complete?" + q + "&how=" + w.how.String()}
	}
	return out
}

// ModelCompletion is the answer of a Complete choice: the configuration
// found, what is known of it, and the address that applies it (every
// feature decided as it says, the person's decisions first).
type ModelCompletion struct {
	Title    string
	Headline string
	Note     string
	Selected string
	Apply    string
	// Downloads are the configuration's files, every feature decided.
	Downloads []Link
	// Back is the model page the choice was made on.
	Back string
	Err  string
}

// fewerMore is the comparison of an extreme: fewer (Fewest), more (Most).
func fewerMore(how configurator.How) string {
	if how == configurator.Most {
		return "more"
	}
	return "fewer"
}

// completionList is how many selected features the answer names before
// it says how many more.
const completionList = 60

// NewModelCompletion describes a completion c of the state's decisions on
// m, found by backend in took.
func NewModelCompletion(st modelstate.State, m *feature.Model, backend string, c *configurator.Completion, took string) *ModelCompletion {
	v := &ModelCompletion{Title: "Completed configuration", Back: st.Href()}
	n := c.Selections()
	b := strings.ToUpper(backend)
	switch {
	case c.How == configurator.Uniform:
		v.Headline = fmt.Sprintf("At random: %d of %d features selected", n, len(m.Features))
		v.Note = fmt.Sprintf("Drawn uniformly from the configurations left by %s in %s.", b, took)
	case c.Exact:
		v.Headline = fmt.Sprintf("%s: %d of %d features selected", completeWays[c.How].label, n, len(m.Features))
		v.Note = fmt.Sprintf("No configuration left selects %s (proven by %s in %s).", fewerMore(c.How), b, took)
	default:
		v.Headline = fmt.Sprintf("%s: %d of %d features selected, the best found", completeWays[c.How].label, n, len(m.Features))
		v.Note = fmt.Sprintf("%s ran out of time before it proved it the extreme: no configuration selects %s than %d.", b, fewerMore(c.How), c.Bound)
	}
	var sel, desel, names []string
	for f, on := range c.Selected {
		name := m.Features[f].Name
		decided, _ := st.Decided(name)
		if on && len(names) < completionList {
			names = append(names, name)
		}
		switch {
		case decided:
		case on:
			sel = append(sel, name)
		default:
			desel = append(desel, name)
		}
	}
	v.Selected = strings.Join(names, ", ")
	if n > len(names) {
		v.Selected += fmt.Sprintf(", and %d more", n-len(names))
	}
	applied := st.With(func(s *modelstate.State) {
		s.Select, s.Deselect, s.Why = append(s.Select, sel...), append(s.Deselect, desel...), ""
	})
	v.Apply = applied.Href()
	v.Downloads = configFiles(applied, m).Downloads
	return v
}
