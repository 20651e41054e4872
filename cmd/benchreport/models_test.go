package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

// modelSample is a run of the models section alone, made up so that each
// target has a known verdict: SAT's first analysis is 1.5 s and its p99
// 250 ms on a.uvl (met: at most the bounds) and its p99 300 ms on
// b.dimacs (missed), where the BDD answers too and disagrees once
// (missed), and CryptoMiniSat's backbone differs from SAT's twice.
func modelSample() *Results {
	lat := func(p50, p99 time.Duration, n int) benchmarks.Latency {
		return benchmarks.Latency{Count: n, P50: p50, P99: p99, Max: p99}
	}
	ms := time.Millisecond
	return &Results{Mode: "quick", Sections: []string{secModels}, Models: &ModelsResults{
		Flags: []string{"-rate", "0"}, Walks: 2, Steps: 20, BaselineBudget: time.Minute, LoadStart: "1.00 2.00 3.00", LoadEnd: "4.00 5.00 6.00",
		Models: []benchmarks.ModelResult{
			{File: "a.uvl", Name: "A", Format: "uvl", Features: 1200, Constraints: 40, Load: "7.00 8.00 9.00",
				Backends: []benchmarks.ModelBackend{
					{Backend: "sat", Compile: ms, First: 1500 * ms, Empty: 20 * ms, ForcedOn: 3, Steps: lat(10*ms, 250*ms, 40), Server: lat(9*ms, 240*ms, 40), Domains: lat(9*ms, 200*ms, 40)},
					{Backend: "bdd", Refused: "The bdd backend configures N-Queens boards only, not feature models"},
				},
				Baseline: &benchmarks.ModelBackend{Backend: "sat-plain", Steps: lat(2*time.Second, 5*time.Second, 12), Cut: "12 of 40 steps within the budget of 1m0s"},
				CMS:      &benchmarks.ModelPeer{Name: "cryptominisat5, from scratch", Empty: 3 * time.Second, EmptyCalls: 1500, Steps: lat(2*time.Second, 4*time.Second, 40)}},
			{File: "b.dimacs", Name: "b", Format: "dimacs", Features: 300, Constraints: 900, Disagreements: 1,
				Backends: []benchmarks.ModelBackend{
					{Backend: "sat", Steps: lat(20*ms, 300*ms, 40)},
					{Backend: "bdd", Compile: 2 * time.Second, Nodes: 12345, Steps: lat(ms, 2*ms, 40), Configurations: "123456789"},
				},
				Baseline: &benchmarks.ModelBackend{Backend: "sat-plain", Cut: "the empty configuration took more than the budget of 1m0s"},
				CMS:      &benchmarks.ModelPeer{Name: "cryptominisat5, from scratch", Empty: time.Second, Steps: lat(time.Second, time.Second, 3), Cut: "3 of 40 steps within the budget of 2m0s", Disagreements: 2}},
		}}}
}

func TestModelTargets(t *testing.T) {
	var got []string
	for _, tg := range targets(modelSample()) {
		if tg.Group == modelGroup {
			got = append(got, tg.Status)
		}
	}
	if want := []string{met, missed, missed}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("verdicts %q, want %q", got, want)
	}
	// A run without the section says so in the one target of the group.
	for _, tg := range targets(sample()) {
		if tg.Group == modelGroup && tg.Status != notMeasured {
			t.Errorf("a run without models: %+v", tg)
		}
	}
}

func TestModelsMarkdown(t *testing.T) {
	md := markdown(modelSample(), nil)
	for _, want := range []string{
		"`make bench-models`", "### Targets: real feature models, interactive through the API",
		"| SAT first analysis ≤ 2.00 s, per decision p99 ≤ 250 ms through the API: a.uvl (1,200 features) | first 1.50 s; per decision 250 ms (p50 10.0 ms, 40 decisions; the backend's own p99 240 ms: valid domains 200 ms, count 0) | absolute bound; sat-plain on 12 of the decisions: p99 5.00 s, p50 2.00 s (valid domains p99 0); cryptominisat5, from scratch: empty 3.00 s, on 40 of the decisions p99 4.00 s, p50 2.00 s | met |",
		"| 1 disagreements on 1 models | each other, this run | **MISSED** |",
		"## Feature models through the API", "at the start of the section: 1.00 2.00 3.00; at its end: 4.00 5.00 6.00",
		"| a.uvl | 1,200 | 40 | sat | 1.00 ms | 1.50 s |  | 3 / 0 |  | 20.0 ms | 10.0 ms | 250 ms | 240 ms | 200 ms | 0 | 40 | 7.00 8.00 9.00 |",
		"|  |  |  | cryptominisat5, from scratch |  |  |  |  |  | 3.00 s (1500 calls) | 2.00 s | 4.00 s |  |  |  | 40 |  |",
		"| 3 (3 of 40 steps within the budget of 2m0s) |",
		"**b.dimacs: CryptoMiniSat's backbone and SAT's forced features differ at 2 questions.**",
		"|  |  |  | bdd | refused: The bdd backend configures N-Queens boards only, not feature models |",
		"| sat-plain |", "12 (12 of 40 steps within the budget of 1m0s)",
		"| bdd | 2.00 s | 0 | 12,345 | 0 / 0 | 123456789 |",
		"**b.dimacs: the backends disagree on the forced features at 1 decisions.**",
		"|  |  |  | sat-plain | the empty configuration took more than the budget of 1m0s |",
		"SAT's p99 per decision is at most 300 ms over 2 models (the slowest: b.dimacs, 300 features)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, absent := range []string{"every board up to 16×16", "## 1. Compile"} {
		if strings.Contains(md, absent) {
			t.Errorf("a run of the models alone shows %q", absent)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}
