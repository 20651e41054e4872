package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// runServer starts the server as cmd/web does (Run, with its listeners and
// http.Servers) on loopback ports, and stops it when the test ends.
func runServer(t *testing.T, cfg testSetup) (addr, debugAddr string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg.ShutdownGrace = time.Second
	addrs := make(chan [2]string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), cfg.engines(), func(a, d string) { addrs <- [2]string{a, d} })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("Run did not return 10 s after its context ended")
		}
	})
	select {
	case a := <-addrs:
		return a[0], a[1]
	case err := <-done:
		t.Fatalf("Run: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not listen within 10 s")
	}
	return "", ""
}

// dial opens a connection to addr that the test closes when it ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// firstLine reads the status line the server sends on c within wait, or
// returns what ended the read ("EOF", "timeout").
func firstLine(c net.Conn, wait time.Duration) string {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(c).ReadString('\n')
	switch {
	case err == io.EOF && line == "":
		return "EOF"
	case err != nil && line == "":
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return "timeout"
		}
		return err.Error()
	}
	return strings.TrimSpace(line)
}

// healthz sends GET /healthz on a fresh connection and returns its status
// line.
func healthz(t *testing.T, addr string) string {
	c := dial(t, addr)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		return err.Error()
	}
	return firstLine(c, time.Second)
}

// TestConnectionCap fills the public listener with idle connections: the
// next one is answered 503 within a second (not left hanging), and once
// one of them closes a new connection is served again.
func TestConnectionCap(t *testing.T) {
	const max = 4
	cfg := testConfig()
	cfg.Guard.MaxConns = max
	addr, _ := runServer(t, cfg)

	idle := make([]net.Conn, max)
	for i := range idle {
		idle[i] = dial(t, addr)
	}
	start := time.Now()
	extra := dial(t, addr)
	if got := firstLine(extra, time.Second); got != "HTTP/1.1 503 Service Unavailable" {
		t.Fatalf("connection %d of a cap of %d: got %q, want a 503", max+1, max, got)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("the refusal took %v, want under 1 s", d)
	}
	// The refused connection is closed, not kept.
	if got := firstLine(extra, time.Second); got != "EOF" && !strings.Contains(got, "reset") {
		t.Errorf("after the refusal: %q, want the connection closed", got)
	}

	idle[0].Close()
	deadline := time.Now().Add(2 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = healthz(t, addr); got == "HTTP/1.1 200 OK" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got != "HTTP/1.1 200 OK" {
		t.Errorf("after closing one of %d connections: %q, want 200", max, got)
	}
}

// TestConnectionCapReclaimsIdle fills the public listener with keep-alive
// connections idle after a request each (without the cap, enough of
// them exhaust the process's file descriptors and shut every new client
// out): a new client is served at once, in the slot of the connection idle longest, which the server
// closes; the others stay open.
func TestConnectionCapReclaimsIdle(t *testing.T) {
	const max = 4
	cfg := testConfig()
	cfg.Guard.MaxConns = max
	addr, _ := runServer(t, cfg)

	idle := make([]net.Conn, max)
	readers := make([]*bufio.Reader, max)
	for i := range idle {
		idle[i] = dial(t, addr)
		readers[i] = bufio.NewReader(idle[i])
		if _, err := io.WriteString(idle[i], "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = idle[i].SetReadDeadline(time.Now().Add(2 * time.Second))
		res, err := http.ReadResponse(readers[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Close {
			t.Fatalf("keep-alive connection %d: %d (close %v), want a kept-alive 200", i, res.StatusCode, res.Close)
		}
		time.Sleep(10 * time.Millisecond) // idle since different times
	}
	if got := healthz(t, addr); got != "HTTP/1.1 200 OK" {
		t.Fatalf("a new client beside %d idle connections (the cap): %q, want 200", max, got)
	}
	for i, c := range idle {
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := readers[i].ReadByte()
		closed := err == io.EOF
		if ne, ok := err.(net.Error); !closed && !(ok && ne.Timeout()) {
			t.Errorf("idle connection %d: %v, want EOF or a timeout", i, err)
		}
		if want := i == 0; closed != want {
			t.Errorf("idle connection %d closed: %v, want %v (only the one idle longest)", i, closed, want)
		}
	}
}

// TestIdleTimeout leaves a keep-alive connection idle after a request: the
// server closes it after -idle-timeout, not before.
func TestIdleTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	cfg := testConfig()
	cfg.Guard.IdleTimeout = idle
	addr, _ := runServer(t, cfg)

	c := dial(t, addr)
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || string(body) != "ok\n" || res.Close {
		t.Fatalf("GET /healthz: %d %q (close %v), want a kept-alive 200 \"ok\\n\"", res.StatusCode, body, res.Close)
	}
	start := time.Now()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := r.Read(make([]byte, 1))
	d := time.Since(start)
	if n != 0 || err != io.EOF {
		t.Fatalf("idle connection: read %d bytes, %v; want EOF", n, err)
	}
	if d < idle*2/3 || d > idle+time.Second {
		t.Errorf("idle connection closed after %v, want about %v", d, idle)
	}
}

// TestHeaderLimit sends headers of growing size: within -max-header-bytes
// they are served; far beyond, net/http answers 431.
func TestHeaderLimit(t *testing.T) {
	cfg := testConfig()
	addr, _ := runServer(t, cfg)
	tests := []struct {
		size int
		want int
	}{
		{1 << 10, http.StatusOK},
		{12 << 10, http.StatusOK},
		{64 << 10, http.StatusRequestHeaderFieldsTooLarge},
		{1 << 20, http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/healthz", nil)
		req.Header.Set("X-Padding", strings.Repeat("a", tt.size))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("header of %d bytes: %v", tt.size, err)
			continue
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("header of %d bytes: %d, want %d", tt.size, res.StatusCode, tt.want)
		}
	}
}

// TestDebugListenerWhenFull fills the public listener to its cap: the
// debug listener, a server of its own, still answers /debug/stats.
func TestDebugListenerWhenFull(t *testing.T) {
	const max = 2
	cfg := testConfig()
	cfg.Guard.MaxConns = max
	cfg.DebugAddr = "127.0.0.1:0"
	addr, debugAddr := runServer(t, cfg)
	for range max {
		dial(t, addr)
	}
	if got := firstLine(dial(t, addr), time.Second); got != "HTTP/1.1 503 Service Unavailable" {
		t.Fatalf("public listener at its cap: got %q, want a 503", got)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	res, err := client.Get("http://" + debugAddr + "/debug/stats")
	if err != nil {
		t.Fatalf("debug listener while the public one is full: %v", err)
	}
	defer res.Body.Close()
	var st Stats
	if err := json.NewDecoder(res.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || st.Goroutines < 1 || st.HeapAlloc == 0 {
		t.Errorf("/debug/stats: %d %+v, want 200 with goroutines and heap", res.StatusCode, st)
	}
}
