package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Samples of a feature model's configurations for testing a product line:
// configurations drawn uniformly (UniformSample), and a pairwise covering
// sample (PairwiseSample), in which every pair of values of two features
// that some configuration takes appears in a configuration of the sample.

// MaxSampleFeatures is the most features a model may have for a pairwise
// sample: the pairs to cover grow with the square of the features, and
// each configuration of the sample is checked against all of them.
const MaxSampleFeatures = 1000

// pairTries is how many uncovered pairs a configuration of the pairwise
// sample asks to take in beside the one it starts from, before it fixes
// the features left one by one.
const pairTries = 200

// MaxUniform is the most configurations UniformSample draws at once.
const MaxUniform = 10000

// ErrSampleSize: a sample asked beyond MaxSampleFeatures or MaxUniform.
var ErrSampleSize = errors.New("beyond the bounds of a sample")

// UniformSample draws k configurations that keep the decisions, each
// uniformly and independently (so a configuration may come twice), from a
// space that samples (ErrNoSampler otherwise).
func UniformSample(ctx context.Context, sp FeatureSpace, decisions []Decision, k int, rng *rand.Rand) ([][]bool, error) {
	if k < 0 || k > MaxUniform {
		return nil, fmt.Errorf("%d configurations (at most %d): %w", k, MaxUniform, ErrSampleSize)
	}
	sm, ok := sp.(FeatureSampler)
	if !ok {
		return nil, ErrNoSampler
	}
	out := make([][]bool, 0, k)
	for range k {
		config, err := sm.SampleConfiguration(ctx, decisions, rng)
		if err != nil {
			return nil, err
		}
		out = append(out, config)
	}
	return out, nil
}

// Pairwise is a pairwise covering sample and what is known of its
// coverage.
type Pairwise struct {
	// Configurations are the sample, each keeping the decisions.
	Configurations [][]bool
	// Pairs counts the valid pairs of values of two features (of those
	// the decisions leave free): those some configuration keeping the
	// decisions takes; Covered those the sample takes. Complete says
	// every pair was settled, so that Pairs is exact and Covered equals
	// it; when ctx ended first, Pairs counts the covered ones and those
	// still unsettled, and Covered/Pairs is a lower bound of the
	// coverage.
	Pairs, Covered int
	Complete       bool
}

// Coverage is the share of the valid pairs the sample covers (1 without
// pairs to cover).
func (p *Pairwise) Coverage() float64 {
	if p.Pairs == 0 {
		return 1
	}
	return float64(p.Covered) / float64(p.Pairs)
}

// PairwiseSample finds configurations that keep the decisions and
// together take every valid pair of values of two features the decisions
// leave free (t = 2), greedily, in the manner of AETG and IncLing: a
// configuration starts from an uncovered pair (one that no configuration
// takes is proven invalid and dropped), takes in other uncovered pairs of
// two selected features while a configuration keeps them all (up to
// pairTries questions), then
// fixes every free feature left in turn to the value that takes in more
// uncovered pairs, as long as a configuration keeps them all, and is
// completed by the space;
// every pair it takes is then covered. A feature the decisions
// force is fixed, and its pairs are the free features' values alone.
// When ctx ends the sample so far is returned with Complete false.
func PairwiseSample(ctx context.Context, sp FeatureSpace, decisions []Decision) (*Pairwise, error) {
	m := sp.FeatureModel()
	n := len(m.Features)
	if n > MaxSampleFeatures {
		return nil, fmt.Errorf("a pairwise sample of %d features (at most %d): %w", n, MaxSampleFeatures, ErrSampleSize)
	}
	d, err := sp.Domains(ctx, decisions)
	if err != nil {
		return nil, err
	}
	free := d.In(Open)
	k := len(free)
	// pair (a, b, va, vb), a < b indices into free, is bit
	// ((a*k+b)*4 + va*2 + vb) of settled: covered or proven invalid.
	settled := make([]uint64, (k*k*4+63)/64)
	bit := func(a, b int, va, vb bool) int {
		i := (a*k + b) * 4
		if va {
			i += 2
		}
		if vb {
			i++
		}
		return i
	}
	isSet := func(i int) bool { return settled[i/64]&(1<<(i%64)) != 0 }
	set := func(i int) { settled[i/64] |= 1 << (i % 64) }
	res := &Pairwise{Complete: true}
	cover := func(config []bool) {
		for a := range k {
			for b := a + 1; b < k; b++ {
				if i := bit(a, b, config[free[a]], config[free[b]]); !isSet(i) {
					set(i)
					res.Covered++
				}
			}
		}
	}
	invalid := 0
	lit := func(a int, v bool) Decision { return Decision{Feature: free[a], Select: v} }
	stop := func(err error) (*Pairwise, error) {
		if ctx.Err() != nil {
			// Pairs: those covered and those not settled.
			res.Complete, res.Pairs = false, k*(k-1)*2-invalid
			return res, nil
		}
		return nil, err
	}
	for a := range k {
		for b := a + 1; b < k; b++ {
			for v := range 4 {
				va, vb := v&2 != 0, v&1 != 0
				if isSet(bit(a, b, va, vb)) {
					continue
				}
				ds := append(slices.Clip(decisions), lit(a, va), lit(b, vb))
				value := map[int]bool{a: va, b: vb}
				ok, err := sp.Consistent(ctx, ds)
				if err != nil {
					return stop(err)
				}
				if !ok {
					set(bit(a, b, va, vb))
					invalid++
					continue
				}
				// Take in other uncovered pairs of two selected
				// features (the rare ones: alternatives, options of
				// options) that agree with the values fixed so far,
				// while a configuration keeps them (up to pairTries
				// questions).
				tries := 0
				for c := 0; c < k && tries < pairTries; c++ {
					for e := c + 1; e < k && tries < pairTries; e++ {
						xc, hasC := value[c]
						xe, hasE := value[e]
						if isSet(bit(c, e, true, true)) || hasC && !xc || hasE && !xe || hasC && hasE {
							continue
						}
						tries++
						more := ds
						if !hasC {
							more = append(more, lit(c, true))
						}
						if !hasE {
							more = append(more, lit(e, true))
						}
						ok, err := sp.Consistent(ctx, more)
						if err != nil {
							return stop(err)
						}
						if ok {
							ds, value[c], value[e] = more, true, true
						}
					}
				}
				// Fix every other free feature in turn to the value
				// that takes in more uncovered pairs with the values
				// fixed so far (as AETG and IncLing do), the other
				// value when that one leaves no configuration: one
				// question a feature.
				for g := range k {
					if _, ok := value[g]; ok {
						continue
					}
					gain := [2]int{}
					for h, vh := range value {
						for vi, vg := range []bool{false, true} {
							x, y, vx, vy := g, h, vg, vh
							if h < g {
								x, y, vx, vy = h, g, vh, vg
							}
							if !isSet(bit(x, y, vx, vy)) {
								gain[vi]++
							}
						}
					}
					try := gain[1] > gain[0]
					ok, err := sp.Consistent(ctx, append(ds, lit(g, try)))
					if err != nil {
						return stop(err)
					}
					if !ok {
						try = !try
					}
					ds = append(ds, lit(g, try))
					value[g] = try
				}
				config, err := sp.Configuration(ctx, ds)
				if err != nil {
					return stop(err)
				}
				res.Configurations = append(res.Configurations, config)
				cover(config)
			}
		}
	}
	res.Pairs = res.Covered
	return res, nil
}
