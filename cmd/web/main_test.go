package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/internal/sysmem"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		args  []string
		check func(options) bool
		err   bool
	}{
		{args: nil, check: func(c options) bool {
			// Sized to the 24 GiB of the test's machine: of the soft limit
			// of 16 GiB, 2 GiB for the rest, 1 GiB of work space and 256 MiB
			// for the feature models leave 12.75 GiB to the cache.
			return c.Server.Addr == "127.0.0.1:8080" && c.BDD.MaxN == 16 && c.BDD.CompileMaxN == 15 && c.BDD.Budget == 13056<<20 && c.Server.Spaces.Bytes == 13056<<20 &&
				c.Server.Models.Bytes == 256<<20 && c.Server.Spaces.Slots == min(2, runtime.GOMAXPROCS(0)) && c.Server.MemoryBound == 20<<30 && c.memory.Source == "the test's machine"
		}},
		{args: []string{"-memory", "3G"}, check: func(c options) bool {
			return c.BDD.MaxN == 16 && c.BDD.CompileMaxN == 14 && c.MemLimit == 2<<30 && c.BDD.Scratch == 256<<20 &&
				c.Server.Spaces.Bytes == 1408<<20 && c.BDD.Budget == 1408<<20 && c.Server.Models.Bytes == 128<<20 && c.Server.MemoryBound == 2560<<20 && c.memory.Source == "-memory"
		}},
		{args: []string{"-memory", "3G", "-bdd-max-n", "10", "-cache", "2G", "-mem-limit", "0"}, check: func(c options) bool {
			return c.BDD.MaxN == 10 && c.BDD.CompileMaxN == 10 && c.Server.Spaces.Bytes == 2<<30 && c.BDD.Budget == 2<<30 && c.MemLimit == 0
		}},
		{args: []string{"-memory", "-1"}, err: true},
		{args: []string{"-bdd-max-n", "15", "-bdd-compile-max-n", "12"}, check: func(c options) bool {
			return c.BDD.MaxN == 15 && c.BDD.CompileMaxN == 12
		}},
		{args: []string{"-bdd-compile-max-n", "0"}, err: true},
		{args: []string{"-addr", ":9000", "-bdd-max-n", "10", "-bdd-budget", "512M", "-sat-max-n", "20"},
			check: func(c options) bool {
				return c.Server.Addr == ":9000" && c.BDD.MaxN == 10 && c.BDD.Budget == 512<<20 && c.SAT.MaxN == 20
			}},
		{args: []string{"-bdd-budget", "1GiB", "-cache", "3g", "-body-limit", "1024"},
			check: func(c options) bool {
				return c.BDD.Budget == 1<<30 && c.Server.Spaces.Bytes == 3<<30 && c.Server.Guard.BodyLimit == 1024
			}},
		{args: []string{"-bdd-deadline", "2s", "-sat-deadline", "500ms", "-deadline", "1m", "-api-rate", "0"},
			check: func(c options) bool {
				return c.BDD.Deadline == 2*time.Second && c.SAT.Deadline == 500*time.Millisecond && c.Server.Guard.RequestDeadline == time.Minute && c.Server.Guard.Client.Rate == 0
			}},
		{args: []string{"-bdd-scratch", "256M", "-recycle", "0", "-debug-addr", "127.0.0.1:6060"},
			check: func(c options) bool {
				return c.BDD.Scratch == 256<<20 && c.Server.Spaces.Recycle == 0 && c.Server.DebugAddr == "127.0.0.1:6060"
			}},
		{args: nil, check: func(c options) bool {
			return c.BDD.Scratch == 1<<30 && c.Server.Spaces.Recycle == 50 && c.Server.DebugAddr == "" && c.SAT.Serve == 0
		}},
		{args: []string{"-compile-slots", "0"}, err: true},
		{args: nil, check: func(c options) bool {
			return c.Server.Guard.MaxConns == 1024 && c.Server.Guard.IdleTimeout == 15*time.Second && c.Server.Guard.MaxHeaderBytes == 16<<10 && c.MemLimit == 16<<30
		}},
		{args: []string{"-max-conns", "64", "-idle-timeout", "3s", "-mem-limit", "2G"}, check: func(c options) bool {
			return c.Server.Guard.MaxConns == 64 && c.Server.Guard.IdleTimeout == 3*time.Second && c.MemLimit == 2<<30
		}},
		{args: []string{"-max-conns", "0", "-mem-limit", "0"}, check: func(c options) bool { return c.Server.Guard.MaxConns == 0 && c.MemLimit == 0 }},
		{args: []string{"-max-conns", "-1"}, err: true},
		{args: []string{"-idle-timeout", "0s"}, err: true},
		{args: []string{"-mem-limit", "much"}, err: true},
		{args: []string{"-bdd-scratch", "0"}, err: true},
		{args: []string{"-sat-serve", "-1"}, err: true},
		{args: []string{"-sat-serve", "2", "-sat-queue", "8"}, check: func(c options) bool { return c.SAT.Serve == 2 && c.SAT.Queue == 8 }},
		{args: []string{"-debug-addr", ":6060"}, err: true},
		{args: []string{"-bdd-budget", "lots"}, err: true},
		{args: []string{"-bdd-max-n", "0"}, err: true},
		{args: []string{"-deadline", "0s"}, err: true},
		{args: []string{"extra"}, err: true},
	}
	for _, tt := range tests {
		c, err := parseFlags(tt.args, io.Discard, machine(24<<30))
		if (err != nil) != tt.err {
			t.Errorf("%q: error %v, want error %v", tt.args, err, tt.err)
			continue
		}
		if err == nil && !tt.check(c) {
			t.Errorf("%q: config %+v", tt.args, c)
		}
	}
	if _, err := parseFlags([]string{"-h"}, io.Discard, machine(24<<30)); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
	// A machine that does not say: sized to the default, and noted.
	o, err := parseFlags(nil, io.Discard, func() (sysmem.Limit, error) { return sysmem.Limit{}, errors.New("no /proc") })
	if err != nil || o.memory.Bytes != defaultMemory || o.memoryErr == nil || o.BDD.CompileMaxN != 15 {
		t.Errorf("a machine that does not say its memory: %+v, %v", o.memory, err)
	}
}

// machine is the memory of a test's machine.
func machine(bytes int64) func() (sysmem.Limit, error) {
	return func() (sysmem.Limit, error) { return sysmem.Limit{Bytes: bytes, Source: "the test's machine"}, nil }
}

func TestMemLimit(t *testing.T) {
	tests := []struct {
		flag       int64
		env        string
		limit      int64
		wantSource string
	}{
		{16 << 30, "", 16 << 30, "-mem-limit"},
		{2 << 30, "", 2 << 30, "-mem-limit"},
		{16 << 30, "4GiB", 0, "GOMEMLIMIT"},
		{0, "off", 0, "GOMEMLIMIT"},
		{0, "", 0, "runtime"},
	}
	for _, tt := range tests {
		limit, source := memLimit(tt.flag, tt.env)
		if limit != tt.limit || source != tt.wantSource {
			t.Errorf("memLimit(%d, %q) = %d, %q; want %d, %q", tt.flag, tt.env, limit, source, tt.limit, tt.wantSource)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 64 << 10: "64 KiB", 2 << 30: "2 GiB", 258211840: "246.2 MiB"} {
		if got := bytesize.Format(n); got != want {
			t.Errorf("bytesize.Format(%d) = %q, want %q", n, got, want)
		}
	}
}

// startServer runs the web server on a loopback port with args, writing
// its log to logs, until ctx ends (or SIGTERM), and returns its addresses
// once it listens (debugAddr is "" without -debug-addr) and the channel of
// run's result. It fails the test if the server does not start within 30 s.
func startServer(t *testing.T, ctx context.Context, logs io.Writer, args ...string) (addr, debugAddr string, exited <-chan error) {
	t.Helper()
	type addrs struct{ addr, debug string }
	ready := make(chan addrs, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), logs, func(addr, debugAddr string) { ready <- addrs{addr, debugAddr} })
	}()
	select {
	case a := <-ready:
		addr, debugAddr = a.addr, a.debug
	case err := <-done:
		t.Fatalf("the server did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not start in 30 s")
	}
	return addr, debugAddr, done
}

// stopServer cancels a server started by startServer and waits up to 30 s
// for it to exit.
func stopServer(t *testing.T, cancel context.CancelFunc, exited <-chan error) {
	t.Helper()
	cancel()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Error("the server did not stop")
	}
}

// metric is the value of the series named name (with its labels, as the
// server's /metrics writes them) on the debug listener at debugAddr, 0
// when there is none.
func metric(t *testing.T, debugAddr, name string) float64 {
	t.Helper()
	res, err := http.Get("http://" + debugAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// TestGracefulShutdown starts the server as main does, sends the process
// SIGTERM while a request waits for a compile, and checks that the request
// is answered in full and the server exits cleanly. The request's deadline
// and the shutdown's grace outlast the 12×12 compile however loaded the
// machine, so that the compile, not a deadline, ends the wait.
func TestGracefulShutdown(t *testing.T) {
	addr, debugAddr, exited := startServer(t, context.Background(), io.Discard,
		"-debug-addr", "127.0.0.1:0", "-bdd-max-n", "12", "-deadline", "10m", "-shutdown-grace", "10m")
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := http.Post("http://"+addr+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":12}`))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		answered <- answer{res.StatusCode, string(b), err}
	}()
	// The request has looked its space up (a miss: the 12×12 compiles) and
	// waits for it: SIGTERM now.
	configuratortest.WaitFor(t, "the request in flight", func() bool {
		return metric(t, debugAddr, `nqueens_cache_lookups_total{result="miss"}`) >= 1
	})
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answered:
		if a.err != nil || a.status != 200 || !strings.Contains(a.body, `"solutions":"14200"`) {
			t.Errorf("the request in flight at SIGTERM got %d %v: %s", a.status, a.err, a.body)
		}
	case <-time.After(10 * time.Minute):
		t.Fatal("the request in flight was never answered")
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("run after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit after SIGTERM")
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Errorf("the server still answers after shutting down")
	}
}
