package benchmarks

import (
	"context"
	"fmt"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// ModelSample is one pairwise covering sample (configurator.PairwiseSample)
// of a real feature model on one backend: the sample's size, the valid
// pairs it covers and its time, the compile's apart; or, when it did not
// finish, why (Failed).
type ModelSample struct {
	Backend  string
	Features int
	// Free is the features no configuration fixes: the pairs to cover
	// are theirs.
	Free           int
	Configurations int
	Pairs, Covered int
	Complete       bool
	Compile        time.Duration
	Elapsed        time.Duration
	Failed         string `json:",omitempty"`
}

// SampleModelFile compiles the model file at path (UVL or DIMACS) on the
// backend and draws its pairwise covering sample within timeout (the
// compile's time apart). A model beyond configurator.MaxSampleFeatures, a
// compile that fails and a sample the timeout cuts short are results with
// Failed set, not errors.
func SampleModelFile(ctx context.Context, path string, b configurator.Backend, timeout time.Duration) (ModelSample, error) {
	r := ModelSample{Backend: b.Name()}
	m, err := modelfile.Load(path, "")
	if err != nil {
		return r, err
	}
	r.Features = len(m.Features)
	if r.Features > configurator.MaxSampleFeatures {
		r.Failed = fmt.Sprintf("beyond %d features", configurator.MaxSampleFeatures)
		return r, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	sp, _, err := configurator.CompileFeatureModel(ctx, b, m)
	r.Compile = time.Since(start)
	if err != nil {
		r.Failed = "not compiled: " + err.Error()
		return r, nil
	}
	d, err := sp.Domains(ctx, nil)
	if err != nil {
		r.Failed = err.Error()
		return r, nil
	}
	r.Free = len(d.In(configurator.Open))
	start = time.Now()
	p, err := configurator.PairwiseSample(ctx, sp, nil)
	r.Elapsed = time.Since(start)
	if err != nil {
		r.Failed = err.Error()
		return r, nil
	}
	r.Configurations, r.Pairs, r.Covered, r.Complete = len(p.Configurations), p.Pairs, p.Covered, p.Complete
	if !p.Complete {
		r.Failed = fmt.Sprintf("not finished in %v: %d configurations cover %d of at most %d pairs", timeout, r.Configurations, r.Covered, r.Pairs)
	}
	return r, nil
}
