package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

// TestBuDDySectionVerdict: the target of the models section is met when
// every CNF file BuDDy compiles, the bdd backend compiles in no more time
// with the same count, and the bdd backend compiles one BuDDy does not.
func TestBuDDySectionVerdict(t *testing.T) {
	done := func(nodes int, log10 float64, d time.Duration) benchmarks.ModelCompile {
		return benchmarks.ModelCompile{Nodes: nodes, CountLog10: log10, Elapsed: d}
	}
	failed := benchmarks.ModelCompile{Failed: "not compiled in 2m0s", Elapsed: 2 * time.Minute}
	ptr := func(r benchmarks.ModelCompile) *benchmarks.ModelCompile { return &r }
	both := BuDDyRow{Model: "dimacs/a.dimacs", BDD: done(10, 2.5, time.Millisecond), BuDDy: ptr(done(12, 2.5, 40*time.Millisecond))}
	bddOnly := BuDDyRow{Model: "dimacs/b.dimacs", BDD: done(900, 96.7, time.Second), BuDDy: ptr(failed)}
	published := BuDDyRow{Model: "dimacs/embtoolkit.dimacs", BDD: done(5000, 96.7, time.Second), BuDDy: ptr(failed)}
	neither := BuDDyRow{Model: "dimacs/c.dimacs", BDD: failed, BuDDy: ptr(failed)}
	uvl := BuDDyRow{Model: "uvl/d.uvl", BDD: done(5, 1, time.Millisecond)}
	for _, tt := range []struct {
		name string
		rows []BuDDyRow
		want []string
	}{
		{"met", []BuDDyRow{uvl, both, bddOnly, neither}, []string{"**met**", "| dimacs/a.dimacs | – | 10 | 1.00 ms", "×40 | 10^2.50 | yes | – |", "| dimacs/c.dimacs | – | not compiled | 2.00 min"}},
		{"busybox", []BuDDyRow{{Model: "dimacs/busybox-1.18.0.dimacs", BDD: benchmarks.ModelCompile{Nodes: 14_000, CountLog10: 217, Elapsed: time.Second}}}, []string{"| 14,000 | 1.00 s", "| 14,890 |"}},
		{"published", []BuDDyRow{published}, []string{"| 10^96.70 | – | 7,156 |"}},
		{"none BuDDy does not", []BuDDyRow{both, neither}, []string{"**not met**"}},
		{"slower", []BuDDyRow{{Model: "dimacs/a.dimacs", BDD: done(10, 2.5, time.Second), BuDDy: ptr(done(12, 2.5, time.Millisecond))}, bddOnly}, []string{"**not met**", "×0.0"}},
		{"another count", []BuDDyRow{{Model: "dimacs/a.dimacs", BDD: done(10, 2.5, time.Millisecond), BuDDy: ptr(done(12, 2.6, time.Second))}, bddOnly}, []string{"**not met**", "| **no** |"}},
	} {
		var b strings.Builder
		buddySection(&b, &Results{BuDDy: tt.rows, BuDDyTimeout: 2 * time.Minute, BuDDyBudget: 2 << 30})
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the section lacks %q:\n%s", tt.name, w, b.String())
			}
		}
	}
}
