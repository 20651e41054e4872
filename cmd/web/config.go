package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// config is the server's configuration, one field per command-line flag.
type config struct {
	Addr string

	BDD struct {
		MaxN     int           // largest board
		Budget   int64         // node budget in bytes of one compile
		Scratch  int64         // work space of the queries running at once, in bytes
		Deadline time.Duration // per request
	}
	SAT struct {
		MaxN     int           // largest board
		Queue    int           // requests that may wait for the serialised solver
		Serve    int           // requests served at once; the others wait in the queue, in order
		CountCap int           // solutions counted before saying "at least"
		Deadline time.Duration // per request
	}

	CompileDeadline time.Duration // of one compile, whoever waits for it
	CacheBytes      int64         // bound of the cache of compiled spaces
	Recycle         int           // requests after which a space that does not report its size is compiled afresh
	CompileSlots    int           // heavy compiles (large BDDs) running at once
	CompileGrace    time.Duration // how long an abandoned compile survives
	QuickWait       time.Duration // how long a page waits for a compile before showing progress
	RequestDeadline time.Duration // every request but the progress stream
	BodyLimit       int64         // bytes of a request body
	QueryLimit      int           // bytes of a query string
	APIRate         float64       // API requests per second per client; 0 turns the limit off
	APIBurst        int           // API requests a client may send at once
	DiagramNodes    int           // largest diagram drawn
	DiagramDeadline time.Duration // time to draw one diagram
	ShutdownGrace   time.Duration // time in-flight requests get to finish on SIGTERM
	DebugAddr       string        // loopback address of the debug routes; "" turns them off
}

// defaultConfig is the configuration without flags: limits that keep every
// answer on this project's reference machine (2 cores) within a second or
// so, once the spaces are compiled.
func defaultConfig() config {
	var c config
	c.Addr = "127.0.0.1:8080"
	c.BDD.MaxN = 14
	c.BDD.Budget = 2 << 30
	c.BDD.Scratch = 1 << 30
	c.BDD.Deadline = 10 * time.Second
	c.CompileDeadline = 10 * time.Minute
	c.SAT.MaxN = 32
	c.SAT.Queue = 32
	c.SAT.Serve = 1
	c.SAT.CountCap = 1000
	c.SAT.Deadline = 10 * time.Second
	c.CacheBytes = 1 << 30
	c.Recycle = 50
	c.CompileSlots = 2
	c.CompileGrace = 30 * time.Second
	c.QuickWait = 300 * time.Millisecond
	c.RequestDeadline = 30 * time.Second
	c.BodyLimit = 64 << 10
	c.QueryLimit = 8 << 10
	c.APIRate = 20
	c.APIBurst = 40
	c.DiagramNodes = 300
	c.DiagramDeadline = 10 * time.Second
	c.ShutdownGrace = 30 * time.Second
	return c
}

// parseFlags reads the command line into a configuration.
func parseFlags(args []string, out io.Writer) (config, error) {
	c := defaultConfig()
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Addr, "addr", c.Addr, "address to listen on")
	fs.IntVar(&c.BDD.MaxN, "bdd-max-n", c.BDD.MaxN, "largest board of the BDD backend")
	fs.Var((*byteSize)(&c.BDD.Budget), "bdd-budget", "node budget of one BDD compile, in bytes (suffixes K, M, G: powers of 1024)")
	fs.Var((*byteSize)(&c.BDD.Scratch), "bdd-scratch", "work space of the BDD queries running at once, in bytes (about 24 bytes a node each: 220 MiB for a 14×14 query); more wait")
	fs.DurationVar(&c.BDD.Deadline, "bdd-deadline", c.BDD.Deadline, "deadline of one request's work on the BDD backend")
	fs.DurationVar(&c.CompileDeadline, "compile-deadline", c.CompileDeadline, "deadline of one compile (a BDD of a large board takes a while, once)")
	fs.IntVar(&c.SAT.MaxN, "sat-max-n", c.SAT.MaxN, "largest board of the SAT backend")
	fs.IntVar(&c.SAT.Queue, "sat-queue", c.SAT.Queue, "requests that may wait for the SAT solver; more get 503")
	fs.IntVar(&c.SAT.Serve, "sat-serve", c.SAT.Serve, "requests the SAT backend serves at once (its solver runs one call at a time); the others wait in the queue, in order")
	fs.IntVar(&c.SAT.CountCap, "sat-count-cap", c.SAT.CountCap, "solutions the SAT backend counts before it says \"at least\"")
	fs.DurationVar(&c.SAT.Deadline, "sat-deadline", c.SAT.Deadline, "deadline of one request's work on the SAT backend")
	fs.Var((*byteSize)(&c.CacheBytes), "cache", "bound of the cache of compiled spaces, in bytes")
	fs.IntVar(&c.Recycle, "recycle", c.Recycle, "requests after which a compiled space that does not report its memory (a SAT solver, which keeps the clauses it learns) is compiled afresh; 0: never")
	fs.IntVar(&c.CompileSlots, "compile-slots", c.CompileSlots, "large BDD compiles (12×12 and up) that may run at once, each within its node budget; small ones never wait")
	fs.DurationVar(&c.QuickWait, "quick-wait", c.QuickWait, "how long a page waits for a compile before it shows progress")
	fs.DurationVar(&c.RequestDeadline, "deadline", c.RequestDeadline, "deadline of every request (the progress stream excepted)")
	fs.Var((*byteSize)(&c.BodyLimit), "body-limit", "largest request body, in bytes")
	fs.Float64Var(&c.APIRate, "api-rate", c.APIRate, "JSON API requests per second per client address; 0 disables the limit")
	fs.IntVar(&c.APIBurst, "api-burst", c.APIBurst, "JSON API requests a client may send in a burst")
	fs.IntVar(&c.DiagramNodes, "diagram-nodes", c.DiagramNodes, "largest decision diagram drawn, in nodes")
	fs.DurationVar(&c.DiagramDeadline, "diagram-deadline", c.DiagramDeadline, "deadline of drawing one diagram")
	fs.StringVar(&c.DebugAddr, "debug-addr", c.DebugAddr, "loopback address (127.0.0.1:6060) of /debug/stats and /debug/pprof; empty: none")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.ShutdownGrace, "time in-flight requests get to finish after SIGINT or SIGTERM")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if err := c.check(fs); err != nil {
		// The flag package reports its own errors; these are ours.
		fmt.Fprintln(out, "web:", err)
		return c, err
	}
	return c, nil
}

// check validates a parsed configuration.
func (c config) check(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case c.BDD.MaxN < 1 || c.SAT.MaxN < 1 || c.SAT.Serve < 1:
		return fmt.Errorf("-bdd-max-n, -sat-max-n and -sat-serve must be at least 1")
	case c.BodyLimit < 1 || c.CacheBytes < 1 || c.BDD.Scratch < 1:
		return fmt.Errorf("-body-limit, -cache and -bdd-scratch must be positive")
	case c.RequestDeadline <= 0 || c.BDD.Deadline <= 0 || c.SAT.Deadline <= 0:
		return fmt.Errorf("deadlines must be positive")
	}
	if c.DebugAddr != "" {
		if err := checkLoopback(c.DebugAddr); err != nil {
			return err
		}
	}
	return nil
}

// byteSize is a flag value of bytes with an optional binary suffix.
type byteSize int64

func (b *byteSize) String() string { return formatBytes(int64(*b)) }

func (b *byteSize) Set(s string) error {
	s = strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	s = strings.TrimSuffix(s, "I")
	mult := int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:len(s)-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mult {
		return fmt.Errorf("%q is not a size in bytes (like 512M or 2G)", s)
	}
	*b = byteSize(v * mult)
	return nil
}

// formatBytes writes a byte count for people: 1.5 GiB, 300 MiB, 12 KiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + []string{"KiB", "MiB", "GiB", "TiB"}[i]
}
