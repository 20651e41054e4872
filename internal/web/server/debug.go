package server

import (
	"encoding/json"
	"net/http"
	"net/http/pprof"
	"runtime"

	"github.com/nqueens/configurator/configurator"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// The debug listener (flag -debug-addr, off by default) serves the
// process's vital signs for soak tests and people chasing a leak:
//
//	GET /debug/stats         goroutines, heap and cache, as JSON
//	GET /debug/stats?gc=1    the same after two garbage collections
//	POST /debug/recycle      drop the spaces that grow as they are used
//	                         (SAT solvers), as -recycle does in time
//	GET /debug/pprof/...     the runtime profiles
//	GET /metrics             the server's metrics for Prometheus: requests
//	                         by route and status, queues, cache, compiles,
//	                         analyses, the Go runtime and the process
//
// It listens on a loopback address only, apart from the public listener,
// so that nothing of it is reachable from another machine.

// Stats is the answer of /debug/stats: the process's goroutines and heap,
// the cache of compiled spaces, and the work each backend that reports it
// (a configurator.Occupier) has admitted, by backend name.
type Stats struct {
	Goroutines  int                               `json:"goroutines"`
	HeapAlloc   uint64                            `json:"heap_alloc"`   // bytes of live and not yet collected objects
	HeapInuse   uint64                            `json:"heap_inuse"`   // bytes in spans in use
	HeapObjects uint64                            `json:"heap_objects"` // objects allocated and not yet freed
	HeapSys     uint64                            `json:"heap_sys"`     // bytes of heap obtained from the system
	NumGC       uint32                            `json:"num_gc"`
	CacheBytes  int64                             `json:"cache_bytes"`  // held by the cache of compiled spaces
	CacheSpaces int                               `json:"cache_spaces"` // spaces in it
	Backends    map[string]configurator.Occupancy `json:"backends"`
	// MemoryBound is the peak resident memory the server is sized to
	// stay within (Config.MemoryBound), 0 when unknown.
	MemoryBound int64 `json:"memory_bound,omitempty"`
}

// readStats measures the process; with gc it first collects twice, so
// that the heap holds only what is reachable (the second collection also
// empties the victim caches of sync.Pool).
func (s *Server) readStats(gc bool) Stats {
	if gc {
		runtime.GC()
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := Stats{
		Goroutines: runtime.NumGoroutine(),
		HeapAlloc:  ms.HeapAlloc, HeapInuse: ms.HeapInuse, HeapObjects: ms.HeapObjects, HeapSys: ms.HeapSys,
		NumGC:       ms.NumGC,
		Backends:    make(map[string]configurator.Occupancy),
		MemoryBound: s.cfg.MemoryBound,
	}
	st.CacheBytes, st.CacheSpaces = s.spaces.Used()
	for name, e := range s.engines {
		if l, ok := e.Backend.(configurator.Occupier); ok {
			st.Backends[name] = l.Occupancy()
		}
	}
	return st
}

// DebugHandler serves the debug routes: stats, recycle, pprof and
// metrics. Serve it on a loopback address only (Config.DebugAddr).
func (s *Server) DebugHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /debug/stats", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.readStats(r.URL.Query().Get("gc") == "1"))
	})
	mux.HandleFunc("POST /debug/recycle", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]int{"retired": s.spaces.RetireUnsized()})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{MaxRequestsInFlight: 2}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
