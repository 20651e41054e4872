package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// modelChildCommand is the first argument that makes the program a child
// process that compiles one real model with the bdd backend
// (benchmarks.CompileModelFile) and writes the figures as JSON to its
// standard output, so that the peak resident memory is the compile's own,
// as BuDDy's is its process's.
const modelChildCommand = "model-child"

// modelChildMain is the child process: `report model-child -model FILE -budget B`.
func modelChildMain(args []string) error {
	fs := flag.NewFlagSet(modelChildCommand, flag.ContinueOnError)
	path := fs.String("model", "", "model file (UVL or DIMACS)")
	budget := fs.Int64("budget", 0, "bytes of the bdd backend's budget")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		return fmt.Errorf("%s: -model is required", modelChildCommand)
	}
	if *budget > 0 {
		debug.SetMemoryLimit(*budget)
	}
	r, err := benchmarks.CompileModelFile(context.Background(), *path, *budget)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// BuDDyRow is one real model compiled by the bdd backend and, for a CNF
// file, by BuDDy 2.4 with sifting, in the same run.
type BuDDyRow struct {
	Model string
	BDD   benchmarks.ModelCompile
	BuDDy *benchmarks.ModelCompile `json:",omitempty"`
}

// Agree reports whether both compiled the model to the same count (to
// BuDDy's four places of its logarithm); false when either did not.
func (r BuDDyRow) Agree() bool {
	if r.BuDDy == nil || r.BDD.Failed != "" || r.BuDDy.Failed != "" {
		return false
	}
	d := r.BDD.CountLog10 - r.BuDDy.CountLog10
	return d < 1e-3 && d > -1e-3
}

// runBuDDy compiles every model of p.ModelsDir with the bdd backend in a
// child process and every CNF file with BuDDy, each within
// p.BuDDyTimeout.
func runBuDDy(ctx context.Context, p plan, res *Results) error {
	files, err := benchmarks.ModelFiles(p.ModelsDir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no models in %s (set -models)", p.ModelsDir)
	}
	dir, err := os.MkdirTemp("", "nqueens-bench-buddy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	exe, err := benchmarks.BuildBuDDy(ctx, dir)
	if err != nil {
		return err
	}
	res.BuDDyTimeout, res.BuDDyBudget = p.BuDDyTimeout, p.BuDDyBudget
	lim := childLimits{Budget: p.BuDDyBudget, MaxRSS: uint64(p.BuDDyBudget) + 1<<30, Timeout: p.BuDDyTimeout}
	for _, file := range files {
		rel, _ := filepath.Rel(p.ModelsDir, file)
		row := BuDDyRow{Model: rel}
		what := "compile " + rel + " in a child process"
		var peak uint64
		var elapsed time.Duration
		out, err := runChild(ctx, what, []string{modelChildCommand, "-model", file, "-budget", strconv.FormatInt(p.BuDDyBudget, 10)}, lim, &peak, &elapsed)
		if err == nil {
			err = json.Unmarshal(out, &row.BDD)
		}
		if err != nil {
			row.BDD = benchmarks.ModelCompile{Failed: err.Error(), Elapsed: elapsed}
		}
		row.BDD.PeakRSS = peak
		if m, err := modelfile.Load(file, ""); err == nil {
			row.BDD.Features = len(m.Features) // of a compile that did not finish too
		}
		if ext := filepath.Ext(rel); ext == ".dimacs" || ext == ".cnf" {
			b, err := benchmarks.BuDDyModel(ctx, exe, file, p.BuDDyTimeout)
			if err != nil {
				return err
			}
			row.BuDDy = &b
		}
		log.Printf("%s: bdd %s; BuDDy %s", rel, compileCell(&row.BDD), compileCell(row.BuDDy))
		res.BuDDy = append(res.BuDDy, row)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// buddyHeadline tallies the models and gives the target's verdict: every
// CNF file BuDDy compiles, the bdd backend compiles in no more time with
// the same count, and it compiles one at least that BuDDy does not.
func buddyHeadline(rows []BuDDyRow) string {
	var models, byBDD, cnf, byBuDDy, both, bddOnly int
	held := true
	for _, r := range rows {
		models++
		if r.BDD.Failed == "" {
			byBDD++
		}
		if r.BuDDy == nil {
			continue
		}
		cnf++
		switch {
		case r.BuDDy.Failed == "":
			byBuDDy++
			if r.Agree() && r.BDD.Elapsed <= r.BuDDy.Elapsed {
				both++
			} else {
				held = false
			}
		case r.BDD.Failed == "":
			bddOnly++
		}
	}
	verdict := map[bool]string{true: "**met**", false: "**not met**"}[held && bddOnly > 0]
	return fmt.Sprintf("Real models: the bdd backend compiled %d of %d; of the %d CNF files BuDDy 2.4 with sifting compiled %d, "+
		"the bdd backend %d of those in no more time with the same count, and %d BuDDy did not. "+
		"The target (every model BuDDy compiles, here in no more time with the same count, and one at least it does not): %s.",
		byBDD, models, cnf, byBuDDy, both, bddOnly, verdict)
}

// buddySection is the table of the real models, the bdd backend beside
// BuDDy.
func buddySection(b *strings.Builder, res *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Real models compiled: the bdd backend and BuDDy 2.4\n\n")
	p("Each real model (`shared/models`) compiled to a BDD by the bdd backend (its default order and schedule,\n")
	p("a child process of its own, budget %s) and each CNF file by BuDDy 2.4 with automatic sifting\n", bytesIEC(uint64(res.BuDDyBudget)))
	p("(`benchmarks/peers/buddy/cnf_buddy.c`, built from Debian's libbdd-dev by the run: the clauses sorted by\n")
	p("their lowest variable, in the file's order), each within %s. Times are the compile's, the file's reading\n", fmtDur(res.BuDDyTimeout))
	p("apart; memory is the process's peak resident set. BuDDy reads CNF only: the UVL and FeatureIDE models are the bdd backend's alone.\n\n")
	p("%s\n\n", buddyHeadline(res.BuDDy))
	p("*Published* is the size of a monolithic diagram of the same model published elsewhere, without its time\n")
	p("(%s), for comparison.\n", publishedModelSource)
	p("*bdd nodes* is the bdd backend's diagram over the features its compile keeps as variables: not those every\n")
	p("configuration fixes, nor those equal to another, which the space answers for from the one they equal.\n\n")
	p("| model | features | bdd nodes | bdd time | bdd peak | BuDDy nodes | BuDDy time | BuDDy peak | BuDDy time / bdd time | configurations | counts agree | published |\n")
	p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n")
	for _, r := range res.BuDDy {
		agree := "–"
		if r.BuDDy != nil && r.BDD.Failed == "" && r.BuDDy.Failed == "" {
			agree = map[bool]string{true: "yes", false: "**no**"}[r.Agree()]
		}
		count := "–"
		if r.BDD.Failed == "" {
			count = fmt.Sprintf("10^%.2f", r.BDD.CountLog10)
		}
		ratio := "–"
		if r.BuDDy != nil && r.BDD.Failed == "" && r.BuDDy.Failed == "" {
			ratio = fmtRatio(ratioOf(r.BuDDy.Elapsed, r.BDD.Elapsed))
		}
		features := "–" // unknown: a run's child that did not answer
		if r.BDD.Features > 0 {
			features = fmtInt(r.BDD.Features)
		}
		published := "–"
		if n, ok := publishedModelNodes[r.Model]; ok {
			published = fmtInt(n)
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Model, features, compileCells(&r.BDD), compileCells(r.BuDDy), ratio, count, agree, published)
	}
	p("\n")
}

// compileCells are the three cells of one compile: nodes, time and peak, or
// why it did not finish.
func compileCells(r *benchmarks.ModelCompile) string {
	if r == nil {
		return "– | – | –"
	}
	return nodesCell(r) + " | " + fmtDur(r.Elapsed) + " | " + bytesIEC(r.PeakRSS)
}

// nodesCell is a compile's nodes, or why it did not finish.
func nodesCell(r *benchmarks.ModelCompile) string {
	switch {
	case r.TooLarge:
		return "beyond the budget"
	case r.Failed != "":
		return "not compiled"
	}
	return fmtInt(r.Nodes)
}

// compileCell is a compile in a few words, for the log.
func compileCell(r *benchmarks.ModelCompile) string {
	switch {
	case r == nil:
		return "–"
	case r.Failed != "":
		return r.Failed
	}
	return fmt.Sprintf("%d nodes in %s, 10^%.2f", r.Nodes, fmtDur(r.Elapsed), r.CountLog10)
}
