//go:build unix

package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A regular file reads, bounded; a FIFO and a directory are refused at
// once, the FIFO without a writer ever coming; a missing file says so.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if b, err := ReadFile(file, 100); err != nil || string(b) != "0123456789" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	if b, err := ReadFile(file, 4); err != nil || string(b) != "01234" {
		t.Errorf("a regular file past the limit: %q, %v; want limit+1 bytes", b, err)
	}
	for _, p := range []string{fifo, dir} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(p, 100); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("%s: %v, want ErrNotRegular", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still waiting after 5s", p)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "none"), 100); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}
