// Command web serves the BDD/SAT configurator (see package
// github.com/nqueens/configurator/internal/web/server): the page on which a
// person places queens and sees after every click which squares stay
// possible, and the JSON API with the same answers.
//
// Usage:
//
//	web [-addr 127.0.0.1:8080] [-memory 3G] [-bdd-max-n 14] [-sat-max-n 32] [-debug-addr 127.0.0.1:6060] [-trusted-proxies 10.0.0.0/8] ...
//
// This file is the whole command: flags, the registry of backends (the one
// place that names them) and signals. SIGINT or SIGTERM stop it gracefully:
// it stops accepting, lets the requests in flight finish (up to
// -shutdown-grace), and exits.
//
// The settings of memory are sized to the memory the server may use
// (-memory, by default what the machine or the process's memory cgroup
// gives it; package sizing says how): the runtime's soft memory limit
// (-mem-limit), the cache of compiled spaces and compiles under way
// (-cache), a BDD compile's node budget (-bdd-budget), the BDD queries'
// work space (-bdd-scratch), the compile slots (-compile-slots) and the
// largest boards (-bdd-max-n, -bdd-compile-max-n); a flag given wins over
// its sized value. With 24 GiB the BDD compiles boards up to 15×15
// itself, once (the space is saved in -cache-dir and loaded after a
// restart), and serves 16×16 only from a compiled file there (nqueens
// count -n 16 makes it: its compile takes more memory than a server
// should); with 3 GiB it serves boards up to 14×14. The server logs at
// start what it chose and why. An explicit GOMEMLIMIT environment variable
// wins over -mem-limit, and -mem-limit 0 leaves the runtime's own setting.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/sysmem"
	"github.com/nqueens/configurator/internal/web/guard"
	"github.com/nqueens/configurator/internal/web/server"
	"github.com/nqueens/configurator/internal/web/sizing"
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

// run serves until ctx ends or the process receives SIGINT or SIGTERM.
// ready, when not nil, is called with the addresses once the server listens
// (debugAddr is "" without -debug-addr).
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr, debugAddr string)) error {
	o, err := parseFlags(args, stderr, func() (sysmem.Limit, error) { return sysmem.Read("/") })
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if o.memoryErr != nil {
		log.Warn("the memory this server may use is unknown; sized as if it had the default (set -memory)", "memory", bytesize.Format(o.memory.Bytes), "err", o.memoryErr)
	}
	log.Info("memory", "bytes", bytesize.Format(o.memory.Bytes), "from", o.memory.Source, "peak_bound", bytesize.Format(o.Server.MemoryBound))
	for _, st := range o.sized {
		log.Info("sized", "setting", st.name, "value", st.value, "from", st.from)
	}
	limit, source := memLimit(o.MemLimit, os.Getenv("GOMEMLIMIT"))
	if source == "-mem-limit" {
		debug.SetMemoryLimit(limit)
	}
	shown := "none"
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		shown = bytesize.Format(l)
	}
	log.Info("memory limit", "GOMEMLIMIT", shown, "from", source)
	if o.BDD.Dir != "" {
		log.Info("compiled BDD spaces and uploaded models kept on disk", "dir", o.BDD.Dir)
	} else {
		log.Info("compiled BDD spaces and uploaded models kept in memory only (-cache-dir off or no cache directory)")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return server.Run(ctx, o.Server, log, o.engines(log), ready)
}

// memLimit decides the runtime's soft memory limit: the flag's value
// (source "-mem-limit", to be set with debug.SetMemoryLimit), unless the
// environment variable GOMEMLIMIT is set (the runtime has read it already:
// the person who set it meant it, source "GOMEMLIMIT") or the flag is 0
// (source "runtime", its default of no limit).
func memLimit(flag int64, env string) (limit int64, source string) {
	switch {
	case env != "":
		return 0, "GOMEMLIMIT"
	case flag == 0:
		return 0, "runtime"
	}
	return flag, "-mem-limit"
}

// options is the command line: the server's configuration and the options
// of each backend.
type options struct {
	Server   server.Config
	MemLimit int64 // the runtime's soft memory limit, in bytes; 0 leaves it
	// memory is what the server may use, and memoryErr why it is not
	// known (a default stands in); sized lists the settings derived from
	// it, and those flags gave.
	memory    sysmem.Limit
	memoryErr error
	sized     []setting
	BDD       struct {
		MaxN        int           // largest board
		CompileMaxN int           // largest board compiled; larger ones only loaded
		Budget      int64         // node budget in bytes of one compile or load
		Dir         string        // where compiled spaces are kept; "": none
		Scratch     int64         // work space of the queries running at once, in bytes
		Deadline    time.Duration // per request
	}
	SAT struct {
		MaxN     int           // largest board
		Queue    int           // requests that may wait for the solver
		Serve    int           // requests served at once, one per client; 0: two per core
		CountCap int           // solutions counted before saying "at least"
		Deadline time.Duration // per request
	}
}

// engines is the registry of backends, the one place that names them, in
// the order the page lists them: the BDD first, as the primary (it counts
// exactly and draws), then the SAT, then the plain SAT baseline (within
// the SAT backend's limits and its own: it needs minutes where the SAT
// backend needs milliseconds).
func (o options) engines(log *slog.Logger) []server.Engine {
	return []server.Engine{
		{
			Backend: bdd.New(bdd.Options{Budget: o.BDD.Budget, MaxN: o.BDD.MaxN, CompileMaxN: o.BDD.CompileMaxN,
				Scratch: o.BDD.Scratch, Dir: o.BDD.Dir, SpareCore: true, Log: log}),
			Deadline: o.BDD.Deadline,
			Budget:   o.BDD.Budget,
			Title:    "Binary decision diagram: compiled once, then every answer is a walk over it",
		},
		{
			Backend: sat.New(sat.Options{MaxN: o.SAT.MaxN, Queue: o.SAT.Queue, Serve: o.SAT.Serve,
				CountCap: o.SAT.CountCap, ModelCountTime: modelCountTime, Timeout: o.SAT.Deadline}),
			Deadline: o.SAT.Deadline,
			Title:    "SAT solver: clauses written once, then gophersat asked about the squares its own propagation and search leave open; no diagram",
		},
		{
			Backend: plain.New(plain.Options{MaxN: min(o.SAT.MaxN, plain.DefaultMaxN), Queue: o.SAT.Queue, CountCap: o.SAT.CountCap,
				ModelCountTime: modelCountTime}),
			Deadline: o.SAT.Deadline,
			Title:    "Plain SAT: gophersat alone on the pairwise encoding, a solver call per undecided square (the baseline)",
		},
	}
}

// modelCountTime bounds the SAT backends' count of a feature model's
// configurations after each answer's domains: a person waits for the
// domains, and a count past it says "at least" what it reached.
const modelCountTime = 100 * time.Millisecond

// setting is one of the settings sized to the memory: its name (a flag's,
// with its dash, when a flag sets it), its value and where the value came
// from.
type setting struct{ name, value, from string }

// The largest boards the BDD serves and compiles when memory allows, and
// the memory assumed when the machine does not say.
const (
	bddMaxN        = 16
	bddCompileMaxN = 15
	defaultMemory  = 8 << 30
)

// parseFlags reads the command line; memory reads the memory the process
// may use, for the settings sized to it that no flag gives.
func parseFlags(args []string, out io.Writer, memory func() (sysmem.Limit, error)) (options, error) {
	var o options
	c := &o.Server
	*c = server.DefaultConfig()
	o.BDD.Deadline = 10 * time.Second
	o.SAT.MaxN, o.SAT.Queue, o.SAT.Serve, o.SAT.CountCap, o.SAT.Deadline = 32, 32, 0, 1000, 10*time.Second
	var mem int64

	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(out)
	size := func(p *int64, name, usage string) { fs.Var((*bytesize.Size)(p), name, usage) }
	fs.StringVar(&c.Addr, "addr", c.Addr, "address to listen on")
	size(&mem, "memory", "memory the server may use, in bytes (suffixes K, M, G: powers of 1024), to which the settings marked \"sized\" are sized; 0: what the machine, or the process's memory cgroup, gives")
	fs.IntVar(&o.BDD.MaxN, "bdd-max-n", 0, "largest board of the BDD backend (sized: the largest whose compile or load fits -cache, at most 16)")
	fs.IntVar(&o.BDD.CompileMaxN, "bdd-compile-max-n", 0, "largest board the BDD backend compiles; larger ones, up to -bdd-max-n, are served only from a compiled file in -cache-dir (nqueens count -n N writes it) (sized: at most 15)")
	size(&o.BDD.Budget, "bdd-budget", "node budget of one BDD compile or load, in bytes, 32 a node (suffixes K, M, G: powers of 1024): 1.6G holds 15×15, 8.7G 16×16 (sized: -cache)")
	size(&o.BDD.Scratch, "bdd-scratch", "work space of the BDD queries running at once, in bytes (what each visits: tens of bytes a node of its part; 17 bytes a node of the whole diagram for an empty board's first analysis, which runs alone if larger); more wait (sized: an eighth of -mem-limit, 64M to 1G)")
	fs.DurationVar(&o.BDD.Deadline, "bdd-deadline", o.BDD.Deadline, "deadline of one request's work on the BDD backend")
	fs.StringVar(&o.BDD.Dir, "cache-dir", bdd.DefaultDir(), "`directory` where compiled BDD spaces are kept, so that a restart loads them instead of compiling again, and the uploaded feature models (in its folder models); \"off\" or empty: none")
	fs.DurationVar(&c.Spaces.Deadline, "compile-deadline", c.Spaces.Deadline, "deadline of one compile (a BDD of a large board takes a while, once)")
	fs.IntVar(&o.SAT.MaxN, "sat-max-n", o.SAT.MaxN, "largest board of the SAT backend")
	fs.IntVar(&o.SAT.Queue, "sat-queue", o.SAT.Queue, "requests of one client address that may wait for the SAT solver; more get 503")
	fs.IntVar(&o.SAT.Serve, "sat-serve", o.SAT.Serve, "requests the SAT backend serves at once, at most one per client address; the others wait, served round robin among addresses; their solver calls share the cores in slices (0: two per core)")
	fs.IntVar(&o.SAT.CountCap, "sat-count-cap", o.SAT.CountCap, "solutions the SAT backend counts before it says \"at least\"")
	fs.DurationVar(&o.SAT.Deadline, "sat-deadline", o.SAT.Deadline, "deadline of one request's work on the SAT backend")
	size(&c.Spaces.Bytes, "cache", "bound of the compiled spaces held and the compiles and loads under way, in bytes (sized: -mem-limit less -bdd-scratch, a sixteenth for the feature models and an eighth for the rest)")
	fs.IntVar(&c.Spaces.Recycle, "recycle", c.Spaces.Recycle, "requests after which a compiled space that does not report its memory (a SAT solver, which keeps the clauses it learns) is compiled afresh; 0: never")
	fs.IntVar(&c.Spaces.Slots, "compile-slots", 0, "large BDD compiles (12×12 and up) of one board size that may run at once, each within its node budget; small ones never wait (sized: as many of the largest as -cache holds, at most one a core)")
	fs.DurationVar(&c.QuickWait, "quick-wait", c.QuickWait, "how long a page waits for a compile before it shows progress")
	fs.DurationVar(&c.Guard.RequestDeadline, "deadline", c.Guard.RequestDeadline, "deadline of every request (the progress stream excepted)")
	size(&c.Guard.BodyLimit, "body-limit", "largest request body, in bytes")
	fs.Float64Var(&c.Guard.Client.Rate, "rate", c.Guard.Client.Rate, "requests a second of one client address, on every route that does work (pages, diagrams, progress, API); 0: no limit")
	fs.IntVar(&c.Guard.Client.Burst, "burst", c.Guard.Client.Burst, "requests a client address may send in a burst beyond -rate")
	proxies := fs.String("trusted-proxies", "", "address ranges (10.0.0.0/8,fd00::/8) or addresses, comma-separated, of the reverse proxies whose X-Forwarded-For header names the client; none: the client is the connection's address")
	fs.IntVar(&c.Guard.Client.Concurrent, "concurrent", c.Guard.Client.Concurrent, "requests of one client address in flight at once; more get 429 (0: no cap)")
	fs.Float64Var(&c.Guard.Loopback.Rate, "loopback-rate", c.Guard.Loopback.Rate, "-rate for loopback addresses (127.0.0.1, ::1); 0: no limit")
	fs.IntVar(&c.Guard.Loopback.Burst, "loopback-burst", c.Guard.Loopback.Burst, "-burst for loopback addresses")
	fs.IntVar(&c.Guard.Loopback.Concurrent, "loopback-concurrent", c.Guard.Loopback.Concurrent, "-concurrent for loopback addresses (0: no cap)")
	// Other names of -rate and -burst, which scripts pass.
	fs.Float64Var(&c.Guard.Client.Rate, "api-rate", c.Guard.Client.Rate, "older name of -rate")
	fs.IntVar(&c.Guard.Client.Burst, "api-burst", c.Guard.Client.Burst, "older name of -burst")
	fs.IntVar(&c.DiagramNodes, "diagram-nodes", c.DiagramNodes, "largest decision diagram of a feature model the page draws whole, in nodes (past it, the profile of its levels)")
	fs.DurationVar(&c.DiagramDeadline, "diagram-deadline", c.DiagramDeadline, "deadline of drawing one diagram")
	fs.StringVar(&c.DebugAddr, "debug-addr", c.DebugAddr, "loopback address (127.0.0.1:6060) of /debug/stats and /debug/pprof; empty: none")
	fs.IntVar(&c.Guard.MaxConns, "max-conns", c.Guard.MaxConns, "connections open at once on the public listener; more are answered 503 and closed at once (0: no cap)")
	fs.DurationVar(&c.Guard.IdleTimeout, "idle-timeout", c.Guard.IdleTimeout, "how long an idle keep-alive connection stays open")
	size(&o.MemLimit, "mem-limit", "soft memory limit of the process (GOMEMLIMIT), in bytes; 0 leaves the runtime's; the environment variable GOMEMLIMIT wins (sized: two thirds of -memory)")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", c.ShutdownGrace, "time in-flight requests get to finish after SIGINT or SIGTERM")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.BDD.Dir == "off" {
		o.BDD.Dir = ""
	}
	if o.BDD.Dir != "" {
		c.Models.Dir = filepath.Join(o.BDD.Dir, "models")
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := o.size(mem, given, memory); err != nil {
		fmt.Fprintln(out, "web:", err)
		return o, err
	}
	var err error
	if c.Guard.TrustedProxies, err = guard.ParseProxies(*proxies); err != nil {
		err = fmt.Errorf("-trusted-proxies: %w", err)
		fmt.Fprintln(out, "web:", err)
		return o, err
	}
	if err := o.check(fs); err != nil {
		// The flag package reports its own errors; these are ours.
		fmt.Fprintln(out, "web:", err)
		return o, err
	}
	return o, nil
}

// size reads the memory the server may use (the -memory flag's mem, or
// what memory reads; defaultMemory when it cannot) and gives each setting
// sized to it that no flag gave (given holds the flags given) its sized
// value (package sizing), noting in o.sized where each came from.
func (o *options) size(mem int64, given map[string]bool, memory func() (sysmem.Limit, error)) error {
	switch {
	case mem < 0:
		return fmt.Errorf("-memory must not be negative (0: what the machine gives)")
	case mem > 0:
		o.memory = sysmem.Limit{Bytes: mem, Source: "-memory"}
	default:
		o.memory, o.memoryErr = memory()
		if o.memoryErr != nil {
			o.memory = sysmem.Limit{Bytes: defaultMemory, Source: "default"}
		}
	}
	probe := bdd.New(bdd.Options{})
	cost := func(n int) int64 { return probe.Cost(n, configurator.RowMajor).Bytes }
	maxN, compileMaxN := bddMaxN, bddCompileMaxN
	if given["bdd-max-n"] {
		maxN = min(maxN, o.BDD.MaxN)
	}
	if given["bdd-compile-max-n"] {
		compileMaxN = o.BDD.CompileMaxN
	}
	cache := int64(0)
	if given["cache"] {
		cache = o.Server.Spaces.Bytes
	}
	p := sizing.For(o.memory.Bytes, cache, cost, max(maxN, 1), max(compileMaxN, 1), runtime.GOMAXPROCS(0))
	o.Server.MemoryBound = p.Peak
	from := fmt.Sprintf("%s of memory (%s)", bytesize.Format(o.memory.Bytes), o.memory.Source)
	for _, st := range []struct {
		flag  string
		bytes *int64
		n     *int
		sized int64
	}{
		{"mem-limit", &o.MemLimit, nil, p.SoftLimit},
		{"cache", &o.Server.Spaces.Bytes, nil, p.Cache},
		{"bdd-budget", &o.BDD.Budget, nil, p.Cache},
		{"bdd-scratch", &o.BDD.Scratch, nil, p.Scratch},
		{"compile-slots", nil, &o.Server.Spaces.Slots, int64(p.Slots)},
		{"bdd-compile-max-n", nil, &o.BDD.CompileMaxN, int64(p.CompileMaxN)},
	} {
		src := from
		switch {
		case given[st.flag]:
			src = "its flag"
		case st.bytes != nil:
			*st.bytes = st.sized
		default:
			*st.n = int(st.sized)
		}
		value := ""
		if st.bytes != nil {
			value = bytesize.Format(*st.bytes)
		} else {
			value = strconv.Itoa(*st.n)
		}
		o.sized = append(o.sized, setting{"-" + st.flag, value, src})
	}
	// The feature models' store has its share, and no flag.
	o.Server.Models.Bytes = p.Models
	o.sized = append(o.sized, setting{"feature models in memory", bytesize.Format(p.Models), from})
	// The largest board is the budget's to bound (the backend then says
	// so in its refusals), up to bddMaxN.
	src := "the largest whose compile or load fits -bdd-budget"
	if given["bdd-max-n"] {
		src = "its flag"
	} else {
		o.BDD.MaxN = bddMaxN
	}
	o.sized = append(o.sized, setting{"-bdd-max-n", strconv.Itoa(min(o.BDD.MaxN, p.MaxN)), src})
	return nil
}

// check validates a parsed command line.
func (o options) check(fs *flag.FlagSet) error {
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.BDD.MaxN < 1 || o.SAT.MaxN < 1:
		return fmt.Errorf("-bdd-max-n and -sat-max-n must be at least 1")
	case o.BDD.CompileMaxN < 1:
		return fmt.Errorf("-bdd-compile-max-n must be at least 1")
	case o.Server.Spaces.Slots < 1:
		return fmt.Errorf("-compile-slots must be at least 1")
	case o.SAT.Serve < 0:
		return fmt.Errorf("-sat-serve must not be negative (0: two per core)")
	case o.BDD.Scratch < 1:
		return fmt.Errorf("-bdd-scratch must be positive")
	case o.BDD.Deadline <= 0 || o.SAT.Deadline <= 0:
		return fmt.Errorf("deadlines must be positive")
	case o.MemLimit < 0:
		return fmt.Errorf("-mem-limit must not be negative (0: the runtime's setting)")
	}
	return o.Server.Check()
}
