package server

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// rawHead sends HEAD path on a connection of its own and returns the
// response's header and whatever the server wrote after it.
func rawHead(t *testing.T, ts *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "HEAD %s HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n", path)
	all, err := io.ReadAll(conn)
	if err != nil {
		t.Fatalf("HEAD %s: %v", path, err)
	}
	head, rest, ok := bytes.Cut(all, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("HEAD %s: no end of the header in %q", path, all)
	}
	res, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(append(head, "\r\n\r\n"...))), &http.Request{Method: http.MethodHead})
	if err != nil {
		t.Fatalf("HEAD %s: %v", path, err)
	}
	return res, string(rest)
}

// TestHead checks that every GET route answers HEAD with GET's status and
// headers and no body at all, errors included.
func TestHead(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	tests := []struct {
		name, path string
		status     int
	}{
		{"the page", "/?model=queens-8&select=a1", 200},
		{"the page, refused", "/?model=queens-8&select=z9", 400},
		{"a step without htmx", "/?model=queens-8&square=a1", 303},
		{"a step on a blocked square", "/?model=queens-8&select=a1&square=b2", 422},
		{"a board's saved address", "/?n=8&q=a1", 303},
		{"a board's saved address, refused", "/?n=eight", 400},
		{"the diagram", "/model-diagram?model=queens-6&select=b1", 200},
		{"the order panel", "/orders?n=8", 200},
		{"the models", "/models", 200},
		{"the style sheet", "/static/style.css", 200},
		{"the style sheet, versioned", "/static/style.css?v=0", 200},
		{"htmx", "/static/vendor/htmx.min.js", 200},
		{"a static file that is not there", "/static/nothing.css", 404},
		{"the health check", "/healthz", 200},
		{"an address that names nothing", "/nothing", 404},
		{"an address too long", "/?model=queens-8&select=" + strings.Repeat("a1,", 4000), 414},
		{"the API", "/api/v1/analyze", 405},
	}
	ignore := map[string]bool{"Date": true, "Content-Length": true, "Server-Timing": true} // the last two are measured afresh
	// The diagram says how long it took: its length varies.
	timed := map[string]bool{"the diagram": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := rawHead(t, ts, tt.path)
			if res.StatusCode != tt.status {
				t.Errorf("HEAD: status %d, want %d", res.StatusCode, tt.status)
			}
			if body != "" {
				t.Errorf("HEAD wrote a body of %d bytes: %.80q", len(body), body)
			}
			req, err := http.NewRequest(http.MethodGet, ts.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept-Encoding", "gzip")
			want, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			want.Body.Close()
			if want.StatusCode != res.StatusCode {
				t.Errorf("HEAD: status %d, GET %d", res.StatusCode, want.StatusCode)
			}
			for k := range merged(want.Header, res.Header) {
				if ignore[k] {
					continue
				}
				if g, w := res.Header.Values(k), want.Header.Values(k); !reflect.DeepEqual(g, w) {
					t.Errorf("header %s: HEAD %q, GET %q", k, g, w)
				}
			}
			if g, w := res.Header.Get("Content-Length"), want.Header.Get("Content-Length"); !timed[tt.name] && g != "" && w != "" && g != w {
				t.Errorf("Content-Length: HEAD %s, GET %s", g, w)
			}
		})
	}
}

// merged is the set of the names of two headers.
func merged(a, b http.Header) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// TestHeadStartsNoCompile checks that HEAD of the one page of a board
// whose heavy compile has not run answers at once, as GET answers while
// the compile runs, and starts no compile.
func TestHeadStartsNoCompile(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 12
	s, ts := newTestServer(t, cfg)
	k := spaces.Key{Backend: "bdd", N: 12, Order: configurator.RowMajor}
	if !s.spaces.Heavy(k) {
		t.Fatal("the 12×12 BDD's compile is not heavy")
	}
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/?model=queens-12&backend=bdd", 200},
		{"/?model=queens-12&backend=both", 200},
		{"/?n=12&q=a1", 303}, // a board's saved address
	} {
		res, body := rawHead(t, ts, tt.path)
		if res.StatusCode != tt.status || body != "" {
			t.Errorf("HEAD %s: status %d, want %d; body %q", tt.path, res.StatusCode, tt.status, body)
		}
		if _, compiling := s.spaces.Compiling(k); compiling || s.spaces.Cached(k) {
			t.Errorf("HEAD %s started a compile of the 12×12 BDD", tt.path)
		}
	}
}

// postAs posts body to path with the Content-Type ct ("" sends none).
func postAs(t *testing.T, ts *httptest.Server, path, ct, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	return do(t, req)
}

// TestAPIContentType checks that the API reads only bodies sent as JSON:
// a form or text/plain (what a page on another site can post without
// asking) gets 415 in words.
func TestAPIContentType(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	tests := []struct {
		name, path, ct string
		status         int
		want           string
	}{
		{"JSON", "/api/v1/analyze", "application/json", 200, `"solutions":"92"`},
		{"JSON in UTF-8", "/api/v1/analyze", "application/json; charset=utf-8", 200, `"solutions":"92"`},
		{"JSON in capitals", "/api/v1/analyze", "Application/JSON; charset=UTF-8", 200, `"solutions":"92"`},
		{"JSON to complete", "/api/v1/complete", "application/json", 200, `"solution":[[0,`},
		{"no content type", "/api/v1/analyze", "", 415, `The request says no Content-Type; send the JSON body with Content-Type: application/json.`},
		{"text", "/api/v1/analyze", "text/plain", 415, `The request body is sent as “text/plain”; the API reads only JSON: send it with Content-Type: application/json.`},
		{"text in UTF-8", "/api/v1/explain", "text/plain;charset=UTF-8", 415, `sent as “text/plain;charset=UTF-8”`},
		{"a form", "/api/v1/complete", "application/x-www-form-urlencoded", 415, `sent as “application/x-www-form-u…”`},
		{"a multipart form", "/api/v1/analyze", "multipart/form-data; boundary=x", 415, `sent as “multipart/form-data; bou…”`},
		{"JSON in Latin-1", "/api/v1/analyze", "application/json; charset=latin1", 415, `the API reads only JSON`},
		{"a look-alike", "/api/v1/analyze", "application/jsonp", 415, `sent as “application/jsonp”`},
		{"not a media type", "/api/v1/analyze", "json", 415, `sent as “json”`},
		{"a bidi override in the type", "/api/v1/analyze", "text/\u202eplain", 415, `sent as “text/plain”`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := postAs(t, ts, tt.path, tt.ct, `{"n":8}`)
			if res.StatusCode != tt.status || !strings.Contains(body, tt.want) {
				t.Errorf("status %d, want %d saying %s: %s", res.StatusCode, tt.status, tt.want, body)
			}
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type of the answer %q", ct)
			}
		})
	}
}

// TestNoticesStripInvisibles checks, through the server, that the page's
// notices and the API's errors repeat input without bidi controls or
// zero-width characters.
func TestNoticesStripInvisibles(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	const sneaky = "\u202ezdd\u200b\u2066"
	res, body := get(t, ts, "/?model=queens-8&backend="+url.QueryEscape(sneaky))
	if res.StatusCode != 400 || !strings.Contains(body, "“zdd” is not a backend") {
		t.Errorf("page: status %d, notice not found:\n%s", res.StatusCode, excerpt(body))
	}
	res, body = post(t, ts, "/api/v1/analyze", `{"n":8,"backend":"`+sneaky+`"}`)
	if res.StatusCode != 400 || !strings.Contains(body, "“zdd” is not a backend") {
		t.Errorf("API: status %d: %s", res.StatusCode, body)
	}
	for _, r := range "\u202e\u200b\u2066" {
		if strings.ContainsRune(body, r) {
			t.Errorf("API: %U repeated: %q", r, body)
		}
	}
}

// TestForgedTrailNotShown checks, through the server, that a forged time
// in the parameter t never reaches the comparison's chart nor the trail
// the page sends on.
func TestForgedTrailNotShown(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	trail := "select_1_9223372036854775807_9223372036854775807~undo_1_2000000_3000000"
	res, body := get(t, ts, "/?model=queens-8&backend=both&t="+url.QueryEscape(trail), "HX-Request", "true")
	if res.StatusCode != 200 {
		t.Fatalf("status %d:\n%s", res.StatusCode, excerpt(body))
	}
	body = html.UnescapeString(body)
	if strings.Contains(body, "9223372") {
		t.Errorf("the forged step is shown:\n%s", excerpt(body))
	}
	if !strings.Contains(body, "~undo_1_2000000_3000000\"") || !strings.Contains(body, "<title>BDD: undo, 2.00 ms</title>") {
		t.Errorf("the plausible step is not kept and charted:\n%s", between(body, `id="session-chart"`, `</svg>`))
	}
}

// TestOversizedBodyRawClient plays a client that writes its whole request,
// oversized body and all, before it reads: it must read a 413 in words,
// not a reset connection.
func TestOversizedBodyRawClient(t *testing.T) {
	// Small socket buffers on both sides, as over a real network: on
	// loopback the kernel would otherwise take the whole body into its
	// buffers and hide the problem.
	cfg := testConfig()
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(io.Discard, nil)), cfg.engines()...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(s.Handler())
	ts.Listener = smallBuffers{ts.Listener}
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	body := `{"n":8,"queens":[` + strings.Repeat(`[0,0],`, 150_000) + `[0,0]]}` // 900 KiB: past the 64 KiB limit and net/http's 256 KiB
	tests := []struct {
		name, path, header, body string
	}{
		{"with a Content-Length", "/api/v1/analyze", fmt.Sprintf("Content-Length: %d\r\n", len(body)), body},
		{"chunked", "/api/v1/analyze", "Transfer-Encoding: chunked\r\n", fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)},
		{"to a page, which takes no body", "/?n=8", fmt.Sprintf("Content-Length: %d\r\n", len(body)), body},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.(*net.TCPConn).SetWriteBuffer(64 << 10)
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
			req := "POST " + tt.path + " HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" + tt.header + "\r\n" + tt.body
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatalf("writing the request: %v", err)
			}
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			defer res.Body.Close()
			answer, err := io.ReadAll(res.Body)
			if err != nil {
				t.Fatalf("reading the answer's body: %v", err)
			}
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(answer), "The request body is too large.") {
				t.Errorf("status %d, want 413 in words: %.200s", res.StatusCode, answer)
			}
		})
	}
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

// TestOversizedBodyFarBeyond checks that a body that says it is far beyond
// the limit is refused at once, without the server waiting to read it.
func TestOversizedBodyFarBeyond(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /api/v1/analyze HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", 1<<30)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d, want 413", res.StatusCode)
	}
}
