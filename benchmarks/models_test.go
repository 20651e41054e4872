package benchmarks

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/internal/launch"
	"github.com/nqueens/configurator/internal/web/server"
)

// MeasureModel on a bundled example through a real server in this
// process: the model's shape, every step answered by both backends (which
// agree), the baseline replaying every step, and a backend of boards only
// noted as refusing.
func TestMeasureModel(t *testing.T) {
	ctx := context.Background()
	cfg := server.DefaultConfig()
	cfg.Guard.RequestDeadline = time.Minute
	l, err := launch.InProcess(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)),
		server.Engine{Backend: sat.New(sat.Options{}), Deadline: time.Minute, Title: "SAT"},
		server.Engine{Backend: plain.New(plain.Options{}), Deadline: time.Minute, Title: "SAT-PLAIN"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	ex, _ := examples.Lookup("car")
	path := filepath.Join(t.TempDir(), ex.File)
	if err := os.WriteFile(path, ex.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := ModelFiles(filepath.Dir(path))
	if err != nil || len(files) != 1 || files[0] != path {
		t.Fatalf("ModelFiles: %q, %v", files, err)
	}
	opt := ModelOptions{Backends: []string{"sat", "sat-plain", "bdd"}, Baseline: "sat-plain", BaselineBudget: time.Minute,
		Walks: 2, Steps: 4, Seed: 1, Timeout: time.Minute}
	r, err := MeasureModel(ctx, l.URL(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if r.File != "car.uvl" || r.Name != "car" || r.Format != "uvl" || r.Features != 32 || r.Constraints != 8 || r.Load == "" {
		t.Errorf("the model: %+v", r)
	}
	if len(r.Backends) != 3 || r.Backends[2].Refused == "" {
		t.Fatalf("backends: %+v; want bdd refused (no such backend here)", r.Backends)
	}
	for _, b := range r.Backends[:2] {
		if b.Refused != "" || b.Steps.Count != 8 || b.ForcedOn != 5 || b.ForcedOff != 0 || b.Configurations != "1000" || !b.AtLeast {
			t.Errorf("%s: %+v; want 8 steps, 5 forced on, at least 1000 configurations", b.Backend, b)
		}
	}
	if r.Disagreements != 0 {
		t.Errorf("%d disagreements between sat and sat-plain", r.Disagreements)
	}
	if b := r.Baseline; b == nil || b.Steps.Count != 8 || b.Cut != "" {
		t.Errorf("the baseline: %+v; want every step", b)
	}

	// A budget too small for a single answer cuts the baseline short.
	opt.BaselineBudget = time.Nanosecond
	r, err = MeasureModel(ctx, l.URL(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Baseline; b == nil || b.Steps.Count != 0 || b.Cut == "" {
		t.Errorf("the baseline within a nanosecond: %+v", b)
	}
}

// TestModelFiles lists the model files of a directory tree, sorted, every
// format a model is opened from and nothing else.
func TestModelFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"uvl/a.uvl", "dimacs/b.dimacs", "c.CNF", "featureide/d.xml", "notes.txt", "README.md"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ModelFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{"c.CNF", "dimacs/b.dimacs", "featureide/d.xml", "uvl/a.uvl"} {
		want = append(want, filepath.Join(dir, name))
	}
	if !slices.Equal(got, want) {
		t.Errorf("ModelFiles = %q, want %q", got, want)
	}
}
