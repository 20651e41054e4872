package peakheap

import (
	"testing"
	"time"
)

var sink []byte

func TestWatchSeesAnAllocation(t *testing.T) {
	const size = 64 << 20
	w := Start(time.Millisecond)
	sink = make([]byte, size)
	for i := range sink {
		sink[i] = byte(i)
	}
	time.Sleep(5 * time.Millisecond)
	peak := w.Stop()
	sink = nil
	if peak < size || peak > 2*size {
		t.Errorf("peak %d bytes after allocating %d", peak, size)
	}
}

func TestWatchOfNothingIsSmall(t *testing.T) {
	w := Start(time.Millisecond)
	time.Sleep(3 * time.Millisecond)
	if peak := w.Stop(); peak > 1<<20 {
		t.Errorf("peak %d bytes while nothing ran", peak)
	}
}
