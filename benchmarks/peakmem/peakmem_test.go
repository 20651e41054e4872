package peakmem

import (
	"testing"
	"time"
)

var sink []byte

// allocate fills size bytes and holds them a few intervals.
func allocate(size int) {
	sink = make([]byte, size)
	for i := range sink {
		sink[i] = byte(i)
	}
	time.Sleep(5 * time.Millisecond)
}

func TestWatchSeesAnAllocation(t *testing.T) {
	const size = 64 << 20
	tests := []struct {
		name     string
		start    func() *Watch
		min, max uint64
	}{
		{"heap beyond the baseline", func() *Watch { return StartHeap(time.Millisecond) }, size, 2 * size},
		{"mapped, the whole process", func() *Watch { return Start(Mapped, 2*time.Millisecond) }, size, 1 << 40},
	}
	for _, tt := range tests {
		w := tt.start()
		allocate(size)
		peak := w.Stop()
		sink = nil
		if peak < tt.min || peak > tt.max {
			t.Errorf("%s: peak %d bytes after allocating %d", tt.name, peak, size)
		}
	}
}

func TestWatchOfNothingIsSmall(t *testing.T) {
	w := StartHeap(time.Millisecond)
	time.Sleep(3 * time.Millisecond)
	if peak := w.Stop(); peak > 1<<20 {
		t.Errorf("peak %d bytes while nothing ran", peak)
	}
}
