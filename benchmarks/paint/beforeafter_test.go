package paint

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBeforeAfter compares two servers already running, the page before a
// change (BA_BEFORE, its base address) and after it (BA_AFTER), walk by
// walk and run by run, alternating, so that both meet the same load; it
// logs each run's quantiles, the server's share, the answer's size, the
// load average and the trace's breakdown. BA_WALKS picks walks by the
// first word of their names ("8×8 14×14"), BA_RUNS the runs (3). Without BA_BEFORE it is skipped:
//
//	BA_BEFORE=http://127.0.0.1:18081 BA_AFTER=http://127.0.0.1:18082 \
//	  go test -run TestBeforeAfter -v -timeout 60m ./benchmarks/paint
func TestBeforeAfter(t *testing.T) {
	a, b := os.Getenv("BA_BEFORE"), os.Getenv("BA_AFTER")
	if a == "" {
		t.Skip("BA_BEFORE and BA_AFTER name no servers to compare")
	}
	walks := []Walk{
		{Name: "8×8 BDD", Path: "/?model=queens-8&backend=bdd", Clicks: 40, Warm: 3, Queens: 5, Traced: 10},
		{Name: "14×14 BDD", Path: "/?model=queens-14&backend=bdd", Clicks: 40, Warm: 3, Queens: 6, Traced: 10},
		{Name: "30×30 SAT", Path: "/?model=queens-30&backend=sat", Clicks: 30, Warm: 2, Queens: 8, Traced: 10},
	}
	if f := os.Getenv("BA_WALKS"); f != "" {
		var keep []Walk
		for _, w := range walks {
			if strings.Contains(f, strings.Fields(w.Name)[0]) {
				keep = append(keep, w)
			}
		}
		walks = keep
	}
	runs := 3
	if r, err := strconv.Atoi(os.Getenv("BA_RUNS")); err == nil && r > 0 {
		runs = r
	}
	for run := 0; run < runs; run++ {
		for _, w := range walks {
			for _, side := range []struct{ name, base string }{{"before", a}, {"after", b}} {
				load, _ := os.ReadFile("/proc/loadavg")
				rs, err := Run(context.Background(), side.base, []Walk{w}, Options{Seed: uint64(run + 1), Rest: 250 * time.Millisecond, Timeout: 2 * time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				r := rs[0]
				t.Logf("RESULT %s %s run %d: p50 %v p75 %v p99 %v server p50 %v bytes %d | load %s | %v", side.name, w.Name, run+1,
					Quantile(r.Totals, .5).Round(100*time.Microsecond), Quantile(r.Totals, .75).Round(100*time.Microsecond), Quantile(r.Totals, .99).Round(100*time.Microsecond),
					Quantile(r.Server, .5).Round(100*time.Microsecond), r.Bytes[0], strings.Join(strings.Fields(string(load))[:3], " "), r.Trace.Per())
			}
		}
	}
}
