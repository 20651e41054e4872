package main

import (
	"fmt"
	"math"
	"path/filepath"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/nqueens/configurator/benchmarks"
)

// series is one line of a plot.
type series struct {
	name string
	xy   plotter.XYs
}

// figure is a plot the report links to.
type figure struct {
	File, Title string
}

// writePlots draws the report's plots into dir, each with a log-scale Y
// axis, and returns them in the order the report shows them. A plot with
// no data is left out.
func writePlots(dir string, res *Results) ([]figure, error) {
	var figs []figure
	add := func(file, title, xlabel, ylabel string, ss []series) error {
		var kept []series
		for _, s := range ss {
			if len(s.xy) > 0 {
				kept = append(kept, s)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		if err := logPlot(filepath.Join(dir, file), title, xlabel, ylabel, kept); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		figs = append(figs, figure{file, title})
		return nil
	}
	seconds := func(d time.Duration) float64 { return d.Seconds() }
	millis := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }

	var times, heaps, perNode []series
	for _, m := range benchmarks.CompileMethods {
		t, h, p := series{name: m}, series{name: m}, series{name: m}
		for _, r := range res.Compile {
			if r.Method != m {
				continue
			}
			t.xy = appendPos(t.xy, r.N, seconds(r.Time))
			h.xy = appendPos(h.xy, r.N, mib(r.PeakHeap))
			p.xy = appendPos(p.xy, r.N, r.BytesPerNode())
		}
		times, heaps, perNode = append(times, t), append(heaps, h), append(perNode, p)
	}
	buddy := series{name: "BuDDy 2.4, C (earlier run, reference)"}
	for _, r := range buddyReference {
		buddy.xy = appendPos(buddy.xy, r.N, r.Seconds)
	}
	if len(res.Compile) > 0 {
		times = append(times, buddy)
	}
	if err := add("compile_time.svg", "Compile time of the N-Queens BDD (row-major)", "N", "seconds", times); err != nil {
		return nil, err
	}
	if err := add("compile_memory.svg", "Peak Go heap during the compile", "N", "MiB", heaps); err != nil {
		return nil, err
	}
	if err := add("bytes_per_node.svg", "Live heap per diagram node after the compile", "N", "bytes per node", perNode); err != nil {
		return nil, err
	}
	if err := add("bdd_step.svg", "BDD: time per step of the random walks", "N", "milliseconds", stepSeries(res.BDDSteps, millis)); err != nil {
		return nil, err
	}
	if err := add("sat_step.svg", "SAT: time per step of the random walks", "N", "milliseconds", stepSeries(res.SATSteps, millis)); err != nil {
		return nil, err
	}
	return figs, nil
}

// stepSeries makes the lines of a per-step plot: p50 and p99 of the space
// and of each baseline.
func stepSeries(rs []benchmarks.StepResult, unit func(time.Duration) float64) []series {
	ours50, ours99 := series{name: "ours p50"}, series{name: "ours p99"}
	base := map[string]*[2]series{}
	var names []string
	for _, r := range rs {
		ours50.xy = appendPos(ours50.xy, r.N, unit(r.Ours.P50))
		ours99.xy = appendPos(ours99.xy, r.N, unit(r.Ours.P99))
		for _, b := range r.Baselines {
			if b.Sampled == 0 {
				continue
			}
			s, ok := base[b.Name]
			if !ok {
				s = &[2]series{{name: b.Name + " p50"}, {name: b.Name + " p99"}}
				base[b.Name] = s
				names = append(names, b.Name)
			}
			s[0].xy = appendPos(s[0].xy, r.N, unit(b.Latency.P50))
			s[1].xy = appendPos(s[1].xy, r.N, unit(b.Latency.P99))
		}
	}
	out := []series{ours50, ours99}
	for _, n := range names {
		out = append(out, base[n][0], base[n][1])
	}
	return out
}

// appendPos adds a point a log axis can show: positive and finite.
func appendPos(xy plotter.XYs, n int, y float64) plotter.XYs {
	if y <= 0 || math.IsInf(y, 0) || math.IsNaN(y) {
		return xy
	}
	return append(xy, plotter.XY{X: float64(n), Y: y})
}

func logPlot(path, title, xlabel, ylabel string, ss []series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel + " (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Tick.Marker = integerTicks{}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = 4 * vg.Millimeter
	var args []any
	for _, s := range ss {
		args = append(args, s.name, s.xy)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	return p.Save(18*vg.Centimeter, 11*vg.Centimeter, path)
}

// integerTicks labels board sizes: every integer on short ranges, fewer on
// long ones.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for (hi-lo)/float64(step) > 12 {
		step *= 2
	}
	var ticks []plot.Tick
	for x := int(math.Ceil(lo)); float64(x) <= hi; x++ {
		t := plot.Tick{Value: float64(x)}
		if x%step == 0 {
			t.Label = fmt.Sprint(x)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// buddyReference is BuDDy 2.4 (C, Debian libbdd-dev) compiling the same
// diagram row by row on this kind of machine, measured once for the
// project (see the shared notes); it is not re-measured by the suite.
var buddyReference = []struct {
	N       int
	Seconds float64
	PeakRSS uint64
}{
	{8, 0.008, 0}, {10, 0.23, 0}, {11, 1.3, 143 << 20}, {12, 6.4, 676 << 20}, {13, 75.5, 5400 << 20},
}
