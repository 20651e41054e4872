package view

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/words"
)

// The timing panel compares backends on the same question only: a step
// asks each backend two questions, which squares are blocked or forced
// (the domains) and how many solutions remain (the count), and each
// backend times them apart (configurator.Work). The ratio is taken on the
// domains, the question every backend answers in full; the count is a row
// of its own that says what each backend could say and what it cost.

// Timing is the timing panel.
type Timing struct {
	Compiles []string
	Columns  []string // backend names, the primary first
	// This is the current step, question by question.
	This []Question
	// Work is what each backend did for the step, in its own terms, and
	// Terms a line for each term of a solver's work, saying what it is.
	Work  []WorkLine
	Terms []Term
	// NoCount says why a backend gives no count, where one does not.
	NoCount string
	// Sum sums the comparison up for the current board: what each backend
	// paid once, what each pays a step, and after how many steps the one
	// that paid more up front is ahead.
	Sum string
	// Ratios compare each backend with the primary on the domains: "SAT
	// 48× slower than BDD".
	Ratios []string
	// Extras are the request's work outside the step (the heat map),
	// which the step's times leave out.
	Extras []string
	// Steps is the trail, newest first: each backend's whole step.
	Steps []TrailStep
	// Backend is the backends' time of this request, every step and extra
	// (nanoseconds), for the page's end-to-end split.
	Backend int64
	// Chart plots the trail, when it holds two steps or more.
	Chart *Chart
}

// Question is a row of the current step's table: a question (or the
// work behind it) and each backend's answer.
type Question struct {
	ID, Label, Title string
	Cells            []string
}

// WorkLine is a backend's work for the step.
type WorkLine struct{ Backend, Text string }

// Term is a term of a solver's work and what it means.
type Term struct{ Name, Means string }

// solverTerms say what the terms of a solver's work mean, in the order
// workText uses them.
var solverTerms = []Term{
	{"solver call", "one question to gophersat: is there a solution with these queens (and this square)?"},
	{"decision", "a guess: the solver puts a queen on a square, or none, to be undone if it leads nowhere."},
	{"conflict", "a guess that broke a rule; the solver undoes it and learns why."},
	{"learned", "clauses the solver adds from its conflicts, so as not to make the same mistake again."},
	{"by propagation", "squares the rules settle alone, without a solver call."},
	{"by witness", "free squares shown free by a solution already found, without a call of their own."},
	{"by solver", "squares that needed a solver call of their own."},
}

// TrailStep is a step of the trail.
type TrailStep struct {
	Label   string
	Times   []string // one per column
	Current bool
}

// newTiming builds the timing panel of a step and the trail behind it;
// names are the registered backends, whose places the trail's times keep.
func newTiming(names []string, r *Step, steps []board.Step) Timing {
	var t Timing
	var cols []int // the backends' places in each step's times
	for _, o := range r.Runs {
		name := strings.ToUpper(o.Backend)
		t.Compiles = append(t.Compiles, compileLine(o.Space))
		t.Columns = append(t.Columns, name)
		cols = append(cols, slices.Index(names, o.Backend))
		t.Backend += int64(o.Took)
	}
	t.This = questionRows(r)
	for _, o := range r.Runs {
		w := WorkLine{Backend: strings.ToUpper(o.Backend), Text: "–"}
		if o.Session != nil {
			w.Text = workText(o.Space.Diagram, o.Session.Analysis().Work)
		}
		t.Work = append(t.Work, w)
	}
	t.Ratios = domainRatios(r)
	for _, o := range r.Runs {
		if o.Session == nil {
			continue
		}
		if !o.Space.Diagram && t.Terms == nil {
			t.Terms = solverTerms
		}
		if a := o.Session.Analysis(); a.Solutions == nil && t.NoCount == "" {
			t.NoCount = noCount(strings.ToUpper(o.Backend), o.Space.Diagram)
		}
	}
	t.Sum = sum(r, steps, cols)
	if r.State.Heat && r.Heat.Marginals != nil {
		t.Extras = append(t.Extras, fmt.Sprintf("Heat map (%s): %s, computed after the step and not part of its times.",
			strings.ToUpper(r.Primary().Backend), words.Duration(r.Heat.Took)))
		t.Backend += int64(r.Heat.Took)
	}
	at := func(st board.Step, col int) time.Duration {
		if col < 0 || col >= len(st.Times) {
			return 0
		}
		return st.Times[col]
	}
	for i, st := range steps {
		sv := TrailStep{Label: st.Label, Current: i == 0}
		for _, col := range cols {
			if d := at(st, col); d > 0 {
				sv.Times = append(sv.Times, words.Duration(d))
			} else {
				sv.Times = append(sv.Times, "–")
			}
		}
		t.Steps = append(t.Steps, sv)
	}
	t.Chart = sessionChart(t.Columns, cols, steps)
	return t
}

// compileLine says what a backend's space cost once: the compile (a
// diagram, or the clauses of a solver), that it is cached, and its memory.
func compileLine(e SpaceFacts) string {
	name := strings.ToUpper(e.Backend)
	line := fmt.Sprintf("%s %d×%d", name, e.N, e.N)
	what := "clauses compiled in"
	if e.Diagram {
		what = "diagram compiled in"
	}
	if e.Loaded {
		what = "diagram loaded from disk in"
	}
	if e.Ordered {
		line += ", " + words.Order(e.Order)
	}
	line += ": " + what + " " + words.Duration(e.Took) + " once, cached since; holds " + bytesize.Format(e.Bytes)
	if e.Nodes >= 0 {
		line += ", " + words.Number(int64(e.Nodes)) + " nodes"
	}
	return line
}

// questionRows are the current step's rows: each question's time per
// backend, the count with what each backend could say, and the whole
// step.
func questionRows(r *Step) []Question {
	rows := []Question{
		{ID: "q-domains", Label: "Blocked & forced", Title: "Time to decide which squares are blocked and which queens forced: the question every backend answers in full"},
		{ID: "q-count", Label: "Counting", Title: "What each backend says about the number of solutions, and the time it took: exact, at least (a cap was hit), or no count at all"},
		{ID: "q-step", Label: "Whole step", Title: "The backend's whole step: the two questions above and anything the action adds (an explanation, a completion)"},
	}
	for _, o := range r.Runs {
		var a *configurator.Analysis
		if o.Session != nil {
			a = o.Session.Analysis()
		}
		if a == nil {
			why := "–"
			if o.Err != nil {
				why = "no answer"
			} else if o.Unsolvable {
				why = "no solution"
			}
			rows[0].Cells = append(rows[0].Cells, why)
			rows[1].Cells = append(rows[1].Cells, why)
		} else {
			rows[0].Cells = append(rows[0].Cells, words.MaybeDuration(a.Work.Domains))
			rows[1].Cells = append(rows[1].Cells, countCell(a))
		}
		rows[2].Cells = append(rows[2].Cells, words.MaybeDuration(o.Took))
	}
	return rows
}

// countCell is what a backend said about the number of solutions, and
// what it cost.
func countCell(a *configurator.Analysis) string {
	var what string
	switch {
	case a.Solutions == nil:
		return "no count"
	case a.AtLeast:
		what = "at least " + words.Group(a.Solutions)
	default:
		what = words.Group(a.Solutions) + " exact"
	}
	if a.Work.Count == 0 && a.Work.Domains > 0 {
		// The backend counted on the way: the domains' time holds it.
		return what + " · no extra time"
	}
	return what + " · " + words.MaybeDuration(a.Work.Count)
}

// workText says what a backend did for an analysis in its own terms: a
// diagram's nodes, a solver's calls. A space with a diagram reports
// nodes; any other is a solver. Nothing reported is "–", never a zero
// that was not measured.
func workText(diagram bool, w configurator.Work) string {
	n := words.Number
	if diagram {
		if w.Nodes == 0 && w.NodesVisited == 0 {
			return "–"
		}
		if w.NodesVisited == 0 {
			return n(w.Nodes) + " nodes, none visited (a remembered answer)"
		}
		return n(w.Nodes) + " nodes, " + n(w.NodesVisited) + " visited"
	}
	decided := w.ByPropagation + w.ByWitness + w.BySolver
	if w.SolverCalls == 0 && decided == 0 {
		return "–"
	}
	text := words.Plural(w.SolverCalls, "solver call") + ", " + words.Plural(w.Conflicts, "conflict") + ", " + words.Plural(w.Decisions, "decision") +
		", " + n(w.Learned) + " learned"
	if decided > 0 {
		text += fmt.Sprintf("; squares by propagation %d, by witness %d, by solver %d", w.ByPropagation, w.ByWitness, w.BySolver)
	}
	return text
}

// noCount says why a backend gives no count.
func noCount(name string, diagram bool) string {
	if diagram {
		return name + " gives no count here: its count did not finish in time."
	}
	return name + " counts only small boards: a solver finds the solutions one at a time, a call each, and cannot know beforehand how many are left, so on a board this size it says which squares are free without counting; a diagram counts its paths in one pass."
}

// remembered reports whether a backend answered the step's domains from
// memory (a diagram that visited no node): no computation to time.
func remembered(o Run) bool {
	if o.Session == nil || !o.Space.Diagram {
		return false
	}
	w := o.Session.Analysis().Work
	return w.Nodes > 0 && w.NodesVisited == 0
}

// sum sums the comparison of a diagram and a solver up: what the diagram
// paid once and the solver too, each one's typical step on this board
// (the median of the trail's computed steps), and after how many steps
// the diagram is ahead. It is empty unless the step ran one of each and
// the trail has a step of each to go by.
func sum(r *Step, steps []board.Step, cols []int) string {
	di, si := -1, -1
	for i, o := range r.Runs {
		switch {
		case o.Space.Diagram && di < 0:
			di = i
		case !o.Space.Diagram && si < 0:
			si = i
		}
	}
	if di < 0 || si < 0 {
		return ""
	}
	typical := func(i int) time.Duration {
		var ts []time.Duration
		for _, st := range steps {
			if c := cols[i]; c >= 0 && c < len(st.Times) && st.Times[c] > 0 {
				ts = append(ts, st.Times[c])
			}
		}
		if len(ts) == 0 {
			return 0
		}
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	d, s := r.Runs[di], r.Runs[si]
	dn, sn := strings.ToUpper(d.Backend), strings.ToUpper(s.Backend)
	dStep, sStep := typical(di), typical(si)
	if dStep <= 0 || sStep <= 0 {
		return ""
	}
	out := fmt.Sprintf("In sum: %s paid %s once for this board (its diagram), %s %s (its clauses); a step takes %s about %s and %s about %s",
		dn, words.Duration(d.Space.Took), sn, words.Duration(s.Space.Took), dn, words.Duration(dStep), sn, words.Duration(sStep))
	up := d.Space.Took - s.Space.Took
	switch {
	case sStep <= dStep:
		return out + fmt.Sprintf(", so %s stays ahead here.", sn)
	case up <= 0:
		return out + fmt.Sprintf(", so %s is ahead from the first step.", dn)
	}
	k := int64((up + (sStep - dStep) - 1) / (sStep - dStep))
	return out + fmt.Sprintf(", so %s is ahead after %s.", dn, words.Plural(k, "step"))
}

// domainRatios compares every backend after the primary with it on the
// domains, the same question for all: the faster one's name and by how
// much. A backend that did not report its domains time gets no ratio, nor
// does one that answered from memory, or is compared with one that did: a
// remembered answer is not a speed.
func domainRatios(r *Step) []string {
	if len(r.Runs) < 2 {
		return nil
	}
	domains := func(o Run) time.Duration {
		if o.Session == nil {
			return 0
		}
		return o.Session.Analysis().Work.Domains
	}
	p := r.Primary()
	pd := domains(*p)
	var out []string
	for _, o := range r.Runs[1:] {
		od := domains(o)
		a, b := strings.ToUpper(p.Backend), strings.ToUpper(o.Backend)
		if remembered(*p) || remembered(o) {
			who := a
			if !remembered(*p) {
				who = b
			}
			out = append(out, fmt.Sprintf("%s against %s: no ratio (%s's answer was remembered, not computed).", b, a, who))
			continue
		}
		if pd <= 0 || od <= 0 {
			out = append(out, fmt.Sprintf("%s against %s: not known yet (not timed apart)", b, a))
			continue
		}
		out = append(out, words.Faster(a, pd, b, od))
	}
	return out
}
