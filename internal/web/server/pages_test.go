package server

import (
	"compress/gzip"
	"context"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestPages is the specification of the HTML routes: every address a
// person or a hand-edited link can produce, with the status and the words
// the page must answer with. Bad input is refused with a message in
// words, inside a page that still works.
func TestPages(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	long := "/?n=8&q=" + strings.Repeat("a1,", 34000) // about 100 KB
	tests := []struct {
		name    string
		path    string
		htmx    bool
		status  int
		want    []string // substrings of the body
		notWant []string
		header  map[string]string
	}{
		// Boards.
		{name: "a fresh board", path: "/", status: 200,
			want: []string{`id="count">92 solutions<`, `aria-label="8 by 8 board"`, `role="grid"`, `<option value="8" selected>8 × 8</option>`}},
		{name: "4×4", path: "/?n=4", status: 200, want: []string{`id="count">2 solutions<`}},
		{name: "one queen in the corner", path: "/?n=8&q=a1", status: 200,
			want: []string{`id="count">4 solutions<`, `id="cell-a1" class="cell dark queen"`, `aria-label="b2, blocked: attacked by a1"`}},
		{name: "a unique completion forces six queens", path: "/?n=8&q=a1,e2", status: 200,
			want: []string{`1 solution: complete it?`, `id="complete"`}},
		{name: "a full solution is solved", path: "/?n=8&q=a1,e2,h3,f4,c5,g6,b7,d8", status: 200,
			want: []string{`Solved: a complete solution, one of 92`}, notWant: []string{`id="complete"`}},
		{name: "the SAT backend counts too", path: "/?n=8&q=a1&backend=sat", status: 200,
			want: []string{`id="count">4 solutions<`, `<th scope="col">SAT</th>`}},
		{name: "both backends agree", path: "/?n=8&q=a1,g2&backend=both", status: 200,
			want: []string{`id="count">2 solutions<`, `BDD and SAT agree on every square`, `SAT counts 2 solutions`, `id="ratios"`, `<dt>SAT</dt>`}},
		{name: "3×3 has no solution", path: "/?n=3", status: 200,
			want: []string{`No solutions: a 3×3 board has none`, `aria-label="a1, blocked: this board has no solution"`}},
		{name: "the tab title names the board", path: "/?n=10", status: 200,
			want: []string{`<title>10×10 · BDD/SAT configurator</title>`, `data-title="10×10 · BDD/SAT configurator"`}},
		{name: "3×3 squares do not invite a question", path: "/?n=3", status: 200,
			want: []string{`aria-label="a1, blocked: this board has no solution"`, `disabled tabindex`}, notWant: []string{`name="why"`}},
		{name: "a full board on a backend that does not count is solved", path: "/?n=16&backend=sat&q=a1,c2,e3,b4,m5,i6,n7,l8,o9,f10,p11,g12,d13,k14,h15,j16", status: 200,
			want: []string{`Solved: a complete solution`}, notWant: []string{`not counted`, `id="complete"`}},
		{name: "a board one forced step from solved on a backend that does not count", path: "/?n=16&backend=sat&q=a1,c2,e3,b4,m5,i6,n7,l8,o9,f10,p11,g12,d13,k14,h15", status: 200,
			want: []string{`1 solution: complete it?`, `id="complete"`}, notWant: []string{`not counted`}},
		{name: "a heat map with every square forced", path: "/?n=8&q=a1,e2&heat=1", status: 200,
			want: []string{`id="heat-forced">One solution left: every square is decided`}, notWant: []string{`the likeliest square has a queen in`}},
		{name: "1×1 is one forced queen", path: "/?n=1", status: 200, want: []string{`1 solution: complete it?`, `class="cell dark forced"`}},
		{name: "other variable orders give the same answers", path: "/?n=8&q=a1&order=diag", status: 200,
			want: []string{`id="count">4 solutions<`, `<option value="diag" selected>by diagonal</option>`, "BDD 8×8, by diagonal"}},
		{name: "the heat map", path: "/?n=8&q=a1&heat=1", status: 200,
			want: []string{`class="board size-s heat"`, `heat-`, `in 50% of the remaining solutions`}},
		{name: "no heat map with SAT", path: "/?n=8&backend=sat&heat=1", status: 200,
			want: []string{`only the BDD backend counts`}},
		{name: "a small diagram", path: "/?n=4&q=b1&diagram=1", status: 200,
			want: []string{`<div class="dg" id="dg" data-n="4" data-queens="[[0,1]]" data-order="row">`,
				`<a href="/diagram.svg?n=4&amp;q=b1&amp;backend=bdd&amp;diagram=1" target="_blank" rel="noopener">Graphviz drawing (SVG)</a>`}},
		{name: "a diagram past Graphviz", path: "/?n=8&order=col&diagram=1", status: 200,
			want:    []string{`<div class="dg" id="dg" data-n="8" data-queens="[]" data-order="col">`},
			notWant: []string{`Graphviz drawing`}},
		{name: "no diagram with SAT", path: "/?n=8&backend=sat&diagram=1", status: 200,
			want: []string{`Only the BDD backend has a diagram`}},

		// Actions through htmx: the fragment only, and the new address.
		{name: "place", path: "/play?n=8&q=a1&backend=bdd&place=e2", htmx: true, status: 200,
			want: []string{`id="app"`, `data-title="8×8 · BDD/SAT configurator"`, `1 solution: complete it?`}, notWant: []string{`<html`},
			header: map[string]string{"HX-Push-Url": "/?n=8&q=a1,e2&backend=bdd"}},
		{name: "remove any queen, not only the last", path: "/play?n=8&q=a1,e2&backend=bdd&remove=a1", htmx: true, status: 200,
			header: map[string]string{"HX-Push-Url": "/?n=8&q=e2&backend=bdd"}},
		{name: "why, for an attack", path: "/play?n=8&q=a1&why=b2", htmx: true, status: 200,
			want:   []string{`Why is b2 blocked?`, `Attacked by a1.`, `id="cell-a1" class="cell dark queen because"`, `Make room`},
			header: map[string]string{"HX-Push-Url": ""}},
		{name: "why, with no attacker", path: "/play?n=8&q=a1&why=c2", htmx: true, status: 200,
			want: []string{`No solution holds queens on a1 and here.`}},
		{name: "why, for a forced queen", path: "/play?n=8&q=a1,g2&why=c8", htmx: true, status: 200,
			want: []string{`Why is c8 forced?`, `Make it my queen`}},
		{name: "make room", path: "/play?n=8&q=a1,g2&room=e2", htmx: true, status: 200,
			want: []string{`Removing the queen on g2 frees e2; no smaller set of your queens does.`, `class="cell light queen gone"`}},
		{name: "make room, then place", path: "/play?n=8&q=a1,g2&remove=g2&place=e2", htmx: true, status: 200,
			header: map[string]string{"HX-Push-Url": "/?n=8&q=a1,e2&backend=bdd"}},
		{name: "complete", path: "/play?n=8&q=a1&complete=1", htmx: true, status: 200,
			want: []string{`Solved: a complete solution, one of 92`}},
		{name: "history restore asks for the whole page", path: "/?n=8&q=a1", htmx: true, status: 200,
			want: []string{`<!doctype html>`}},
		{name: "without JavaScript an action redirects to the new address", path: "/play?n=8&q=a1&place=e2", status: 303,
			header: map[string]string{"Location": "/?n=8&q=a1,e2&backend=bdd"}},

		// Refusals of actions through htmx: a notice, and the board stays.
		{name: "placing on a blocked square", path: "/play?n=8&q=a1&place=b2", htmx: true, status: 422,
			want:   []string{`b2 is blocked: attacked by a1.`, `class="notice error"`},
			header: map[string]string{"HX-Retarget": "#notice", "HX-Reswap": "innerHTML"}},
		{name: "placing where no solution goes on", path: "/play?n=8&q=a1&place=c2", htmx: true, status: 422,
			want: []string{`c2 is blocked: no solution holds queens on a1 and here.`}},
		{name: "placing on a queen", path: "/play?n=8&q=a1&place=a1", htmx: true, status: 422, want: []string{`a1 already holds your queen.`}},
		{name: "removing a queen that is not there", path: "/play?n=8&q=a1&remove=h8", htmx: true, status: 422,
			want: []string{`There is no queen of yours on h8 to remove.`}},
		{name: "why on a free square", path: "/play?n=8&q=a1&why=e2", htmx: true, status: 422,
			want: []string{`e2 is free: a queen can go there, so there is nothing to explain.`}},
		{name: "make room on a queen", path: "/play?n=8&q=a1&room=a1", htmx: true, status: 422, want: []string{`a1 holds your own queen`}},
		{name: "two actions at once", path: "/play?n=8&why=a1&room=a1", htmx: true, status: 400, want: []string{`One action at a time`}},
		{name: "a bad square in an action", path: "/play?n=8&place=z0", htmx: true, status: 400, want: []string{`“z0” is not a square`}},
		{name: "an empty square in an action", path: "/play?n=8&q=a1&place=", htmx: true, status: 400,
			want: []string{`The parameter &#34;place&#34; names one square, like c5.`}, header: map[string]string{"HX-Retarget": "#notice"}},
		{name: "a 100 KB address through htmx keeps the board", path: "/play?n=8&q=a1&place=" + strings.Repeat("b", 100<<10), htmx: true, status: 414,
			want: []string{`This address is too long`}, notWant: []string{`id="app"`}, header: map[string]string{"HX-Retarget": "#notice"}},
		{name: "placing on a blocked square without JavaScript keeps the board", path: "/play?n=8&q=a1&place=b2", status: 422,
			want: []string{`b2 is blocked: attacked by a1.`, `id="cell-a1" class="cell dark queen"`, `id="count">4 solutions<`}},

		// Bad addresses: a 4xx page with the message and a board that works.
		{name: "size in words", path: "/?n=eight", status: 400,
			want: []string{`Board size “eight” is not a whole number: pick a size from 1 to 10.`, `id="count">92 solutions<`}},
		{name: "size zero", path: "/?n=0", status: 400, want: []string{`Board size 0 is out of range: pick a size from 1 to 10.`}},
		{name: "size minus one", path: "/?n=-1", status: 400, want: []string{`Board size -1 is out of range`}},
		{name: "size 10^18", path: "/?n=1000000000000000000", status: 400, want: []string{`Board size 1000000000000000000 is out of range`}},
		{name: "size beyond the BDD's limit", path: "/?n=11", status: 413,
			want: []string{`A 11×11 board is beyond the limit of the BDD backend (10×10). The SAT backend handles boards up to 16×16: switch to SAT.`}},
		{name: "size beyond every limit", path: "/?n=17&backend=sat", status: 413, want: []string{`A 17×17 board is beyond the limit of the SAT backend (16×16).`}},
		{name: "a square off the board", path: "/?n=8&q=z99", status: 400, want: []string{`“z99” is off the 8×8 board.`}},
		{name: "rank zero", path: "/?n=8&q=a0", status: 400, want: []string{`“a0” is not a square: name squares by file letter and rank, like a1 or c5.`}},
		{name: "an empty square name", path: "/?n=8&q=a1,,b3", status: 400, want: []string{`The list of queens has an empty entry`}},
		{name: "a queen twice", path: "/?n=8&q=a1,a1", status: 400, want: []string{`a1 is listed twice among the queens.`}},
		{name: "queens that attack each other keep the first", path: "/?n=8&q=a1,b2", status: 422,
			want: []string{`No solution holds these queens: a1 and b2 attack each other.`, `id="cell-a1" class="cell dark queen"`, `id="count">4 solutions<`}},
		{name: "queens no solution holds keep the longest good start", path: "/?n=8&q=a1,e2,b3", status: 422,
			want: []string{`No solution holds queens on a1, e2 and b3 together: there is no way to fill the remaining ranks.`, `id="cell-e2" class="cell light queen"`}},
		{name: "more queens than ranks", path: "/?n=4&q=a1,b3,c1,d4,a4", status: 422, want: []string{`A solution on a 4×4 board has 4 queens; the address lists 5.`}},
		{name: "unknown backend", path: "/?backend=zdd", status: 400, want: []string{`“zdd” is not a backend: choose bdd, sat or both.`}},
		{name: "unknown order", path: "/?order=zigzag", status: 400, want: []string{`“zigzag” is not a variable order`}},
		{name: "a flag that is not a flag", path: "/?heat=maybe", status: 400, want: []string{`The parameter &#34;heat&#34; takes 1 or 0, not “maybe”.`}},
		{name: "a parameter twice", path: "/?n=8&n=9", status: 400, want: []string{`The parameter &#34;n&#34; appears more than once`}},
		{name: "a malformed escape", path: "/?n=%zz", status: 400, want: []string{`The address is malformed: “n=%zz” has a % that is not followed by two hexadecimal digits.`}},
		{name: "a semicolon", path: "/?n=8&q=a1;drop", status: 400, want: []string{`The address is malformed: “q=a1;drop” holds a semicolon; separate the parameters with &amp; and the queens with commas (q=a1,c5).`}},
		{name: "invalid UTF-8", path: "/?backend=%ff%fe", status: 400, want: []string{"“\uFFFD” is not a backend"}},
		{name: "invalid UTF-8 in a square", path: "/?n=8&q=a1,%ff", status: 400, want: []string{"“\uFFFD” is not a square"}},
		{name: "invalid UTF-8 in the size", path: "/?n=8%c3%28", status: 400, want: []string{"Board size “8\uFFFD(” is not a whole number"}},
		{name: "a bad size for the diagram", path: "/diagram.svg?n=eight", status: 400, want: []string{`Board size “eight” is not a whole number`}},
		{name: "a bad size for the progress stream", path: "/events/compile?n=0", status: 400, want: []string{`Board size 0 is out of range`}},
		{name: "a 100 KB address", path: long, status: 414, want: []string{`This address is too long (99.6 KiB of parameters; the limit is 8 KiB).`}},
		{name: "a page that does not exist", path: "/nope", status: 404, want: []string{`There is nothing at this address.`, `id="count">92 solutions<`}},

		// Hostile input comes back escaped, never as markup.
		{name: "script in the size", path: "/?n=" + url.QueryEscape(`<script>alert(1)</script>`), status: 400,
			want: []string{`Board size “&lt;script&gt;alert(1)&lt;/script…” is not a whole number`}, notWant: []string{`<script>alert`}},
		{name: "markup in the backend", path: "/?backend=" + url.QueryEscape(`"><img src=x onerror=alert(1)>`), status: 400,
			want: []string{`“&#34;&gt;&lt;img src=x onerror=ale…” is not a backend`}, notWant: []string{`<img src=x`}},
		{name: "markup in a square", path: "/?q=" + url.QueryEscape(`<b>x</b>`), status: 400, notWant: []string{`<b>x</b>`}},
		{name: "markup in the trail", path: "/?n=8&t=" + url.QueryEscape(`<i>x</i>_8_1_1`), status: 200, notWant: []string{`<i>x</i>`}},
		{name: "markup through htmx", path: "/play?n=8&place=" + url.QueryEscape(`<svg onload=alert(1)>`), htmx: true, status: 400,
			notWant: []string{`<svg onload`}},

		// Static files come from the embedded tree only.
		{name: "the style sheet", path: "/static/style.css", status: 200, want: []string{`.board`},
			header: map[string]string{"Content-Type": "text/css; charset=utf-8"}},
		{name: "htmx, embedded from npm (run `make frontend` if this fails)", path: "/static/vendor/htmx.min.js", status: 200, want: []string{`htmx`}},
		{name: "the htmx SSE extension", path: "/static/vendor/sse.min.js", status: 200, want: []string{`sse`}},
		{name: "no escape from the static tree", path: "/static/../go.mod", status: 404, notWant: []string{"module github.com/nqueens"}},
		{name: "no escape, encoded", path: "/static/%2e%2e/go.mod", status: 404, notWant: []string{"module github.com/nqueens"}},
		{name: "no escape, deeper", path: "/static/vendor/../../embed.go", status: 404, notWant: []string{"package frontend"}},
		{name: "no directory listings", path: "/static/vendor/", status: 404},
		{name: "no escape, encoded slashes", path: "/static/..%2f..%2fgo.mod", status: 404, notWant: []string{"module github.com/nqueens"}},
		{name: "no escape, backslashes", path: "/static/..%5c..%5cgo.mod", status: 404, notWant: []string{"module github.com/nqueens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, ts.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.htmx {
				req.Header.Set("HX-Request", "true")
				if tt.name == "history restore asks for the whole page" {
					req.Header.Set("HX-History-Restore-Request", "true")
				}
			}
			res, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readAll(t, res)
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d; body:\n%s", res.StatusCode, tt.status, excerpt(body))
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("body lacks %q:\n%s", w, excerpt(body))
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(body, w) {
					t.Errorf("body contains %q", w)
				}
			}
			for k, v := range tt.header {
				if got := res.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if ct := res.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/html") {
				checkStrictHTML(t, body)
			}
			checkSecureHeaders(t, res.Header)
		})
	}
	// After all that, the server goes on serving.
	if res, body := get(t, ts, "/?n=8&q=a1"); res.StatusCode != 200 || !strings.Contains(body, `id="count">4 solutions<`) {
		t.Errorf("after the bad requests: status %d", res.StatusCode)
	}
}

// inlineCode finds what a strict Content-Security-Policy would refuse:
// inline scripts, inline styles and event handler attributes.
var inlineCode = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<style|<[a-z][^>]*\sstyle\s*=|<[a-z][^>]*\son[a-z]+\s*=`)

// checkStrictHTML fails when the page holds inline script or style.
func checkStrictHTML(t *testing.T, body string) {
	t.Helper()
	if m := inlineCode.FindString(body); m != "" {
		t.Errorf("the page has inline code or style, which the CSP forbids: %q", m)
	}
}

// checkSecureHeaders checks the headers every answer carries.
func checkSecureHeaders(t *testing.T, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
		if got := h.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// TestTimingTrail checks that each step's timings travel to the next
// request and that the panel shows the last few, newest first.
func TestTimingTrail(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	_, body := get(t, ts, "/?n=8&backend=both")
	path := "/play?n=8&backend=both&l=open"
	for _, cell := range []string{"a1", "e2"} {
		trail := regexp.MustCompile(`name="t" value="([^"]*)"`).FindStringSubmatch(body)
		if trail == nil {
			t.Fatalf("no trail in the page")
		}
		q := regexp.MustCompile(`name="q" value="([^"]*)"`).FindStringSubmatch(body)
		path = "/play?n=8&backend=both&place=" + cell + "&t=" + url.QueryEscape(html.UnescapeString(trail[1]))
		if q != nil {
			path += "&q=" + html.UnescapeString(q[1])
		}
		_, body = get(t, ts, path, "HX-Request", "true")
	}
	rows := regexp.MustCompile(`<tr(?: class="current")?><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>`).FindAllStringSubmatch(body, -1)
	var labels []string
	for _, r := range rows {
		labels = append(labels, html.UnescapeString(r[1]))
		for _, d := range r[2:4] {
			if !regexp.MustCompile(`^[0-9.]+ (ns|µs|ms|s)$`).MatchString(d) {
				t.Errorf("step %s: time %q is not a duration", r[1], d)
			}
		}
	}
	if want := []string{"+e2", "+a1", "open"}; strings.Join(labels, " ") != strings.Join(want, " ") {
		t.Errorf("steps %q, want %q", labels, want)
	}
	if n := countIn(body, "compiled in"); n != 2 {
		t.Errorf("%d compile times, want one per backend", n)
	}
}

// TestProgressPage checks the answer while a board is still compiling:
// the controls, and a progress stream that ends with "done".
func TestProgressPage(t *testing.T) {
	cfg := testConfig()
	cfg.QuickWait = time.Nanosecond
	_, ts := newTestServer(t, cfg)
	res, body := get(t, ts, "/?n=9&backend=bdd")
	if res.StatusCode != 200 || !strings.Contains(body, `sse-connect="/events/compile?n=9&amp;backend=bdd"`) || !strings.Contains(body, "Compiling the 9×9 BDD") {
		t.Fatalf("no progress page (status %d):\n%s", res.StatusCode, excerpt(body))
	}
	if !strings.Contains(body, `id="size"`) {
		t.Errorf("the controls are missing while compiling")
	}
	res, body = get(t, ts, "/events/compile?n=9&backend=bdd")
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("progress stream content type %q", ct)
	}
	if !strings.Contains(body, "event: done\ndata: ready\n\n") {
		t.Errorf("the stream does not end with done:\n%s", body)
	}
}

// readAll reads and closes a response body.
func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String()
}

// excerpt shortens a body for a failure message.
func excerpt(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestTooLargeForTheBudget checks the answer to a board whose BDD outgrows
// the node budget: a fast 413 that says so, names the largest board that
// fits and points to SAT, on the page and in the API. With a budget of
// exactly what an 8×8 needs (row order), the server takes boards up to
// 8×8 and refuses 9×9 and up before compiling anything; an 8×8 in the
// diagonal order (2,787 nodes instead of 2,451) is refused by the compile
// itself, and a repeat does not compile again.
func TestTooLargeForTheBudget(t *testing.T) {
	cfg := testConfig()
	// The 8×8 diagram's 2,451 nodes and two terminals at 32 bytes each:
	// 8×8 fits in row order, not in diagonal order, and 9×9 not at all.
	cfg.BDD.Budget = 32 * (2451 + 2)
	var compiles compileCounter
	_, ts, _ := serveWith(t, cfg.config(), compiles.wrap(cfg.engines())...)
	budget := bytesize.Format(cfg.BDD.Budget)
	if res, body := get(t, ts, "/?n=8"); res.StatusCode != 200 || !strings.Contains(body, `id="count">92 solutions<`) {
		t.Fatalf("8×8 within the budget: status %d", res.StatusCode)
	}
	tests := []struct {
		path, body string
		want       string
	}{
		{"/?n=10", `{"n":10}`, "A 10×10 board is beyond the limit of the BDD backend (8×8: its node budget of " + budget + " holds boards up to 8×8). " +
			"The SAT backend handles boards up to 16×16: switch to SAT."},
		{"/?n=9&backend=both", `{"n":9,"backend":"bdd"}`, "A 9×9 board is beyond the limit of the"},
		{"/?n=8&order=diag", `{"n":8,"order":"diag"}`, "The 8×8 board does not fit the BDD backend's node budget of " + budget + " in the order “by diagonal”; " +
			"rank by rank needs the fewest nodes. The SAT backend handles boards up to 16×16: switch to SAT."},
	}
	for _, tt := range tests {
		for range 2 {
			start := time.Now()
			res, body := get(t, ts, tt.path)
			if res.StatusCode != 413 || !strings.Contains(html.UnescapeString(body), tt.want) {
				t.Errorf("page %s: status %d, body:\n%s", tt.path, res.StatusCode, excerpt(body))
			}
			if !strings.Contains(body, `id="size"`) {
				t.Errorf("page %s: the page lost its controls", tt.path)
			}
			res, body = post(t, ts, "/api/v1/analyze", tt.body)
			if res.StatusCode != 413 || !strings.Contains(body, tt.want) {
				t.Errorf("API %s: status %d: %s", tt.body, res.StatusCode, body)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: refusing took %v", tt.path, d)
			}
		}
	}
	// 8×8 in row order, and once 8×8 in diagonal order; the boards beyond
	// the limit never reach the BDD compiler.
	if n := compiles.total("bdd"); n != 2 {
		t.Errorf("%d BDD compiles, want 2", n)
	}
}

// TestPanicsAreCaught checks that a handler that panics gives a 500 with a
// calm message, no stack in the answer, and the stack in the log.
func TestPanicsAreCaught(t *testing.T) {
	var logged configuratortest.Log
	cfg := testConfig()
	s, err := New(cfg.config(), slog.New(slog.NewTextHandler(&logged, nil)), cfg.engines()...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e := s.routes()
	e.GET("/boom", func(echo.Context) error { panic("kaboom") })
	ts := httptest.NewServer(e)
	defer ts.Close()
	for _, path := range []string{"/boom", "/boom?n=8"} {
		res, body := get(t, ts, path)
		if res.StatusCode != 500 || !strings.Contains(body, "Something went wrong on our side") {
			t.Errorf("%s: status %d: %s", path, res.StatusCode, excerpt(body))
		}
		if strings.Contains(body, "kaboom") || strings.Contains(body, "goroutine") {
			t.Errorf("%s: the answer leaks the panic", path)
		}
	}
	if log := logged.String(); !strings.Contains(log, "kaboom") || !strings.Contains(log, "msg=panic") {
		t.Errorf("the panic is not logged:\n%s", log)
	}
	// The server goes on serving.
	if res, _ := get(t, ts, "/?n=4"); res.StatusCode != 200 {
		t.Errorf("after a panic: status %d", res.StatusCode)
	}
}

// TestGzip checks that pages and static files are compressed for clients
// that accept it.
func TestGzip(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, path := range []string{"/?n=8", "/static/style.css", "/static/vendor/htmx.min.js"} {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(res.Body)
		if err != nil || res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%s: not gzipped (%q): %v", path, res.Header.Get("Content-Encoding"), err)
		}
		b, err := io.ReadAll(zr)
		res.Body.Close()
		if err != nil || len(b) < 1000 {
			t.Errorf("%s: %d bytes after gunzip: %v", path, len(b), err)
		}
	}
}

// TestHostileParameters puts markup into every parameter the server reads,
// on the page, through htmx and in the API: the answer is never a 5xx and
// never carries the markup unescaped.
func TestHostileParameters(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`
	for _, name := range []string{"n", "q", "backend", "order", "heat", "diagram", "t", "l", "place", "remove", "why", "room", "complete", "refresh"} {
		for _, htmx := range []bool{false, true} {
			path := "/play?n=8&q=a1&" + name + "=" + url.QueryEscape(evil)
			if name == "n" || name == "q" {
				path = "/play?" + name + "=" + url.QueryEscape(evil)
			}
			var res *http.Response
			var body string
			if htmx {
				res, body = get(t, ts, path, "HX-Request", "true")
			} else {
				res, body = get(t, ts, path)
			}
			if res.StatusCode >= 500 {
				t.Errorf("%s (htmx %v): status %d", name, htmx, res.StatusCode)
			}
			if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
				t.Errorf("%s (htmx %v): the markup comes back unescaped", name, htmx)
			}
			checkStrictHTML(t, body)
		}
	}
	for _, field := range []string{"backend", "order"} {
		res, body := post(t, ts, "/api/v1/analyze", `{"n":8,"`+field+`":"<script>alert(1)</script>"}`)
		if res.StatusCode != 400 || strings.Contains(body, "<") {
			t.Errorf("API %s: status %d: %s", field, res.StatusCode, body)
		}
	}
}

// missingFileSetup is a server whose BDD compiles boards up to 9×9 and
// serves 10×10 from a compiled file alone, in dir, beside the SAT backend.
func missingFileSetup(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	_, ts, _ := serveWith(t, testConfig().Config,
		Engine{Backend: bdd.New(bdd.Options{Dir: dir, MaxN: 10, CompileMaxN: 9}), Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
	return ts
}

// TestBoardWithoutItsCompiledFile: a board the BDD serves from a compiled
// file alone, when the file is missing, is a 413 whose notice is one
// sentence that gives the command making the file, as code on the page
// and as text in the API; the page shows the board it falls back to and
// names it (data-href, which address.js puts in the address bar) so that
// the address and the list of steps say what the page shows. A file of
// the board in another order does not serve it: the same sentence names
// the order and its command.
func TestBoardWithoutItsCompiledFile(t *testing.T) {
	dir := t.TempDir()
	ts := missingFileSetup(t, dir)
	sentence := func(what, cmd string) string {
		return "The BDD backend serves a " + what + " only from its compiled file, which this server does not have: make it once with " +
			cmd + " and restart the server, or switch to SAT, which handles boards up to 16×16."
	}
	command := "nqueens count -n 10 -budget 12G -cache-dir " + dir
	code := "<code>" + command + "</code>"
	tests := []struct {
		name    string
		path    string
		htmx    bool
		status  int
		want    []string
		notWant []string
	}{
		{name: "the page", path: "/?n=10&q=a1", status: 413,
			want: []string{`<p>` + sentence("10×10 board", code) + `</p>`, `data-href="/?n=8&amp;backend=bdd"`, `id="count">92 solutions<`}},
		{name: "the page in Both", path: "/?n=10&backend=both", status: 413,
			want: []string{`<p>` + sentence("10×10 board", code) + `</p>`, `data-href="/?n=8&amp;backend=both"`}},
		{name: "a click of htmx", path: "/play?n=10&q=a1", htmx: true, status: 413,
			want: []string{`<p>` + sentence("10×10 board", code) + `</p>`}, notWant: []string{`data-href`}},
		{name: "a board within the limits", path: "/?n=9", status: 200,
			want: []string{`id="count">352 solutions<`}, notWant: []string{`data-href`, `class="notice error"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.htmx {
				headers = []string{"HX-Request", "true"}
			}
			res, body := get(t, ts, tt.path, headers...)
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d", res.StatusCode, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %q in\n%s", w, excerpt(body))
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(body, w) {
					t.Errorf("unexpected %q", w)
				}
			}
		})
	}
	status, api, err := postJSON(t, context.Background(), ts, "/api/v1/analyze", `{"n":10}`)
	if want := `{"error":"` + sentence("10×10 board", command) + `"}`; err != nil || status != 413 || strings.TrimSpace(api) != want {
		t.Errorf("API: %d %s %v\nwant 413 %s", status, api, err, want)
	}

	// The row-major file, as its command writes it: a server started now
	// serves 10×10 rank by rank, and no other order.
	if _, err := bdd.New(bdd.Options{Dir: dir}).Compile(context.Background(), configuratortest.Model(t, 10, configurator.RowMajor)); err != nil {
		t.Fatal(err)
	}
	ts = missingFileSetup(t, dir)
	if res, body := get(t, ts, "/?n=10&q=a1"); res.StatusCode != 200 || !strings.Contains(body, `id="count">64 solutions<`) {
		t.Errorf("10×10 with its file: %d\n%s", res.StatusCode, excerpt(body))
	}
	col := "<code>nqueens count -n 10 -order col -budget 12G -cache-dir " + dir + "</code>"
	res, body := get(t, ts, "/?n=10&order=col")
	for _, w := range []string{`<p>` + sentence("10×10 board in the order “file by file”", col) + `</p>`,
		`id="count">724 solutions<`, `data-href="/?n=10&amp;backend=bdd"`} { // rank by rank, under the notice
		if res.StatusCode != 413 || !strings.Contains(body, w) {
			t.Errorf("10×10 file by file: %d, no %s\n%s", res.StatusCode, w, excerpt(body))
		}
	}
}

// TestBrowserBoardWithoutItsCompiledFile: in a browser, the page of a
// board without its compiled file shows the command as code, and the
// address and the list of steps name the board the page shows.
func TestBrowserBoardWithoutItsCompiledFile(t *testing.T) {
	ts := missingFileSetup(t, t.TempDir())
	b := newBrowser(t, ts.URL)
	b.open("/?n=10&q=a1")
	b.wait("the list of steps", `document.querySelector("#history-steps li")`)
	if got := b.location(); got != "/?n=8&backend=bdd" {
		t.Errorf("address %q, want the board shown, /?n=8&backend=bdd", got)
	}
	if got := b.text("#history-steps li"); got != "8×8, empty" {
		t.Errorf("first step %q, want the board shown, 8×8, empty", got)
	}
	if got := b.text("#notice code"); !strings.HasPrefix(got, "nqueens count -n 10 -budget 12G") {
		t.Errorf("the notice's code %q", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestFallbackBoardWithinTheLimit: a page whose board is refused falls
// back to the primary's largest board when 8×8 is beyond it, not to no
// board at all.
func TestFallbackBoardWithinTheLimit(t *testing.T) {
	_, ts, _ := serveWith(t, testConfig().Config,
		Engine{Backend: bdd.New(bdd.Options{Dir: t.TempDir(), MaxN: 6, CompileMaxN: 5}), Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
	for _, path := range []string{"/?n=6&q=a1", "/nowhere", "/"} {
		res, body := get(t, ts, path)
		if !strings.Contains(body, `id="count">10 solutions<`) || !strings.Contains(body, `<option value="5" selected>5 × 5</option>`) {
			t.Errorf("%s: %d, want the 5×5 board\n%s", path, res.StatusCode, excerpt(body))
		}
	}
}

// TestOrderMenuSaysWhatAnOrderNeeds: the order menu of a large board says,
// before anyone chooses, what each order not in memory takes: a load
// from its compiled file, a compile, or, past the largest board the BDD
// compiles, the compiled file it lacks.
func TestOrderMenuSaysWhatAnOrderNeeds(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []configurator.Order{configurator.RowMajor, configurator.ColMajor} {
		if _, err := bdd.New(bdd.Options{Dir: dir}).Compile(context.Background(), configuratortest.Model(t, 12, o)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		compileMaxN int
		want        []string
	}{
		{11, []string{`<option value="row" selected>rank by rank</option>`, `<option value="col">file by file (loads first)</option>`,
			`<option value="diag">by diagonal (not on disk)</option>`, `<option value="middle">middle ranks first (not on disk)</option>`}},
		{0, []string{`<option value="row" selected>rank by rank</option>`, `<option value="col">file by file (loads first)</option>`,
			`<option value="diag">by diagonal (compiles first)</option>`, `<option value="middle">middle ranks first (compiles first)</option>`}},
	} {
		_, ts, _ := serveWith(t, testConfig().Config,
			Engine{Backend: bdd.New(bdd.Options{Dir: dir, MaxN: 12, CompileMaxN: tt.compileMaxN}), Deadline: 10 * time.Second, Title: "BDD"})
		res, body := get(t, ts, "/?n=12")
		for _, w := range tt.want {
			if res.StatusCode != 200 || !strings.Contains(body, w) {
				t.Errorf("-bdd-compile-max-n %d: status %d, no %s", tt.compileMaxN, res.StatusCode, w)
			}
		}
	}
}

// TestBothPastTheBoardsSATCounts: in Both, on a board past those the SAT
// backend counts, the note under the count says SAT gives no count of
// this board, not that it never counts.
func TestBothPastTheBoardsSATCounts(t *testing.T) {
	_, ts, _ := serveWith(t, testConfig().Config,
		Engine{Backend: bdd.New(bdd.Options{MaxN: 11}), Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
	res, body := get(t, ts, "/?n=11&backend=both")
	if want := `<p class="count-note">SAT does not count solutions on this board</p>`; res.StatusCode != 200 || !strings.Contains(body, `id="count">2,680 solutions<`) || !strings.Contains(body, want) {
		t.Errorf("11×11 in Both: %d, want 2,680 solutions and %s\n%s", res.StatusCode, want, excerpt(body))
	}
}
