package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/internal/launch"
	"github.com/nqueens/configurator/internal/web/server"
)

var (
	soakRequests = flag.Int64("soak.requests", 1500, "requests of the short soak's measured run")
	soakClients  = flag.Int("soak.clients", 16, "clients of the short soak")
)

// shortSoakMemory is the memory the server of the short soak is told it
// may use, and so sizes itself to: its bound of the peak resident memory,
// five sixths of it, is 1 GiB.
const shortSoakMemory = "1229M"

// webBinary is the server binary the tests start, built by TestMain. It is
// built without the race detector even when the tests run with it: the
// server's concurrency is raced in-process by cmd/web's tests, and a race
// build is eight times slower, too slow for the soak to reach its steady
// state in the time make test gives it. With -short it is not built at
// all, and the tests that start it skip (needServer): make test runs them
// in its pass without -short and without the race detector, which would
// race only their own client side (benchmarks/loadgen's tests race that).
var webBinary string

// needServer skips a test that starts the server binary when TestMain did
// not build it.
func needServer(t *testing.T) {
	t.Helper()
	if webBinary == "" {
		t.Skip("starts the server binary: not with -short")
	}
}

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "soak-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	webBinary, err = launch.Build(context.Background(), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "building the server:", err)
		os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestShortSoak is the soak of `make soak`, shorter and with fewer clients,
// against the real server binary: every kind of request, both backends,
// boards up to 12×12 (BDD) and 20×20 (SAT), one request in ten bad. It
// fails on any 5xx, any request unanswered within its deadline or answered
// with a status it did not expect, any error in the server's log, goroutines
// or heap after a GC more than 10 % above their values before the run, a
// peak resident memory above the server's own bound (sized to
// shortSoakMemory), or an unclean exit after
// SIGTERM.
//
// The warm-up and the run are counted in requests, and the server's
// deadlines are minutes: on a loaded machine the soak does the same work,
// more slowly, rather than less work or slow answers cut into 503s. The
// durations and the request timeout only bound a hang.
func TestShortSoak(t *testing.T) {
	needServer(t)
	var log strings.Builder
	cfg := config{
		Server: webBinary, Duration: 5 * time.Minute, Requests: *soakRequests, Warmup: 5 * time.Minute, WarmupRequests: 1500,
		Clients: *soakClients, BDDMaxN: 12, SATMaxN: 20, Seed: 1, Tolerance: 0.10, Settle: time.Minute, Timeout: 6 * time.Minute,
		Memory: shortSoakMemory, MaxRSS: autoRSS,
		ServerLog: &limitedWriter{w: &log, n: 1 << 20}, Progress: testWriter{t},
		Extra: []string{"-deadline", "5m", "-bdd-deadline", "5m", "-sat-deadline", "5m"},
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
	if r.peakRSS == 0 {
		t.Error("the server's peak resident memory was not read")
	}
	if r.run.Status[200] == 0 || r.run.Status[400] == 0 || r.run.Status[413] == 0 || r.run.Status[422] == 0 {
		t.Errorf("statuses %v: want 200, 400, 413 and 422 among them", r.run.Status)
	}
}

// midCompile are the server's flags for the tests that stop it while it
// compiles a 14×14 BDD: compiled, not loaded from the user's cache, and a
// request deadline and shutdown grace that outlast that compile however
// loaded the machine, so that a request waiting for it is answered by the
// compile, not cut by a deadline (the compile takes seconds on a quiet
// machine, past the default deadline on a busy one).
var midCompile = []string{"-bdd-max-n", "14", "-cache-dir", "off", "-deadline", "10m", "-shutdown-grace", "10m"}

// TestKillMidCompile kills the server with SIGKILL while it compiles a
// 14×14 BDD (seconds; a 13×13 one now compiles in about half a second,
// and without -cache-dir off it would be loaded from the user's cache,
// either quicker than the kill), starts it again on the same address and checks that nothing
// was lost: the board's address shows the same board at once (its state
// is the address; SAT answers while the BDD compiles, and the page says
// so), a small board answers at once, the large one is served once
// compiled, and SIGTERM then stops the server cleanly.
func TestKillMidCompile(t *testing.T) {
	needServer(t)
	p, err := launch.Start(context.Background(), webBinary, launch.Options{}, midCompile...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	const board = "/?model=queens-14&select=a1,c2&backend=bdd"
	status, body := fetch(t, p.URL()+board)
	if status != 200 || !strings.Contains(strings.ToLower(body), "still compiling the 14×14 board") {
		t.Fatalf("the 14×14 board before the kill: %d\n%s", status, excerpt(body))
	}
	answered := make(chan error, 1)
	go func() {
		a := post(p.URL()+"/api/v1/analyze", `{"n":14}`)
		if a.status != 0 {
			a.err = fmt.Errorf("answered %d", a.status)
		}
		answered <- a.err
	}()
	time.Sleep(200 * time.Millisecond) // the API request waits for the same compile
	p.Kill()
	if err := <-answered; err == nil || strings.Contains(err.Error(), "answered") {
		t.Errorf("the request in flight at SIGKILL: %v, want a broken connection", err)
	}

	addr := strings.TrimPrefix(p.URL(), "http://")
	p2, err := launch.Start(context.Background(), webBinary, launch.Options{Addr: addr}, midCompile...)
	if err != nil {
		t.Fatalf("restarting on %s: %v", addr, err)
	}
	defer p2.Kill()
	start := time.Now()
	status, body = fetch(t, p2.URL()+board)
	took := time.Since(start)
	// The page shows the board, answered by SAT while the BDD compiles
	// (or by the BDD, if its compile was quicker).
	shown := strings.Contains(body, `data-name="a1" name="undo"`) && strings.Contains(body, `data-name="c2" name="undo"`)
	if status != 200 || took > 10*time.Second || !shown {
		t.Errorf("the same address after the restart: %d in %v\n%s", status, took, excerpt(body))
	}
	// The small board's own compile, milliseconds, can outlast the
	// page's wait for it (-quick-wait) on a busy machine: the page then
	// shows its progress, and the board when asked again.
	start = time.Now()
	for {
		status, body = fetch(t, p2.URL()+"/?model=queens-8&select=a1")
		if status != 200 || strings.Contains(body, `id="count">4 configurations<`) || time.Since(start) > 5*time.Second {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if took := time.Since(start); status != 200 || took > 5*time.Second || !strings.Contains(body, `id="count">4 configurations<`) {
		t.Errorf("a small board while the large one compiles: %d in %v\n%s", status, took, excerpt(body))
	}
	// The compile may outlast a request's deadline on a busy machine:
	// asked again, the request joins it.
	var a answer
	for end := time.Now().Add(5 * time.Minute); time.Now().Before(end); {
		if a = post(p2.URL()+"/api/v1/analyze", `{"n":14}`); a.err != nil || a.status != http.StatusServiceUnavailable {
			break
		}
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.status != 200 || !strings.Contains(a.body, `"solutions":"365596"`) {
		t.Errorf("the 14×14 after the restart: %d %s", a.status, a.body)
	}
	if err := p2.Stop(30 * time.Second); err != nil {
		t.Error(err)
	}
	if log := p2.Log(); log.Errors > 0 {
		t.Errorf("the restarted server logged %d errors: %v", log.Errors, log.FirstErrors)
	}
}

// TestTermDrains sends SIGTERM to the server binary while a request waits
// for a 14×14 compile: the request is answered in full, and the server
// exits with status 0.
func TestTermDrains(t *testing.T) {
	needServer(t)
	p, err := launch.Start(context.Background(), webBinary, launch.Options{}, midCompile...)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	answered := make(chan answer, 1)
	go func() { answered <- post(p.URL()+"/api/v1/analyze", `{"n":14}`) }()
	status, body := fetch(t, p.URL()+"/?model=queens-14")
	if status != 200 || !strings.Contains(strings.ToLower(body), "still compiling the 14×14 board") {
		t.Fatalf("the 14×14 board is not compiling: %d", status)
	}
	if err := p.Stop(10 * time.Minute); err != nil {
		t.Error(err)
	}
	a := <-answered
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, `"solutions":"365596"`) {
		t.Errorf("the request in flight at SIGTERM: %d %v %s", a.status, a.err, a.body)
	}
	if tail := p.Log().Tail; !strings.Contains(tail, "msg=stopped") {
		t.Errorf("the server did not log its stop:\n%s", tail)
	}
}

// answer is what a request got back: a status (0 without an answer), a
// body, and why the request or the reading of the body failed.
type answer struct {
	status int
	body   string
	err    error
}

// post sends a JSON body to url.
func post(url, body string) answer {
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, string(b), err}
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
	if i := strings.Index(s, "<main"); i > 0 {
		s = "…" + s[i:] // the page's own content, past the head
	}
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

// TestJudgePeakRSS checks the memory assertion of a soak: a peak above the
// bound fails it with both figures in words, one within it or without a
// bound does not.
func TestJudgePeakRSS(t *testing.T) {
	tests := []struct {
		peak  uint64
		bound int64
		fails string
	}{
		{peak: 3 << 30, bound: 4 << 30},
		{peak: 4 << 30, bound: 4 << 30},
		{peak: 5 << 30, bound: 4 << 30, fails: "peak resident memory 5 GiB, above the bound of 4 GiB"},
		{peak: 5 << 30, bound: 0},
	}
	for _, tt := range tests {
		r := &report{cfg: config{MaxRSS: tt.bound}, maxRSS: tt.bound, peakRSS: tt.peak}
		r.run.Answered = 1
		r.judge()
		got := strings.Join(r.failures, "; ")
		if got != tt.fails {
			t.Errorf("peak %d, bound %d: failures %q, want %q", tt.peak, tt.bound, got, tt.fails)
		}
	}
}

// TestMemoryBound: the soak's bound of the server's peak memory is the
// one the server reports, none when it reports none.
func TestMemoryBound(t *testing.T) {
	for _, want := range []int64{0, 5 << 30} {
		if got := memoryBound(server.Stats{HeapAlloc: 300 << 20, CacheBytes: 320 << 20, MemoryBound: want}); got != want {
			t.Errorf("memoryBound of a server that reports %d: %d", want, got)
		}
	}
}

// TestRSSBoundFlag: -max-rss takes a size, auto or off.
func TestRSSBoundFlag(t *testing.T) {
	for _, tt := range []struct {
		in, out string
		want    int64
	}{
		{"auto", "auto", autoRSS}, {"off", "off", 0}, {"0", "off", 0}, {"3G", "3 GiB", 3 << 30}, {"512M", "512 MiB", 512 << 20},
	} {
		var b rssBound
		if err := b.Set(tt.in); err != nil || int64(b) != tt.want || b.String() != tt.out {
			t.Errorf("Set(%q): %d %q %v, want %d %q", tt.in, int64(b), b.String(), err, tt.want, tt.out)
		}
	}
	var b rssBound
	if err := b.Set("lots"); err == nil {
		t.Error(`Set("lots") succeeded`)
	}
}
