package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

// Verdicts of a target.
const (
	met         = "met"
	missed      = "**MISSED**"
	notMeasured = "not measured in this mode"
	notRun      = "not measured in this run"
)

// target is one of the suite's targets and how this run fared: the
// figure measured, what it is compared with (a peer measured in the same
// run, or an absolute bound) and the verdict.
type target struct {
	Group                          targetGroup
	Target, Measured, Peer, Status string
}

// targetGroup is a set of targets that the report shows in a table of its
// own, in the order of the constants.
type targetGroup int

const (
	// largeBoards: every board up to 16×16 interactive: the server's
	// throughput on large boards against 8×8, per-step p99 on 14×14 to
	// 16×16, the 16-queens compile, and loading a compiled space against
	// compiling it.
	largeBoards targetGroup = iota
	// stepBounds: per-step p99 bounds of both backends (the BDD's also
	// against restrict-per-cell), the server at 8×8 under load, and the
	// compiles of 14×14 and 15×15.
	stepBounds
	// modelGroup: the real feature models through the API (section
	// models).
	modelGroup
	// clickToPaint: a click on the page to the new board painted, in
	// headless Chromium against the real server (benchmarks/paint).
	clickToPaint
)

// targetGroups lists the groups in the order the report shows them.
var targetGroups = []targetGroup{largeBoards, stepBounds, clickToPaint, modelGroup}

// title is the heading of the group's table.
func (g targetGroup) title() string {
	switch g {
	case largeBoards:
		return "every board up to 16×16 interactive"
	case modelGroup:
		return "real feature models, interactive through the API"
	case clickToPaint:
		return "a click answered in the blink of an eye"
	}
	return "per step, the server at 8×8, the compiles"
}

// shown reports whether the report shows g's table: the boards' groups
// unless the run measured the feature models alone, the models' group
// when it measured them.
func (g targetGroup) shown(res *Results) bool {
	models := slices.Contains(res.Sections, secModels)
	if g == modelGroup {
		return models
	}
	return !models || len(res.Sections) > 1
}

func verdict(ok bool) string {
	if ok {
		return met
	}
	return missed
}

func stepAt(rs []benchmarks.StepResult, n int) *benchmarks.StepResult {
	for i, r := range rs {
		if r.N == n {
			return &rs[i]
		}
	}
	return nil
}

func baselineOf(r *benchmarks.StepResult, name string) *benchmarks.BaselineResult {
	if r == nil {
		return nil
	}
	for i, b := range r.Baselines {
		if b.Name == name {
			return &r.Baselines[i]
		}
	}
	return nil
}

func serverRun(res *Results, backend string, n, clients int) *ServerRun {
	if res.Server == nil {
		return nil
	}
	for i, r := range res.Server.Runs {
		if r.Backend == backend && r.N == n && r.Clients == clients {
			return &res.Server.Runs[i]
		}
	}
	return nil
}

func failureAt(res *Results, method string, n int) *Failure {
	for i, f := range res.Failures {
		if f.Method == method && f.N == n {
			return &res.Failures[i]
		}
	}
	return nil
}

// The bounds of the large boards' targets.
const (
	throughputClients = 32                     // the server's load for the ratios
	step14P99         = 20 * time.Millisecond  // per step p99 at N=14, at most
	largeStepP99      = 250 * time.Millisecond // per step p99 at N=15 and 16, below
	compile16Time     = 120 * time.Second      // 16-queens compile, at most
	compile16RSS      = 12 << 30               // and its peak resident memory
)

// targets checks the run against every target, in the order the report
// lists them.
func targets(res *Results) []target {
	ts := slices.Concat(largeBoardTargets(res), stepBoundTargets(res), paintTargets(res), modelTargets(res))
	if res.Mode == "full" {
		// The full plan measures every target: one it did not was left
		// out of this run (-sections, -boards).
		for i := range ts {
			if ts[i].Status == notMeasured {
				ts[i].Status = notRun
			}
		}
	}
	return ts
}

// largeBoardTargets checks the run against the targets of the large
// boards (largeBoards).
func largeBoardTargets(res *Results) []target {
	ts := []target{throughputRatio(res, 12, 0.5), throughputRatio(res, 14, 0.2),
		stepP99(largeBoards, "BDD", res.BDDSteps, 14, step14P99, true),
		stepP99(largeBoards, "BDD", res.BDDSteps, 15, largeStepP99, false),
		stepP99(largeBoards, "BDD", res.BDDSteps, 16, largeStepP99, false),
	}
	ts = append(ts, compile16(res)...)
	// Loading against compiling, on 14×14 and on the largest board loaded.
	ns := []int{14}
	if len(res.Disk) > 0 {
		if last := slices.MaxFunc(res.Disk, func(a, b benchmarks.DiskResult) int { return a.N - b.N }); last.N > 14 && last.Load > 0 {
			ns = append(ns, last.N)
		}
	}
	for _, n := range ns {
		t := target{Group: largeBoards, Target: fmt.Sprintf("Load the compiled %d×%d space from disk instead of compiling it: faster", n, n),
			Peer: "the compile of the same board into the cache, this run", Status: notMeasured}
		if d := diskAt(res, n); d != nil && d.Load > 0 {
			t.Measured = fmt.Sprintf("load %s against compile %s (%s; file %s)", fmtDur(d.Load), fmtDur(d.Compile), fmtRatio(d.LoadRatio()), bytesIEC(uint64(d.FileBytes)))
			t.Status = verdict(d.Load < d.Compile)
		}
		ts = append(ts, t)
	}
	return ts
}

// throughputRatio is the target of the server's analyses per
// second at 32 clients on n×n against 8×8, both measured in the run:
// at least the given multiple, without errors.
func throughputRatio(res *Results, n int, least float64) target {
	t := target{Group: largeBoards, Target: fmt.Sprintf("Server, BDD, %d clients: analyses/s at N=%d ≥ %.1f× N=8's", throughputClients, n, least),
		Peer: fmt.Sprintf("the server at N=8, %d clients, this run", throughputClients), Status: notMeasured}
	small, large := serverRun(res, "bdd", 8, throughputClients), serverRun(res, "bdd", n, throughputClients)
	if small == nil || large == nil || small.ExpectedPerSecond() <= 0 {
		return t
	}
	r := large.ExpectedPerSecond() / small.ExpectedPerSecond()
	t.Measured = fmt.Sprintf("×%.2f (%s against %s analyses/s over %s each; p99 %s against %s; %d and %d errors)", r,
		fmtInt(int(large.ExpectedPerSecond())), fmtInt(int(small.ExpectedPerSecond())), fmtDur(large.Elapsed.Round(100*time.Millisecond)),
		fmtDur(large.P99), fmtDur(small.P99), large.Errors(), small.Errors())
	t.Status = verdict(r >= least && large.Errors() == 0)
	return t
}

// stepP99 is a per-step p99 target: the space's p99 over the seeded walks
// on the n×n board against limit (below it, or at most it when inclusive),
// with the restrict-per-cell baseline's p99 on the same steps beside it
// where the run measured it.
func stepP99(g targetGroup, name string, rs []benchmarks.StepResult, n int, limit time.Duration, inclusive bool) target {
	op := "<"
	if inclusive {
		op = "≤"
	}
	t := target{Group: g, Target: fmt.Sprintf("%s per step p99 %s %s at N=%d", name, op, fmtDur(limit), n), Peer: "absolute bound", Status: notMeasured}
	r := stepAt(rs, n)
	if r == nil {
		return t
	}
	t.Measured = fmt.Sprintf("%s (p50 %s, %d steps)", fmtDur(r.Ours.P99), fmtDur(r.Ours.P50), r.Ours.Count)
	if r.Settle > 0 {
		t.Measured += fmt.Sprintf(", settled: its kept answers computed once per file in %s; as loaded: p99 %s",
			fmtDur(r.Settle), fmtDur(r.Fresh.P99))
	}
	t.Status = verdict(r.Ours.P99 < limit || inclusive && r.Ours.P99 == limit)
	for _, b := range r.Baselines {
		if b.Sampled > 0 {
			t.Peer = fmt.Sprintf("absolute bound; %s: p99 %s on %d of the steps (%s ours)", b.Name, fmtDur(b.Latency.P99), b.Sampled, fmtRatio(b.RatioP99()))
		}
	}
	return t
}

// compile16 is the targets of the 16-queens compile, time and
// peak resident memory, measured in a child process of its own (full
// mode), with N=15 of the same run beside them.
func compile16(res *Results) []target {
	tt := target{Group: largeBoards, Target: fmt.Sprintf("Compile 16-queens (direct path) in ≤ %.0f s", compile16Time.Seconds()), Peer: "absolute bound", Status: notMeasured}
	tm := target{Group: largeBoards, Target: fmt.Sprintf("Compile 16-queens with ≤ %s peak resident memory", bytesIEC(compile16RSS)), Peer: "absolute bound", Status: notMeasured}
	if d15 := compileAt(res, benchmarks.Direct, 15); d15 != nil {
		tt.Peer = "absolute bound; N=15 in this run: " + fmtDur(d15.Time)
		if d15.PeakRSS > 0 {
			tm.Peer = "absolute bound; N=15 in this run: " + bytesIEC(d15.PeakRSS)
		}
	}
	if d := compileAt(res, benchmarks.Direct, 16); d != nil {
		tt.Measured = fmt.Sprintf("%s (%s nodes, %s solutions)", fmtDur(d.Time), fmtInt(d.Nodes), fmtBig(d.Solutions))
		tt.Status = verdict(d.Time <= compile16Time)
		if d.PeakRSS > 0 {
			tm.Measured = bytesIEC(d.PeakRSS) + " (a process of its own: the compile and the write of its file)"
			tm.Status = verdict(d.PeakRSS <= compile16RSS)
		}
	} else if f := failureAt(res, benchmarks.Direct, 16); f != nil {
		tt.Measured, tm.Measured = "failed: "+f.Err, "failed (see the row above)"
		if f.PeakRSS > 0 {
			tm.Measured = fmt.Sprintf("failed, at a peak of %s resident", bytesIEC(f.PeakRSS))
		}
		tt.Status, tm.Status = missed, missed
		if f.NotStarted {
			tt.Measured, tm.Measured = "not started: "+strings.TrimPrefix(f.Err, "compile 16-queens not started: "), "not started"
			tt.Status, tm.Status = notRun, notRun
		}
	}
	return []target{tt, tm}
}

// stepBoundTargets checks the run against the targets of the step bounds
// (stepBounds).
func stepBoundTargets(res *Results) []target {
	var ts []target
	for _, s := range []struct {
		name  string
		rs    []benchmarks.StepResult
		n     int
		limit time.Duration
	}{
		{"BDD", res.BDDSteps, 8, time.Millisecond},
		{"BDD", res.BDDSteps, 12, 20 * time.Millisecond},
		{"BDD", res.BDDSteps, 14, 250 * time.Millisecond},
	} {
		ts = append(ts, stepP99(stepBounds, s.name, s.rs, s.n, s.limit, false))
	}
	const peer = "restrict-per-cell on the same steps, this run"
	for _, stat := range []string{"p99", "p50"} {
		t := target{Group: stepBounds, Target: fmt.Sprintf("BDD ≥ 50× faster than restrict-per-cell at N=10 (%s of Analyze on the same steps)", stat), Peer: peer, Status: notMeasured}
		if b := baselineOf(stepAt(res.BDDSteps, 10), "restrict-per-cell"); b != nil && b.Sampled > 0 {
			r := b.RatioP99()
			if stat == "p50" {
				r = b.RatioP50()
			}
			t.Measured = fmt.Sprintf("%s (p50 %s, p99 %s, means %s, empty board %s; %d steps)", fmtRatio(r),
				fmtRatio(b.RatioP50()), fmtRatio(b.RatioP99()), fmtRatio(b.RatioMean()), fmtRatio(ratioOf(b.Empty, firstEmpty(*stepAt(res.BDDSteps, 10)))), b.Sampled)
			t.Status = verdict(r >= 50)
		}
		ts = append(ts, t)
	}
	// The same at the median for the valid domains alone, the work the
	// baseline does (Analyze also counts the solutions), where the
	// baseline ran on every step.
	t0 := target{Group: stepBounds, Target: "BDD ≥ 50× faster than restrict-per-cell at N=10 (p50, the valid domains alone)", Peer: peer, Status: notMeasured}
	if r := stepAt(res.BDDSteps, 10); r != nil {
		b := baselineOf(r, "restrict-per-cell")
		for _, pt := range r.Parts {
			if pt.Name == "valid domains" && b != nil && b.Sampled == r.Ours.Count && b.Estimated == 0 && pt.Latency.P50 > 0 {
				x := ratioOf(b.Latency.P50, pt.Latency.P50)
				t0.Measured = fmt.Sprintf("%s (%s against %s)", fmtRatio(x), fmtDur(pt.Latency.P50), fmtDur(b.Latency.P50))
				t0.Status = verdict(x >= 50)
			}
		}
	}
	ts = append(ts, t0)
	for _, s := range []struct {
		n     int
		limit time.Duration
	}{{8, 5 * time.Millisecond}, {20, 50 * time.Millisecond}, {50, 300 * time.Millisecond}, {100, 2 * time.Second}} {
		ts = append(ts, stepP99(stepBounds, "SAT", res.SATSteps, s.n, s.limit, false))
	}

	t := target{Group: stepBounds, Target: "Server, BDD N=8, 64 clients: ≥ 5,000 analyze req/s, p99 < 50 ms, zero errors", Peer: "absolute bound", Status: notMeasured}
	if r := serverRun(res, "bdd", 8, 64); r != nil {
		t.Measured = fmt.Sprintf("%s req/s, p99 %s, %d errors", fmtInt(int(r.PerSecond)), fmtDur(r.P99), r.Errors())
		t.Status = verdict(r.PerSecond >= 5000 && r.P99 < 50*time.Millisecond && r.Errors() == 0)
	}
	ts = append(ts, t)
	t = target{Group: stepBounds, Target: "Compile, direct path, N=14 < 30 s", Peer: "absolute bound", Status: notMeasured}
	if d := compileAt(res, benchmarks.Direct, 14); d != nil {
		t.Measured = fmt.Sprintf("%s, peak heap %s", fmtDur(d.Time), bytesIEC(d.PeakHeap))
		t.Status = verdict(d.Time < 30*time.Second)
	}
	ts = append(ts, t)
	t = target{Group: stepBounds, Target: "Compile, direct path, N=15 completed within 20 GiB", Peer: "absolute bound", Status: notMeasured}
	if d := compileAt(res, benchmarks.Direct, 15); d != nil {
		peak := max(d.PeakRSS, d.PeakHeap)
		t.Measured = fmt.Sprintf("%s, peak heap %s, peak RSS %s", fmtDur(d.Time), bytesIEC(d.PeakHeap), bytesIEC(d.PeakRSS))
		t.Status = verdict(peak <= 20<<30)
	} else if f := failureAt(res, benchmarks.Direct, 15); f != nil {
		t.Measured, t.Status = "failed: "+f.Err, missed
	}
	ts = append(ts, t)
	return ts
}

// headlines are the summary's ratios, each from this run.
func headlines(res *Results) []string {
	var hs []string
	// Compile: the largest board every method compiled.
	for n := 20; n >= 4; n-- {
		d, a, r := compileAt(res, benchmarks.Direct, n), compileAt(res, benchmarks.Apply, n), compileAt(res, benchmarks.Rudd, n)
		if d != nil && r != nil {
			h := fmt.Sprintf("Compile N=%d: direct path %s, rudd %s (%s slower, %s the peak heap)", n, fmtDur(d.Time), fmtDur(r.Time),
				fmtRatio(float64(r.Time)/float64(d.Time)), fmtRatio(float64(r.PeakHeap)/float64(max(d.PeakHeap, 1))))
			if a != nil {
				h += fmt.Sprintf("; apply path %s (%s)", fmtDur(a.Time), fmtRatio(float64(a.Time)/float64(d.Time)))
			}
			hs = append(hs, h+".")
			break
		}
	}
	for _, n := range []int{14, 15, 16} {
		if d := compileAt(res, benchmarks.Direct, n); d != nil {
			h := fmt.Sprintf("Compile N=%d, direct path alone: %s, peak heap %s", n, fmtDur(d.Time), bytesIEC(d.PeakHeap))
			if d.Child && d.PeakRSS > 0 {
				h += fmt.Sprintf(", peak RSS %s (a process of its own)", bytesIEC(d.PeakRSS))
			}
			hs = append(hs, h+fmt.Sprintf(", %s nodes.", fmtInt(d.Nodes)))
		} else if f := failureAt(res, benchmarks.Direct, n); f != nil {
			hs = append(hs, fmt.Sprintf("Compile N=%d, direct path: **failed**: %s.", n, strings.TrimSuffix(f.Err, ".")))
		}
	}
	for _, d := range res.Disk {
		if d.Load > 0 && (d.N == 14 || d.N == 16) {
			hs = append(hs, fmt.Sprintf("Disk N=%d: load %s against compile %s (%s), a file of %s.", d.N, fmtDur(d.Load), fmtDur(d.Compile), fmtRatio(d.LoadRatio()), bytesIEC(uint64(d.FileBytes))))
		}
	}
	for _, n := range []int{10, 12, 13, 14} { // with the baseline
		r := stepAt(res.BDDSteps, n)
		b := baselineOf(r, "restrict-per-cell")
		if b == nil || b.Sampled == 0 {
			continue
		}
		hs = append(hs, fmt.Sprintf("BDD per step N=%d: p99 %s against restrict-per-cell's %s (%s); p50 %s against %s (%s); empty board %s against %s (%s).",
			n, fmtDur(b.Ours.P99), fmtDur(b.Latency.P99), fmtRatio(b.RatioP99()), fmtDur(b.Ours.P50), fmtDur(b.Latency.P50), fmtRatio(b.RatioP50()),
			fmtDur(firstEmpty(*r)), fmtDur(b.Empty), fmtRatio(ratioOf(b.Empty, firstEmpty(*r)))))
	}
	for _, n := range []int{14, 15, 16} { // without
		if r := stepAt(res.BDDSteps, n); r != nil && baselineOf(r, "restrict-per-cell") == nil {
			hs = append(hs, fmt.Sprintf("BDD per step N=%d: p50 %s, p99 %s.", n, fmtDur(r.Ours.P50), fmtDur(r.Ours.P99)))
		}
	}
	for _, n := range []int{20, 50, 100} {
		r := stepAt(res.SATSteps, n)
		if r == nil {
			continue
		}
		h := fmt.Sprintf("SAT per step N=%d: p50 %s, p99 %s", n, fmtDur(r.Ours.P50), fmtDur(r.Ours.P99))
		for _, b := range r.Baselines {
			if b.Sampled > 0 {
				h += fmt.Sprintf("; %s p99 %s (%s)", b.Name, fmtDur(b.Latency.P99), fmtRatio(b.RatioP99()))
			}
			if b.EmptyEstimated {
				h += fmt.Sprintf("; %s empty board ≈ %s (extrapolated) against %s (≈ %s)", b.Name, fmtDur(b.Empty), fmtDur(firstEmpty(*r)), fmtRatio(round2(ratioOf(b.Empty, firstEmpty(*r)))))
			} else {
				h += fmt.Sprintf("; %s empty board %s against %s (%s)", b.Name, fmtDur(b.Empty), fmtDur(firstEmpty(*r)), fmtRatio(ratioOf(b.Empty, firstEmpty(*r))))
			}
		}
		hs = append(hs, h+".")
	}
	if s8 := serverRun(res, "bdd", 8, throughputClients); s8 != nil && s8.ExpectedPerSecond() > 0 {
		h := fmt.Sprintf("Server, BDD, %d clients: %s analyses/s at N=8", throughputClients, fmtInt(int(s8.ExpectedPerSecond())))
		for _, n := range []int{12, 14} {
			if r := serverRun(res, "bdd", n, throughputClients); r != nil {
				h += fmt.Sprintf(", %s at N=%d (×%.2f)", fmtInt(int(r.ExpectedPerSecond())), n, r.ExpectedPerSecond()/s8.ExpectedPerSecond())
			}
		}
		hs = append(hs, h+".")
	}
	if r := serverRun(res, "bdd", 8, 64); r != nil {
		hs = append(hs, fmt.Sprintf("Server, BDD N=8, 64 clients: %s analyze requests/s, p99 %s, %d errors; peak RSS of the server %s.",
			fmtInt(int(r.PerSecond)), fmtDur(r.P99), r.Errors(), bytesIEC(res.Server.PeakRSS)))
	}
	if h, ok := modelHeadline(res); ok {
		hs = append(hs, h)
	}
	for n := 20; n >= 8; n-- {
		d, r := compileAt(res, benchmarks.Direct, n), compileAt(res, benchmarks.Rudd, n)
		if d != nil && r != nil && d.BytesPerNode() > 0 {
			hs = append(hs, fmt.Sprintf("Memory at N=%d: %.1f bytes of live heap per diagram node for the engine, %.0f for rudd (%s; rudd's table still holds the construction's garbage: %.0f bytes per node it stores, %s).",
				n, d.BytesPerNode(), r.BytesPerNode(), fmtRatio(r.BytesPerNode()/d.BytesPerNode()), r.BytesPerStored(), fmtRatio(r.BytesPerStored()/d.BytesPerStored())))
			break
		}
	}
	if len(res.BuDDy) > 0 {
		hs = append(hs, buddyHeadline(res.BuDDy))
	}
	if len(res.Samples) > 0 {
		hs = append(hs, samplesHeadline(res.Samples))
	}
	return hs
}
