// Package loadgen drives an HTTP server on this machine with many
// concurrent clients and measures how it answers: requests served, answers
// by status, answers the workload did not expect, requests that got no
// answer in time, latency percentiles and throughput. The soak test and the
// server benchmarks use it against the real configurator server.
//
// It is deliberately bounded. It talks only to loopback addresses
// (127.0.0.0/8, ::1, localhost), through no proxy, following no redirect;
// every run stops by itself after its duration or its request count,
// whichever comes first; each request has a timeout; and a run's memory
// does not grow with its length (latencies go into fixed histograms).
//
// A run is closed-loop: each client sends its next request when the answer
// to the previous one is read, so the offered load adapts to the server and
// the latency is the server's, not a queue in front of it.
//
//	res, err := loadgen.Run(ctx, loadgen.Config{
//		BaseURL:  "http://127.0.0.1:8080",
//		Clients:  16,
//		Duration: 10 * time.Second,
//		Mix:      loadgen.Mix{BDD: []int{8}, Weights: map[loadgen.Kind]float64{loadgen.Analyze: 1}}.MustGenerator(),
//		Seed:     1,
//	})
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds of a run.
const (
	// MaxClients is the most concurrent clients a run may have.
	MaxClients = 1024
	// MaxDuration is the longest a run may last.
	MaxDuration = 2 * time.Hour
	// MaxRequests is the most requests a run may send.
	MaxRequests = 100_000_000
	// DefaultTimeout is the timeout of one request when Config.Timeout is 0.
	DefaultTimeout = time.Minute
	// maxBody is how much of an answer's body is read; the rest is
	// dropped with the connection.
	maxBody = 64 << 20
	// maxSamples is how many unexpected answers a Result describes.
	maxSamples = 20
)

// Request is one request of a workload.
type Request struct {
	// Label groups the request in the statistics: "analyze bdd",
	// "bad: n in words". Keep the labels few.
	Label string
	// Method defaults to GET, or POST when Body is not nil.
	Method string
	// Path is the path and query, relative to Config.BaseURL.
	Path   string
	Header http.Header
	Body   []byte
	// Want lists the statuses the workload expects; an answer with another
	// status counts as unexpected. Empty means any status below 500.
	Want []int
}

// Generator makes the requests of a workload. It is called concurrently,
// each client with its own rng, so it must not keep state of its own that
// it changes; with the same seed a client sends the same sequence.
type Generator func(rng *rand.Rand) Request

// Config is a run.
type Config struct {
	// BaseURL is the server's root, such as http://127.0.0.1:8080. Only
	// loopback hosts are accepted.
	BaseURL string
	// Clients is the number of concurrent clients, 1 to MaxClients, each
	// connecting from a loopback address of its own, as distinct users.
	Clients int
	// Duration and Requests bound the run: it stops when either is
	// reached. At least one must be set; Duration is at most MaxDuration,
	// Requests at most MaxRequests.
	Duration time.Duration
	Requests int64
	// Timeout bounds each request, answer read in full; 0 means
	// DefaultTimeout. A request without an answer in time is a hang.
	Timeout time.Duration
	// Mix makes the requests.
	Mix Generator
	// Seed seeds the clients' generators: client i uses PCG(Seed, i).
	Seed uint64
}

// Result is what a run measured.
type Result struct {
	// Requests counts the requests sent; Answered those that got a whole
	// answer, with any status.
	Requests, Answered int64
	// Status counts the answers by HTTP status.
	Status map[int]int64
	// Unexpected counts the answers with a status their request did not
	// want; Samples describes the first few.
	Unexpected int64
	Samples    []Sample
	// Hangs counts the requests that got no whole answer within the
	// timeout; Failures counts the other requests without an answer
	// (connection refused or reset), by error.
	Hangs    int64
	Failures map[string]int64
	// Latency is over the answered requests; Labels splits everything by
	// the requests' labels.
	Latency Latency
	Labels  map[string]*LabelResult
	// Elapsed is the run's length, and PerSecond the answered requests
	// per second of it.
	Elapsed   time.Duration
	PerSecond float64
}

// LabelResult is the part of a run with one label.
type LabelResult struct {
	Requests, Answered, Unexpected, Hangs int64
	Status                                map[int]int64
	Latency                               Latency
}

// Latency summarises response times. The percentiles are upper bounds of
// histogram buckets, at most 1.6 % above the true value; Max is exact.
type Latency struct {
	P50, P90, P99, Max, Mean time.Duration
}

// Sample describes one unexpected answer.
type Sample struct {
	Label, Method, Path string
	Status              int    // 0 when there was no answer
	Body                string // the start of the answer, or the error
}

// Errors5xx is the number of answers with a status of 500 or more.
func (r *Result) Errors5xx() int64 {
	var n int64
	for st, c := range r.Status {
		if st >= 500 {
			n += c
		}
	}
	return n
}

// String summarises the result in a few lines.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests in %s (%.1f/s): %d answered, %d unexpected, %d hangs, %d failures\n",
		r.Requests, r.Elapsed.Round(time.Millisecond), r.PerSecond, r.Answered, r.Unexpected, r.Hangs, sum(r.Failures))
	fmt.Fprintf(&b, "status: %s\n", formatStatus(r.Status))
	fmt.Fprintf(&b, "latency: %s\n", r.Latency)
	for _, f := range sortedKeys(r.Failures) {
		fmt.Fprintf(&b, "failure %q: %d\n", f, r.Failures[f])
	}
	return b.String()
}

func (l Latency) String() string {
	return fmt.Sprintf("p50 %v, p90 %v, p99 %v, max %v, mean %v", round(l.P50), round(l.P90), round(l.P99), round(l.Max), round(l.Mean))
}

// round keeps three significant figures or so of a latency.
func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// formatStatus writes status counts in order: "200: 9120, 422: 310".
func formatStatus(m map[int]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, st := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%d: %d", st, m[st]))
	}
	return strings.Join(parts, ", ")
}

// FormatStatus writes status counts in order, as Result.String does.
func FormatStatus(m map[int]int64) string { return formatStatus(m) }

func sortedKeys[K int | string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// ErrNotLoopback reports a target that is not on this machine's loopback
// interface.
var ErrNotLoopback = errors.New("loadgen drives loopback addresses only (127.0.0.1, ::1, localhost)")

// CheckLoopback returns an error unless rawURL is an http or https URL
// whose host is a loopback IP or the name localhost.
func CheckLoopback(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("base URL %q: scheme %q is not http or https", rawURL, u.Scheme)
	}
	if !loopbackHost(u.Hostname()) {
		return fmt.Errorf("base URL %q: %w", rawURL, ErrNotLoopback)
	}
	return nil
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// check validates a configuration and fills in defaults.
func (c *Config) check() error {
	if err := CheckLoopback(c.BaseURL); err != nil {
		return err
	}
	switch {
	case c.Clients < 1 || c.Clients > MaxClients:
		return fmt.Errorf("clients %d: want 1 to %d", c.Clients, MaxClients)
	case c.Duration <= 0 && c.Requests <= 0:
		return errors.New("set a duration, a request count or both: a run must end by itself")
	case c.Duration < 0 || c.Duration > MaxDuration:
		return fmt.Errorf("duration %v: want at most %v", c.Duration, MaxDuration)
	case c.Requests < 0 || c.Requests > MaxRequests:
		return fmt.Errorf("requests %d: want at most %d", c.Requests, MaxRequests)
	case c.Timeout < 0:
		return fmt.Errorf("timeout %v is negative", c.Timeout)
	case c.Mix == nil:
		return errors.New("no request mix")
	}
	if c.Duration == 0 {
		c.Duration = MaxDuration
	}
	if c.Requests == 0 {
		c.Requests = MaxRequests
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	c.BaseURL = strings.TrimSuffix(c.BaseURL, "/")
	return nil
}

// newClient returns the HTTP client of simulated client i: it reaches
// loopback addresses only, directly, without following redirects, and
// connects from a loopback address of its own (127.10.x.y) when the server
// is on IPv4 loopback. The server shares its capacity by client address
// (one SAT request per address at a time, per-address rate limits), so
// clients that all came from 127.0.0.1 would be one user to it, not many.
func newClient(i int, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	own := &net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 10, byte(i/250), byte(i%250+1))}}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			d := dialer
			if host, _, err := net.SplitHostPort(addr); err == nil {
				if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() && ip.To4() != nil {
					d = own
				}
			}
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// The name may resolve anywhere; the connection must not.
			if ta, ok := conn.RemoteAddr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
				conn.Close()
				return nil, fmt.Errorf("connected to %v: %w", conn.RemoteAddr(), ErrNotLoopback)
			}
			return conn, nil
		},
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Run drives the server at cfg.BaseURL until cfg.Duration has passed,
// cfg.Requests have been sent or ctx ends, whichever comes first, and
// returns what it measured. Requests in flight at the end are waited for
// (each within its timeout), so Run returns within Duration + Timeout.
// When it returns, its connections are closed.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if err := cfg.check(); err != nil {
		return Result{}, err
	}

	ctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	rec := newRecorder()
	var sent atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := range cfg.Clients {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		client := newClient(i, cfg.Timeout)
		defer client.CloseIdleConnections()
		wg.Go(func() {
			// Each turn claims one request of the count; the loop ends
			// when the count or the time is spent.
			for ctx.Err() == nil && sent.Add(1) <= cfg.Requests {
				rec.record(do(client, cfg.BaseURL, cfg.Mix(rng)))
			}
		})
	}
	wg.Wait()
	return rec.result(time.Since(start)), nil
}

// outcome is what one request got.
type outcome struct {
	req     Request
	status  int // 0: no answer
	took    time.Duration
	hang    bool
	failure string
	body    string // the start of the body, kept for unexpected answers
}

// do sends one request and reads its answer. It runs on its own context:
// a request in flight when the run ends is waited for, within the client's
// timeout, so that the server is never blamed for a hang the load generator
// caused.
func do(client *http.Client, base string, r Request) outcome {
	o := outcome{req: r}
	method := r.Method
	if method == "" {
		method = http.MethodGet
		if r.Body != nil {
			method = http.MethodPost
		}
	}
	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}
	req, err := http.NewRequest(method, base+r.Path, body)
	if err != nil {
		o.failure = "bad request: " + err.Error()
		return o
	}
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	if r.Body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	start := time.Now()
	res, err := client.Do(req)
	if err != nil {
		o.took = time.Since(start)
		o.classify(err)
		return o
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(res.Body, head)
	_, err = io.Copy(io.Discard, io.LimitReader(res.Body, maxBody))
	res.Body.Close()
	o.took = time.Since(start)
	if err != nil {
		o.classify(err)
		return o
	}
	o.status, o.body = res.StatusCode, string(head[:n])
	return o
}

// classify files a request that got no answer as a hang or a failure.
func (o *outcome) classify(err error) {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		o.hang = true
		o.body = err.Error()
		return
	}
	o.failure = failureKind(err)
	o.body = err.Error()
}

// failureKind names an error without its addresses, so that failures of
// one kind are counted together.
func failureKind(err error) string {
	s := err.Error()
	for _, kind := range []string{"connection refused", "connection reset", "broken pipe", "EOF", ErrNotLoopback.Error()} {
		if strings.Contains(s, kind) {
			return kind
		}
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// wanted reports whether a status is one the request expects.
func (r *Request) wanted(status int) bool {
	if len(r.Want) == 0 {
		return status < 500
	}
	return slices.Contains(r.Want, status)
}

// recorder gathers the outcomes of all clients.
type recorder struct {
	mu      sync.Mutex
	all     *stats
	labels  map[string]*stats
	samples []Sample
	fail    map[string]int64
}

// stats is the record of one label, or of all.
type stats struct {
	requests, answered, unexpected, hangs int64
	status                                map[int]int64
	hist                                  histogram
}

func newStats() *stats { return &stats{status: make(map[int]int64)} }

func newRecorder() *recorder {
	return &recorder{all: newStats(), labels: make(map[string]*stats), fail: make(map[string]int64)}
}

func (r *recorder) record(o outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ls := r.labels[o.req.Label]
	if ls == nil {
		ls = newStats()
		r.labels[o.req.Label] = ls
	}
	unexpected := o.status == 0 || !o.req.wanted(o.status)
	for _, s := range []*stats{r.all, ls} {
		s.requests++
		switch {
		case o.status != 0:
			s.answered++
			s.status[o.status]++
			s.hist.add(o.took)
		case o.hang:
			s.hangs++
		}
		if unexpected && o.status != 0 {
			s.unexpected++
		}
	}
	if o.failure != "" {
		r.fail[o.failure]++
	}
	if unexpected && len(r.samples) < maxSamples {
		body := o.body
		if len(body) > 300 {
			body = body[:300]
		}
		method := o.req.Method
		if method == "" {
			method = "GET"
			if o.req.Body != nil {
				method = "POST"
			}
		}
		path := o.req.Path
		if len(path) > 200 {
			path = path[:200] + "…"
		}
		r.samples = append(r.samples, Sample{Label: o.req.Label, Method: method, Path: path, Status: o.status, Body: body})
	}
}

func (r *recorder) result(elapsed time.Duration) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := Result{
		Requests: r.all.requests, Answered: r.all.answered, Unexpected: r.all.unexpected, Hangs: r.all.hangs,
		Status: r.all.status, Failures: r.fail, Samples: r.samples,
		Latency: r.all.hist.latency(), Labels: make(map[string]*LabelResult), Elapsed: elapsed,
	}
	if elapsed > 0 {
		res.PerSecond = float64(res.Answered) / elapsed.Seconds()
	}
	for name, s := range r.labels {
		res.Labels[name] = &LabelResult{Requests: s.requests, Answered: s.answered, Unexpected: s.unexpected, Hangs: s.hangs,
			Status: s.status, Latency: s.hist.latency()}
	}
	return res
}
