package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/internal/web/guard"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// testSetup is the configuration of the tests: the server's, and the
// options of the two real backends, registered as cmd/web registers them.
type testSetup struct {
	Config
	BDD struct {
		MaxN     int
		Budget   int64
		Deadline time.Duration
	}
	SAT struct {
		MaxN, Queue, Serve, CountCap int
		Deadline                     time.Duration
	}
	extra []Engine // registered after the two
}

// testConfig is the configuration of the tests: small limits so that every
// compile takes milliseconds, no rate limit (tests that check it set one),
// and a long quick-wait so that pages never show compile progress unless a
// test asks for it.
func testConfig() testSetup {
	c := testSetup{Config: DefaultConfig()}
	c.Addr = "127.0.0.1:0"
	c.BDD.MaxN, c.BDD.Budget, c.BDD.Deadline = 10, 2<<30, 10*time.Second
	c.SAT.MaxN, c.SAT.Queue, c.SAT.Serve, c.SAT.CountCap, c.SAT.Deadline = 16, 32, 1, 1000, 10*time.Second
	c.Guard.Client, c.Guard.Loopback = guard.Quota{}, guard.Quota{}
	c.QuickWait = time.Minute
	c.Guard.RequestDeadline = time.Minute
	return c
}

// config is the server's part of the setup.
func (c testSetup) config() Config { return c.Config }

// engines builds the backends of the setup, the BDD first (the primary).
func (c testSetup) engines() []Engine {
	return append([]Engine{
		{Backend: bdd.New(bdd.Options{Budget: c.BDD.Budget, MaxN: c.BDD.MaxN}), Deadline: c.BDD.Deadline, Budget: c.BDD.Budget,
			Title: "Binary decision diagram: compiled once, then every answer is a walk over it"},
		{Backend: sat.New(sat.Options{MaxN: c.SAT.MaxN, Queue: c.SAT.Queue, Serve: c.SAT.Serve, CountCap: c.SAT.CountCap, Timeout: c.SAT.Deadline}),
			Deadline: c.SAT.Deadline, Title: "SAT solver: clauses written once, then gophersat asked about the squares its own propagation and search leave open; no diagram"},
	}, c.extra...)
}

// newTestServer starts the real server, with the real backends, on a
// loopback port.
func newTestServer(t testing.TB, cfg testSetup) (*Server, *httptest.Server) {
	t.Helper()
	s, ts, _ := serveWith(t, cfg.config(), cfg.engines()...)
	return s, ts
}

// compileCounter counts the compiles of every space through the backends
// it wraps (a real backend, its Compile counted).
type compileCounter struct {
	calls sync.Map // spaces.Key -> *atomic.Int32
}

// wrap returns the engines with their backends' compiles counted in c.
func (c *compileCounter) wrap(engines []Engine) []Engine {
	for i := range engines {
		engines[i].Backend = countedBackend{Backend: engines[i].Backend, c: c}
	}
	return engines
}

// count is the number of compiles of k.
func (c *compileCounter) count(k spaces.Key) int32 {
	v, ok := c.calls.Load(k)
	if !ok {
		return 0
	}
	return v.(*atomic.Int32).Load()
}

// total is the number of compiles on a backend.
func (c *compileCounter) total(backend string) int32 {
	var n int32
	c.calls.Range(func(k, v any) bool {
		if k.(spaces.Key).Backend == backend {
			n += v.(*atomic.Int32).Load()
		}
		return true
	})
	return n
}

// countedBackend is a backend whose compiles a compileCounter counts.
type countedBackend struct {
	configurator.Backend
	c *compileCounter
}

func (b countedBackend) Compile(ctx context.Context, m *configurator.Model) (configurator.Board, error) {
	v, _ := b.c.calls.LoadOrStore(spaces.Key{Backend: b.Name(), N: m.N(), Order: m.Order()}, new(atomic.Int32))
	v.(*atomic.Int32).Add(1)
	return b.Backend.Compile(ctx, m)
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

// countIn counts the occurrences of sub in s.
func countIn(s, sub string) int { return strings.Count(s, sub) }

// TestStartupSaysWhatLowersTheLargestBoard: when a backend serves smaller
// boards than its largest board setting, the log says why at start, in
// words for the person who runs the server: a board served from a
// compiled file alone whose file is missing, with the command that makes
// it, or the backend's own bound (its node budget). A board lowered by
// the setting itself, or served from a file that is there, says nothing.
func TestStartupSaysWhatLowersTheLargestBoard(t *testing.T) {
	withFile := t.TempDir()
	if _, err := bdd.New(bdd.Options{Dir: withFile}).Compile(context.Background(), configuratortest.Model(t, 6, configurator.RowMajor)); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	tests := []struct {
		name string
		opts bdd.Options
		want string // the warning's line; "" for none
	}{
		{"the file is missing", bdd.Options{Dir: empty, MaxN: 6, CompileMaxN: 5},
			`level=WARN msg="BDD serves boards up to 5×5 only, not up to its largest board setting: it compiles boards up to 5×5 itself and serves 6×6 from a compiled file alone, which is not there; make it once with the command below and restart the server" backend=bdd command="nqueens count -n 6 -budget 12G -cache-dir ` + empty + `"`},
		{"no directory of files", bdd.Options{MaxN: 6, CompileMaxN: 5},
			`level=WARN msg="BDD serves boards up to 5×5 only, not up to its largest board setting: it compiles boards up to 5×5 itself and serves 6×6 from a compiled file alone, which is not there, and the server keeps no directory of compiled files" backend=bdd`},
		{"the node budget", bdd.Options{MaxN: 10, Budget: 32 * (2451 + 2)},
			`level=WARN msg="BDD serves boards up to 8×8 only, not up to its largest board setting: its node budget of 76.7 KiB holds boards up to 8×8" backend=bdd`},
		{"the file is there", bdd.Options{Dir: withFile, MaxN: 6, CompileMaxN: 5}, ""},
		{"the setting alone", bdd.Options{MaxN: 6}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log configuratortest.Log
			s, err := New(testConfig().Config, slog.New(slog.NewTextHandler(&log, nil)), Engine{Backend: bdd.New(tt.opts), Deadline: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			var warnings []string
			for line := range strings.Lines(log.String()) {
				if strings.Contains(line, "level=WARN") {
					_, line, _ = strings.Cut(strings.TrimSpace(line), " ") // the time
					warnings = append(warnings, line)
				}
			}
			switch {
			case tt.want == "" && len(warnings) > 0:
				t.Errorf("warned: %q", warnings)
			case tt.want != "" && (len(warnings) != 1 || warnings[0] != tt.want):
				t.Errorf("warnings %q\nwant %q", warnings, tt.want)
			}
		})
	}
}
