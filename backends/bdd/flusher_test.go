package bdd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestFlusherWritesEveryByteInOrder: whatever the sizes of the writes, and
// with a sync every few buffers or none, the file holds exactly what was
// written.
func TestFlusherWritesEveryByteInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		size, chunk int
		every       int64
	}{
		{0, 1, 1 << 20},
		{1, 1, 1 << 20},
		{5000, 1, 1 << 20},
		{flusherBuf - 1, 65521, 1 << 20},
		{flusherBuf, 1 << 20, 1 << 20},
		{3*flusherBuf + 5, 65521, flusherBuf},
		{5*flusherBuf + 7, 65536, 2 * flusherBuf},
		{5*flusherBuf + 7, 3 * flusherBuf, 1 << 40},
	} {
		t.Run(fmt.Sprintf("%d bytes by %d, sync every %d", tc.size, tc.chunk, tc.every), func(t *testing.T) {
			want := make([]byte, tc.size+8)
			for i := 0; i < tc.size; i += 8 {
				binary.LittleEndian.PutUint64(want[i:], rng.Uint64())
			}
			want = want[:tc.size]
			path := filepath.Join(t.TempDir(), "f")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w := newFlusher(f, tc.every)
			for p := want; len(p) > 0; {
				k := min(tc.chunk, len(p))
				if n, err := w.Write(p[:k]); n != k || err != nil {
					t.Fatalf("Write of %d bytes: %d, %v", k, n, err)
				}
				p = p[k:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the file has %d bytes, not the %d written (or other ones)", len(got), len(want))
			}
		})
	}
}

// TestFlusherReportsWriteErrors: a file that cannot be written fails the
// writes that follow the error, and Close, whether the flusher writes
// straight through (a first write of at most flusherBuf bytes) or from its
// goroutine.
func TestFlusherReportsWriteErrors(t *testing.T) {
	for _, size := range []int{flusherBuf, flusherBuf + 1} {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path) // read-only: every write fails
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := newFlusher(f, 1<<20)
		chunk := make([]byte, size)
		var werr error
		for range 2 * flusherBufs { // the buffers come back once written, or failed
			if _, werr = w.Write(chunk); werr != nil {
				break
			}
		}
		if werr == nil {
			t.Errorf("writes of %d bytes: none failed after eight to a read-only file", size)
		}
		if err := w.Close(); err == nil {
			t.Errorf("writes of %d bytes: Close of a flusher to a read-only file: no error", size)
		}
	}
}
