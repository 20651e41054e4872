package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks/paint"
	"github.com/nqueens/configurator/internal/launch"
)

// PaintResults is the click-to-paint benchmark: the page's own end-to-end
// figure of clicks in headless Chromium against the real server, each
// walk made Runs times, and the performance trace's breakdown of the
// first clicks of each run.
type PaintResults struct {
	Width, Height int64
	Rest          time.Duration
	Flags         []string
	Walks         []PaintWalk
}

// PaintWalk is one walk's runs.
type PaintWalk struct {
	Name, Path string
	Runs       []PaintRun
}

// PaintRun is one run of a walk: what the page measured of each click,
// the trace's breakdown and the machine's load average when it started.
type PaintRun struct {
	Totals, Server []time.Duration
	Bytes          []int
	Trace          paint.Breakdown
	Load           string
}

// median is the median over the runs of a statistic of each run.
func (w PaintWalk) median(stat func(PaintRun) time.Duration) time.Duration {
	var v []time.Duration
	for _, r := range w.Runs {
		v = append(v, stat(r))
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// P is the median over the runs of each run's q-quantile of the clicks.
func (w PaintWalk) P(q float64) time.Duration {
	return w.median(func(r PaintRun) time.Duration { return paint.Quantile(r.Totals, q) })
}

// ServerP50 is the median over the runs of the server's median share.
func (w PaintWalk) ServerP50() time.Duration {
	return w.median(func(r PaintRun) time.Duration { return paint.Quantile(r.Server, 0.5) })
}

// Trace is the breakdown per click of the run whose p75 is the median's.
func (w PaintWalk) Trace() (paint.Breakdown, string) {
	p75 := w.P(0.75)
	for _, r := range w.Runs {
		if paint.Quantile(r.Totals, 0.75) == p75 {
			return r.Trace.Per(), r.Load
		}
	}
	return paint.Breakdown{}, ""
}

// Bytes is the median size of the answers' HTML over every run.
func (w PaintWalk) Bytes() int {
	var all []int
	for _, r := range w.Runs {
		all = append(all, r.Bytes...)
	}
	if len(all) == 0 {
		return 0
	}
	slices.Sort(all)
	return all[len(all)/2]
}

// paintWalks are the pages of the click-to-paint targets: the boards 8×8
// and 14×14 on the BDD (settled: the first analysis of the empty board,
// which opening the page makes, computes the boards of one queen) and
// 30×30 on SAT, on the one page (queens-N, its grid), under the names
// their figures have had since the board had a page of its own, and
// again under their models' names; and two real feature models of
// modelsDir, decided feature by feature in their tree.
func paintWalks(modelsDir string) []paint.Walk {
	return []paint.Walk{
		{Name: "8×8 BDD", Path: "/?model=queens-8&backend=bdd", Clicks: 40, Warm: 3, Queens: 5, Traced: 10},
		{Name: "14×14 BDD", Path: "/?model=queens-14&backend=bdd", Clicks: 40, Warm: 3, Queens: 6, Traced: 10},
		{Name: "30×30 SAT", Path: "/?model=queens-30&backend=sat", Clicks: 30, Warm: 2, Queens: 8, Traced: 10},
		{Name: "queens-8 BDD", Path: "/?model=queens-8&backend=bdd", Clicks: 40, Warm: 3, Queens: 5, Traced: 10},
		{Name: "queens-14 BDD", Path: "/?model=queens-14&backend=bdd", Clicks: 40, Warm: 3, Queens: 6, Traced: 10},
		{Name: "busybox BDD", Upload: filepath.Join(modelsDir, "uvl", "busybox-2007-05-20.uvl"), Path: "/?model={id}&backend=bdd", Clicks: 30, Warm: 3, Queens: 6, Traced: 10},
		{Name: "embtoolkit BDD", Upload: filepath.Join(modelsDir, "dimacs", "embtoolkit.dimacs"), Path: "/?model={id}&backend=bdd", Clicks: 30, Warm: 3, Queens: 6, Traced: 10},
	}
}

// runPaint starts the server as the server section does and makes every
// walk p.PaintRuns times in headless Chromium, the walks in turn, so that
// each board's runs spread over the section's time.
func runPaint(ctx context.Context, p plan, res *Results) error {
	chromium, err := paint.Chromium()
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("Click to paint: not measured: %v.", err))
		return nil
	}
	bin := p.Web
	if bin == "" {
		dir, err := os.MkdirTemp("", "nqueens-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		log.Printf("building %s", launch.Package)
		if bin, err = launch.Build(ctx, dir); err != nil {
			return err
		}
	}
	srv, err := launch.Start(ctx, bin, launch.Options{}, append(slices.Clone(serverFlags), "-cache-dir", p.CacheDir)...)
	if err != nil {
		return err
	}
	defer srv.Stop(stopGrace)
	opt := paint.Options{Chromium: chromium, Width: 1280, Height: 900, Seed: p.Seed, Rest: 250 * time.Millisecond}
	pr := &PaintResults{Width: opt.Width, Height: opt.Height, Rest: opt.Rest,
		Flags: append(slices.Clone(serverFlags), "-cache-dir", "<the run's directory>")}
	res.Paint = pr
	var walks []paint.Walk
	for _, w := range p.PaintWalks {
		if p.measures(boardOf(w.Path)) {
			walks = append(walks, w)
			pr.Walks = append(pr.Walks, PaintWalk{Name: w.Name, Path: w.Path})
		}
	}
	for run := range p.PaintRuns {
		for i, w := range walks {
			load := loadAvg()
			opt.Seed = p.Seed + uint64(run)
			rs, err := paint.Run(ctx, srv.URL(), []paint.Walk{w}, opt)
			if err != nil {
				return fmt.Errorf("%w\n%s", err, srv.Log().Tail)
			}
			r := rs[0]
			pr.Walks[i].Runs = append(pr.Walks[i].Runs, PaintRun{Totals: r.Totals, Server: r.Server, Bytes: r.Bytes, Trace: r.Trace, Load: load})
			log.Printf("paint %-10s run %d: p50 %v p75 %v p99 %v (server p50 %v), load %s; trace per click: %v", w.Name, run+1,
				paint.Quantile(r.Totals, 0.5).Round(time.Millisecond/10), paint.Quantile(r.Totals, 0.75).Round(time.Millisecond/10),
				paint.Quantile(r.Totals, 0.99).Round(time.Millisecond/10), paint.Quantile(r.Server, 0.5).Round(time.Millisecond/10), load, r.Trace.Per())
		}
	}
	return srv.Stop(stopGrace)
}

// boardOf is the board size of a page's address.
func boardOf(path string) int {
	var n int
	if _, v, ok := strings.Cut(path, "n="); ok {
		fmt.Sscanf(v, "%d", &n)
	}
	return n
}

// loadAvg is the machine's load average now: 1, 5 and 15 minutes.
func loadAvg() string {
	if f := strings.Fields(readLine("/proc/loadavg")); len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

// paintBounds are the bounds on the page's end-to-end figure of a click.
var paintBounds = []struct {
	walk     string
	p75, p99 time.Duration // 0: no bound
}{
	{"8×8 BDD", 100 * time.Millisecond, 200 * time.Millisecond},
	{"14×14 BDD", 100 * time.Millisecond, 200 * time.Millisecond},
	{"30×30 SAT", 200 * time.Millisecond, 0},
	{"queens-8 BDD", 100 * time.Millisecond, 200 * time.Millisecond},
	{"queens-14 BDD", 100 * time.Millisecond, 200 * time.Millisecond},
	{"busybox BDD", 100 * time.Millisecond, 0},
	{"embtoolkit BDD", 100 * time.Millisecond, 0},
}

// paintTargets checks the run against the click-to-paint targets: click
// to painted board, by the page's own figure.
func paintTargets(res *Results) []target {
	var ts []target
	for _, bd := range paintBounds {
		for _, b := range []struct {
			q     float64
			limit time.Duration
		}{{0.75, bd.p75}, {0.99, bd.p99}} {
			if b.limit == 0 {
				continue
			}
			t := target{Group: clickToPaint, Target: fmt.Sprintf("Click to painted board, %s: p%.0f ≤ %s", bd.walk, b.q*100, fmtDur(b.limit)),
				Peer: "absolute bound", Status: notMeasured}
			if w := paintWalk(res, bd.walk); w != nil && len(w.Runs) > 0 {
				t.Measured = fmt.Sprintf("%s (median of %d runs; p50 %s; the server's share p50 %s)", fmtDur(w.P(b.q)), len(w.Runs), fmtDur(w.P(0.5)), fmtDur(w.ServerP50()))
				t.Status = verdict(w.P(b.q) <= b.limit)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

func paintWalk(res *Results, name string) *PaintWalk {
	if res.Paint == nil {
		return nil
	}
	for i, w := range res.Paint.Walks {
		if w.Name == name {
			return &res.Paint.Walks[i]
		}
	}
	return nil
}

// paintSection renders the click-to-paint benchmark.
func paintSection(b *strings.Builder, res *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	s := res.Paint
	p("## 7. Click to painted board\n\n")
	p("The real server (cmd/web as a child process, flags `%s`) and the page in headless Chromium at %d×%d px.\n", strings.Join(s.Flags, " "), s.Width, s.Height)
	p("Each walk clicks squares of one board, seeded: a queen on a free square, or one of the walk's queens\n")
	p("removed once it has placed enough or no free square is left; it rests %s after each board is painted.\n", fmtDur(s.Rest))
	p("The figure is the page's own (the timing card's \"Your last click: … end to end\", from the click to\n")
	p("the new board painted); percentiles are per run, then the median over the runs. The trace columns\n")
	p("are Chromium's performance trace of the first clicks of the run whose p75 is that median, per click:\n")
	p("the main thread's work by kind inside the page's window of each click (the window is the page's\n")
	p("figure on the browser's clock); *waiting* is the rest of the window (the server, the network, the next frame).\n\n")
	p("| walk | runs | clicks per run | p50 | p75 | p99 | server p50 | HTML per answer | trace: window | script | parse | style | layout | paint | other | waiting | load at the run |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, w := range s.Walks {
		if len(w.Runs) == 0 {
			continue
		}
		tr, load := w.Trace()
		p("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w.Name, len(w.Runs), len(w.Runs[0].Totals),
			fmtDur(w.P(0.5)), fmtDur(w.P(0.75)), fmtDur(w.P(0.99)), fmtDur(w.ServerP50()), bytesIEC(uint64(w.Bytes())),
			fmtDur(tr.Window), fmtDur(tr.Script), fmtDur(tr.Parse), fmtDur(tr.Style), fmtDur(tr.Layout), fmtDur(tr.Paint), fmtDur(tr.Other), fmtDur(tr.Idle), load)
	}
	p("\n")
}
