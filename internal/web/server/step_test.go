package server

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// heldBackend is the real BDD backend held at will, for the tests of what
// the server says and does while a compile or the count of an empty board
// is under way: its compiles wait for compileGate, every analysis of an
// empty board waits for countGate, and it keeps compiled spaces in files
// (a configurator.Filer) and says it holds file.
type heldBackend struct {
	*bdd.Backend
	file        configurator.SpaceFile
	compileGate chan struct{}
	countGate   chan struct{}
	// counts are the analyses of an empty board begun; cancelled those
	// whose context ended while they were held.
	counts, cancelled atomic.Int32
}

func newHeldBackend(file configurator.SpaceFile) *heldBackend {
	return &heldBackend{Backend: bdd.New(bdd.Options{}), file: file,
		compileGate: make(chan struct{}), countGate: make(chan struct{})}
}

func (b *heldBackend) File(*configurator.Model) configurator.SpaceFile { return b.file }

func (b *heldBackend) Compile(ctx context.Context, m *configurator.Model) (configurator.Board, error) {
	select {
	case <-b.compileGate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	sp, err := b.Backend.Compile(ctx, m)
	if err != nil {
		return nil, err
	}
	return &heldSpace{Board: sp, b: b}, nil
}

// heldSpace is a space of heldBackend.
type heldSpace struct {
	configurator.Board
	b *heldBackend
}

func (s *heldSpace) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	if len(queens) == 0 {
		if err := s.b.hold(ctx); err != nil {
			return nil, err
		}
	}
	return s.Board.Analyze(ctx, queens)
}

// Domains is the board's, held as Analyze is when nothing is decided: the
// empty board's analysis in the board's feature decisions.
func (s *heldSpace) Domains(ctx context.Context, decisions []configurator.Decision) (*configurator.Domains, error) {
	if len(decisions) == 0 {
		if err := s.b.hold(ctx); err != nil {
			return nil, err
		}
	}
	return s.Board.Domains(ctx, decisions)
}

// hold counts an analysis of an empty board begun and waits for countGate,
// counting it cancelled when ctx ends first.
func (b *heldBackend) hold(ctx context.Context) error {
	b.counts.Add(1)
	select {
	case <-b.countGate:
		return nil
	case <-ctx.Done():
		b.cancelled.Add(1)
		return ctx.Err()
	}
}

// Diagram is the BDD's, so that the API reports the nodes an analysis
// visited.
func (s *heldSpace) Diagram(ctx context.Context, queens []configurator.Cell, maxNodes int) (string, int, error) {
	return s.Board.(configurator.Diagrammer).Diagram(ctx, queens, maxNodes)
}

// serveWith starts the server on engines, the primary first, and returns
// it with its address and what it logs.
func serveWith(t testing.TB, cfg Config, engines ...Engine) (*Server, *httptest.Server, *configuratortest.Log) {
	t.Helper()
	var log configuratortest.Log
	s, err := New(cfg, slog.New(slog.NewTextHandler(&log, nil)), engines...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts, &log
}

// satEngine is the SAT backend as the tests register it.
func satEngine() Engine {
	return Engine{Backend: sat.New(sat.Options{MaxN: 16, Queue: 32, Serve: 1, CountCap: 1000, Timeout: 10 * time.Second}), Deadline: 10 * time.Second, Title: "SAT solver"}
}

// postJSON posts body to path and returns the status and the body.
func postJSON(t *testing.T, ctx context.Context, ts *httptest.Server, path, body string) (int, string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

// TestCompileUnderWaySaysLoadOrCompile: while a board's space is being
// made, the one page does not wait for it: another backend answers
// meanwhile, and the page says what the board's backend is doing (a load
// from its compiled file, with the file's size, when the backend says it
// holds one, a compile otherwise, then the count of its empty board) and
// asks again by itself until it answers; the order panel says whether
// its button loads or compiles; the API's 503 says the same.
func TestCompileUnderWaySaysLoadOrCompile(t *testing.T) {
	tests := []struct {
		name     string
		file     configurator.SpaceFile
		page     string
		api      string
		button   string // the order panel's
		notWords []string
	}{
		{"a load", configurator.SpaceFile{Path: "/cache/queens-12-row.bdd", Bytes: 3 << 30, Command: "nqueens count -n 12 -budget 12G"},
			"BDD is still loading the 12×12 board from its compiled file of 3 GiB (for ",
			"The 12×12 BDD is still being loaded from its compiled file (3 GiB, for ",
			"Load 4 orders from disk",
			[]string{"compiling the", "being compiled"}},
		{"a compile", configurator.SpaceFile{Command: "nqueens count -n 12 -budget 12G"},
			"BDD is still compiling the 12×12 board (for ",
			"The 12×12 BDD is still being compiled (for ",
			"Compile 4 orders",
			[]string{"loading the", "compiled file"}},
	}
	mode := regexp.MustCompile(`<p class="mode-note" id="mode-note">([^<]*)</p>`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newHeldBackend(tt.file)
			cfg := testConfig().Config
			cfg.QuickWait = time.Nanosecond
			cfg.Guard.RequestDeadline = 300 * time.Millisecond
			// Nobody waits for the compile once the requests have their
			// 503: it must outlast the grace of an abandoned compile
			// however long a loaded machine takes for it.
			cfg.Spaces.Grace = 10 * time.Minute
			s, ts, _ := serveWith(t, cfg, Engine{Backend: b, Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
			// SAT's clauses are ready: the held compile's reservation
			// would keep them waiting for room.
			if _, err := s.featureSpace(context.Background(), "queens-12", "sat"); err != nil {
				t.Fatal(err)
			}
			page := "/?model=queens-12&backend=bdd"
			res, body := get(t, ts, page)
			body = html.UnescapeString(body)
			note := mode.FindStringSubmatch(body)
			if res.StatusCode != 200 || note == nil || !strings.HasPrefix(note[1], tt.page) || !strings.Contains(note[1], "SAT answers meanwhile") {
				t.Errorf("page while held: %d, note %q, want %q", res.StatusCode, note, tt.page)
			}
			if !strings.Contains(body, `id="poll"`) || !strings.Contains(body, `aria-label="12 by 12 board"`) {
				t.Fatalf("page while held: no board, or it does not ask again:\n%s", excerpt(body))
			}
			if button := between(body, `id="orders-compile"`, `</button>`); !strings.Contains(button, ">"+tt.button+"<") {
				t.Errorf("the order panel's button while held: %q, want %q", button, tt.button)
			}
			status, api, err := postJSON(t, context.Background(), ts, "/api/v1/analyze", `{"n":12,"backend":"bdd"}`)
			if err != nil || status != 503 || !strings.Contains(api, tt.api) || !strings.Contains(api, "so far); try again in a few seconds.") {
				t.Errorf("API while held: %d %s %v, want 503 with %q", status, api, err, tt.api)
			}
			for _, w := range tt.notWords {
				if strings.Contains(note[1], w) || strings.Contains(api, w) {
					t.Errorf("%q said while held: page %q, API %s", w, note[1], api)
				}
			}
			close(b.compileGate)
			configuratortest.WaitFor(t, "the count of the empty board", func() bool { return b.counts.Load() == 1 })
			counting := "BDD is still counting all the solutions of the 12×12 board (for "
			if _, body := get(t, ts, page); !strings.Contains(html.UnescapeString(body), counting) {
				t.Errorf("page while counting: want %q in\n%s", counting, excerpt(body))
			}
			want := "The 12×12 BDD is made and counting all its solutions (for "
			if status, api, err := postJSON(t, context.Background(), ts, "/api/v1/analyze", `{"n":12,"backend":"bdd"}`); err != nil || status != 503 || !strings.Contains(api, want) {
				t.Errorf("API while counting: %d %s %v, want 503 with %q", status, api, err, want)
			}
			close(b.countGate)
			configuratortest.WaitFor(t, "the compile", func() bool { return s.spaces.Cached(spaces.Key{Backend: "bdd", N: 12}) })
			res, body = get(t, ts, page+"&poll=1", "HX-Request", "true")
			if res.StatusCode != 200 || !strings.Contains(body, `id="count">14,200 configurations<`) || strings.Contains(body, `id="poll"`) || strings.Contains(body, `id="mode-note"`) {
				t.Errorf("the page's asking again once ready: %d, want the BDD's 14,200 configurations and no more asking\n%s", res.StatusCode, excerpt(body))
			}
			status, api, err = postJSON(t, context.Background(), ts, "/api/v1/analyze", `{"n":12,"backend":"bdd"}`)
			if err != nil || status != 200 || !strings.Contains(api, `"solutions":"14200"`) {
				t.Errorf("API once ready: %d %s %v, want the 14,200 solutions of 12×12", status, api, err)
			}
		})
	}
}

// waiterLeavesTheCount serves a held backend's 6×6 board under cfg and
// asks for it once, giving up while the empty board is counted: it
// returns once the space is cached without its waiter, the count held
// (close b.countGate to let it end), with the space's key.
func waiterLeavesTheCount(t *testing.T, cfg Config) (*Server, *httptest.Server, *configuratortest.Log, *heldBackend, spaces.Key) {
	t.Helper()
	b := newHeldBackend(configurator.SpaceFile{})
	close(b.compileGate)
	s, ts, log := serveWith(t, cfg, Engine{Backend: b, Deadline: 10 * time.Second, Title: "BDD"})
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan error, 1)
	go func() {
		_, _, err := postJSON(t, ctx, ts, "/api/v1/analyze", `{"n":6}`)
		gone <- err
	}()
	configuratortest.WaitFor(t, "the count to begin", func() bool { return b.counts.Load() == 1 })
	cancel() // the only waiter goes
	if err := <-gone; err == nil {
		t.Fatal("the request that gave up was answered")
	}
	k := spaces.Key{Backend: "bdd", N: 6}
	configuratortest.WaitFor(t, "the space to be cached without its waiters", func() bool { return s.spaces.Cached(k) })
	return s, ts, log, b, k
}

// TestEmptyBoardCountOutlivesItsWaiters: the count of a fresh space's
// empty board, which every request on the space shares, is not cancelled
// when the request that waited for it gives up (here its client goes, and
// the compile's last waiter with it): it goes on, and the next request
// finds it done, a remembered answer (no node visited), not started again.
func TestEmptyBoardCountOutlivesItsWaiters(t *testing.T) {
	cfg := testConfig().Config
	cfg.Spaces.Grace = time.Millisecond
	_, ts, log, b, _ := waiterLeavesTheCount(t, cfg)
	if n := b.cancelled.Load(); n != 0 {
		t.Fatalf("the empty board's count was cancelled %d times when its waiter left", n)
	}

	close(b.countGate)
	status, body, err := postJSON(t, context.Background(), ts, "/api/v1/analyze", `{"n":6}`)
	if err != nil || status != 200 {
		t.Fatalf("the next request: %d %s %v", status, body, err)
	}
	var got struct {
		Solutions string `json:"solutions"`
		Work      struct {
			NodesVisited *int64 `json:"nodes_visited"`
		} `json:"work"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if got.Solutions != "4" || got.Work.NodesVisited == nil || *got.Work.NodesVisited != 0 {
		t.Errorf("the next request: solutions %q, nodes visited %v; want 4, the remembered answer (0 visited):\n%s", got.Solutions, got.Work.NodesVisited, body)
	}
	if n := b.cancelled.Load(); n != 0 {
		t.Errorf("the empty board's count was cancelled %d times", n)
	}
	if l := log.String(); strings.Contains(l, "counting the empty board") {
		t.Errorf("the count failed:\n%s", l)
	}
}

// TestPageAnswersWhileTheCountGoesOn: when every request waiting for a
// fresh space gives up before its empty board is counted, the space is
// cached, and the count goes on detached; meanwhile the one page answers
// on the space without waiting for the count, which runs once.
func TestPageAnswersWhileTheCountGoesOn(t *testing.T) {
	cfg := testConfig().Config
	cfg.Spaces.Grace = time.Millisecond
	cfg.Spaces.Recycle = 0 // the held space reports no size: keep it however often it is asked for
	_, ts, _, b, _ := waiterLeavesTheCount(t, cfg)
	solved := "/?model=queens-6&select=b1,d2,f3,a4,c5,e6&backend=bdd"
	if res, body := get(t, ts, solved); res.StatusCode != 200 || !strings.Contains(body, `id="count">1 configuration<`) {
		t.Fatalf("a solved board before the count ended: %d\n%s", res.StatusCode, excerpt(body))
	}
	close(b.countGate)
	if n := b.counts.Load(); n != 1 {
		t.Errorf("the empty board was counted %d times, want once", n)
	}
}

// TestCrowdedSaysWhatItNeeds: a space that fits only by evicting spaces
// in use is refused with a 503 that says what it needs and when to come
// back (the cache's Crowded error, in words).
func TestCrowdedSaysWhatItNeeds(t *testing.T) {
	cr := &spaces.Crowded{Key: spaces.Key{Backend: "bdd", N: 7}, Need: 3 << 20, Room: 1 << 20, Bound: 4 << 20, Retry: time.Minute}
	p := crowdedProblem(cr)
	if p.Status != http.StatusServiceUnavailable || !errors.Is(p, configurator.ErrBusy) ||
		!strings.Contains(p.Message, "The 7×7 bdd space needs 3 MiB, and the server's cache of compiled spaces (4 MiB) has only 1 MiB free") || p.RetryAfter != 60 {
		t.Errorf("crowded: %d, retry %d: %q", p.Status, p.RetryAfter, p.Message)
	}
}

// TestMissingFacetsAreLearned: what the API says of a missing diagram
// names the backends whose spaces are known to have one, from the spaces
// the server compiled: none before the BDD has compiled a space (here
// for the one page), the BDD after. The one page says what a backend
// without counts per square or a diagram lacks, and which backend has it.
func TestMissingFacetsAreLearned(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	if res, body := post(t, ts, "/api/v1/diagram", `{"n":8,"backend":"sat"}`); res.StatusCode != 400 || !strings.Contains(body, `"The sat backend keeps no diagram to show."`) {
		t.Errorf("the diagram API before any BDD space: %d %s", res.StatusCode, body)
	}
	if res, _ := get(t, ts, "/?model=queens-6"); res.StatusCode != 200 {
		t.Fatalf("the BDD's first space, for the one page: %d", res.StatusCode)
	}
	if res, body := post(t, ts, "/api/v1/diagram", `{"n":8,"backend":"sat"}`); res.StatusCode != 400 || !strings.Contains(body, `The sat backend keeps no diagram to show: use \"backend\": \"bdd\".`) {
		t.Errorf("the diagram API after: %d %s", res.StatusCode, body)
	}
	res, body := get(t, ts, "/?model=queens-8&backend=sat")
	if want := `<p class="hint" id="share-note">Each feature's share of the configurations needs a backend that counts them for every feature (the BDD).</p>`; res.StatusCode != 200 || !strings.Contains(html.UnescapeString(body), want) || strings.Contains(body, `class="pct"`) {
		t.Errorf("the board on SAT: %d, want no shares and %s", res.StatusCode, want)
	}
	if res, body := get(t, ts, "/model-diagram?model=queens-8&backend=sat"); res.StatusCode != 404 || !strings.Contains(body, `"The sat backend keeps no decision diagram: choose a BDD to see one."`) {
		t.Errorf("the board's diagram on SAT: %d %s", res.StatusCode, body)
	}
}

// TestQueuedCompileStartsWhileThePageAsks: a board's compile queued
// behind another of its size (one slot) begins when its turn comes only
// while a request waits for it; the page that says it is still compiling
// asks again by itself and waits the quick wait each time, so that the
// compile begins on the page's next asking and the BDD answers.
func TestQueuedCompileStartsWhileThePageAsks(t *testing.T) {
	b := newHeldBackend(configurator.SpaceFile{Command: "nqueens count -n 12 -budget 12G"})
	cfg := testConfig().Config
	cfg.QuickWait = 50 * time.Millisecond
	cfg.Spaces.Slots = 1
	cfg.Spaces.Grace = 10 * time.Minute
	s, ts, _ := serveWith(t, cfg, Engine{Backend: b, Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
	if _, err := s.featureSpace(context.Background(), "queens-12", "sat"); err != nil {
		t.Fatal(err)
	}
	// File by file takes the one slot of 12×12, held.
	col := spaces.Key{Backend: "bdd", N: 12, Order: configurator.ColMajor}
	go s.spaces.Get(context.Background(), col)
	configuratortest.WaitFor(t, "the compile of file by file", func() bool { _, ok := s.spaces.Compiling(col); return ok })
	page := "/?model=queens-12&backend=bdd"
	res, body := get(t, ts, page)
	if res.StatusCode != 200 || !strings.Contains(body, `id="poll"`) {
		t.Fatalf("the page while rank by rank waits for its slot: %d, want the page asking again\n%s", res.StatusCode, excerpt(body))
	}
	close(b.compileGate)
	close(b.countGate)
	configuratortest.WaitFor(t, "file by file", func() bool { return s.spaces.Cached(col) })
	// Rank by rank has the slot now, and nobody waiting for it: the
	// page's asking again begins it.
	row := spaces.Key{Backend: "bdd", N: 12}
	get(t, ts, page+"&poll=1", "HX-Request", "true")
	configuratortest.WaitFor(t, "rank by rank, once the page asked again", func() bool { return s.spaces.Cached(row) })
	if _, body := get(t, ts, page+"&poll=1", "HX-Request", "true"); !strings.Contains(body, `id="count">14,200 configurations<`) || strings.Contains(body, `id="poll"`) {
		t.Errorf("the page's asking again once the BDD is ready:\n%s", excerpt(body))
	}
}
