package view

import (
	"cmp"
	"fmt"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/words"
)

// StepChanges says what a step did, first on the page: the step ("+a1",
// "undo b2") and the features it forced on, forced off and freed, each a
// link that opens its Why?.
type StepChanges struct {
	Step  string
	Parts []ChangePart
	// None says the step changed no other feature.
	None bool
}

// ChangePart is one kind of change: its words ("forced off") and the
// features it names, at most maxChanged of them, More the rest.
type ChangePart struct {
	Label    string
	Features []Link
	More     string
}

// maxChanged is the most features a part of the step's changes names;
// the tree and the list show the rest.
const maxChanged = 12

// stepChanges words the changes c of the step act that led to st.
func stepChanges(st modelstate.State, act modelstate.Action, m *feature.Model, c configurator.Changes) *StepChanges {
	sc := &StepChanges{Step: cmp.Or(act.Label(), "This step"), None: c.Empty()}
	noun := "feature"
	if m.Grid != nil && m.Grid.Queens {
		noun = "square"
	}
	for _, p := range []struct {
		label string
		fs    []int
		why   bool
	}{{"forced on", c.ForcedOn, true}, {"forced off", c.ForcedOff, true}, {"freed", c.Freed, false}} {
		if len(p.fs) == 0 {
			continue
		}
		part := ChangePart{Label: fmt.Sprintf("%s %s", p.label, words.Plural(int64(len(p.fs)), noun))}
		for i, f := range p.fs {
			if i == maxChanged {
				part.More = fmt.Sprintf("and %s more", words.Number(int64(len(p.fs)-maxChanged)))
				break
			}
			name := m.Features[f].Name
			l := Link{Label: name, Href: "#" + rowID(f), Title: name + " is " + p.label}
			if p.why {
				l.Href = st.With(func(s *modelstate.State) { s.Why = name }).Href()
				l.Title = "Why is " + name + " " + p.label + "?"
			}
			part.Features = append(part.Features, l)
		}
		sc.Parts = append(sc.Parts, part)
	}
	return sc
}
