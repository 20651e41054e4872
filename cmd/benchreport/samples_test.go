package main

import (
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

// TestSamplesSection: each model's row shows this run's sample on each
// backend, or why there is none, beside the published samples of the same
// model (median, range, runs finished, time), the best sample known and the
// proven lower bound, with the sources named.
func TestSamplesSection(t *testing.T) {
	done := func(backend string, size int, d time.Duration) benchmarks.ModelSample {
		return benchmarks.ModelSample{Backend: backend, Features: 771, Free: 700, Configurations: size, Pairs: 883963, Covered: 883963, Complete: true, Elapsed: d}
	}
	beyond := func(backend string) benchmarks.ModelSample {
		return benchmarks.ModelSample{Backend: backend, Features: 1179, Failed: "beyond 1000 features"}
	}
	for _, tt := range []struct {
		name string
		rows []SampleRow
		want []string
	}{
		{"published", []SampleRow{{Model: "dimacs/financialservices-2018-05-09.dimacs", Samples: []benchmarks.ModelSample{done("bdd", 4500, 20*time.Second), done("sat", 4486, 15*time.Second)}}},
			[]string{
				"| dimacs/financialservices-2018-05-09.dimacs | 771 | 700 | 883,963 | 4,500 | 20.0 s | 4,486 | 15.0 s | YASA (m=1) [samplns] | 4,423 (4,405–4,425; 5 of 5 runs) | 25.2 s | 4,340 (4,336) |",
				"| ″ | | | | | | | | IncLing [samplns] | 4,880 (4,862–4,887; 4 of 5 runs) | 14.0 min | – |",
				"| YASA (t=2, 1 iteration) [krieter] | 4,405 | 79.8 s | – |",
				"[samplns] D. Krupke", "[krieter] S. Krieter",
				"1 of 1 real models sampled (1 on both backends)", "no larger than the median of YASA's (m=1) on 0; the largest difference from it is +1.4 %.",
			}},
		{"unpublished", []SampleRow{{Model: "uvl/other.uvl", Samples: []benchmarks.ModelSample{done("bdd", 12, time.Millisecond), done("sat", 11, 2*time.Millisecond)}}},
			[]string{"| uvl/other.uvl | 771 | 700 | 883,963 | 12 | 1.00 ms | 11 | 2.00 ms | – | – | – | – |", "1 of 1 real models sampled (1 on both backends), every sample covering every valid pair."}},
		{"short", []SampleRow{{Model: "uvl/other.uvl", Samples: []benchmarks.ModelSample{done("bdd", 12, time.Millisecond), {Backend: "sat", Features: 771, Free: 700, Configurations: 10, Pairs: 883963, Covered: 800000}}}},
			[]string{"**1 sample short of every valid pair**"}},
		{"beyond", []SampleRow{{Model: "dimacs/embtoolkit.dimacs", Samples: []benchmarks.ModelSample{beyond("bdd"), beyond("sat")}}},
			[]string{"| dimacs/embtoolkit.dimacs | 1,179 | – | – | – | beyond 1000 features | – | beyond 1000 features | YASA (m=1)", "| YASA (m=1) [samplns] | 1,895 (1,894–1,908; 4 of 5 runs) | 18.9 s | 1,872 (1,872) |"}},
	} {
		var b strings.Builder
		samplesSection(&b, &Results{Samples: tt.rows, SampleTimeout: 5 * time.Minute})
		b.WriteString(samplesHeadline(tt.rows))
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the section lacks %q:\n%s", tt.name, w, b.String())
			}
		}
	}
}
