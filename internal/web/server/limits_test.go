package server

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/internal/web/guard"
)

// serve sends one request straight to the server's handler as if from
// addr (the connection's address, which the limits key on) and returns
// the recorded answer; headers come in name, value pairs.
func serve(h http.Handler, addr, method, target, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.RemoteAddr = addr
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestClientRateLimit checks that every route that does work is rate
// limited per client address, with a 429 that says why and when to come
// back, that a header cannot forge the address, that the static files
// and /healthz are free, and that loopback addresses have their own limit.
// A token comes back every ten minutes, so that however slowly a loaded
// machine serves a case's requests, none comes back during the test.
func TestClientRateLimit(t *testing.T) {
	const refill = 600 // seconds
	cfg := testConfig()
	cfg.Guard.Client = guard.Quota{Rate: 1.0 / refill, Burst: 3}
	cfg.Guard.Loopback = guard.Quota{Rate: 1.0 / refill, Burst: 5}
	s, _ := newTestServer(t, cfg)
	h := s.Handler()
	static := "/static/" + firstStatic(t, s)
	tests := []struct {
		name, addr, method, target, body string
		want                             []int
	}{
		{"page", "203.0.113.1:4000", "GET", "/?model=queens-4", "", []int{200, 200, 200, 429, 429}},
		{"a step (a form without JavaScript)", "203.0.113.2:4000", "GET", "/?model=queens-4&square=a2", "", []int{303, 303, 303, 429}},
		{"a board's saved address", "203.0.113.9:4000", "GET", "/play?n=4&place=a2", "", []int{303, 303, 303, 429}},
		{"diagram", "203.0.113.3:4000", "GET", "/model-diagram?model=queens-4", "", []int{200, 200, 200, 429}},
		{"order panel", "203.0.113.4:4000", "HEAD", "/orders?n=4", "", []int{200, 200, 200, 429}},
		{"API", "203.0.113.5:4000", "POST", "/api/v1/analyze", `{"n":4}`, []int{200, 200, 200, 429, 429}},
		{"address that names nothing", "203.0.113.6:4000", "GET", "/nothing", "", []int{404, 404, 404, 429}},
		{"static files are free", "203.0.113.7:4000", "GET", static, "", []int{200, 200, 200, 200, 200}},
		{"health checks are free", "203.0.113.8:4000", "GET", "/healthz", "", []int{200, 200, 200, 200, 200}},
		{"IPv6: one bucket per /64", "[2001:db8:1:2::1]:4000", "GET", "/?model=queens-4", "", []int{200, 200, 200}},
		{"IPv6: the same /64", "[2001:db8:1:2:ffff::9]:4000", "GET", "/?model=queens-4", "", []int{429}},
		{"IPv6: another /64", "[2001:db8:1:3::1]:4000", "GET", "/?model=queens-4", "", []int{200}},
		{"loopback has its own limit", "127.0.0.1:4000", "GET", "/?model=queens-4", "", []int{200, 200, 200, 200, 200, 429}},
		{"IPv6 loopback", "[::1]:4000", "GET", "/?model=queens-4", "", []int{200, 200, 200, 200, 200, 429}},
	}
	for _, tt := range tests {
		var got []int
		for i := range tt.want {
			// A forged forwarding header must not make a new client.
			rec := serve(h, tt.addr, tt.method, tt.target, tt.body,
				"X-Forwarded-For", "10.0.0."+string(rune('1'+i)), "X-Real-IP", "10.0.1."+string(rune('1'+i)))
			got = append(got, rec.Code)
			if rec.Code != http.StatusTooManyRequests {
				continue
			}
			// The next token is a refill away, less the time the case took.
			ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
			if err != nil || ra <= refill-60 || ra > refill {
				t.Errorf("%s: 429 with Retry-After %q, want the seconds to the next token, about %d", tt.name, rec.Header().Get("Retry-After"), refill)
			}
			if body := rec.Body.String(); !strings.Contains(body, "Too many requests from your address") || !strings.Contains(body, fmt.Sprintf("Please slow down: try again in %d seconds.", ra)) {
				t.Errorf("%s: 429 without its words: %.300s", tt.name, body)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: statuses %v, want %v", tt.name, got, tt.want)
		}
	}
	// A 429 on the API is JSON, on a page a page with the notice.
	rec := serve(h, "203.0.113.5:4000", "POST", "/api/v1/analyze", `{"n":4}`)
	if ct := rec.Header().Get("Content-Type"); rec.Code != 429 || !strings.HasPrefix(ct, "application/json") || !strings.Contains(rec.Body.String(), `"error":"Too many requests`) {
		t.Errorf("API 429: status %d, %s: %s", rec.Code, ct, rec.Body)
	}
	rec = serve(h, "203.0.113.1:4000", "GET", "/?model=queens-4", "")
	if ct := rec.Header().Get("Content-Type"); rec.Code != 429 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(rec.Body.String(), "Too many requests from your address") {
		t.Errorf("page 429: status %d, %s", rec.Code, ct)
	}
}

// TestLoopbackUnlimitedByDefault checks the defaults: a person scripting
// their own server on loopback (a seeded walk of hundreds of requests,
// say) is never refused, while a public address is.
func TestLoopbackUnlimitedByDefault(t *testing.T) {
	def := DefaultConfig()
	cfg := testConfig()
	cfg.Guard.Client, cfg.Guard.Loopback = def.Guard.Client, def.Guard.Loopback
	s, _ := newTestServer(t, cfg)
	h := s.Handler()
	count := func(addr string) (ok, refused int) {
		for range 100 {
			switch rec := serve(h, addr, "POST", "/api/v1/analyze", `{"n":6,"queens":[[0,1]]}`); rec.Code {
			case 200:
				ok++
			case 429:
				refused++
			default:
				t.Fatalf("%s: status %d: %s", addr, rec.Code, rec.Body)
			}
		}
		return ok, refused
	}
	if ok, refused := count("127.0.0.1:5000"); ok != 100 {
		t.Errorf("loopback: %d answered, %d refused of 100 sent at once; want all answered", ok, refused)
	}
	// 100 requests in far less than a second: the burst passes, the rest
	// (all but a token or two) are refused.
	if ok, refused := count("198.51.100.7:5000"); ok < def.Guard.Client.Burst || ok > def.Guard.Client.Burst+5 || refused != 100-ok {
		t.Errorf("public address: %d answered, %d refused of 100; want about the burst of %d answered", ok, refused, def.Guard.Client.Burst)
	}
}

// TestClientConcurrencyLimit checks that a client address has at most its
// number of requests in flight: one more is refused at once with 429,
// another address is served meanwhile, and the slots free when the
// requests end.
func TestClientConcurrencyLimit(t *testing.T) {
	cfg := testConfig()
	cfg.Guard.Client = guard.Quota{Concurrent: 2}
	cfg.Guard.Loopback = guard.Quota{Concurrent: 3}
	s, _ := newTestServer(t, cfg)
	// The server's limits and error handler in front of a handler that
	// holds its request until its gate (?gate=) closes.
	var mu sync.Mutex
	gates := map[string]chan struct{}{}
	gate := func(name string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if gates[name] == nil {
			gates[name] = make(chan struct{})
		}
		return gates[name]
	}
	var entered sync.WaitGroup
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	e.HTTPErrorHandler = s.handleError
	e.Use(s.guard.Quotas("/static/*", "/healthz"))
	e.GET("/api/v1/hold", func(c echo.Context) error {
		entered.Done()
		<-gate(c.QueryParam("gate"))
		return c.String(http.StatusOK, "done")
	})
	// hold sends n requests from addr that wait at the gate, and returns
	// once they are all in.
	hold := func(addr, name string, n int) *sync.WaitGroup {
		var finished sync.WaitGroup
		entered.Add(n)
		for range n {
			finished.Go(func() {
				if rec := serve(e, addr, "GET", "/api/v1/hold?gate="+name, ""); rec.Code != 200 {
					t.Errorf("%s: a request within the limit got %d", addr, rec.Code)
				}
			})
		}
		entered.Wait()
		return &finished
	}
	tests := []struct {
		addr  string
		limit int
	}{
		{"203.0.113.9:6000", 2},
		{"127.0.0.1:6000", 3},
	}
	for i, tt := range tests {
		name := string(rune('a' + i))
		finished := hold(tt.addr, name, tt.limit)
		start := time.Now()
		rec := serve(e, tt.addr, "GET", "/api/v1/hold?gate="+name, "")
		if rec.Code != 429 || rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), "Too many requests at once from your address") {
			t.Errorf("%s: request %d in flight: status %d, Retry-After %q: %s", tt.addr, tt.limit+1, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: the refusal took %v; it should come at once", tt.addr, d)
		}
		other := hold("198.51.100.9:6000", "other"+name, 1) // another address is served meanwhile
		close(gate(name))
		finished.Wait()
		close(gate("other" + name))
		other.Wait()
		open := gate("open" + name)
		close(open)
		entered.Add(1)
		if rec := serve(e, tt.addr, "GET", "/api/v1/hold?gate=open"+name, ""); rec.Code != 200 {
			t.Errorf("%s: after its requests ended: status %d", tt.addr, rec.Code)
		}
	}
}

// firstStatic names one of the embedded static files.
func firstStatic(t *testing.T, s *Server) string {
	t.Helper()
	for _, name := range []string{"style.css", "app.js"} {
		if f, err := s.static.Open(name); err == nil {
			f.Close()
			return name
		}
	}
	t.Fatal("no style.css or app.js among the static files")
	return ""
}

// TestFailedPageBounded checks that a page whose step fails answers
// within its backend's deadline: a page that ran out of time does not ask
// the backend again, and decisions no configuration keeps are left out,
// the fewest that conflict, and the rest answered, within the request's
// time. The queens are the hostile 32×32 placement (a question the
// solver cannot settle in time, which a page must not ask twice), and the
// same with a queen that attacks one of them, which the API refuses at
// once.
func TestFailedPageBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("a 32×32 SAT board")
	}
	const deadline = 2 * time.Second
	const hostile = "b31,r16,d32,h23,af3,ad14,m15,ac25,ab29,e24,y1,ae30,a26"
	outOfTime := "took longer than the time allowed"
	tests := []struct {
		name, q string
		words   map[int]string // the statuses it may answer with, and their words
		steps   int            // on the SAT backend, at most
	}{
		{"out of time", hostile, map[int]string{http.StatusServiceUnavailable: outOfTime}, 1},
		// The request's step, and the step without the two queens on
		// file b, which the rest of the request's time may not settle.
		{"infeasible", hostile + ",b2", map[int]string{
			http.StatusUnprocessableEntity: "No configuration keeps &#43;b31, &#43;b2: file b: at most one of",
			http.StatusServiceUnavailable:  outOfTime}, 2},
	}
	for _, tt := range tests {
		cfg := testConfig()
		cfg.SAT.MaxN, cfg.SAT.Deadline = 32, deadline
		s, _ := newTestServer(t, cfg)
		start := time.Now()
		rec := serve(s.Handler(), "127.0.0.1:7000", "GET", "/?model=queens-32&backend=sat&select="+tt.q, "")
		took := time.Since(start)
		if w, ok := tt.words[rec.Code]; !ok || !strings.Contains(rec.Body.String(), w) {
			t.Errorf("%s: status %d, want one of %v: %s", tt.name, rec.Code, tt.words, between(rec.Body.String(), `id="notice"`, `</section>`))
		}
		if took > deadline+time.Second {
			t.Errorf("%s: the page took %v, beyond the SAT deadline of %v", tt.name, took, deadline)
		}
		if steps, _ := sample(scrape(t, s), "nqueens_analysis_duration_seconds", "backend", "sat"); steps > float64(tt.steps) {
			t.Errorf("%s: %v steps on the SAT backend, want at most %d", tt.name, steps, tt.steps)
		}
	}
}

// TestClientLimitCheck checks that Config.Check refuses limits that make
// no sense, naming the flag to fix.
func TestClientLimitCheck(t *testing.T) {
	tests := []struct {
		client, loopback guard.Quota
		want             string // in the error; "" for none
	}{
		{guard.Quota{Rate: 20, Burst: 40, Concurrent: 6}, guard.Quota{}, ""},
		{guard.Quota{}, guard.Quota{Rate: 0.5, Burst: 1}, ""},
		{guard.Quota{Rate: -1, Burst: 1}, guard.Quota{}, "-rate must be a finite number"},
		{guard.Quota{Rate: math.NaN(), Burst: 1}, guard.Quota{}, "-rate must be a finite number"},
		{guard.Quota{Rate: math.Inf(1), Burst: 1}, guard.Quota{}, "-rate must be a finite number"},
		{guard.Quota{Rate: 5}, guard.Quota{}, "-burst must be at least 1 when -rate is set"},
		{guard.Quota{Concurrent: -1}, guard.Quota{}, "-concurrent must not be negative"},
		{guard.Quota{}, guard.Quota{Rate: 5}, "-loopback-burst must be at least 1 when -loopback-rate is set"},
		{guard.Quota{}, guard.Quota{Concurrent: -2}, "-loopback-concurrent must not be negative"},
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.Guard.Client, cfg.Guard.Loopback = tt.client, tt.loopback
		err := cfg.Check()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v, %+v: %v", tt.client, tt.loopback, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v, %+v: error %v, want one with %q", tt.client, tt.loopback, err, tt.want)
		}
	}
}
