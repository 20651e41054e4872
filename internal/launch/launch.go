// Package launch builds the configurator's web server and runs it as a
// child process on loopback ports, for the tests, the soak driver and the
// benchmarks: one way to start it, wait until it serves, watch its log,
// read its vital signs from the debug listener and stop it in order.
//
// A child process rather than a server in the caller's process: its
// memory, goroutines and log are its own, so that a soak's readings and a
// benchmark's resident set are the server's and not the load generator's,
// and a test can kill it mid-work. InProcess serves it in the caller's
// process instead, for a test that needs no binary.
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Package is the import path of the server's command.
const Package = "github.com/nqueens/configurator/cmd/web"

// startTimeout bounds how long Start waits for the server to log its
// addresses and answer /healthz: generous, for a busy machine.
const startTimeout = time.Minute

// Build compiles the server's command into dir with the go command of the
// toolchain in use, without the race detector, and returns the binary's
// path.
func Build(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "web")
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", bin, Package)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", Package, err, out)
	}
	return bin, nil
}

// goTool is the go command of the toolchain running this process when the
// environment names it (go test and go run set GOROOT), else the one on
// the path.
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "go"
}

// Options say how to start the server beyond its own flags.
type Options struct {
	// Addr is the address to listen on; "" is a free loopback port.
	Addr string
	// Debug starts the debug listener (-debug-addr) on a free loopback
	// port, which Stats, Recycle and HeapProfile need.
	Debug bool
	// Log receives a copy of every line the server logs; nil: none.
	Log io.Writer
}

// Process is the server running as a child process.
type Process struct {
	cmd      *exec.Cmd
	url      string // http://127.0.0.1:port
	debugURL string // the debug listener's root, "" without one
	log      *logWatch
	exited   chan struct{} // closed once the process has exited
	waitErr  error         // its exit status, once exited is closed
}

// Start starts binary with the address options give and then args, in a
// process group of its own (a signal to the caller's terminal does not
// reach it before the caller stops it in order), and waits, up to a
// minute, until it logs the addresses it serves on and answers /healthz.
func Start(ctx context.Context, binary string, opts Options, args ...string) (*Process, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	all := []string{"-addr", addr}
	if opts.Debug {
		all = append(all, "-debug-addr", "127.0.0.1:0")
	}
	cmd := exec.Command(binary, append(all, args...)...)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	p := &Process{cmd: cmd, log: newLogWatch(opts.Log), exited: make(chan struct{})}
	go func() {
		p.log.scan(stderr) // Wait closes the pipe: read it to the end first
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()

	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	select {
	case <-p.log.ready:
	case <-p.exited:
		return nil, fmt.Errorf("%s exited at start (%v):\n%s", binary, p.waitErr, p.log.summary().Tail)
	case <-ctx.Done():
		p.Kill()
		return nil, fmt.Errorf("%s logged no address: %w\n%s", binary, ctx.Err(), p.log.summary().Tail)
	}
	p.url, p.debugURL = p.log.addresses()
	for {
		err := get(ctx, p.url+"/healthz")
		if err == nil {
			return p, nil
		}
		select {
		case <-ctx.Done():
			p.Kill()
			return nil, fmt.Errorf("%s does not answer /healthz: %w\n%s", p.url, err, p.log.summary().Tail)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// get fetches u and reports an error unless the answer is 200 OK.
func get(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, res.Status)
	}
	return nil
}

// URL is the server's root, http://127.0.0.1:port, without a final slash.
func (p *Process) URL() string { return p.url }

// DebugURL is the debug listener's root, http://127.0.0.1:port, or ""
// when the server was started without one.
func (p *Process) DebugURL() string { return p.debugURL }

// Pid is the server's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// PeakRSS is the server's peak resident memory so far (VmHWM of
// /proc/pid/status), in bytes.
func (p *Process) PeakRSS() (uint64, error) {
	path := "/proc/" + strconv.Itoa(p.Pid()) + "/status"
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb uint64
			if _, err := fmt.Sscanf(v, "%d kB", &kb); err != nil {
				return 0, fmt.Errorf("%s: VmHWM %q: %w", path, strings.TrimSpace(v), err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("%s: no VmHWM", path)
}

// Stop sends SIGTERM and waits up to grace for the server to exit with
// status 0; past grace it kills it. It returns why the exit was not clean,
// nil when it was. Stopping a server that has exited returns how it did.
func (p *Process) Stop(grace time.Duration) error {
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
		p.Kill()
		return fmt.Errorf("the server did not exit within %v of SIGTERM; killed", grace)
	}
}

// Kill sends SIGKILL and waits until the process is gone.
func (p *Process) Kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

// Log returns what the server has logged so far.
func (p *Process) Log() Log { return p.log.summary() }
