package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator/oracle"
)

// testConfig is the configuration of the tests: small limits so that every
// compile takes milliseconds, no rate limit (tests that check it set one),
// and a long quick-wait so that pages never show compile progress unless a
// test asks for it.
func testConfig() config {
	c := defaultConfig()
	c.Addr = "127.0.0.1:0"
	c.BDD.MaxN = 10
	c.SAT.MaxN = 16
	c.APIRate = 0
	c.QuickWait = time.Minute
	c.RequestDeadline = time.Minute
	return c
}

// newTestServer starts the real server, with the real backends, on a
// loopback port.
func newTestServer(t testing.TB, cfg config) (*server, *httptest.Server) {
	t.Helper()
	s, err := newServer(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), newBackends(cfg)...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.handler())
	t.Cleanup(func() {
		s.beginShutdown()
		ts.Close()
		s.close()
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

// oracleBoard returns the brute-force reference for an n×n board.
func oracleBoard(t testing.TB, n int) *oracle.Board {
	t.Helper()
	b, err := oracle.New(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// countIn counts the occurrences of sub in s.
func countIn(s, sub string) int { return strings.Count(s, sub) }
