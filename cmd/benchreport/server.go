package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/nqueens/configurator/benchmarks/loadgen"
	"github.com/nqueens/configurator/internal/launch"
)

// serverFlags are the flags the benchmark gives the server beyond the
// address: the per-client rate limit (20 requests a second by default) is
// turned off, since the load generator's clients send as fast as they are
// answered, and the compiled spaces are kept in the run's own cache
// directory (-cache-dir, added at start), where the disk section left the
// boards it measured: the warm-up loads them instead of compiling. Every
// other setting is the server's default.
var serverFlags = []string{"-rate", "0"}

// stopGrace is how long the server gets to exit after SIGTERM.
const stopGrace = 10 * time.Second

// ServerResults is the server benchmark.
type ServerResults struct {
	Flags []string
	Runs  []ServerRun
	// TargetClients is the number of clients of the longer runs that
	// the large boards' throughput targets compare.
	TargetClients int `json:",omitempty"`
	// PeakRSS is the server process's peak resident memory (VmHWM) at
	// the end of all runs.
	PeakRSS uint64
}

// ServerRun is one workload at one number of clients.
type ServerRun struct {
	Backend                 string
	N, Clients              int
	Elapsed                 time.Duration
	Requests, Answered      int64
	PerSecond               float64
	P50, P90, P99, Max      time.Duration
	Status                  map[int]int64
	Unexpected, Hangs, Fail int64
	// PeakRSS is the server's VmHWM when the run ended.
	PeakRSS uint64
}

// Errors counts the requests that went wrong: an unexpected status (a 5xx,
// a 429 or 503 from load shedding, ...), no answer in time, or no answer.
func (r ServerRun) Errors() int64 { return r.Unexpected + r.Hangs + r.Fail }

// ExpectedPerSecond is the rate of answers with an expected status.
func (r ServerRun) ExpectedPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Answered-r.Unexpected) / r.Elapsed.Seconds()
}

// webBinary returns the cmd/web binary the plan names (-web), or builds
// one into a temporary directory that done removes.
func webBinary(ctx context.Context, p plan) (bin string, done func(), err error) {
	if p.Web != "" {
		return p.Web, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "nqueens-bench-")
	if err != nil {
		return "", nil, err
	}
	log.Printf("building %s", launch.Package)
	if bin, err = launch.Build(ctx, dir); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

func runServer(ctx context.Context, p plan, res *Results) error {
	bin, done, err := webBinary(ctx, p)
	if err != nil {
		return err
	}
	defer done()
	srv, err := launch.Start(ctx, bin, launch.Options{}, append(slices.Clone(serverFlags), "-cache-dir", p.CacheDir)...)
	if err != nil {
		return err
	}
	defer srv.Stop(stopGrace)
	log.Printf("server %s (pid %d) %v", srv.URL(), srv.Pid(), serverFlags)
	sr := &ServerResults{Flags: append(slices.Clone(serverFlags), "-cache-dir", "<the run's directory>"), TargetClients: p.TargetClients}
	res.Server = sr
	for _, w := range p.Workloads {
		if !p.measures(w.N) {
			continue
		}
		mix := loadgen.Mix{Weights: map[loadgen.Kind]float64{loadgen.Analyze: 1}}
		if w.Backend == "sat" {
			mix.SAT = []int{w.N}
		} else {
			mix.BDD = []int{w.N}
		}
		gen, err := mix.Generator()
		if err != nil {
			return err
		}
		// Warm up: the first request compiles the board (seconds at
		// N=12); the runs measure the answers, not the compile.
		if _, err := loadgen.Run(ctx, loadgen.Config{BaseURL: srv.URL(), Clients: 1, Requests: 20, Mix: gen, Seed: p.Seed, Timeout: time.Minute}); err != nil {
			return fmt.Errorf("warm-up %s n=%d: %w", w.Backend, w.N, err)
		}
		for _, clients := range p.Clients {
			length := p.ServerTime
			if clients == p.TargetClients {
				length = max(length, p.TargetTime)
			}
			r, err := loadgen.Run(ctx, loadgen.Config{
				BaseURL:  srv.URL(),
				Clients:  clients,
				Duration: length,
				Timeout:  30 * time.Second,
				Mix:      gen,
				Seed:     p.Seed,
			})
			if err != nil {
				return fmt.Errorf("%s n=%d, %d clients: %w\n%s", w.Backend, w.N, clients, err, srv.Log().Tail)
			}
			run := ServerRun{
				Backend: w.Backend, N: w.N, Clients: clients,
				Elapsed: r.Elapsed, Requests: r.Requests, Answered: r.Answered, PerSecond: r.PerSecond,
				P50: r.Latency.P50, P90: r.Latency.P90, P99: r.Latency.P99, Max: r.Latency.Max,
				Status: r.Status, Unexpected: r.Unexpected, Hangs: r.Hangs,
			}
			for _, c := range r.Failures {
				run.Fail += c
			}
			if rss, err := srv.PeakRSS(); err == nil {
				run.PeakRSS = rss
			}
			for _, s := range r.Samples[:min(len(r.Samples), 2)] {
				log.Printf("    unexpected answer, e.g.: %s %s %d %.80q", s.Method, s.Path, s.Status, s.Body)
			}
			log.Printf("server %s n=%-2d %2d clients: %8.0f req/s  p50 %v p99 %v  errors %d  status %s  rss %s",
				w.Backend, w.N, clients, run.PerSecond, run.P50, run.P99, run.Errors(), loadgen.FormatStatus(run.Status), bytesIEC(run.PeakRSS))
			sr.Runs = append(sr.Runs, run)
		}
	}
	if rss, err := srv.PeakRSS(); err == nil {
		sr.PeakRSS = rss
	}
	return srv.Stop(stopGrace)
}
