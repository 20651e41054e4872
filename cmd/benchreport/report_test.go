package main

import (
	"bytes"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

func TestFormats(t *testing.T) {
	durs := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"}, {420, "420 ns"}, {1500, "1.50 µs"}, {73800, "73.8 µs"}, {1203366, "1.20 ms"},
		{223304138, "223 ms"}, {4783600000, "4.78 s"}, {11 * time.Minute, "11.0 min"}, {3 * time.Hour, "3.00 h"},
	}
	for _, tt := range durs {
		if got := fmtDur(tt.d); got != tt.want {
			t.Errorf("fmtDur(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	ratios := []struct {
		r    float64
		want string
	}{
		{0, "–"}, {-1, "–"}, {0.76, "×0.8"}, {4.42, "×4.4"}, {49.2, "×49"}, {1439.8, "×1,440"},
	}
	for _, tt := range ratios {
		if got := fmtRatio(tt.r); got != tt.want {
			t.Errorf("fmtRatio(%v) = %q, want %q", tt.r, got, tt.want)
		}
	}
	ints := map[int]string{0: "0", 999: "999", 1000: "1,000", 9572418: "9,572,418", -1234: "-1,234"}
	for n, want := range ints {
		if got := fmtInt(n); got != want {
			t.Errorf("fmtInt(%d) = %q, want %q", n, got, want)
		}
	}
	if got := fmtBig(new(big.Int).SetUint64(39029188884)); got != "39,029,188,884" {
		t.Errorf("fmtBig(39029188884) = %q", got)
	}
	for b, want := range map[uint64]string{571 << 20: "571 MiB", 1000 << 10: "1000 KiB", 3 << 29: "1.5 GiB", 900: "900 B"} {
		if got := bytesIEC(b); got != want {
			t.Errorf("bytesIEC(%d) = %q, want %q", b, got, want)
		}
	}
}

// sample is a run with every section, made up so that each target has a
// known verdict: the server's ratios are ×0.60 at N=12 (met) and
// ×0.15 at N=14 (missed); the per-step p99 is exactly 20 ms at N=14 (met:
// at most 20), 240 ms at 15 (met) and 300 ms at 16 (missed); 16-queens
// compiled in 95 s (met) with 12.5 GiB (missed); 14×14 loads in 0.8 s
// against a 9 s compile (met) and 16×16 in 150 s against 100 s (missed).
func sample() *Results {
	ms := time.Millisecond
	step := func(backend string, n int, p50, p99 time.Duration, bl ...benchmarks.BaselineResult) benchmarks.StepResult {
		return benchmarks.StepResult{Backend: backend, N: n, Ours: benchmarks.Latency{Count: 200, P50: p50, P99: p99, Max: p99}, Empty: p99, EmptyCold: p99, Baselines: bl}
	}
	restrict := benchmarks.BaselineResult{
		Name: "restrict-per-cell", Empty: 120 * ms, Sampled: 200,
		Latency:     benchmarks.Latency{Count: 200, P50: 60 * time.Microsecond, P99: 160 * ms},
		Ours:        benchmarks.Latency{Count: 200, P50: 75 * time.Microsecond, P99: 150 * time.Microsecond},
		SumBaseline: 2 * time.Second, SumOur: 20 * ms,
	}
	fresh := benchmarks.BaselineResult{Name: "fresh-sat/card", Empty: 5 * time.Minute, EmptyEstimated: true}
	compile := func(method string, n int, t time.Duration, heap uint64, nodes int) benchmarks.CompileResult {
		return benchmarks.CompileResult{Method: method, N: n, Time: t, Runs: 1, PeakHeap: heap, LiveHeap: uint64(nodes) * 25,
			Nodes: nodes, Stored: nodes + 2, Solutions: big.NewInt(1)}
	}
	child := func(n int, t time.Duration, rss uint64, nodes int, solutions int64) benchmarks.CompileResult {
		return benchmarks.CompileResult{Method: benchmarks.Direct, N: n, Time: t, Runs: 1, PeakHeap: rss - 1<<30, PeakRSS: rss,
			Nodes: nodes, Stored: nodes + 2, Solutions: big.NewInt(solutions), Child: true}
	}
	bdd10 := step("bdd", 10, 74*time.Microsecond, 153*time.Microsecond, restrict)
	bdd10.Parts = []benchmarks.PartResult{
		{Name: "valid domains", Latency: benchmarks.Latency{Count: 200, P50: 30 * time.Microsecond, P99: 70 * time.Microsecond}},
		{Name: "count", Latency: benchmarks.Latency{Count: 200, P50: 40 * time.Microsecond, P99: 80 * time.Microsecond}},
	}
	return &Results{
		Mode: "quick", Machine: Machine{CPU: "Test CPU 9000", Cores: 2, Memory: 24 << 30, Go: "go1.26.8", OS: "linux/amd64"},
		Date: time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC), Elapsed: 3 * time.Minute, Seed: 1,
		Compile: []benchmarks.CompileResult{
			compile(benchmarks.Direct, 11, 23*ms, 6<<20, 94822), compile(benchmarks.Apply, 11, 750*ms, 147<<20, 94822),
			compile(benchmarks.Rudd, 11, 4*time.Second, 524<<20, 94822), compile(benchmarks.Direct, 14, 4780*ms, 545<<20, 9572418),
			child(15, 40*time.Second, 3<<30, 51889029, 2279184), child(16, 95*time.Second, 25<<29, 292364273, 14772512),
		},
		CompileMinTime: 200 * ms,
		ChildFrom:      15,
		Disk: []benchmarks.DiskResult{
			{N: 14, Nodes: 9572418, Solutions: big.NewInt(365596), Compile: 9 * time.Second, Save: 500 * ms, FileBytes: 120 << 20, Load: 800 * ms, LoadPeakHeap: 300 << 20},
			{N: 16, Nodes: 292364273, Solutions: big.NewInt(14772512), Compile: 100 * time.Second, Save: 5 * time.Second, FileBytes: 3 << 30, Load: 150 * time.Second, LoadPeakHeap: 7 << 30},
		},
		BDDSteps: []benchmarks.StepResult{
			step("bdd", 8, 9*time.Microsecond, 22*time.Microsecond),
			bdd10,
			step("bdd", 12, 1200*time.Microsecond, 25*ms), // misses 20 ms
			step("bdd", 14, 30*time.Microsecond, 20*ms),   // meets ≤ 20 ms
			step("bdd", 15, 40*time.Microsecond, 240*ms),  // meets < 250 ms
			func() benchmarks.StepResult { // misses it, settled after 6 min
				r := step("bdd", 16, 50*time.Microsecond, 300*ms)
				r.Settle, r.Fresh = 6*time.Minute, benchmarks.Latency{Count: 200, P50: time.Millisecond, P99: 2 * time.Second, Max: 3 * time.Second}
				return r
			}(),
		},
		BDDBaselineMax: 12, BDDBudget: 8 * time.Second, BDDEmpty: 12 * time.Second,
		SATSteps:   []benchmarks.StepResult{step("sat", 50, 9*ms, 39*ms, fresh)},
		SATBudgets: map[int]Budget{50: {Steps: 4 * time.Second, Empty: 3 * time.Second}},
		Server: &ServerResults{Flags: serverFlags, PeakRSS: 165 << 20, TargetClients: 32, Runs: []ServerRun{
			{Backend: "bdd", N: 8, Clients: 32, Elapsed: 10 * time.Second, PerSecond: 10000, Answered: 100000, P50: 2 * ms, P99: 8 * ms, Status: map[int]int64{200: 60000, 422: 40000}},
			{Backend: "bdd", N: 12, Clients: 32, Elapsed: 10 * time.Second, PerSecond: 6000, Answered: 60000, P50: 4 * ms, P99: 20 * ms, Status: map[int]int64{200: 40000, 422: 20000}},
			{Backend: "bdd", N: 14, Clients: 32, Elapsed: 10 * time.Second, PerSecond: 1500, Answered: 15000, P50: 15 * ms, P99: 90 * ms, Status: map[int]int64{200: 10000, 422: 5000}},
			{Backend: "bdd", N: 8, Clients: 64, Elapsed: 3 * time.Second, PerSecond: 19059, Answered: 57257, P50: 3 * ms, P99: 10 * ms, Status: map[int]int64{200: 33577, 422: 23680}},
			{Backend: "sat", N: 20, Clients: 64, Elapsed: 3 * time.Second, PerSecond: 2288, Answered: 6945, P99: 150 * ms, Status: map[int]int64{200: 1163, 503: 5782}, Unexpected: 5782},
		}},
	}
}

func TestTargets(t *testing.T) {
	want := map[string]string{
		// Every board up to 16×16 interactive.
		"Server, BDD, 32 clients: analyses/s at N=12 ≥ 0.5× N=8's":                met,
		"Server, BDD, 32 clients: analyses/s at N=14 ≥ 0.2× N=8's":                missed,
		"BDD per step p99 ≤ 20.0 ms at N=14":                                      met,
		"BDD per step p99 < 250 ms at N=15":                                       met,
		"BDD per step p99 < 250 ms at N=16":                                       missed,
		"Compile 16-queens (direct path) in ≤ 120 s":                              met,
		"Compile 16-queens with ≤ 12 GiB peak resident memory":                    missed,
		"Load the compiled 14×14 space from disk instead of compiling it: faster": met,
		"Load the compiled 16×16 space from disk instead of compiling it: faster": missed,
		// Per step, the server at 8×8, the compiles.
		"BDD per step p99 < 1.00 ms at N=8":                                                  met,
		"BDD per step p99 < 20.0 ms at N=12":                                                 missed,
		"BDD per step p99 < 250 ms at N=14":                                                  met,
		"BDD ≥ 50× faster than restrict-per-cell at N=10 (p99 of Analyze on the same steps)": met,
		"BDD ≥ 50× faster than restrict-per-cell at N=10 (p50 of Analyze on the same steps)": missed,
		"BDD ≥ 50× faster than restrict-per-cell at N=10 (p50, the valid domains alone)":     missed,
		"SAT per step p99 < 5.00 ms at N=8":                                                  notMeasured,
		"SAT per step p99 < 300 ms at N=50":                                                  met,
		"Server, BDD N=8, 64 clients: ≥ 5,000 analyze req/s, p99 < 50 ms, zero errors":       met,
		"Compile, direct path, N=14 < 30 s":                                                  met,
		"Compile, direct path, N=15 completed within 20 GiB":                                 met,
	}
	got := map[string]target{}
	for _, tg := range targets(sample()) {
		got[tg.Target] = tg
	}
	for name, status := range want {
		tg, ok := got[name]
		if !ok {
			t.Errorf("no target %q", name)
			continue
		}
		if tg.Status != status {
			t.Errorf("%q: %s (%s), want %s", name, tg.Status, tg.Measured, status)
		}
	}
	if m := got["BDD ≥ 50× faster than restrict-per-cell at N=10 (p99 of Analyze on the same steps)"].Measured; !strings.HasPrefix(m, "×1,067") {
		t.Errorf("p99 ratio at N=10: %q, want ×1,067 (160 ms / 150 µs)", m)
	}
	// The figures and their peers, as the rows show them.
	for name, want := range map[string][2]string{
		"Server, BDD, 32 clients: analyses/s at N=12 ≥ 0.5× N=8's":                {"×0.60 (6,000 against 10,000 analyses/s over 10.0 s each", "the server at N=8, 32 clients, this run"},
		"Server, BDD, 32 clients: analyses/s at N=14 ≥ 0.2× N=8's":                {"×0.15 (1,500 against 10,000", "the server at N=8"},
		"Compile 16-queens (direct path) in ≤ 120 s":                              {"95.0 s (292,364,273 nodes, 14,772,512 solutions)", "N=15 in this run: 40.0 s"},
		"Compile 16-queens with ≤ 12 GiB peak resident memory":                    {"12.5 GiB", "N=15 in this run: 3 GiB"},
		"Load the compiled 14×14 space from disk instead of compiling it: faster": {"load 800 ms against compile 9.00 s (×11; file 120 MiB)", "the compile of the same board"},
		"BDD per step p99 ≤ 20.0 ms at N=14":                                      {"20.0 ms (p50 30.0 µs, 200 steps)", "absolute bound"},
	} {
		if tg := got[name]; !strings.HasPrefix(tg.Measured, want[0]) || !strings.Contains(tg.Peer, want[1]) {
			t.Errorf("%q: measured %q, compared with %q; want %q, %q", name, tg.Measured, tg.Peer, want[0], want[1])
		}
	}
	for _, tg := range targets(sample()) {
		if !slices.Contains(targetGroups, tg.Group) || tg.Peer == "" {
			t.Errorf("%q: group %d, compared with %q", tg.Target, tg.Group, tg.Peer)
		}
	}
}

// TestTargetsFailedCompile: a 16-queens compile killed at its memory cap
// misses both of its targets and says why; one that was not run, or not
// started for want of memory, is not measured.
func TestTargetsFailedCompile(t *testing.T) {
	res := sample()
	res.Compile = res.Compile[:len(res.Compile)-1]
	for _, tt := range []struct {
		failures []Failure
		status   string
		measured string
	}{
		{nil, notMeasured, ""},
		{[]Failure{{Method: benchmarks.Direct, N: 16, Err: "compile 16-queens not started: 9 GiB of memory available, the child may take 13 GiB and the machine must keep 2 GiB", NotStarted: true}},
			notRun, "not started"},
		{[]Failure{{Method: benchmarks.Direct, N: 16, Err: "compile 16-queens in a child process: killed after 80.0 s at 13.1 GiB resident, past its cap of 13 GiB (budget 12 GiB)", PeakRSS: 13 << 30, Elapsed: 80 * time.Second}},
			missed, "failed"},
	} {
		res.Failures = tt.failures
		for _, tg := range targets(res) {
			if !strings.HasPrefix(tg.Target, "Compile 16-queens") {
				continue
			}
			if tg.Status != tt.status || !strings.HasPrefix(tg.Measured, tt.measured) {
				t.Errorf("%d failures: %q: %s (%s), want %s (%s…)", len(tt.failures), tg.Target, tg.Status, tg.Measured, tt.status, tt.measured)
			}
		}
	}
	for _, tg := range targets(res) {
		if strings.HasPrefix(tg.Target, "Compile 16-queens (direct path)") && !strings.Contains(tg.Measured, "killed after 80.0 s at 13.1 GiB resident") {
			t.Errorf("%q does not say why: %q", tg.Target, tg.Measured)
		}
		if strings.HasPrefix(tg.Target, "Compile 16-queens with") && tg.Measured != "failed, at a peak of 13 GiB resident" {
			t.Errorf("%q: %q", tg.Target, tg.Measured)
		}
	}
	res.Mode = "full"
	for _, tg := range targets(res) {
		if tg.Status == notMeasured {
			t.Errorf("full mode: %q says %q, want %q", tg.Target, tg.Status, notRun)
		}
	}
	md := markdown(res, nil)
	if !strings.Contains(md, "**The direct path did not compile N=16.** compile 16-queens in a child process: killed after 80.0 s") {
		t.Errorf("the report does not say plainly that N=16 failed:\n%s", md)
	}
}

func TestMarkdown(t *testing.T) {
	md := markdown(sample(), []figure{{"compile_time.svg", "Compile time"}})
	for _, want := range []string{
		"**quick mode**", "| CPU | Test CPU 9000 |", "| Cores | 2 |", "| Memory | 24 GiB |", "go1.26.8",
		"### Targets: every board up to 16×16 interactive", "| Server, BDD, 32 clients: analyses/s at N=14 ≥ 0.2× N=8's | ×0.15 ", "| **MISSED** |",
		"### Targets: per step, the server at 8×8, the compiles",
		"## 1. Compile", "| 11 | 94,822 | published (BuDDy): agrees | 23.0 ms | 750 ms | 4.00 s | ×33 | ×174 |",
		"| 14 | 9,572,418 | this project's contribution | 4.78 s |", "| 16 | 292,364,273 | this project's contribution | 95.0 s |",
		"| 12.5 GiB † |", "no independent source exists", "**not measured in this run**",
		"## 2. Compiled spaces on disk", "| 14 | 9,572,418 | 120 MiB | 13.1 | 9.00 s | 500 ms | 800 ms | ×11 | 300 MiB |",
		"## 3. Per step, BDD", "| 12 | 200 | 1.20 ms | 25.0 ms | 25.0 ms | not run |", "On N=15 and 16 the space was loaded",
		"| 16 | 1.00 ms | 2.00 s | 3.00 s | 6.00 min | 50.0 µs | 300 ms | 300 ms |",
		"| BDD per step p99 < 250 ms at N=16 | 300 ms (p50 50.0 µs, 200 steps), settled: its kept answers computed once per file in 6.00 min; as loaded: p99 2.00 s |",
		"| 10 | 200 | 74.0 µs | 153 µs | 153 µs | 200 | 60.0 µs | 160 ms | 120 ms | ×0.8 | ×1,067 | ×100 | ×784 |",
		"≈ 5.00 min (est.)", "≈ ×7,700 |", "## 5. Server under load", "`-rate 0`", "(the rows of 32 clients, which the large boards'", "for 10.0 s)", "| bdd | 8 | 64 | 19,059 | 19,086 |", "| sat | 20 | 64 | 2,288 | 388 |", "| 5782 | 200: 1,163, 503: 5,782 |", "load shedding",
		"| 10 | 74.0 µs / 153 µs | 30.0 µs / 70.0 µs | 40.0 µs / 80.0 µs | 60.0 µs / 160 ms | ×2.0 | ×2,286 |",
		"## 6. Memory", "**165 MiB**", "![Compile time](compile_time.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

func TestWriteAndRender(t *testing.T) {
	dir := t.TempDir()
	res := sample()
	copyTo := filepath.Join(t.TempDir(), "benchmarks.json")
	if err := write(dir, copyTo, res); err != nil {
		t.Fatal(err)
	}
	// The copy is RESULTS.json byte for byte.
	orig, err := os.ReadFile(filepath.Join(dir, "RESULTS.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cp, err := os.ReadFile(copyTo); err != nil || !bytes.Equal(cp, orig) {
		t.Errorf("the copy: %d bytes (err %v), want the %d of RESULTS.json", len(cp), err, len(orig))
	}
	for _, f := range []string{"RESULTS.md", "RESULTS.json", "compile_time.svg", "compile_memory.svg", "disk.svg", "bytes_per_node.svg", "bdd_step.svg", "server.svg", "sat_step.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".svg") && !strings.Contains(string(b[:min(len(b), 400)]), "<svg") {
			t.Errorf("%s is no SVG", f)
		}
		if f == "RESULTS.md" && !strings.Contains(string(b), "(bdd_step.svg)") {
			t.Errorf("RESULTS.md does not link the per-step plot")
		}
	}
	// The JSON renders the same report again.
	back, err := load(filepath.Join(dir, "RESULTS.json"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := markdown(res, nil), markdown(back, nil); a != b {
		t.Errorf("the report rendered from RESULTS.json differs from the original")
	}
}

// TestPlans: the quick plan keeps every board to 14×14 and measures the
// server's ratio targets at 32 clients for longer than the other runs; the
// full plan takes the compile, the disk and the walks to 16×16, the two
// largest compiled in a child process within the 12 GiB of their target.
func TestPlans(t *testing.T) {
	q, f := quickPlan(), fullPlan()
	for _, p := range []plan{q, f} {
		if !slices.Contains(p.Clients, throughputClients) || p.TargetClients != throughputClients || p.TargetTime < 10*time.Second || p.TargetTime <= p.ServerTime {
			t.Errorf("%s: clients %v, target runs of %d clients for %v (others %v)", p.Mode, p.Clients, p.TargetClients, p.TargetTime, p.ServerTime)
		}
		for _, n := range []int{8, 12, 14} {
			if !slices.Contains(p.Workloads, workload{"bdd", n}) {
				t.Errorf("%s: no BDD server workload at N=%d", p.Mode, n)
			}
		}
		if p.ChildFrom != 15 {
			t.Errorf("%s: compiles in a child from N=%d, want 15", p.Mode, p.ChildFrom)
		}
	}
	if slices.Max(q.BDDSizes) != 14 || slices.Max(q.DiskSizes) != 14 || q.DirectMax != 14 {
		t.Errorf("quick: walks to %d, disk to %d, compile to %d; want 14", slices.Max(q.BDDSizes), slices.Max(q.DiskSizes), q.DirectMax)
	}
	if !slices.Contains(f.BDDSizes, 15) || !slices.Contains(f.BDDSizes, 16) || slices.Max(f.DiskSizes) != 16 || f.DirectMax != 16 {
		t.Errorf("full: walks %v, disk %v, compile to %d; want 15 and 16 in each", f.BDDSizes, f.DiskSizes, f.DirectMax)
	}
	if l := f.Child(16); l.Budget != 12<<30 || l.MaxRSS <= uint64(l.Budget) || l.MaxRSS > 14<<30 || l.Timeout <= compile16Time {
		t.Errorf("16-queens child limits %+v", l)
	}
	f.Boards = []int{15, 16}
	if f.measures(14) || !f.measures(15) || !f.measures(16) || !q.measures(4) {
		t.Errorf("-boards 15,16 does not keep to 15 and 16")
	}
}

// TestLarger checks that a quick report shows the compiles of the report
// of the larger boards beyond its own, said to come from that run, and
// nothing when there is none.
func TestLarger(t *testing.T) {
	out := t.TempDir()
	if l, err := larger(out); l != nil || err != nil {
		t.Fatalf("no report of the larger boards: %v, %v; want nil, nil", l, err)
	}
	large := sample()
	large.Date = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)
	large.Machine.Commit = "abc1234"
	large.Compile = append(large.Compile, benchmarks.CompileResult{Method: benchmarks.Direct, N: 17, Nodes: 1700000000,
		Solutions: new(big.Int).SetInt64(95815104), Time: 20 * time.Minute, PeakRSS: 22 << 30, Child: true})
	if err := write(filepath.Join(out, LargerDir), "", large); err != nil {
		t.Fatal(err)
	}
	l, err := larger(out)
	if err != nil || l == nil {
		t.Fatalf("larger: %v, %v", l, err)
	}
	res := sample()
	res.Compile = slices.DeleteFunc(slices.Clone(res.Compile), func(c benchmarks.CompileResult) bool { return c.N > 14 })
	res.Larger = l
	md := markdown(res, nil)
	for _, want := range []string{
		"measured on 2026-11-25 03:00 UTC at abc1234", "**not in this run**",
		"| 16 | 292,364,273 | this project's contribution | 14,772,512 |",
		"| 17 | 1,700,000,000 | this project's contribution | 95,815,104 | 20.0 min | 22 GiB |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(md, "| 14 | 9,572,418 | this project's contribution | 365,596 |") {
		t.Error("a board of this run shown again from the larger report")
	}
	if t.Failed() {
		t.Log(md)
	}
}

// TestCommand checks that a report names the command line that made it,
// flags included, and the make target of a whole suite.
func TestCommand(t *testing.T) {
	for _, tt := range []struct {
		mode     string
		sections []string
		boards   []int
		want     string
	}{
		{"quick", allSections, nil, "`make bench` (`go run ./cmd/benchreport`)"},
		{"full", allSections, nil, "`make bench-full` (`go run ./cmd/benchreport -full`)"},
		{"full", []string{"compile", "disk", "bdd"}, []int{13, 14, 15, 16},
			"`go run ./cmd/benchreport -full -sections compile,disk,bdd -boards 13,14,15,16`"},
		{"quick", []string{"server"}, nil, "`go run ./cmd/benchreport -sections server`"},
		{"quick", []string{"models"}, nil, "`make bench-models` (`go run ./cmd/benchreport -sections models`)"},
	} {
		res := &Results{Mode: tt.mode, Sections: tt.sections, Boards: tt.boards}
		if got := command(res); got != tt.want {
			t.Errorf("%s %v %v: %s, want %s", tt.mode, tt.sections, tt.boards, got, tt.want)
		}
	}
}
