package benchmarks

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"
)

// TestMain doubles as a fake web server when the environment asks for
// one, so that StartServer can be tested without building cmd/web: it
// listens where -addr says, logs its address as cmd/web does and serves
// /healthz until SIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv("BENCHMARKS_FAKE_SERVER") == "1" {
		fakeServer()
		return
	}
	os.Exit(m.Run())
}

func fakeServer() {
	fs := flag.NewFlagSet("fake", flag.ExitOnError)
	addr := fs.String("addr", "", "")
	fs.Float64("api-rate", 20, "")
	fs.Parse(os.Args[1:])
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "time=2026-01-01T00:00:00Z level=INFO msg=\"serving the N-Queens configurator\" url=http://%s/ bdd_max_n=14\n", ln.Addr())
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	go http.Serve(ln, mux)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM)
	<-sig
	os.Exit(0)
}

func TestStartServer(t *testing.T) {
	t.Setenv("BENCHMARKS_FAKE_SERVER", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := StartServer(context.Background(), exe, "-api-rate", "0")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s/healthz: %s", s.URL, resp.Status)
	}
	if rss, err := s.PeakRSS(); err != nil || rss < 1<<20 {
		t.Errorf("PeakRSS = %d, %v; want a few MiB", rss, err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if _, err := http.Get(s.URL + "/healthz"); err == nil {
		t.Errorf("%s still answers after Stop", s.URL)
	}
}

func TestStartServerThatFails(t *testing.T) {
	t.Setenv("BENCHMARKS_FAKE_SERVER", "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// An unknown flag: the fake exits at once, before listening.
	if s, err := StartServer(context.Background(), exe, "-no-such-flag"); err == nil {
		s.Stop()
		t.Fatal("StartServer of a server that exits: no error")
	}
}

func TestLogField(t *testing.T) {
	line := `time=2026-01-01T00:00:00Z level=INFO msg="serving the N-Queens configurator" url=http://127.0.0.1:41234/ bdd_max_n=14 bdd_budget="2 GiB"`
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

func TestProcStatus(t *testing.T) {
	rss, err := ProcStatus("self", "VmRSS")
	if err != nil || rss < 1<<20 {
		t.Errorf("VmRSS of the test = %d, %v", rss, err)
	}
	if _, err := ProcStatus("self", "NoSuchField"); err == nil {
		t.Error("a missing field: no error")
	}
	if total, err := MemInfo("MemTotal"); err != nil || total < 256<<20 {
		t.Errorf("MemTotal = %d, %v", total, err)
	}
}
