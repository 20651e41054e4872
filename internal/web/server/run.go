package server

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/nqueens/configurator/internal/web/guard"
)

// Run serves the configurator on cfg.Addr (and the debug routes on
// cfg.DebugAddr, when set) until ctx ends, then shuts down gracefully: it
// stops accepting, lets the requests in flight finish for up to
// cfg.ShutdownGrace, and returns. ready, when not nil, is called with the
// addresses once both listen (debugAddr is "" without a debug listener). Run is what cmd/web does; tests, the soak driver and
// the benchmarks call it to start a server in their own process.
func Run(ctx context.Context, cfg Config, log *slog.Logger, engines []Engine, ready func(addr, debugAddr string)) error {
	s, err := New(cfg, log, engines...)
	if err != nil {
		return err
	}
	defer s.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv, capped := guard.HTTPServer(cfg.Guard, s.Handler(), ln, log)
	served := make(chan error, 2)
	go func() { served <- srv.Serve(capped) }()
	attrs := []any{"url", "http://" + ln.Addr().String() + "/", "max_conns", cfg.Guard.MaxConns, "idle_timeout", cfg.Guard.IdleTimeout}
	for _, name := range s.lineup.Names() {
		attrs = append(attrs, name+"_max_n", s.lineup.MaxN(name))
	}
	var dbg *http.Server
	debugAddr := ""
	if cfg.DebugAddr != "" {
		dln, err := net.Listen("tcp", cfg.DebugAddr)
		if err != nil {
			srv.Close()
			return fmt.Errorf("debug listener: %w", err)
		}
		debugAddr = dln.Addr().String()
		// Its own http.Server on its own listener, outside the public
		// one's connection cap: an operator can look at a server whose
		// public listener is full.
		dbg = &http.Server{Handler: s.DebugHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := dbg.Serve(dln); err != http.ErrServerClosed {
				served <- fmt.Errorf("debug listener: %w", err)
			}
		}()
		attrs = append(attrs, "debug", "http://"+debugAddr+"/debug/stats")
	}
	log.Info("serving the configurator", attrs...)
	if ready != nil {
		ready(ln.Addr().String(), debugAddr)
	}

	select {
	case err := <-served:
		srv.Close()
		if dbg != nil {
			dbg.Close()
		}
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: draining requests in flight", "grace", cfg.ShutdownGrace)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if dbg != nil {
		dbg.Close()
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
