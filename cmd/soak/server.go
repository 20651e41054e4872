package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// serverProc is the configurator's server running as a child process on
// loopback ports the kernel chose.
type serverProc struct {
	cmd      *exec.Cmd
	URL      string // http://127.0.0.1:port
	DebugURL string // http://127.0.0.1:port/debug/stats, when started with -debug-addr
	log      *logWatch
	exited   chan struct{} // closed when the process has exited
	waitErr  error         // the exit status, once exited is closed
}

// startServer starts binary with args (which must include -addr, and may
// include -debug-addr, on port 0) and waits until it logs the addresses it
// serves on and answers /healthz.
func startServer(ctx context.Context, binary string, args []string, logTo io.Writer) (*serverProc, error) {
	cmd := exec.Command(binary, args...)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	// Its own process group: a signal to the soak's terminal does not
	// reach the server before the soak stops it in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	p := &serverProc{cmd: cmd, log: newLogWatch(logTo), exited: make(chan struct{})}
	scanned := make(chan struct{})
	go func() {
		p.log.scan(stderr)
		close(scanned)
	}()
	go func() {
		<-scanned // Wait closes the pipe: read it to the end first
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	select {
	case <-p.log.ready:
	case <-p.exited:
		return nil, fmt.Errorf("%s exited at start (%v):\n%s", binary, p.waitErr, p.log.tail())
	case <-ctx.Done():
		p.kill()
		return nil, fmt.Errorf("%s did not start: %w\n%s", binary, ctx.Err(), p.log.tail())
	}
	p.URL, p.DebugURL = p.log.url, p.log.debug
	for {
		res, err := http.Get(p.URL + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		select {
		case <-ctx.Done():
			p.kill()
			return nil, fmt.Errorf("%s does not answer /healthz: %v", p.URL, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop sends SIGTERM and waits up to grace for a clean exit; past it the
// process is killed and stop says so.
func (p *serverProc) stop(grace time.Duration) error {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("SIGTERM: %w", err)
	}
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return fmt.Errorf("the server exited after SIGTERM with %v", p.waitErr)
		}
		return nil
	case <-time.After(grace):
		p.kill()
		return fmt.Errorf("the server did not exit within %v of SIGTERM; killed", grace)
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *serverProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// stats is the server's /debug/stats.
type stats struct {
	Goroutines  int    `json:"goroutines"`
	HeapAlloc   uint64 `json:"heap_alloc"`
	HeapInuse   uint64 `json:"heap_inuse"`
	HeapObjects uint64 `json:"heap_objects"`
	HeapSys     uint64 `json:"heap_sys"`
	NumGC       uint32 `json:"num_gc"`
	CacheBytes  int64  `json:"cache_bytes"`
	CacheSpaces int    `json:"cache_spaces"`
}

// readStats fetches the server's vital signs; with gc, after two garbage
// collections.
func (p *serverProc) readStats(gc bool) (stats, error) {
	var st stats
	if p.DebugURL == "" {
		return st, errors.New("the server has no debug listener")
	}
	u := p.DebugURL
	if gc {
		u += "?gc=1"
	}
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Get(u)
	if err != nil {
		return st, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return st, fmt.Errorf("%s: status %d", u, res.StatusCode)
	}
	return st, json.NewDecoder(res.Body).Decode(&st)
}

// recycle asks the server to drop the spaces that grow as they are used
// (its SAT solvers keep the clauses they learn), so that the next requests
// compile them afresh.
func (p *serverProc) recycle() error {
	if p.DebugURL == "" {
		return errors.New("the server has no debug listener")
	}
	u := strings.TrimSuffix(p.DebugURL, "/debug/stats") + "/debug/recycle"
	client := &http.Client{Timeout: 30 * time.Second}
	res, err := client.Post(u, "", nil)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", u, res.StatusCode)
	}
	return nil
}

// saveHeapProfile writes the server's heap profile, after a GC, to path.
func (p *serverProc) saveHeapProfile(path string) error {
	if p.DebugURL == "" {
		return errors.New("the server has no debug listener")
	}
	u := strings.TrimSuffix(p.DebugURL, "/debug/stats") + "/debug/pprof/heap?gc=1"
	client := &http.Client{Timeout: time.Minute}
	res, err := client.Get(u)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d", u, res.StatusCode)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// logWatch reads the server's log: it finds the addresses in the start-up
// line, counts warnings and errors, keeps the first errors and the last
// lines, and copies everything to an optional writer.
type logWatch struct {
	copyTo io.Writer
	ready  chan struct{} // closed when the start-up line is read

	mu         sync.Mutex
	url, debug string
	warnings   int
	errors     []string // the first few error lines
	nerrors    int
	last       []string // the last few lines
}

const (
	keepErrors = 10
	keepLast   = 30
)

var (
	urlAttr   = regexp.MustCompile(`\burl=(http://[^ /]+)/`)
	debugAttr = regexp.MustCompile(`\bdebug=(http://\S+)`)
)

func newLogWatch(copyTo io.Writer) *logWatch {
	return &logWatch{copyTo: copyTo, ready: make(chan struct{})}
}

func (w *logWatch) scan(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		w.line(sc.Text())
	}
	io.Copy(io.Discard, r) // a line too long for the scanner: drain the rest
}

func (w *logWatch) line(s string) {
	if w.copyTo != nil {
		fmt.Fprintln(w.copyTo, s)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.url == "" {
		if m := urlAttr.FindStringSubmatch(s); m != nil {
			w.url = m[1]
			if d := debugAttr.FindStringSubmatch(s); d != nil {
				w.debug = d[1]
			}
			close(w.ready)
		}
	}
	switch {
	case strings.Contains(s, "level=ERROR"), strings.Contains(s, "WARNING: DATA RACE"), strings.HasPrefix(s, "panic:"):
		w.nerrors++
		if len(w.errors) < keepErrors {
			w.errors = append(w.errors, s)
		}
	case strings.Contains(s, "level=WARN"):
		w.warnings++
	}
	if len(w.last) == keepLast {
		w.last = w.last[1:]
	}
	w.last = append(w.last, s)
}

// counts returns the warnings and errors logged so far, with the first
// error lines.
func (w *logWatch) counts() (warnings, errs int, first []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.warnings, w.nerrors, append([]string(nil), w.errors...)
}

// tail returns the last lines logged.
func (w *logWatch) tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.last, "\n")
}
