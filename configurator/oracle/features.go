package oracle

import (
	"fmt"
	"math/bits"
	"slices"
)

// MaxFeatures is the most features a Features oracle enumerates: 2^20
// assignments, each judged once.
const MaxFeatures = 20

// Features holds every configuration of a feature model of at most
// MaxFeatures features, found by judging every assignment with the model's
// own meaning: the function valid, which the cross-check takes from
// feature.Model.Valid (the tree, the groups and the constraints read
// directly), never from the clauses a backend compiles. It answers each
// question by filtering that list. It is immutable and safe for concurrent
// use.
type Features struct {
	n int
	// configs are the configurations, feature i selected when bit i is
	// set, in increasing order.
	configs []uint64
}

// Decision is one choice on a feature model: Feature selected, or
// deselected when Select is false.
type Decision struct {
	Feature int
	Select  bool
}

// MaxListed is the most features of a model whose configurations are
// handed to FeaturesOf, listed by another enumeration (a board's
// solutions, found by the board oracle's own search).
const MaxListed = 64

// FeaturesOf is the oracle of a model of n features, 0 <= n <= MaxListed,
// whose configurations are configs (selected[i] per feature, each once).
func FeaturesOf(n int, configs [][]bool) (*Features, error) {
	if n < 0 || n > MaxListed {
		return nil, fmt.Errorf("oracle for a model of %d features (0..%d): %w", n, MaxListed, ErrSize)
	}
	o := &Features{n: n}
	for _, c := range configs {
		if len(c) != n {
			return nil, fmt.Errorf("oracle: a configuration of %d features in a model of %d: %w", len(c), n, ErrSize)
		}
		o.configs = append(o.configs, pack(c))
	}
	return o, nil
}

// NewFeatures enumerates the configurations of a model of n features,
// 0 <= n <= MaxFeatures, for which valid (given selected[i] per feature)
// reports true.
func NewFeatures(n int, valid func(selected []bool) bool) (*Features, error) {
	if n < 0 || n > MaxFeatures {
		return nil, fmt.Errorf("oracle for a model of %d features (0..%d): %w", n, MaxFeatures, ErrSize)
	}
	o := &Features{n: n}
	config := make([]bool, n)
	for mask := range uint64(1) << n {
		for i := range config {
			config[i] = mask>>i&1 == 1
		}
		if valid(config) {
			o.configs = append(o.configs, mask)
		}
	}
	return o, nil
}

// Count is the number of configurations of the whole model.
func (o *Features) Count() int { return len(o.configs) }

// masks returns the features the decisions select and those they
// deselect, as bit masks.
func masks(ds []Decision) (on, off uint64) {
	for _, d := range ds {
		if d.Select {
			on |= 1 << d.Feature
		} else {
			off |= 1 << d.Feature
		}
	}
	return on, off
}

// keeps reports whether configuration c keeps every decision of on and
// off.
func keeps(c, on, off uint64) bool { return c&on == on && c&off == 0 }

// Configurations returns the configurations that keep the decisions, as
// selected[i] per feature.
func (o *Features) Configurations(ds []Decision) [][]bool {
	on, off := masks(ds)
	var out [][]bool
	for _, c := range o.configs {
		if keeps(c, on, off) {
			out = append(out, o.unpack(c))
		}
	}
	return out
}

func (o *Features) unpack(c uint64) []bool {
	out := make([]bool, o.n)
	for i := range out {
		out[i] = c>>i&1 == 1
	}
	return out
}

// IsConfiguration reports whether selected (one entry per feature) is a
// configuration of the model.
func (o *Features) IsConfiguration(selected []bool) bool {
	return len(selected) == o.n && slices.Contains(o.configs, pack(selected))
}

// pack is selected as a bit mask, feature i selected when bit i is set.
func pack(selected []bool) uint64 {
	var c uint64
	for i, s := range selected {
		if s {
			c |= 1 << i
		}
	}
	return c
}

// Consistent reports whether some configuration keeps every decision.
func (o *Features) Consistent(ds []Decision) bool {
	on, off := masks(ds)
	return slices.ContainsFunc(o.configs, func(c uint64) bool { return keeps(c, on, off) })
}

// Selections returns the fewest and the most features that a
// configuration keeping the decisions selects; ok is false when none
// keeps them.
func (o *Features) Selections(ds []Decision) (fewest, most int, ok bool) {
	on, off := masks(ds)
	fewest = o.n + 1
	for _, c := range o.configs {
		if keeps(c, on, off) {
			k := bits.OnesCount64(c)
			fewest, most, ok = min(fewest, k), max(most, k), true
		}
	}
	if !ok {
		return 0, 0, false
	}
	return fewest, most, true
}

// FeatureAnalysis is the oracle's view of a list of decisions: for every
// feature, whether some configuration keeping them selects it (On) and
// whether some deselects it (Off), and how many configurations keep them.
type FeatureAnalysis struct {
	On, Off        []bool
	Configurations int
}

// Analyze classifies every feature under the decisions.
func (o *Features) Analyze(ds []Decision) *FeatureAnalysis {
	on, off := masks(ds)
	var some, all uint64 = 0, ^uint64(0)
	a := &FeatureAnalysis{On: make([]bool, o.n), Off: make([]bool, o.n)}
	for _, c := range o.configs {
		if keeps(c, on, off) {
			a.Configurations++
			some |= c
			all &= c
		}
	}
	for i := range o.n {
		a.On[i] = some>>i&1 == 1
		a.Off[i] = a.Configurations > 0 && all>>i&1 == 0
	}
	return a
}

// Forces reports whether no configuration keeps the decisions and gives
// feature f the value other (true when no configuration keeps them at
// all).
func (o *Features) Forces(ds []Decision, f int, other bool) bool {
	return !o.Consistent(append(append([]Decision(nil), ds...), Decision{f, other}))
}

// MinimalReasons lists every subset-minimal set of the decisions (indices
// into ds, increasing) that forces feature f away from the value other,
// by trying every subset: for lists of up to 16 decisions.
func (o *Features) MinimalReasons(ds []Decision, f int, other bool) ([][]int, error) {
	if len(ds) > 16 {
		return nil, fmt.Errorf("oracle: %d decisions: every subset of at most 16 is tried: %w", len(ds), ErrSize)
	}
	// members lists the indices into ds of the subset s, a mask over ds.
	members := func(s uint32) []int {
		var set []int
		for j := range ds {
			if s>>j&1 == 1 {
				set = append(set, j)
			}
		}
		return set
	}
	var forcing []uint32 // the subsets that force, as masks over ds
	for s := range uint32(1) << len(ds) {
		var sub []Decision
		for _, j := range members(s) {
			sub = append(sub, ds[j])
		}
		if o.Forces(sub, f, other) {
			forcing = append(forcing, s)
		}
	}
	var out [][]int
	for _, s := range forcing {
		if !slices.ContainsFunc(forcing, func(t uint32) bool { return t != s && t&s == t }) {
			out = append(out, members(s))
		}
	}
	return out, nil
}

// MinUndo is the size of the smallest subset of the decisions whose
// undoing lets feature f take the value other: the number of decisions
// less the most of them any configuration with that value keeps. ok is
// false when no configuration gives f that value, so that no undoing
// helps.
func (o *Features) MinUndo(ds []Decision, f int, other bool) (k int, ok bool) {
	best := -1
	for _, c := range o.configs {
		if (c>>f&1 == 1) != other {
			continue
		}
		kept := 0
		for _, d := range ds {
			if (c>>d.Feature&1 == 1) == d.Select {
				kept++
			}
		}
		best = max(best, kept)
	}
	if best < 0 {
		return 0, false
	}
	return len(ds) - best, true
}
