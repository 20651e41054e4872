package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	soakDuration = flag.Duration("soak.duration", 15*time.Second, "length of the short soak's measured run")
	soakClients  = flag.Int("soak.clients", 16, "clients of the short soak")
)

// webBinary is the server binary the tests start, built by TestMain. It is
// built without the race detector even when the tests run with it: the
// server's concurrency is raced in-process by cmd/web's tests, and a race
// build is eight times slower, too slow for the soak to reach its steady
// state in the time make test gives it.
var webBinary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "soak-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	webBinary = filepath.Join(dir, "web")
	cmd := exec.Command(goTool(), "build", "-o", webBinary, "github.com/nqueens/configurator/cmd/web")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building the server:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool is the go command of the toolchain running the tests.
func goTool() string {
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// TestShortSoak is the soak of `make soak`, shorter and with fewer clients,
// against the real server binary: every kind of request, both backends,
// boards up to 12×12 (BDD) and 20×20 (SAT), one request in ten bad. It
// fails on any 5xx, any request unanswered within its deadline or answered
// with a status it did not expect, any error in the server's log, goroutines
// or heap after a GC more than 10 % above their values before the run, or
// an unclean exit after SIGTERM.
func TestShortSoak(t *testing.T) {
	var log strings.Builder
	cfg := config{
		Server: webBinary, Duration: *soakDuration, Warmup: 30 * time.Second, WarmupRequests: 1500, Clients: *soakClients,
		BDDMaxN: 12, SATMaxN: 20, Seed: 1, Tolerance: 0.10, Settle: 20 * time.Second, Timeout: 35 * time.Second,
		ServerLog: &limitedWriter{w: &log, n: 1 << 20}, Progress: testWriter{t},
	}
	r, err := soak(context.Background(), cfg)
	if err != nil {
		t.Fatalf("soak: %v\nserver log (start):\n%s", err, log.String())
	}
	var sum strings.Builder
	r.summary(&sum)
	t.Log("\n" + sum.String())
	if !r.passed() {
		t.Errorf("the soak failed: %s", strings.Join(r.failures, "; "))
	}
	// The workload really ran: every kind of request was answered, both
	// backends served, and the bad requests were refused.
	for _, label := range []string{"analyze bdd", "analyze sat", "explain bdd", "explain sat", "complete bdd", "complete sat",
		"page bdd", "page sat", "page both", "play bdd", "play sat", "diagram", "bad: n in words", "bad: body over the limit"} {
		if lr := r.run.Labels[label]; lr == nil || lr.Answered == 0 {
			t.Errorf("no %q request was answered", label)
		}
	}
	if r.run.Status[200] == 0 || r.run.Status[400] == 0 || r.run.Status[413] == 0 || r.run.Status[422] == 0 {
		t.Errorf("statuses %v: want 200, 400, 413 and 422 among them", r.run.Status)
	}
}

// TestKillMidCompile kills the server with SIGKILL while it compiles a
// 13×13 BDD, starts it again on the same address and checks that nothing
// was lost: the board's address shows the same board at once (its state
// is the address; the page shows the compile's progress), a small board
// answers at once, the large one is served once compiled, and SIGTERM then
// stops the server cleanly.
func TestKillMidCompile(t *testing.T) {
	args := []string{"-addr", "127.0.0.1:0", "-bdd-max-n", "13"}
	p, err := startServer(context.Background(), webBinary, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	const board = "/?n=13&q=a1,c2&backend=bdd"
	status, body := fetch(t, p.URL+board)
	if status != 200 || !strings.Contains(body, "Compiling the 13×13 BDD") {
		t.Fatalf("the 13×13 board before the kill: %d\n%s", status, excerpt(body))
	}
	answered := make(chan error, 1)
	go func() {
		res, err := http.Post(p.URL+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":13}`))
		if err == nil {
			res.Body.Close()
			err = fmt.Errorf("answered %d", res.StatusCode)
		}
		answered <- err
	}()
	time.Sleep(200 * time.Millisecond) // the API request waits for the same compile
	p.kill()
	if err := <-answered; err == nil || strings.Contains(err.Error(), "answered") {
		t.Errorf("the request in flight at SIGKILL: %v, want a broken connection", err)
	}

	addr := strings.TrimPrefix(p.URL, "http://")
	p2, err := startServer(context.Background(), webBinary, []string{"-addr", addr, "-bdd-max-n", "13"}, nil)
	if err != nil {
		t.Fatalf("restarting on %s: %v", addr, err)
	}
	defer p2.kill()
	start := time.Now()
	status, body = fetch(t, p2.URL+board)
	took := time.Since(start)
	// The page shows the compile's progress with the board's state in
	// its controls, or, if the compile was quicker, the board itself.
	compiling := strings.Contains(body, "Compiling the 13×13 BDD") && strings.Contains(body, `<input type="hidden" name="q" value="a1,c2">`)
	shown := strings.Contains(body, `id="cell-a1" class="cell dark queen"`) && strings.Contains(body, `id="cell-c2" class="cell dark queen"`)
	if status != 200 || took > 10*time.Second || !(compiling || shown) {
		t.Errorf("the same address after the restart: %d in %v\n%s", status, took, excerpt(body))
	}
	start = time.Now()
	status, body = fetch(t, p2.URL+"/?n=8&q=a1")
	if took := time.Since(start); status != 200 || took > 5*time.Second || !strings.Contains(body, `id="count">4 solutions<`) {
		t.Errorf("a small board while the large one compiles: %d in %v", status, took)
	}
	res, err := http.Post(p2.URL+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":13}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(b), `"solutions":"73712"`) {
		t.Errorf("the 13×13 after the restart: %d %s", res.StatusCode, b)
	}
	if err := p2.stop(30 * time.Second); err != nil {
		t.Error(err)
	}
	if _, errs, first := p2.log.counts(); errs > 0 {
		t.Errorf("the restarted server logged %d errors: %v", errs, first)
	}
}

// TestTermDrains sends SIGTERM to the server binary while a request waits
// for a 13×13 compile: the request is answered in full, and the server
// exits with status 0.
func TestTermDrains(t *testing.T) {
	p, err := startServer(context.Background(), webBinary, []string{"-addr", "127.0.0.1:0", "-bdd-max-n", "13"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.kill()
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		res, err := http.Post(p.URL+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":13}`))
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		answered <- answer{res.StatusCode, string(b), err}
	}()
	status, body := fetch(t, p.URL+"/?n=13")
	if status != 200 || !strings.Contains(body, "Compiling the 13×13 BDD") {
		t.Fatalf("the 13×13 board is not compiling: %d", status)
	}
	if err := p.stop(60 * time.Second); err != nil {
		t.Error(err)
	}
	a := <-answered
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, `"solutions":"73712"`) {
		t.Errorf("the request in flight at SIGTERM: %d %v %s", a.status, a.err, a.body)
	}
	if !strings.Contains(p.log.tail(), "msg=stopped") {
		t.Errorf("the server did not log its stop:\n%s", p.log.tail())
	}
}

// fetch gets a URL and returns the status and body.
func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{Timeout: time.Minute}
	res, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return res.StatusCode, string(b)
}

func excerpt(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// testWriter writes the soak's progress to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
