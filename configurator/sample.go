package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/nqueens/configurator/configurator/feature"
)

// Samples of a feature model's configurations for testing a product line:
// configurations drawn uniformly (UniformSample), and a pairwise covering
// sample (PairwiseSample), in which every pair of values of two features
// that some configuration takes appears in a configuration of the sample.

// MaxSampleFeatures is the most features a model may have for a pairwise
// sample: the pairs to cover grow with the square of the features, and
// each configuration of the sample is checked against all of them.
const MaxSampleFeatures = 1000

// mergeTries is how many configurations of the pairwise sample a pair that
// no configuration takes yet is offered to, one question to the space
// each, before it starts a configuration of its own: more make smaller
// samples of models whose values exclude each other widely, at a question
// each.
const mergeTries = 256

// MaxUniform is the most configurations UniformSample draws at once.
const MaxUniform = 10000

// ErrSampleSize: a sample asked beyond MaxSampleFeatures or MaxUniform.
var ErrSampleSize = errors.New("beyond the bounds of a sample")

// UniformSample draws k configurations that keep the decisions, each
// uniformly and independently (so a configuration may come twice), from a
// space that samples (ErrNoSampler otherwise).
func UniformSample(ctx context.Context, sp Space, decisions []Decision, k int, rng *rand.Rand) ([][]bool, error) {
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
// leave free (t = 2), in the manner of YASA (Krieter et al., VaMoS 2020).
// Each configuration of the sample is partial, the values its pairs need
// and what they imply by unit propagation over the model's clauses, with a
// witness: a configuration of the space that takes them all. A pair that
// no witness takes yet (those of two selected features first, then one,
// then none; in each kind those whose values imply most first) is proven
// invalid by unit propagation or by the space, or else goes into the
// first configuration that can take it: one whose values the space's
// configuration with the pair keeps (no further question), else one that a
// configuration of the space keeps with the pair (a question each, up to
// mergeTries; a configuration found unable to take a value is not asked
// again); else it starts a configuration of its own. Since a witness that
// changes may lose pairs it took, the pairs are visited again until none
// is left. The witnesses are the sample, less those each of whose pairs
// another takes too, dropped last. A feature the decisions force is
// fixed, and its pairs are the free features' values alone. When ctx ends
// the sample so far is returned with Complete false.
func PairwiseSample(ctx context.Context, sp Space, decisions []Decision) (*Pairwise, error) {
	m := sp.FeatureModel()
	n := len(m.Features)
	if n > MaxSampleFeatures {
		return nil, fmt.Errorf("a pairwise sample of %d features (at most %d): %w", n, MaxSampleFeatures, ErrSampleSize)
	}
	d, err := sp.Domains(ctx, decisions)
	if err == nil && !d.Settled() {
		err = ErrUnsettled
	}
	if err != nil {
		return nil, err
	}
	s := &pairSampler{sp: sp, decisions: decisions, free: d.In(Open)}
	k := len(s.free)
	s.wbits = make([]bitset, 2*k)
	s.pbits = make([]bitset, 2*k)
	s.nogood = make([]bitset, 2*k)
	s.implications(m)
	invalid, err := s.run(ctx)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	res := &Pairwise{Complete: err == nil}
	if res.Complete {
		s.prune(ctx)
	}
	for _, i := range s.kept() {
		res.Configurations = append(res.Configurations, s.witness[i])
	}
	res.Covered = countPairs(s.free, res.Configurations)
	res.Pairs = res.Covered
	if !res.Complete {
		// Those covered and those not settled.
		res.Pairs = k*(k-1)*2 - invalid
	}
	return res, nil
}

// pairSampler is the state of PairwiseSample. A literal of the free
// feature free[a] with the value v is 2*a+1 if v, 2*a if not; a pair is
// two literals of two free features.
type pairSampler struct {
	sp        Space
	decisions []Decision
	free      []int
	// Of configuration i: fixed[i] the literals its pairs need (the
	// partial configuration), witness[i] a configuration of the space
	// that keeps the decisions and takes them.
	fixed   [][]int
	witness [][]bool
	// wbits[l] holds the configurations whose witness takes literal l,
	// pbits[l] those that fix l, and nogood[l] those proven unable to
	// take l (no configuration keeps their literals and l).
	wbits, pbits, nogood []bitset
	// dropped marks the configurations prune removed.
	dropped []bool
	// invalid holds the pairs (pairIndex) no configuration takes.
	invalid bitset
	// up propagates units over the model's CNF, the decisions assumed:
	// cheap beside a question to the space, and sound, so asked first.
	// implies[l] are the other free literals that l implies by it, and
	// impBits[l] the same as a set.
	up      *feature.Propagator
	implies [][]int
	impBits []bitset
}

// implications finds what each free literal implies by unit propagation.
func (s *pairSampler) implications(m *feature.Model) {
	s.up = feature.NewPropagator(m.CNF())
	for _, d := range s.decisions {
		s.up.Assume(d.Lit())
	}
	at := make(map[int]int, len(s.free))
	for a, f := range s.free {
		at[f] = a
	}
	k := len(s.free)
	s.implies = make([][]int, 2*k)
	s.impBits = make([]bitset, 2*k)
	for a, f := range s.free {
		for _, v := range [2]bool{false, true} {
			l := lit(a, v)
			trail, ok := s.implied(feature.FeatureLit(f, v))
			if !ok {
				continue // the space says the value is possible
			}
			for _, t := range trail {
				b, free := at[t.Var()-1]
				if free && b != a && t.Var() <= len(m.Features) {
					s.implies[l] = append(s.implies[l], lit(b, t > 0))
					s.impBits[l].set(lit(b, t > 0), true)
				}
			}
		}
	}
}

// implied propagates lits on top of the decisions and returns what they
// imply, lits included, and false on a conflict; the propagator holds the
// decisions alone again after.
func (s *pairSampler) implied(lits ...feature.Lit) ([]feature.Lit, bool) {
	mark := s.up.Mark()
	defer s.up.Undo(mark)
	ok := s.up.Assume(lits...)
	return s.up.Since(mark), ok
}

// run visits every pair of free literals that no witness takes and puts
// it in a configuration, or proves it invalid, until every valid pair is
// taken: a witness that changes may lose pairs it took, which the next
// round visits again. It returns the invalid pairs and the error that
// stopped it.
func (s *pairSampler) run(ctx context.Context) (invalid int, err error) {
	k := len(s.free)
	s.invalid = make(bitset, (4*k*k+63)/64)
	order := make([][2]int, 0, k*(k-1)/2)
	for placed := true; placed; {
		placed = false
		// Two selected features first, then one, then none, and in each
		// kind the pairs whose values imply most first: the rarest
		// values find least room in configurations made for others.
		for _, v := range [4][2]bool{{true, true}, {true, false}, {false, true}, {false, false}} {
			order = order[:0]
			for a := range k {
				for b := a + 1; b < k; b++ {
					order = append(order, [2]int{lit(a, v[0]), lit(b, v[1])})
				}
			}
			weight := func(p [2]int) int { return len(s.implies[p[0]]) + len(s.implies[p[1]]) }
			slices.SortStableFunc(order, func(p, q [2]int) int { return weight(q) - weight(p) })
			for _, p := range order {
				x, y := p[0], p[1]
				i := pairIndex(k, x/2, y/2, v[0], v[1])
				if s.invalid.has(i) || s.wbits[x].meets(s.wbits[y]) {
					continue
				}
				ok, err := s.place(ctx, x, y)
				if err != nil {
					return invalid, err
				}
				placed = true
				if !ok {
					s.invalid.set(i, true)
					invalid++
				}
			}
		}
	}
	return invalid, nil
}

// lit is the literal of free feature a with value v.
func lit(a int, v bool) int {
	if v {
		return 2*a + 1
	}
	return 2 * a
}

// place puts the pair of literals x, y, which no witness takes, in a
// configuration of the sample, and reports false if no configuration of
// the space takes the pair.
func (s *pairSampler) place(ctx context.Context, x, y int) (bool, error) {
	// Proven invalid by unit propagation, or else a configuration of the
	// space that takes the pair, or the proof that none does.
	if s.impBits[x].has(y^1) || s.impBits[y].has(x^1) {
		return false, nil
	}
	if _, ok := s.implied(s.featureLit(x), s.featureLit(y)); !ok {
		return false, nil
	}
	config, err := s.sp.Configuration(ctx, s.decide(-1, x, y))
	if errors.Is(err, ErrNoSolution) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// The configurations that can take the pair as far as is known (they
	// fix neither literal's opposite, nor were proven unable to take
	// either), those that fix one of the two first, then the fuller: the
	// first that config keeps takes it as its witness, else the first
	// that a configuration keeps with the pair (a question each, up to
	// mergeTries).
	var cands []int
	unable := s.pbits[x^1].union(s.pbits[y^1]).union(s.nogood[x]).union(s.nogood[y])
	for i := range s.fixed {
		if !unable.has(i) {
			cands = append(cands, i)
		}
	}
	fixes := func(i int) int { return b2i(s.pbits[x].has(i)) + b2i(s.pbits[y].has(i)) }
	slices.SortStableFunc(cands, func(i, j int) int {
		if fi, fj := fixes(i), fixes(j); fi != fj {
			return fj - fi
		}
		return len(s.fixed[j]) - len(s.fixed[i])
	})
	// take makes w configuration i's witness and fixes the pair in i.
	take := func(i int, w []bool) (bool, error) {
		s.setWitness(i, w)
		s.fix(i, x, y)
		return true, nil
	}
	for _, i := range cands {
		if s.keeps(config, i) {
			return take(i, config)
		}
	}
	for _, i := range cands[:min(len(cands), mergeTries)] {
		merged, err := s.sp.Configuration(ctx, s.decide(i, x, y))
		if errors.Is(err, ErrNoSolution) {
			// One literal fixed already: the other is the one the
			// configuration cannot take, now or later.
			switch {
			case s.pbits[x].has(i):
				s.nogood[y].set(i, true)
			case s.pbits[y].has(i):
				s.nogood[x].set(i, true)
			}
			continue
		}
		if err != nil {
			return false, err
		}
		return take(i, merged)
	}
	s.fixed = append(s.fixed, nil)
	s.witness = append(s.witness, nil)
	s.dropped = append(s.dropped, false)
	return take(len(s.fixed)-1, config)
}

// keeps reports whether config takes every literal configuration i fixes.
func (s *pairSampler) keeps(config []bool, i int) bool {
	for _, l := range s.fixed[i] {
		if config[s.free[l/2]] != (l%2 == 1) {
			return false
		}
	}
	return true
}

// decide is the decisions of the request with the literals configuration
// i fixes (none if i < 0) and those of x, y it does not.
func (s *pairSampler) decide(i, x, y int) []Decision {
	var fixed []int
	if i >= 0 {
		fixed = s.fixed[i]
	}
	ds := make([]Decision, 0, len(s.decisions)+len(fixed)+2)
	ds = append(ds, s.decisions...)
	for _, l := range fixed {
		ds = append(ds, Decision{Feature: s.free[l/2], Select: l%2 == 1})
	}
	for _, l := range [2]int{x, y} {
		if i < 0 || !s.pbits[l].has(i) {
			ds = append(ds, Decision{Feature: s.free[l/2], Select: l%2 == 1})
		}
	}
	return ds
}

// featureLit is the CNF literal of the free literal l.
func (s *pairSampler) featureLit(l int) feature.Lit {
	return feature.FeatureLit(s.free[l/2], l%2 == 1)
}

// fix adds the literals x and y, and those they imply by unit
// propagation, to configuration i's, whose witness takes them.
func (s *pairSampler) fix(i, x, y int) {
	for _, ls := range [][]int{{x, y}, s.implies[x], s.implies[y]} {
		for _, l := range ls {
			if !s.pbits[l].has(i) {
				s.fixed[i] = append(s.fixed[i], l)
				s.pbits[l].set(i, true)
			}
		}
	}
}

// setWitness makes config (a copy) configuration i's witness.
func (s *pairSampler) setWitness(i int, config []bool) {
	s.witness[i] = slices.Clone(config)
	for a, f := range s.free {
		v := config[f]
		s.wbits[lit(a, v)].set(i, true)
		s.wbits[lit(a, !v)].set(i, false)
	}
}

// kept lists the configurations prune kept.
func (s *pairSampler) kept() []int {
	var out []int
	for i := range s.witness {
		if !s.dropped[i] {
			out = append(out, i)
		}
	}
	return out
}

// prune drops the witnesses each of whose pairs another kept witness
// takes, those that fix fewest literals first (made for the last few
// pairs), until ctx ends.
func (s *pairSampler) prune(ctx context.Context) {
	k := len(s.free)
	count := make([]int32, 4*k*k)
	for _, c := range s.witness {
		eachPair(s.free, c, func(p int) bool { count[p]++; return true })
	}
	order := s.kept()
	slices.SortStableFunc(order, func(i, j int) int { return len(s.fixed[i]) - len(s.fixed[j]) })
	for _, i := range order {
		if ctx.Err() != nil {
			return
		}
		if eachPair(s.free, s.witness[i], func(p int) bool { return count[p] > 1 }) {
			s.dropped[i] = true
			eachPair(s.free, s.witness[i], func(p int) bool { count[p]--; return true })
		}
	}
}

// b2i is 1 for true, 0 for false.
func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}

// pairIndex numbers the pair of values va, vb of the free features a < b
// of k, below 4*k*k.
func pairIndex(k, a, b int, va, vb bool) int {
	return (lit(a, va)*k+b)*2 + lit(0, vb)
}

// countPairs counts the distinct pairs of values of two of the features
// free that the configurations take.
func countPairs(free []int, configs [][]bool) int {
	k := len(free)
	seen := make(bitset, (4*k*k+63)/64)
	n := 0
	for _, c := range configs {
		eachPair(free, c, func(p int) bool {
			if !seen.has(p) {
				seen.set(p, true)
				n++
			}
			return true
		})
	}
	return n
}

// eachPair calls f with the pairIndex of every pair of values config
// gives two of the features free, until f returns false; it reports
// whether f always returned true.
func eachPair(free []int, config []bool, f func(int) bool) bool {
	k := len(free)
	for a := range k {
		va := config[free[a]]
		for b := a + 1; b < k; b++ {
			if !f(pairIndex(k, a, b, va, config[free[b]])) {
				return false
			}
		}
	}
	return true
}

// bitset is a set of small non-negative integers, grown as needed.
type bitset []uint64

// has reports whether i is in the set.
func (b bitset) has(i int) bool {
	return i/64 < len(b) && b[i/64]>>(i%64)&1 == 1
}

// set puts i in the set or takes it out.
func (b *bitset) set(i int, in bool) {
	for i/64 >= len(*b) {
		*b = append(*b, 0)
	}
	if in {
		(*b)[i/64] |= 1 << (i % 64)
	} else {
		(*b)[i/64] &^= 1 << (i % 64)
	}
}

// meets reports whether the two sets share an element.
func (b bitset) meets(c bitset) bool {
	for w := range min(len(b), len(c)) {
		if b[w]&c[w] != 0 {
			return true
		}
	}
	return false
}

// union is a new set of the elements of either.
func (b bitset) union(c bitset) bitset {
	if len(b) < len(c) {
		b, c = c, b
	}
	u := slices.Clone(b)
	for w := range c {
		u[w] |= c[w]
	}
	return u
}
