package server

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics is what GET /metrics on the debug listener serves, in
// Prometheus's text format: the requests by route (Echo's pattern, never
// the address asked for, so that the series stay few) with their
// latencies, the backends' queues, the cache, compiles and analyses, and
// the Go runtime and the process. Its registry belongs to the server: two
// servers in one process (tests) count apart.
type metrics struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec   // by route, method, status
	latency     *prometheus.HistogramVec // by route, method, status
	lookups     *prometheus.CounterVec   // of the cache, by result: hit or miss
	compiles    *prometheus.HistogramVec // by backend and result: ok or error
	analyses    *prometheus.HistogramVec // by backend
	solverCalls *prometheus.HistogramVec // per analysis, by backend
}

// newMetrics registers the server's metrics, the collectors that read its
// backends' and cache's state at each scrape, and the Go runtime's and
// the process's collectors.
func newMetrics(s *Server) *metrics {
	// Latencies from 1 ms to about 30 s (the request deadline), each
	// bucket 2.5 times the one before.
	latencyBuckets := prometheus.ExponentialBuckets(0.001, 2.5, 13)
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nqueens_http_requests_total",
			Help: "HTTP requests answered, by route (the server's route pattern), method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "nqueens_http_request_duration_seconds",
			Help:    "Time from a request's arrival to its answer, by route, method and status.",
			Buckets: latencyBuckets,
		}, []string{"route", "method", "status"}),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "nqueens_cache_lookups_total",
			Help: "Requests for a compiled space, by result: hit (compiled already) or miss (compiled or joined a compile).",
		}, []string{"result"}),
		compiles: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "nqueens_compile_duration_seconds",
			Help: "Time of one compile of a space, by backend and result (ok or error).",
			// 1 ms to about 17 minutes, each bucket 4 times the one before.
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 11),
		}, []string{"backend", "result"}),
		analyses: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "nqueens_analysis_duration_seconds",
			Help:    "Time of one request's step on a backend (its analysis and the action), by backend.",
			Buckets: latencyBuckets,
		}, []string{"backend"}),
		solverCalls: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "nqueens_solver_calls_per_analysis",
			Help:    "SAT solver calls behind one analysis (configurator.Work.SolverCalls), by backend; 0 for a backend without a solver.",
			Buckets: []float64{0, 1, 4, 16, 64, 256, 1024, 4096, 16384},
		}, []string{"backend"}),
	}
	m.lookups.WithLabelValues("hit")
	m.lookups.WithLabelValues("miss")
	m.reg.MustRegister(m.requests, m.latency, m.lookups, m.compiles, m.analyses, m.solverCalls,
		stateCollector{s},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// methodLabel is the method of a request as a label: one of HTTP's, or
// "other", so that a client cannot add series with made-up methods.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// measureRequests is the middleware that counts and times every request.
// It runs outside the request logger, which has answered any error by
// the time it returns, so the status read here is the one sent.
func (s *Server) measureRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		route := cmp.Or(c.Path(), "other")
		status := c.Response().Status
		if !c.Response().Committed && err != nil {
			status = problem.Describe(err).Status
		}
		labels := []string{route, methodLabel(c.Request().Method), strconv.Itoa(status)}
		s.metrics.requests.WithLabelValues(labels...).Inc()
		s.metrics.latency.WithLabelValues(labels...).Observe(time.Since(start).Seconds())
		return err
	}
}

// space returns the compiled space of k from the cache, counting the
// lookup as a hit when the space was there already.
func (s *Server) space(ctx context.Context, k spaces.Key) (*spaces.Space, error) {
	result := "miss"
	if s.spaces.Cached(k) {
		result = "hit"
	}
	s.metrics.lookups.WithLabelValues(result).Inc()
	return s.spaces.Get(ctx, k)
}

// compiled records one compile.
func (m *metrics) compiled(backend string, took time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.compiles.WithLabelValues(backend, result).Observe(took.Seconds())
}

// opened records one analysis on a backend, answered or not: a session
// of the API opened, or a step of the model page answered afresh (a
// remembered answer is no analysis); its time and, when it answered, the
// solver calls behind its domains (work).
func (m *metrics) opened(backend string, took time.Duration, work *configurator.Work) {
	m.analyses.WithLabelValues(backend).Observe(took.Seconds())
	if work != nil {
		m.solverCalls.WithLabelValues(backend).Observe(float64(work.SolverCalls))
	}
}

// stateCollector reads, at each scrape, what the server holds: the cache's
// bytes and spaces, and each backend's admitted work (a
// configurator.Occupier).
type stateCollector struct{ s *Server }

var (
	descCacheBytes  = prometheus.NewDesc("nqueens_cache_bytes", "Bytes held by the cache of compiled spaces.", nil, nil)
	descCacheLimit  = prometheus.NewDesc("nqueens_cache_limit_bytes", "The bound of the cache of compiled spaces (-cache).", nil, nil)
	descCacheSpaces = prometheus.NewDesc("nqueens_cache_spaces", "Compiled spaces in the cache.", nil, nil)
	descWaiting     = prometheus.NewDesc("nqueens_backend_waiting", "Queries or requests waiting for their turn on a backend.", []string{"backend"}, nil)
	descRunning     = prometheus.NewDesc("nqueens_backend_running", "Queries or requests running on a backend.", []string{"backend"}, nil)
	descWorkBytes   = prometheus.NewDesc("nqueens_backend_work_bytes", "Work space held by a backend's running queries.", []string{"backend"}, nil)
)

func (sc stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descCacheBytes, descCacheLimit, descCacheSpaces, descWaiting, descRunning, descWorkBytes} {
		ch <- d
	}
}

func (sc stateCollector) Collect(ch chan<- prometheus.Metric) {
	bytes, held := sc.s.spaces.Used()
	ch <- prometheus.MustNewConstMetric(descCacheBytes, prometheus.GaugeValue, float64(bytes))
	ch <- prometheus.MustNewConstMetric(descCacheLimit, prometheus.GaugeValue, float64(sc.s.cfg.Spaces.Bytes))
	ch <- prometheus.MustNewConstMetric(descCacheSpaces, prometheus.GaugeValue, float64(held))
	for _, name := range sc.s.lineup.Names() {
		l, ok := sc.s.engines[name].Backend.(configurator.Occupier)
		if !ok {
			continue
		}
		ld := l.Occupancy()
		ch <- prometheus.MustNewConstMetric(descWaiting, prometheus.GaugeValue, float64(ld.Waiting), name)
		ch <- prometheus.MustNewConstMetric(descRunning, prometheus.GaugeValue, float64(ld.Running), name)
		ch <- prometheus.MustNewConstMetric(descWorkBytes, prometheus.GaugeValue, float64(ld.Bytes), name)
	}
}
