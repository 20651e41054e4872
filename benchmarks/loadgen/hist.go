package loadgen

import (
	"math/bits"
	"time"
)

// subBits is the precision of the histogram: each power of two of
// nanoseconds is split into 1<<subBits buckets, so a bucket's width is at
// most 1/64 of its values (1.6 %).
const subBits = 6

// buckets is the number of buckets: exact ones below 1<<subBits ns, then
// 1<<subBits per power of two up to 2^63 ns.
const buckets = (64 - subBits + 1) << subBits

// histogram counts durations in log-linear buckets: fixed memory however
// long the run, percentiles within a bucket's width.
type histogram struct {
	counts [buckets]uint64
	n      uint64
	sum    time.Duration
	max    time.Duration
}

// bucketOf returns the bucket of a duration of v nanoseconds.
func bucketOf(v uint64) int {
	if v < 1<<subBits {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1
	return (shift+1)<<subBits + int(v>>shift) - 1<<subBits
}

// upper returns the largest duration, in nanoseconds, in bucket b.
func upper(b int) uint64 {
	if b < 1<<subBits {
		return uint64(b)
	}
	shift := b>>subBits - 1
	low := uint64(b&(1<<subBits-1)+1<<subBits) << shift
	return low + 1<<shift - 1
}

func (h *histogram) add(d time.Duration) {
	d = max(d, 0)
	h.counts[bucketOf(uint64(d))]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// quantile returns the upper bound of the bucket holding the q-th
// quantile (0 < q <= 1), at most the largest duration seen.
func (h *histogram) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.999999) // the ceiling, robust to rounding
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(upper(b)), h.max)
		}
	}
	return h.max
}

func (h *histogram) latency() Latency {
	if h.n == 0 {
		return Latency{}
	}
	return Latency{P50: h.quantile(0.50), P90: h.quantile(0.90), P99: h.quantile(0.99), Max: h.max, Mean: h.sum / time.Duration(h.n)}
}
