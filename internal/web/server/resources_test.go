package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// TestSATQueueDrainsWhenClientsLeave checks the bounded queue in front of
// the SAT backend through the server: while every solver turn of the
// process (package solverlock, one per core) is held,
// one request is served (it waits for the solver), the next ones queue up
// to the bound and the one after gets 503 with Retry-After at once;
// clients that disconnect leave the queue, which then has room again; and
// once the solver is free, the requests still queued are served.
func TestSATQueueDrainsWhenClientsLeave(t *testing.T) {
	cfg := testConfig()
	cfg.SAT.Queue, cfg.SAT.Serve = 2, 1
	s, ts := newTestServer(t, cfg)
	if res, body := post(t, ts, "/api/v1/analyze", `{"n":6,"backend":"sat"}`); res.StatusCode != 200 {
		t.Fatalf("compiling the SAT 6×6: %d %s", res.StatusCode, body)
	}
	const ask = `{"n":6,"backend":"sat","queens":[[0,1]]}`
	quick := &http.Client{Timeout: 250 * time.Millisecond}
	send := func(ctx context.Context, c *http.Client) (int, string, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/api/v1/analyze", strings.NewReader(ask))
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), nil
	}
	// full reports whether a request finds the queue full (503 at once);
	// one that finds room waits, times out and leaves.
	full := func() bool {
		status, body, err := send(context.Background(), quick)
		if err == nil && status == 503 && !strings.Contains(body, "busy") {
			t.Errorf("503 without saying the server is busy: %s", body)
		}
		return err == nil && status == 503
	}
	// The test holds every solver turn of the process itself, idle: a
	// solver burning both cores would starve the server and its 250 ms
	// probes instead of testing the queue.
	var releases []func()
	for range solverlock.Turns() {
		release, err := solverlock.Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	stopHolding := func() {
		for _, release := range releases {
			release()
		}
		releases = nil
	}
	defer stopHolding()

	// One request is served (it waits for the solver's turn), two wait for
	// it in the queue, and the next finds the queue full.
	const clients = 3
	ctx, leave := context.WithCancel(context.Background())
	left := make(chan error, clients)
	for range clients {
		go func() {
			_, _, err := send(ctx, http.DefaultClient)
			left <- err
		}()
	}
	// Probe only once all three are in: a probe sent while they arrive
	// would take a place in the line and turn one of them away.
	deadline := time.Now().Add(5 * time.Second)
	load := s.engines["sat"].Backend.(configurator.Occupier).Occupancy
	for l := load(); (l.Running < 1 || l.Waiting < clients) && time.Now().Before(deadline); l = load() {
		time.Sleep(time.Millisecond) // the served one's solver call and the two in line
	}
	filled := false
	for !filled && time.Now().Before(deadline) {
		filled = full()
	}
	leave()
	for range clients {
		if err := <-left; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("a client that left: %v", err)
		}
	}
	if !filled {
		t.Fatal("the queue of 2 never filled while the solver was held")
	}
	drained := false
	for !drained && time.Now().Before(deadline.Add(5*time.Second)) {
		drained = !full()
	}
	if !drained {
		t.Fatal("the queue did not drain when its clients left")
	}
	served := make(chan int, 1)
	go func() {
		status, body, err := send(context.Background(), http.DefaultClient)
		if err != nil || status != 200 || !strings.Contains(body, `"solutions":"1"`) {
			t.Errorf("a request queued while the solver was busy: %d %v %s", status, err, body)
		}
		served <- status
	}()
	for s.engines["sat"].Backend.(configurator.Occupier).Occupancy().Waiting == 0 { // it queues
		if time.Now().After(deadline.Add(10 * time.Second)) {
			t.Fatal("the request did not wait for the held solver")
		}
		time.Sleep(time.Millisecond)
	}
	stopHolding()
	<-served
	if w := s.engines["sat"].Backend.(configurator.Occupier).Occupancy().Waiting; w != 0 {
		t.Errorf("%d requests still wait at the gate", w)
	}
}

// TestRecycle checks that a space that does not report its memory (the
// SAT backend's, whose solver keeps every clause it learns) is compiled
// afresh after -recycle requests, while a BDD space, whose size is known
// and fixed, stays.
func TestRecycle(t *testing.T) {
	cfg := testConfig()
	cfg.Spaces.Recycle = 3
	var compiles compileCounter
	_, ts, _ := serveWith(t, cfg.config(), compiles.wrap(cfg.engines())...)
	for range 7 {
		for _, backend := range []string{"bdd", "sat"} {
			if res, body := post(t, ts, "/api/v1/analyze", `{"n":6,"backend":"`+backend+`"}`); res.StatusCode != 200 || !strings.Contains(body, `"solutions":"4"`) {
				t.Fatalf("%s: %d %s", backend, res.StatusCode, body)
			}
		}
	}
	for backend, want := range map[string]int32{"bdd": 1, "sat": 3} {
		if got := compiles.count(spaces.Key{Backend: backend, N: 6}); got != want {
			t.Errorf("%s 6×6 compiled %d times in 7 requests, recycled after 3: want %d", backend, got, want)
		}
	}
}

// TestDebugListener checks the debug routes and that they listen only on
// loopback addresses.
func TestDebugListener(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:6060": true, "127.0.0.2:0": true, "[::1]:6060": true, "localhost:6060": true, "LOCALHOST:0": true,
		"0.0.0.0:6060": false, ":6060": false, "[::]:6060": false, "192.168.1.5:6060": false, "example.com:6060": false, "127.0.0.1": false,
	} {
		if err := checkLoopback(addr); (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v, want ok %v", addr, err, ok)
		}
	}
	remote := DefaultConfig()
	remote.DebugAddr = "0.0.0.0:6060"
	if remote.Check() == nil {
		t.Errorf("-debug-addr 0.0.0.0:6060 accepted")
	}

	s, ts := newTestServer(t, testConfig())
	post(t, ts, "/api/v1/analyze", `{"n":8}`)
	dbg := httptest.NewServer(s.DebugHandler())
	defer dbg.Close()
	res, body := get(t, dbg, "/debug/stats?gc=1")
	var st Stats
	if err := json.Unmarshal([]byte(body), &st); err != nil || res.StatusCode != 200 {
		t.Fatalf("/debug/stats: %d %v: %s", res.StatusCode, err, body)
	}
	cacheBytes, held := s.spaces.Used()
	if st.Goroutines < 2 || st.HeapAlloc == 0 || st.NumGC < 2 || st.CacheBytes != cacheBytes || st.CacheSpaces != held || held != 1 {
		t.Errorf("stats %+v; the cache holds %d bytes in %d spaces", st, cacheBytes, held)
	}
	// Recycling drops the SAT spaces (whose solvers grow) and keeps the
	// BDD ones.
	post(t, ts, "/api/v1/analyze", `{"n":6,"backend":"sat"}`)
	if res, body := post(t, dbg, "/debug/recycle", ""); res.StatusCode != 200 || strings.TrimSpace(body) != `{"retired":1}` {
		t.Errorf("/debug/recycle: %d %s", res.StatusCode, body)
	}
	if !s.spaces.Cached(spaces.Key{Backend: "bdd", N: 8}) || s.spaces.Cached(spaces.Key{Backend: "sat", N: 6}) {
		t.Errorf("after recycling, the cache holds the 8×8 BDD: %v, the 6×6 SAT: %v",
			s.spaces.Cached(spaces.Key{Backend: "bdd", N: 8}), s.spaces.Cached(spaces.Key{Backend: "sat", N: 6}))
	}
	if res, body := get(t, dbg, "/debug/pprof/goroutine?debug=1"); res.StatusCode != 200 || !strings.Contains(body, "goroutine profile") {
		t.Errorf("/debug/pprof/goroutine: %d", res.StatusCode)
	}
	// The public handler has no debug routes.
	if res, _ := get(t, ts, "/debug/stats"); res.StatusCode != 404 {
		t.Errorf("/debug/stats on the public address: %d", res.StatusCode)
	}
}

// TestFailureLogging checks how failed requests are logged: a 503 (load
// shed, or out of time) once as a warning, any other 5xx once as an error,
// and neither again as "failed after answering".
func TestFailureLogging(t *testing.T) {
	for _, tt := range []struct {
		path  string
		err   error
		level string
	}{
		{"/busy", fmt.Errorf("queue: %w", configurator.ErrBusy), "level=WARN"},
		{"/fault", errors.New("disk on fire"), "level=ERROR"},
		{"/api/v1/fault", errors.New("disk on fire"), "level=ERROR"},
	} {
		var logged configuratortest.Log
		cfg := testConfig()
		s, err := New(cfg.config(), slog.New(slog.NewTextHandler(&logged, nil)), cfg.engines()...)
		if err != nil {
			t.Fatal(err)
		}
		e := s.routes()
		e.GET(tt.path, func(echo.Context) error { return tt.err })
		ts := httptest.NewServer(e)
		res, _ := get(t, ts, tt.path)
		ts.Close()
		s.Close()
		log := logged.String()
		if n := strings.Count(log, `msg="request failed"`); n != 1 || !strings.Contains(log, tt.level+` msg="request failed"`) {
			t.Errorf("%s (%d): %d lines say the request failed, want one at %s:\n%s", tt.path, res.StatusCode, n, tt.level, log)
		}
		if strings.Contains(log, "after answering") {
			t.Errorf("%s: logged again after answering:\n%s", tt.path, log)
		}
		if tt.level == "level=WARN" && strings.Contains(log, "level=ERROR") {
			t.Errorf("%s: a 503 logged as an error:\n%s", tt.path, log)
		}
	}
}
