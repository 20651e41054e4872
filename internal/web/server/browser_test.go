package server

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The browser tests drive Debian's chromium, headless, against the real
// server on a loopback port: everything a person does on the page, with
// the screenshots the project keeps under screenshots/ (git-ignored).

// screenshotDir is where the browser tests save their screenshots.
var screenshotDir = filepath.Join("..", "..", "..", "screenshots")

// browser is a headless chromium tab and the messages its console printed.
type browser struct {
	t       *testing.T
	ctx     context.Context
	base    string
	mu      sync.Mutex
	console []string
}

// newBrowser starts chromium with a fresh profile, or skips the test, loudly,
// when there is none, or with -short: make test runs the browser tests in
// its pass without the race detector, and its race pass with -short, as
// chromium's requests race nothing the server's own concurrent tests do
// not and a race build's slower answers only stretch the browser's waits.
func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	if testing.Short() {
		t.Skip("drives chromium: not with -short")
	}
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("\n\n*** SKIPPING THE BROWSER TESTS: chromium is not installed. ***\n" +
			"*** Install it with `apt-get install -y chromium` (make test does it as root). ***\n\n")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, base: base}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.mu.Lock()
			b.console = append(b.console, fmt.Sprintf("%s: %s", m.Type, m.Text))
			b.mu.Unlock()
		}
	}()
	return b
}

// do runs actions with a deadline.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v\n%s", what, err, b.dump())
	}
}

// open navigates to a path of the server and waits for the board.
func (b *browser) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.ID("app")))
}

// wait polls a JavaScript condition until it holds.
func (b *browser) wait(what, cond string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		b.t.Fatalf("waiting until %s (%s): %v\n%s", what, cond, err, b.dump())
	}
}

// eval evaluates a JavaScript expression.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text is the trimmed text of the first element matching a CSS selector.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel))
}

// click clicks an element by id and waits until the page has swapped in
// htmx's answer (the app's marker changes).
func (b *browser) click(id string) {
	b.t.Helper()
	b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
	b.do("click #"+id, chromedp.Click(chromedp.ID(id), chromedp.NodeVisible))
	b.wait("the answer to the click on #"+id+" is swapped in", settled)
}

// clickCSS is click for an element found by a CSS selector.
func (b *browser) clickCSS(sel string) {
	b.t.Helper()
	b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
	b.do("click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
	b.wait("the answer to the click on "+sel+" is swapped in", settled)
}

// settled holds when htmx has swapped in a new app and finished settling
// it (during the settle, htmx briefly gives the new elements the old ones'
// attributes).
const settled = `document.getElementById("app") && !document.getElementById("app").dataset.stale && !document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")`

// class is the class attribute of an element.
func (b *browser) class(id string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf(`(document.getElementById(%q)||{}).className||""`, id))
}

// wantClass reports an error unless the class of the element id contains
// want; when says at which step.
func (b *browser) wantClass(id, want, when string) {
	b.t.Helper()
	if c := b.class(id); !strings.Contains(c, want) {
		b.t.Errorf("%s: %s has class %q, want %q", when, id, c, want)
	}
}

// location is the address the browser shows, without scheme and host.
func (b *browser) location() string {
	b.t.Helper()
	return strings.TrimPrefix(eval[string](b, `location.href`), b.base)
}

// screenshot saves a PNG of the page under screenshots/ and checks that it
// decodes as a non-empty, non-blank image.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		b.t.Fatalf("screenshot %s does not decode as PNG: %v", name, err)
	}
	checkImage(b.t, name, img)
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(screenshotDir, name)
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("saved %s (%dx%d)", path, img.Bounds().Dx(), img.Bounds().Dy())
}

// checkImage fails unless img has a size and more than a handful of colours.
func checkImage(t *testing.T, name string, img image.Image) {
	t.Helper()
	r := img.Bounds()
	if r.Dx() < 300 || r.Dy() < 300 {
		t.Fatalf("screenshot %s is %dx%d", name, r.Dx(), r.Dy())
	}
	colours := map[[3]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 7 {
		for x := r.Min.X; x < r.Max.X; x += 7 {
			c1, c2, c3, _ := img.At(x, y).RGBA()
			colours[[3]uint32{c1 >> 8, c2 >> 8, c3 >> 8}] = true
		}
	}
	if len(colours) < 8 {
		t.Fatalf("screenshot %s is nearly blank: %d colours", name, len(colours))
	}
}

// dump is the console and the app's HTML, for failure messages.
func (b *browser) dump() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("main")||document.body).outerHTML.slice(0, 4000)`))
	return "console:\n  " + strings.Join(b.console, "\n  ") + "\npage:\n" + html
}

// consoleErrors are the console's errors and exceptions so far; a CSP
// violation or a failed request shows there.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []string
	for _, m := range b.console {
		// The refusals the tests provoke on purpose are 4xx answers, which
		// the browser and htmx log; anything else is a fault.
		expected := strings.Contains(m, "the server responded with a status of 4") || strings.Contains(m, "Response Status Error Code 4")
		if (strings.HasPrefix(m, "error:") || strings.HasPrefix(m, "exception:")) && !expected {
			errs = append(errs, m)
		}
	}
	return errs
}

func TestBrowser(t *testing.T) {
	cfg := testConfig()
	_, ts := newTestServer(t, cfg)
	b := newBrowser(t, ts.URL)

	t.Run("place queens, see blocked and forced squares", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&backend=bdd")
		if got := b.text("#count"); got != "92 solutions" {
			t.Fatalf("fresh 8×8 board says %q, want 92 solutions", got)
		}
		b.click("cell-a1")
		if got := b.text("#count"); got != "4 solutions" {
			t.Fatalf("after a1: %q, want 4 solutions", got)
		}
		if got := b.location(); got != "/?n=8&q=a1&backend=bdd" {
			t.Errorf("address after a1 = %q", got)
		}
		b.wantClass("cell-a1", "queen", "after a1")
		label := eval[string](b, `document.getElementById("cell-b2").getAttribute("aria-label")`)
		if label != "b2, blocked: attacked by a1" {
			t.Errorf("b2 label %q", label)
		}
		b.click("cell-e2")
		if got := b.text("#count"); got != "1 solution: complete it?" {
			t.Fatalf("after a1, e2: %q", got)
		}
		forced := eval[[]string](b, `[...document.querySelectorAll("button.forced")].map(e => e.dataset.cell + " " + e.title)`)
		if len(forced) != 6 {
			t.Fatalf("a1, e2 force the other 6 queens; the page shows %d forced: %q", len(forced), forced)
		}
		for _, f := range forced {
			if !strings.Contains(f, "forced") {
				t.Errorf("forced square's tooltip %q does not say forced", f)
			}
		}
		b.screenshot("board-8x8-forced.png")
	})

	t.Run("remove a queen, back restores it, forward removes it again", func(t *testing.T) {
		b.t = t
		b.click("cell-e2") // a user queen: removes it
		if got := b.text("#count"); got != "4 solutions" {
			t.Fatalf("after removing e2: %q", got)
		}
		b.wantClass("cell-e2", "free", "after removal")
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("back", chromedp.NavigateBack())
		b.wait("back shows a1, e2 again", settled+` && document.querySelector("#count").textContent === "1 solution: complete it?"`)
		b.wantClass("cell-e2", "queen", "after back")
		if got := b.location(); got != "/?n=8&q=a1,e2&backend=bdd" {
			t.Errorf("after back the address is %q", got)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("forward", chromedp.NavigateForward())
		b.wait("forward removes e2 again", settled+` && document.querySelector("#count").textContent === "4 solutions"`)
	})

	t.Run("the tab title follows the board, also after a swap and Back", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&backend=bdd")
		for _, step := range []struct {
			what, action, want string
		}{
			{"on load", "", "8×8 · BDD/SAT configurator"},
			{"after choosing 6×6", `(() => { const s = document.getElementById("size"); s.value = "6"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, "6×6 · BDD/SAT configurator"},
			{"after Back", "history.back()", "8×8 · BDD/SAT configurator"},
		} {
			if step.action != "" {
				b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
				b.do(step.what, chromedp.Evaluate[chromedp.Void](step.action))
				b.wait(step.what, settled+` && document.title === "`+step.want+`"`)
			}
			if got := eval[string](b, `document.title`); got != step.want {
				t.Errorf("%s the tab title is %q, want %q", step.what, got, step.want)
			}
		}
	})

	t.Run("Why? highlights the queens responsible", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		b.click("cell-b2") // blocked: asks why
		if got := b.text("#panel-h"); got != "Why is b2 blocked?" {
			t.Fatalf("panel title %q", got)
		}
		if got := b.text("#panel-text"); got != "Attacked by a1." {
			t.Errorf("panel text %q", got)
		}
		if got := b.text("#announce"); got != "4 solutions. Why is b2 blocked? Attacked by a1." {
			t.Errorf("the screen-reader announcement is %q", got)
		}
		b.wantClass("cell-a1", "because", "why b2")
		// c2 is attacked by nothing, yet no solution holds a1 and c2.
		b.click("cell-c2")
		if got := b.text("#panel-text"); !strings.HasPrefix(got, "No solution holds queens on a1 and here.") {
			t.Errorf("why c2: %q", got)
		}
		b.wantClass("cell-a1", "because", "why c2")
	})

	t.Run("Make room shows the queens that go, then removes them", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1,g2&backend=bdd")
		b.click("cell-e2") // blocked: attacked by g2, and a1 and e2 share a solution
		b.clickCSS(`#panel a[title^="Show the fewest"]`)
		if got := b.text("#panel-h"); got != "Make room on e2" {
			t.Fatalf("panel title %q", got)
		}
		if got := b.text("#panel-text"); got != "Removing the queen on g2 frees e2; no smaller set of your queens does." {
			t.Errorf("make room says %q", got)
		}
		gone := eval[[]string](b, `[...document.querySelectorAll("button.gone")].map(e => e.dataset.cell)`)
		if len(gone) != 1 || gone[0] != "g2" {
			t.Fatalf("make room on e2 marks %q to remove, want g2\n%s", gone, b.dump())
		}
		b.clickCSS(`#panel .panel-actions a:first-child`)
		if c := b.class("cell-g2"); strings.Contains(c, "queen") {
			t.Errorf("g2 is still a queen after make room")
		}
		b.wantClass("cell-e2", "free", "after make room")
		if got := b.location(); got != "/?n=8&q=a1&backend=bdd" {
			t.Errorf("address after make room %q", got)
		}
	})

	t.Run("Complete fills in a solution", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		b.click("complete")
		if got := b.text("#count"); got != "Solved: a complete solution, one of 92" {
			t.Fatalf("after complete: %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("button.queen").length`); n != 8 {
			t.Errorf("complete left %d queens", n)
		}
		if !strings.HasPrefix(b.location(), "/?n=8&q=a1,") {
			t.Errorf("address after complete %q", b.location())
		}
	})

	t.Run("switch to SAT, then Both", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1,g2&backend=bdd")
		b.clickCSS(`.modes a[title^="SAT"]`)
		if got := b.location(); got != "/?n=8&q=a1,g2&backend=sat" {
			t.Errorf("address on SAT %q", got)
		}
		if got := b.text("#count"); got != "2 solutions" {
			t.Errorf("SAT counts %q, want 2 solutions", got)
		}
		if got := b.text("#steps thead"); !strings.Contains(got, "SAT") || strings.Contains(got, "BDD") {
			t.Errorf("timing columns on SAT: %q", got)
		}
		b.click("heat-toggle")
		if got := b.text("#heat-reason"); !strings.Contains(got, "only the BDD backend counts") {
			t.Errorf("heat map on SAT: %q", got)
		}
		b.clickCSS(`.modes a[title^="Run both"]`)
		if got := b.text("#agreement"); !strings.Contains(got, "BDD and SAT agree on every square") {
			t.Errorf("agreement badge %q", got)
		}
		if got := b.text("#steps thead"); !strings.Contains(got, "BDD") || !strings.Contains(got, "SAT") {
			t.Errorf("timing columns on Both: %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("#steps tbody tr").length`); n < 2 {
			t.Errorf("the timing panel shows %d steps, want the last few", n)
		}
		if n := eval[int](b, `document.querySelectorAll(".board.heat button.heat-0, .board.heat button.heat-9, .board.heat button[class*=heat-]").length`); n == 0 {
			t.Errorf("Both shows no heat map")
		}
		b.click("cell-f3")
		b.screenshot("board-8x8.png")
	})

	t.Run("keyboard: arrows move, Enter places and removes", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&backend=bdd")
		b.do("focus a1", chromedp.Focus(chromedp.ID("cell-a1")))
		b.do("right, up", chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowUp))
		if got := eval[string](b, `document.activeElement.dataset.cell`); got != "b2" {
			t.Fatalf("after right and up the focus is on %q, want b2", got)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("enter", chromedp.KeyEvent(kb.Enter))
		b.wait("b2 placed", settled+` && document.getElementById("cell-b2").classList.contains("queen")`)
		if got := eval[string](b, `document.activeElement.dataset.cell`); got != "b2" {
			t.Errorf("after placing, the focus is on %q, want b2", got)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("space", chromedp.KeyEvent(" "))
		b.wait("b2 removed", settled+` && document.getElementById("cell-b2").classList.contains("free")`)
	})

	t.Run("a refused move leaves the board and says why", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		b.do("a forged request to place on b2", chromedp.Evaluate[chromedp.Void](`htmx.ajax("GET", "/play?n=8&q=a1&backend=bdd&place=b2", {target: "#app", swap: "outerHTML"})`))
		b.wait("the notice", `document.querySelector("#notice .notice")`)
		if got := b.text("#notice p"); got != "b2 is blocked: attacked by a1." {
			t.Errorf("notice %q", got)
		}
		b.wantClass("cell-a1", "queen", "after the refused move")
	})

	t.Run("the diagram of a small board", func(t *testing.T) {
		b.t = t
		b.open("/?n=6&backend=bdd&diagram=1")
		b.drawn("the diagram viewer", 22) // the rank view of 6×6
		b.screenshot("diagram.png")
	})

	t.Run("a phone", func(t *testing.T) {
		b.t = t
		b.do("375 px", chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2)))
		b.open("/?n=8&q=a1,g2&backend=both&heat=1")
		width := eval[int](b, `document.documentElement.scrollWidth`)
		if width > 375 {
			t.Errorf("the page is %d px wide on a 375 px phone", width)
		}
		b.screenshot("phone.png")
		b.do("back to the desktop", chromedp.EmulateViewport(1280, 900))
	})

	t.Run("blocked and free squares read apart on large boards, and file letters do not run together", func(t *testing.T) {
		b.t = t
		big := testConfig()
		big.SAT.MaxN = 32
		_, wide := newTestServer(t, big)
		// contrast is the smallest luminance ratio between a free square
		// and a blocked one (WCAG's formula on the computed fills).
		const contrast = `(() => {
			const lum = el => {
				const [r, g, b] = getComputedStyle(el).backgroundColor.match(/[\d.]+/g).slice(0, 3).map(v => {
					v = v / 255;
					return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
				});
				return 0.2126 * r + 0.7152 * g + 0.0722 * b;
			};
			const free = [...document.querySelectorAll(".cell.free")].map(lum);
			const blocked = [...document.querySelectorAll(".cell.blocked")].map(lum);
			return (Math.min(...free) + 0.05) / (Math.max(...blocked) + 0.05);
		})()`
		// overlaps lists the neighbouring file labels whose letters touch.
		const overlaps = `(() => {
			const shown = [...document.querySelectorAll(".files th")].filter(th => getComputedStyle(th).visibility !== "hidden");
			const boxes = shown.map(th => { const r = document.createRange(); r.selectNodeContents(th); return [th.textContent, r.getBoundingClientRect()]; });
			const out = [];
			for (let i = 1; i < boxes.length; i++) {
				if (boxes[i][1].left < boxes[i-1][1].right + 1) { out.push(boxes[i-1][0] + "/" + boxes[i][0]); }
			}
			return out;
		})()`
		for _, tt := range []struct {
			base, path string
			width      int64
		}{
			{ts.URL, "/?n=12&q=a1,c2,e3&backend=sat", 1280},
			{ts.URL, "/?n=12&q=a1,c2,e3&backend=sat", 375},
			{ts.URL, "/?n=16&q=a1,c2,e3&backend=sat", 1280},
			{ts.URL, "/?n=16&q=a1,c2,e3&backend=sat", 375},
			{wide.URL, "/?n=32&q=a1,c2,e3&backend=sat", 1280},
			{wide.URL, "/?n=32&q=a1,c2,e3&backend=sat", 375},
		} {
			what := fmt.Sprintf("%s at %d px", tt.path, tt.width)
			b.do(what, chromedp.EmulateViewport(tt.width, 900), chromedp.Navigate(tt.base+tt.path), chromedp.WaitVisible(chromedp.ID("count")))
			if got := eval[float64](b, contrast); got < 1.3 {
				t.Errorf("%s: free squares are only %.2f times as light as blocked ones, want at least 1.3", what, got)
			}
			if got := eval[[]string](b, overlaps); len(got) > 0 {
				t.Errorf("%s: file labels run together: %q", what, got)
			}
			if tt.width == 375 {
				// Pinch-free on a phone: squares stay tappable, the board
				// scrolls in its frame and the page stays phone-wide.
				if got := eval[float64](b, `document.querySelector(".cell").getBoundingClientRect().width`); got < 22 {
					t.Errorf("%s: squares %.1f px wide, want at least 22", what, got)
				}
				if got := eval[int](b, `document.documentElement.scrollWidth`); got > 375 {
					t.Errorf("%s: the page is %d px wide", what, got)
				}
			}
		}
		b.do("back to the desktop", chromedp.EmulateViewport(1280, 900))
	})

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the console has errors (CSP violations, failed requests):\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserProgress opens a board whose compile outlasts the page's
// quick wait: the page shows progress, stays usable, and the board
// arrives by itself.
func TestBrowserProgress(t *testing.T) {
	cfg := testConfig()
	cfg.QuickWait = time.Nanosecond
	_, ts := newTestServer(t, cfg)
	b := newBrowser(t, ts.URL)
	b.open("/?n=10&backend=bdd")
	b.wait("the board arrives", `document.querySelector("#count") && document.querySelector("#count").textContent === "724 solutions"`)
	if got := b.location(); got != "/?n=10&backend=bdd" {
		t.Errorf("address %q", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
