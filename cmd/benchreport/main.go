// Command benchreport runs the benchmark suite of the BDD/SAT configurator and
// writes its report: RESULTS.md, the raw figures in RESULTS.json and the
// plots as SVG files, all in the output directory.
//
// Usage:
//
//	go run ./cmd/benchreport [-full] [-out benchmarks] [-sections compile,disk,bdd,sat,server,paint] [-boards 15,16]
//	go run ./cmd/benchreport -sections models [-models ../shared/models] -out benchmarks/models
//	go run ./cmd/benchreport -sections samples [-models ../shared/models] -out benchmarks/samples
//	go run ./cmd/benchreport -render benchmarks/RESULTS.json
//
// The quick suite (the default, `make bench`) takes a few minutes; -full
// (`make bench-full`) extends the ranges: compile, load from disk and
// per-step walks up to N=16 (15 and 16 compiled in a child process of
// their own, with a memory cap), SAT up to N=100, and larger budgets for
// the baselines. Every comparison is measured in the same run, side by
// side, because absolute times on a shared machine drift; the ratios are
// what the report stands on. The report opens with its targets (every
// board up to 16×16 interactive; the per-step bounds, the server at 8×8
// and the compiles), each with the figure, what it is compared with and
// its verdict.
//
// The compiled spaces of a run live in a temporary cache directory of its
// own, removed at the end: nothing depends on the user's cache.
//
// The server benchmark builds cmd/web (or runs the binary given by -web),
// starts it on a free loopback port with its per-client API rate limit
// turned off, and drives it with benchmarks/loadgen.
//
// The section of feature models (`make bench-models`, run only when named)
// measures the real models of -models through the same server's JSON API:
// the compile, the empty configuration and seeded walks of decisions on
// every backend that configures models, against sat-plain on the same
// decisions (benchmarks.MeasureModel), with the interactive bound of
// 250 ms per decision as its target.
//
// The section of pairwise samples (`make bench-samples`, run only when
// named) draws the pairwise covering sample of every real model of
// -models on the bdd and the sat backend (benchmarks.SampleModelFile) and
// shows each beside the samples YASA and IncLing drew of the same model,
// as published.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

func main() {
	log.SetFlags(log.Ltime)
	log.SetPrefix("benchreport: ")
	if len(os.Args) > 1 && os.Args[1] == childCommand {
		if err := childMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == modelChildCommand {
		if err := modelChildMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	full := flag.Bool("full", false, "extended ranges (compile, disk and walks to N=16, SAT to N=100); takes hours")
	out := flag.String("out", "benchmarks", "directory of RESULTS.md, RESULTS.json and the plots")
	sections := flag.String("sections", strings.Join(allSections, ","), "sections to run, comma-separated")
	web := flag.String("web", "", "cmd/web binary for the server benchmark; empty: build it")
	render := flag.String("render", "", "render the report from this RESULTS.json instead of measuring")
	seed := flag.Uint64("seed", 1, "seed of the random walks and the load")
	modelsDir := flag.String("models", defaultModelsDir(), "`directory` of the real models (.uvl, .dimacs, .cnf, FeatureIDE or SXFM .xml) of the section models")
	var boards []int
	flag.Func("boards", "measure only these board sizes, comma-separated (e.g. 15,16 with -full: the largest rows alone)", func(s string) error {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return fmt.Errorf("board size %q: want a positive integer", f)
			}
			boards = append(boards, n)
		}
		return nil
	})
	flag.Parse()

	if *render != "" {
		res, err := load(*render)
		if err == nil {
			err = write(*out, res)
		}
		if err != nil {
			log.Fatal(err)
		}
		return
	}
	p := quickPlan()
	if *full {
		p = fullPlan()
	}
	p.Seed = *seed
	p.Boards = boards
	p.Web = *web
	p.ModelsDir = *modelsDir
	p.PaintWalks = paintWalks(p.ModelsDir)
	for _, s := range strings.Split(*sections, ",") {
		if !slices.Contains(allSections, s) && !slices.Contains(extraSections, s) {
			log.Fatalf("unknown section %q (want %s)", s, strings.Join(append(slices.Clone(allSections), extraSections...), ", "))
		}
		p.Sections = append(p.Sections, s)
	}
	if slices.Contains(p.Sections, secBuDDy) {
		// Each model may take its time twice, BuDDy's and the bdd
		// backend's.
		files, _ := benchmarks.ModelFiles(p.ModelsDir) // runBuDDy reports a bad directory
		p.Deadline += 2 * time.Duration(len(files)) * p.BuDDyTimeout
	}
	if slices.Contains(p.Sections, secModels) {
		// Each model, and the generated one, may take the baseline's
		// budget, CryptoMiniSat's and the BDD's compile budget.
		files, _ := benchmarks.ModelFiles(p.ModelsDir) // runModels reports a bad directory
		p.Deadline += time.Duration(len(files)+1) * (p.ModelBaselineBudget + cmsBudget + modelBDDCompile)
	}
	if slices.Contains(p.Sections, secSamples) {
		// Each model may take its time on each backend.
		files, _ := benchmarks.ModelFiles(p.ModelsDir) // runSamples reports a bad directory
		p.Deadline += 2 * time.Duration(len(files)) * p.SampleTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.Deadline)
	defer cancel()
	res, err := run(ctx, p)
	if err != nil {
		// Write what was measured: a partial report beats none.
		log.Printf("suite stopped: %v", err)
		res.Notes = append(res.Notes, fmt.Sprintf("The run stopped early: %v.", err))
	}
	if !*full {
		if res.Larger, err = larger(*out); err != nil {
			log.Printf("the report of the larger boards not shown: %v", err)
		}
	}
	if err := write(*out, res); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s in %v", filepath.Join(*out, "RESULTS.md"), res.Elapsed.Round(time.Second))
}

// defaultModelsDir is $MODELS_DIR, or else ../shared/models: the real
// models beside the repository.
func defaultModelsDir() string {
	if dir := os.Getenv("MODELS_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "shared", "models")
}

func load(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &res, nil
}

// larger returns the compiles of the report of the larger boards below
// the report directory out, if there is one (nil, nil if not): a quick
// report shows the node counts that it alone measures.
func larger(out string) (*LargerRun, error) {
	large, err := load(filepath.Join(out, LargerDir, "RESULTS.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &LargerRun{Date: large.Date, Machine: large.Machine, Compile: large.Compile}, nil
}

// write saves the figures as JSON, the plots and the report in dir.
func write(dir string, res *Results) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := os.WriteFile(filepath.Join(dir, "RESULTS.json"), b, 0o644); err != nil {
		return err
	}
	plots, err := writePlots(dir, res)
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "RESULTS.md"), []byte(markdown(res, plots)), 0o644)
}
