package server

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/nqueens/configurator/internal/web/guard"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// Config is the server's configuration: its addresses, what the guard and
// the cache of compiled spaces bound, and the page's own bounds. What
// bounds a backend's own work (its largest board, its memory, its queue)
// is the backend's option, not the server's: see Engine.
type Config struct {
	Addr      string
	DebugAddr string // loopback address of the debug routes; "" turns them off

	Guard  guard.Config  // connections, per-client quotas, bodies, deadlines
	Spaces spaces.Config // the cache of compiled spaces of boards and models, and its compiles
	Models models.Config // the feature models: uploads, their directory, their parses

	QuickWait       time.Duration // how long a page waits for a compile before showing progress
	DiagramNodes    int           // largest diagram drawn
	DiagramDeadline time.Duration // time to draw one diagram
	ShutdownGrace   time.Duration // time in-flight requests get to finish on shutdown

	// MemoryBound is the peak resident memory the server's settings are
	// sized to stay within (package sizing), which /debug/stats reports;
	// 0 when unknown.
	MemoryBound int64
}

// DefaultConfig is the configuration without flags: limits that keep every
// answer on this project's reference machine (2 cores) within a second or
// so, once the spaces are compiled.
func DefaultConfig() Config {
	return Config{
		Addr: "127.0.0.1:8080",
		Guard: guard.Config{
			RequestDeadline: 30 * time.Second,
			BodyLimit:       64 << 10,
			QueryLimit:      8 << 10,
			// A connection costs a goroutine, the read and write buffers
			// and a header of up to MaxHeaderBytes, and a file descriptor:
			// 1024 of them stay far below the process's limits, while no
			// honest use comes near (a browser opens 6 per host, and the
			// backends' queues bound the work long before).
			MaxConns: 1024,
			// Seconds, not minutes: a browser that comes back after 15 s
			// opens a new connection in a round trip, and idle connections
			// are what a crowd holds open.
			IdleTimeout: 15 * time.Second,
			// 16 KiB holds every header a browser sends (cookies included:
			// this server sets none) and bounds what a header never
			// finished costs.
			MaxHeaderBytes: 16 << 10,
			// A page costs one request and each click one more (two with
			// the diagram): 20 a second is far beyond a person's pace; a
			// browser opens at most 6 connections to a host, so 6 at once
			// binds only scripts that fire in parallel.
			Client: guard.Quota{Rate: 20, Burst: 40, Concurrent: 6},
			// Loopback: no quota, so that a person scripts their own
			// server freely; the backends' own queues still bound the work.
			Loopback: guard.Quota{},
		},
		Spaces: spaces.Config{
			Bytes:    1 << 30,
			Deadline: 10 * time.Minute,
			Slots:    2,
			Grace:    10 * time.Second,
			Recycle:  50,
			// A model's compile past it is beyond the backend. A heavy
			// one (a BDD's), once started, runs to its end (or this
			// deadline, or its node budget) whether or not anyone waits
			// for it: the person reading a Why? panel meanwhile will want
			// it, and its result is kept (saved with -cache-dir).
			ModelDeadline: 2 * time.Minute,
		},
		Models: models.Config{
			Bytes:     256 << 20,
			DiskBytes: 256 << 20,
			// A listing and a restart's scan stay quick however small the
			// files are.
			DiskModels: 10000,
			// One address fills at most a quarter of the directory in an
			// hour, and uploads far more models than a person does.
			Quota:  models.Quota{Models: 100, Bytes: 64 << 20, Window: time.Hour},
			Recent: models.DefaultRecent,
			// Above the largest real models (tens of thousands of
			// features), below what a request could answer in time.
			MaxFeatures: 50000,
			Slots:       2,
		},
		QuickWait:       300 * time.Millisecond,
		DiagramNodes:    300,
		DiagramDeadline: 10 * time.Second,
		ShutdownGrace:   30 * time.Second,
	}
}

// Check validates a configuration; its errors name the flags of cmd/web.
func (c Config) Check() error {
	g := c.Guard
	switch {
	case g.BodyLimit < 1 || c.Spaces.Bytes < 1:
		return fmt.Errorf("-body-limit and -cache must be positive")
	case g.RequestDeadline <= 0:
		return fmt.Errorf("deadlines must be positive")
	case g.MaxConns < 0:
		return fmt.Errorf("-max-conns must not be negative (0: no cap)")
	case g.IdleTimeout <= 0:
		return fmt.Errorf("-idle-timeout must be positive")
	case g.MaxHeaderBytes < 1:
		return fmt.Errorf("the header limit must be positive")
	}
	if err := g.Client.Check(""); err != nil {
		return err
	}
	if err := g.Loopback.Check("loopback-"); err != nil {
		return err
	}
	if c.DebugAddr != "" {
		if err := checkLoopback(c.DebugAddr); err != nil {
			return err
		}
	}
	return nil
}

// checkLoopback refuses a listening address that is not on the loopback
// interface: an IP of 127.0.0.0/8 or ::1, or the name localhost.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("debug address %q: %w", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("debug address %q: only a loopback address (127.0.0.1, ::1, localhost) may serve the debug routes", addr)
}
