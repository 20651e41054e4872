package main

import (
	"fmt"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

// Verdicts of a target.
const (
	met         = "met"
	missed      = "**missed**"
	notMeasured = "not measured in this mode"
)

// target is one of issue 5's targets and how this run fared.
type target struct {
	Target, Measured, Status string
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

// targets checks the run against the targets of issue 5.
func targets(res *Results) []target {
	var ts []target
	p99 := func(name string, rs []benchmarks.StepResult, n int, limit time.Duration) {
		t := target{Target: fmt.Sprintf("%s per step p99 < %s at N=%d", name, fmtDur(limit), n), Status: notMeasured}
		if r := stepAt(rs, n); r != nil {
			t.Measured = fmt.Sprintf("%s (p50 %s, %d steps)", fmtDur(r.Ours.P99), fmtDur(r.Ours.P50), r.Ours.Count)
			t.Status = verdict(r.Ours.P99 < limit)
		}
		ts = append(ts, t)
	}
	p99("BDD", res.BDDSteps, 8, time.Millisecond)
	p99("BDD", res.BDDSteps, 12, 20*time.Millisecond)
	p99("BDD", res.BDDSteps, 14, 250*time.Millisecond)
	p99("BDD", res.BDDSteps, 14, 20*time.Millisecond) // issue 13
	for _, stat := range []string{"p99", "p50"} {
		t := target{Target: fmt.Sprintf("BDD ≥ 50× faster than restrict-per-cell at N=10 (%s of Analyze on the same steps)", stat), Status: notMeasured}
		if b := baselineOf(stepAt(res.BDDSteps, 10), "restrict-per-cell"); b != nil && b.Sampled > 0 {
			r := b.RatioP99()
			if stat == "p50" {
				r = b.RatioP50()
			}
			t.Measured = fmt.Sprintf("%s (p50 %s, p99 %s, means %s, empty board %s; %d steps)", fmtRatio(r),
				fmtRatio(b.RatioP50()), fmtRatio(b.RatioP99()), fmtRatio(b.RatioMean()), fmtRatio(ratioOf(b.Empty, stepAt(res.BDDSteps, 10).Empty)), b.Sampled)
			t.Status = verdict(r >= 50)
		}
		ts = append(ts, t)
	}
	// The same at the median for the valid domains alone, the work the
	// baseline does (Analyze also counts the solutions), where the
	// baseline ran on every step.
	t0 := target{Target: "BDD ≥ 50× faster than restrict-per-cell at N=10 (p50, the valid domains alone)", Status: notMeasured}
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
	p99("SAT", res.SATSteps, 8, 5*time.Millisecond)
	p99("SAT", res.SATSteps, 20, 50*time.Millisecond)
	p99("SAT", res.SATSteps, 50, 300*time.Millisecond)
	p99("SAT", res.SATSteps, 100, 2*time.Second)

	t := target{Target: "Server, BDD N=8, 64 clients: ≥ 5,000 analyze req/s, p99 < 50 ms, zero errors", Status: notMeasured}
	if r := serverRun(res, "bdd", 8, 64); r != nil {
		t.Measured = fmt.Sprintf("%s req/s, p99 %s, %d errors", fmtInt(int(r.PerSecond)), fmtDur(r.P99), r.Errors())
		t.Status = verdict(r.PerSecond >= 5000 && r.P99 < 50*time.Millisecond && r.Errors() == 0)
	}
	ts = append(ts, t)
	ts = append(ts, throughputRatio(res, 12, 0.5), throughputRatio(res, 14, 0.2))

	t = target{Target: "Compile, direct path, N=14 < 30 s", Status: notMeasured}
	if d := compileAt(res, benchmarks.Direct, 14); d != nil {
		t.Measured = fmt.Sprintf("%s, peak heap %s", fmtDur(d.Time), bytesIEC(d.PeakHeap))
		t.Status = verdict(d.Time < 30*time.Second)
	}
	ts = append(ts, t)
	t = target{Target: "Compile, direct path, N=15 completed within 20 GiB", Status: notMeasured}
	if d := compileAt(res, benchmarks.Direct, 15); d != nil {
		peak := max(d.PeakRSS, d.PeakHeap)
		t.Measured = fmt.Sprintf("%s, peak heap %s, peak RSS %s", fmtDur(d.Time), bytesIEC(d.PeakHeap), bytesIEC(d.PeakRSS))
		t.Status = verdict(peak <= 20<<30)
	}
	ts = append(ts, t)
	return ts
}

// throughputRatio is issue 13's target of the server's analyses per
// second at 32 clients on n×n against 8×8, both measured in the run:
// at least the given multiple, without errors.
func throughputRatio(res *Results, n int, least float64) target {
	t := target{Target: fmt.Sprintf("Server, BDD, 32 clients: analyses/s at N=%d ≥ %.1f× N=8's", n, least), Status: notMeasured}
	small, large := serverRun(res, "bdd", 8, 32), serverRun(res, "bdd", n, 32)
	if small == nil || large == nil || small.ExpectedPerSecond() <= 0 {
		return t
	}
	r := large.ExpectedPerSecond() / small.ExpectedPerSecond()
	t.Measured = fmt.Sprintf("×%.2f (%s against %s analyses/s; p99 %s against %s; %d and %d errors)", r,
		fmtInt(int(large.ExpectedPerSecond())), fmtInt(int(small.ExpectedPerSecond())), fmtDur(large.P99), fmtDur(small.P99), large.Errors(), small.Errors())
	t.Status = verdict(r >= least && large.Errors() == 0)
	return t
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
	for _, n := range []int{14, 15} {
		if d := compileAt(res, benchmarks.Direct, n); d != nil {
			hs = append(hs, fmt.Sprintf("Compile N=%d, direct path alone: %s, peak heap %s, %s nodes.", n, fmtDur(d.Time), bytesIEC(d.PeakHeap), fmtInt(d.Nodes)))
		}
	}
	for _, n := range []int{10, 12, 13, 14} {
		r := stepAt(res.BDDSteps, n)
		b := baselineOf(r, "restrict-per-cell")
		if b == nil || b.Sampled == 0 {
			continue
		}
		hs = append(hs, fmt.Sprintf("BDD per step N=%d: p99 %s against restrict-per-cell's %s (%s); p50 %s against %s (%s); empty board %s against %s (%s).",
			n, fmtDur(b.Ours.P99), fmtDur(b.Latency.P99), fmtRatio(b.RatioP99()), fmtDur(b.Ours.P50), fmtDur(b.Latency.P50), fmtRatio(b.RatioP50()),
			fmtDur(r.Empty), fmtDur(b.Empty), fmtRatio(ratioOf(b.Empty, r.Empty))))
	}
	if r := stepAt(res.BDDSteps, 14); r != nil && baselineOf(r, "restrict-per-cell") == nil {
		hs = append(hs, fmt.Sprintf("BDD per step N=14: p50 %s, p99 %s.", fmtDur(r.Ours.P50), fmtDur(r.Ours.P99)))
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
				h += fmt.Sprintf("; %s empty board ≈ %s (extrapolated) against %s (≈ %s)", b.Name, fmtDur(b.Empty), fmtDur(r.Empty), fmtRatio(round2(ratioOf(b.Empty, r.Empty))))
			} else {
				h += fmt.Sprintf("; %s empty board %s against %s (%s)", b.Name, fmtDur(b.Empty), fmtDur(r.Empty), fmtRatio(ratioOf(b.Empty, r.Empty)))
			}
		}
		hs = append(hs, h+".")
	}
	if s8 := serverRun(res, "bdd", 8, 32); s8 != nil && s8.ExpectedPerSecond() > 0 {
		h := fmt.Sprintf("Server, BDD, 32 clients: %s analyses/s at N=8", fmtInt(int(s8.ExpectedPerSecond())))
		for _, n := range []int{12, 14} {
			if r := serverRun(res, "bdd", n, 32); r != nil {
				h += fmt.Sprintf(", %s at N=%d (×%.2f)", fmtInt(int(r.ExpectedPerSecond())), n, r.ExpectedPerSecond()/s8.ExpectedPerSecond())
			}
		}
		hs = append(hs, h+".")
	}
	if r := serverRun(res, "bdd", 8, 64); r != nil {
		hs = append(hs, fmt.Sprintf("Server, BDD N=8, 64 clients: %s analyze requests/s, p99 %s, %d errors; peak RSS of the server %s.",
			fmtInt(int(r.PerSecond)), fmtDur(r.P99), r.Errors(), bytesIEC(res.Server.PeakRSS)))
	}
	for n := 20; n >= 8; n-- {
		d, r := compileAt(res, benchmarks.Direct, n), compileAt(res, benchmarks.Rudd, n)
		if d != nil && r != nil && d.BytesPerNode() > 0 {
			hs = append(hs, fmt.Sprintf("Memory at N=%d: %.1f bytes of live heap per diagram node for the engine, %.0f for rudd (%s; rudd's table still holds the construction's garbage: %.0f bytes per node it stores, %s).",
				n, d.BytesPerNode(), r.BytesPerNode(), fmtRatio(r.BytesPerNode()/d.BytesPerNode()), r.BytesPerStored(), fmtRatio(r.BytesPerStored()/d.BytesPerStored())))
			break
		}
	}
	return hs
}
