// Command soak checks that the configurator's server stays healthy under
// sustained load: it starts the server binary on a loopback port, drives
// it with the mixed workload of benchmarks/loadgen (the JSON API and the
// pages, both backends, every board size up to the limits, one request in
// ten bad) from many clients, and stops it with SIGTERM.
//
// Usage:
//
//	soak -server bin/web [-duration 5m] [-clients 64] [-bdd-max-n 15] [-sat-max-n 32] [-memory 6G] [-warmup 30s] [-- server flags]
//	soak -attack NAME -server bin/web [-duration 30s] [-attackers K] [-probes P] [-every 100ms] [-- server flags]
//
// It passes when no answer has a 5xx status, every request is answered
// within its deadline with the status it expects, the server logs no
// error, its goroutines and its heap after a garbage collection are back
// within 10 % of their values before the run, its peak resident memory
// (VmHWM, read from /proc) stays within -max-rss, and it exits cleanly. It
// prints a summary (requests served, answers by status, latency
// percentiles, heap and goroutines before, at the peak and after) and
// exits with status 1 when the soak fails. The bound of the peak resident
// memory is by default the server's own (-max-rss auto): five sixths of the
// memory it is told it may use (-memory), as docs/operations.md states.
//
// With -attack it runs instead one of the hostile loads the server is
// built to withstand (soak -attack list names them): attacking clients
// from loopback addresses of their own, a victim from another
// address measuring its latencies, and the server's peak memory. It prints
// the figures and, for an attack the tracker sets a target for (heavy:
// the victim's 8×8 p99 under 50 ms), the verdict, exiting with status 1
// when the target is missed; the other attacks it does not judge (the
// tests of cmd/soak and internal/web/server do, on shorter runs).
// `-attack models` runs the attacks on the store of feature models one
// after the other, each against -memory 3G and held to the server's own
// memory bound, and to its target where it has one (a small upload from
// another client within 2 s, the victim's 8×8 p99 under 50 ms, another
// client's model still answering, an exit within 5 s of SIGTERM).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/nqueens/configurator/configurator/bytesize"
)

// rssBound is the -max-rss flag: a size in bytes (suffixes K, M, G),
// "auto" (autoRSS: the bound memoryBound derives from the server's
// baseline and work space) or "off" (0: none).
type rssBound int64

func (b *rssBound) String() string {
	switch *b {
	case autoRSS:
		return "auto"
	case 0:
		return "off"
	}
	return bytesize.Format(int64(*b))
}

func (b *rssBound) Set(v string) error {
	switch v {
	case "auto":
		*b = autoRSS
		return nil
	case "off":
		*b = 0
		return nil
	}
	n, err := bytesize.Parse(v)
	if err != nil {
		return err
	}
	if n < 0 {
		return errors.New("negative size")
	}
	*b = rssBound(n)
	return nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	passed, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "soak:", err)
		}
		os.Exit(2)
	}
	if !passed {
		os.Exit(1)
	}
}

// run parses the command line, soaks and prints the summary.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (passed bool, err error) {
	cfg := config{Tolerance: 0.10, Settle: 30 * time.Second, Progress: stderr}
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Server, "server", "bin/web", "the server binary (go build -o bin/web ./cmd/web)")
	fs.DurationVar(&cfg.Duration, "duration", 5*time.Minute, "length of the measured run")
	fs.DurationVar(&cfg.Warmup, "warmup", 30*time.Second, "length of the run before the baseline (its longest, with -warmup-requests)")
	fs.Int64Var(&cfg.WarmupRequests, "warmup-requests", 0, "requests the warm-up sends before the baseline; 0: as many as -warmup allows")
	fs.IntVar(&cfg.Clients, "clients", 64, "concurrent clients")
	fs.IntVar(&cfg.BDDMaxN, "bdd-max-n", 15, "largest board asked of the BDD backend (also the server's limit)")
	fs.IntVar(&cfg.SATMaxN, "sat-max-n", 32, "largest board asked of the SAT backend (also the server's limit)")
	fs.StringVar(&cfg.Memory, "memory", "6G", "memory the server sizes itself to (its -memory), and so the bound of its peak resident memory (-max-rss auto); empty: what the machine gives")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the workload")
	fs.Float64Var(&cfg.Tolerance, "tolerance", cfg.Tolerance, "how far above the baseline goroutines and heap may end (0.10: 10 %)")
	fs.DurationVar(&cfg.Timeout, "timeout", 35*time.Second, "timeout of one request (the server's deadline is 30 s)")
	cfg.MaxRSS = autoRSS
	fs.Var((*rssBound)(&cfg.MaxRSS), "max-rss", "bound of the server's peak resident memory (VmHWM) over the soak, in bytes (suffixes K, M, G); auto: the bound the server is sized to (five sixths of its -memory: its /debug/stats memory_bound); off: none")
	logPath := fs.String("server-log", "", "file to copy the server's log to")
	jsonPath := fs.String("json", "", "file to write the figures to, as JSON")
	attackName := fs.String("attack", "", "run this attack instead of the soak (list: name them all)")
	attackers := fs.Int("attackers", 0, "attacking clients of -attack; 0: the attack's default")
	probes := fs.Int("probes", 0, "the victim's requests in -attack; 0: as many as -duration allows")
	every := fs.Duration("every", 100*time.Millisecond, "pause between the victim's requests in -attack")
	fs.StringVar(&cfg.Profiles, "profiles", "", "directory to write heap profiles to, before and after the run (go tool pprof -base heap-before.pb.gz heap-after.pb.gz)")
	if err := fs.Parse(args); err != nil {
		return false, err
	}
	cfg.Extra = fs.Args()
	if *attackName == "list" {
		for _, a := range slices.Concat(attacks, modelAttacks) {
			fmt.Fprintf(stdout, "%-10s %d attackers: %s\n", a.name, a.attackers, a.about)
		}
		return true, nil
	}
	if *attackName != "" {
		acfg := attackConfig{Server: cfg.Server, Attack: *attackName, Attackers: *attackers, Duration: cfg.Duration,
			Probes: *probes, Every: *every, Memory: cfg.Memory, Extra: cfg.Extra, Progress: stderr}
		if *logPath != "" {
			f, err := os.Create(*logPath)
			if err != nil {
				return false, err
			}
			defer f.Close()
			acfg.Log = f
		}
		names := []string{*attackName}
		if *attackName == "models" {
			names = nil
			for _, a := range modelAttacks {
				names = append(names, a.name)
			}
		}
		passed := true
		for _, name := range names {
			acfg.Attack = name
			r, err := runAttack(ctx, acfg)
			if err != nil {
				return false, err
			}
			r.summary(stdout)
			passed = passed && r.passed()
		}
		return passed, nil
	}
	if cfg.Clients < 1 || cfg.Duration <= 0 || cfg.BDDMaxN < 1 || cfg.SATMaxN < 1 {
		return false, errors.New("-clients, -duration, -bdd-max-n and -sat-max-n must be positive")
	}
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			return false, err
		}
		defer f.Close()
		cfg.ServerLog = f
	}
	r, err := soak(ctx, cfg)
	if err != nil {
		return false, err
	}
	r.summary(stdout)
	if *jsonPath != "" {
		b, err := r.jsonReport()
		if err != nil {
			return false, err
		}
		if err := os.WriteFile(*jsonPath, b, 0o644); err != nil {
			return false, err
		}
	}
	return r.passed(), nil
}
