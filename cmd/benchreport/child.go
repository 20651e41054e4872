package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nqueens/configurator/benchmarks"
)

// childCommand is the first argument that makes the program a child
// process of the suite: it compiles one board into a cache directory
// (benchmarks.CompileToDisk) and writes the figures as JSON to its
// standard output. The largest boards are compiled in a child so that the
// peak resident memory measured is the compile's own, not that of the
// suite around it, and so that a compile beyond its memory cap can be
// killed without losing the run.
const childCommand = "compile-child"

// childMain is the child process: `report compile-child -n 16 -dir D -budget B`.
func childMain(args []string) error {
	fs := flag.NewFlagSet(childCommand, flag.ContinueOnError)
	n := fs.Int("n", 0, "board size")
	dir := fs.String("dir", "", "cache directory to write the space to")
	budget := fs.Int64("budget", 0, "bytes of the bdd backend's budget")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *n < 1 || *dir == "" {
		return fmt.Errorf("%s: -n and -dir are required", childCommand)
	}
	// The child's heap is held as nqueens count holds its own (see
	// cmd/nqueens/count.go): the compile's garbage, gigabytes of layers of
	// states at 16×16, collected at 25 % growth rather than 100 %, and the
	// heap kept to the budget, so that its peak is the compile's and not
	// the collector's, which at the default growth would nearly double it
	// and pass the child's resident cap.
	debug.SetGCPercent(25)
	if *budget > 0 {
		debug.SetMemoryLimit(*budget)
	}
	r, err := benchmarks.CompileToDisk(context.Background(), *n, *dir, *budget)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// childLimits bound a compile in a child process.
type childLimits struct {
	// Budget is the bdd backend's budget (bdd.Options.Budget).
	Budget int64
	// MaxRSS is the resident memory at which the child is killed, as a
	// guard beyond the budget: the machine has no swap.
	MaxRSS uint64
	// Timeout is the longest the child may take.
	Timeout time.Duration
}

// childResult is a compile in a child process: its figures, its own peak
// resident memory and how long the process ran.
type childResult struct {
	Disk    benchmarks.DiskResult
	PeakRSS uint64
	Elapsed time.Duration
}

// compileInChild runs CompileToDisk on the n×n board in a child process
// (this program, started again with childCommand) within the limits.
// An error says plainly why the child failed: killed at its memory cap,
// out of time, or its own error; the result then still has the peak
// resident memory and the time the child reached.
func compileInChild(ctx context.Context, n int, dir string, lim childLimits) (childResult, error) {
	var res childResult
	self, err := os.Executable()
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, childCommand, "-n", strconv.Itoa(n), "-dir", dir, "-budget", strconv.FormatInt(lim.Budget, 10))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, err
	}
	// The guard reads the child's resident set five times a second and
	// kills it past the cap.
	var killedAt atomic.Uint64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		pid := strconv.Itoa(cmd.Process.Pid)
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if rss, err := benchmarks.ProcStatus(pid, "VmRSS"); err == nil && lim.MaxRSS > 0 && rss > lim.MaxRSS {
					killedAt.Store(rss)
					cmd.Process.Kill()
					return
				}
			}
		}
	}()
	err = cmd.Wait()
	close(done)
	res.Elapsed = time.Since(start)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.PeakRSS = uint64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	switch {
	case killedAt.Load() > 0:
		return res, fmt.Errorf("compile %d-queens in a child process: killed after %s at %s resident, past its cap of %s (budget %s)",
			n, fmtDur(res.Elapsed), bytesIEC(killedAt.Load()), bytesIEC(lim.MaxRSS), bytesIEC(uint64(lim.Budget)))
	case ctx.Err() != nil && err != nil:
		return res, fmt.Errorf("compile %d-queens in a child process: stopped after %s (limit %s): %w", n, fmtDur(res.Elapsed), fmtDur(lim.Timeout), ctx.Err())
	case err != nil:
		return res, fmt.Errorf("compile %d-queens in a child process (budget %s): %w: %s", n, bytesIEC(uint64(lim.Budget)), err, lastLine(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), &res.Disk); err != nil {
		return res, fmt.Errorf("compile %d-queens in a child process: its answer: %w", n, err)
	}
	if res.Disk.N != n {
		return res, errors.New("compile in a child process: the answer is of another board")
	}
	return res, nil
}

// lastLine is the last non-empty line of a program's output: its error.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
