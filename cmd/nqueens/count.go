package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
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
	PeakBytes uint64  `json:"peak_bytes"`
}

// noder is a space that knows its node count (the bdd backend's).
type noder interface{ Nodes() int }

func runCount(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("count", "count the solutions of an N×N board", stdout)
	var b backendFlags
	b.register(fs, true)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	mem := peakmem.Start(peakmem.Mapped, 2*time.Millisecond)
	sp, compile, err := b.compile(ctx)
	if err != nil {
		mem.Stop()
		return err
	}
	start := time.Now()
	a, err := sp.Analyze(ctx, nil)
	count := time.Since(start)
	peak := mem.Stop()
	if errors.Is(err, configurator.ErrNoSolution) {
		// A board without solutions (N = 2, 3): even the empty placement
		// is refused.
		a, err = &configurator.Analysis{N: b.n, Solutions: new(big.Int)}, nil
	}
	if err != nil {
		return fmt.Errorf("count %d-queens: %w", b.n, err)
	}
	r := countResult{
		N: b.n, Backend: b.name, Order: sp.Model().Order().String(),
		AtLeast:   a.AtLeast,
		CompileMS: millis(compile), CountMS: millis(count), PeakBytes: peak,
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
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(r)
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
		[2]string{"compile", human(compile)},
		[2]string{"count", human(count)},
		[2]string{"peak memory", bytesize.Format(int64(peak)) + " (Go runtime, whole process)"},
	)
	for _, l := range lines {
		if _, err := fmt.Fprintf(stdout, "%-12s %s\n", l[0], l[1]); err != nil {
			return err
		}
	}
	return nil
}
