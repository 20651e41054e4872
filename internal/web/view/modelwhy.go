package view

import (
	"fmt"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// WhyPanel says why a feature is forced.
type WhyPanel struct {
	Feature, Title, Text string
	Reasons              []WhyReason
	More                 string
	// Room names the decisions Make room undoes; "" when none can.
	Room  string
	Took  string
	Error string

	// RoomAtLeast says, when Room is not known to be a fewest set, that a
	// smaller may exist and how many decisions a fewest set has at least.
	RoomAtLeast string
}

// WhyReason is one minimal reason: the decisions that force the feature
// (their rows' ids in Rows, for highlighting), the parts of the model
// that carry it, and, where the model words one, a proof a person can
// check (a board's, a line a step).
type WhyReason struct {
	Text, Rows  string
	Constraints []string
	Proof       []string
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
		wr.Proof = r.Argument
		switch {
		case len(wr.Constraints) > 0 || wr.Proof != nil:
		case m.Grid != nil && m.Grid.Queens:
			// The board's own proofs (by propagation over its lines, by
			// cases) were tried first and none fits a screen.
			wr.Constraints = []string{"(no proof by propagation over the ranks, files and diagonals, nor by cases, fits on a screen: the backend's search settled it)"}
		default:
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
	if e.RoomAtLeast > 0 {
		p.RoomAtLeast = fmt.Sprintf("Make room undoes %s, the fewest the search found before it stopped at its limit; a smaller set may exist, of at least %s.",
			words.Plural(int64(len(e.Room)), "decision"), words.Plural(int64(e.RoomAtLeast), "decision"))
	}
	return p
}
