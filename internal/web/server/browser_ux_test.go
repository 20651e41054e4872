package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// watchRequests makes the page record every request it sends from now on
// (htmx's and fetch's), in window.sent, as "METHOD path body".
const watchRequests = `(() => {
	window.sent = [];
	document.addEventListener("htmx:beforeRequest", ev => window.sent.push("GET " + ev.detail.requestConfig.path));
	const f = window.fetch;
	window.fetch = function (url, opts) {
		window.sent.push((opts && opts.method || "GET") + " " + url + " " + (opts && opts.body || ""));
		return f.apply(this, arguments);
	};
})()`

// TestBrowserKeyboard: a key that moves the focus acts once, on the
// element it was pressed on, never again on the element the focus lands
// on.
func TestBrowserKeyboard(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	t.Run("Enter on Skip to the features only moves the focus", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8")
		b.do("watch", chromedp.Evaluate[chromedp.Void](watchRequests))
		b.do("tab to the skip link", chromedp.KeyEvent(kb.Tab))
		if got := eval[string](b, `document.activeElement.className`); got != "skip" {
			t.Fatalf("the first Tab stop is %q, want the skip link", got)
		}
		b.do("enter", chromedp.KeyEvent(kb.Enter), chromedp.Sleep(400*time.Millisecond))
		if got := eval[string](b, `document.activeElement.id`); got != "features" {
			t.Errorf("after Enter on the skip link the focus is on %q, want the board's section", got)
		}
		if sent := eval[[]string](b, `window.sent`); len(sent) > 0 {
			t.Errorf("Enter on the skip link sent %q; it should only move the focus", sent)
		}
		if got := b.text("#count"); got != "92 configurations" {
			t.Errorf("after Enter on the skip link the board says %q, want the empty board's 92 configurations", got)
		}
	})

	// The panel of a click, and the panel of an address opened as it is,
	// close on Enter on Close, once, with the focus back on the square.
	for _, open := range []struct{ what, path string }{
		{"a panel opened by a click", ""},
		{"a panel opened with the page", "/?model=queens-8&select=a1&why=d4"},
	} {
		t.Run("Enter on Close only closes "+open.what, func(t *testing.T) {
			b.t = t
			if open.path == "" {
				b.open("/?model=queens-8&select=a1")
				b.clickCSS(sq("d4"))
			} else {
				b.open(open.path)
			}
			if got := b.text("#panel-h"); got != "Why is “d4” forced off?" {
				t.Fatalf("panel %q", got)
			}
			b.do("watch", chromedp.Evaluate[chromedp.Void](watchRequests))
			b.do("focus Close", chromedp.Focus(chromedp.ID("why-close")))
			b.do("enter", chromedp.KeyEvent(kb.Enter))
			b.wait("the panel closes", settled+` && !document.getElementById("panel")`)
			b.do("rest", chromedp.Sleep(500*time.Millisecond))
			if eval[bool](b, `!!document.getElementById("panel")`) {
				t.Errorf("the panel opened again after Enter on Close")
			}
			if sent := eval[[]string](b, `window.sent`); len(sent) != 1 {
				t.Errorf("Enter on Close sent %q, want the one request that closes", sent)
			}
			if got := eval[string](b, `document.activeElement.dataset.name || document.activeElement.id`); got != "d4" {
				t.Errorf("after Close the focus is on %q, want d4", got)
			}
			if got := b.location(); got != "/?model=queens-8&select=a1" {
				t.Errorf("after Close the address is %q", got)
			}
		})
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// holdAnswers makes the browser hold every answer of a step (an htmx
// request of the one page) for d before the page gets it, as a slow
// backend would.
func (b *browser) holdAnswers(d time.Duration) {
	b.t.Helper()
	ctx := b.ctx
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*fetch.EventRequestPaused); ok {
			go func() {
				time.Sleep(d)
				chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					_, err := cdp.Call(ctx, t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
					return err
				}))
			}()
		}
	}); err != nil {
		b.t.Fatal(err)
	}
	b.do("hold the answers of the steps", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*&square=*", RequestStage: fetch.RequestStageResponse}}})
		return err
	}))
}

// TestBrowserWaits: a slow step shows that the page is working until its
// answer comes; the diagram opens in view.
func TestBrowserWaits(t *testing.T) {
	_, ts := newTestServer(t, testConfig())

	t.Run("a slow step shows the page working", func(t *testing.T) {
		b := newBrowser(t, ts.URL)
		b.open("/?model=queens-8")
		b.holdAnswers(1500 * time.Millisecond)
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("click c3", chromedp.Click(chromedp.CSS(sq("c3")), chromedp.NodeVisible))
		b.wait("the working indicator, shown", `document.getElementById("busy").classList.contains("htmx-request") && getComputedStyle(document.getElementById("busy")).opacity === "1"`)
		if got := eval[string](b, `document.getElementById("busy").getAttribute("role") + " " + document.getElementById("busy").getAttribute("aria-label")`); got != "progressbar Working" {
			t.Errorf("the working indicator reads %q to a screen reader", got)
		}
		b.wait("the answer", settled+` && document.querySelector('`+sq("c3")+`').classList.contains("queen")`)
		if eval[bool](b, `document.getElementById("busy").classList.contains("htmx-request")`) {
			t.Errorf("the working state stays after the answer")
		}
	})

	t.Run("the diagram opens in view", func(t *testing.T) {
		b := newBrowser(t, ts.URL)
		b.open("/?model=queens-8&select=a1")
		b.do("open the diagram", chromedp.Click(chromedp.ID("diagram-h"), chromedp.NodeVisible))
		b.wait("the diagram's panel open and in view", `document.getElementById("diagram").open && (() => { const r = document.getElementById("diagram").getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight - 200; })()`)
	})
}

// TestBrowserHonest: what a person reads of the comparison, the proofs and
// bad addresses: no work shown for a remembered answer, the README's d7
// proved by cases, the address bar naming what the page shows, and a
// board beyond the BDD answered by SAT.
func TestBrowserHonest(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	t.Run("a remembered answer shows no work", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1,e2&backend=both")
		b.open("/?model=queens-8&select=a1,e2&backend=both")
		for _, got := range eval[[]string](b, `[...document.querySelectorAll("#work dd")].map(dd => dd.textContent)`) {
			if got != "none: the answer for these decisions was remembered" {
				t.Errorf("a backend's work %q: want a remembered answer", got)
			}
		}
	})

	t.Run("d7 on a1,b5: a1's reason proved by cases", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1,b5")
		b.clickCSS(sq("d7"))
		b.do("open the proof", chromedp.Evaluate[chromedp.Void](`document.querySelector("#reasons .proof").open = true`))
		steps := eval[[]string](b, `Array.from(document.querySelectorAll("#reasons li.reason")[0].querySelectorAll(".steps li"), li => li.textContent)`)
		if len(steps) != 6 || steps[0] != "The queen of rank 5 can only go on c5, g5 or h5 (the queens on a1 and d7 cover its other squares); each is refuted in turn." {
			t.Errorf("a1's proof: %q", steps)
		}
		b.screenshot("proof-d7-cases-1280px.png")
	})

	for _, tt := range []struct {
		name, path, notice, queens, shown string
	}{
		{"a board's address with a queen twice", "/?n=8&q=a1,a1", "a1 is listed twice among the queens.", "", "/?model=queens-8"},
		{"decisions no configuration keeps are left out", "/?model=queens-8&select=a1,e2,b3", "The page shows the configuration without a1 and b3.", "e2", "/?model=queens-8&select=e2"},
		{"a size past any number is out of range", "/?n=99999999999999999999", "is out of range: pick a size from 1 to 16.", "", "/?model=queens-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b.t = t
			b.open(tt.path)
			if got := b.text("#notice"); !strings.Contains(got, tt.notice) {
				t.Errorf("notice %q, want %q", got, tt.notice)
			}
			if got := strings.Join(eval[[]string](b, `Array.from(document.querySelectorAll("#fgrid button.queen"), b => b.dataset.name)`), ","); got != tt.queens {
				t.Errorf("queens %q, want %q", got, tt.queens)
			}
			if got := b.location(); got != tt.shown {
				t.Errorf("the address bar says %q, want %q", got, tt.shown)
			}
		})
	}

	t.Run("a board beyond the BDD is answered by SAT", func(t *testing.T) {
		b.t = t
		b.open("/?n=16")
		if got := b.location(); got != "/?model=queens-16" {
			t.Errorf("the address bar says %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("#fgrid button[data-name]").length`); n != 256 {
			t.Errorf("%d squares, want the 16×16 board's 256", n)
		}
		if got := b.text("#mode-note"); !strings.Contains(got, "so SAT answers it instead: A 16×16 board is beyond the limit of the BDD backend (10×10).") {
			t.Errorf("the note says %q", got)
		}
	})
}

// TestBrowserBoardSizes: a board one size up never has larger squares,
// and at 1280×900 the 14×14 to 16×16 boards are no higher than the window.
func TestBrowserBoardSizes(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)
	b.do("a 1280×900 window", chromedp.EmulateViewport(1280, 900))
	var prev float64
	for _, n := range []int{13, 14, 15, 16} {
		b.open(fmt.Sprintf("/?model=queens-%d&backend=sat", n))
		side := eval[float64](b, `document.querySelector('`+sq("a1")+`').getBoundingClientRect().width`)
		top := eval[float64](b, `document.querySelector(".board").getBoundingClientRect().top + scrollY`)
		bottom := eval[float64](b, `document.querySelector(".board").getBoundingClientRect().bottom + scrollY`)
		if prev > 0 && side > prev+0.5 {
			t.Errorf("%d×%d: squares of %.1f px, larger than the size below's %.1f px", n, n, side, prev)
		}
		if h := eval[float64](b, `innerHeight`); n >= 14 && bottom-top > h {
			t.Errorf("%d×%d: the board is %.0f px high, more than the %.0f px window", n, n, bottom-top, h)
		}
		prev = side
	}
}
