// Package peakmem measures how far a memory figure of the Go runtime grows
// while code runs: the heap, for benchmarks that report peak memory next to
// time, or all the runtime holds from the operating system, for the CLI.
//
// The Go runtime keeps no high-water mark, so a Watch reads its figure from
// a goroutine at a fixed interval, and once more when it stops. A peak
// shorter than the interval can be missed; reading runtime/metrics does not
// stop the world.
package peakmem

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Heap reads /memory/classes/heap/objects:bytes: live heap objects and dead
// ones not yet swept, which is what the process must hold.
func Heap() uint64 {
	v := read("/memory/classes/heap/objects:bytes")
	return v[0]
}

// Mapped reads /memory/classes/total:bytes (every byte the runtime has
// mapped: heap, stacks, metadata) less /memory/classes/heap/released:bytes
// (heap pages already returned to the operating system): close to the
// resident set of a pure-Go process, the whole process's.
func Mapped() uint64 {
	v := read("/memory/classes/total:bytes", "/memory/classes/heap/released:bytes")
	return v[0] - min(v[0], v[1])
}

// read reads the named metrics at once; one the runtime lacks reads 0.
func read(names ...string) []uint64 {
	s := make([]metrics.Sample, len(names))
	for i, name := range names {
		s[i].Name = name
	}
	metrics.Read(s)
	v := make([]uint64, len(s))
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return v
}

// Watch reads a figure from Start (or StartHeap) until Stop.
type Watch struct {
	figure func() uint64
	base   uint64
	stop   chan struct{}
	done   sync.WaitGroup
	mu     sync.Mutex
	peak   uint64
}

// Start reads figure now and every interval (a millisecond when interval
// <= 0) until Stop, which returns the largest reading.
func Start(figure func() uint64, interval time.Duration) *Watch {
	return start(figure, 0, interval)
}

// StartHeap collects garbage, takes the heap's size (Heap) as the baseline
// and reads it every interval until Stop, which returns how many bytes the
// heap held at its largest beyond the baseline.
func StartHeap(interval time.Duration) *Watch {
	runtime.GC()
	return start(Heap, Heap(), interval)
}

func start(figure func() uint64, base uint64, interval time.Duration) *Watch {
	if interval <= 0 {
		interval = time.Millisecond
	}
	w := &Watch{figure: figure, base: base, stop: make(chan struct{}), peak: base}
	w.observe()
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.observe()
			}
		}
	}()
	return w
}

func (w *Watch) observe() {
	v := w.figure()
	w.mu.Lock()
	w.peak = max(w.peak, v)
	w.mu.Unlock()
}

// Stop ends the reading and returns the peak: the largest reading, less
// the baseline for StartHeap.
func (w *Watch) Stop() uint64 {
	close(w.stop)
	w.done.Wait()
	w.observe()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak - w.base
}
