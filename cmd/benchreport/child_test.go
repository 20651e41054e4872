package main

import (
	"context"
	"log"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be the child process of compileInChild,
// as the report's own binary is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childCommand {
		if err := childMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestCompileInChild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	lim := childLimits{Budget: 1 << 30, MaxRSS: 2 << 30, Timeout: time.Minute}
	c, err := compileInChild(ctx, 10, dir, lim)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Disk; d.N != 10 || d.Nodes != 25945 || d.Solutions.Int64() != 724 || d.FileBytes == 0 || d.Compile <= d.Save {
		t.Errorf("child's answer: %+v", d)
	}
	// Its own peak: a Go process that compiled 10-queens holds megabytes,
	// not the test's.
	if c.PeakRSS < 4<<20 || c.PeakRSS > 512<<20 || c.Elapsed <= 0 {
		t.Errorf("child's peak RSS %d, elapsed %v", c.PeakRSS, c.Elapsed)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Errorf("the cache directory holds %v (%v), want the one space", entries, err)
	}

	// The child's own errors, its memory cap and its time limit each say
	// what happened.
	for _, tt := range []struct {
		n    int
		lim  childLimits
		want string
	}{
		{10, childLimits{Budget: 64 << 10, MaxRSS: 2 << 30, Timeout: time.Minute}, "budget 64 KiB"},
		{13, childLimits{Budget: 1 << 30, MaxRSS: 1 << 20, Timeout: time.Minute}, "past its cap of 1 MiB"},
		{13, childLimits{Budget: 1 << 30, MaxRSS: 2 << 30, Timeout: 10 * time.Millisecond}, "stopped after"},
	} {
		_, err := compileInChild(ctx, tt.n, t.TempDir(), tt.lim)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("N=%d, %+v: %v, want an error saying %q", tt.n, tt.lim, err, tt.want)
		}
	}
}
