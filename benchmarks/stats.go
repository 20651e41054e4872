package benchmarks

import (
	"slices"
	"time"
)

// Percentile returns the p-th percentile (0 < p <= 100) of ds by the
// nearest-rank method: the smallest sample that at least p percent of the
// samples do not exceed. It returns 0 for no samples.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(float64(len(s))*p/100 + 0.999999)
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

// Latency summarises step times.
type Latency struct {
	Count    int
	P50, P99 time.Duration
	Max      time.Duration
}

// Summarize returns the median, 99th percentile and maximum of ds.
func Summarize(ds []time.Duration) Latency {
	return Latency{Count: len(ds), P50: Percentile(ds, 50), P99: Percentile(ds, 99), Max: Percentile(ds, 100)}
}
