package launch

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/server"
)

// TestMain doubles as a fake web server when the environment asks for
// one, so that the launcher can be tested without building cmd/web.
func TestMain(m *testing.M) {
	if os.Getenv("LAUNCH_FAKE_SERVER") == "1" {
		fakeServer()
		return
	}
	os.Exit(m.Run())
}

// fakeServer listens where -addr and -debug-addr say, logs its addresses
// as cmd/web does, then a warning and an error, serves /healthz and the
// debug routes, and exits on SIGTERM (unless -ignore-term).
func fakeServer() {
	fs := flag.NewFlagSet("fake", flag.ExitOnError)
	addr := fs.String("addr", "", "")
	debugAddr := fs.String("debug-addr", "", "")
	ignoreTerm := fs.Bool("ignore-term", false, "")
	fs.Float64("api-rate", 20, "")
	fs.Parse(os.Args[1:])
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM) // before it says it listens
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	go http.Serve(ln, mux)
	debug := ""
	if *debugAddr != "" {
		dln, err := net.Listen("tcp", *debugAddr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		dmux := http.NewServeMux()
		dmux.HandleFunc("GET /debug/stats", func(w http.ResponseWriter, r *http.Request) {
			st := server.Stats{Goroutines: 7, HeapAlloc: 1 << 20, CacheSpaces: 2, Backends: map[string]configurator.Occupancy{"bdd": {Waiting: 1, Bytes: 3 << 20}}}
			if r.URL.Query().Get("gc") == "1" {
				st.NumGC = 2
			}
			json.NewEncoder(w).Encode(st)
		})
		dmux.HandleFunc("POST /debug/recycle", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, `{"retired":1}`) })
		dmux.HandleFunc("GET /debug/pprof/heap", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "profile") })
		go http.Serve(dln, dmux)
		debug = fmt.Sprintf(" debug=http://%s/debug/stats", dln.Addr())
	}
	fmt.Fprintf(os.Stderr, "time=2026-01-01T00:00:00Z level=INFO msg=\"serving the configurator\" url=http://%s/ bdd_max_n=14%s\n", ln.Addr(), debug)
	fmt.Fprintln(os.Stderr, `time=2026-01-01T00:00:01Z level=WARN msg="request failed" status=413`)
	fmt.Fprintln(os.Stderr, `time=2026-01-01T00:00:02Z level=ERROR msg="request failed" status=500`)
	for range sig {
		if !*ignoreTerm {
			fmt.Fprintln(os.Stderr, "time=2026-01-01T00:00:03Z level=INFO msg=stopped")
			os.Exit(0)
		}
	}
}

// fake is this test binary, to be started as the fake server.
func fake(t *testing.T) string {
	t.Helper()
	t.Setenv("LAUNCH_FAKE_SERVER", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestStart(t *testing.T) {
	var copied strings.Builder
	p, err := Start(context.Background(), fake(t), Options{Log: &copied}, "-api-rate", "0")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") || strings.HasSuffix(p.URL(), "/") || p.DebugURL() != "" {
		t.Errorf("URL %q, DebugURL %q: want http://127.0.0.1:port and none", p.URL(), p.DebugURL())
	}
	resp, err := http.Get(p.URL() + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s/healthz: %s", p.URL(), resp.Status)
	}
	if rss, err := p.PeakRSS(); err != nil || rss < 1<<20 {
		t.Errorf("PeakRSS = %d, %v; want a few MiB", rss, err)
	}
	if _, err := p.Stats(context.Background(), false); err == nil {
		t.Error("Stats of a server without a debug listener: no error")
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if _, err := http.Get(p.URL() + "/healthz"); err == nil {
		t.Errorf("%s still answers after Stop", p.URL())
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Errorf("Stop of a stopped server: %v", err)
	}
	log := p.Log()
	if log.Warnings != 1 || log.Errors != 1 || len(log.FirstErrors) != 1 || !strings.Contains(log.FirstErrors[0], "status=500") {
		t.Errorf("Log() = %+v: want 1 warning and the error of status 500", log)
	}
	if !strings.HasSuffix(log.Tail, "msg=stopped") || !strings.Contains(copied.String(), "url=http://127.0.0.1:") {
		t.Errorf("the tail ends %q, the copy %q: want msg=stopped last and the start-up line copied", log.Tail, copied.String())
	}
}

func TestStartDebug(t *testing.T) {
	p, err := Start(context.Background(), fake(t), Options{Debug: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	if !strings.HasPrefix(p.DebugURL(), "http://127.0.0.1:") || p.DebugURL() == p.URL() {
		t.Errorf("DebugURL %q (URL %q): want a loopback root of its own", p.DebugURL(), p.URL())
	}
	ctx := context.Background()
	for _, gc := range []bool{false, true} {
		st, err := p.Stats(ctx, gc)
		want := server.Stats{Goroutines: 7, HeapAlloc: 1 << 20, CacheSpaces: 2, Backends: map[string]configurator.Occupancy{"bdd": {Waiting: 1, Bytes: 3 << 20}}}
		if gc {
			want.NumGC = 2
		}
		if err != nil || !reflect.DeepEqual(st, want) {
			t.Errorf("Stats(gc=%v) = %+v, %v; want %+v", gc, st, err, want)
		}
	}
	if err := p.Recycle(ctx); err != nil {
		t.Errorf("Recycle: %v", err)
	}
	path := filepath.Join(t.TempDir(), "heap.pb.gz")
	if err := p.HeapProfile(ctx, path); err != nil {
		t.Errorf("HeapProfile: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "profile" {
		t.Errorf("the heap profile written: %q, %v", b, err)
	}
}

func TestStartOnAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	p, err := Start(context.Background(), fake(t), Options{Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	if p.URL() != "http://"+addr {
		t.Errorf("URL = %q, want http://%s", p.URL(), addr)
	}
}

func TestStartExits(t *testing.T) {
	// An unknown flag: the fake exits at once, before listening.
	if p, err := Start(context.Background(), fake(t), Options{}, "-no-such-flag"); err == nil {
		p.Kill()
		t.Fatal("Start of a server that exits: no error")
	} else if !strings.Contains(err.Error(), "no-such-flag") {
		t.Errorf("Start: %v; want the server's complaint in the error", err)
	}
}

func TestStopKillsAfterGrace(t *testing.T) {
	p, err := Start(context.Background(), fake(t), Options{}, "-ignore-term")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = p.Stop(200 * time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Stop of a server that ignores SIGTERM: %v, want killed", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Stop took %v with a grace of 200ms", took)
	}
}

func TestLogField(t *testing.T) {
	line := `time=2026-01-01T00:00:00Z level=INFO msg="serving the configurator" url=http://127.0.0.1:41234/ bdd_max_n=14 bdd_budget="2 GiB"`
	tests := []struct{ key, want string }{
		{"url", "http://127.0.0.1:41234/"},
		{"bdd_max_n", "14"},
		{"level", "INFO"},
		{"port", ""},
	}
	for _, tt := range tests {
		if got := logField(line, tt.key); got != tt.want {
			t.Errorf("logField(%q) = %q, want %q", tt.key, got, tt.want)
		}
	}
}

// TestLogWatch feeds a log line by line: the first line with an http url
// gives the addresses; errors, races and panics count as errors.
func TestLogWatch(t *testing.T) {
	lines := []string{
		`time=T level=INFO msg="request" url=/api/v1/analyze`,
		`time=T level=INFO msg="serving the configurator" url=http://127.0.0.1:8080/ debug=http://127.0.0.1:6060/debug/stats`,
		`time=T level=INFO msg="serving the configurator" url=http://127.0.0.1:9999/`,
		`time=T level=WARN msg="request failed" status=429`,
		`time=T level=ERROR msg="request failed" status=500`,
		`WARNING: DATA RACE`,
		`panic: runtime error`,
		`time=T level=WARN msg="request failed" status=503`,
	}
	w := newLogWatch(nil)
	for _, l := range lines {
		w.line(l)
	}
	url, debug := w.addresses()
	if url != "http://127.0.0.1:8080" || debug != "http://127.0.0.1:6060" {
		t.Errorf("addresses %q, %q; want http://127.0.0.1:8080 and http://127.0.0.1:6060", url, debug)
	}
	got := w.summary()
	if got.Warnings != 2 || got.Errors != 3 || len(got.FirstErrors) != 3 || got.FirstErrors[1] != "WARNING: DATA RACE" {
		t.Errorf("summary %+v: want 2 warnings, 3 errors", got)
	}
	if got.Tail != strings.Join(lines, "\n") {
		t.Errorf("tail %q, want every line", got.Tail)
	}
}

// TestInProcess serves an 8×8 BDD in the test's own process, asks it for
// the board's count and stops it.
func TestInProcess(t *testing.T) {
	cfg := server.DefaultConfig()
	cfg.Addr, cfg.DebugAddr = "", "127.0.0.1:0"
	engines := []server.Engine{{Backend: bdd.New(bdd.Options{MaxN: 8}), Deadline: 10 * time.Second}}
	l, err := InProcess(context.Background(), cfg, slog.New(slog.DiscardHandler), engines...)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	if !strings.HasPrefix(l.URL(), "http://127.0.0.1:") || !strings.HasPrefix(l.DebugURL(), "http://127.0.0.1:") || l.URL() == l.DebugURL() {
		t.Errorf("URL %q, DebugURL %q: want two loopback roots", l.URL(), l.DebugURL())
	}
	res, err := http.Post(l.URL()+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":8}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"solutions":"92"`) {
		t.Errorf("analyze n=8: %s %s", res.Status, b)
	}
	if err := l.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := l.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	if _, err := http.Get(l.URL() + "/healthz"); err == nil {
		t.Errorf("%s still answers after Stop", l.URL())
	}
}

func TestInProcessAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cfg := server.DefaultConfig()
	cfg.Addr = ln.Addr().String()
	engines := []server.Engine{{Backend: bdd.New(bdd.Options{MaxN: 8}), Deadline: 10 * time.Second}}
	if l, err := InProcess(context.Background(), cfg, slog.New(slog.DiscardHandler), engines...); err == nil {
		l.Stop()
		t.Fatalf("InProcess on %s, which is taken: no error", cfg.Addr)
	}
}
