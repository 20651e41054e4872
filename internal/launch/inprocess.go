package launch

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/nqueens/configurator/internal/web/server"
)

// Local is a server running in the caller's process (InProcess): what a
// test wants that reaches into the server's answers without building a
// binary, or that races the server's concurrency under the race detector.
type Local struct {
	url, debugURL string
	cancel        context.CancelFunc
	done          chan error // Run's result, once it has returned
}

// InProcess serves the configurator in this process with server.Run, on
// a free loopback port when cfg.Addr is "" (and the debug routes when
// cfg.DebugAddr is set, "127.0.0.1:0" for a free port), and returns once
// it listens. Stop it with Stop; ending ctx stops it too.
func InProcess(ctx context.Context, cfg server.Config, log *slog.Logger, engines ...server.Engine) (*Local, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(ctx)
	l := &Local{cancel: cancel, done: make(chan error, 1)}
	listening := make(chan struct{})
	go func() {
		l.done <- server.Run(ctx, cfg, log, engines, func(addr, debugAddr string) {
			l.url = "http://" + addr
			if debugAddr != "" {
				l.debugURL = "http://" + debugAddr
			}
			close(listening)
		})
	}()
	select {
	case <-listening:
		return l, nil
	case err := <-l.done:
		cancel()
		return nil, fmt.Errorf("serve in process: %w", err)
	}
}

// URL is the server's root, http://127.0.0.1:port, without a final slash.
func (l *Local) URL() string { return l.url }

// DebugURL is the debug listener's root, or "" without one.
func (l *Local) DebugURL() string { return l.debugURL }

// Stop shuts the server down gracefully, as SIGTERM does cmd/web, and
// returns what server.Run returned. It may be called more than once.
func (l *Local) Stop() error {
	l.cancel()
	err := <-l.done
	l.done <- err // for a second Stop
	return err
}
