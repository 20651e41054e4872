package view

import (
	"math"
	"strings"
	"testing"
	"time"
)

// TestCompileGrowth: the estimate of a compile multiplies the growths of
// the benchmark suite's compile times size by size, and stands in the
// last three growths measured, least and most, for the sizes beyond.
func TestCompileGrowth(t *testing.T) {
	var r benchResults
	for n, ns := range map[int]int64{10: 1e6, 11: 4e6, 12: 20e6, 13: 120e6} {
		r.Compile = append(r.Compile, struct {
			Method string
			N      int
			Time   int64
		}{"direct", n, ns}, struct {
			Method string
			N      int
			Time   int64
		}{"apply", n, 1})
	}
	tests := []struct {
		m, n   int
		lo, hi float64
		ok     bool
	}{
		{10, 11, 4, 4, true},   // measured
		{11, 13, 30, 30, true}, // 5 × 6, measured
		{13, 14, 4, 6, true},   // beyond: the last growths 4, 5 and 6
		{12, 15, 6 * 16, 6 * 36, true},
		{13, 13, 0, 0, false},
	}
	for _, tt := range tests {
		var lo, hi float64
		var ok bool
		if tt.m < tt.n {
			lo, hi, ok = growth(r, tt.m, tt.n)
		}
		if ok != tt.ok || math.Abs(lo-tt.lo) > 1e-9 || math.Abs(hi-tt.hi) > 1e-9 {
			t.Errorf("growth %d→%d = %g, %g, %v; want %g, %g, %v", tt.m, tt.n, lo, hi, ok, tt.lo, tt.hi, tt.ok)
		}
	}
}

// TestProgressEstimate: a BDD compile's progress gives an estimate for
// this board from the last smaller board compiled here and the benchmark
// suite's growth; a SAT compile's only the sense of scale.
func TestProgressEstimate(t *testing.T) {
	lo, hi, ok := compileGrowth(14, 15)
	if !ok || lo < 2 || hi < lo {
		t.Fatalf("the embedded results give no growth from 14×14 to 15×15: %g, %g, %v", lo, hi, ok)
	}
	text := Progress([]Preparing{{Backend: "bdd", N: 15, Running: true, Started: time.Now(), EarlierN: 14, Earlier: 10 * time.Second}})
	if !strings.Contains(text, "(the 14×14 took 10.0 s; expect about ") || !strings.Contains(text, "× as long, from how the benchmark suite's compile times grow with N)") {
		t.Errorf("progress %q", text)
	}
	text = Progress([]Preparing{{Backend: "sat", N: 15, Running: true, Started: time.Now(), EarlierN: 14, Earlier: time.Second}})
	if strings.Contains(text, "expect") || !strings.Contains(text, "(the 14×14 took 1.00 s)") {
		t.Errorf("SAT's progress %q", text)
	}
}

// TestProgressSaysTheStep: once made, a fresh space's progress names the
// step under way, the count of its empty board or the answers it keeps,
// with its own clock; neither names the compile's estimate.
func TestProgressSaysTheStep(t *testing.T) {
	long := time.Now().Add(-90 * time.Second)
	tests := []struct {
		name string
		p    Preparing
		want string
	}{
		{"compiling", Preparing{Backend: "bdd", N: 15, Running: true, Started: long},
			"Compiling the 15×15 BDD: 1m30s so far."},
		{"counting", Preparing{Backend: "bdd", N: 15, Running: true, Started: long, Counting: true, Counted: long},
			"Counting all the solutions of the 15×15 BDD, a sweep of its whole diagram: 1m30s so far."},
		{"settling", Preparing{Backend: "bdd", N: 15, Running: true, Started: long, Settling: true, Settled: long, EarlierN: 14, Earlier: time.Second},
			"Computing the answers the 15×15 BDD keeps for the first clicks (the boards of one and two queens), so that none of them waits for a sweep: 1m30s so far."},
	}
	for _, tt := range tests {
		if got := Progress([]Preparing{tt.p}); !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: %q, want it to begin %q", tt.name, got, tt.want)
		}
	}
}
