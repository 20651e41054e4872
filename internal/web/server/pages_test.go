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

// TestPages is the specification of the one page's HTML routes for a
// board (the model queens-N): every address a person or a hand-edited
// link can produce, with the status and the words the page must answer
// with. Bad input is refused with a message in words, inside a page that
// still works.
func TestPages(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	long := "/?model=queens-8&select=" + strings.Repeat("a1,", 34000) // about 100 KB
	solution16 := "a1,c2,e3,b4,m5,i6,n7,l8,o9,f10,p11,g12,d13,k14,h15"
	computer, _ := exampleID(t, "computer")
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
		{name: "the bare address opens the default board", path: "/", status: 303,
			header: map[string]string{"Location": "/?model=queens-8"}},
		{name: "a fresh board", path: "/?model=queens-8", status: 200,
			want: []string{`id="count">92 configurations<`, `aria-label="8 by 8 board"`, `role="grid"`, `<option value="queens-8" selected>8 × 8</option>`,
				`<option value="queens-16">16 × 16</option>`, `id="orders"`}},
		{name: "4×4", path: "/?model=queens-4", status: 200, want: []string{`id="count">2 configurations<`}},
		{name: "one queen in the corner", path: "/?model=queens-8&select=a1", status: 200,
			want: []string{`id="count">4 configurations<`, `class="cell queen dark" data-name="a1" name="undo"`, `aria-label="b2, forced off"`}},
		{name: "a unique completion forces six queens", path: "/?model=queens-8&select=a1,e2", status: 200,
			want: []string{`id="count">1 configuration<`, `aria-label="h3, forced on"`, `aria-label="b7, forced on"`}},
		{name: "a full solution is decided", path: "/?model=queens-8&select=a1,e2,h3,f4,c5,g6,b7,d8", status: 200,
			want: []string{`id="count">1 configuration<`}, notWant: []string{`id="complete"`, `, free"`}},
		{name: "the SAT backend counts too", path: "/?model=queens-8&select=a1&backend=sat", status: 200,
			want: []string{`id="count">4 configurations<`, `<th scope="col">SAT</th>`}, notWant: []string{`<th scope="col">BDD</th>`}},
		{name: "both backends agree", path: "/?model=queens-8&select=a1,g2&backend=both", status: 200,
			want: []string{`id="count">2 configurations<`, `✓ BDD and SAT agree on every feature`, `<dt>BDD</dt>`, `<dt>SAT</dt>`}},
		{name: "3×3 has no configuration", path: "/?model=queens-3", status: 422, want: []string{`3-queens has no configuration.`}},
		{name: "the tab title names the board", path: "/?model=queens-10", status: 200,
			want: []string{`<title>10-queens · BDD/SAT configurator</title>`, `data-title="10-queens · BDD/SAT configurator"`}},
		{name: "a full board on a backend that does not count is one configuration", path: "/?model=queens-16&backend=sat&select=" + solution16 + ",j16", status: 200,
			want: []string{`id="count">1 configuration<`}, notWant: []string{`does not count`, `id="complete"`}},
		{name: "a board one forced square from decided, on a backend that does not count", path: "/?model=queens-16&backend=sat&select=" + solution16, status: 200,
			want: []string{`id="count">1 configuration<`, `aria-label="j16, forced on"`}, notWant: []string{`does not count`}},
		{name: "a board past the boards a backend counts", path: "/?model=queens-12&select=a1&backend=sat", status: 200,
			want: []string{`id="count">SAT does not count the configurations of this model<`}},
		{name: "1×1 is one forced queen", path: "/?model=queens-1", status: 200,
			want: []string{`id="count">1 configuration<`, `class="cell forced dark" data-name="a1"`}},
		{name: "each free square's share of what is left", path: "/?model=queens-8&select=a1", status: 200,
			want: []string{`class="board fgrid size-s heat"`, `title="c8: free; click to place a queen (50% of the configurations left)"`}},
		{name: "no shares on a backend that does not count per square", path: "/?model=queens-8&backend=sat", status: 200,
			want: []string{`id="share-note">Each feature&#39;s share of the configurations needs a backend that counts them for every feature (the BDD).<`}, notWant: []string{`class="pct"`}},
		{name: "the diagram's panel open", path: "/?model=queens-4&select=b1&diagram=1", status: 200,
			want: []string{`<details class="card diagram model-diagram" id="diagram" open>`, `data-n="4" data-queens="[[0,1]]"`, `data-dg-view="ranks"`}},
		{name: "the diagram's panel of a board with a square ruled out", path: "/?model=queens-4&select=b1&deselect=d4&diagram=1", status: 200,
			want: []string{`data-src="/model-diagram?model=queens-4&amp;select=b1&amp;deselect=d4"`}, notWant: []string{`data-dg-view`}},
		{name: "the order panel of a board", path: "/?model=queens-8", status: 200,
			want: []string{`<h2 id="orders-h">What the variable order does</h2>`, `<td class="nodes">2,451</td>`,
				`hx-get="/orders?n=8&amp;compile=1"`, `>Compile the other 3 orders<`}},
		{name: "a feature model has no board size nor order panel", path: "/?model=" + computer, status: 200,
			want: []string{`id="ftree"`}, notWant: []string{`id="size"`, `id="orders"`, `id="fgrid"`}},

		// Steps through htmx: the app only, and the address to push.
		{name: "place", path: "/?model=queens-8&select=a1&backend=bdd&square=e2", htmx: true, status: 200,
			want: []string{`id="app"`, `data-title="8-queens · BDD/SAT configurator"`, `id="count">1 configuration<`, `<b>&#43;e2</b> forced on 6 squares`}, notWant: []string{`<html`},
			header: map[string]string{"HX-Push-Url": "/?model=queens-8&select=a1,e2&backend=bdd"}},
		{name: "take back any queen, not only the last", path: "/?model=queens-8&select=a1,e2&undo=a1", htmx: true, status: 200,
			want: []string{`id="count">8 configurations<`}, header: map[string]string{"HX-Push-Url": "/?model=queens-8&select=e2"}},
		{name: "rule a square out", path: "/?model=queens-8&select=a1&square=e2&rule=1", htmx: true, status: 200,
			want: []string{`class="cell ruled light" data-name="e2"`, `<b>−e2</b>`}, header: map[string]string{"HX-Push-Url": "/?model=queens-8&select=a1&deselect=e2"}},
		{name: "why, for an attack", path: "/?model=queens-8&select=a1&ask=b2", htmx: true, status: 200,
			want: []string{`Why is “b2” forced off?`, `<p class="reason-text">You selected “a1”</p>`, `diagonal a1-h8: at most one of a1, b2, c3, d4, e5, f6, g7, h8`,
				`>Make room: undo &#43;a1<`}, notWant: []string{`<details class="proof"`},
			header: map[string]string{"HX-Push-Url": "/?model=queens-8&select=a1&why=b2"}},
		{name: "why, with no attacker: the board's proof", path: "/?model=queens-8&select=a1&ask=c2", htmx: true, status: 200,
			want: []string{`Why is “c2” forced off?`, `<details class="proof"><summary>Proof</summary><ol class="steps"><li>The queen of rank 4 can only go on b4, f4, g4 or h4 (the queens on a1 and c2 cover its other squares); each is refuted in turn.</li>`}},
		{name: "why, for a forced queen", path: "/?model=queens-8&select=a1,g2&ask=c8", htmx: true, status: 200,
			want: []string{`Why is “c8” forced on?`, `>Make room: undo &#43;a1<`}},
		{name: "make room", path: "/?model=queens-8&select=a1,g2&why=e2&room=e2", htmx: true, status: 200,
			want:   []string{`<b>make room for e2</b> freed 11 squares`, `id="count">4 configurations<`},
			header: map[string]string{"HX-Push-Url": "/?model=queens-8&select=a1"}},
		{name: "history restore asks for the whole page", path: "/?model=queens-8&select=a1", htmx: true, status: 200,
			want: []string{`<!doctype html>`}},
		{name: "without JavaScript a step redirects to the new address", path: "/?model=queens-8&select=a1&square=e2", status: 303,
			header: map[string]string{"Location": "/?model=queens-8&select=a1,e2"}},

		// Refusals of steps through htmx: a notice, and the board stays.
		{name: "placing on a blocked square", path: "/?model=queens-8&select=a1&square=b2", htmx: true, status: 422,
			want:   []string{`No configuration keeps &#43;a1, &#43;b2: diagonal a1-h8: at most one of a1, b2, c3, d4, e5, f6, g7, h8.`, `class="notice error"`, `id="count">4 configurations<`},
			header: map[string]string{"HX-Replace-Url": "/?model=queens-8&select=a1"}},
		{name: "placing where no configuration goes on", path: "/?model=queens-8&select=a1&square=c2", htmx: true, status: 422,
			want: []string{`No configuration keeps &#43;a1, &#43;c2.`}},
		{name: "placing on a queen", path: "/?model=queens-8&select=a1&square=a1", htmx: true, status: 400,
			want: []string{`Decide &#34;a1&#34;: feature already decided.`}, header: map[string]string{"HX-Retarget": "#notice", "HX-Reswap": "innerHTML"}},
		{name: "taking back a queen that is not there", path: "/?model=queens-8&select=a1&undo=h8", htmx: true, status: 400,
			want: []string{`Undo &#34;h8&#34;: no decision of yours on that feature.`}},
		{name: "make room on a square that is not forced", path: "/?model=queens-8&select=a1&room=a1", htmx: true, status: 422,
			want: []string{`That feature is not forced, so there is nothing to explain.`}},
		{name: "two steps at once", path: "/?model=queens-8&ask=a1&room=a1", htmx: true, status: 400, want: []string{`The address asks for two steps at once (room and ask); ask for one.`}},
		{name: "a bad square in a step", path: "/?model=queens-8&square=z0", htmx: true, status: 400,
			want: []string{`Feature &#34;z0&#34;: no such feature.`}, header: map[string]string{"HX-Retarget": "#notice"}},
		{name: "a 100 KB address through htmx keeps the board", path: "/?model=queens-8&select=a1&square=" + strings.Repeat("b", 100<<10), htmx: true, status: 414,
			want: []string{`This address is too long`}, notWant: []string{`id="app"`}, header: map[string]string{"HX-Retarget": "#notice"}},
		{name: "placing on a blocked square without JavaScript keeps the board", path: "/?model=queens-8&select=a1&square=b2", status: 422,
			want: []string{`No configuration keeps &#43;a1, &#43;b2`, `class="cell queen dark" data-name="a1"`, `id="count">4 configurations<`}},

		// Bad addresses: a 4xx page with the message, and a board that works
		// where the address names one.
		{name: "a square off the board", path: "/?model=queens-8&select=z99", status: 400, want: []string{`Feature &#34;z99&#34;: no such feature.`}},
		{name: "rank zero", path: "/?model=queens-8&select=a0", status: 400, want: []string{`Feature &#34;a0&#34;: no such feature.`}},
		{name: "a queen twice", path: "/?model=queens-8&select=a1,a1", status: 400, want: []string{`Feature &#34;a1&#34;: feature decided twice.`}},
		{name: "queens that attack each other are left out", path: "/?model=queens-8&select=a1,b2", status: 422,
			want: []string{`No configuration keeps &#43;a1, &#43;b2: diagonal a1-h8: at most one of a1, b2, c3, d4, e5, f6, g7, h8. The page shows the configuration without a1 and b2.`,
				`id="count">92 configurations<`}},
		{name: "queens no solution holds leave out the fewest", path: "/?model=queens-8&select=a1,e2,b3", status: 422,
			want: []string{`The page shows the configuration without a1 and b3.`, `class="cell queen light" data-name="e2"`, `id="count">8 configurations<`}},
		{name: "more queens than ranks", path: "/?model=queens-4&select=a1,b3,c1,d4,a4", status: 422, want: []string{`No configuration keeps`}},
		{name: "unknown backend", path: "/?model=queens-8&backend=zdd", status: 400,
			want: []string{`“zdd” is not a backend: choose bdd, sat or both. The page shows the first.`, `id="count">92 configurations<`}},
		{name: "a flag that is not a flag", path: "/?model=queens-8&diagram=maybe", status: 400, want: []string{`The parameter &#34;diagram&#34; takes 1 or 0, not “maybe”.`}},
		{name: "a parameter twice", path: "/?model=queens-8&model=queens-9", status: 400, want: []string{`The parameter &#34;model&#34; appears more than once`}},
		{name: "a malformed escape", path: "/?model=%zz", status: 400, want: []string{`The address is malformed: “model=%zz” has a % that is not followed by two hexadecimal digits.`}},
		{name: "a semicolon", path: "/?model=queens-8&select=a1;drop", status: 400, want: []string{`The address is malformed: “select=a1;drop” holds a semicolon`}},
		{name: "invalid UTF-8", path: "/?model=queens-8&backend=%ff%fe", status: 400, want: []string{"“\uFFFD\uFFFD” is not a backend"}},
		{name: "invalid UTF-8 in a square", path: "/?model=queens-8&select=a1,%ff", status: 400, want: []string{"no such feature."}},
		{name: "a board beyond the BDD's limit", path: "/?model=queens-11", status: 200,
			want: []string{`<p class="mode-note" id="mode-note">BDD cannot answer this model, so SAT answers it instead: A 11×11 board is beyond the limit of the BDD backend (10×10). The SAT backend handles boards up to 16×16: switch to SAT.</p>`,
				`aria-label="11 by 11 board"`}},
		{name: "a board beyond every limit", path: "/?model=queens-17&backend=sat", status: 413,
			want: []string{`A 17×17 board is beyond the limit of the SAT backend (16×16).`}},
		{name: "a 100 KB address", path: long, status: 414, want: []string{`This address is too long (99.6 KiB of parameters; the limit is 8 KiB).`}},
		{name: "a page that does not exist", path: "/nope", status: 404, want: []string{`There is nothing at this address.`, `<a href="/models">Open a model</a>`}},
		{name: "a board past the built-in ones", path: "/?model=queens-99", status: 404,
			want: []string{`There is no board “queens-99”: the built-in boards are queens-1 to queens-32.`}, notWant: []string{`forgotten`}},
		{name: "the board page's diagram is gone", path: "/diagram.svg?n=8", status: 404, want: []string{`There is nothing at this address.`}},
		{name: "the board page's progress stream is gone", path: "/events/compile?n=8", status: 404, want: []string{`There is nothing at this address.`}},

		// Hostile input comes back escaped, never as markup.
		{name: "script in the model", path: "/?model=" + url.QueryEscape(`<script>alert(1)</script>`), status: 400,
			want: []string{`“&lt;script&gt;alert(1)&lt;/script…” names no model`}, notWant: []string{`<script>alert`}},
		{name: "markup in the backend", path: "/?model=queens-8&backend=" + url.QueryEscape(`"><img src=x onerror=alert(1)>`), status: 400,
			want: []string{`“&#34;&gt;&lt;img src=x onerror=ale…” is not a backend`}, notWant: []string{`<img src=x`}},
		{name: "markup in a square", path: "/?model=queens-8&select=" + url.QueryEscape(`<b>x</b>`), status: 400, notWant: []string{`<b>x</b>`}},
		{name: "markup in the trail", path: "/?model=queens-8&t=" + url.QueryEscape(`<i>x</i>_8_1_1`), status: 200, notWant: []string{`<i>x</i>`}},
		{name: "markup through htmx", path: "/?model=queens-8&square=" + url.QueryEscape(`<svg onload=alert(1)>`), htmx: true, status: 400,
			notWant: []string{`<svg onload`}},

		// Static files come from the embedded tree only.
		{name: "the style sheet", path: "/static/style.css", status: 200, want: []string{`.board`},
			header: map[string]string{"Content-Type": "text/css; charset=utf-8"}},
		{name: "htmx, embedded from npm (run `make frontend` if this fails)", path: "/static/vendor/htmx.min.js", status: 200, want: []string{`htmx`}},
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
	if res, body := get(t, ts, "/?model=queens-8&select=a1"); res.StatusCode != 200 || !strings.Contains(body, `id="count">4 configurations<`) {
		t.Errorf("after the bad requests: status %d", res.StatusCode)
	}
}

// inlineCode finds what a strict Content-Security-Policy would refuse:
// inline scripts, inline styles and event handler attributes.
var inlineCode = regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|<style|<[a-z][^>]*\sstyle\s*=|<[a-z][^>]*\son[a-z]+\s*=`)

// attrValue is an attribute's quoted value, which holds text, never an
// attribute: an address's words may read like one, escaped.
var attrValue = regexp.MustCompile(`="[^"]*"`)

// checkStrictHTML fails when the page holds inline script or style.
func checkStrictHTML(t *testing.T, body string) {
	t.Helper()
	if m := inlineCode.FindString(attrValue.ReplaceAllString(body, `=""`)); m != "" {
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
// request (the form's field t, newest first, a time per backend) and that
// the comparison charts the last few steps, a line per backend, each
// point named by its step.
func TestTimingTrail(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	field := regexp.MustCompile(`name="t" value="([^"]*)"`)
	_, body := get(t, ts, "/?model=queens-8&backend=both")
	selected := ""
	for _, square := range []string{"a1", "e2"} {
		trail := field.FindStringSubmatch(body)
		if trail == nil {
			t.Fatalf("no trail in the page")
		}
		path := "/?model=queens-8&backend=both&square=" + square + "&t=" + url.QueryEscape(html.UnescapeString(trail[1]))
		if selected != "" {
			path += "&select=" + selected
		}
		var res *http.Response
		res, body = get(t, ts, path, "HX-Request", "true")
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		selected = strings.TrimPrefix(selected+","+square, ",")
	}
	trail := field.FindStringSubmatch(body)
	if trail == nil {
		t.Fatalf("no trail after two steps")
	}
	var labels []string
	for _, step := range strings.Split(html.UnescapeString(trail[1]), "~") {
		f := strings.Split(step, "_")
		labels = append(labels, f[0])
		if len(f) != 4 || f[2] == "0" || f[3] == "0" {
			t.Errorf("step %q: want a time of each backend", step)
		}
	}
	if want := []string{"select", "select", "show"}; strings.Join(labels, " ") != strings.Join(want, " ") {
		t.Errorf("steps %q, want %q", labels, want)
	}
	chart := between(body, `id="session-chart"`, `</svg>`)
	if n := strings.Count(chart, "<polyline"); n != 2 {
		t.Errorf("the chart of the steps has %d lines, want one per backend", n)
	}
	for _, w := range []string{"<title>BDD: show, ", "<title>SAT: select, "} {
		if !strings.Contains(chart, w) {
			t.Errorf("no point %s… in the chart of the steps", w)
		}
	}
	if n := countIn(body, "compiled in"); n != 2 {
		t.Errorf("%d compile times, want one per backend", n)
	}
}

// TestProgressPage checks the answer while a board is still compiling and
// no backend can answer it yet: a page that says so and asks again by
// itself, with the board's controls, until the board is ready.
func TestProgressPage(t *testing.T) {
	cfg := testConfig()
	cfg.QuickWait = time.Nanosecond
	cfg.Spaces.Grace = 10 * time.Minute // the compile goes on between the page's askings
	s, ts, _ := serveWith(t, cfg.config(), cfg.engines()[0])
	res, body := get(t, ts, "/?model=queens-9")
	if strings.Contains(body, `id="fgrid"`) {
		t.Skip("the 9×9 BDD compiled within a nanosecond")
	}
	poll := regexp.MustCompile(`<span class="poll" id="poll" data-poll hx-get="([^"]*)"`).FindStringSubmatch(body)
	if res.StatusCode != 200 || poll == nil || !strings.Contains(body, "Still compiling the 9×9 board (for ") {
		t.Fatalf("no progress page (status %d):\n%s", res.StatusCode, excerpt(body))
	}
	if _, err := s.featureSpace(context.Background(), "queens-9", "bdd"); err != nil {
		t.Fatal(err)
	}
	res, body = get(t, ts, html.UnescapeString(poll[1])+"&poll=1", "HX-Request", "true")
	if res.StatusCode != 200 || !strings.Contains(body, `id="count">352 configurations<`) || strings.Contains(body, `id="poll"`) {
		t.Errorf("the page's asking again once the board is ready: %d\n%s", res.StatusCode, excerpt(body))
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
// the node budget: the page says so, names the largest board that fits
// and lets SAT answer; the API's 413 says the same. With a budget of
// exactly what an 8×8 needs (row order), the server takes boards up to
// 8×8 and refuses 9×9 and up before compiling anything; the order panel
// says that an 8×8 in the diagonal order (2,787 nodes instead of 2,451)
// does not fit, which the compile itself finds, and a repeat does not
// compile again.
func TestTooLargeForTheBudget(t *testing.T) {
	cfg := testConfig()
	// The 8×8 diagram's 2,451 nodes and two terminals at 32 bytes each:
	// 8×8 fits in row and file order, not in diagonal or middle order,
	// and 9×9 not at all.
	cfg.BDD.Budget = 32 * (2451 + 2)
	var compiles compileCounter
	_, ts, _ := serveWith(t, cfg.config(), compiles.wrap(cfg.engines())...)
	budget := bytesize.Format(cfg.BDD.Budget)
	if res, body := get(t, ts, "/?model=queens-8"); res.StatusCode != 200 || !strings.Contains(body, `id="count">92 configurations<`) || strings.Contains(body, `id="mode-note"`) {
		t.Fatalf("8×8 within the budget: status %d", res.StatusCode)
	}
	beyond := "A 10×10 board is beyond the limit of the BDD backend (8×8: its node budget of " + budget + " holds boards up to 8×8). " +
		"The SAT backend handles boards up to 16×16: switch to SAT."
	tests := []struct {
		path, body string
		note, want string // the note that names the page's stand-in, and the words
	}{
		{"/?model=queens-10", `{"n":10}`, `id="mode-note">BDD cannot answer this model, so SAT answers it instead: `, beyond},
		{"/?model=queens-9&backend=both", `{"n":9,"backend":"bdd"}`, `id="count-note">BDD could not answer: a 9×9 board is beyond the limit of the`, "A 9×9 board is beyond the limit of the"},
	}
	for _, tt := range tests {
		for range 2 {
			res, body := get(t, ts, tt.path)
			body = html.UnescapeString(body)
			if res.StatusCode != 200 || !strings.Contains(body, tt.note) || !strings.Contains(body, `id="count">`) {
				t.Errorf("page %s: status %d, no %s in:\n%s", tt.path, res.StatusCode, tt.note, excerpt(body))
			}
			if strings.HasPrefix(tt.want, "A 10") && !strings.Contains(body, tt.want) {
				t.Errorf("page %s: no %q", tt.path, tt.want)
			}
			if !strings.Contains(body, `id="size"`) {
				t.Errorf("page %s: the page lost its controls", tt.path)
			}
			res, body = post(t, ts, "/api/v1/analyze", tt.body)
			if res.StatusCode != 413 || !strings.Contains(body, tt.want) {
				t.Errorf("API %s: status %d: %s", tt.body, res.StatusCode, body)
			}
		}
	}
	diag := "The 8×8 board does not fit the BDD backend's node budget of " + budget + " in the order “by diagonal”; " +
		"rank by rank needs the fewest nodes. The SAT backend handles boards up to 16×16: switch to SAT."
	for range 2 {
		res, body := get(t, ts, "/orders?n=8&compile=1")
		if res.StatusCode != 200 || !strings.Contains(html.UnescapeString(body), `<th scope="row">by diagonal</th><td colspan="3" class="unavailable">`+diag+`</td>`) {
			t.Errorf("the order panel: %d, no row saying %q:\n%s", res.StatusCode, diag, excerpt(body))
		}
	}
	// 8×8 in each of the four orders once; the boards beyond the limit
	// never reach the BDD compiler.
	if n := compiles.total("bdd"); n != 4 {
		t.Errorf("%d BDD compiles, want 4", n)
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
	for _, path := range []string{"/boom", "/boom?model=queens-8"} {
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
	if res, body := get(t, ts, "/?model=queens-4"); res.StatusCode != 200 || !strings.Contains(body, `id="count">2 configurations<`) {
		t.Errorf("after a panic: status %d", res.StatusCode)
	}
}

// TestGzip checks that pages and static files are compressed for clients
// that accept it.
func TestGzip(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, path := range []string{"/?model=queens-8", "/static/style.css", "/static/vendor/htmx.min.js"} {
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
// on the one page and through htmx, in a board's saved address (which is
// sent to the one page) and in the API: the answer is never a 5xx and
// never carries the markup unescaped.
func TestHostileParameters(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`
	var paths []string
	for _, name := range []string{"model", "select", "deselect", "backend", "why", "find", "show", "open", "from", "diagram", "t", "rule", "poll",
		"pick", "drop", "undo", "room", "toggle", "ask", "close", "square"} {
		path := "/?model=queens-8&select=a1&" + name + "=" + url.QueryEscape(evil)
		if name == "model" || name == "select" {
			path = "/?" + name + "=" + url.QueryEscape(evil)
		}
		paths = append(paths, path)
	}
	for _, name := range []string{"n", "q", "backend", "order", "heat", "diagram", "t", "l", "place", "remove", "why", "room", "complete", "refresh"} {
		path := "/play?n=8&q=a1&" + name + "=" + url.QueryEscape(evil)
		if name == "n" || name == "q" {
			path = "/play?" + name + "=" + url.QueryEscape(evil)
		}
		paths = append(paths, path)
	}
	for _, path := range paths {
		for _, htmx := range []bool{false, true} {
			var res *http.Response
			var body string
			if htmx {
				res, body = get(t, ts, path, "HX-Request", "true")
			} else {
				res, body = get(t, ts, path)
			}
			if res.StatusCode >= 500 {
				t.Errorf("%s (htmx %v): status %d", path, htmx, res.StatusCode)
			}
			if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
				t.Errorf("%s (htmx %v): the markup comes back unescaped", path, htmx)
			}
			if h := res.Header.Get("HX-Redirect") + res.Header.Get("HX-Push-Url") + res.Header.Get("HX-Replace-Url"); strings.ContainsAny(h, "<>\"") {
				t.Errorf("%s (htmx %v): an address with markup for the browser: %q", path, htmx, h)
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
// file alone, when the file is missing, is said in one sentence that
// gives the command making the file: on the one page, in the note over
// the board SAT answers instead (or under the count in Both), as code in
// the notice of a server with no other backend, and as text in the API's
// 413. Once the file is made, the BDD serves the board from it.
func TestBoardWithoutItsCompiledFile(t *testing.T) {
	dir := t.TempDir()
	ts := missingFileSetup(t, dir)
	sentence := func(what, cmd string) string {
		return "The BDD backend serves a " + what + " only from its compiled file, which this server does not have: make it once with " +
			cmd + " and restart the server, or switch to SAT, which handles boards up to 16×16."
	}
	command := "nqueens count -n 10 -budget 12G -cache-dir " + dir
	tests := []struct {
		name    string
		path    string
		htmx    bool
		want    []string
		notWant []string
	}{
		{name: "the page", path: "/?model=queens-10&select=a1",
			want: []string{`<p class="mode-note" id="mode-note">BDD cannot answer this model, so SAT answers it instead: ` + sentence("10×10 board", command) + `</p>`,
				`data-href="/?model=queens-10&amp;select=a1"`, `id="count">64 configurations<`}},
		{name: "the page in Both", path: "/?model=queens-10&backend=both",
			want: []string{`<p class="count-note" id="count-note">BDD could not answer: t` + sentence("10×10 board", command)[1:] + `</p>`, `id="count">724 configurations<`}},
		{name: "a click of htmx", path: "/?model=queens-10&select=a1&square=c2", htmx: true,
			want: []string{`id="mode-note">BDD cannot answer this model, so SAT answers it instead: ` + sentence("10×10 board", command) + `</p>`, `id="count">4 configurations<`}},
		{name: "a board within the limits", path: "/?model=queens-9",
			want: []string{`id="count">352 configurations<`}, notWant: []string{`id="mode-note"`, `class="notice error"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var headers []string
			if tt.htmx {
				headers = []string{"HX-Request", "true"}
			}
			res, body := get(t, ts, tt.path, headers...)
			if res.StatusCode != 200 {
				t.Errorf("status %d, want 200", res.StatusCode)
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
	// Without SAT to answer, the page's notice shows the command as code.
	_, alone, _ := serveWith(t, testConfig().Config, Engine{Backend: bdd.New(bdd.Options{Dir: dir, MaxN: 10, CompileMaxN: 9}), Deadline: 10 * time.Second, Title: "BDD"})
	res, body := get(t, alone, "/?model=queens-10")
	if want := `<p>The BDD backend serves a 10×10 board only from its compiled file, which this server does not have: make it once with <code>` + command + `</code> and restart the server.</p>`; res.StatusCode != 413 || !strings.Contains(body, want) {
		t.Errorf("the BDD alone: %d, want 413 with %s\n%s", res.StatusCode, want, excerpt(body))
	}

	// The row-major file, as its command writes it: a server started now
	// serves 10×10 from it.
	if _, err := bdd.New(bdd.Options{Dir: dir}).Compile(context.Background(), configuratortest.Model(t, 10, configurator.RowMajor)); err != nil {
		t.Fatal(err)
	}
	ts = missingFileSetup(t, dir)
	if res, body := get(t, ts, "/?model=queens-10&select=a1"); res.StatusCode != 200 || !strings.Contains(body, `id="count">64 configurations<`) ||
		!strings.Contains(body, "<li>BDD: loaded from its saved file in ") || strings.Contains(body, `id="mode-note"`) {
		t.Errorf("10×10 with its file: %d\n%s", res.StatusCode, excerpt(body))
	}
}

// TestBrowserBoardWithoutItsCompiledFile: in a browser, a board's saved
// address of a board without its compiled file opens the one page, SAT's
// answer under a note that gives the command, and the address bar names
// the board shown.
func TestBrowserBoardWithoutItsCompiledFile(t *testing.T) {
	ts := missingFileSetup(t, t.TempDir())
	b := newBrowser(t, ts.URL)
	b.open("/?n=10&q=a1")
	if got := b.location(); got != "/?model=queens-10&select=a1" {
		t.Errorf("address %q, want the board shown, /?model=queens-10&select=a1", got)
	}
	if got := b.text("#count"); got != "64 configurations" {
		t.Errorf("the count %q, want SAT's 64 configurations", got)
	}
	if got := b.text("#mode-note"); !strings.Contains(got, "make it once with nqueens count -n 10 -budget 12G") {
		t.Errorf("the note %q does not give the command", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestFallbackBoardWithinTheLimit: when 8×8 is beyond the primary, the
// bare address opens the primary's largest board, not a board it cannot
// show, and its size is the one the size menu has chosen; a board the
// primary refuses is answered by the backend that takes it.
func TestFallbackBoardWithinTheLimit(t *testing.T) {
	_, ts, _ := serveWith(t, testConfig().Config,
		Engine{Backend: bdd.New(bdd.Options{Dir: t.TempDir(), MaxN: 6, CompileMaxN: 5}), Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
	res, body := get(t, ts, "/")
	if got := res.Request.URL.RequestURI(); got != "/?model=queens-5" || !strings.Contains(body, `id="count">10 configurations<`) ||
		!strings.Contains(body, `<option value="queens-5" selected>5 × 5</option>`) || strings.Contains(body, `id="mode-note"`) {
		t.Errorf("/ lands on %s: %d, want the BDD's 5×5 board\n%s", got, res.StatusCode, excerpt(body))
	}
	res, body = get(t, ts, "/?model=queens-6")
	if !strings.Contains(body, `id="count">4 configurations<`) || !strings.Contains(body, `id="mode-note">BDD cannot answer this model, so SAT answers it instead: The BDD backend serves a 6×6 board only from its compiled file`) {
		t.Errorf("6×6: %d, want SAT's 4 configurations and why\n%s", res.StatusCode, excerpt(body))
	}
}

// TestOrderPanelOfALargeBoard: the one page of a large board shows the
// order panel, which says before anyone asks what each order not in
// memory takes: a load from its compiled file, a compile, or, past the
// largest board the BDD compiles, the compiled file it lacks.
func TestOrderPanelOfALargeBoard(t *testing.T) {
	dir := t.TempDir()
	for _, o := range []configurator.Order{configurator.RowMajor, configurator.ColMajor} {
		if _, err := bdd.New(bdd.Options{Dir: dir}).Compile(context.Background(), configuratortest.Model(t, 12, o)); err != nil {
			t.Fatal(err)
		}
	}
	noFile := func(order string) string {
		return `<td colspan="3" class="unavailable">no compiled file: <code>nqueens count -n 12 -order ` + order + ` -budget 12G -cache-dir ` + dir + `</code></td>`
	}
	for _, tt := range []struct {
		compileMaxN int
		want        []string
	}{
		{11, []string{`<tr class="current"><th scope="row">rank by rank</th><td class="nodes">`, `<th scope="row">file by file</th><td colspan="3" class="unavailable">not compiled yet</td>`,
			noFile("diag"), noFile("middle"), `>Load 1 other order from disk<`, `id="orders-unservable"`}},
		{0, []string{`<tr class="current"><th scope="row">rank by rank</th><td class="nodes">`, `>Compile 2 orders, load 1 order<`}},
	} {
		_, ts, _ := serveWith(t, testConfig().Config,
			Engine{Backend: bdd.New(bdd.Options{Dir: dir, MaxN: 12, CompileMaxN: tt.compileMaxN}), Deadline: 10 * time.Second, Title: "BDD"})
		res, body := get(t, ts, "/?model=queens-12")
		panel := between(body, `id="orders"`, `</section>`)
		for _, w := range tt.want {
			if res.StatusCode != 200 || !strings.Contains(panel, w) {
				t.Errorf("-bdd-compile-max-n %d: status %d, no %s in\n%s", tt.compileMaxN, res.StatusCode, w, panel)
			}
		}
	}
}

// TestBothPastTheBoardsSATCounts: in Both, on a board past those the SAT
// backend counts, the count is the BDD's, and the note under it says SAT
// gives no count.
func TestBothPastTheBoardsSATCounts(t *testing.T) {
	_, ts, _ := serveWith(t, testConfig().Config,
		Engine{Backend: bdd.New(bdd.Options{MaxN: 11}), Deadline: 10 * time.Second, Title: "BDD"}, satEngine())
	res, body := get(t, ts, "/?model=queens-11&backend=both")
	if want := `<p class="count-note" id="count-note">SAT does not count the configurations of this model.</p>`; res.StatusCode != 200 || !strings.Contains(body, `id="count">2,680 configurations<`) || !strings.Contains(body, want) {
		t.Errorf("11×11 in Both: %d, want 2,680 configurations and %s\n%s", res.StatusCode, want, excerpt(body))
	}
}
