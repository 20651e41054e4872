package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	for url, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://127.0.0.1:8080/": true, "https://127.0.0.1": true, "http://127.1.2.3:80": true,
		"http://[::1]:8080": true, "http://localhost:8080": true, "http://LocalHost": true,
		"http://0.0.0.0:8080": false, "http://10.0.0.1:8080": false, "http://192.168.0.1": false, "http://[::]:80": false,
		"http://example.com": false, "http://localhost.example.com": false, "http://127.0.0.1.nip.io": false,
		"ftp://127.0.0.1": false, "127.0.0.1:8080": false, "": false, "http://user@8.8.8.8": false,
	} {
		if err := CheckLoopback(url); (err == nil) != ok {
			t.Errorf("CheckLoopback(%q) = %v, want ok %v", url, err, ok)
		}
	}
}

// fixed is a generator that always sends r.
func fixed(r Request) Generator { return func(*rand.Rand) Request { return r } }

func TestRunRefuses(t *testing.T) {
	mix := fixed(Request{Path: "/"})
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"another machine", Config{BaseURL: "http://10.1.1.1:80", Clients: 1, Requests: 1, Mix: mix}, "loopback addresses only"},
		{"no bound", Config{BaseURL: "http://127.0.0.1:1", Clients: 1, Mix: mix}, "must end by itself"},
		{"no clients", Config{BaseURL: "http://127.0.0.1:1", Requests: 1, Mix: mix}, "clients 0"},
		{"too many clients", Config{BaseURL: "http://127.0.0.1:1", Clients: MaxClients + 1, Requests: 1, Mix: mix}, "clients 1025"},
		{"too long", Config{BaseURL: "http://127.0.0.1:1", Clients: 1, Duration: MaxDuration + 1, Mix: mix}, "duration"},
		{"too many requests", Config{BaseURL: "http://127.0.0.1:1", Clients: 1, Requests: MaxRequests + 1, Mix: mix}, "requests"},
		{"no mix", Config{BaseURL: "http://127.0.0.1:1", Clients: 1, Requests: 1}, "no request mix"},
	}
	for _, tt := range tests {
		if _, err := Run(context.Background(), tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// testServer answers by path: /ok 200, /bad 400, /boom 500, /slow 200
// after 20 ms, /hang never (until the test ends), /away a redirect to
// another machine. It counts what it receives.
type testServer struct {
	*httptest.Server
	got  sync.Map // path -> *atomic.Int64
	stop chan struct{}
}

func newTestServer(t *testing.T) *testServer {
	ts := &testServer{stop: make(chan struct{})}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, _ := ts.got.LoadOrStore(r.URL.Path, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		switch r.URL.Path {
		case "/ok":
			fmt.Fprint(w, "fine")
		case "/bad":
			http.Error(w, "bad input", http.StatusBadRequest)
		case "/boom":
			http.Error(w, "boom", http.StatusInternalServerError)
		case "/slow":
			time.Sleep(20 * time.Millisecond)
		case "/hang":
			select {
			case <-ts.stop:
			case <-r.Context().Done():
			}
		case "/away":
			http.Redirect(w, r, "http://example.com/", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(func() {
		close(ts.stop)
		ts.Close()
	})
	return ts
}

func (ts *testServer) count(path string) int64 {
	v, ok := ts.got.Load(path)
	if !ok {
		return 0
	}
	return v.(*atomic.Int64).Load()
}

// TestRunCounts drives a test server with a mix of answers and checks
// every count against what the server received.
func TestRunCounts(t *testing.T) {
	ts := newTestServer(t)
	paths := []string{"/ok", "/bad", "/boom", "/away", "/missing"}
	mix := func(rng *rand.Rand) Request {
		p := paths[rng.IntN(len(paths))]
		r := Request{Label: strings.TrimPrefix(p, "/"), Path: p}
		if p == "/bad" {
			r.Want = []int{400}
		}
		return r
	}
	res, err := Run(context.Background(), Config{BaseURL: ts.URL, Clients: 8, Requests: 1000, Mix: mix, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 1000 || res.Answered != 1000 || res.Hangs != 0 || len(res.Failures) != 0 {
		t.Fatalf("result %+v", res)
	}
	want := map[int]int64{200: ts.count("/ok"), 400: ts.count("/bad"), 500: ts.count("/boom"), 302: ts.count("/away"), 404: ts.count("/missing")}
	if fmt.Sprint(res.Status) != fmt.Sprint(want) {
		t.Errorf("statuses %v; the server answered %v", res.Status, want)
	}
	if res.Errors5xx() != ts.count("/boom") || res.Unexpected != ts.count("/boom") {
		t.Errorf("5xx %d, unexpected %d; want %d of each", res.Errors5xx(), res.Unexpected, ts.count("/boom"))
	}
	if ts.count("/") != 0 {
		t.Errorf("the redirect to another machine was followed")
	}
	var sum int64
	for _, p := range paths {
		lr := res.Labels[strings.TrimPrefix(p, "/")]
		if lr == nil || lr.Requests != ts.count(p) || lr.Answered != ts.count(p) {
			t.Errorf("label %s: %+v, the server got %d", p, lr, ts.count(p))
			continue
		}
		sum += lr.Requests
	}
	if sum != 1000 {
		t.Errorf("the labels add up to %d requests", sum)
	}
	if len(res.Samples) == 0 || res.Samples[0].Status != 500 || res.Samples[0].Label != "boom" || !strings.Contains(res.Samples[0].Body, "boom") {
		t.Errorf("samples %+v, want the 500s", res.Samples)
	}
	if res.Latency.P50 <= 0 || res.Latency.P50 > res.Latency.P99 || res.Latency.P99 > res.Latency.Max || res.PerSecond <= 0 {
		t.Errorf("latency %v, %.1f/s", res.Latency, res.PerSecond)
	}
	if s := res.String(); !strings.Contains(s, "1000 requests") || !strings.Contains(s, "500: ") {
		t.Errorf("String() = %q", s)
	}
}

// TestRunStopsByItself checks both bounds and the request timeout: a run
// bounded in time ends on time, a run bounded in count sends exactly that
// many, and requests the server never answers count as hangs and end the
// run within its duration and one timeout.
func TestRunStopsByItself(t *testing.T) {
	ts := newTestServer(t)
	start := time.Now()
	res, err := Run(context.Background(), Config{BaseURL: ts.URL, Clients: 4, Duration: 300 * time.Millisecond, Mix: fixed(Request{Path: "/slow"})})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d > 2*time.Second {
		t.Errorf("a 300 ms run took %v", d)
	}
	// Four clients, 20 ms a request: about 60 in 300 ms.
	if res.Answered < 20 || res.Answered > 80 || res.Answered != ts.count("/slow") {
		t.Errorf("%d answered in 300 ms, the server got %d", res.Answered, ts.count("/slow"))
	}
	if res.Latency.P50 < 20*time.Millisecond {
		t.Errorf("median %v below the server's 20 ms", res.Latency.P50)
	}

	res, err = Run(context.Background(), Config{BaseURL: ts.URL, Clients: 3, Requests: 7, Mix: fixed(Request{Path: "/ok"})})
	if err != nil || res.Requests != 7 || ts.count("/ok") != 7 {
		t.Errorf("a run of 7 requests sent %d (server: %d): %v", res.Requests, ts.count("/ok"), err)
	}

	start = time.Now()
	res, err = Run(context.Background(), Config{BaseURL: ts.URL, Clients: 5, Duration: 200 * time.Millisecond, Timeout: 100 * time.Millisecond, Mix: fixed(Request{Path: "/hang"})})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a run of hanging requests took %v", d)
	}
	if res.Hangs == 0 || res.Hangs != res.Requests || res.Answered != 0 {
		t.Errorf("hanging requests: %d hangs of %d, %d answered", res.Hangs, res.Requests, res.Answered)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := Run(ctx, Config{BaseURL: ts.URL, Clients: 2, Duration: time.Hour, Mix: fixed(Request{Path: "/ok"})}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a run whose context ended after 100 ms took %v", d)
	}
}

// TestRunFailures checks a server that is not there: every request fails
// without an answer, and the failures are counted by kind.
func TestRunFailures(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	res, err := Run(context.Background(), Config{BaseURL: url, Clients: 2, Requests: 10, Mix: fixed(Request{Path: "/"})})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answered != 0 || res.Failures["connection refused"] != 10 {
		t.Errorf("a closed port: %d answered, failures %v", res.Answered, res.Failures)
	}
}

// TestRunIgnoresProxy checks that a proxy in the environment is not used:
// the load stays on this machine.
func TestRunIgnoresProxy(t *testing.T) {
	t.Setenv("HTTP_PROXY", "http://10.255.255.1:3128")
	t.Setenv("http_proxy", "http://10.255.255.1:3128")
	ts := newTestServer(t)
	res, err := Run(context.Background(), Config{BaseURL: ts.URL, Clients: 1, Requests: 3, Timeout: 5 * time.Second, Mix: fixed(Request{Path: "/ok"})})
	if err != nil || res.Status[200] != 3 {
		t.Errorf("with a proxy set: %v, %v", res.Status, err)
	}
}

// TestRunIsReproducible checks that one client with one seed sends the
// same requests in the same order.
func TestRunIsReproducible(t *testing.T) {
	var mu sync.Mutex
	var got []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RawQuery)
		mu.Unlock()
	}))
	defer ts.Close()
	mix := func(rng *rand.Rand) Request { return Request{Path: fmt.Sprintf("/?x=%d", rng.IntN(1000))} }
	var runs [][]string
	for range 2 {
		got = nil
		if _, err := Run(context.Background(), Config{BaseURL: ts.URL, Clients: 1, Requests: 50, Mix: mix, Seed: 42}); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, slices.Clone(got))
	}
	if !slices.Equal(runs[0], runs[1]) || len(runs[0]) != 50 {
		t.Errorf("two runs with one seed differ:\n%v\n%v", runs[0], runs[1])
	}
}

// TestPostDefaults checks a request with a body: POST, JSON.
func TestPostDefaults(t *testing.T) {
	var method, ct, body atomic.Value
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 64)
		n, _ := r.Body.Read(b)
		method.Store(r.Method)
		ct.Store(r.Header.Get("Content-Type"))
		body.Store(string(b[:n]))
	}))
	defer ts.Close()
	if _, err := Run(context.Background(), Config{BaseURL: ts.URL, Clients: 1, Requests: 1, Mix: fixed(Request{Path: "/", Body: []byte(`{"n":8}`)})}); err != nil {
		t.Fatal(err)
	}
	if method.Load() != "POST" || ct.Load() != "application/json" || body.Load() != `{"n":8}` {
		t.Errorf("sent %v %v %v", method.Load(), ct.Load(), body.Load())
	}
}

func TestHistogram(t *testing.T) {
	// Every value falls in a bucket whose upper bound is at most 1/64
	// above it, and the buckets are in order.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := uint64(1) << rng.IntN(63)
		v += rng.Uint64N(v)
		b := bucketOf(v)
		if u := upper(b); u < v || float64(u-v) > float64(v)/64 {
			t.Fatalf("value %d in bucket %d with upper bound %d", v, b, u)
		}
		if b > 0 && upper(b-1) >= v {
			t.Fatalf("value %d in bucket %d, but bucket %d reaches %d", v, b, b-1, upper(b-1))
		}
	}
	for v := range uint64(200) {
		if upper(bucketOf(v)) != v && v < 1<<subBits {
			t.Fatalf("small value %d is not exact", v)
		}
	}
	// Quantiles against the sorted values, log-uniform from 1 µs to 10 s.
	var h histogram
	var all []time.Duration
	for range 20000 {
		d := time.Duration(float64(time.Microsecond) * math.Pow(1e7, rng.Float64()))
		h.add(d)
		all = append(all, d)
	}
	slices.Sort(all)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999, 1} {
		exact := all[int(q*float64(len(all))+0.999999)-1]
		got := h.quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/64+1 {
			t.Errorf("quantile %v = %v, exact %v", q, got, exact)
		}
	}
	if l := h.latency(); l.Max != all[len(all)-1] || l.P99 > l.Max {
		t.Errorf("latency %v, max %v", l, all[len(all)-1])
	}
	var empty histogram
	if l := empty.latency(); l != (Latency{}) {
		t.Errorf("empty histogram: %v", l)
	}
}

func TestFailureKind(t *testing.T) {
	for err, want := range map[error]string{
		errors.New("dial tcp 127.0.0.1:1: connect: connection refused"):                 "connection refused",
		errors.New("read tcp 127.0.0.1:5->127.0.0.1:6: read: connection reset by peer"): "connection reset",
		fmt.Errorf("x: %w", ErrNotLoopback):                                             ErrNotLoopback.Error(),
	} {
		if got := failureKind(err); got != want {
			t.Errorf("failureKind(%v) = %q, want %q", err, got, want)
		}
	}
}

// TestRunClientsHaveTheirOwnAddresses checks that each simulated client
// reaches the server from a loopback address of its own, so that a server
// sharing its capacity by address sees as many users as the run has.
func TestRunClientsHaveTheirOwnAddresses(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		seen[host] = true
		mu.Unlock()
	}))
	defer ts.Close()
	const clients = 6
	res, err := Run(context.Background(), Config{BaseURL: ts.URL, Clients: clients, Requests: 600, Mix: fixed(Request{Path: "/"}), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answered != 600 {
		t.Fatalf("result %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != clients {
		t.Errorf("the server saw %d client addresses (%v), want %d", len(seen), seen, clients)
	}
	for host := range seen {
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() || host == "127.0.0.1" {
			t.Errorf("client address %s, want a loopback address of its own", host)
		}
	}
}
