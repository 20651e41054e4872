package server

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/configurator"
)

// panelView answers Why? and Make room: every minimal reason, each in
// words with its proof, and in Both mode each backend's answer beside the
// other's.
type panelView struct {
	Kind    string // "why" or "room"
	Cell    string // the square asked about
	Title   string
	Text    string
	Reasons []reasonView
	// Single is the one reason of a Why? panel: its sentence is the
	// panel's text, and only its proof follows, not a numbered list of one.
	Single  *reasonView
	More    string // said when the list is not all
	Removes []removeView
	Took    string
	Actions []link
	Close   link
	Sides   []sideView // one per backend, in Both mode
	Agree   string     // the agreement check of the sides
	Differ  bool
}

// reasonView is one minimal reason: its sentence, the queens it names (for
// the page's highlighting), and how it is proved.
type reasonView struct {
	N      int
	Text   string
	Queens string   // "a1 b5", for data-queens
	Proof  []string // the steps of a proof by propagation
	// Intro and Refuted say how the reason was proved: what the proof
	// supposes, or, without one, how the backend refuted it.
	Intro   string
	Refuted []string
}

// removeView is one queen Make room removes and the reasons that removal
// breaks.
type removeView struct {
	Queen  string
	Breaks string
}

// sideView is one backend's answer to Why? or Make room.
type sideView struct {
	Backend string
	Answer  string
	Took    string
	Failed  bool
}

// panel builds the Why? or Make room panel.
func (s *Server) panel(r *result, v *appView) *panelView {
	p := r.primary()
	st := r.state
	trail := v.Trail
	if r.act.Kind == actComplete && len(r.runs) > 1 {
		return completePanel(r, v)
	}
	ex := p.Explanation
	if ex == nil {
		return nil
	}
	c := ex.Cell
	pv := &panelView{Kind: "why", Cell: c.String(), Took: duration(p.took)}
	pv.Reasons = reasonViews(r, ex)
	if ex.More {
		pv.More = fmt.Sprintf("More reasons exist; the first %d are shown.", len(ex.Reasons))
		if len(ex.Reasons) < configurator.MaxReasons {
			pv.More = "More reasons may exist: the search ran out of time after these."
		}
	}
	switch {
	case r.act.Kind == actRoom && p.Room != nil:
		pv.Kind = "room"
		pv.Title = fmt.Sprintf("Make room on %v", c)
		queens := "queen"
		if len(p.Room) > 1 {
			queens = "queens"
		}
		pv.Text = fmt.Sprintf("Removing the %s on %s frees %v; no smaller set of your queens does.", queens, configurator.ListCells(p.Room), c)
		for _, q := range p.Room {
			var broken []string
			for _, i := range ex.Breaks(q) {
				broken = append(broken, strconv.Itoa(i+1))
			}
			rv := removeView{Queen: q.String(), Breaks: "breaks no reason listed"}
			switch len(broken) {
			case 0:
			case 1:
				rv.Breaks = "breaks reason " + broken[0]
			default:
				rv.Breaks = "breaks reasons " + strings.Join(broken[:len(broken)-1], ", ") + " and " + broken[len(broken)-1]
			}
			pv.Removes = append(pv.Removes, rv)
		}
		gone := configurator.FormatCells(p.Room)
		pv.Actions = []link{
			{Label: "Remove " + configurator.ListCells(p.Room), Title: "Remove them and leave " + c.String() + " free",
				Href: st.play("", "remove", gone), Play: st.play(trail, "remove", gone), Primary: true},
			{Label: "Remove and place on " + c.String(), Title: "Remove them and put a queen on " + c.String(),
				Href: st.play("", "remove", gone, "place", c.String()), Play: st.play(trail, "remove", gone, "place", c.String())},
		}
	case ex.State == configurator.Forced:
		pv.Title = fmt.Sprintf("Why is %v forced?", c)
		pv.Text = reasonsIntro(ex, "forced")
		pv.Actions = append(pv.Actions, link{Label: "Make it my queen", Title: "Place your own queen on " + c.String(),
			Href: st.play("", "place", c.String()), Play: st.play(trail, "place", c.String())})
	default:
		pv.Title = fmt.Sprintf("Why is %v blocked?", c)
		pv.Text = reasonsIntro(ex, "blocked")
		if ex.Room != nil {
			pv.Actions = append(pv.Actions, link{Label: "Make room", Title: "Show the fewest queens to remove so that " + c.String() + " becomes free",
				Href: st.play("", "room", c.String()), Play: st.play(trail, "room", c.String()), Primary: true})
		}
	}
	if len(pv.Reasons) == 1 && pv.Kind == "why" {
		// The panel's text says the one reason; Make room keeps its list,
		// which the removals refer to by number.
		pv.Single, pv.Reasons = &pv.Reasons[0], nil
	}
	pv.Close = v.Close
	if len(r.runs) > 1 {
		pv.Sides, pv.Agree, pv.Differ = sides(r)
	}
	return pv
}

// reasonsIntro says how many reasons there are and how they combine.
func reasonsIntro(ex *configurator.Explanation, state string) string {
	c := ex.Cell.String()
	switch {
	case len(ex.Reasons) == 1:
		return upperFirst(ex.String()) + "."
	}
	return fmt.Sprintf("%d independent reasons keep %s %s. Each alone is enough: %s stays %s until every one of them has lost a queen.",
		len(ex.Reasons), c, state, c, state)
}

// reasonViews words every reason of ex, with its proof: the steps of
// propagation when the model's lines alone refute it, otherwise how each
// backend did.
func reasonViews(r *result, ex *configurator.Explanation) []reasonView {
	var out []reasonView
	c := ex.Cell
	for i, cause := range ex.Reasons {
		rv := reasonView{N: i + 1, Text: upperFirst(cause.String()) + "."}
		names := make([]string, len(cause.Queens))
		for j, q := range cause.Queens {
			names[j] = q.String()
		}
		rv.Queens = strings.Join(names, " ")
		if cause.Reason == configurator.Attack || len(cause.Queens) == 0 {
			out = append(out, rv)
			continue
		}
		with := configurator.ListCells(cause.Queens)
		suppose := fmt.Sprintf("Suppose queens on %s and a queen on %v.", with, c)
		if cause.Reason == configurator.Forcing {
			suppose = fmt.Sprintf("Suppose queens on %s and no queen on %v.", with, c)
		}
		if len(cause.Proof) > 0 {
			rv.Intro = suppose + " Every rank needs a queen, and so does every file (as many queens as files, at most one in each):"
			for _, step := range cause.Proof {
				rv.Proof = append(rv.Proof, step.String())
			}
			out = append(out, rv)
			continue
		}
		rv.Intro = suppose + " No rank or file runs out of squares by propagation alone, so a search settled it:"
		for _, run := range r.runs {
			rv.Refuted = append(rv.Refuted, refutedBy(run, i, cause, c))
		}
		out = append(out, rv)
	}
	return out
}

// searchWork fills in o.searched: for a space without a diagram, the
// work of its analysis under each searched reason's queens alone, under
// the backend's deadline (a reason whose analysis fails keeps nil).
func (s *Server) searchWork(ctx context.Context, o *outcome) {
	ex := o.Explanation
	if ex == nil || o.entry == nil {
		return
	}
	if _, ok := o.entry.space.(configurator.Diagrammer); ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.deadline(o.Backend))
	defer cancel()
	o.searched = make([]*configurator.Work, len(ex.Reasons))
	for i, cause := range ex.Reasons {
		if cause.Reason == configurator.Attack || len(cause.Queens) == 0 || len(cause.Proof) > 0 {
			continue
		}
		if a, err := o.entry.space.Analyze(ctx, cause.Queens); err == nil {
			o.searched[i] = &a.Work
		}
	}
}

// refutedBy says how one backend refuted reason i, which propagation does
// not prove.
func refutedBy(run outcome, i int, cause configurator.Cause, c configurator.Cell) string {
	name := strings.ToUpper(run.Backend)
	with := configurator.ListCells(cause.Queens)
	if _, ok := run.entry.space.(configurator.Diagrammer); ok {
		if cause.Reason == configurator.Forcing {
			return fmt.Sprintf("%s: every path of the decision diagram through queens on %s also takes %v; the diagram holds every solution, so none avoids it.", name, with, c)
		}
		return fmt.Sprintf("%s: no path of the decision diagram takes queens on %s and on %v; the diagram holds every solution, so none has them together.", name, with, c)
	}
	out := fmt.Sprintf("%s: the solver, given these queens as assumptions, proved the clauses unsatisfiable: a refutation by gophersat's search.", name)
	if i < len(run.searched) && run.searched[i] != nil {
		w := run.searched[i]
		out += fmt.Sprintf(" Its analysis of the board with only %s took %s, %s and %s (squares decided: %d by propagation, %d by a witness solution, %d by the solver).",
			with, plural(w.SolverCalls, "solver call"), plural(w.Conflicts, "conflict"), plural(w.Decisions, "decision"), w.ByPropagation, w.ByWitness, w.BySolver)
	}
	return out
}

// sides gives each backend's answer to the step and the agreement check
// (configurator.Compare) in words.
func sides(r *result) ([]sideView, string, bool) {
	var out []sideView
	for _, run := range r.runs {
		sv := sideView{Backend: strings.ToUpper(run.Backend), Took: duration(run.took)}
		switch ex := run.Explanation; {
		case run.Err != nil:
			sv.Answer, sv.Failed = "no answer: "+describe(run.Err).Message, true
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
	if r.agree() {
		return out, "The backends agree on every reason" + map[bool]string{true: " and on the queens to remove.", false: "."}[r.act.Kind == actRoom], false
	}
	var diffs []string
	for _, d := range r.differ {
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
func completePanel(r *result, v *appView) *panelView {
	var added []configurator.Cell
	for _, q := range r.state.Queens {
		if !slices.Contains(r.before, q) {
			added = append(added, q)
		}
	}
	p := r.primary()
	pv := &panelView{Kind: "complete", Title: "Completed", Took: duration(p.took), Close: v.Close}
	how := "the first solution it found"
	if _, ok := p.entry.space.(configurator.Sampler); ok {
		how = "a solution drawn uniformly at random"
	}
	pv.Text = fmt.Sprintf("%s filled in %s that holds your queens; the others checked the board it drew.", strings.ToUpper(p.Backend), how)
	for i, run := range r.runs {
		sv := sideView{Backend: strings.ToUpper(run.Backend), Took: duration(run.took)}
		switch {
		case run.Err != nil:
			sv.Answer, sv.Failed = "no answer: "+describe(run.Err).Message, true
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
	pv.Agree, pv.Differ = "The backends agree on every square of the completed board.", !r.agree()
	if pv.Differ {
		_, pv.Agree, _ = sides(r)
	}
	return pv
}
