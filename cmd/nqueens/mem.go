package main

import (
	"runtime/metrics"
	"sync"
	"time"
)

// peakMemory samples the memory the Go runtime holds from the operating
// system while work runs, and keeps the largest figure.
//
// The figure is runtime/metrics' /memory/classes/total:bytes (every byte
// the runtime has mapped: heap, stacks, metadata) less
// /memory/classes/heap/released:bytes (heap pages already returned to the
// operating system). It is close to the resident set of a pure-Go process.
// It is sampled every 2 ms and once more at the end, so a spike shorter
// than that can be missed; it covers the whole process, which in tests
// includes the test binary.
type peakMemory struct {
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
	peak uint64
}

// startPeakMemory begins sampling.
func startPeakMemory() *peakMemory {
	p := &peakMemory{stop: make(chan struct{})}
	p.sample()
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.sample()
			}
		}
	}()
	return p
}

func (p *peakMemory) sample() {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	v := s[0].Value.Uint64() - s[1].Value.Uint64()
	p.mu.Lock()
	p.peak = max(p.peak, v)
	p.mu.Unlock()
}

// Stop ends sampling and returns the peak in bytes.
func (p *peakMemory) Stop() uint64 {
	close(p.stop)
	p.done.Wait()
	p.sample()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.peak
}
