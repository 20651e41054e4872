// Command web serves the N-Queens configurator: a page on which a person
// places queens and sees, after every click, which squares stay possible,
// which queens are forced, how many solutions remain and why, answered by a
// BDD backend, a SAT backend or both side by side; and a JSON API with the
// same answers.
//
// Usage:
//
//	web [-addr 127.0.0.1:8080] [-bdd-max-n 12] [-bdd-budget 2G] [-sat-max-n 40] [-debug-addr 127.0.0.1:6060] ...
//
// The server keeps no session: the board lives in the URL, so the browser's
// back and forward buttons are undo and redo and a link shares a board. It
// keeps only a cache of compiled spaces, bounded in bytes. Every other
// resource is bounded too: boards beyond a backend's limit or its node
// budget are refused at once (413), the BDD queries running at once share a
// bounded work space (-bdd-scratch), SAT requests are served in order
// behind a bounded queue (-sat-queue; 503 with Retry-After when full), every
// request has a deadline, and the API is rate limited per client address.
// SIGINT or SIGTERM stop it gracefully: it stops accepting, lets the
// requests in flight finish (up to -shutdown-grace), and exits.
//
// With -debug-addr (a loopback address only) it also serves /debug/stats
// (goroutines, heap, cache) and /debug/pprof, for soak tests and leaks.
//
// Under heavy load the heap peaks at about twice the data it holds (the
// garbage collector's default headroom): 3.2 to 4.1 GiB at 64 clients on boards
// up to 14×14, for 0.35 GiB of compiled spaces and up to 1 GiB of work
// space. The environment variable GOMEMLIMIT (say GOMEMLIMIT=2GiB) makes
// the collector keep it near the limit instead, at little cost in
// throughput (make soak with and without it).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stderr, nil); err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintln(os.Stderr, "web:", err)
		}
		os.Exit(2)
	}
}

// errUsage is a command line the flag package already complained about.
var errUsage = errors.New("usage")

// run serves until ctx ends or the process receives SIGINT or SIGTERM,
// then shuts down gracefully. ready, when not nil, is called with the
// address once the server listens.
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	s, err := newServer(cfg, log, newBackends(cfg)...)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		s.close()
		return err
	}
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 2)
	go func() { served <- srv.Serve(ln) }()
	attrs := []any{"url", "http://" + ln.Addr().String() + "/",
		"bdd_max_n", s.lim.maxN["bdd"], "bdd_budget", formatBytes(cfg.BDD.Budget), "sat_max_n", cfg.SAT.MaxN}
	var dbg *http.Server
	if cfg.DebugAddr != "" {
		dln, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			srv.Close()
			s.close()
			return fmt.Errorf("debug listener: %w", err)
		}
		dbg = &http.Server{Handler: s.debugHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := dbg.Serve(dln); err != http.ErrServerClosed {
				served <- fmt.Errorf("debug listener: %w", err)
			}
		}()
		attrs = append(attrs, "debug", "http://"+dln.Addr().String()+"/debug/stats")
	}
	log.Info("serving the N-Queens configurator", attrs...)
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case err := <-served:
		srv.Close()
		if dbg != nil {
			dbg.Close()
		}
		s.close()
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests in flight", "grace", cfg.ShutdownGrace)
	s.beginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if dbg != nil {
		dbg.Close()
	}
	s.close()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

// newBackends builds the two backends from the configuration.
func newBackends(cfg config) []configurator.Backend {
	return []configurator.Backend{
		bdd.New(bdd.Options{Budget: cfg.BDD.Budget}),
		sat.New(sat.Options{MaxN: cfg.SAT.MaxN, Queue: cfg.SAT.Queue, CountCap: cfg.SAT.CountCap, Timeout: cfg.SAT.Deadline}),
	}
}
