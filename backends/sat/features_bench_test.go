package sat

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// realModelFiles are the files of ../shared/models.
var realModelFiles = []string{
	"uvl/berkeleydb.uvl", "uvl/axtls.uvl", "uvl/uclibc.uvl", "uvl/busybox-2007-05-20.uvl",
	"uvl/ecos-xsengine.uvl", "uvl/financialservices-2017-05-22.uvl", "uvl/automotive01.uvl",
	"uvl/dopler-asej1.uvl", "dimacs/berkeleydb.dimacs", "dimacs/printer.dimacs",
	"dimacs/embtoolkit.dimacs", "dimacs/busybox-1.18.0.dimacs", "dimacs/uclibc-0.9.33.2.dimacs",
	"dimacs/financialservices-2018-05-09.dimacs", "dimacs/automotive01.dimacs",
}

// loadModel reads a real model, UVL or DIMACS by its extension.
func loadModel(tb testing.TB, dir, file string) *feature.Model {
	tb.Helper()
	if strings.HasSuffix(file, ".uvl") {
		return loadUVL(tb, dir, file)
	}
	src, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		tb.Fatal(err)
	}
	m, err := dimacs.Parse(src)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkModelEmpty is the valid domains of the empty configuration of
// each real model on a space compiled afresh: its first question, which
// builds the solver and finds the backbone the later questions start from.
//
//	go test -run '^$' -bench ModelEmpty ./backends/sat
func BenchmarkModelEmpty(b *testing.B) {
	dir := featuretest.ModelsDir(b)
	for _, file := range realModelFiles {
		m := loadModel(b, dir, file)
		b.Run(file, func(b *testing.B) {
			var calls int64
			for b.Loop() {
				sp, err := New(Options{}).CompileModel(context.Background(), m)
				if err != nil {
					b.Fatal(err)
				}
				d, err := sp.Domains(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				calls = d.Work.SolverCalls
			}
			b.ReportMetric(float64(calls), "calls")
		})
	}
}

// BenchmarkModelWalk is the valid domains after each decision of seeded
// walks of 20 decisions on each real model (each decision on a feature
// the last answer showed free, selected or deselected at random), through
// the session, as a person configuring the model meets them. It reports
// the median and the 99th percentile of one decision's answer and the
// solver calls of the median one.
//
//	go test -run '^$' -bench ModelWalk ./backends/sat
func BenchmarkModelWalk(b *testing.B) {
	dir := featuretest.ModelsDir(b)
	for _, file := range realModelFiles {
		m := loadModel(b, dir, file)
		b.Run(file, func(b *testing.B) {
			ctx := context.Background()
			sp, err := New(Options{}).CompileModel(ctx, m)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sp.Domains(ctx, nil); err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			var calls []int64
			walk := uint64(0)
			for b.Loop() {
				rng := rand.New(rand.NewPCG(walk, 21))
				walk++
				s, err := configurator.NewFeatureSession(ctx, sp, nil)
				if err != nil {
					b.Fatal(err)
				}
				for range 20 {
					open := s.Domains().In(configurator.Open)
					if len(open) == 0 {
						break
					}
					d := configurator.Decision{Feature: open[rng.IntN(len(open))], Select: rng.IntN(2) == 0}
					if err := s.Decide(ctx, d); err != nil {
						b.Fatal(err)
					}
					times = append(times, s.Domains().Elapsed)
					calls = append(calls, s.Domains().Work.SolverCalls)
				}
			}
			slices.Sort(times)
			slices.Sort(calls)
			at := func(q float64) int { return int(q * float64(len(times)-1)) }
			b.ReportMetric(float64(times[at(0.5)].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[at(0.99)].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(calls[at(0.5)]), "calls")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// largeModels are the largest real models of ../shared/models and the
// generated one of largeFeatures features (featuretest.LargeModel).
var largeModels = []string{
	"dimacs/linux-2.6.33.3.dimacs", "dimacs/busybox-1.18.0.dimacs", "dimacs/uclibc-0.9.33.2.dimacs",
	"dimacs/automotive01.dimacs", "uvl/automotive01.uvl", "generated-20000",
}

// largeFeatures and largeConstraints size the generated model, as
// cmd/benchreport's models section does.
const largeFeatures, largeConstraints = 20000, 20000

// largeModel returns the generated model of featuretest.LargeModel with
// the given size, seeded (1, 2).
func largeModel(tb testing.TB, features, constraints int) *feature.Model {
	tb.Helper()
	src := featuretest.LargeModel(rand.New(rand.NewPCG(1, 2)), features, constraints)
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkLargeWalk is the first analysis of each large model on a space
// compiled afresh (the compile included) and then the valid domains after
// each of 20 seeded decisions through the session, as a person meets
// them: it reports the first analysis and the median, 99th percentile and
// slowest of the decisions.
//
//	go test -run '^$' -bench LargeWalk -benchtime 1x ./backends/sat
func BenchmarkLargeWalk(b *testing.B) {
	dir := featuretest.ModelsDir(b)
	for _, file := range largeModels {
		b.Run(file, func(b *testing.B) {
			var m *feature.Model
			if file == "generated-20000" {
				m = largeModel(b, largeFeatures, largeConstraints)
			} else {
				m = loadModel(b, dir, file)
			}
			ctx := context.Background()
			var first, times []time.Duration
			walk := uint64(0)
			for b.Loop() {
				start := time.Now()
				sp, err := New(Options{}).CompileModel(ctx, m)
				if err != nil {
					b.Fatal(err)
				}
				s, err := configurator.NewFeatureSession(ctx, sp, nil)
				if err != nil {
					b.Fatal(err)
				}
				first = append(first, time.Since(start))
				rng := rand.New(rand.NewPCG(walk, 21))
				walk++
				for range 20 {
					open := s.Domains().In(configurator.Open)
					if len(open) == 0 {
						break
					}
					d := configurator.Decision{Feature: open[rng.IntN(len(open))], Select: rng.IntN(2) == 0}
					start := time.Now()
					if err := s.Decide(ctx, d); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(start))
				}
			}
			slices.Sort(times)
			slices.Sort(first)
			at := func(q float64) int { return int(q * float64(len(times)-1)) }
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(first[len(first)/2]), "first-ms")
			b.ReportMetric(ms(times[at(0.5)]), "p50-ms")
			b.ReportMetric(ms(times[at(0.99)]), "p99-ms")
			b.ReportMetric(ms(times[len(times)-1]), "max-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}
