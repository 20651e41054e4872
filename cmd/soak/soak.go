package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks/loadgen"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/launch"
	"github.com/nqueens/configurator/internal/web/server"
)

// config is one soak.
type config struct {
	Server   string        // the server binary
	Duration time.Duration // of the measured run
	// Requests, when set, makes the measured run last until that many
	// requests are sent, Duration being then its longest: a run counted
	// in requests does the same work however loaded the machine.
	Requests int64
	Warmup   time.Duration // of the run before the baseline is taken
	// WarmupRequests, when set, makes the warm-up last until that many
	// requests are answered, Warmup being then its longest: on a busy
	// machine a warm-up counted in seconds may end before the server is
	// in its steady state (every SAT space recycled once).
	WarmupRequests int64
	Clients        int
	BDDMaxN        int
	SATMaxN        int
	Memory         string // the server's -memory, to which it sizes itself and its bound; "": what the machine gives
	Seed           uint64
	Tolerance      float64       // of goroutines and heap against the baseline: 0.10
	Settle         time.Duration // how long the server gets to return to its baseline after the run
	Timeout        time.Duration // of one request: the server's deadline and a margin
	MaxRSS         int64         // bound of the server's peak resident memory (VmHWM), in bytes; 0: none; autoRSS: memoryBound
	ServerLog      io.Writer     // a copy of the server's log; nil: none
	Profiles       string        // directory for heap profiles before and after; "": none
	Progress       io.Writer     // where the soak says what it is doing; nil: nowhere
	Extra          []string      // more flags for the server
}

// report is what a soak found.
type report struct {
	cfg                  config
	run                  loadgen.Result
	before, after, peak  server.Stats
	warmup               loadgen.Result
	precompile           time.Duration
	peakRSS              uint64 // the server's peak resident memory over its whole life (VmHWM)
	maxRSS               int64  // its bound (cfg.MaxRSS, or memoryBound's); 0: none
	stopErr              error
	logWarnings, logErrs int
	firstErrs            []string
	failures             []string // why the soak failed; empty when it passed
}

// passed reports whether the server stayed healthy.
func (r *report) passed() bool { return len(r.failures) == 0 }

// serverArgs are the server's flags for a soak beyond its addresses (the
// launcher picks free loopback ports and starts the debug listener): the
// soak's limits and the memory the server sizes itself to, a SAT queue
// twice as long as the number of clients, and no disk cache (-cache-dir
// off), so that the soak compiles what it measures, whatever another
// server left in the user's cache, and its memory does not depend on it; a
// -cache-dir among the extra flags wins.
// The clients share one loopback address, which the server's default
// per-client limits leave free (-loopback-rate, -loopback-concurrent).
// The queue's refusals (503 busy) are tested on their own; here they would only say that more work
// than clients waits for the solver, which happens when every client waits
// for it: the compile of a recycled SAT space (see the server's -recycle)
// counts its solutions through the same queue.
func (c config) serverArgs() []string {
	args := []string{
		"-bdd-max-n", strconv.Itoa(c.BDDMaxN), "-sat-max-n", strconv.Itoa(c.SATMaxN),
		"-sat-queue", strconv.Itoa(2 * max(c.Clients, 1)),
		"-cache-dir", "off",
	}
	if c.Memory != "" {
		args = append(args, "-memory", c.Memory)
	}
	return append(args, c.Extra...)
}

// length says how long the measured run lasts.
func (c config) length() string {
	if c.Requests > 0 {
		return fmt.Sprintf("%d requests (at most %v)", c.Requests, c.Duration)
	}
	return c.Duration.String()
}

func (c config) say(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "soak: "+format+"\n", args...)
	}
}

// soak starts the server, compiles every space the workload needs, runs
// the workload for the warm-up, measures the baseline, runs it for the
// duration, lets the server settle, measures again, and stops the server
// with SIGTERM. The report says what it saw and whether that passes: no
// 5xx, no hang, no request without an answer, no unexpected status, no
// error in the server's log, goroutines and heap back within the tolerance
// of the baseline, the server's peak resident memory within its bound, and
// a clean exit.
func soak(ctx context.Context, cfg config) (*report, error) {
	mix := loadgen.SoakMix(cfg.BDDMaxN, cfg.SATMaxN)
	gen, err := mix.Generator()
	if err != nil {
		return nil, err
	}
	cfg.say("starting %s %s", cfg.Server, strings.Join(cfg.serverArgs(), " "))
	p, err := launch.Start(ctx, cfg.Server, launch.Options{Debug: true, Log: cfg.ServerLog}, cfg.serverArgs()...)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			p.Kill()
		}
	}()
	cfg.say("serving on %s, debug listener (pprof, /metrics) on %s", p.URL(), p.DebugURL())
	r := &report{cfg: cfg}

	start := time.Now()
	cfg.say("compiling every space of the workload")
	if err := precompile(ctx, p.URL(), mix, cfg.Timeout); err != nil {
		return nil, err
	}
	r.precompile = time.Since(start)

	load := loadgen.Config{BaseURL: p.URL(), Clients: cfg.Clients, Mix: gen, Timeout: cfg.Timeout}
	if cfg.Warmup > 0 {
		cfg.say("warming up for %v", cfg.Warmup)
		load.Duration, load.Requests, load.Seed = cfg.Warmup, cfg.WarmupRequests, cfg.Seed^0x5eed
		if r.warmup, err = loadgen.Run(ctx, load); err != nil {
			return nil, err
		}
		load.Requests = 0
	}
	if err := ready(ctx, p, mix, cfg.Timeout); err != nil {
		return nil, err
	}
	if r.before, err = settle(ctx, p, nil, cfg.Tolerance, 5*time.Second); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	cfg.say("baseline: %s", describe(r.before))
	r.maxRSS = cfg.MaxRSS
	if r.maxRSS == autoRSS {
		r.maxRSS = memoryBound(r.before)
		if r.maxRSS > 0 {
			cfg.say("bound of the peak resident memory: %s (the server's own, sized to its memory)", bytesize.Format(r.maxRSS))
		} else {
			cfg.say("the server states no bound of its peak resident memory: none checked")
		}
	}
	if cfg.Profiles != "" {
		if err := p.HeapProfile(ctx, filepath.Join(cfg.Profiles, "heap-before.pb.gz")); err != nil {
			return nil, err
		}
	}

	cfg.say("running %d clients for %s", cfg.Clients, cfg.length())
	load.Duration, load.Requests, load.Seed = cfg.Duration, cfg.Requests, cfg.Seed
	peakDone := make(chan server.Stats)
	runCtx, stopPeak := context.WithCancel(ctx)
	go func() { peakDone <- watchPeak(runCtx, p) }()
	r.run, err = loadgen.Run(ctx, load)
	stopPeak()
	r.peak = <-peakDone
	if err != nil {
		return nil, err
	}
	cfg.say("run: %d requests, %.0f/s", r.run.Requests, r.run.PerSecond)

	if err := ready(ctx, p, mix, cfg.Timeout); err != nil {
		return nil, err
	}
	if r.after, err = settle(ctx, p, &r.before, cfg.Tolerance, cfg.Settle); err != nil {
		return nil, fmt.Errorf("after the run: %w", err)
	}
	cfg.say("after: %s", describe(r.after))
	if cfg.Profiles != "" {
		if err := p.HeapProfile(ctx, filepath.Join(cfg.Profiles, "heap-after.pb.gz")); err != nil {
			return nil, err
		}
	}

	if r.peakRSS, err = p.PeakRSS(); err != nil {
		return nil, fmt.Errorf("the server's peak memory: %w", err)
	}
	r.stopErr = p.Stop(30 * time.Second)
	stopped = true
	log := p.Log()
	r.logWarnings, r.logErrs, r.firstErrs = log.Warnings, log.Errors, log.FirstErrors
	r.judge()
	return r, nil
}

// autoRSS asks for the bound the server reports (memoryBound).
const autoRSS = -1

// memoryBound is the bound of the server's peak resident memory under the
// soak: the bound the server is sized to stay within, as it reports it
// (Stats.MemoryBound: five sixths of the memory it may use, package
// sizing), the figure docs/operations.md states; 0 (none) for a server
// that reports none.
func memoryBound(base server.Stats) int64 { return base.MemoryBound }

// ready puts the server in the same state before each measurement: the
// SAT spaces, whose solvers grow with use until the server recycles them,
// compiled afresh, and every space of the workload in the cache (one
// retired by -recycle a moment before would otherwise be missing from one
// measurement and not the other). Without it, the solvers' learned clauses
// (up to a few megabytes) would come and go between the measurements.
func ready(ctx context.Context, p *launch.Process, mix loadgen.Mix, timeout time.Duration) error {
	if err := p.Recycle(ctx); err != nil {
		return err
	}
	return precompile(ctx, p.URL(), mix, timeout)
}

// precompile asks for every board of the workload once, one at a time, so
// that the baseline holds every compiled space and the run measures
// queries, not compiles.
func precompile(ctx context.Context, base string, mix loadgen.Mix, timeout time.Duration) error {
	client := &http.Client{Timeout: timeout}
	defer client.CloseIdleConnections()
	post := func(body string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/analyze", strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("compile %s: %w", body, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("compile %s: status %d: %s", body, res.StatusCode, bytes.TrimSpace(b))
		}
		return nil
	}
	for _, n := range mix.BDD {
		orders := []configurator.Order{configurator.RowMajor}
		if n <= mix.Orders {
			orders = configurator.Orders()
		}
		for _, o := range orders {
			if err := post(fmt.Sprintf(`{"n":%d,"backend":"bdd","order":%q}`, n, o)); err != nil {
				return err
			}
		}
	}
	for _, n := range mix.SAT {
		if err := post(fmt.Sprintf(`{"n":%d,"backend":"sat"}`, n)); err != nil {
			return err
		}
	}
	// The drawings of the small boards fill the drawing cache, as the
	// baseline should hold it.
	for _, path := range loadgen.DiagramPaths(mix) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("draw %s: %w", path, err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode >= 500 {
			return fmt.Errorf("draw %s: status %d", path, res.StatusCode)
		}
	}
	return nil
}

// settle waits, up to limit, for the server to come back within tol of
// the baseline (without a baseline: for two readings in a row with the
// same goroutines), and returns the last reading after a GC.
func settle(ctx context.Context, p *launch.Process, base *server.Stats, tol float64, limit time.Duration) (server.Stats, error) {
	deadline := time.Now().Add(limit)
	var prev server.Stats
	for i := 0; ; i++ {
		st, err := p.Stats(ctx, true)
		if err != nil {
			return st, err
		}
		switch {
		case base == nil && i > 0 && st.Goroutines == prev.Goroutines:
			return st, nil
		case base != nil && within(st.Goroutines, base.Goroutines, tol) && within(int(st.HeapAlloc), int(base.HeapAlloc), tol):
			return st, nil
		case time.Now().After(deadline):
			return st, nil
		}
		prev = st
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// watchPeak samples the server's stats (without a GC) once a second until
// ctx ends and returns the largest readings.
func watchPeak(ctx context.Context, p *launch.Process) server.Stats {
	var peak server.Stats
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		if st, err := p.Stats(ctx, false); err == nil {
			peak.Goroutines = max(peak.Goroutines, st.Goroutines)
			peak.HeapAlloc = max(peak.HeapAlloc, st.HeapAlloc)
			peak.HeapSys = max(peak.HeapSys, st.HeapSys)
			peak.NumGC = max(peak.NumGC, st.NumGC)
			peak.CacheBytes = max(peak.CacheBytes, st.CacheBytes)
		}
		select {
		case <-ctx.Done():
			return peak
		case <-tick.C:
		}
	}
}

// within reports whether v is at most tol above base (falling below is
// fine: the baseline may hold garbage a later GC found).
func within(v, base int, tol float64) bool {
	return float64(v) <= float64(base)*(1+tol)
}

// describe says what a reading of the server's stats holds.
func describe(s server.Stats) string {
	return fmt.Sprintf("%d goroutines, heap %s in %d objects, cache %s in %d spaces",
		s.Goroutines, mib(s.HeapAlloc), s.HeapObjects, mib(uint64(s.CacheBytes)), s.CacheSpaces)
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// judge fills in the failures.
func (r *report) judge() {
	fail := func(format string, args ...any) { r.failures = append(r.failures, fmt.Sprintf(format, args...)) }
	run := r.run
	if n := run.Errors5xx(); n > 0 {
		fail("%d answers with a 5xx status", n)
	}
	if run.Hangs > 0 {
		fail("%d requests without an answer within %v", run.Hangs, r.cfg.Timeout)
	}
	if n := failures(run); n > 0 {
		fail("%d requests failed without an answer: %v", n, run.Failures)
	}
	if run.Unexpected > 0 {
		fail("%d answers with a status their request did not expect", run.Unexpected)
	}
	if run.Answered == 0 {
		fail("no request was answered")
	}
	if r.logErrs > 0 {
		fail("the server logged %d errors", r.logErrs)
	}
	if !within(r.after.Goroutines, r.before.Goroutines, r.cfg.Tolerance) {
		fail("goroutines %d after the run, %d before: more than %.0f%% up", r.after.Goroutines, r.before.Goroutines, 100*r.cfg.Tolerance)
	}
	if !within(int(r.after.HeapAlloc), int(r.before.HeapAlloc), r.cfg.Tolerance) {
		fail("heap %s after the run, %s before: more than %.0f%% up", mib(r.after.HeapAlloc), mib(r.before.HeapAlloc), 100*r.cfg.Tolerance)
	}
	if max := r.maxRSS; max > 0 && r.peakRSS > uint64(max) {
		fail("peak resident memory %s, above the bound of %s", bytesize.Format(int64(r.peakRSS)), bytesize.Format(max))
	}
	if r.stopErr != nil {
		fail("stopping: %v", r.stopErr)
	}
}

func failures(r loadgen.Result) int64 {
	var n int64
	for _, c := range r.Failures {
		n += c
	}
	return n
}

// summary writes the report for people.
func (r *report) summary(w io.Writer) {
	run := r.run
	fmt.Fprintf(w, "Soak of %s: %d clients for %s after a warm-up of %d requests in %v (precompile %v), boards up to %d (BDD) and %d (SAT)\n",
		r.cfg.Server, r.cfg.Clients, r.cfg.length(), r.warmup.Requests, r.warmup.Elapsed.Round(time.Millisecond),
		r.precompile.Round(time.Millisecond), r.cfg.BDDMaxN, r.cfg.SATMaxN)
	fmt.Fprintf(w, "requests served: %d in %v (%.1f/s); hangs %d; failures %d; unexpected statuses %d; 5xx %d\n",
		run.Answered, run.Elapsed.Round(time.Millisecond), run.PerSecond, run.Hangs, failures(run), run.Unexpected, run.Errors5xx())
	fmt.Fprintf(w, "by status: %s\n", loadgen.FormatStatus(run.Status))
	fmt.Fprintf(w, "latency: %s\n", run.Latency)
	fmt.Fprintf(w, "%-34s %8s %8s %10s %10s %10s  %s\n", "label", "requests", "unexpect", "p50", "p99", "max", "statuses")
	for _, l := range slices.Sorted(maps.Keys(run.Labels)) {
		lr := run.Labels[l]
		fmt.Fprintf(w, "%-34s %8d %8d %10v %10v %10v  %s\n", l, lr.Requests, lr.Unexpected,
			lr.Latency.P50.Round(time.Microsecond), lr.Latency.P99.Round(time.Microsecond), lr.Latency.Max.Round(time.Microsecond), loadgen.FormatStatus(lr.Status))
	}
	fmt.Fprintf(w, "before: %s\n", describe(r.before))
	fmt.Fprintf(w, "peak:   %d goroutines, heap %s (heap from the OS %s), %d GCs in all\n", r.peak.Goroutines, mib(r.peak.HeapAlloc), mib(r.peak.HeapSys), r.peak.NumGC)
	fmt.Fprintf(w, "after:  %s\n", describe(r.after))
	bound := "no bound"
	if r.maxRSS > 0 {
		bound = "bound " + bytesize.Format(r.maxRSS)
	}
	fmt.Fprintf(w, "peak resident memory (VmHWM, the server's whole life): %s (%s)\n", bytesize.Format(int64(r.peakRSS)), bound)
	fmt.Fprintf(w, "goroutines %+.1f%%, heap %+.1f%% (tolerance %.0f%%)\n",
		change(r.after.Goroutines, r.before.Goroutines), change(int(r.after.HeapAlloc), int(r.before.HeapAlloc)), 100*r.cfg.Tolerance)
	fmt.Fprintf(w, "server log: %d warnings, %d errors; stop: %s\n", r.logWarnings, r.logErrs, errText(r.stopErr, "clean exit after SIGTERM"))
	for _, e := range r.firstErrs {
		fmt.Fprintf(w, "  %s\n", e)
	}
	for _, s := range run.Samples {
		fmt.Fprintf(w, "unexpected: %s %s %s -> %d %s\n", s.Label, s.Method, s.Path, s.Status, strings.Join(strings.Fields(s.Body), " "))
	}
	if r.passed() {
		fmt.Fprintln(w, "PASS")
		return
	}
	for _, f := range r.failures {
		fmt.Fprintln(w, "FAIL:", f)
	}
}

func change(after, before int) float64 {
	if before == 0 {
		return 0
	}
	return 100 * (float64(after) - float64(before)) / float64(before)
}

func errText(err error, ok string) string {
	if err == nil {
		return ok
	}
	return err.Error()
}

// jsonReport is the report for machines (-json).
func (r *report) jsonReport() ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"passed": r.passed(), "failures": r.failures,
		"requests": r.run.Requests, "answered": r.run.Answered, "per_second": r.run.PerSecond,
		"status": r.run.Status, "hangs": r.run.Hangs, "unexpected": r.run.Unexpected,
		"p50_ms": ms(r.run.Latency.P50), "p90_ms": ms(r.run.Latency.P90), "p99_ms": ms(r.run.Latency.P99), "max_ms": ms(r.run.Latency.Max),
		"before": r.before, "after": r.after, "peak": r.peak, "peak_rss": r.peakRSS, "max_rss": r.maxRSS,
	}, "", "  ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
