package view

import (
	"math/big"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/words"
)

// Step is one click's answer over the backends of its mode, as the server
// hands it to the views: every backend's answer and the facts of the
// space it came from, and what the panels show beyond the step.
type Step struct {
	State  board.State // after the action
	Act    board.Action
	Before []configurator.Cell // the queens before the action
	Runs   []Run               // the primary backend first
	// Differ holds, for every run after the first, what it disagrees on
	// with the primary (configurator.Compare); Differ[0] is empty.
	Differ []configurator.Disagreement
	// Model is the board's model, whose lines say which queens attack.
	Model *configurator.Model
	// Name is what the page calls a step that only shows a board (the
	// parameter l: "reset", "use sat", "heat on"); actions name themselves.
	Name string
	// Heat and Diagram are what the page's panels show, computed after
	// the step when the state asks for them; Orders the order panel's
	// figures, when a backend of the mode depends on the order.
	Heat    Heat
	Diagram DiagramSize
	Orders  *OrderFacts
}

// Run is one backend's answer to a step: the session's answer (for
// configurator.Compare), how long the whole step took on the backend,
// and the facts of the space it came from. Err is a secondary backend's
// failure, shown beside the primary's answer; a primary's failure fails
// the step instead.
type Run struct {
	configurator.Answer
	Took  time.Duration
	Space SpaceFacts
	// Searched holds, for each reason of the explanation that a search
	// refuted (not an attack, no proof by propagation), the work of this
	// backend's analysis under that reason's queens alone: how a solver
	// found the square ruled. Nil for a space with a diagram, whose
	// answer is a walk, not a search.
	Searched []*configurator.Work
}

// SpaceFacts is what the page says of a compiled space.
type SpaceFacts struct {
	Backend string
	N       int
	Order   configurator.Order
	Ordered bool          // the backend's spaces depend on the order
	Took    time.Duration // the compile, or the load from its saved file
	Loaded  bool          // read from its saved file (configurator.Sourcer)
	Bytes   int64
	// Diagram: the space is a decision diagram (configurator.Diagrammer);
	// any other is a solver's clauses. Sampler: it draws solutions
	// uniformly (configurator.Sampler).
	Diagram, Sampler bool
	// Nodes is the diagram's size when the space profiles its ranks
	// (configurator.RankProfiler), -1 otherwise.
	Nodes int
	// Total counts the empty board's solutions, nil while not known;
	// TotalAtLeast marks it as a lower bound.
	Total        *big.Int
	TotalAtLeast bool
}

// Missing is a capability the space at hand lacks (its facet is absent):
// the backend that lacks it and the backends whose spaces are known to
// have it, in the order registered.
type Missing struct {
	Backend string
	Have    []string
}

// Heat is the heat map of a step: the primary's solutions through every
// square, or why there are none.
type Heat struct {
	Marginals []*big.Int
	Took      time.Duration
	Err       error    // the count failed
	Missing   *Missing // the space counts no solutions per square (configurator.Marginaler)
}

// DiagramSize is the size of the primary's diagram under the placement,
// or why it is not known.
type DiagramSize struct {
	Nodes   int
	Err     error    // the diagram could not be built
	Missing *Missing // the space has no diagram (configurator.Diagrammer)
}

// Primary is the leading backend's answer.
func (r *Step) Primary() *Run { return &r.Runs[0] }

// Agree reports whether every backend agrees with the primary.
func (r *Step) Agree() bool {
	for _, d := range r.Differ {
		if !d.None() {
			return false
		}
	}
	return true
}

// upper names backends as the page does: "BDD", "SAT".
func upper(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.ToUpper(n)
	}
	return out
}

// switchTo is the sentence that points to the modes where a missing
// capability is: the backends that have it, and Both when the primary,
// which answers for Both, is one of them; "" when none is known.
func switchTo(site *Site, m *Missing) string {
	modes := upper(m.Have)
	if len(site.Lineup.Names()) > 1 && len(m.Have) > 0 && m.Have[0] == site.Lineup.Primary() {
		modes = append(modes, board.All.Label())
	}
	if len(modes) == 0 {
		return ""
	}
	return " Switch to " + words.List(modes, "or") + " to see it."
}

// only says who has a capability, with the verb agreeing: "the BDD
// backend counts", "the BDD and ZDD backends count".
func only(have []string, verb, verbs string) string {
	if len(have) > 1 {
		return "the " + words.List(upper(have), "and") + " backends " + verbs
	}
	return "the " + strings.ToUpper(have[0]) + " backend " + verb
}

// heatReason says why the heat map is not shown, "" when it is.
func heatReason(site *Site, h Heat) string {
	switch {
	case h.Missing != nil && len(h.Missing.Have) == 0:
		return "The heat map needs the number of solutions through every square, which the " + strings.ToUpper(h.Missing.Backend) + " backend does not count."
	case h.Missing != nil:
		return "The heat map needs the number of solutions through every square, which only " + only(h.Missing.Have, "counts", "count") + "." + switchTo(site, h.Missing)
	case h.Err != nil:
		return "The heat map could not be computed this time: " + problem.Describe(h.Err).Message
	}
	return ""
}

// diagramReason says why the diagram is not shown, "" when it is.
func diagramReason(site *Site, d DiagramSize) string {
	switch {
	case d.Missing != nil && len(d.Missing.Have) == 0:
		return "The " + strings.ToUpper(d.Missing.Backend) + " backend keeps clauses, not a diagram."
	case d.Missing != nil:
		return "Only " + only(d.Missing.Have, "has", "have") + " a diagram to draw: the " + strings.ToUpper(d.Missing.Backend) +
			" backend keeps clauses, not a diagram." + switchTo(site, d.Missing)
	case d.Err != nil:
		return "The diagram could not be built this time: " + problem.Describe(d.Err).Message
	}
	return ""
}
