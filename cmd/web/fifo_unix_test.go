//go:build unix

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestCacheDirFIFOAndStaleTemp starts the server on a cache directory
// where a FIFO sits at the place of the 8×8 space's file (an open for
// reading would wait on it for a writer) and a temporary file of a write
// a crash cut short lies beside it: the server removes the temporary
// file at start, answers the 8×8 board at once (compiled, the FIFO logged
// as not a regular file), and exits promptly when stopped.
func TestCacheDirFIFOAndStaleTemp(t *testing.T) {
	dir := t.TempDir()
	model, err := configurator.New(8, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	b := bdd.New(bdd.Options{Dir: dir})
	if _, err := b.Compile(context.Background(), model); err != nil {
		t.Fatal(err)
	}
	path := b.File(model).Path
	if path == "" {
		t.Fatal("the compile saved no file")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	stale := path + ".tmp-12345"
	if err := os.WriteFile(stale, []byte("the start of a space cut short"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-time.Hour)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var logs configuratortest.Log
	addr, _, exited := startServer(t, ctx, &logs, "-cache-dir", dir, "-memory", "2G")
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the stale temporary file is still there after the start")
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Post("http://"+addr+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":8}`))
	if err != nil {
		t.Fatalf("8×8 beside a FIFO: %v", err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), `"solutions":"92"`) {
		t.Errorf("8×8 beside a FIFO: %d %.200s", res.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "not a regular file") {
		t.Errorf("the log does not name the FIFO:\n%s", logs.String())
	}
	start := time.Now()
	stopServer(t, cancel, exited)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the server took %v to stop", d)
	}
}
