//go:build unix

package bdd

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestFIFOsAreNotOpened puts FIFOs, which an open for reading waits on
// until a writer comes, at the places of a space's file and of its kept
// answers: the compile neither waits nor fails (it compiles and saves the
// space over the FIFO), and a board served from its file alone is said to
// have none.
func TestFIFOsAreNotOpened(t *testing.T) {
	dir := t.TempDir()
	model := configuratortest.Model(t, 6, configurator.RowMajor)
	st := Options{Dir: dir}.store()
	for _, p := range []string{st.path(model), st.answersPath(model)} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, log := storeBackend(dir)
	start := time.Now()
	if _, err := b.Compile(ctx, model); err != nil {
		t.Fatalf("Compile beside a FIFO: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Compile beside a FIFO took %v", d)
	}
	if got := strings.Count(log.String(), "not a regular file"); got != 2 {
		t.Errorf("the log says %q; want both FIFOs named as not regular files", log)
	}
	if fi, err := os.Stat(st.path(model)); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the space's file after the compile: %v, %v; want the saved space", fi, err)
	}

	// 7×7 served from its file alone, a FIFO at its place.
	big := configuratortest.Model(t, 7, configurator.RowMajor)
	if err := syscall.Mkfifo(st.path(big), 0o644); err != nil {
		t.Fatal(err)
	}
	fileOnly := New(Options{Dir: dir, CompileMaxN: 6, MaxN: 7})
	if f := fileOnly.File(big); !f.Missing() {
		t.Errorf("File of a FIFO: %+v, want the file missing", f)
	}
	if _, err := fileOnly.Compile(ctx, big); !errors.Is(err, configurator.ErrTooLarge) {
		t.Errorf("Compile of a board served from a FIFO: %v, want ErrTooLarge", err)
	}
}
