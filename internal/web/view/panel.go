package view

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// Panel answers Why? and Make room: every minimal reason, each in
// words with its proof, and in Both mode each backend's answer beside the
// other's.
type Panel struct {
	Kind    string // "why" or "room"
	Cell    string // the square asked about
	Title   string
	Text    string
	Reasons []Reason
	// Single is the one reason of a Why? panel: its sentence is the
	// panel's text, and only its proof follows, not a numbered list of one.
	Single  *Reason
	More    string // said when the list is not all
	Removes []Removal
	// RemovesIntro says how the removals free the square.
	RemovesIntro string
	Took         string
	Actions      []Link
	Close        Link
	Sides        []Side // one per backend, in Both mode
	Agree        string // the agreement check of the sides
	Differ       bool
}

// Reason is one minimal reason: its sentence, the queens it names (for
// the page's highlighting), and how it is proved.
type Reason struct {
	N      int
	Text   string
	Queens string   // "a1 b5", for data-queens
	Proof  []string // the steps of a proof by propagation
	// Intro and Refuted say how the reason was proved: what the proof
	// supposes, or, without one, how the backend refuted it.
	Intro   string
	Refuted []string
}

// Removal is one queen Make room removes and the reasons that removal
// breaks.
type Removal struct {
	Queen  string
	Breaks string
}

// Side is one backend's answer to Why? or Make room.
type Side struct {
	Backend string
	Answer  string
	Took    string
	Failed  bool
}

// panel builds the Why? or Make room panel.
func panel(r *Step, v *App) *Panel {
	p := r.Primary()
	st := r.State
	trail := v.Trail
	if r.Act.Kind == board.Complete && len(r.Runs) > 1 {
		return completePanel(r, v)
	}
	ex := p.Explanation
	if ex == nil {
		return nil
	}
	c := ex.Cell
	pv := &Panel{Kind: "why", Cell: c.String(), Took: words.Duration(p.Took)}
	pv.Reasons = reasonViews(r, ex)
	if ex.More {
		pv.More = fmt.Sprintf("More reasons exist; the first %d are shown.", len(ex.Reasons))
		if len(ex.Reasons) < configurator.MaxReasons {
			pv.More = "More reasons may exist: the search ran out of time after these."
		}
	}
	switch {
	case r.Act.Kind == board.Room && p.Room != nil:
		pv.Kind = "room"
		pv.Title = fmt.Sprintf("Make room on %v", c)
		queens := "queen"
		if len(p.Room) > 1 {
			queens = "queens"
		}
		pv.Text = fmt.Sprintf("Removing the %s on %s frees %v; no smaller set of your queens does.", queens, configurator.ListCells(p.Room), c)
		if ex.RoomAtLeast > 0 {
			pv.Text = fmt.Sprintf("Removing the %s on %s frees %v. A smaller set may exist: the search stopped at its limit before it knew the fewest, which has at least %s.",
				queens, configurator.ListCells(p.Room), c, words.Plural(int64(ex.RoomAtLeast), "queen"))
		}
		for _, q := range p.Room {
			var broken []string
			for _, i := range ex.Breaks(q) {
				broken = append(broken, strconv.Itoa(i+1))
			}
			rv := Removal{Queen: q.String(), Breaks: "breaks no reason listed"}
			switch len(broken) {
			case 0:
			case 1:
				if len(ex.Reasons) == 1 {
					rv.Breaks = "breaks the reason" // the one reason is not numbered
					break
				}
				rv.Breaks = "breaks reason " + broken[0]
			default:
				rv.Breaks = "breaks reasons " + words.List(broken, "and")
			}
			pv.Removes = append(pv.Removes, rv)
		}
		pv.RemovesIntro = "Each removal breaks reasons listed below; the square is free once every reason has lost a queen."
		if len(ex.Reasons) == 1 {
			pv.RemovesIntro = "The square is free once the reason below has lost a queen."
		}
		gone := configurator.FormatCells(p.Room)
		pv.Actions = []Link{
			{Label: "Remove " + configurator.ListCells(p.Room), Title: "Remove them and leave " + c.String() + " free",
				Href: st.PlayHref("", "remove", gone), Play: st.PlayHref(trail, "remove", gone), Primary: true},
			{Label: "Remove and place on " + c.String(), Title: "Remove them and put a queen on " + c.String(),
				Href: st.PlayHref("", "remove", gone, "place", c.String()), Play: st.PlayHref(trail, "remove", gone, "place", c.String())},
		}
	case ex.State == configurator.Forced:
		pv.Title = fmt.Sprintf("Why is %v forced?", c)
		pv.Text = reasonsIntro(ex, "forced")
		pv.Actions = append(pv.Actions, Link{Label: "Make it my queen", Title: "Place your own queen on " + c.String(),
			Href: st.PlayHref("", "place", c.String()), Play: st.PlayHref(trail, "place", c.String())})
	default:
		pv.Title = fmt.Sprintf("Why is %v blocked?", c)
		pv.Text = reasonsIntro(ex, "blocked")
		if ex.Room != nil {
			pv.Actions = append(pv.Actions, Link{Label: "Make room", Title: "Show the fewest queens to remove so that " + c.String() + " becomes free",
				Href: st.PlayHref("", "room", c.String()), Play: st.PlayHref(trail, "room", c.String()), Primary: true})
		}
	}
	if len(pv.Reasons) == 1 && pv.Kind == "why" {
		// The panel's text says the one reason; Make room keeps its list,
		// which the removals refer to by number.
		pv.Single, pv.Reasons = &pv.Reasons[0], nil
	}
	pv.Close = v.Close
	if len(r.Runs) > 1 {
		pv.Sides, pv.Agree, pv.Differ = sides(r)
	}
	return pv
}

// reasonsIntro says how many reasons there are and how they combine.
func reasonsIntro(ex *configurator.Explanation, state string) string {
	c := ex.Cell.String()
	switch {
	case len(ex.Reasons) == 1:
		return words.UpperFirst(ex.String()) + "."
	}
	return fmt.Sprintf("%d independent reasons keep %s %s. Each alone is enough: %s stays %s until every one of them has lost a queen.",
		len(ex.Reasons), c, state, c, state)
}

// reasonViews words every reason of ex, with its proof: the steps of
// propagation when the model's lines alone refute it, otherwise how each
// backend did.
func reasonViews(r *Step, ex *configurator.Explanation) []Reason {
	var out []Reason
	c := ex.Cell
	for i, cause := range ex.Reasons {
		rv := Reason{N: i + 1, Text: words.UpperFirst(cause.String()) + "."}
		names := make([]string, len(cause.Queens))
		for j, q := range cause.Queens {
			names[j] = q.String()
		}
		rv.Queens = strings.Join(names, " ")
		if cause.Reason == configurator.Attack || len(cause.Queens) == 0 {
			out = append(out, rv)
			continue
		}
		suppose := fmt.Sprintf("Suppose %s and a queen on %v.", queensOn(cause.Queens), c)
		if cause.Reason == configurator.Forcing {
			suppose = fmt.Sprintf("Suppose %s and no queen on %v.", queensOn(cause.Queens), c)
		}
		const lines = " Every rank needs a queen, and so does every file (as many queens as files, at most one in each)"
		switch {
		case len(cause.Proof) > 0:
			rv.Intro = suppose + lines + ":"
			for _, d := range cause.Proof {
				rv.Proof = append(rv.Proof, d.String())
			}
			out = append(out, rv)
			continue
		case cause.Split != nil:
			rv.Intro = suppose + lines + ". No line runs out of squares by propagation alone, so the proof goes by cases:"
			rv.Proof = cause.Split.Lines()
			out = append(out, rv)
			continue
		case cause.Solutions != nil:
			rv.Intro = solutionsIntro(cause, c)
			for _, sol := range cause.Solutions {
				rv.Proof = append(rv.Proof, strings.Join(strings.Split(configurator.FormatCells(sol), ","), " "))
			}
			out = append(out, rv)
			continue
		}
		rv.Intro = suppose + " No rank or file runs out of squares by propagation alone, so a search settled it:"
		for _, run := range r.Runs {
			rv.Refuted = append(rv.Refuted, refutedBy(run, i, cause, c))
		}
		out = append(out, rv)
	}
	return out
}

// queensOn names the queens on cells: "a queen on a1", "queens on a1
// and b5".
func queensOn(cells []configurator.Cell) string {
	if len(cells) == 1 {
		return "a queen on " + cells[0].String()
	}
	return "queens on " + configurator.ListCells(cells)
}

// solutionsIntro says what the list of the solutions holding a reason's
// queens shows.
func solutionsIntro(cause configurator.Cause, c configurator.Cell) string {
	k := len(cause.Solutions)
	has, one := "none has a queen on "+c.String(), "it has no queen on "+c.String()
	if cause.Reason == configurator.Forcing {
		has, one = "each has a queen on "+c.String(), "it has a queen on "+c.String()
	}
	switch k {
	case 0:
		return fmt.Sprintf("No solution holds %s at all.", queensOn(cause.Queens))
	case 1:
		return fmt.Sprintf("Only one solution holds %s, and %s; here it is, rank by rank:", queensOn(cause.Queens), one)
	}
	return fmt.Sprintf("Only %s solutions hold %s, and %s; here they are, rank by rank:", words.Number(int64(k)), queensOn(cause.Queens), has)
}

// refutedBy says how one backend refuted reason i, which propagation does
// not prove.
func refutedBy(run Run, i int, cause configurator.Cause, c configurator.Cell) string {
	name := strings.ToUpper(run.Backend)
	with := configurator.ListCells(cause.Queens)
	if run.Space.Diagram {
		if cause.Reason == configurator.Forcing {
			return fmt.Sprintf("%s: every path of the decision diagram through queens on %s also takes %v; the diagram holds every solution, so none avoids it.", name, with, c)
		}
		return fmt.Sprintf("%s: no path of the decision diagram takes queens on %s and on %v; the diagram holds every solution, so none has them together.", name, with, c)
	}
	out := fmt.Sprintf("%s: the solver, given these queens as assumptions, proved the clauses unsatisfiable: a refutation by gophersat's search.", name)
	if i < len(run.Searched) && run.Searched[i] != nil {
		w := run.Searched[i]
		out += fmt.Sprintf(" Its analysis of the board with only %s took %s, %s and %s (squares decided: %d by propagation, %d by a witness solution, %d by the solver).",
			with, words.Plural(w.SolverCalls, "solver call"), words.Plural(w.Conflicts, "conflict"), words.Plural(w.Decisions, "decision"), w.ByPropagation, w.ByWitness, w.BySolver)
	}
	return out
}

// sides gives each backend's answer to the step and the agreement check
// (configurator.Compare) in words.
func sides(r *Step) ([]Side, string, bool) {
	var out []Side
	for _, run := range r.Runs {
		sv := Side{Backend: strings.ToUpper(run.Backend), Took: words.Duration(run.Took)}
		switch ex := run.Explanation; {
		case run.Err != nil:
			sv.Answer, sv.Failed = "no answer: "+problem.Describe(run.Err).Message, true
		case ex == nil:
			sv.Answer = "no answer"
		default:
			var sets []string
			for _, cause := range ex.Reasons {
				sets = append(sets, "["+strings.Join(strings.Split(configurator.FormatCells(cause.Queens), ","), " ")+"]")
			}
			sv.Answer = fmt.Sprintf("%d reasons: %s", len(ex.Reasons), strings.Join(sets, " "))
			if len(ex.Reasons) == 1 {
				sv.Answer = "1 reason: " + sets[0]
			}
			if ex.More {
				sv.Answer += " and more"
			}
			if run.Room != nil {
				sv.Answer += "; remove " + configurator.ListCells(run.Room)
			}
		}
		out = append(out, sv)
	}
	if r.Agree() {
		return out, "The backends agree on every reason" + map[bool]string{true: " and on the queens to remove.", false: "."}[r.Act.Kind == board.Room], false
	}
	var diffs []string
	for _, d := range r.Differ {
		if len(d.Cells) > 0 {
			diffs = append(diffs, fmt.Sprintf("%d squares classified differently", len(d.Cells)))
		}
		diffs = append(diffs, d.Other...)
	}
	return out, "The backends disagree: " + strings.Join(diffs, "; ") + ".", true
}

// completePanel shows, in Both mode, what each backend did for Complete:
// the primary drew the solution, each other backend analyzed the board it
// drew, and the agreement check compares their boards.
func completePanel(r *Step, v *App) *Panel {
	var added []configurator.Cell
	for _, q := range r.State.Queens {
		if !slices.Contains(r.Before, q) {
			added = append(added, q)
		}
	}
	p := r.Primary()
	pv := &Panel{Kind: "complete", Title: "Completed", Took: words.Duration(p.Took), Close: v.Close}
	how := "the first solution it found"
	if p.Space.Sampler {
		how = "a solution drawn uniformly at random"
	}
	pv.Text = fmt.Sprintf("%s filled in %s that holds your queens; the others checked the board it drew.", strings.ToUpper(p.Backend), how)
	for i, run := range r.Runs {
		sv := Side{Backend: strings.ToUpper(run.Backend), Took: words.Duration(run.Took)}
		switch {
		case run.Err != nil:
			sv.Answer, sv.Failed = "no answer: "+problem.Describe(run.Err).Message, true
		case i == 0 && len(added) == 0:
			sv.Answer = "the board was already a solution"
		case i == 0:
			sv.Answer = "added " + configurator.ListCells(added)
		case run.Session != nil:
			a := run.Session.Analysis()
			sv.Answer = fmt.Sprintf("checked it: %d queens, no free square", len(a.In(configurator.Queen))+len(a.In(configurator.Forced)))
			if a.Solutions != nil && !a.AtLeast {
				sv.Answer += fmt.Sprintf(", %s solution", a.Solutions)
			}
		default:
			sv.Answer = "no answer"
		}
		pv.Sides = append(pv.Sides, sv)
	}
	pv.Agree, pv.Differ = "The backends agree on every square of the completed board.", !r.Agree()
	if pv.Differ {
		_, pv.Agree, _ = sides(r)
	}
	return pv
}
