package view

import (
	"fmt"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

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

// WorkLine is a backend's work for the step.
type WorkLine struct{ Backend, Text string }

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
	t.Chart = sessionChart(names, r.Trail)
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
