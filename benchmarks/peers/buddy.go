package peers

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// buddySource is cnf_buddy, the C program that compiles a CNF file with
// BuDDy 2.4: its clauses sorted by their lowest variable and conjoined in
// the file's variable order, with BuDDy's automatic sifting on.
//
//go:embed buddy/cnf_buddy.c
var buddySource []byte

// BuildBuDDy writes cnf_buddy into dir and compiles it with the system's C
// compiler against BuDDy (Debian's libbdd-dev), returning the program's
// path.
func BuildBuDDy(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "cnf_buddy.c")
	if err := os.WriteFile(src, buddySource, 0o644); err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "cnf_buddy")
	out, err := exec.CommandContext(ctx, "cc", "-O2", "-o", exe, src, "-lbdd", "-lm").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build cnf_buddy (needs cc and libbdd-dev): %w: %s", err, bytes.TrimSpace(out))
	}
	return exe, nil
}

// BuDDyResult is one compile of a CNF file by cnf_buddy.
type BuDDyResult struct {
	Vars, Clauses, Nodes int
	// CountLog10 is the base-10 logarithm of the configurations, to four
	// places.
	CountLog10 float64
	// Elapsed is the compile's own time, the file's reading apart;
	// PeakRSS the process's peak resident memory.
	Elapsed time.Duration
	PeakRSS uint64
}

// ErrBuDDyTimeout reports a compile that BuDDy did not finish in its time.
var ErrBuDDyTimeout = errors.New("BuDDy did not finish in time")

// RunBuDDy compiles the CNF file path with the program BuildBuDDy built,
// killing it after timeout (ErrBuDDyTimeout) or, past BuDDy's node limit,
// reporting its error.
func RunBuDDy(ctx context.Context, exe, path string, timeout time.Duration) (BuDDyResult, error) {
	var r BuDDyResult
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSS = uint64(ru.Maxrss) << 10 // kilobytes on Linux
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s: %w (%v)", filepath.Base(path), ErrBuDDyTimeout, timeout)
	}
	var line struct {
		Vars, Clauses, Nodes int
		CountLog10           float64 `json:"count_log10"`
		Seconds              float64
		Error                string
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &line); jerr != nil {
		return r, fmt.Errorf("%s: BuDDy: %v %s", filepath.Base(path), err, bytes.TrimSpace(stderr.Bytes()))
	}
	if line.Error != "" {
		return r, fmt.Errorf("%s: BuDDy: %s", filepath.Base(path), line.Error)
	}
	r.Vars, r.Clauses, r.Nodes, r.CountLog10 = line.Vars, line.Clauses, line.Nodes, line.CountLog10
	r.Elapsed = time.Duration(line.Seconds * float64(time.Second))
	return r, nil
}
