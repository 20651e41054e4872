package benchmarks

import (
	"context"
	"flag"
	"testing"
)

var diskN = flag.Int("disk.n", 11, "board of BenchmarkLoad")

// TestDisk saves small spaces to a directory and loads them back: the
// load must be a load (not a compile) of the same diagram, and the file's
// size and the times must be real figures.
func TestDisk(t *testing.T) {
	for _, tt := range []struct{ n, nodes int }{{6, 129}, {8, 2451}, {10, 25945}} {
		dir := t.TempDir()
		ctx := context.Background()
		r, err := CompileToDisk(ctx, tt.n, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Nodes != tt.nodes || r.Solutions.String() != solutions[tt.n-1] {
			t.Errorf("N=%d: %d nodes, %v solutions; want %d, %s", tt.n, r.Nodes, r.Solutions, tt.nodes, solutions[tt.n-1])
		}
		if r.Compile <= 0 || r.Save <= 0 || r.Save > r.Compile || r.FileBytes < int64(tt.nodes) {
			t.Errorf("N=%d: compile %v, save %v, file %d bytes", tt.n, r.Compile, r.Save, r.FileBytes)
		}
		if _, err := CompileToDisk(ctx, tt.n, dir, 0); err == nil {
			t.Errorf("N=%d: a second CompileToDisk on the same directory did not say it loaded", tt.n)
		}
		sp, err := LoadFromDisk(ctx, &r, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		if sp.Source() == "" || r.Load <= 0 || r.LoadRatio() <= 0 {
			t.Errorf("N=%d: source %q, load %v", tt.n, sp.Source(), r.Load)
		}
		if _, err := LoadFromDisk(ctx, &DiskResult{N: tt.n, Nodes: r.Nodes}, t.TempDir(), 0); err == nil {
			t.Errorf("N=%d: a load from an empty directory did not fail", tt.n)
		}
	}
}

// BenchmarkLoad loads a compiled space from disk, as a restart does:
//
//	go test -run '^$' -bench Load ./benchmarks/ -disk.n 14
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	r, err := CompileToDisk(context.Background(), *diskN, dir, 0)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadFromDisk(context.Background(), &r, dir, 0); err != nil {
			b.Fatal(err)
		}
	}
	// After the loop, which resets what was reported before it.
	b.ReportMetric(float64(r.FileBytes), "file-B")
	b.ReportMetric(float64(r.Compile.Nanoseconds()), "compile-ns")
}
