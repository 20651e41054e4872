package crosscheck

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// CompareModel takes seeded random walks of decisions on a feature model
// of any size and checks every subject's domains against the first
// subject's, the reference, after every decision: the state of every
// feature, and the counts where both count. Each step decides a feature
// the reference shows open, the value drawn at random, through the
// session logic. It suits models beyond the oracle's reach, where two
// backends check each other. Walk w draws from a generator seeded with
// (Seed, w).
func CompareModel(ctx context.Context, m *feature.Model, subjects []FeatureSubject, opt WalkOptions) (*ModelReport, error) {
	c, err := newModelChecker(m, subjects)
	if err != nil {
		return nil, err
	}
	for w := range opt.Walks {
		c.walk = w
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(w)))
		sessions := make([]*configurator.FeatureSession, len(subjects))
		var ds []configurator.Decision
		for step := 0; step <= opt.Steps; step++ {
			c.step = step
			if err := ctx.Err(); err != nil {
				return c.rep, err
			}
			var next *configurator.Decision
			if step > 0 {
				// The reference's session is open here: the step
				// that lost it ended the walk.
				f, ok := pick(rng, sessions[0].Domains().In(configurator.Open))
				if !ok {
					break
				}
				next = &configurator.Decision{Feature: f, Select: rng.IntN(2) == 0}
				ds = append(ds, *next)
			}
			for i, sub := range subjects {
				var err error
				c.timed(i, func() {
					if sessions[i] == nil || next == nil {
						sessions[i], err = configurator.NewFeatureSession(ctx, sub.Space, ds)
					} else {
						err = sessions[i].Decide(ctx, *next)
					}
				})
				if stop(ctx, err) {
					return c.rep, err
				}
				if err != nil {
					c.disagree(i, ds, "domains", -1, "error: "+err.Error(), "domains")
					sessions[i] = nil
				}
			}
			if sessions[0] == nil {
				c.settle()
				break
			}
			ref := sessions[0].Domains()
			for i, s := range sessions[1:] {
				if s != nil {
					n := len(c.found)
					c.compareDomains(i+1, ds, s.Domains(), ref)
					for k := n; k < len(c.found); k++ {
						c.found[k].Reported = c.subjects[0].Name
					}
				}
			}
			if step > 0 {
				c.rep.Steps++
			}
			c.settle()
		}
		c.rep.Walks++
	}
	return c.rep, nil
}

// compareDomains checks subject i's domains under ds against the
// reference's: the oracle's (wantDomains) or the first subject's.
func (c *modelChecker) compareDomains(i int, ds []configurator.Decision, got, ref *configurator.Domains) {
	if len(got.States) != len(ref.States) {
		c.disagree(i, ds, "domains", -1, fmt.Sprintf("%d states", len(got.States)), fmt.Sprint(len(ref.States)))
		return
	}
	for f, st := range got.States {
		if st != ref.States[f] {
			c.disagree(i, ds, "domains", f, st.String(), ref.States[f].String())
		}
	}
	if g, r := got.Configurations, ref.Configurations; g != nil && r != nil {
		switch {
		case !got.AtLeast && !ref.AtLeast && g.Cmp(r) != 0,
			got.AtLeast && !ref.AtLeast && g.Cmp(r) > 0,
			!got.AtLeast && ref.AtLeast && r.Cmp(g) > 0:
			c.disagree(i, ds, "count", -1, countText(got), countText(ref))
		}
	}
}

// countText says a count in words: "123", "at least 1000".
func countText(d *configurator.Domains) string {
	if d.AtLeast {
		return "at least " + d.Configurations.String()
	}
	return d.Configurations.String()
}
