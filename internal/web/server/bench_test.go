package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
)

// BenchmarkAPIAnalyze is one 8×8 analysis through the whole request path
// (every middleware, the handler, the JSON both ways) on the BDD backend
// as cmd/web sets it up by default: boards up to 16×16, compiled up to
// 15×15 and served past it from a directory of compiled files. The
// backend's own step takes microseconds here, so the benchmark weighs the
// path around it: what the server benchmark's req/s target pays on every
// request. Run it against the previous commit's (benchstat) after a change
// to the path.
func BenchmarkAPIAnalyze(b *testing.B) {
	cfg := testConfig()
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), Engine{
		Backend:  bdd.New(bdd.Options{Budget: 16 << 30, MaxN: 16, CompileMaxN: 15, Dir: b.TempDir()}),
		Deadline: 10 * time.Second,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.Close)
	h := s.Handler()
	const body = `{"n": 8, "queens": [[0, 0], [1, 4]]}`
	serve := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/analyze", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	// The first request compiles the board; check its answer once.
	rec := serve()
	var got analyzeResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &got); rec.Code != http.StatusOK || err != nil {
		b.Fatalf("status %d, %v: %s", rec.Code, err, rec.Body)
	}
	// Of the four 8×8 solutions with a queen at (0, 0), one has the
	// second row's at (1, 4): columns 0 4 7 5 2 6 1 3.
	if got.Solutions != "1" {
		b.Fatalf("8×8 with queens at (0, 0) and (1, 4): %s solutions, want 1", got.Solutions)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if rec := serve(); rec.Code != http.StatusOK {
				b.Errorf("status %d: %s", rec.Code, rec.Body)
				return
			}
		}
	})
}
