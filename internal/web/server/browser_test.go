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

// sq is the CSS selector of a board's square on the one page.
func sq(name string) string { return `#fgrid button[data-name="` + name + `"]` }

// TestBrowser is a person at the one page with a board: placing queens
// and seeing what they force, taking them back through the history, the
// size menu, Why? and Make room, Complete, the backends, the keyboard, a
// refusal, the diagram, a phone and large boards.
func TestBrowser(t *testing.T) {
	cfg := testConfig()
	_, ts := newTestServer(t, cfg)
	b := newBrowser(t, ts.URL)

	t.Run("place queens, see blocked and forced squares", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8")
		if got := b.text("#count"); got != "92 configurations" {
			t.Fatalf("a fresh 8×8 board says %q, want 92 configurations", got)
		}
		b.clickCSS(sq("a1"))
		if got := b.text("#count"); got != "4 configurations" {
			t.Fatalf("after a1: %q, want 4 configurations", got)
		}
		if got := b.location(); got != "/?model=queens-8&select=a1" {
			t.Errorf("address after a1 = %q", got)
		}
		if c := eval[string](b, `document.querySelector('`+sq("a1")+`').className`); !strings.Contains(c, "queen") {
			t.Errorf("after a1, a1 has class %q", c)
		}
		if label := eval[string](b, `document.querySelector('`+sq("b2")+`').getAttribute("aria-label")`); label != "b2, forced off" {
			t.Errorf("b2 label %q", label)
		}
		b.clickCSS(sq("e2"))
		if got := b.text("#count"); got != "1 configuration" {
			t.Fatalf("after a1, e2: %q", got)
		}
		forced := eval[[]string](b, `[...document.querySelectorAll("#fgrid button.forced")].map(e => e.dataset.name + " " + e.title)`)
		if len(forced) != 6 {
			t.Fatalf("a1, e2 force the other 6 queens; the page shows %d forced: %q", len(forced), forced)
		}
		for _, f := range forced {
			if !strings.Contains(f, "forced on") {
				t.Errorf("forced square's tooltip %q does not say forced on", f)
			}
		}
		if got := b.text("#changed"); !strings.HasPrefix(got, "+e2 forced on 6 squares: ") {
			t.Errorf("the step's changes say %q", got)
		}
		b.screenshot("board-8x8-forced.png")
	})

	t.Run("take a queen back, Back restores it, Forward takes it back again", func(t *testing.T) {
		b.t = t
		b.clickCSS(sq("e2")) // a queen of yours: takes it back
		if got := b.text("#count"); got != "4 configurations" {
			t.Fatalf("after taking e2 back: %q", got)
		}
		if c := eval[string](b, `document.querySelector('`+sq("e2")+`').className`); !strings.Contains(c, "free") {
			t.Errorf("after taking e2 back, e2 has class %q", c)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("back", chromedp.NavigateBack())
		b.wait("back shows a1, e2 again", settled+` && document.querySelector("#count").textContent === "1 configuration"`)
		if c := eval[string](b, `document.querySelector('`+sq("e2")+`').className`); !strings.Contains(c, "queen") {
			t.Errorf("after Back, e2 has class %q", c)
		}
		if got := b.location(); got != "/?model=queens-8&select=a1,e2" {
			t.Errorf("after back the address is %q", got)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("forward", chromedp.NavigateForward())
		b.wait("forward takes e2 back again", settled+` && document.querySelector("#count").textContent === "4 configurations"`)
	})

	t.Run("the tab title follows the board, also after a size chosen and Back", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8")
		for _, step := range []struct {
			what, action, want string
		}{
			{"on load", "", "8-queens · BDD/SAT configurator"},
			{"after choosing 6×6", `(() => { const s = document.getElementById("size"); s.value = "queens-6"; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, "6-queens · BDD/SAT configurator"},
			{"after Back", "back", "8-queens · BDD/SAT configurator"},
		} {
			switch step.action {
			case "":
			case "back":
				b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
				b.do(step.what, chromedp.NavigateBack())
				b.wait(step.what, settled+` && document.title === "`+step.want+`"`)
			default:
				b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
				b.do(step.what, chromedp.Evaluate[chromedp.Void](step.action))
				b.wait(step.what, settled+` && document.title === "`+step.want+`"`)
			}
			if got := eval[string](b, `document.title`); got != step.want {
				t.Errorf("%s the tab title is %q, want %q", step.what, got, step.want)
			}
		}
		if got := b.location(); got != "/?model=queens-8" {
			t.Errorf("after Back the address is %q", got)
		}
	})

	t.Run("Why? marks the queens responsible", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1")
		b.clickCSS(sq("b2")) // forced off: asks why
		if got := b.text("#panel-h"); got != "Why is “b2” forced off?" {
			t.Fatalf("panel title %q", got)
		}
		if got := b.text("#panel-text"); !strings.HasPrefix(got, "1 reason, ") {
			t.Errorf("panel text %q", got)
		}
		if got := b.text("#announce"); !strings.HasPrefix(got, "4 configurations. Why is “b2” forced off? 1 reason, ") {
			t.Errorf("the screen-reader announcement is %q", got)
		}
		if got := b.location(); got != "/?model=queens-8&select=a1&why=b2" {
			t.Errorf("address with Why? open: %q", got)
		}
		// A reason, pointed at, marks its queens on the board, and no
		// more once the pointer leaves.
		b.do("point at the reason", chromedp.Evaluate[chromedp.Void](`document.querySelector("#reasons li.reason").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`))
		if c := eval[string](b, `document.querySelector('`+sq("a1")+`').className`); !strings.Contains(c, "because") {
			t.Errorf("pointing at the reason: a1 has class %q", c)
		}
		b.do("leave the reason", chromedp.Evaluate[chromedp.Void](`document.querySelector("#reasons li.reason").dispatchEvent(new MouseEvent("mouseout", {bubbles: true, relatedTarget: document.body}))`))
		if n := eval[int](b, `document.querySelectorAll("#fgrid .because").length`); n != 0 {
			t.Errorf("after leaving the reason, %d squares stay marked", n)
		}
		// c2 is attacked by nothing, yet no configuration holds a1 and
		// c2: the board's proof says why.
		b.clickCSS(sq("c2"))
		if got := b.text("#panel-h"); got != "Why is “c2” forced off?" {
			t.Errorf("why c2: %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("#reasons details.proof ol.steps li").length`); n == 0 {
			t.Errorf("why c2: no proof")
		}
	})

	t.Run("Make room takes back the queens that free a square", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1,g2")
		b.clickCSS(sq("e2")) // forced off: attacked by g2, and a1 and e2 share a configuration
		if got := b.text("#make-room"); got != "Make room: undo +g2" {
			t.Fatalf("Make room says %q", got)
		}
		b.click("make-room")
		if c := eval[string](b, `document.querySelector('`+sq("g2")+`').className`); strings.Contains(c, "queen") {
			t.Errorf("g2 is still a queen after Make room")
		}
		if c := eval[string](b, `document.querySelector('`+sq("e2")+`').className`); !strings.Contains(c, "free") {
			t.Errorf("after Make room, e2 has class %q", c)
		}
		if got := b.location(); got != "/?model=queens-8&select=a1" {
			t.Errorf("address after Make room %q", got)
		}
		if got := b.text("#changed"); !strings.HasPrefix(got, "make room for e2 freed ") {
			t.Errorf("the step's changes say %q", got)
		}
	})

	t.Run("Complete fills in a configuration", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1")
		b.do("ask for the fewest features", chromedp.Click(chromedp.CSS(`#complete a[href*="how=fewest"]`), chromedp.NodeVisible))
		b.wait("the completion", `document.getElementById("completion-result")`)
		if got := b.text("#completion-result .completion-head"); got != "Fewest features: 8 of 64 features selected" {
			t.Errorf("the completion says %q", got)
		}
		b.click("apply-completion")
		if got := b.text("#count"); got != "1 configuration" {
			t.Fatalf("after completing: %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("#fgrid button.queen").length`); n != 8 {
			t.Errorf("complete left %d queens", n)
		}
		if !strings.HasPrefix(b.location(), "/?model=queens-8&select=a1,") {
			t.Errorf("address after complete %q", b.location())
		}
	})

	t.Run("switch to SAT, then Both", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1,g2")
		b.clickCSS(`.modes a[title^="SAT"]`)
		if got := b.location(); got != "/?model=queens-8&select=a1,g2&backend=sat" {
			t.Errorf("address on SAT %q", got)
		}
		if got := b.text("#count"); got != "2 configurations" {
			t.Errorf("SAT counts %q, want 2 configurations", got)
		}
		if got := b.text("#questions thead"); !strings.Contains(got, "SAT") || strings.Contains(got, "BDD") {
			t.Errorf("timing columns on SAT: %q", got)
		}
		if got := b.text("#share-note"); !strings.Contains(got, "needs a backend that counts them for every feature (the BDD)") {
			t.Errorf("no shares on SAT, and the page says %q", got)
		}
		b.clickCSS(`.modes a[title^="Every backend"]`)
		if got := b.text("#agreement"); !strings.Contains(got, "BDD and SAT agree on every feature") {
			t.Errorf("agreement badge %q", got)
		}
		if got := b.text("#questions thead"); !strings.Contains(got, "BDD") || !strings.Contains(got, "SAT") {
			t.Errorf("timing columns on Both: %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("#fgrid.heat button .pct").length`); n == 0 {
			t.Errorf("Both shows no shares")
		}
		b.clickCSS(`#fgrid button.free`)
		if n := eval[int](b, `document.querySelectorAll("#session-chart polyline").length`); n != 2 {
			t.Errorf("the chart of the last steps has %d lines, want one per backend", n)
		}
		b.screenshot("board-8x8.png")
	})

	t.Run("keyboard: arrows move, Enter places, Space takes back", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8")
		b.do("focus a1", chromedp.Focus(chromedp.CSS(sq("a1"))))
		b.do("right, up", chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowUp))
		if got := eval[string](b, `document.activeElement.dataset.name`); got != "b2" {
			t.Fatalf("after right and up the focus is on %q, want b2", got)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("enter", chromedp.KeyEvent(kb.Enter))
		b.wait("b2 placed", settled+` && document.querySelector('`+sq("b2")+`').classList.contains("queen")`)
		if got := eval[string](b, `document.activeElement.dataset.name`); got != "b2" {
			t.Errorf("after placing, the focus is on %q, want b2", got)
		}
		b.do("mark", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("space", chromedp.KeyEvent(" "))
		b.wait("b2 taken back", settled+` && document.querySelector('`+sq("b2")+`').classList.contains("free")`)
	})

	t.Run("a refused step leaves the board and says why", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1")
		b.do("a forged request to place on b2", chromedp.Evaluate[chromedp.Void](`htmx.ajax("GET", "/?model=queens-8&select=a1&square=b2", {target: "#app", swap: "morph"})`))
		b.wait("the notice", `document.querySelector("#notice .notice")`)
		if got := b.text("#notice p"); got != "No configuration keeps +a1, +b2: diagonal a1-h8: at most one of a1, b2, c3, d4, e5, f6, g7, h8." {
			t.Errorf("notice %q", got)
		}
		if c := eval[string](b, `document.querySelector('`+sq("a1")+`').className`); !strings.Contains(c, "queen") {
			t.Errorf("after the refused step, a1 has class %q", c)
		}
	})

	t.Run("the diagram of a small board, and the board, light each other", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-6&diagram=1")
		b.drawn("the 6×6 rank view", -1)
		if s := b.text("#dg-status"); !strings.Contains(s, "4 solutions") {
			t.Errorf("status %q", s)
		}
		b.hover(`#dg-stage .dg-node.dg-root`)
		if got := eval[string](b, `[...document.querySelectorAll("#fgrid button.dg-lit")].map(x => x.dataset.name).join(",")`); got != "b1,c1,d1,e1" {
			t.Errorf("pointing at the root lights the squares %q, want the four of rank 1 that some solution uses", got)
		}
		b.hover(sq("b4"))
		if lit := eval[int](b, `document.querySelectorAll("#dg-stage .dg-lit").length`); lit == 0 {
			t.Errorf("pointing at b4, a square of a solution, lights nothing of the diagram")
		}
		b.screenshot("diagram.png")
	})

	t.Run("a phone", func(t *testing.T) {
		b.t = t
		b.do("375 px", chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2)))
		b.open("/?model=queens-8&select=a1,g2&backend=both")
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
			{ts.URL, "/?model=queens-12&select=a1,c2,e3&backend=sat", 1280},
			{ts.URL, "/?model=queens-12&select=a1,c2,e3&backend=sat", 375},
			{ts.URL, "/?model=queens-16&select=a1,c2,e3&backend=sat", 1280},
			{ts.URL, "/?model=queens-16&select=a1,c2,e3&backend=sat", 375},
			{wide.URL, "/?model=queens-32&select=a1,c2,e3&backend=sat", 1280},
			{wide.URL, "/?model=queens-32&select=a1,c2,e3&backend=sat", 375},
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
// quick wait: the page says so and asks again by itself, and the board's
// own backend answers it when its compile ends.
func TestBrowserProgress(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 11
	// Long enough for a compile to begin while the page waits (a compile
	// begins only while a request waits for it), far shorter than the
	// 11×11 BDD's.
	cfg.QuickWait = 20 * time.Millisecond
	_, ts := newTestServer(t, cfg)
	b := newBrowser(t, ts.URL)
	b.open("/?model=queens-11&backend=bdd")
	if !eval[bool](b, `!!document.getElementById("poll")`) {
		t.Logf("the 11×11 BDD was ready within the quick wait: the page never waited")
	}
	b.wait("the BDD's board arrives", `document.querySelector("#count") && document.querySelector("#count").textContent === "2,680 configurations" && !document.getElementById("poll") && /^BDD: /.test(document.querySelector("#compiles li").textContent)`)
	if got := b.location(); got != "/?model=queens-11&backend=bdd" {
		t.Errorf("address %q", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
