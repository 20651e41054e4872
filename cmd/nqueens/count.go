package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime/debug"
	"time"

	"github.com/nqueens/configurator/benchmarks/peakmem"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// countResult is the JSON of nqueens count. Solutions is a decimal string
// (it outgrows 64 bits), null when the backend does not count. Nodes and Method are for the bdd backend only.
type countResult struct {
	N         int     `json:"n"`
	Backend   string  `json:"backend"`
	Order     string  `json:"order"`
	Method    string  `json:"method,omitempty"`
	Solutions *string `json:"solutions"`
	AtLeast   bool    `json:"at_least,omitempty"`
	Nodes     *int    `json:"nodes,omitempty"`
	CompileMS float64 `json:"compile_ms"`
	CountMS   float64 `json:"count_ms"`
	// AnswersMS is the time the bdd backend took to compute the answers
	// a space keeps beside its file in -cache-dir (see keepAnswers): 0
	// without a cache directory, next to nothing when the file already
	// held them.
	AnswersMS float64 `json:"answers_ms,omitempty"`
	// SaveMS is how long count waited, after the answers, for the end of
	// the compiled file's write, which runs beside them: 0 when nothing
	// was compiled into -cache-dir.
	SaveMS    float64 `json:"save_ms,omitempty"`
	PeakBytes uint64  `json:"peak_bytes"`
	// LoadedFrom is the file the bdd backend loaded the compiled space
	// from instead of compiling it (see -cache-dir); compile_ms is then
	// the time it took to read.
	LoadedFrom string `json:"loaded_from,omitempty"`
}

// gcPercent is the garbage collector's target (GOGC) while count runs the
// bdd backend.
const gcPercent = 25

// minMemoryLimit is the least memory limit count sets for the Go heap from
// -budget: a small budget bounds the diagram, not the process.
const minMemoryLimit = 256 << 20

// noder is a space that knows its node count (the bdd backend's).
type noder interface{ Nodes() int }

// precomputer is a space that computes the answers it keeps beside its
// compiled file (the bdd backend's).
type precomputer interface{ Precompute(context.Context) error }

// sourcer is a space that may have been loaded from a file instead of
// compiled (the bdd backend's).
type sourcer interface{ Source() string }

func runCount(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("count", "count the solutions of an N×N board, or the configurations of a -model", stdout)
	var b backendFlags
	b.register(fs, true, stderr)
	var mf modelFlags
	mf.register(fs, false)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if model, err := mf.active(fs); err != nil || model {
		if err != nil {
			return err
		}
		return countModel(ctx, &b, &mf, *asJSON, stdout)
	}
	if b.name == "bdd" {
		// A large compile's heap is a few huge arrays without pointers,
		// which the collector marks at almost no cost: collecting at 25 %
		// growth rather than 100 % keeps the garbage of the compile (the
		// buckets of states it has expanded, the builder's levels) from
		// raising the peak by about a gigabyte at 16×16.
		defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
		if b.budget > 0 {
			// The budget bounds the diagram and the compiler's work
			// space; the Go heap is held to it too.
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(max(int64(b.budget), minMemoryLimit)))
		}
	}
	mem := peakmem.Start(peakmem.Mapped, 2*time.Millisecond)
	// The compiled file is written while the answers are computed: count
	// waits for it before it ends, whatever happens.
	b.saveBehind = true
	defer b.wait()
	sp, compile, err := b.compile(ctx)
	if err != nil {
		mem.Stop()
		return err
	}
	// The compile's garbage (its buckets of states, a large board's
	// gigabytes) goes back to the system before the answers and the count
	// take their work space.
	debug.FreeOSMemory()
	// The kept answers first: on the large boards they hold the empty
	// board's analysis, which the count then reads instead of sweeping
	// the whole diagram again.
	answers, answersErr := b.keepAnswers(ctx, sp)
	if answersErr != nil {
		answersErr = fmt.Errorf("count %d-queens: the answers kept beside the compiled file, cut short (what was computed is saved; run the command again to finish): %w", b.n, answersErr)
	}
	start := time.Now()
	a, err := sp.Analyze(ctx, nil)
	count := time.Since(start)
	if errors.Is(err, configurator.ErrNoSolution) {
		// A board without solutions (N = 2, 3): even the empty placement
		// is refused.
		a, err = &configurator.Analysis{N: b.n, Solutions: new(big.Int)}, nil
	}
	if err != nil {
		mem.Stop()
		if answersErr != nil {
			return answersErr // cut short: the count was too
		}
		return fmt.Errorf("count %d-queens: %w", b.n, err)
	}
	save := b.wait()
	peak := mem.Stop()
	r := countResult{
		N: b.n, Backend: b.name, Order: sp.Model().Order().String(),
		AtLeast:   a.AtLeast,
		CompileMS: millis(compile), CountMS: millis(count), AnswersMS: millis(answers), SaveMS: millis(save), PeakBytes: peak,
	}
	solutions := "not counted by this backend (sat counts boards up to 10×10)"
	if a.Solutions != nil {
		solutions = a.Solutions.String()
		r.Solutions = &solutions
	}
	if b.name == "bdd" {
		r.Method = b.method
	}
	if nd, ok := sp.(noder); ok {
		nodes := nd.Nodes()
		r.Nodes = &nodes
	}
	if src, ok := sp.(sourcer); ok {
		r.LoadedFrom = src.Source()
	}
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(r); err != nil {
			return err
		}
		return answersErr
	}
	if r.AtLeast {
		solutions = "at least " + solutions
	}
	lines := [][2]string{
		{"board", fmt.Sprintf("%d×%d", b.n, b.n)},
		{"backend", b.name},
		{"order", r.Order},
	}
	if r.Method != "" {
		lines = append(lines, [2]string{"method", r.Method})
	}
	lines = append(lines, [2]string{"solutions", solutions})
	if r.Nodes != nil {
		lines = append(lines, [2]string{"nodes", fmt.Sprint(*r.Nodes)})
	}
	lines = append(lines,
		[2]string{"compile", compileLine(compile, r.LoadedFrom)},
		[2]string{"count", human(count)},
	)
	switch {
	case answersErr != nil:
		lines = append(lines, [2]string{"answers", human(answers) + ", cut short"})
	case answers > 0:
		lines = append(lines, [2]string{"answers", human(answers) + " (the kept answers, saved beside the compiled file)"})
	}
	if save > time.Millisecond {
		lines = append(lines, [2]string{"save", human(save) + " more (the compiled file, written while the answers were computed)"})
	}
	lines = append(lines,
		[2]string{"peak memory", bytesize.Format(int64(peak)) + " (Go runtime, whole process)"},
	)
	for _, l := range lines {
		if _, err := fmt.Fprintf(stdout, "%-12s %s\n", l[0], l[1]); err != nil {
			return err
		}
	}
	return answersErr
}

// compileLine says how long the compile took, or the load when the space
// came from a file.
func compileLine(d time.Duration, loadedFrom string) string {
	if loadedFrom == "" {
		return human(d)
	}
	return human(d) + " (loaded from " + loadedFrom + ")"
}

// keepAnswers has a bdd space kept in a cache directory compute the
// answers it keeps beside its file (the analyses and heat maps of the
// boards of one queen, and on the large diagrams those of two queens), on
// every core, so that a server that loads the file starts with them
// instead of computing them while it serves. It returns how
// long that took (0 without a cache directory, next to nothing when the
// file already held them), also when ctx ended first.
func (b *backendFlags) keepAnswers(ctx context.Context, sp configurator.Board) (time.Duration, error) {
	p, ok := sp.(precomputer)
	if !ok || b.name != "bdd" || b.cacheDir == "" || b.cacheDir == "off" {
		return 0, nil
	}
	start := time.Now()
	if err := p.Precompute(ctx); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
		return time.Since(start), err
	}
	return time.Since(start), nil
}
