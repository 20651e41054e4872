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

	t.Run("Enter on Skip to the board only moves the focus", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&backend=bdd")
		b.do("watch", chromedp.Evaluate[chromedp.Void](watchRequests))
		b.do("tab to the skip link", chromedp.KeyEvent(kb.Tab))
		if got := eval[string](b, `document.activeElement.id`); got != "skip-board" {
			t.Fatalf("the first Tab stop is %q, want skip-board", got)
		}
		b.do("enter", chromedp.KeyEvent(kb.Enter), chromedp.Sleep(400*time.Millisecond))
		if got := eval[string](b, `document.activeElement.dataset.cell || document.activeElement.id`); got != "a1" {
			t.Errorf("after Enter on the skip link the focus is on %q, want the board's a1", got)
		}
		// The focus on a free square previews it (an analysis through the
		// API); a step is a request of the board's.
		for _, s := range eval[[]string](b, `window.sent`) {
			if strings.HasPrefix(s, "GET /play") {
				t.Errorf("Enter on the skip link sent %q; it should only move the focus", s)
			}
		}
		if got := b.text("#count"); got != "92 solutions" {
			t.Errorf("after Enter on the skip link the board says %q, want the empty board's 92 solutions", got)
		}
	})

	// The panel of a click closes through the history (Back); the panel
	// of an address opened as it is closes on the spot.
	for _, open := range []struct{ what, path string }{
		{"a panel opened by a click", ""},
		{"a panel opened with the page", "/?n=8&q=a1&backend=bdd&why=d4"},
	} {
		t.Run("Enter on Close only closes "+open.what, func(t *testing.T) {
			b.t = t
			if open.path == "" {
				b.open("/?n=8&q=a1&backend=bdd")
				b.click("cell-d4")
			} else {
				b.open(open.path)
			}
			if got := b.text("#panel-h"); got != "Why is d4 blocked?" {
				t.Fatalf("panel %q", got)
			}
			b.do("watch", chromedp.Evaluate[chromedp.Void](watchRequests))
			b.do("focus Close", chromedp.Focus(chromedp.CSS("#panel a[data-close]")))
			b.do("enter", chromedp.KeyEvent(kb.Enter))
			b.wait("the panel closes", `!document.getElementById("panel")`)
			b.do("rest", chromedp.Sleep(500*time.Millisecond))
			if eval[bool](b, `!!document.getElementById("panel")`) {
				t.Errorf("the panel opened again after Enter on Close")
			}
			for _, s := range eval[[]string](b, `window.sent`) {
				if strings.Contains(s, "why=") {
					t.Errorf("Enter on Close sent %q", s)
				}
			}
			if got := eval[string](b, `document.activeElement.dataset.cell || ""`); got != "d4" {
				t.Errorf("after Close the focus is on %q, want d4", got)
			}
		})
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserPreviewAfterPlacing: the pointer resting on the square just
// placed previews nothing: no analysis of the board with that queen twice
// (the API's 400), no preview line for it.
func TestBrowserPreviewAfterPlacing(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)
	b.open("/?n=8&backend=bdd")
	b.do("watch", chromedp.Evaluate[chromedp.Void](watchRequests))
	xy := eval[[]float64](b, `(() => { const r = document.getElementById("cell-c3").getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`)
	b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
	b.do("point at c3 and click", chromedp.MouseEvent("mouseMoved", xy[0], xy[1]), chromedp.Sleep(60*time.Millisecond), chromedp.MouseClickXY(xy[0], xy[1]))
	b.wait("c3 placed", settled+` && document.getElementById("cell-c3").classList.contains("queen")`)
	// A preview of c3 sent before the click (the pointer rested long
	// enough on a slow machine) is a preview of a free square: only what
	// follows the answer counts.
	b.do("forget what was sent before", chromedp.Evaluate[chromedp.Void](`window.sent = []`))
	b.do("rest on c3", chromedp.Sleep(700*time.Millisecond))
	for _, s := range eval[[]string](b, `window.sent`) {
		if strings.HasPrefix(s, "POST /api/v1/analyze") {
			t.Errorf("after placing c3 under the pointer the page sent %q", s)
		}
	}
	if got := b.text("#preview"); got != "" {
		t.Errorf("after placing c3 the preview says %q", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// holdAnswers makes the browser hold every answer of a step (/play) for
// d before the page gets it, as a slow backend would.
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
	b.do("hold the answers of /play", chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/play?*", RequestStage: fetch.RequestStageResponse}}})
		return err
	}))
}

// TestBrowserWaits: a slow step shows a working state on the board with
// the time so far; the diagram opens in view.
func TestBrowserWaits(t *testing.T) {
	_, ts := newTestServer(t, testConfig())

	t.Run("a slow step says it is working, and for how long", func(t *testing.T) {
		b := newBrowser(t, ts.URL)
		b.open("/?n=8&backend=bdd")
		b.holdAnswers(1500 * time.Millisecond)
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("click c3", chromedp.Click(chromedp.ID("cell-c3"), chromedp.NodeVisible))
		b.wait("the working note", `document.getElementById("working") && /Working on your click: 0\.[3-9] s|Working on your click: 1\.[0-9] s/.test(document.getElementById("working").textContent)`)
		if !strings.Contains(b.class("app")+" "+eval[string](b, `document.querySelector(".board-frame").className`), "working") {
			t.Errorf("the board is not marked as working")
		}
		b.wait("the elapsed time grows past a second", `document.getElementById("working") && /: 1\.[0-9] s/.test(document.getElementById("working").textContent)`)
		b.wait("the answer", settled+` && document.getElementById("cell-c3").classList.contains("queen")`)
		if eval[bool](b, `!!document.getElementById("working") || document.querySelector(".board-frame").classList.contains("working")`) {
			t.Errorf("the working state stays after the answer")
		}
	})

	t.Run("a quick step shows no working state", func(t *testing.T) {
		b := newBrowser(t, ts.URL)
		b.open("/?n=8&backend=bdd")
		b.do("watch", chromedp.Evaluate[chromedp.Void](`window.shown = false; new MutationObserver(() => { if (document.getElementById("working")) { window.shown = true; } }).observe(document.body, {subtree: true, childList: true})`))
		b.click("cell-c3")
		if eval[bool](b, `window.shown`) {
			t.Errorf("a step of a few milliseconds showed the working state")
		}
	})

	t.Run("the diagram opens in view", func(t *testing.T) {
		b := newBrowser(t, ts.URL)
		b.open("/?n=8&q=a1&backend=bdd")
		if top := eval[float64](b, `document.getElementById("diagram-toggle").getBoundingClientRect().top`); top < 0 || top > 900 {
			t.Fatalf("the Diagram button is at %.0f px, off the 900 px window", top)
		}
		b.click("diagram-toggle")
		b.wait("the diagram's panel in view", `(() => { const r = document.getElementById("diagram").getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight - 200; })()`)
	})
}

// TestBrowserHonest: what a person reads of the comparison and the proofs:
// no speed ratio against a remembered answer, the README's d7 proved by
// cases, and the bad addresses' fallbacks.
func TestBrowserHonest(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	t.Run("a remembered answer is no speed", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1,e2&backend=both")
		b.open("/?n=8&q=a1,e2&backend=both")
		if got := b.text("#work dd"); !strings.HasSuffix(got, "none visited (a remembered answer)") {
			t.Fatalf("the BDD's work %q: want a remembered answer", got)
		}
		if got := b.text("#ratios"); got != "SAT against BDD: no ratio (BDD's answer was remembered, not computed)." {
			t.Errorf("the ratio beside a remembered answer: %q", got)
		}
		if got := b.text("#sum"); !strings.HasPrefix(got, "In sum: BDD paid ") {
			t.Errorf("the summing up: %q", got)
		}
	})

	t.Run("d7 on a1,b5: reason 2 proved by cases", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1,b5&backend=bdd")
		b.click("cell-d7")
		b.do("open the second proof", chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("#reasons .proof")[0].open = true`))
		steps := eval[[]string](b, `Array.from(document.querySelectorAll("#reasons li.reason")[1].querySelectorAll(".steps li"), li => li.textContent)`)
		if len(steps) != 6 || steps[0] != "The queen of rank 5 can only go on c5, g5 or h5 (the queens on a1 and d7 cover its other squares); each is refuted in turn." {
			t.Errorf("reason 2's proof: %q", steps)
		}
		if eval[bool](b, `!!document.querySelector("#reasons .refuted")`) {
			t.Errorf("a backend's refutation where the proof by cases stands")
		}
		b.screenshot("proof-d7-cases-1280px.png")
	})

	for _, tt := range []struct {
		name, path, notice, queens, shown string
	}{
		{"a queen twice keeps the first", "/?n=8&q=a1,a1", "a1 is listed twice among the queens.", "a1", "/?n=8&q=a1&backend=bdd"},
		{"an empty entry keeps the queens before it", "/?n=8&q=a1,,b5", "The list of queens has an empty entry", "a1", "/?n=8&q=a1&backend=bdd"},
		{"a size past any number is out of range", "/?n=99999999999999999999", "is out of range: pick a size from 1 to 10.", "", "/?n=8&backend=bdd"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b.t = t
			b.open(tt.path)
			if got := b.text("#notice"); !strings.Contains(got, tt.notice) {
				t.Errorf("notice %q, want %q", got, tt.notice)
			}
			if got := strings.Join(eval[[]string](b, `Array.from(document.querySelectorAll("#board-form button.queen"), b => b.dataset.cell)`), ","); got != tt.queens {
				t.Errorf("queens %q, want %q", got, tt.queens)
			}
			if got := b.location(); !strings.HasSuffix(got, tt.shown) {
				t.Errorf("the address bar says %q, want %q", got, tt.shown)
			}
		})
	}

	t.Run("a board beyond the BDD links to SAT's", func(t *testing.T) {
		b.t = t
		b.open("/?n=16")
		b.do("follow the link", chromedp.Click(chromedp.CSS(".notice p.alt a"), chromedp.NodeVisible), chromedp.Sleep(time.Second), chromedp.WaitVisible(chromedp.ID("app")))
		b.wait("the 16×16 SAT board", `location.search === "?n=16&backend=sat" && document.querySelectorAll("#board-form button[data-cell]").length === 256`)
	})
}

// TestBrowserBoardSizes: a board one size up never has larger squares,
// and at 1280×900 the 14×14 and 15×15 boards fit the window's height.
func TestBrowserBoardSizes(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)
	b.do("a 1280×900 window", chromedp.EmulateViewport(1280, 900))
	var prev float64
	for _, n := range []int{13, 14, 15, 16} {
		b.open(fmt.Sprintf("/?n=%d&backend=sat", n))
		side := eval[float64](b, `document.getElementById("cell-a1").getBoundingClientRect().width`)
		bottom := eval[float64](b, `document.querySelector(".board").getBoundingClientRect().bottom + scrollY`)
		if prev > 0 && side > prev+0.5 {
			t.Errorf("%d×%d: squares of %.1f px, larger than the size below's %.1f px", n, n, side, prev)
		}
		if h := eval[float64](b, `innerHeight`); n >= 14 && bottom > h {
			t.Errorf("%d×%d: the board ends at %.0f px, below the %.0f px window", n, n, bottom, h)
		}
		prev = side
	}
}
