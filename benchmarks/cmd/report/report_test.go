package main

import (
	"math/big"
	"os"
	"path/filepath"
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
	for b, want := range map[uint64]string{571 << 20: "571 MiB", 1000 << 10: "1000 KiB", 3 << 29: "1.5 GiB", 900: "900 B"} {
		if got := bytesIEC(b); got != want {
			t.Errorf("bytesIEC(%d) = %q, want %q", b, got, want)
		}
	}
}

// sample is a run with every section, made up so that each target has a
// known verdict.
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
		},
		CompileMinTime: 200 * ms,
		BDDSteps: []benchmarks.StepResult{
			step("bdd", 8, 9*time.Microsecond, 22*time.Microsecond),
			bdd10,
			step("bdd", 12, 1200*time.Microsecond, 25*ms), // misses 20 ms
		},
		BDDBaselineMax: 12, BDDBudget: 8 * time.Second, BDDEmpty: 12 * time.Second,
		SATSteps:   []benchmarks.StepResult{step("sat", 50, 9*ms, 39*ms, fresh)},
		SATBudgets: map[int]Budget{50: {Steps: 4 * time.Second, Empty: 3 * time.Second}},
		Server: &ServerResults{Flags: serverFlags, PeakRSS: 165 << 20, Runs: []ServerRun{
			{Backend: "bdd", N: 8, Clients: 64, Elapsed: 3 * time.Second, PerSecond: 19059, Answered: 57257, P50: 3 * ms, P99: 10 * ms, Status: map[int]int64{200: 33577, 422: 23680}},
			{Backend: "sat", N: 20, Clients: 64, Elapsed: 3 * time.Second, PerSecond: 2288, Answered: 6945, P99: 150 * ms, Status: map[int]int64{200: 1163, 503: 5782}, Unexpected: 5782},
		}},
	}
}

func TestTargets(t *testing.T) {
	want := map[string]string{
		"BDD per step p99 < 1.00 ms at N=8":                                                  met,
		"BDD per step p99 < 20.0 ms at N=12":                                                 missed,
		"BDD per step p99 < 250 ms at N=14":                                                  notMeasured,
		"BDD ≥ 50× faster than restrict-per-cell at N=10 (p99 of Analyze on the same steps)": met,
		"BDD ≥ 50× faster than restrict-per-cell at N=10 (p50 of Analyze on the same steps)": missed,
		"BDD ≥ 50× faster than restrict-per-cell at N=10 (p50, the valid domains alone)":     missed,
		"SAT per step p99 < 5.00 ms at N=8":                                                  notMeasured,
		"SAT per step p99 < 300 ms at N=50":                                                  met,
		"Server, BDD N=8, 64 clients: ≥ 5,000 analyze req/s, p99 < 50 ms, zero errors":       met,
		"Compile, direct path, N=14 < 30 s":                                                  met,
		"Compile, direct path, N=15 completed within 20 GiB":                                 notMeasured,
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
}

func TestMarkdown(t *testing.T) {
	md := markdown(sample(), []figure{{"compile_time.svg", "Compile time"}})
	for _, want := range []string{
		"**quick mode**", "| CPU | Test CPU 9000 |", "| Cores | 2 |", "| Memory | 24 GiB |", "go1.26.8",
		"## 1. Compile", "| 11 | 94,822 | 23.0 ms | 750 ms | 4.00 s | ×33 | ×174 |",
		"## 2. Per step, BDD", "| 12 | 200 | 1.20 ms | 25.0 ms | 25.0 ms | not run |",
		"| 10 | 200 | 74.0 µs | 153 µs | 153 µs | 200 | 60.0 µs | 160 ms | 120 ms | ×0.8 | ×1,067 | ×100 | ×784 |",
		"≈ 5.00 min (est.)", "≈ ×7,700 |", "## 4. Server under load", "`-api-rate 0`", "| bdd | 8 | 64 | 19,059 | 19,086 |", "| sat | 20 | 64 | 2,288 | 388 |", "| 5782 | 200: 1,163, 503: 5,782 |", "load shedding",
		"| 10 | 74.0 µs / 153 µs | 30.0 µs / 70.0 µs | 40.0 µs / 80.0 µs | 60.0 µs / 160 ms | ×2.0 | ×2,286 |",
		"## 5. Memory", "**165 MiB**", "![Compile time](compile_time.svg)",
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
	if err := write(dir, res); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"RESULTS.md", "RESULTS.json", "compile_time.svg", "compile_memory.svg", "bytes_per_node.svg", "bdd_step.svg", "sat_step.svg"} {
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
