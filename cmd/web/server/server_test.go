package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
)

// testSetup is the configuration of the tests: the server's, and the
// options of the two real backends, registered as cmd/web registers them.
type testSetup struct {
	Config
	BDD struct {
		MaxN     int
		Budget   int64
		Deadline time.Duration
	}
	SAT struct {
		MaxN, Queue, Serve, CountCap int
		Deadline                     time.Duration
	}
	extra []Engine // registered after the two
}

// testConfig is the configuration of the tests: small limits so that every
// compile takes milliseconds, no rate limit (tests that check it set one),
// and a long quick-wait so that pages never show compile progress unless a
// test asks for it.
func testConfig() testSetup {
	c := testSetup{Config: DefaultConfig()}
	c.Addr = "127.0.0.1:0"
	c.BDD.MaxN, c.BDD.Budget, c.BDD.Deadline = 10, 2<<30, 10*time.Second
	c.SAT.MaxN, c.SAT.Queue, c.SAT.Serve, c.SAT.CountCap, c.SAT.Deadline = 16, 32, 1, 1000, 10*time.Second
	c.Client, c.Loopback = ClientLimit{}, ClientLimit{}
	c.QuickWait = time.Minute
	c.RequestDeadline = time.Minute
	return c
}

// config is the server's part of the setup.
func (c testSetup) config() Config { return c.Config }

// engines builds the backends of the setup, the BDD first (the primary).
func (c testSetup) engines() []Engine {
	return append([]Engine{
		{Backend: bdd.New(bdd.Options{Budget: c.BDD.Budget, MaxN: c.BDD.MaxN}), Deadline: c.BDD.Deadline, Budget: c.BDD.Budget,
			Title: "Binary decision diagram: compiled once, then every answer is a walk over it"},
		{Backend: sat.New(sat.Options{MaxN: c.SAT.MaxN, Queue: c.SAT.Queue, Serve: c.SAT.Serve, CountCap: c.SAT.CountCap, Timeout: c.SAT.Deadline}),
			Deadline: c.SAT.Deadline, Title: "SAT solver: clauses written once, then gophersat asked about the squares its own propagation and search leave open; no diagram"},
	}, c.extra...)
}

// newTestServer starts the real server, with the real backends, on a
// loopback port.
func newTestServer(t testing.TB, cfg testSetup) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), cfg.engines()...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.beginShutdown()
		ts.Close()
		s.Close()
	})
	return s, ts
}

// do sends a request and returns the response with its body read.
func do(t testing.TB, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	return res, string(b)
}

// get fetches path; headers come in name, value pairs.
func get(t testing.TB, ts *httptest.Server, path string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return do(t, req)
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// countIn counts the occurrences of sub in s.
func countIn(s, sub string) int { return strings.Count(s, sub) }
