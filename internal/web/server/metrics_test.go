package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape fetches /metrics from the debug handler and parses it.
func scrape(t *testing.T, s *Server) map[string]*dto.MetricFamily {
	t.Helper()
	ts := httptest.NewServer(s.DebugHandler())
	defer ts.Close()
	res, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET /metrics: status %d", res.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// sample finds the series of a family with the given labels (name, value
// pairs) and returns its value: a counter's or a gauge's value, a
// histogram's count; ok is false when there is no such series.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) (v float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetrics sends known requests and checks what /metrics then says of
// them: requests by route pattern and status (never the raw address),
// latencies, cache lookups, compiles, analyses and solver calls by
// backend, the queues, and the Go runtime's and the process's series.
func TestMetrics(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	const analyses = 7
	for range analyses {
		if res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"queens":[[0,0]]}`); res.StatusCode != 200 {
			t.Fatalf("analyze: %d %s", res.StatusCode, body)
		}
	}
	for range 2 {
		if res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"queens":[[0,0],[0,1]],"backend":"sat"}`); res.StatusCode != 422 {
			t.Fatalf("attacking queens on sat: %d %s", res.StatusCode, body)
		}
	}
	if res, _ := post(t, ts, "/api/v1/analyze", `{"n":0}`); res.StatusCode != 400 {
		t.Fatalf("n=0: %d", res.StatusCode)
	}
	for _, path := range []string{"/?model=queens-6&select=a2", "/?model=queens-6&select=b4", "/no/such/page?x=1", "/another/missing"} {
		get(t, ts, path)
	}

	fams := scrape(t, s)
	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"nqueens_http_requests_total", []string{"route", "/api/v1/analyze", "method", "POST", "status", "200"}, analyses},
		{"nqueens_http_requests_total", []string{"route", "/api/v1/analyze", "method", "POST", "status", "422"}, 2},
		{"nqueens_http_requests_total", []string{"route", "/api/v1/analyze", "method", "POST", "status", "400"}, 1},
		{"nqueens_http_requests_total", []string{"route", "/", "method", "GET", "status", "200"}, 2},
		// Addresses that name nothing share their route's one series.
		{"nqueens_http_requests_total", []string{"route", "/*", "method", "GET", "status", "404"}, 2},
		{"nqueens_http_request_duration_seconds", []string{"route", "/api/v1/analyze", "method", "POST", "status", "200"}, analyses},
		// One compile per space: 8×8 BDD, 8×8 SAT, 6×6 BDD.
		{"nqueens_compile_duration_seconds", []string{"backend", "bdd", "result", "ok"}, 2},
		{"nqueens_compile_duration_seconds", []string{"backend", "sat", "result", "ok"}, 1},
		// Every request with a board looks its space up once: the nine
		// API requests and the two pages (a notice of an address that
		// names nothing shows no board); the three compiles were the
		// misses.
		{"nqueens_cache_lookups_total", []string{"result", "miss"}, 3},
		{"nqueens_cache_lookups_total", []string{"result", "hit"}, analyses + 2 + 2 - 3},
		// The API's analyses and the pages' steps.
		{"nqueens_analysis_duration_seconds", []string{"backend", "bdd"}, analyses + 2},
		{"nqueens_analysis_duration_seconds", []string{"backend", "sat"}, 2},
		{"nqueens_solver_calls_per_analysis", []string{"backend", "bdd"}, analyses + 2},
		{"nqueens_cache_spaces", nil, 3},
		{"nqueens_cache_limit_bytes", nil, float64(testConfig().Spaces.Bytes)},
		{"nqueens_backend_waiting", []string{"backend", "bdd"}, 0},
		{"nqueens_backend_running", []string{"backend", "bdd"}, 0},
	}
	for _, tt := range tests {
		got, ok := sample(fams, tt.name, tt.labels...)
		if !ok || got != tt.want {
			t.Errorf("%s%v = %v (found %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	if got, _ := sample(fams, "nqueens_cache_bytes"); got <= 0 {
		t.Errorf("nqueens_cache_bytes = %v with three spaces cached", got)
	}
	// The BDD's analyses call no solver: every one is in the bucket of 0.
	if f := fams["nqueens_solver_calls_per_analysis"]; f != nil {
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() == "bdd" && m.Histogram.GetSampleSum() != 0 {
				t.Errorf("BDD solver calls sum %v, want 0", m.Histogram.GetSampleSum())
			}
		}
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "process_cpu_seconds_total"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s: the Go runtime's and the process's collectors are missing", name)
		}
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "route" && strings.ContainsAny(lp.GetValue(), "?=") || strings.Contains(lp.GetValue(), "missing") {
					t.Errorf("%s has a raw address as a label: %q", name, lp.GetValue())
				}
			}
		}
	}
}
