package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

func compileSpace(t testing.TB, b configurator.Backend, n int) configurator.Board {
	t.Helper()
	model := configuratortest.Model(t, n, configurator.RowMajor)
	sp, err := b.Compile(context.Background(), model)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestPercentile(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		ds := make([]time.Duration, len(vs))
		for i, v := range vs {
			ds[i] = time.Duration(v) * time.Millisecond
		}
		return ds
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100, 99, ..., 1: order does not matter
	}
	tests := []struct {
		samples []time.Duration
		p       float64
		want    time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 50, 7 * time.Millisecond},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(3, 1, 2), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 1000), 99, 1000 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := Percentile(tt.samples, tt.p); got != tt.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", tt.samples, tt.p, got, tt.want)
		}
	}
}

// The walks depend only on the seed and the answers: the BDD and SAT
// spaces, both correct, take the same path, and a seed gives the same
// walk twice.
func TestRandomWalksAreReproducible(t *testing.T) {
	ctx := context.Background()
	opt := WalkOptions{Walks: 3, Steps: 25, Seed: 7}
	b := compileSpace(t, bdd.New(bdd.Options{}), 8)
	s := compileSpace(t, sat.New(sat.Options{}), 8)
	first, err := RandomWalks(ctx, 8, opt, b.Analyze)
	if err != nil {
		t.Fatal(err)
	}
	again, err := RandomWalks(ctx, 8, opt, b.Analyze)
	if err != nil {
		t.Fatal(err)
	}
	other, err := RandomWalks(ctx, 8, opt, s.Analyze)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 75 {
		t.Fatalf("%d steps, want 75", len(first))
	}
	removals, most := 0, 0
	for i := range first {
		if !slices.Equal(first[i].Queens, again[i].Queens) || !slices.Equal(first[i].Queens, other[i].Queens) {
			t.Fatalf("step %d: bdd %v, bdd again %v, sat %v", i, first[i].Queens, again[i].Queens, other[i].Queens)
		}
		if !slices.Equal(first[i].Cells, other[i].Cells) {
			t.Fatalf("step %d (%v): bdd and sat disagree", i, first[i].Queens)
		}
		if i > 0 && first[i].Walk == first[i-1].Walk && len(first[i].Queens) < len(first[i-1].Queens) {
			removals++
		}
		most = max(most, len(first[i].Queens))
	}
	// Both kinds of move happen, and walks get deep into the board.
	if removals == 0 || most < 5 {
		t.Errorf("%d removals, at most %d queens: the walks do not explore", removals, most)
	}
	// Another seed walks elsewhere.
	opt.Seed = 8
	elsewhere, err := RandomWalks(ctx, 8, opt, b.Analyze)
	if err != nil {
		t.Fatal(err)
	}
	if slices.EqualFunc(first, elsewhere, func(a, b Step) bool { return slices.Equal(a.Queens, b.Queens) }) {
		t.Error("seeds 7 and 8 walk the same path")
	}
}

// baseline is what the tests need of a baseline.
type baseline interface {
	Analyze(ctx context.Context, queens []configurator.Cell) (BaselineStep, error)
}

// The baselines must give the states the spaces give on every step of the
// walks, and refuse a placement no solution holds, as Analyze does (to
// 6×6 with -short).
func TestBaselinesAgreeWithTheSpaces(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{4, 5, 6, 7, 8} {
		if testing.Short() && n > 6 {
			break
		}
		bs := compileSpace(t, bdd.New(bdd.Options{}), n).(*bdd.Space)
		restrict, err := NewRestrictPerCell(bs)
		if err != nil {
			t.Fatal(err)
		}
		// A small collection threshold, so that the test collects.
		restrict.limit = restrict.m.Size() + 50
		model := bs.Model()
		baselines := map[string]baseline{
			"restrict-per-cell": restrict,
			"fresh-sat/cnf":     NewFreshSAT(model, Pairwise),
			"fresh-sat/card":    NewFreshSAT(model, Cardinality),
		}
		steps, err := RandomWalks(ctx, n, WalkOptions{Walks: 2, Steps: 20, Seed: 1}, bs.Analyze)
		if err != nil {
			t.Fatal(err)
		}
		// The empty board too.
		empty, err := bs.Analyze(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, Step{Cells: empty.Cells})
		for name, b := range baselines {
			for _, s := range steps {
				got, err := b.Analyze(ctx, s.Queens)
				if err != nil {
					t.Fatalf("%s, %d×%d, %v: %v", name, n, n, s.Queens, err)
				}
				if !got.Done || got.CellsDone != n*n || got.Tests < n*n-len(s.Queens) {
					t.Errorf("%s, %d×%d, %v: done %v, %d cells, %d tests", name, n, n, s.Queens, got.Done, got.CellsDone, got.Tests)
				}
				if !slices.Equal(got.Cells, s.Cells) {
					t.Errorf("%s, %d×%d, %v: states %v, want %v", name, n, n, s.Queens, got.Cells, s.Cells)
				}
			}
			// Two queens that attack each other.
			clash := []configurator.Cell{{Row: 0, Col: 0}, {Row: 1, Col: 1}}
			if _, err := b.Analyze(ctx, clash); !errors.Is(err, configurator.ErrNoSolution) {
				t.Errorf("%s, %d×%d, %v: %v, want ErrNoSolution", name, n, n, clash, err)
			}
		}
		if restrict.m.Size() > 2*bs.Manager().Size()+100 {
			t.Errorf("restrict-per-cell, %d×%d: %d nodes after the walks: no collection", n, n, restrict.m.Size())
		}
	}
}

// A baseline stopped by its context reports how far it got, so that the
// report can extrapolate.
func TestBaselinesStopOnTheirContext(t *testing.T) {
	bs := compileSpace(t, bdd.New(bdd.Options{}), 8).(*bdd.Space)
	restrict, err := NewRestrictPerCell(bs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, b := range map[string]baseline{"restrict-per-cell": restrict, "fresh-sat": NewFreshSAT(bs.Model(), Cardinality)} {
		got, err := b.Analyze(ctx, []configurator.Cell{{Row: 0, Col: 0}})
		if err != nil || got.Done || got.Cells != nil || got.CellsDone != 1 || got.CellsTotal != 64 {
			t.Errorf("%s under a cancelled context: %+v, %v; want 1 of 64 cells, not done", name, got, err)
		}
	}
	step := BaselineStep{Elapsed: time.Second, CellsDone: 16, CellsTotal: 64}
	if got := step.Estimate(); got != 4*time.Second {
		t.Errorf("estimate of 16 of 64 cells in 1s: %v, want 4s", got)
	}
	step.Done = true
	if got := step.Estimate(); got != time.Second {
		t.Errorf("estimate of a finished step: %v, want its time", got)
	}
	_ = fmt.Sprint()
}

func TestSegments(t *testing.T) {
	var steps []Step
	for w, n := range []int{23, 10, 4} { // walks of 23, 10 and 4 steps
		for range n {
			steps = append(steps, Step{Walk: w})
		}
	}
	var lens []int
	for _, seg := range segments(steps, 10) {
		lens = append(lens, len(seg))
		for _, s := range seg {
			if s.Walk != seg[0].Walk {
				t.Fatalf("a segment crosses walks %d and %d", seg[0].Walk, s.Walk)
			}
		}
	}
	if want := []int{10, 10, 3, 10, 4}; !slices.Equal(lens, want) {
		t.Errorf("segment lengths %v, want %v", lens, want)
	}
}

// CompareSteps measures the space on every step and a baseline on the
// same steps, with the parts asked for.
func TestCompareSteps(t *testing.T) {
	ctx := context.Background()
	sp := compileSpace(t, bdd.New(bdd.Options{}), 6).(*bdd.Space)
	restrict, err := NewRestrictPerCell(sp)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	opt := StepOptions{
		Walk:   WalkOptions{Walks: 3, Steps: 15, Seed: 2},
		Budget: time.Minute,
		Parts:  []Part{{Name: "nothing", Run: func(context.Context, []configurator.Cell) error { calls++; return nil }}},
	}
	r, err := CompareSteps(ctx, "bdd", sp, []NamedBaseline{{"restrict-per-cell", restrict}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend != "bdd" || r.N != 6 || r.Ours.Count != 45 || r.Empty <= 0 || r.EmptyCold <= 0 {
		t.Errorf("result %+v: want 45 steps of bdd on 6×6 and the empty board timed", r)
	}
	if len(r.Parts) != 1 || r.Parts[0].Name != "nothing" || r.Parts[0].Latency.Count != 45 || calls != 45 {
		t.Errorf("parts %+v after %d calls: want one part timed on 45 steps", r.Parts, calls)
	}
	if len(r.Baselines) != 1 {
		t.Fatalf("%d baseline results, want 1", len(r.Baselines))
	}
	b := r.Baselines[0]
	if b.Name != "restrict-per-cell" || b.Sampled != 45 || b.Estimated != 0 || b.EmptyEstimated || b.Empty <= 0 {
		t.Errorf("baseline %+v: want all 45 steps and the empty board, nothing estimated", b)
	}
	if b.Latency.Count != 45 || b.Ours.Count != 45 || b.RatioMean() <= 0 || b.SumBaseline <= 0 || b.SumOur <= 0 {
		t.Errorf("baseline %+v: want both timed on the 45 steps", b)
	}
	if r.Settle != 0 || r.Fresh.Count != 0 {
		t.Errorf("without Settle: settled in %v, %d fresh steps; want neither", r.Settle, r.Fresh.Count)
	}
	// With Settle, the walks are timed before it and after it.
	settled := false
	r, err = CompareSteps(ctx, "bdd", sp, nil, StepOptions{Walk: opt.Walk, Settle: func(ctx context.Context) error {
		time.Sleep(time.Millisecond)
		settled = true
		return sp.Precompute(ctx)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !settled || r.Settle < time.Millisecond || r.Fresh.Count != 45 || r.Ours.Count != 45 {
		t.Errorf("with Settle: settled %v in %v, %d steps before and %d after; want it run, 45 and 45", settled, r.Settle, r.Fresh.Count, r.Ours.Count)
	}
	// A budget that the empty board exceeds leaves only its estimate.
	slow := NamedBaseline{"slow", slowBaseline{}}
	r, err = CompareSteps(ctx, "bdd", sp, []NamedBaseline{slow}, StepOptions{Walk: opt.Walk, Budget: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Baselines[0]; !b.EmptyEstimated || b.Sampled != 0 || b.Empty != 36*time.Second {
		t.Errorf("slow baseline %+v: want only the empty board's estimate of 36s", b)
	}
}

// slowBaseline decides one cell a second, in appearance: it reports one
// of the cells decided in 1s and the step cut short.
type slowBaseline struct{}

func (slowBaseline) Analyze(ctx context.Context, queens []configurator.Cell) (BaselineStep, error) {
	<-ctx.Done()
	return BaselineStep{Elapsed: time.Second, CellsDone: 1, CellsTotal: 36}, nil
}
