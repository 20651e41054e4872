package main

import (
	"context"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/benchmarks"
	"github.com/nqueens/configurator/configurator"
)

// secSamples is the section of the pairwise samples of the real models; it
// runs only when named.
const secSamples = "samples"

// SampleRow is one real model's pairwise covering samples, one per backend,
// drawn in the same run.
type SampleRow struct {
	Model   string
	Samples []benchmarks.ModelSample
}

// runSamples draws the pairwise sample of every model of p.ModelsDir on
// the bdd and the sat backend, each within p.SampleTimeout.
func runSamples(ctx context.Context, p plan, res *Results) error {
	files, err := benchmarks.ModelFiles(p.ModelsDir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no models in %s (set -models)", p.ModelsDir)
	}
	res.SampleTimeout = p.SampleTimeout
	for _, file := range files {
		rel, _ := filepath.Rel(p.ModelsDir, file)
		row := SampleRow{Model: rel}
		for _, b := range []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{})} {
			s, err := benchmarks.SampleModelFile(ctx, file, b, p.SampleTimeout)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			log.Printf("%s on %s: %s", rel, b.Name(), sampleCell(s))
			row.Samples = append(row.Samples, s)
			freeMemory()
			if err := ctx.Err(); err != nil {
				res.Samples = append(res.Samples, row)
				return err
			}
		}
		res.Samples = append(res.Samples, row)
	}
	return nil
}

// samplesHeadline tallies the samples and sets the smaller of each model's
// two beside the median of YASA's (m=1) published for the same model.
func samplesHeadline(rows []SampleRow) string {
	var sampled, both, short, compared, noLarger int
	worst := 0.0
	for _, r := range rows {
		smallest, done := 0, 0
		for _, s := range r.Samples {
			if s.Failed == "" && (!s.Complete || s.Covered != s.Pairs) {
				short++
			}
			if s.Failed == "" {
				done++
				if smallest == 0 || s.Configurations < smallest {
					smallest = s.Configurations
				}
			}
		}
		if done > 0 {
			sampled++
		}
		if done == len(r.Samples) && done > 0 {
			both++
		}
		ref, ok := publishedSamples[r.Model]
		if !ok || done == 0 || len(ref.Samples) == 0 {
			continue
		}
		compared++
		yasa := medianSize(ref.Samples[0])
		if smallest <= yasa {
			noLarger++
		}
		worst = max(worst, float64(smallest)/float64(yasa))
	}
	h := fmt.Sprintf("Pairwise samples: %d of %d real models sampled (%d on both backends)", sampled, len(rows), both)
	switch {
	case short > 0:
		h += fmt.Sprintf(", **%d sample short of every valid pair**.", short)
	case sampled > 0:
		h += ", every sample covering every valid pair."
	default:
		h += "."
	}
	if compared > 0 {
		h += fmt.Sprintf(" Of the %d with a published sample of the same model, the smaller of this run's two is no larger than the median of YASA's (m=1) on %d; the largest difference from it is %+.1f %%.",
			compared, noLarger, 100*(worst-1))
	}
	return h
}

// medianSize is the median size of the runs of ps that finished, the
// upper of the middle two of an even number.
func medianSize(ps publishedSample) int {
	sizes := slices.Clone(ps.Sizes)
	slices.Sort(sizes)
	return sizes[len(sizes)/2]
}

// sampleCell is one sample in a few words: its size and time, or why
// there is none.
func sampleCell(s benchmarks.ModelSample) string {
	if s.Failed != "" {
		return s.Failed
	}
	return fmt.Sprintf("%s in %s", fmtInt(s.Configurations), fmtDur(s.Elapsed))
}

// samplesSection is the table of the real models' pairwise samples, this
// run's on each backend beside the published ones.
func samplesSection(b *strings.Builder, res *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Pairwise samples of the real models, beside YASA and IncLing\n\n")
	p("Each real model (`shared/models`) of up to %s features sampled pairwise (t = 2) by `configurator.PairwiseSample`\n", fmtInt(configurator.MaxSampleFeatures))
	p("on the bdd and the sat backend, each within %s, the compile's time apart: every valid pair of values of two\n", fmtDur(res.SampleTimeout))
	p("features that no configuration fixes is taken by a configuration of the sample (*pairs*: those valid pairs, all covered).\n")
	p("*Published* are the samples of the same model drawn elsewhere, on other machines: the median of the runs\n")
	p("that finished, their range and their number, and the smallest sample known with the lower bound proven for it.\n")
	p("Sizes are comparable across machines; times only roughly.\n\n")
	p("| model | features | free | pairs | bdd size | bdd time | sat size | sat time | published: tool | size | time | best known (proven lower bound) |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, r := range res.Samples {
		ours := map[string]benchmarks.ModelSample{}
		features, free, pairs := "–", "–", "–"
		for _, s := range r.Samples {
			ours[s.Backend] = s
			if s.Features > 0 {
				features = fmtInt(s.Features)
			}
			if s.Free > 0 || s.Failed == "" {
				free = fmtInt(s.Free)
			}
			if s.Failed == "" {
				pairs = fmtInt(s.Pairs)
			}
		}
		cells := fmt.Sprintf("| %s | %s | %s | %s | %s | %s", r.Model, features, free, pairs, sampleCells(ours["bdd"]), sampleCells(ours["sat"]))
		ref, ok := publishedSamples[r.Model]
		if !ok {
			p("%s | – | – | – | – |\n", cells)
			continue
		}
		for i, ps := range ref.Samples {
			best := "–"
			if i == 0 && ref.Best > 0 {
				best = fmt.Sprintf("%s (%s)", fmtInt(ref.Best), fmtInt(ref.Proven))
			}
			if i > 0 {
				cells = "| ″" + strings.Repeat(" |", 7)
			}
			p("%s | %s [%s] | %s | %s | %s |\n", cells, ps.Tool, ps.Source, publishedSizes(ps), publishedTimes(ps), best)
		}
	}
	p("\n")
	p("Sources: ")
	keys := make([]string, 0, len(sampleSources))
	for k := range sampleSources {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			p("; ")
		}
		p("[%s] %s", k, sampleSources[k])
	}
	p(".\n\n")
}

// sampleCells are the two cells of one sample: its size and time, or why
// there is none.
func sampleCells(s benchmarks.ModelSample) string {
	switch {
	case s.Backend == "":
		return "– | –"
	case s.Failed != "":
		return "– | " + s.Failed
	}
	return fmtInt(s.Configurations) + " | " + fmtDur(s.Elapsed)
}

// publishedSizes is the median size of the runs that finished (the upper
// of the middle two of an even number), with their range and how many of
// how many runs finished.
func publishedSizes(ps publishedSample) string {
	sizes := slices.Clone(ps.Sizes)
	slices.Sort(sizes)
	if len(sizes) == 1 {
		return fmtInt(sizes[0])
	}
	return fmt.Sprintf("%s (%s–%s; %d of %d runs)", fmtInt(medianSize(ps)), fmtInt(sizes[0]), fmtInt(sizes[len(sizes)-1]), len(sizes), ps.Runs)
}

// publishedTimes is the median time of the runs that finished, as
// publishedSizes takes it.
func publishedTimes(ps publishedSample) string {
	secs := slices.Clone(ps.Seconds)
	slices.Sort(secs)
	return fmtDur(time.Duration(secs[len(secs)/2] * float64(time.Second)))
}
