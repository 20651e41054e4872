package bdd

import (
	"os"
	"sync/atomic"
)

// flusher is a writer to a file that writes and syncs it from a goroutine
// of its own, syncing every `every` bytes: so the flush of a large file to
// the disk goes on while the rest of the file is made, and the sync that
// ends the write (see store.write) flushes only its last part. On a
// virtual machine a sync takes about as long as the bytes took to write
// (seconds for the gigabytes of a 16×16 diagram), however early the
// kernel started writing them back. A file of at most flusherBuf bytes
// (the kept answers, the small boards) is written straight through; past
// that, a flusher copies what it is given into flusherBufs buffers of
// flusherBuf bytes that take turns.
type flusher struct {
	f       *os.File
	every   int64
	written int64 // straight through, before the goroutine starts
	buf     []byte
	full    chan []byte // to the goroutine, in order; nil before it starts
	free    chan []byte // back from it
	done    chan struct{}
	err     atomic.Pointer[error] // the first error of the writes and syncs
	closed  bool
}

const (
	flusherBuf  = 4 << 20
	flusherBufs = 4
	// flushEvery is how many bytes a store's flusher writes between two
	// syncs.
	flushEvery = 256 << 20
)

// newFlusher returns a flusher to f that syncs every every bytes. Close
// must follow, and no Write after it.
func newFlusher(f *os.File, every int64) *flusher { return &flusher{f: f, every: every} }

// start makes the buffers and starts the goroutine.
func (w *flusher) start() {
	w.buf = make([]byte, 0, flusherBuf)
	w.full, w.free, w.done = make(chan []byte, flusherBufs), make(chan []byte, flusherBufs), make(chan struct{})
	for range flusherBufs - 1 {
		w.free <- make([]byte, 0, flusherBuf)
	}
	go w.run()
}

// run writes the buffers in order, syncing every w.every bytes, until
// full is closed; after an error it only hands the buffers back.
func (w *flusher) run() {
	defer close(w.done)
	var written, synced int64
	for b := range w.full {
		if w.err.Load() == nil {
			n, err := w.f.Write(b)
			written += int64(n)
			if err == nil && written-synced >= w.every {
				err = w.f.Sync()
				synced = written
			}
			if err != nil {
				w.err.Store(&err)
			}
		}
		w.free <- b[:0]
	}
}

// Write copies p into the buffers. It returns the first error of the
// writes and syncs so far, if any, instead.
func (w *flusher) Write(p []byte) (int, error) {
	if err := w.err.Load(); err != nil {
		return 0, *err
	}
	if w.full == nil {
		if w.written+int64(len(p)) <= flusherBuf {
			n, err := w.f.Write(p)
			w.written += int64(n)
			if err != nil {
				w.err.Store(&err)
			}
			return n, err
		}
		w.start()
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf, p = w.buf[:len(w.buf)+k], p[k:]
		if len(w.buf) == cap(w.buf) {
			w.full <- w.buf
			w.buf = <-w.free
		}
	}
	return n, nil
}

// Close writes what is left, waits for the goroutine, and returns the
// first error of the writes and syncs. It neither closes the file nor
// syncs what came after the last sync.
func (w *flusher) Close() error {
	if !w.closed && w.full != nil {
		w.closed = true
		if len(w.buf) > 0 {
			w.full <- w.buf
		}
		close(w.full)
		<-w.done
	}
	if err := w.err.Load(); err != nil {
		return *err
	}
	return nil
}
