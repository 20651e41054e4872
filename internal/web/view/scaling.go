package view

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/nqueens/configurator/internal/web/words"
)

// How each backend scales with N, from the benchmark suite's last run:
// benchmarks.json is a copy of benchmarks/RESULTS.json (make bench writes
// it; go generate copies it here), so the page shows measured figures and
// never made-up ones.

//go:generate cp ../../../benchmarks/RESULTS.json benchmarks.json

//go:embed benchmarks.json
var benchmarksJSON []byte

// benchResults is the part of RESULTS.json the scaling chart reads. Times
// are nanoseconds.
type benchResults struct {
	Date    string
	Compile []struct {
		Method string
		N      int
		Time   int64
	}
	BDDSteps, SATSteps []benchSteps
}

// benchSteps is one backend's steps on one board size: the median step
// and the first analysis of the empty board on a cold space.
type benchSteps struct {
	Backend   string
	N         int
	Ours      struct{ P50 int64 }
	EmptyCold int64
}

// scalingChart is the chart of the embedded results, drawn once.
var scalingChart = sync.OnceValue(func() *Chart {
	var r benchResults
	if err := json.Unmarshal(benchmarksJSON, &r); err != nil {
		return nil
	}
	return scaling(r)
})

// scaling draws how the backends scale with N: the BDD's compile and
// median step, the SAT backend's first board (its clauses and the first
// analysis) and median step; the crossover marks the first board size at
// which the BDD's first answer (compile and first analysis) takes longer
// than the SAT backend's, the SAT figures interpolated between the sizes
// measured (geometrically).
func scaling(r benchResults) *Chart {
	compile := map[int]float64{}
	for _, c := range r.Compile {
		if c.Method == "direct" {
			compile[c.N] = float64(c.Time)
		}
	}
	byN := func(steps []benchSteps, f func(benchSteps) float64) (xs, ys []float64) {
		steps = slices.Clone(steps)
		slices.SortFunc(steps, func(a, b benchSteps) int { return a.N - b.N })
		for _, s := range steps {
			xs, ys = append(xs, float64(s.N)), append(ys, f(s))
		}
		return xs, ys
	}
	label := func(x, y float64) string {
		return fmt.Sprintf("%d×%d, %s", int(x), int(x), words.Duration(time.Duration(y)))
	}
	var bddCompile series
	bddCompile.name, bddCompile.label = "BDD compile", label
	ns := make([]int, 0, len(compile))
	for n := range compile {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	for _, n := range ns {
		bddCompile.xs, bddCompile.ys = append(bddCompile.xs, float64(n)), append(bddCompile.ys, compile[n])
	}
	bddStep := series{name: "BDD step (median)", label: label}
	bddStep.xs, bddStep.ys = byN(r.BDDSteps, func(s benchSteps) float64 { return float64(s.Ours.P50) })
	satFirst := series{name: "SAT first board", label: label}
	satFirst.xs, satFirst.ys = byN(r.SATSteps, func(s benchSteps) float64 { return float64(s.EmptyCold) })
	satStep := series{name: "SAT step (median)", label: label}
	satStep.xs, satStep.ys = byN(r.SATSteps, func(s benchSteps) float64 { return float64(s.Ours.P50) })
	lines := []series{bddCompile, bddStep, satFirst, satStep}

	var xticks []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, x := range l.xs {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if math.IsInf(lo, 0) {
		return nil
	}
	step := max(1, int(math.Ceil((hi-lo)/8)))
	for x := lo; x <= hi; x += float64(step) {
		xticks = append(xticks, x)
	}
	c := lineChart("scaling-chart", "How each backend scales with the board size N (logarithmic scale), from the benchmark suite", lines, timeAxis, xticks,
		func(x float64) string { return strconv.Itoa(int(x)) })
	if c == nil {
		return nil
	}
	c.XLabel, c.YLabel = "N", "time"
	bddFirst := map[int]float64{}
	for _, s := range r.BDDSteps {
		if t, ok := compile[s.N]; ok {
			bddFirst[s.N] = t + float64(s.EmptyCold)
		}
	}
	if n, ok := crossover(bddFirst, satFirst.xs, satFirst.ys); ok {
		c.mark(float64(n), fmt.Sprintf("from %d×%d the SAT backend answers a first board sooner", n, n))
	}
	return c
}

// crossover is the smallest N at which bdd's time exceeds sat's, sat
// interpolated geometrically between the sizes it was measured at; ok is
// false when the two never cross where both are known.
func crossover(bdd map[int]float64, satN, sat []float64) (int, bool) {
	ns := make([]int, 0, len(bdd))
	for n := range bdd {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	for _, n := range ns {
		x := float64(n)
		for i := 0; i+1 < len(satN); i++ {
			if satN[i] <= x && x <= satN[i+1] && sat[i] > 0 && sat[i+1] > 0 {
				f := (x - satN[i]) / (satN[i+1] - satN[i])
				s := math.Exp(math.Log(sat[i]) + f*(math.Log(sat[i+1])-math.Log(sat[i])))
				if bdd[n] > s {
					return n, true
				}
			}
		}
	}
	return 0, false
}
