package docs_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/internal/web/guard"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/server"
)

// This file is the one place the tests of the description know the
// server's package and its backends.

// serverSetup is what a test sets of the server it starts; the zero value
// is a server with no per-client limit and the usual deadlines.
type serverSetup struct {
	// deadline, when set, is every backend's deadline and the diagram's:
	// a nanosecond makes every answer that waits for work a 503.
	deadline time.Duration
	// rate, when set, is the requests a second of a loopback client, with
	// a burst of one.
	rate float64
	// satOnly registers the SAT backends alone: no backend depends on the
	// variable order.
	satOnly bool
	// oneModel holds one uploaded model at a time, without a directory:
	// the one before is removed when the next is uploaded.
	oneModel bool
}

// startServer starts the web server in process on a loopback port with
// the backends of cmd/web (small limits, so that every compile takes
// milliseconds: the BDD up to 10×10, the SAT backends up to 16×16, the SAT
// backend counting up to 100 solutions), and returns its base URL.
func startServer(t *testing.T, setup serverSetup) string {
	t.Helper()
	cfg := server.DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.Guard.Client, cfg.Guard.Loopback = guard.Quota{}, guard.Quota{}
	if setup.rate > 0 {
		cfg.Guard.Loopback = guard.Quota{Rate: setup.rate, Burst: 1}
	}
	deadline := 10 * time.Second
	if setup.deadline > 0 {
		deadline = setup.deadline
		cfg.DiagramDeadline = setup.deadline
	}
	const satMaxN, countCap = 16, 100
	engines := []server.Engine{
		{Backend: bdd.New(bdd.Options{MaxN: 10, Budget: 1 << 30}), Deadline: deadline, Budget: 1 << 30, Title: "BDD"},
		{Backend: sat.New(sat.Options{MaxN: satMaxN, Serve: 1, CountCap: countCap, Timeout: deadline}), Deadline: deadline, Title: "SAT"},
		{Backend: plain.New(plain.Options{MaxN: min(satMaxN, plain.DefaultMaxN), CountCap: countCap}), Deadline: deadline, Title: "SAT-PLAIN"},
	}
	if setup.oneModel {
		cfg.Models.Bytes = 1
	}
	if setup.satOnly {
		engines = engines[1:]
	}
	s, err := server.New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), engines...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return ts.URL
}

// cnfID is the ID the server gives the CNF file src.
func cnfID(src string) string { return models.ID(feature.DIMACS, []byte(src)) }

// exampleID is the ID the server gives the bundled example of that name.
func exampleID(name string) string {
	ex, ok := examples.Lookup(name)
	if !ok {
		panic("no example " + name)
	}
	return models.ID(ex.Format, ex.Source)
}
