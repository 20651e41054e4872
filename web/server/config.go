package server

import (
	"fmt"
	"net"
	"strings"
	"time"
)

// Config is the server's configuration: its limits, deadlines and
// addresses. What bounds a backend's own work (its largest board, its
// memory, its queue) is the backend's option, not the server's: see Engine.
type Config struct {
	Addr string

	CompileDeadline time.Duration // of one compile, whoever waits for it
	CacheBytes      int64         // bound of the cache of compiled spaces
	Recycle         int           // requests after which a space that does not report its size is compiled afresh
	CompileSlots    int           // heavy compiles (large BDDs) running at once
	CompileGrace    time.Duration // how long an abandoned compile survives
	QuickWait       time.Duration // how long a page waits for a compile before showing progress
	RequestDeadline time.Duration // every request but the progress stream
	BodyLimit       int64         // bytes of a request body
	QueryLimit      int           // bytes of a query string
	DiagramNodes    int           // largest diagram drawn
	DiagramDeadline time.Duration // time to draw one diagram
	ShutdownGrace   time.Duration // time in-flight requests get to finish on shutdown
	DebugAddr       string        // loopback address of the debug routes; "" turns them off

	// The public listener's connections: at most MaxConns open at once
	// (0: no cap), the others answered 503 and closed; an idle keep-alive
	// connection closed after IdleTimeout; request headers of at most
	// MaxHeaderBytes (net/http answers 431 beyond).
	MaxConns       int
	IdleTimeout    time.Duration
	MaxHeaderBytes int

	// The requests of one client address on every route that does work:
	// Client for every address but loopback ones, which have Loopback
	// (the person who runs the server, scripting it; behind a reverse
	// proxy on the same machine every client is loopback).
	Client, Loopback ClientLimit
}

// DefaultConfig is the configuration without flags: limits that keep every
// answer on this project's reference machine (2 cores) within a second or
// so, once the spaces are compiled.
func DefaultConfig() Config {
	return Config{
		Addr:            "127.0.0.1:8080",
		CompileDeadline: 10 * time.Minute,
		CacheBytes:      1 << 30,
		Recycle:         50,
		CompileSlots:    2,
		CompileGrace:    30 * time.Second,
		QuickWait:       300 * time.Millisecond,
		RequestDeadline: 30 * time.Second,
		BodyLimit:       64 << 10,
		QueryLimit:      8 << 10,
		DiagramNodes:    300,
		DiagramDeadline: 10 * time.Second,
		ShutdownGrace:   30 * time.Second,
		// 1024 connections cost at most about 40 MiB (a goroutine, the
		// read and write buffers and a header of up to 20 KiB each) and
		// 1024 file descriptors, far below the process's limits, while no
		// honest use comes near: a browser opens 6 per host and the
		// backends' queues bound the work long before.
		MaxConns: 1024,
		// Seconds, not minutes: a browser that comes back after 15 s opens
		// a new connection in a round trip, and idle connections are what
		// a crowd holds open.
		IdleTimeout: 15 * time.Second,
		// 16 KiB holds every header a browser sends (cookies included: this
		// server sets none) and bounds what a header never finished costs.
		MaxHeaderBytes: 16 << 10,
		// A page costs one request and each click one more (two with the
		// diagram): 20 a second is far beyond a person's pace; a browser
		// opens at most 6 connections to a host, so 6 at once binds only
		// scripts that fire in parallel.
		Client: ClientLimit{Rate: 20, Burst: 40, Concurrent: 6},
		// Loopback: no limit, so that a person scripts their own server
		// freely; the backends' own queues still bound the work.
		Loopback: ClientLimit{},
	}
}

// Check validates a configuration; its errors name the flags of cmd/web.
func (c Config) Check() error {
	switch {
	case c.BodyLimit < 1 || c.CacheBytes < 1:
		return fmt.Errorf("-body-limit and -cache must be positive")
	case c.RequestDeadline <= 0:
		return fmt.Errorf("deadlines must be positive")
	case c.MaxConns < 0:
		return fmt.Errorf("-max-conns must not be negative (0: no cap)")
	case c.IdleTimeout <= 0:
		return fmt.Errorf("-idle-timeout must be positive")
	case c.MaxHeaderBytes < 1:
		return fmt.Errorf("the header limit must be positive")
	}
	if err := c.Client.check(""); err != nil {
		return err
	}
	if err := c.Loopback.check("loopback-"); err != nil {
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
