package server

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// The timing panel compares backends on the same question only: a step
// asks each backend two questions, which squares are blocked or forced
// (the domains) and how many solutions remain (the count), and each
// backend times them apart (configurator.Work). The ratio is taken on the
// domains, the question every backend answers in full; the count is a row
// of its own that says what each backend could say and what it cost.

// timingView is the timing panel.
type timingView struct {
	Compiles []string
	Columns  []string // backend names, the primary first
	// This is the current step, question by question.
	This []questionRow
	// Work is what each backend did for the step, in its own terms.
	Work []workLine
	// Ratios compare each backend with the primary on the domains: "SAT
	// 48× slower than BDD".
	Ratios []string
	// Extras are the request's work outside the step (the heat map),
	// which the step's times leave out.
	Extras []string
	// Steps is the trail, newest first: each backend's whole step.
	Steps []stepView
	// Backend is the backends' time of this request, every step and extra
	// (nanoseconds), for the page's end-to-end split.
	Backend int64
	// Chart plots the trail, when it holds two steps or more.
	Chart *chartView
}

// questionRow is a row of the current step's table: a question (or the
// work behind it) and each backend's answer.
type questionRow struct {
	ID, Label, Title string
	Cells            []string
}

// workLine is a backend's work for the step.
type workLine struct{ Backend, Text string }

// stepView is a step of the trail.
type stepView struct {
	Label   string
	Times   []string // one per column
	Current bool
}

// timingView builds the timing panel of a result and the trail behind it.
func (s *Server) timingView(r *result, steps []step) timingView {
	var t timingView
	var cols []int // the backends' places in each step's times
	for _, o := range r.runs {
		name := strings.ToUpper(o.Backend)
		t.Compiles = append(t.Compiles, s.compileLine(o.entry))
		t.Columns = append(t.Columns, name)
		cols = append(cols, slices.Index(s.lim.names, o.Backend))
		t.Backend += int64(o.took)
	}
	t.This = questionRows(r)
	for _, o := range r.runs {
		w := workLine{Backend: strings.ToUpper(o.Backend), Text: "–"}
		if o.Session != nil {
			w.Text = workText(o.entry.space, o.Session.Analysis().Work)
		}
		t.Work = append(t.Work, w)
	}
	t.Ratios = domainRatios(r)
	if r.state.Heat && r.heat.marginals != nil {
		t.Extras = append(t.Extras, fmt.Sprintf("Heat map (%s): %s, computed after the step and not part of its times.",
			strings.ToUpper(r.primary().Backend), duration(r.heat.took)))
		t.Backend += int64(r.heat.took)
	}
	at := func(st step, col int) time.Duration {
		if col < 0 || col >= len(st.Times) {
			return 0
		}
		return st.Times[col]
	}
	for i, st := range steps {
		sv := stepView{Label: st.Label, Current: i == 0}
		for _, col := range cols {
			if d := at(st, col); d > 0 {
				sv.Times = append(sv.Times, duration(d))
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
func (s *Server) compileLine(e *compiled) string {
	name := strings.ToUpper(e.key.backend)
	line := fmt.Sprintf("%s %d×%d", name, e.key.n, e.key.n)
	what := "clauses compiled in"
	if _, ok := e.space.(configurator.Diagrammer); ok {
		what = "diagram compiled in"
	}
	if e.loaded() {
		what = "diagram loaded from disk in"
	}
	if s.lim.ordered[e.key.backend] {
		line += ", " + orderLabels[e.key.order]
	}
	line += ": " + what + " " + duration(e.took) + " once, cached since; holds " + bytesize.Format(e.bytes)
	if p, ok := e.space.(configurator.RankProfiler); ok {
		line += ", " + group(big.NewInt(int64(sum(p.RankProfile())))) + " nodes"
	}
	return line
}

// questionRows are the current step's rows: each question's time per
// backend, the count with what each backend could say, and the whole
// step.
func questionRows(r *result) []questionRow {
	rows := []questionRow{
		{ID: "q-domains", Label: "Blocked & forced", Title: "Time to decide which squares are blocked and which queens forced: the question every backend answers in full"},
		{ID: "q-count", Label: "Counting", Title: "What each backend says about the number of solutions, and the time it took: exact, at least (a cap was hit), or no count at all"},
		{ID: "q-step", Label: "Whole step", Title: "The backend's whole step: the two questions above and anything the action adds (an explanation, a completion)"},
	}
	for _, o := range r.runs {
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
			rows[0].Cells = append(rows[0].Cells, maybeDuration(a.Work.Domains))
			rows[1].Cells = append(rows[1].Cells, countCell(a))
		}
		rows[2].Cells = append(rows[2].Cells, maybeDuration(o.took))
	}
	return rows
}

// maybeDuration is a duration, or "–" when none was reported.
func maybeDuration(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return duration(d)
}

// countCell is what a backend said about the number of solutions, and
// what it cost.
func countCell(a *configurator.Analysis) string {
	var what string
	switch {
	case a.Solutions == nil:
		return "no count"
	case a.AtLeast:
		what = "at least " + group(a.Solutions)
	default:
		what = group(a.Solutions) + " exact"
	}
	if a.Work.Count == 0 && a.Work.Domains > 0 {
		// The backend counted on the way: the domains' time holds it.
		return what + " · no extra time"
	}
	return what + " · " + maybeDuration(a.Work.Count)
}

// workText says what a backend did for an analysis in its own terms: a
// diagram's nodes, a solver's calls. A space with a diagram reports
// nodes; any other is a solver. Nothing reported is "–", never a zero
// that was not measured.
func workText(sp configurator.Space, w configurator.Work) string {
	n := func(x int64) string { return group(big.NewInt(x)) }
	if _, ok := sp.(configurator.Diagrammer); ok {
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
	text := plural(w.SolverCalls, "solver call") + ", " + plural(w.Conflicts, "conflict") + ", " + plural(w.Decisions, "decision") +
		", " + n(w.Learned) + " learned"
	if decided > 0 {
		text += fmt.Sprintf("; squares by propagation %d, by witness %d, by solver %d", w.ByPropagation, w.ByWitness, w.BySolver)
	}
	return text
}

// plural writes a count and its noun: "1 solver call", "12 conflicts".
func plural(x int64, noun string) string {
	s := group(big.NewInt(x)) + " " + noun
	if x != 1 {
		s += "s"
	}
	return s
}

// domainRatios compares every backend after the primary with it on the
// domains, the same question for all: the faster one's name and by how
// much. A backend that did not report its domains time gets no ratio.
func domainRatios(r *result) []string {
	if len(r.runs) < 2 {
		return nil
	}
	domains := func(o outcome) time.Duration {
		if o.Session == nil {
			return 0
		}
		return o.Session.Analysis().Work.Domains
	}
	p := r.primary()
	pd := domains(*p)
	var out []string
	for _, o := range r.runs[1:] {
		od := domains(o)
		a, b := strings.ToUpper(p.Backend), strings.ToUpper(o.Backend)
		if pd <= 0 || od <= 0 {
			out = append(out, fmt.Sprintf("%s against %s: not known yet (not timed apart)", b, a))
			continue
		}
		out = append(out, faster(a, pd, b, od))
	}
	return out
}

// faster says which of two times is the smaller and by how much, in words
// that read at any size: "SAT 48× faster than BDD", "BDD 3.1× faster than
// SAT", "BDD and SAT about as fast"; never "0.0×".
func faster(a string, da time.Duration, b string, db time.Duration) string {
	if db < da {
		a, b, da, db = b, a, db, da
	}
	x := float64(db) / float64(da)
	if x < 1.05 {
		return a + " and " + b + " about as fast"
	}
	return a + " " + times(x) + " faster than " + b
}

// times writes a factor of at least 1: "1.4×", "48×", "1,250×".
func times(x float64) string {
	if x < 10 {
		return strconv.FormatFloat(x, 'f', 1, 64) + "×"
	}
	return group(big.NewInt(int64(x+0.5))) + "×"
}

// sum adds up ints.
func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
