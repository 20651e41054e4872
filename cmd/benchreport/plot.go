package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/nqueens/configurator/benchmarks"
)

// series is one line of a plot; a target is drawn dashed, in grey,
// without points: a bound the measured lines are read against.
type series struct {
	name   string
	xy     plotter.XYs
	target bool
}

// hline is a target drawn across the whole range of the other series'
// board sizes, at y.
func hline(name string, y float64, ss []series) series {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.xy {
			lo, hi = min(lo, p.X), max(hi, p.X)
		}
	}
	if lo > hi {
		return series{name: name, target: true}
	}
	return series{name: name, target: true, xy: plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}}}
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
		measured := false
		for _, s := range ss {
			if len(s.xy) > 0 {
				kept = append(kept, s)
				measured = measured || !s.target
			}
		}
		if !measured {
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
	rss := series{name: "direct, peak RSS"}
	for _, m := range benchmarks.CompileMethods {
		t, h, p := series{name: m}, series{name: m + ", peak heap"}, series{name: m}
		for _, r := range res.Compile {
			if r.Method != m {
				continue
			}
			t.xy = appendPos(t.xy, r.N, seconds(r.Time))
			h.xy = appendPos(h.xy, r.N, mib(r.PeakHeap))
			p.xy = appendPos(p.xy, r.N, r.BytesPerNode())
			if m == benchmarks.Direct {
				rss.xy = appendPos(rss.xy, r.N, mib(r.PeakRSS))
			}
		}
		times, heaps, perNode = append(times, t), append(heaps, h), append(perNode, p)
	}
	buddy := series{name: "BuDDy 2.4, C (earlier run, reference)"}
	buddyRSS := series{name: "BuDDy 2.4, peak RSS (earlier run, reference)"}
	for _, r := range buddyReference {
		buddy.xy = appendPos(buddy.xy, r.N, r.Seconds)
		buddyRSS.xy = appendPos(buddyRSS.xy, r.N, mib(r.PeakRSS))
	}
	if len(res.Compile) > 0 {
		times = append(times, buddy)
		heaps = append(heaps, rss, buddyRSS)
	}
	if largest(res.Compile) >= 15 {
		times = append(times, hline("target: 16-queens in 120 s", compile16Time.Seconds(), times))
		heaps = append(heaps, hline("target: 16-queens in 12 GiB", mib(compile16RSS), heaps))
	}
	if err := add("compile_time.svg", "Compile time of the N-Queens BDD (row-major)", "N", "seconds", times); err != nil {
		return nil, err
	}
	if err := add("compile_memory.svg", "Peak memory during the compile", "N", "MiB", heaps); err != nil {
		return nil, err
	}
	compile, load := series{name: "compile into the cache"}, series{name: "load from the cache"}
	for _, d := range res.Disk {
		compile.xy = appendPos(compile.xy, d.N, seconds(d.Compile))
		load.xy = appendPos(load.xy, d.N, seconds(d.Load))
	}
	sortXY(compile.xy)
	sortXY(load.xy)
	if err := add("disk.svg", "A compiled space: compile against load from disk", "N", "seconds", []series{compile, load}); err != nil {
		return nil, err
	}
	if err := add("bytes_per_node.svg", "Live heap per diagram node after the compile", "N", "bytes per node", perNode); err != nil {
		return nil, err
	}
	steps := stepSeries(res.BDDSteps, millis)
	steps = append(steps, hline("target: p99 ≤ 20 ms at N=14", millis(step14P99), steps))
	if stepAt(res.BDDSteps, 15) != nil || stepAt(res.BDDSteps, 16) != nil {
		steps = append(steps, hline("target: p99 < 250 ms at N=15, 16", millis(largeStepP99), steps))
	}
	if err := add("bdd_step.svg", "BDD: time per step of the random walks", "N", "milliseconds", steps); err != nil {
		return nil, err
	}
	if err := add("server.svg", "Server: BDD analyses per second (closed-loop clients)", "N", "analyses/s", serverSeries(res)); err != nil {
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

// serverSeries makes the lines of the server plot: the BDD's analyses
// per second (expected answers) against N at each number of clients, and
// the large boards' targets at 32 clients: 0.5× N=8's at N=12, 0.2× at
// N=14.
func serverSeries(res *Results) []series {
	if res.Server == nil {
		return nil
	}
	var ss []series
	for _, c := range []int{throughputClients, 1, 64} {
		s := series{name: fmt.Sprintf("%d clients", c)}
		if c == 1 {
			s.name = "1 client"
		}
		for _, r := range res.Server.Runs {
			if r.Backend == "bdd" && r.Clients == c {
				s.xy = appendPos(s.xy, r.N, r.ExpectedPerSecond())
			}
		}
		sortXY(s.xy)
		ss = append(ss, s)
	}
	if s8 := serverRun(res, "bdd", 8, throughputClients); s8 != nil && s8.ExpectedPerSecond() > 0 {
		v := s8.ExpectedPerSecond()
		ss = append(ss, series{name: "target: ≥ 0.5× N=8 at 12, 0.2× at 14", target: true,
			xy: plotter.XYs{{X: 8, Y: v}, {X: 12, Y: 0.5 * v}, {X: 14, Y: 0.2 * v}}})
	}
	return ss
}

func largest(rs []benchmarks.CompileResult) int {
	n := 0
	for _, r := range rs {
		n = max(n, r.N)
	}
	return n
}

func sortXY(xy plotter.XYs) {
	slices.SortFunc(xy, func(a, b plotter.XY) int { return int(a.X - b.X) })
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
	var args []any
	for _, s := range ss {
		if !s.target {
			args = append(args, s.name, s.xy)
		}
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		return err
	}
	for _, s := range ss {
		if !s.target {
			continue
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return err
		}
		l.Color = color.Gray{Y: 96}
		l.Width = vg.Points(1.2)
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	// Whole decades, so that the log axis labels at least two ticks.
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(p.Y.Min)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(p.Y.Max)))
	// The legend goes below the plot, where it hides no line.
	legend := p.Legend
	legend.Top, legend.Left = true, true
	p.Legend = plot.NewLegend()
	const w, h, row = 18 * vg.Centimeter, 11 * vg.Centimeter, 0.5 * vg.Centimeter
	below := row*vg.Length(len(ss)) + row/2
	img := vgsvg.New(w, h+below)
	c := draw.New(img)
	p.Draw(draw.Crop(c, 0, 0, below, 0))
	legend.Draw(draw.Crop(c, 1.5*vg.Centimeter, 0, 0, -h))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
