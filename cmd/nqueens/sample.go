package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configfile"
)

// modelSampleResult is the JSON of nqueens sample -model: the
// configurations (every feature once in each) and, for a pairwise sample,
// what it covers.
type modelSampleResult struct {
	Model          string           `json:"model"`
	Backend        string           `json:"backend"`
	Configurations []modelDecisions `json:"configurations"`
	Size           int              `json:"size"`
	Pairs          *int             `json:"pairs,omitempty"`
	Covered        *int             `json:"covered,omitempty"`
	Coverage       *float64         `json:"coverage,omitempty"`
	ElapsedMS      float64          `json:"elapsed_ms"`
}

func runSample(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sample", "configurations of a -model for testing: a pairwise covering sample (-t 2), or -uniform K drawn uniformly; CSV on stdout", stdout)
	var b backendFlags
	b.register(fs, false, stderr)
	var mf modelFlags
	mf.register(fs, true)
	t := fs.Int("t", 2, "cover every valid pair of feature values (t = 2, the only one)")
	uniform := fs.Int("uniform", 0, "instead, `K` configurations drawn uniformly (bdd)")
	seed := fs.Uint64("seed", 0, "-uniform: the random generator's seed (0: a random one)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of CSV")
	if err := parse(fs, args); err != nil {
		return err
	}
	if model, err := mf.active(fs); err != nil || !model {
		if err != nil {
			return err
		}
		return usagef("-model is required: sample draws configurations of a feature model (see nqueens sample -h)")
	}
	if *t != 2 {
		return usagef("-t %d: only pairs are covered (-t 2)", *t)
	}
	if *uniform < 0 || *uniform > configurator.MaxUniform {
		return usagef("-uniform %d: from 1 to %d", *uniform, configurator.MaxUniform)
	}
	s, _, err := openModelSession(ctx, &b, &mf)
	if err != nil {
		return err
	}
	m := s.Model()
	start := time.Now()
	r := modelSampleResult{Model: m.Name, Backend: b.name}
	var configs [][]bool
	summary := ""
	if *uniform > 0 {
		rng := rand.New(rand.NewPCG(*seed, *seed))
		if *seed == 0 {
			rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		}
		configs, err = configurator.UniformSample(ctx, s.Space(), s.Decisions(), *uniform, rng)
		summary = fmt.Sprintf("%d configurations drawn uniformly", len(configs))
	} else {
		var p *configurator.Pairwise
		p, err = configurator.PairwiseSample(ctx, s.Space(), s.Decisions())
		if err == nil {
			configs = p.Configurations
			coverage := p.Coverage()
			r.Pairs, r.Covered, r.Coverage = &p.Pairs, &p.Covered, &coverage
			summary = fmt.Sprintf("%d configurations cover %d of %d valid pairs (%.1f %%)", len(configs), p.Covered, p.Pairs, 100*coverage)
			if !p.Complete {
				summary += ", interrupted: the coverage is a lower bound"
			}
		}
	}
	if err != nil {
		return err
	}
	took := time.Since(start)
	if *asJSON {
		r.Size, r.ElapsedMS = len(configs), millis(took)
		r.Configurations = []modelDecisions{}
		for _, c := range configs {
			var d modelDecisions
			d.Select, d.Deselect = []string{}, []string{}
			for f, on := range c {
				if on {
					d.Select = append(d.Select, m.Features[f].Name)
				} else {
					d.Deselect = append(d.Deselect, m.Features[f].Name)
				}
			}
			r.Configurations = append(r.Configurations, d)
		}
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stderr, "nqueens sample: %s, in %s (%s)\n", summary, human(took), b.name)
	return configfile.WriteSample(stdout, m, configs)
}
