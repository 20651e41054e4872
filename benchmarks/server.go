package benchmarks

import (
	"bufio"
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
	"sync"
	"syscall"
	"time"
)

// ServerPackage is the import path of the configurator's web server.
const ServerPackage = "github.com/nqueens/configurator/cmd/web"

// BuildServer builds the web server into dir with the go command and
// returns the binary's path.
func BuildServer(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "web")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ServerPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", ServerPackage, err, out)
	}
	return bin, nil
}

// Server is the web server running as a child process on a loopback
// port, so that its memory is its own and the load generator's is not
// counted in it.
type Server struct {
	// URL is the server's root, http://127.0.0.1:port.
	URL string
	cmd *exec.Cmd

	mu   sync.Mutex
	tail []string // the last lines of its log
	done chan struct{}
	err  error // of Wait, once done is closed
}

// StartServer starts the server binary on a free loopback port, with args
// after the address, and waits until it answers /healthz.
func StartServer(ctx context.Context, binary string, args ...string) (*Server, error) {
	cmd := exec.Command(binary, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", binary, err)
	}
	s := &Server{cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if u := logField(line, "url"); u != "" {
				select {
				case addr <- strings.TrimSuffix(u, "/"):
				default:
				}
			}
			s.mu.Lock()
			s.tail = append(s.tail, line)
			if len(s.tail) > 40 {
				s.tail = s.tail[1:]
			}
			s.mu.Unlock()
		}
		s.err = cmd.Wait()
		close(s.done)
	}()
	select {
	case s.URL = <-addr:
	case <-s.done:
		return nil, fmt.Errorf("%s exited before listening: %v\n%s", binary, s.err, s.Log())
	case <-time.After(30 * time.Second):
		s.Stop()
		return nil, fmt.Errorf("%s: no address logged within 30s\n%s", binary, s.Log())
	case <-ctx.Done():
		s.Stop()
		return nil, ctx.Err()
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Since(start) > 30*time.Second || ctx.Err() != nil {
			s.Stop()
			return nil, fmt.Errorf("%s: /healthz did not answer 200 within 30s: %v", s.URL, err)
		}
	}
}

// logField returns the value of key in a log/slog text line, "" if absent.
func logField(line, key string) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, key+"="); ok {
			if u, err := strconv.Unquote(v); err == nil {
				return u
			}
			return v
		}
	}
	return ""
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// PeakRSS is the server's peak resident memory so far (VmHWM), in bytes.
func (s *Server) PeakRSS() (uint64, error) {
	return ProcStatus(strconv.Itoa(s.Pid()), "VmHWM")
}

// Log returns the last lines the server logged.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, "\n")
}

// Stop asks the server to shut down gracefully (SIGTERM), kills it after
// ten seconds, and waits for it. A server that exits because it was
// signalled is no error.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return s.err
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) && !exit.Exited() {
		return nil // ended by the signal
	}
	return s.err
}
