// Package peakheap measures how far the Go heap grows while code runs, for
// benchmarks that report peak memory next to time.
//
// The Go runtime keeps no high-water mark of the heap, so a Watch samples
// runtime/metrics ("/memory/classes/heap/objects:bytes": live objects and
// dead ones not yet swept, which is what the process must hold) from a
// goroutine at a fixed interval. A peak shorter than the interval can be
// missed; reading the metric does not stop the world.
package peakheap

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

const heapObjects = "/memory/classes/heap/objects:bytes"

// Watch samples the heap from Start until Stop.
type Watch struct {
	base uint64
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

// Start collects garbage, takes the heap's size as the baseline and samples
// it every interval (a millisecond when interval <= 0) until Stop.
func Start(interval time.Duration) *Watch {
	if interval <= 0 {
		interval = time.Millisecond
	}
	runtime.GC()
	w := &Watch{stop: make(chan struct{})}
	w.base = sample()
	w.peak = w.base
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
	v := sample()
	w.mu.Lock()
	w.peak = max(w.peak, v)
	w.mu.Unlock()
}

// Stop ends the sampling and returns how many bytes the heap held at its
// largest beyond the baseline.
func (w *Watch) Stop() uint64 {
	w.observe()
	close(w.stop)
	w.done.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak - w.base
}

func sample() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
