package benchmarks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// Baseline is a straightforward valid-domain computation that a space is
// compared with: RestrictPerCell or FreshSAT.
type Baseline interface {
	Analyze(ctx context.Context, queens []configurator.Cell) (BaselineStep, error)
}

// NamedBaseline is a baseline and its name in reports.
type NamedBaseline struct {
	Name string
	Baseline
}

// StepOptions says how to compare a space with its baselines.
type StepOptions struct {
	Walk WalkOptions
	// Budget is the wall time each baseline may spend on the steps of the
	// walks on one board, and EmptyBudget (Budget when 0) on the empty
	// board before them. A step a budget cuts short is extrapolated from
	// the cells it decided (see BaselineStep.Estimate); when even the
	// empty board is cut short, the steps are skipped.
	Budget, EmptyBudget time.Duration
	// Parts are pieces of the space's work, timed alone over every step
	// of the walks after them: what an analysis spends where.
	Parts []Part
	// Settle, when set, is work a space does once before it answers every
	// step at its best (the bdd Space's Precompute): the walks are timed on
	// the space as it is first (StepResult.Fresh), then Settle runs, and
	// the walks are timed again (StepResult.Ours).
	Settle func(ctx context.Context) error
}

// Part is a piece of a space's analysis that a report times alone, such as
// the valid domains without the count.
type Part struct {
	Name string
	Run  func(ctx context.Context, queens []configurator.Cell) error
}

// PartResult is a Part's time over the steps.
type PartResult struct {
	Name    string
	Latency Latency
}

// StepResult is the per-step comparison on one board.
type StepResult struct {
	Backend string
	N       int
	// Ours is the space's Analyze over every step of the walks;
	// EmptyCold its first analysis of the empty board (the SAT backend
	// builds its solver then) and Empty the median of five more.
	Ours             Latency
	EmptyCold, Empty time.Duration
	Parts            []PartResult
	Baselines        []BaselineResult
	// Fresh is Ours on the space before StepOptions.Settle, and Settle the
	// time Settle took; both zero without one.
	Fresh  Latency
	Settle time.Duration
}

// BaselineResult is one baseline's share of a StepResult.
type BaselineResult struct {
	Name string
	// Empty is the baseline's time on the empty board, an extrapolation
	// when EmptyEstimated.
	Empty          time.Duration
	EmptyEstimated bool
	// Sampled steps of the walks, taken in segments of ten consecutive
	// steps, the segments in a seeded random order, until the budget ran
	// out, were measured; Estimated of them were cut short by the budget
	// and extrapolated.
	Sampled, Estimated int
	// Latency is the baseline's over the sampled steps, Ours the space's
	// on the same steps, timed on each segment just before the baseline;
	// their sums give the ratio of the means.
	Latency, Ours       Latency
	SumBaseline, SumOur time.Duration
	// Collect is the garbage collection left out of the baseline's times.
	Collect time.Duration
}

// RatioP50, RatioP99 and RatioMean are how many times longer the baseline
// took than the space on the same steps; 0 when nothing was sampled.
func (b BaselineResult) RatioP50() float64  { return ratio(b.Latency.P50, b.Ours.P50) }
func (b BaselineResult) RatioP99() float64  { return ratio(b.Latency.P99, b.Ours.P99) }
func (b BaselineResult) RatioMean() float64 { return ratio(b.SumBaseline, b.SumOur) }

func ratio(a, b time.Duration) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// CompareSteps times sp's Analyze over seeded random walks and each
// baseline on a sample of the same steps, within the baseline's budget.
// Every step a baseline finishes must give the states the space gave: a
// disagreement is an error, so a wrong baseline cannot look fast.
func CompareSteps(ctx context.Context, backend string, sp configurator.Board, baselines []NamedBaseline, opt StepOptions) (StepResult, error) {
	n := sp.Model().N()
	res := StepResult{Backend: backend, N: n}
	start := time.Now()
	empty, err := sp.Analyze(ctx, nil)
	if err != nil {
		return res, fmt.Errorf("%s %d×%d, empty board: %w", backend, n, n, err)
	}
	res.EmptyCold = time.Since(start)
	var times []time.Duration
	for range 5 {
		start := time.Now()
		if _, err := sp.Analyze(ctx, nil); err != nil {
			return res, err
		}
		times = append(times, time.Since(start))
	}
	res.Empty = Percentile(times, 50)
	if opt.Settle != nil {
		steps, err := RandomWalks(ctx, n, opt.Walk, sp.Analyze)
		if err != nil {
			return res, fmt.Errorf("%s, before settling: %w", backend, err)
		}
		res.Fresh = Summarize(Elapsed(steps))
		start := time.Now()
		if err := opt.Settle(ctx); err != nil {
			return res, fmt.Errorf("%s %d×%d, settling: %w", backend, n, n, err)
		}
		res.Settle = time.Since(start)
	}
	steps, err := RandomWalks(ctx, n, opt.Walk, sp.Analyze)
	if err != nil {
		return res, fmt.Errorf("%s: %w", backend, err)
	}
	res.Ours = Summarize(Elapsed(steps))
	for _, part := range opt.Parts {
		ds := make([]time.Duration, len(steps))
		for i, s := range steps {
			start := time.Now()
			if err := part.Run(ctx, s.Queens); err != nil {
				return res, fmt.Errorf("%s %d×%d, %s of %s: %w", backend, n, n, part.Name, configurator.FormatCells(s.Queens), err)
			}
			ds[i] = time.Since(start)
		}
		res.Parts = append(res.Parts, PartResult{Name: part.Name, Latency: Summarize(ds)})
	}
	for _, b := range baselines {
		br, err := sampleBaseline(ctx, sp, b, empty, steps, opt)
		if err != nil {
			return res, fmt.Errorf("%s %d×%d against %s: %w", backend, n, n, b.Name, err)
		}
		res.Baselines = append(res.Baselines, br)
	}
	return res, nil
}

// segmentLen is how many consecutive steps of a walk a baseline takes at
// a time.
const segmentLen = 10

// segments cuts the steps into runs of at most n consecutive steps of one
// walk.
func segments(steps []Step, n int) [][]Step {
	var segs [][]Step
	for i := 0; i < len(steps); {
		j := i + 1
		for j < len(steps) && j-i < n && steps[j].Walk == steps[i].Walk {
			j++
		}
		segs = append(segs, steps[i:j])
		i = j
	}
	return segs
}

func sampleBaseline(ctx context.Context, sp configurator.Board, b NamedBaseline, empty *configurator.Analysis, steps []Step, opt StepOptions) (BaselineResult, error) {
	br := BaselineResult{Name: b.Name}
	emptyBudget := opt.EmptyBudget
	if emptyBudget <= 0 {
		emptyBudget = opt.Budget
	}
	ectx, cancel := context.WithTimeout(ctx, emptyBudget)
	e, err := b.Analyze(ectx, nil)
	cancel()
	if err != nil {
		return br, fmt.Errorf("empty board: %w", err)
	}
	if e.Done && !slices.Equal(e.Cells, empty.Cells) {
		return br, fmt.Errorf("empty board: the baseline's states differ from the space's")
	}
	br.Empty, br.EmptyEstimated, br.Collect = e.Estimate(), !e.Done, e.Collect
	if !e.Done {
		return br, ctx.Err()
	}
	deadline := time.Now().Add(opt.Budget)
	bctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	// The steps are taken in segments of consecutive steps of a walk, the
	// segments in a seeded random order: each approach then sees clicks in
	// the order a person makes them (what one step leaves in the caches
	// serves the next, as in use), and the sample still covers the walks
	// evenly however soon the budget ends it. On each segment the space
	// runs first, then the baseline, so both meet the same machine.
	segs := segments(steps, segmentLen)
	rng := rand.New(rand.NewPCG(opt.Walk.Seed, uint64(len(steps))))
	var ours, theirs []time.Duration
sample:
	for _, k := range rng.Perm(len(segs)) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		seg := segs[k]
		our := make([]time.Duration, len(seg))
		for j, s := range seg {
			t := time.Now()
			if _, err := sp.Analyze(ctx, s.Queens); err != nil {
				return br, err
			}
			our[j] = time.Since(t)
		}
		for j, s := range seg {
			got, err := b.Analyze(bctx, s.Queens)
			if err != nil {
				return br, fmt.Errorf("queens %s: %w", configurator.FormatCells(s.Queens), err)
			}
			br.Collect += got.Collect
			if !got.Done {
				if got.CellsDone == 0 {
					break sample // nothing to extrapolate from
				}
				br.Estimated++
			} else if !slices.Equal(got.Cells, s.Cells) {
				return br, fmt.Errorf("queens %s: the baseline's states differ from the space's", configurator.FormatCells(s.Queens))
			}
			ours, theirs = append(ours, our[j]), append(theirs, got.Estimate())
			br.SumOur += our[j]
			br.SumBaseline += got.Estimate()
			if !got.Done {
				break sample
			}
		}
	}
	br.Sampled = len(theirs)
	br.Latency, br.Ours = Summarize(theirs), Summarize(ours)
	return br, nil
}
