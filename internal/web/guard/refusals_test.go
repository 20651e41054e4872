package guard

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/internal/web/problem"
)

// refusalServer serves, through the guard's listener and http.Server,
// a handler behind the guard's hardening and body limit that reads its
// body, on a loopback port with a small receive buffer (as over a real
// network: on loopback the kernel would otherwise take a whole request
// into its buffers and hide a reset). It returns the server's address.
func refusalServer(t *testing.T) string {
	t.Helper()
	cfg := Config{MaxConns: 64, IdleTimeout: 15 * time.Second, MaxHeaderBytes: 16 << 10, BodyLimit: 64 << 10, QueryLimit: 8 << 10}
	g := New(cfg)
	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		p := problem.Describe(err)
		_ = c.String(p.Status, p.Message)
	}
	e.Use(g.Harden, g.Drain, g.BodyLimit())
	e.Any("/*", func(c echo.Context) error {
		_, err := io.Copy(io.Discard, c.Request().Body)
		if err != nil {
			return err
		}
		return c.String(http.StatusOK, "ok\n")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, l := HTTPServer(cfg, e, smallBuffers{ln}, slog.New(slog.DiscardHandler))
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}

// smallBuffers is a listener whose connections have a small receive
// buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(64 << 10)
	}
	return c, err
}

// The requests a client sends whole before it reads, each past one of the
// guard's limits, and the answer it must read.
var refusals = []struct {
	name   string
	status int
	// header, path and body of the request: a file of the header line,
	// the path, and the body's size (0: GET).
	header int
	path   int
	body   int
}{
	{"a 200 KB header", http.StatusRequestHeaderFieldsTooLarge, 200 << 10, 0, 0},
	{"a 90 KB address", http.StatusRequestURITooLong, 0, 90 << 10, 0},
	{"a 12 KB address", http.StatusRequestURITooLong, 0, 12 << 10, 0},
	{"a 1.2 MB body", http.StatusRequestEntityTooLarge, 0, 0, 1200 << 10},
	{"a 20 MB body", http.StatusRequestEntityTooLarge, 0, 0, 20 << 20},
}

// TestRefusalsReadByCurl sends each oversized request with curl, ten
// times, the body whole (no "Expect: 100-continue"): curl must exit 0
// having read the refusal's status, never a reset.
func TestRefusalsReadByCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl is not installed")
	}
	addr := refusalServer(t)
	dir := t.TempDir()
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "30", "-H", "Expect:"}
			if r.header > 0 {
				f := filepath.Join(dir, r.name+".header")
				writeFile(t, f, "X-Padding: "+strings.Repeat("a", r.header))
				args = append(args, "-H", "@"+f)
			}
			if r.body > 0 {
				f := filepath.Join(dir, r.name+".body")
				writeFile(t, f, `{"n":8,"pad":"`+strings.Repeat("a", r.body)+`"}`)
				args = append(args, "-H", "Content-Type: application/json", "--data-binary", "@"+f)
			}
			args = append(args, "http://"+addr+"/api?"+strings.Repeat("q", r.path))
			for i := range 10 {
				out, err := exec.Command(curl, args...).Output()
				if err != nil {
					t.Fatalf("try %d: curl: %v (%s), want exit 0 with %d", i+1, err, out, r.status)
				}
				if string(out) != fmt.Sprint(r.status) {
					t.Fatalf("try %d: status %s, want %d", i+1, out, r.status)
				}
			}
		})
	}
}

// TestRefusalsReadByPython sends each oversized request with Python's
// http.client, which writes the whole request before it reads, ten times:
// every time it must read the refusal's status.
func TestRefusalsReadByPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	addr := refusalServer(t)
	host, port, _ := net.SplitHostPort(addr)
	const script = `
import http.client, sys
host, port, header, path, body = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
data = b'{"n":8,"pad":"' + b"a" * body + b'"}' if body else b""
for i in range(10):
    c = http.client.HTTPConnection(host, port, timeout=30)
    try:
        c.putrequest("POST" if body else "GET", "/api?" + "q" * path)
        if header:
            c.putheader("X-Padding", "a" * header)
        if body:
            c.putheader("Content-Type", "application/json")
            c.putheader("Content-Length", str(len(data)))
        c.endheaders(data)
        r = c.getresponse()
        r.read()
        print(r.status)
    except Exception as e:
        print(type(e).__name__ + ": " + str(e))
    finally:
        c.close()
`
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command(python, "-c", script, host, port, fmt.Sprint(r.header), fmt.Sprint(r.path), fmt.Sprint(r.body)).CombinedOutput()
			if err != nil {
				t.Fatalf("python: %v\n%s", err, out)
			}
			got := strings.Fields(strings.TrimSpace(string(out)))
			want := strings.TrimSpace(strings.Repeat(fmt.Sprint(r.status)+" ", 10))
			if strings.Join(got, " ") != want {
				t.Errorf("ten tries read:\n%s\nwant %d every time", out, r.status)
			}
		})
	}
}

func writeFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
