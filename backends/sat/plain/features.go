package plain

import (
	"context"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// The facets of a feature model's space.
var (
	_ configurator.ModelCompiler = (*Backend)(nil)
	_ configurator.FeatureCorer  = (*satbase.FeatureSpace)(nil)
	_ configurator.Sizer         = (*satbase.FeatureSpace)(nil)
)

// CompileModel translates m into CNF (feature.Model.CNF) for gophersat. It
// is cheap and calls no solver; the solver is built on first use. It
// implements configurator.ModelCompiler.
func (b *Backend) CompileModel(ctx context.Context, m *feature.Model) (configurator.Space, error) {
	return b.base.CompileModel(ctx, m, func(*satbase.FeatureSpace) satbase.FeatureEngine { return featureEngine{} }, nil)
}

// featureEngine decides a feature model's valid domains with gophersat
// alone, the straightforward backbone: one question for a configuration
// keeping the decisions, then, for every feature not decided, one with it
// selected and one with it deselected. No configuration found decides
// another feature's question, and nothing is propagated: this is the
// baseline the sat backend's backbone is measured against.
type featureEngine struct{}

// Decide classifies every feature under the decisions (see featureEngine).
func (featureEngine) Decide(ctx context.Context, q *satbase.FeatureQuery, decisions []configurator.Decision) (*configurator.Domains, error) {
	lits := satbase.Lits(decisions)
	possible := func(extra ...feature.Lit) (bool, error) {
		var model []bool
		err := q.Call(ctx, func() (err error) {
			model, err = q.Ask(ctx, append(lits[:len(lits):len(lits)], extra...), nil)
			return err
		})
		return model != nil, err
	}
	if ok, err := possible(); err != nil || !ok {
		if err == nil {
			err = configurator.ErrNoSolution
		}
		return nil, err
	}
	nf := len(q.Space().FeatureModel().Features)
	d := &configurator.Domains{States: make([]configurator.FeatureState, nf)}
	decided := make([]bool, nf)
	for _, dc := range decisions {
		decided[dc.Feature] = true
		d.States[dc.Feature] = configurator.Deselected
		if dc.Select {
			d.States[dc.Feature] = configurator.Selected
		}
	}
	for f := range nf {
		if decided[f] {
			continue
		}
		on, err := possible(feature.FeatureLit(f, true))
		if err != nil {
			return nil, err
		}
		off, err := possible(feature.FeatureLit(f, false))
		if err != nil {
			return nil, err
		}
		switch {
		case on && !off:
			d.States[f] = configurator.ForcedOn
		case off && !on:
			d.States[f] = configurator.ForcedOff
		}
		d.Work.BySolver++
	}
	return d, nil
}
