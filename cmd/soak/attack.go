package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/configurator/benchmarks/loadgen"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/launch"
)

// An attack is a hostile load run against the real server binary:
// attackers from loopback addresses of their own (127.10.x.y on) do what
// costs the server most, while a victim from another address asks what a
// person would and measures how long it waits. Each prints the victim's latencies, every answer's status, and
// the server's peak resident memory (VmHWM).
type attack struct {
	name, about string
	// args are the server's flags for the attack, before the user's and
	// after commonArgs.
	args []string
	// attackers is the default number of attacking clients.
	attackers int
	run       func(ctx context.Context, a *attackRun) error
	// target, if any, is the latency the attack's victim is held to.
	target *latencyTarget
	// memoryTarget holds the server's peak resident memory to the bound
	// it is sized to (its /debug/stats memory_bound).
	memoryTarget bool
	// cacheDir gives the server a cache directory of its own (a
	// temporary one, attackRun.dir) instead of none.
	cacheDir bool
	// stopUnder, when set, is the time within which the server must exit
	// after SIGTERM at the attack's end.
	stopUnder time.Duration
}

// latencyTarget is a bound on a quantile of the latencies of the requests
// of one label, as the tracker states it for an attack.
type latencyTarget struct {
	Label    string        // of the requests
	Quantile float64       // 0.99: the p99
	Under    time.Duration // the bound, exclusive
	About    string        // the target in words
}

// verdict is the target's quantile in r and whether it is met: never when
// no request of the label was answered.
func (t *latencyTarget) verdict(r *attackReport) (time.Duration, bool) {
	f := r.Figures[t.Label]
	if f == nil || len(f.latencies) == 0 {
		return 0, false
	}
	d := f.quantile(t.Quantile)
	return d, d < t.Under
}

// commonArgs are the server's flags of every attack: no disk cache, so
// that an attack compiles what it measures.
var commonArgs = []string{"-cache-dir", "off"}

// attacks lists the attacks of `soak -attack NAME`: the backends' work
// first, then the connections, then memory.
var attacks = []attack{
	{name: "diagram14", attackers: 8, args: []string{"-bdd-max-n", "14"},
		about: "8×8 analyses (the victim) while attackers ask 14×14 diagrams of one queen (/model-diagram?model=queens-14&select=a1: the restricted diagram copied, then too large to draw, its profile)",
		run:   smallBehindDiagrams},
	{name: "compile12", attackers: 2, args: []string{"-bdd-max-n", "14"},
		about: "a 12×12 compile (the victim) while attackers compile 14×14 in other variable orders",
		run:   compileBehindCompiles},
	{name: "cycle", attackers: 1, args: []string{"-bdd-max-n", "14"},
		about: "the twelve 12-14 size/order pairs cycled, one request at a time, through the cache (-- -cache 1G makes it smaller than they are); the victim is every request",
		run:   cyclePairs},
	{name: "headers", attackers: 3000, args: []string{},
		about: "connections that each send 1 MiB of a header line never finished; the victim asks /?model=queens-8 meanwhile",
		run:   unfinishedHeaders},
	{name: "idle", attackers: 19000, args: []string{},
		about: "idle keep-alive connections, each after one request; the victim asks /?model=queens-8 from a new connection meanwhile",
		run:   idleConnections},
	{name: "sat32", attackers: 1, args: []string{"-sat-max-n", "32"},
		about: "SAT 20×20 analyses (the victim) while each attacker repeats the hill-climbed 32×32 placement of 13 queens",
		run: func(ctx context.Context, a *attackRun) error {
			cells, err := configurator.ParseCells(hostile32)
			if err != nil {
				return err
			}
			return hostileSAT(ctx, a, 32, queensBody("sat", 32, "", pairs(cells)))
		}},
	{name: "pigeon72", attackers: 1, args: []string{"-sat-max-n", "100"},
		about: "SAT 20×20 analyses (the victim) while each attacker repeats the 72×72 pigeonhole of 36 queens",
		run:   func(ctx context.Context, a *attackRun) error { return hostileSAT(ctx, a, 72, hostile72) }},
	{name: "memory14", attackers: 8, args: []string{"-bdd-max-n", "14"},
		about: "attackers on the 14×14 page in Both with the diagram panel, and its diagram (/model-diagram); the figure is the peak memory",
		run:   memory14},
	{name: "heavy", attackers: 8, args: []string{},
		about: "8×8 analyses (the victim) while attackers drive the heaviest routes at 14×14 and 15×15: every order compiled (/api/v1/orders, /orders?compile=1), diagrams of one queen (/api/v1/diagram, /model-diagram), the page asking again while its board compiles (poll=1); the figures are the victim's latencies and the peak memory",
		run:   heavyRoutes,
		target: &latencyTarget{Label: "8×8 analyze under attack", Quantile: 0.99, Under: 50 * time.Millisecond,
			About: "small queries (8×8 analyses) from another client keep p99 < 50 ms while eight clients drive the heaviest routes at 14×14 and 15×15"}},
	{name: "fresh15", attackers: 1, args: []string{"-bdd-max-n", "15", "-bdd-compile-max-n", "15"},
		about: "a 15×15 board fresh from its compile: one client asks for it until it is answered, then the victim walks it (seeded random walks, a queen on a free square at a time) from that first answer on",
		run:   freshWalks,
		target: &latencyTarget{Label: "15×15 walk, fresh", Quantile: 0.99, Under: 250 * time.Millisecond,
			About: "a 15×15 space fresh from a compile answers with p99 < 250 ms from its first request"}},
	{name: "addresses", attackers: 66000, args: []string{"-loopback-rate", "20", "-loopback-burst", "40"},
		about: "one cheap request from each of 66,000 loopback addresses (127.x.y.z), then from new addresses: are they served?",
		run:   manyAddresses},
}

// The hostile SAT placements (internal/web/server's hostile_sat_test.go
// runs them too), questions gophersat cannot settle within a request's
// deadline: a hill-climbed 32×32 placement of 13 queens (as in a page's
// address), and 36 queens on 72×72 that leave 19 free ranks 18 usable
// files.
const (
	hostile32 = "b31,r16,d32,h23,af3,ad14,m15,ac25,ab29,e24,y1,ae30,a26"
	hostile72 = `{"backend":"sat","n":72,"queens":[[17,4],[20,12],[54,56],[8,25],[69,69],[56,55],[9,7],[42,63],[44,58],[13,14],[7,22],[16,9],[15,26],[51,64],[12,3],[62,70],[58,62],[6,2],[64,54],[14,23],[19,24],[60,48],[18,13],[45,61],[65,71],[50,57],[52,49],[3,15],[48,68],[57,46],[2,5],[59,45],[22,16],[47,65],[43,53],[0,19]]}`
)

// attackConfig is one run of an attack.
type attackConfig struct {
	Server    string
	Attack    string
	Attackers int           // 0: the attack's default
	Duration  time.Duration // of the attack
	Probes    int           // the victim's requests; 0: as many as Duration allows
	Every     time.Duration // between the victim's requests
	Memory    string        // the server's -memory; "": what the machine gives
	Extra     []string      // more server flags, after the attack's own
	Log       io.Writer     // a copy of the server's log; nil: none
	Progress  io.Writer
}

// attackRun is an attack under way: the server, the clients, and what
// they saw.
type attackRun struct {
	cfg  attackConfig
	p    *launch.Process
	mu   sync.Mutex
	figs map[string]*figures
	// notes are figures the attack states in words; failures are the
	// checks it did not pass.
	notes, failures []string
	dir             string // the server's cache directory, "" for none
}

// figures are the answers of one kind of request.
type figures struct {
	latencies []time.Duration
	status    map[int]int
	errs      int
}

// attackReport is what an attack found.
type attackReport struct {
	Attack    string
	Attackers int
	Args      []string
	Figures   map[string]*figures
	Notes     []string
	PeakRSS   uint64
	Elapsed   time.Duration
	Target    *latencyTarget // the attack's, if any
	// Failures are the attack's checks not passed.
	Failures []string
	// Bound is the peak resident memory the server is sized to stay
	// within, held to when MemoryTarget.
	Bound        int64
	MemoryTarget bool
	// StopTook is how long the server took to exit after SIGTERM, held to
	// StopUnder when it is set.
	StopTook, StopUnder time.Duration
}

// passed reports whether the attack's target, if it has one, is met.
func (r *attackReport) passed() bool {
	if len(r.Failures) > 0 || r.MemoryTarget && (r.Bound <= 0 || int64(r.PeakRSS) >= r.Bound) ||
		r.StopUnder > 0 && r.StopTook > r.StopUnder {
		return false
	}
	if r.Target == nil {
		return true
	}
	_, met := r.Target.verdict(r)
	return met
}

func findAttack(name string) (attack, error) {
	var names []string
	for _, a := range slices.Concat(attacks, modelAttacks) {
		if a.name == name {
			return a, nil
		}
		names = append(names, a.name)
	}
	return attack{}, fmt.Errorf("no attack %q; the attacks are %s", name, strings.Join(names, ", "))
}

// runAttack starts the server with the attack's flags, runs the attack
// and stops the server.
func runAttack(ctx context.Context, cfg attackConfig) (*attackReport, error) {
	at, err := findAttack(cfg.Attack)
	if err != nil {
		return nil, err
	}
	if cfg.Attackers <= 0 {
		cfg.Attackers = at.attackers
	}
	if cfg.Every <= 0 {
		cfg.Every = 100 * time.Millisecond
	}
	common := commonArgs
	if cfg.Memory != "" {
		common = append([]string{"-memory", cfg.Memory}, common...)
	}
	args := append(knownFlags(ctx, cfg.Server, slices.Concat(common, at.args)), cfg.Extra...)
	dir := ""
	if at.cacheDir {
		if dir, err = os.MkdirTemp("", "soak-cache-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		args = append(args, "-cache-dir", dir)
	}
	p, err := launch.Start(ctx, cfg.Server, launch.Options{Debug: true, Log: cfg.Log}, args...)
	if err != nil {
		return nil, err
	}
	defer p.Kill()
	a := &attackRun{cfg: cfg, p: p, figs: map[string]*figures{}, dir: dir}
	a.say("%s: %s; %d attackers; server %s %s (debug %s)", at.name, at.about, cfg.Attackers, cfg.Server, strings.Join(args, " "), p.DebugURL())
	start := time.Now()
	if err := at.run(ctx, a); err != nil {
		return nil, fmt.Errorf("attack %s: %w", at.name, err)
	}
	r := &attackReport{Attack: at.name, Attackers: cfg.Attackers, Args: args, Figures: a.figs, Notes: a.notes, Elapsed: time.Since(start), Target: at.target,
		Failures: a.failures, MemoryTarget: at.memoryTarget, StopUnder: at.stopUnder}
	if r.PeakRSS, err = p.PeakRSS(); err != nil {
		return nil, err
	}
	if st, err := p.Stats(ctx, false); err == nil {
		r.Bound = st.MemoryBound
	}
	stopped := time.Now()
	if err := p.Stop(30 * time.Second); err != nil {
		return nil, fmt.Errorf("stopping the server: %w", err)
	}
	r.StopTook = time.Since(stopped)
	return r, nil
}

// knownFlags returns the flags of args (pairs of a flag and its value)
// that the server binary knows, by its -h: an attack can run against a
// build that lacks one of its flags (one without -cache-dir, which keeps
// no disk cache), to compare two builds under the same load.
func knownFlags(ctx context.Context, binary string, args []string) []string {
	help, _ := exec.CommandContext(ctx, binary, "-h").CombinedOutput()
	var out []string
	for i := 0; i+1 < len(args); i += 2 {
		if strings.Contains(string(help), "\n  "+args[i]+" ") || strings.Contains(string(help), "\n  "+args[i]+"\n") {
			out = append(out, args[i], args[i+1])
		}
	}
	return out
}

func (a *attackRun) say(format string, args ...any) {
	if a.cfg.Progress != nil {
		fmt.Fprintf(a.cfg.Progress, "attack: "+format+"\n", args...)
	}
}

func (a *attackRun) note(format string, args ...any) {
	a.mu.Lock()
	a.notes = append(a.notes, fmt.Sprintf(format, args...))
	a.mu.Unlock()
}

// record adds one answer (status 0: no answer) to the figures of label.
func (a *attackRun) record(label string, status int, took time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.figs[label]
	if f == nil {
		f = &figures{status: map[int]int{}}
		a.figs[label] = f
	}
	if status == 0 {
		f.errs++
		return
	}
	f.latencies = append(f.latencies, took)
	f.status[status]++
}

// client returns an HTTP client whose connections come from loopback
// address 127.10.x.y number i, as one user of its own to the server
// (which counts its limits by the connection's address). The victim is
// number 0; attackers count from 1.
func client(i int, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: loopback(i)}}
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
}

func loopback(i int) net.IP { return net.IPv4(127, byte(10+i/62500), byte(i/250%250), byte(i%250+1)) }

// do sends one request and records its answer under label; it returns
// the status (0 when there was no answer) and the body.
func (a *attackRun) do(ctx context.Context, c *http.Client, label, method, path, body string) (int, string) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.p.URL()+path, rd)
	if err != nil {
		return 0, err.Error()
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return a.send(ctx, c, label, req)
}

// doHTMX sends a GET of path as the page's htmx sends it (HX-Request),
// records it under label and returns its status and body.
func (a *attackRun) doHTMX(ctx context.Context, c *http.Client, label, path string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.p.URL()+path, nil)
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("HX-Request", "true")
	return a.send(ctx, c, label, req)
}

// prepare asks for bodies one at a time, so that the spaces the attack
// needs are compiled before it starts: a 503 (a compile longer than the
// server's compile deadline goes on in the background) is asked again
// every two seconds, for up to ten minutes.
func (a *attackRun) prepare(ctx context.Context, bodies ...string) error {
	c := client(0, 10*time.Minute)
	defer c.CloseIdleConnections()
	for _, b := range bodies {
		begin := time.Now()
		for {
			status, text := a.do(ctx, c, "prepare", http.MethodPost, "/api/v1/analyze", b)
			if status == http.StatusOK {
				break
			}
			if status != http.StatusServiceUnavailable || time.Since(begin) > 10*time.Minute {
				return fmt.Errorf("prepare %s: %d %s", b, status, text)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
		a.say("prepared %s in %v", b, time.Since(begin).Round(time.Millisecond))
	}
	delete(a.figs, "prepare")
	return nil
}

// attackers runs k attacking clients, each repeating one until ctx ends
// or the attack's duration is over, and returns a function that stops
// them and waits.
func (a *attackRun) attackers(ctx context.Context, k int, one func(ctx context.Context, c *http.Client, i int)) (stop func()) {
	actx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := 1; i <= k; i++ {
		wg.Go(func() {
			c := client(i, 5*time.Minute)
			defer c.CloseIdleConnections()
			for actx.Err() == nil {
				one(actx, c, i)
			}
		})
	}
	return func() { cancel(); wg.Wait() }
}

// victim asks next() every cfg.Every from client 0, Probes times or for
// the attack's duration.
func (a *attackRun) victim(ctx context.Context, label string, next func(i int) (method, path, body string)) {
	c := client(0, time.Minute)
	defer c.CloseIdleConnections()
	end := time.Now().Add(a.cfg.Duration)
	for i := 0; ctx.Err() == nil; i++ {
		if a.cfg.Probes > 0 && i >= a.cfg.Probes || a.cfg.Probes == 0 && time.Now().After(end) {
			return
		}
		m, p, b := next(i)
		a.do(ctx, c, label, m, p, b)
		select {
		case <-ctx.Done():
		case <-time.After(a.cfg.Every):
		}
	}
}

// placements8 is the victim's i-th request on 8×8: an analysis of two to
// four queens of the solution a1 b5 c8 d6 e3 f7 g2 h4, each a sweep of a
// small part of the diagram (a board of one queen would be answered from
// the memo).
func placements8(i int) (method, path, body string) {
	sol := [][2]int{{0, 0}, {1, 4}, {2, 7}, {3, 5}, {4, 2}, {5, 6}, {6, 1}, {7, 3}}
	rng := rand.New(rand.NewPCG(uint64(i), 8))
	rng.Shuffle(len(sol), func(x, y int) { sol[x], sol[y] = sol[y], sol[x] })
	return http.MethodPost, "/api/v1/analyze", queensBody("bdd", 8, "", sol[:2+rng.IntN(3)])
}

func pairs(cells []configurator.Cell) [][2]int {
	out := make([][2]int, len(cells))
	for i, c := range cells {
		out[i] = [2]int{c.Row, c.Col}
	}
	return out
}

func queensBody(backend string, n int, order string, queens [][2]int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"backend":%q,"n":%d`, backend, n)
	if order != "" {
		fmt.Fprintf(&b, `,"order":%q`, order)
	}
	b.WriteString(`,"queens":[`)
	for i, q := range queens {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,%d]", q[0], q[1])
	}
	b.WriteString("]}")
	return b.String()
}

// smallBehindDiagrams times 8×8 analyses alone, then behind 14×14
// diagram requests that fill the BDD's work space: the work space's lane
// of small queries keeps them from waiting behind the large ones.
func smallBehindDiagrams(ctx context.Context, a *attackRun) error {
	if err := a.prepare(ctx, queensBody("bdd", 14, "", nil), queensBody("bdd", 8, "", nil)); err != nil {
		return err
	}
	a.victim(ctx, "8×8 analyze alone", placements8)
	stop := a.attackers(ctx, a.cfg.Attackers, func(ctx context.Context, c *http.Client, i int) {
		// A queen on the first rank: the diagram restricted to it is
		// copied (a fifth to two fifths of the whole), then found too
		// large to draw.
		q := configurator.Cell{Col: (i - 1) % 14}
		a.do(ctx, c, "14×14 diagram", http.MethodGet, "/model-diagram?model=queens-14&backend=bdd&select="+q.String(), "")
	})
	defer stop()
	if err := a.waitBusy(ctx, "bdd"); err != nil {
		return err
	}
	a.victim(ctx, "8×8 analyze under attack", placements8)
	// The attack's own answers are part of its report: on a slow machine
	// none may have come while the victim asked.
	a.waitAnswered(ctx, "14×14 diagram")
	return nil
}

// waitAnswered waits until a request of label has ended, answered or not,
// or ctx ends.
func (a *attackRun) waitAnswered(ctx context.Context, label string) {
	for ctx.Err() == nil {
		a.mu.Lock()
		ended := a.figs[label] != nil
		a.mu.Unlock()
		if ended {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitBusy waits until the backend's work space is full (some query
// waiting), or 10 s.
func (a *attackRun) waitBusy(ctx context.Context, backend string) error {
	end := time.Now().Add(10 * time.Second)
	for time.Now().Before(end) {
		m, err := a.metrics(ctx)
		if err != nil {
			return err
		}
		if m[`nqueens_backend_waiting{backend="`+backend+`"}`] > 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	a.note("the %s backend never had a query waiting: its work space was not saturated", backend)
	return nil
}

// metrics reads the server's /metrics, series without labels' values
// beyond their names: "name{labels}" to value.
func (a *attackRun) metrics(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.p.DebugURL()+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out, sc.Err()
}

// compileBehindCompiles times a 12×12 compile behind 14×14 compiles in
// other variable orders, then another 12×12 compile alone: the compile
// lanes, one per board size, keep the smaller compile from waiting behind
// the larger ones.
func compileBehindCompiles(ctx context.Context, a *attackRun) error {
	orders := configurator.Orders()
	var wg sync.WaitGroup
	actx, cancel := context.WithCancel(ctx)
	defer func() { cancel(); wg.Wait() }()
	for i := 1; i <= a.cfg.Attackers; i++ {
		wg.Go(func() {
			c := client(i, 5*time.Minute)
			defer c.CloseIdleConnections()
			o := orders[(i-1)%len(orders)]
			a.do(actx, c, "14×14 compile", http.MethodPost, "/api/v1/analyze", queensBody("bdd", 14, o.String(), nil))
		})
	}
	time.Sleep(2 * time.Second) // the 14×14 compiles under way
	c := client(0, 5*time.Minute)
	defer c.CloseIdleConnections()
	a.do(ctx, c, "12×12 compile under attack", http.MethodPost, "/api/v1/analyze", queensBody("bdd", 12, "", nil))
	wg.Wait()
	// The same compile alone, in another order (the row order is cached now).
	a.do(ctx, c, "12×12 compile alone (column order)", http.MethodPost, "/api/v1/analyze", queensBody("bdd", 12, configurator.ColMajor.String(), nil))
	return nil
}

// cyclePairs asks for the twelve size/order pairs of 12×12 to 14×14, one
// request at a time, round and round, through the server's cache: a cache
// smaller than the twelve spaces (-cache after --: the default holds them
// all) must neither recompile 14×14 without end nor refuse its users, and
// the cache's metrics say what it did.
func cyclePairs(ctx context.Context, a *attackRun) error {
	c := client(1, 5*time.Minute)
	defer c.CloseIdleConnections()
	end := time.Now().Add(a.cfg.Duration)
	for i := 0; ctx.Err() == nil && time.Now().Before(end); i++ {
		n, o := 12+i/4%3, configurator.Orders()[i%4]
		a.do(ctx, c, fmt.Sprintf("%d×%d %s", n, n, o), http.MethodPost, "/api/v1/analyze", queensBody("bdd", n, o.String(), nil))
	}
	m, err := a.metrics(ctx)
	if err != nil {
		return err
	}
	a.note("cache: %s in %.0f spaces; lookups %.0f hits, %.0f misses", bytesize.Format(int64(m["nqueens_cache_bytes"])),
		m["nqueens_cache_spaces"], m[`nqueens_cache_lookups_total{result="hit"}`], m[`nqueens_cache_lookups_total{result="miss"}`])
	return nil
}

// unfinishedHeaders opens connections that each send 1 MiB of a header
// line never finished: the header limit, the header timeout and the
// connection cap bound what they cost the server.
func unfinishedHeaders(ctx context.Context, a *attackRun) error {
	var accepted, refused, sent atomic.Int64
	var wg sync.WaitGroup
	addr := strings.TrimPrefix(a.p.URL(), "http://")
	conns := make(chan net.Conn, a.cfg.Attackers)
	line := []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Long: ")
	chunk := []byte(strings.Repeat("a", 64<<10))
	for i := 1; i <= a.cfg.Attackers; i++ {
		wg.Go(func() {
			d := net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: loopback(i % 200)}}
			conn, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				refused.Add(1)
				return
			}
			conns <- conn
			conn.SetWriteDeadline(time.Now().Add(15 * time.Second))
			if _, err := conn.Write(line); err != nil {
				refused.Add(1)
				return
			}
			for range 16 { // 1 MiB
				if _, err := conn.Write(chunk); err != nil {
					return
				}
				sent.Add(int64(len(chunk)))
			}
			accepted.Add(1)
		})
	}
	time.Sleep(2 * time.Second)
	a.victim(ctx, "/?model=queens-8 meanwhile", func(int) (string, string, string) { return http.MethodGet, "/?model=queens-8", "" })
	wg.Wait()
	close(conns)
	for c := range conns {
		c.Close()
	}
	a.note("%d connections sent their whole 1 MiB, %d were refused or closed before their first line; %s sent in all",
		accepted.Load(), refused.Load(), bytesize.Format(sent.Load()))
	return nil
}

// idleConnections leaves keep-alive connections idle after a request
// each, as many as the attackers: the connection cap hands the slot of
// the one idle longest to a new client, which is served at once.
func idleConnections(ctx context.Context, a *attackRun) error {
	addr := strings.TrimPrefix(a.p.URL(), "http://")
	var kept, refused atomic.Int64
	conns := make(chan net.Conn, a.cfg.Attackers)
	sem := make(chan struct{}, 256)
	var wg sync.WaitGroup
	for i := 1; i <= a.cfg.Attackers; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: loopback(i % 200)}}
			conn, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				refused.Add(1)
				return
			}
			conns <- conn
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil || res.StatusCode != http.StatusOK {
				refused.Add(1)
				return
			}
			io.Copy(io.Discard, res.Body)
			kept.Add(1)
		})
	}
	wg.Wait()
	a.note("%d connections answered and left idle, %d refused", kept.Load(), refused.Load())
	a.victim(ctx, "/?model=queens-8 from a new connection", func(int) (string, string, string) { return http.MethodGet, "/?model=queens-8", "" })
	// How many of the idle connections the server closed by now.
	closed := 0
	close(conns)
	for c := range conns {
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			closed++
		}
		c.Close()
	}
	a.note("after the victim's %v, the server had closed %d of the idle connections", a.cfg.Duration, closed)
	return nil
}

// hostileSAT times a victim's SAT analyses on 20×20 alone, then while
// the attackers repeat a placement gophersat cannot settle in time: the
// fair admission and the sliced solver turns keep the victim served, and
// the deadline stops the attackers' calls, which the server's CPU in the
// second after them shows.
func hostileSAT(ctx context.Context, a *attackRun, n int, attackBody string) error {
	if err := a.prepare(ctx, queensBody("sat", n, "", nil), queensBody("sat", 20, "", nil)); err != nil {
		return err
	}
	// The victim asks about 0 to 5 queens of one solution: honest
	// questions, each answered in milliseconds.
	c := client(0, time.Minute)
	status, text := a.do(ctx, c, "prepare", http.MethodPost, "/api/v1/complete", queensBody("sat", 20, "", nil))
	c.CloseIdleConnections()
	delete(a.figs, "prepare")
	var sol struct{ Solution [][2]int }
	if err := json.Unmarshal([]byte(text), &sol); status != http.StatusOK || err != nil || len(sol.Solution) != 20 {
		return fmt.Errorf("a 20×20 solution: %d %s", status, text)
	}
	victim := func(i int) (string, string, string) {
		return http.MethodPost, "/api/v1/analyze", queensBody("sat", 20, "", sol.Solution[:i%6])
	}
	a.victim(ctx, "SAT 20×20 alone", victim)
	stop := a.attackers(ctx, a.cfg.Attackers, func(ctx context.Context, c *http.Client, _ int) {
		a.do(ctx, c, fmt.Sprintf("SAT %d×%d attack", n, n), http.MethodPost, "/api/v1/analyze", attackBody)
	})
	time.Sleep(200 * time.Millisecond)
	a.victim(ctx, "SAT 20×20 under attack", victim)
	stop()
	// The server's CPU in the second after the last attack ended (its
	// client stopped waiting: the server stops the call at its deadline).
	time.Sleep(time.Second)
	before, err := cpuTime(a.p.Pid())
	if err != nil {
		return err
	}
	time.Sleep(time.Second)
	after, err := cpuTime(a.p.Pid())
	if err != nil {
		return err
	}
	a.note("the server's CPU in a second, one second after the attackers stopped: %v", (after - before).Round(time.Millisecond))
	return nil
}

// cpuTime is the user and system CPU time of process pid so far, from
// /proc/pid/stat (clock ticks of 10 ms).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command's name, in parentheses: utime and
	// stime are the 12th and 13th.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(u+s) * 10 * time.Millisecond, nil
}

// memory14 sends the attackers to the 14×14 page in Both with the
// diagram's panel, and to its diagram: the figure is the server's peak
// resident memory.
func memory14(ctx context.Context, a *attackRun) error {
	if err := a.prepare(ctx, queensBody("bdd", 14, "", nil), queensBody("sat", 14, "", nil)); err != nil {
		return err
	}
	stop := a.attackers(ctx, a.cfg.Attackers, func(ctx context.Context, c *http.Client, i int) {
		q := ""
		if i%2 == 0 {
			q = "&select=" + configurator.FormatCells([]configurator.Cell{{Row: 0, Col: i % 14}})
		}
		a.do(ctx, c, "14×14 page, Both, diagram", http.MethodGet, "/?model=queens-14&backend=both&diagram=1"+q, "")
		a.do(ctx, c, "14×14 /model-diagram", http.MethodGet, "/model-diagram?model=queens-14&backend=bdd"+q, "")
	})
	select {
	case <-ctx.Done():
	case <-time.After(a.cfg.Duration):
	}
	stop()
	return nil
}

// heavyRoutes times 8×8 analyses alone, then while the attackers drive
// the heaviest routes at 14×14 and 15×15 (orders compiled, diagrams of one
// queen drawn or profiled, the page asking again while its board
// compiles, left after two seconds): the
// one memory bound, the compile lanes and the work space's lane of small
// queries keep the victim served. It notes the server's memory when the
// attackers stop and 20 s later, with its CPU then: work nobody waits for
// is dropped, not left running.
func heavyRoutes(ctx context.Context, a *attackRun) error {
	if err := a.prepare(ctx, queensBody("bdd", 8, "", nil)); err != nil {
		return err
	}
	a.victim(ctx, "8×8 analyze alone", placements8)
	stop := a.attackers(ctx, a.cfg.Attackers, func(ctx context.Context, c *http.Client, i int) {
		for k := 0; ctx.Err() == nil && k < 5; k++ {
			n := 14 + (i+k)%2
			q := configurator.Cell{Col: (i + k) % n}
			switch k {
			case 0:
				a.do(ctx, c, "orders", http.MethodPost, "/api/v1/orders", fmt.Sprintf(`{"n":%d,"backend":"bdd"}`, n))
			case 1:
				a.do(ctx, c, "API diagram of a queen", http.MethodPost, "/api/v1/diagram", queensBody("bdd", n, "", [][2]int{{0, q.Col}}))
			case 2:
				a.do(ctx, c, "order panel, compile", http.MethodGet, fmt.Sprintf("/orders?n=%d&compile=1", n), "")
			case 3:
				// The page of the board asking again while it compiles,
				// for two seconds at most, then leave.
				sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				a.doHTMX(sctx, c, "page asking again", fmt.Sprintf("/?model=queens-%d&backend=bdd&poll=1", n))
				cancel()
			case 4:
				a.do(ctx, c, "model diagram of a queen", http.MethodGet, fmt.Sprintf("/model-diagram?model=queens-%d&backend=bdd&select=%s", n, q), "")
			}
		}
	})
	time.Sleep(2 * time.Second)
	a.victim(ctx, "8×8 analyze under attack", placements8)
	stop()
	rss := func() string {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", a.p.Pid()))
		if err != nil {
			return err.Error()
		}
		for line := range strings.Lines(string(b)) {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				return strings.TrimSpace(v)
			}
		}
		return "?"
	}
	a.note("resident memory when the attackers stopped: %s", rss())
	time.Sleep(20 * time.Second)
	before, err := cpuTime(a.p.Pid())
	if err != nil {
		return err
	}
	time.Sleep(5 * time.Second)
	after, err := cpuTime(a.p.Pid())
	if err != nil {
		return err
	}
	a.note("20 s after the attackers stopped: resident memory %s, CPU %v in 5 s", rss(), (after - before).Round(10*time.Millisecond))
	return nil
}

// freshWalks asks for the empty 15×15 board, which the server (with no
// disk cache) compiles, until it is answered (prepare); then the victim
// walks the board from that first answer on, each step a queen on a free
// square of the last answer (seeded), a new walk from the empty board
// when none is left: the space as its first visitors meet it, its kept
// answers computed, or not, before it was offered.
func freshWalks(ctx context.Context, a *attackRun) error {
	const n = 15
	start := time.Now()
	if err := a.prepare(ctx, queensBody("bdd", n, "", nil)); err != nil {
		return err
	}
	a.note("the empty 15×15 board first answered %v after it was first asked for (asked every two seconds): the compile and what the server does before it offers the space", time.Since(start).Round(100*time.Millisecond))
	c := client(0, time.Minute)
	defer c.CloseIdleConnections()
	rng := rand.New(rand.NewPCG(1, n))
	end := time.Now().Add(a.cfg.Duration)
	var queens [][2]int
	for i := 0; ctx.Err() == nil; i++ {
		if a.cfg.Probes > 0 && i >= a.cfg.Probes || a.cfg.Probes == 0 && time.Now().After(end) {
			return nil
		}
		status, body := a.do(ctx, c, "15×15 walk, fresh", http.MethodPost, "/api/v1/analyze", queensBody("bdd", n, "", queens))
		var an struct {
			Free [][2]int `json:"free"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(body), &an) != nil || len(an.Free) == 0 {
			queens = nil
			continue
		}
		queens = append(queens, an.Free[rng.IntN(len(an.Free))])
	}
	return ctx.Err()
}

// manyAddresses sends one cheap request from each of the attackers'
// addresses (66,000 by default, more than the table of clients holds),
// then an 8×8 analysis from each of 100 new addresses: the table forgets
// the clients seen least recently to make room, so the new ones are served.
func manyAddresses(ctx context.Context, a *attackRun) error {
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i := 1; i <= a.cfg.Attackers && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c := client(i, 10*time.Second)
			a.do(ctx, c, "fill: one request from each address", http.MethodGet, "/api/v1/nothing", "")
			c.CloseIdleConnections()
		})
	}
	wg.Wait()
	for i := range 100 {
		c := client(a.cfg.Attackers+1+i, 10*time.Second)
		a.do(ctx, c, "new addresses after the fill", http.MethodPost, "/api/v1/analyze", queensBody("bdd", 8, "", nil))
		c.CloseIdleConnections()
	}
	return nil
}

// summary writes the report for people.
func (r *attackReport) summary(w io.Writer) {
	fmt.Fprintf(w, "Attack %s: %d attackers, %v; server flags %s\n", r.Attack, r.Attackers, r.Elapsed.Round(time.Millisecond), strings.Join(r.Args, " "))
	fmt.Fprintf(w, "%-40s %8s %10s %10s %10s %10s  %s\n", "requests", "answered", "p50", "p90", "p99", "max", "statuses")
	for _, l := range slices.Sorted(maps.Keys(r.Figures)) {
		f := r.Figures[l]
		st := loadgen.FormatStatus(toInt64(f.status))
		if f.errs > 0 {
			st += fmt.Sprintf(", no answer: %d", f.errs)
		}
		fmt.Fprintf(w, "%-40s %8d %10v %10v %10v %10v  %s\n", l, len(f.latencies),
			f.quantile(0.5), f.quantile(0.9), f.quantile(0.99), f.quantile(1), st)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "peak resident memory (VmHWM): %s\n", bytesize.Format(int64(r.PeakRSS)))
	if r.MemoryTarget {
		verdict := "met"
		if r.Bound <= 0 || int64(r.PeakRSS) >= r.Bound {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "target: peak resident memory %s under the server's bound %s: %s\n", bytesize.Format(int64(r.PeakRSS)), bytesize.Format(r.Bound), verdict)
	}
	if r.StopUnder > 0 {
		verdict := "met"
		if r.StopTook > r.StopUnder {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "target: exit %v after SIGTERM, bound %v: %s\n", r.StopTook.Round(time.Millisecond), r.StopUnder, verdict)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAILED: %s\n", f)
	}
	if t := r.Target; t != nil {
		d, met := t.verdict(r)
		verdict := "met"
		if !met {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "target: %s: %s p%.0f %v, bound %v: %s\n", t.About, t.Label, t.Quantile*100, d, t.Under, verdict)
	}
}

// quantile is the q-quantile of the latencies (1: the largest), rounded.
func (f *figures) quantile(q float64) time.Duration {
	if len(f.latencies) == 0 {
		return 0
	}
	s := slices.Clone(f.latencies)
	slices.Sort(s)
	i := min(int(q*float64(len(s))), len(s)-1)
	d := s[i]
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

func toInt64(m map[int]int) map[int]int64 {
	out := make(map[int]int64, len(m))
	for k, v := range m {
		out[k] = int64(v)
	}
	return out
}

// send makes req with c and records its answer under label (a request
// that failed with no answer, but not one the attack's end cut, as 0),
// and returns its status and body.
func (a *attackRun) send(ctx context.Context, c *http.Client, label string, req *http.Request) (int, string) {
	begin := time.Now()
	res, err := c.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			a.record(label, 0, 0)
		}
		return 0, err.Error()
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	a.record(label, res.StatusCode, time.Since(begin))
	return res.StatusCode, string(b)
}
