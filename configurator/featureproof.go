package configurator

import (
	"fmt"
	"slices"

	"github.com/nqueens/configurator/configurator/feature"
)

// Implication is one line of a proof by propagation over a feature
// model's clauses (feature.Model.CNF): a clause whose literals but one are
// false under the premises and the lines before, so that the last one
// holds; or, ending the proof, a clause with every literal false.
type Implication struct {
	// Origin is the part of the model the clause stands for
	// (feature.Model.Describe says it in the model's words).
	Origin feature.Origin
	// Feature is the feature the clause sets, selected when Select; -1
	// when it sets a variable of the translation (a part of a constraint
	// or of a group's count), and in the Conflict that ends the proof.
	Feature int
	Select  bool
	// Conflict marks the clause left with no true literal.
	Conflict bool
}

// Text says the line in the model's words: the part of the model, and
// what it sets or that it is violated.
func (p Implication) Text(m *feature.Model) string {
	what := m.Describe(p.Origin)
	switch {
	case p.Conflict:
		return what + ": violated"
	case p.Feature < 0:
		return what
	case p.Select:
		return fmt.Sprintf("%s: so %q is selected", what, m.Features[p.Feature].Name)
	}
	return fmt.Sprintf("%s: so %q is deselected", what, m.Features[p.Feature].Name)
}

// origins lists the parts of the model a proof uses, each once, in the
// order the proof first uses them.
func origins(proof []Implication) []feature.Origin {
	var out []feature.Origin
	for _, p := range proof {
		if !slices.Contains(out, p.Origin) {
			out = append(out, p.Origin)
		}
	}
	return out
}

// refute propagates the premises (literals over the model's features)
// through the clauses of c (p propagates them) and returns the proof of
// the contradiction they reach: the lines the final conflict depends on,
// in the order they were derived, and the conflict; nil when propagation
// stops without one (a search is needed) or when the premises contradict
// each other directly.
func refute(c *feature.CNF, p *feature.Propagator, premises []feature.Lit) []Implication {
	defer p.Undo(0)
	if p.Assume(premises...) {
		return nil
	}
	steps := p.Proof()
	if steps == nil {
		return nil
	}
	out := make([]Implication, len(steps))
	for i, st := range steps {
		out[i] = Implication{Origin: c.Origin(st.Clause), Feature: -1, Conflict: st.Lit == 0}
		if v := st.Lit.Var(); st.Lit != 0 && !c.Aux(v) {
			out[i].Feature, out[i].Select = v-1, st.Lit > 0
		}
	}
	return out
}
