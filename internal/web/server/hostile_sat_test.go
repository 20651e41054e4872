package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
)

// The hostile SAT placements, which gophersat cannot settle within a
// request's deadline: a hill-climbed 32×32 placement of 13 queens, and 36
// queens on 72×72 that leave 19 free ranks only 18 usable files, a
// pigeonhole that clause learning cannot refute quickly.
const (
	hostile32 = "b31,r16,d32,h23,af3,ad14,m15,ac25,ab29,e24,y1,ae30,a26"
	hostile72 = `{"backend":"sat","n":72,"queens":[[17,4],[20,12],[54,56],[8,25],[69,69],[56,55],[9,7],[42,63],[44,58],[13,14],[7,22],[16,9],[15,26],[51,64],[12,3],[62,70],[58,62],[6,2],[64,54],[14,23],[19,24],[60,48],[18,13],[45,61],[65,71],[50,57],[52,49],[3,15],[48,68],[57,46],[2,5],[59,45],[22,16],[47,65],[43,53],[0,19]]}`
)

// hostileDeadline is the SAT deadline of these tests, short to keep them
// short; the server's default is 10 s.
const hostileDeadline = 3 * time.Second

// TestHostileSAT: a hostile placement takes the SAT backend from no one.
// The attacking request ends by its deadline; a second client's SAT
// requests on 20×20, sent meanwhile from another address, keep their p90
// under 500 ms and get no 503; and one second after the deadline the
// process's CPU is idle: the solver was stopped, not left running.
//
// The second client's p90 is also measured just before the attack and
// logged beside it, so that a loaded machine's figure can be read against
// its own baseline; 500 ms leaves room for one. A solver that could not
// be stopped would hold its core, and the victim, for the whole deadline.
func TestHostileSAT(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, maxN int
		attack  string // the body of the attacking /api/v1/analyze
	}{
		{"32×32 hill-climbed", 32, 32, analyzeBody(t, 32, hostile32)},
		{"72×72 pigeonhole, -sat-max-n 100", 72, 100, hostile72},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.SAT.MaxN, cfg.SAT.Serve, cfg.SAT.Deadline = tc.maxN, 0, hostileDeadline
			_, ts := newTestServer(t, cfg)
			attacker, victim := clientFrom(t, "127.0.0.1"), clientFrom(t, "127.0.0.2")
			victimBodies := victimRequests(t, 20, 12)
			// The attacker's board compiled first, so that the attack's time
			// is its analysis's alone.
			if status, _ := postAnalyze(t, attacker, ts, analyzeBody(t, tc.n, "")); status != http.StatusOK {
				t.Fatalf("the empty %d×%d board: %d", tc.n, tc.n, status)
			}
			var quiet []time.Duration // the second client's latencies without the attack
			for _, body := range victimBodies {
				begin := time.Now()
				if status, _ := postAnalyze(t, victim, ts, body); status != http.StatusOK {
					t.Fatalf("without the attack, a 20×20 request: %d", status)
				}
				quiet = append(quiet, time.Since(begin))
			}
			slices.Sort(quiet)
			quietP90 := quiet[len(quiet)*9/10]

			attackDone := make(chan attackResult, 1)
			start := time.Now()
			go func() {
				status, _ := postAnalyze(t, attacker, ts, tc.attack)
				attackDone <- attackResult{status, time.Since(start)}
			}()
			time.Sleep(100 * time.Millisecond) // the attack holds a solver
			// The second client asks every 50 ms until the attack ends.
			var latencies []time.Duration
			statuses := map[int]int{}
			var attack attackResult
		asking:
			for i := 0; ; i++ {
				begin := time.Now()
				status, _ := postAnalyze(t, victim, ts, victimBodies[i%len(victimBodies)])
				latencies = append(latencies, time.Since(begin))
				statuses[status]++
				select {
				case attack = <-attackDone:
					break asking
				case <-time.After(50 * time.Millisecond):
				}
			}
			slices.Sort(latencies)
			p50, p90 := latencies[len(latencies)/2], latencies[len(latencies)*9/10]
			t.Logf("attack: %d after %v; second client: %d requests, p50 %v, p90 %v (%v without the attack), statuses %v",
				attack.status, attack.took.Round(time.Millisecond), len(latencies), p50.Round(time.Millisecond), p90.Round(time.Millisecond),
				quietP90.Round(time.Millisecond), statuses)
			if attack.status == http.StatusOK {
				t.Errorf("the attack was answered 200 within %v: not hostile enough to test anything", attack.took)
			}
			if attack.took > hostileDeadline+time.Second { // room for a loaded machine; uninterrupted, the attack would run far past it
				t.Errorf("the attacking request ended after %v, want by its deadline of %v", attack.took, hostileDeadline)
			}
			if statuses[http.StatusOK] != len(latencies) {
				t.Errorf("the second client got %v, want %d × 200", statuses, len(latencies))
			}
			if p90 >= 500*time.Millisecond {
				t.Errorf("the second client's p90 is %v (%v without the attack), want < 500 ms", p90, quietP90)
			}

			// One second after the deadline the solver's CPU is idle.
			time.Sleep(time.Until(start.Add(hostileDeadline + time.Second)))
			if cpu := cpuOver(t, time.Second); cpu > 200*time.Millisecond {
				t.Errorf("one second after the deadline the process used %v of CPU in 1 s, want it idle (< 200 ms)", cpu)
			} else {
				t.Logf("CPU one second after the deadline: %v in 1 s", cpu.Round(time.Millisecond))
			}
		})
	}
}

type attackResult struct {
	status int
	took   time.Duration
}

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip, so that the server, which trusts only the
// connection's address, tells two clients apart.
func clientFrom(t *testing.T, ip string) *http.Client {
	t.Helper()
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// postAnalyze sends body to /api/v1/analyze and returns the status and the body.
func postAnalyze(t *testing.T, c *http.Client, ts *httptest.Server, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/analyze", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		t.Errorf("POST %s: %v", body, err)
		return 0, ""
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return res.StatusCode, b.String()
}

// analyzeBody is the API body of a SAT analysis of the placement queens
// (algebraic, as in the page's address) on an n×n board.
func analyzeBody(t *testing.T, n int, queens string) string {
	t.Helper()
	cells, err := configurator.ParseCells(queens)
	if err != nil {
		t.Fatal(err)
	}
	pairs := make([][2]int, len(cells))
	for i, c := range cells {
		pairs[i] = [2]int{c.Row, c.Col}
	}
	b, err := json.Marshal(map[string]any{"backend": "sat", "n": n, "queens": pairs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// victimRequests returns k API bodies of SAT analyses on an n×n board, of
// 0 to 5 queens of one solution: honest questions, each answered in
// milliseconds.
func victimRequests(t *testing.T, n, k int) []string {
	t.Helper()
	m, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sat.New(sat.Options{}).Compile(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sp.Solve(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for i := range k {
		queens := sol[i%len(sol) : i%len(sol)+i%6]
		bodies = append(bodies, analyzeBody(t, n, configurator.FormatCells(queens)))
	}
	return bodies
}

// cpuOver returns the CPU time (user and system) the process used over the
// next d.
func cpuOver(t *testing.T, d time.Duration) time.Duration {
	t.Helper()
	used := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before := used()
	time.Sleep(d)
	return used() - before
}
