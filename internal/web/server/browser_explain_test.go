package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserExplain: every reason of a blocked square, each marking its
// queens, and Make room taking back the fewest; Escape and Back closing
// the panel without taking a queen back, the focus back on the square;
// the panel in view on a phone; clicks made while a step is in flight all
// applied; Undo, Redo and the list of steps; what a step changed.
func TestBrowserExplain(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	t.Run("two reasons for d7, then make room", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1,b5")
		b.clickCSS(sq("d7"))
		if n := eval[int](b, `document.querySelectorAll("#reasons li.reason").length`); n != 2 {
			t.Fatalf("%d reasons shown for d7, want 2\n%s", n, b.dump())
		}
		want := []string{"You selected “a1”", "You selected “b5”"}
		for i, w := range want {
			if got := strings.TrimSpace(b.text("#reasons li.reason:nth-child(" + string(rune('1'+i)) + ") .reason-text")); got != w {
				t.Errorf("reason %d = %q, want %q", i+1, got, w)
			}
		}
		// Pointing at a reason marks its queen alone.
		b.do("point at reason 2", chromedp.Evaluate[chromedp.Void](`document.querySelector("#reasons li.reason:nth-child(2)").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`))
		a1 := eval[string](b, `document.querySelector('`+sq("a1")+`').className`)
		b5 := eval[string](b, `document.querySelector('`+sq("b5")+`').className`)
		if strings.Contains(a1, "because") || !strings.Contains(b5, "because") {
			t.Errorf("pointing at reason 2: a1 %q, b5 %q; want b5 marked alone", a1, b5)
		}
		if got := b.text("#make-room"); got != "Make room: undo +a1, +b5" {
			t.Errorf("Make room says %q, want one queen of each reason", got)
		}
		b.screenshot("explain-room.png")
		b.click("make-room")
		if got := b.location(); got != "/?model=queens-8" {
			t.Errorf("after Make room the address is %q", got)
		}
		if got := b.text("#changed"); !strings.HasPrefix(got, "make room for d7 freed ") {
			t.Errorf("the step's changes say %q", got)
		}
	})

	t.Run("escape closes the panel and focus returns to the square", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1")
		before := b.location()
		b.do("focus c2", chromedp.Focus(chromedp.CSS(sq("c2"))))
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("enter on c2", chromedp.KeyEvent(kb.Enter))
		b.wait("the panel opens", settled+` && !!document.getElementById("panel")`)
		if got := eval[string](b, `document.activeElement.id`); got != "panel" {
			t.Errorf("after Enter on c2 focus is on %q, want the panel", got)
		}
		// One Tab from the panel reaches its first reason.
		b.do("tab", chromedp.KeyEvent(kb.Tab))
		if got := eval[string](b, `document.activeElement.className`); !strings.HasPrefix(got, "reason") {
			t.Errorf("one Tab after the panel reaches %q, want its first reason", got)
		}
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("escape", chromedp.KeyEvent(kb.Escape))
		b.wait("the panel closes", settled+` && !document.getElementById("panel")`)
		if got := eval[string](b, `document.activeElement.dataset.name || document.activeElement.id`); got != "c2" {
			t.Errorf("after Escape focus is on %q, want c2", got)
		}
		if got := b.location(); got != before {
			t.Errorf("after Escape the address is %q, want %q", got, before)
		}
		if got := b.text("#count"); got != "4 configurations" {
			t.Errorf("after Escape: %q, want the board of a1 (4 configurations)", got)
		}
	})

	t.Run("back with a panel open closes the panel", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8")
		b.clickCSS(sq("a1"))
		b.clickCSS(sq("b2"))
		if b.text("#panel-h") == "" {
			t.Fatalf("no panel after clicking the blocked b2\n%s", b.dump())
		}
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("back", chromedp.Evaluate[chromedp.Void](`history.back()`))
		b.wait("the panel closes", settled+` && !document.getElementById("panel")`)
		if got, loc := b.text("#count"), b.location(); got != "4 configurations" || loc != "/?model=queens-8&select=a1" {
			t.Errorf("after Back: %q at %q, want a1's board (4 configurations) still there", got, loc)
		}
		// The next Back takes a1 back.
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("back again", chromedp.Evaluate[chromedp.Void](`history.back()`))
		b.wait("a1 is taken back", settled+` && document.getElementById("count") && document.getElementById("count").textContent === "92 configurations"`)
	})

	t.Run("the panel comes into view on a phone", func(t *testing.T) {
		b.t = t
		b.do("375 px", chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2)))
		defer b.do("back to the desktop", chromedp.EmulateViewport(1280, 900))
		b.open("/?model=queens-8&select=a1")
		b.clickCSS(sq("c2"))
		b.wait("the panel is in view", `(function () {
			var r = document.getElementById("panel").getBoundingClientRect();
			return r.top >= 0 && r.top < innerHeight - 100;
		})()`)
		b.screenshot("explain-phone.png")
	})

	t.Run("two clicks 50 ms apart are both applied", func(t *testing.T) {
		b := newBrowser(t, ts.URL)
		// The answers of the steps are held half a second, as a slow
		// backend's would be, so that the second click comes while the
		// first is in flight; c1 and f2 do not attack each other and some
		// solution holds both.
		b.open("/?model=queens-16&backend=sat")
		b.holdAnswers(500 * time.Millisecond)
		b.do("two clicks", chromedp.Evaluate[chromedp.Void](`window.secondInFlight = null;
			document.querySelector('`+sq("c1")+`').click();
			setTimeout(function () {
				window.secondInFlight = !!document.querySelector(".htmx-request");
				document.querySelector('`+sq("f2")+`').click();
			}, 50);`))
		b.wait("both queens placed", `location.search.indexOf("select=c1,f2") >= 0 && !document.querySelector(".htmx-request")`)
		for _, name := range []string{"c1", "f2"} {
			if c := eval[string](b, `document.querySelector('`+sq(name)+`').className`); !strings.Contains(c, "queen") {
				t.Errorf("after two quick clicks %s has class %q", name, c)
			}
		}
		if !eval[bool](b, `window.secondInFlight === true`) {
			t.Errorf("the first step had ended before the second click: the queue was not exercised")
		}
		if errs := b.consoleErrors(); len(errs) > 0 {
			t.Errorf("console errors: %q", errs)
		}
	})

	t.Run("undo, redo and the list of steps", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8")
		b.clickCSS(sq("a1"))
		b.clickCSS(sq("e2"))
		steps := func() string {
			return eval[string](b, `Array.from(document.querySelectorAll("#steps-list li a"), s => s.textContent + (s.getAttribute("aria-current") ? "*" : "")).join(" | ")`)
		}
		if got := steps(); got != "open | +a1 | +e2*" {
			t.Fatalf("steps %q\n%s", got, b.dump())
		}
		// move runs a step through the history and waits for its board.
		move := func(what, sel, count, loc string) {
			b.t.Helper()
			b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
			b.do(what, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
			b.wait(what+" shows its board", settled+` && document.getElementById("count").textContent === "`+count+`"`)
			if got := b.location(); got != loc {
				t.Errorf("%s: address %q, want %q", what, got, loc)
			}
		}
		move("undo", "#history-undo", "4 configurations", "/?model=queens-8&select=a1")
		if got := steps(); got != "open | +a1* | +e2" {
			t.Errorf("after undo: steps %q", got)
		}
		move("redo", "#history-redo", "1 configuration", "/?model=queens-8&select=a1,e2")
		b.do("open the list of steps", chromedp.Evaluate[chromedp.Void](`document.getElementById("steps-list").open = true`))
		move("jump to the first step", "#steps-list li:first-child a", "92 configurations", "/?model=queens-8")
		if got := steps(); got != "open* | +a1 | +e2" {
			t.Errorf("after the jump: steps %q", got)
		}
		// A new step from an earlier board drops the steps undone.
		b.clickCSS(sq("b1"))
		if got := steps(); got != "open | +b1*" {
			t.Errorf("after a new step: steps %q", got)
		}
	})

	t.Run("what a step forced and freed is said", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&select=a1")
		b.clickCSS(sq("e2")) // leaves one solution: every other square decided
		if got := b.text("#changed"); !strings.HasPrefix(got, "+e2 forced on 6 squares: ") || !strings.Contains(got, "forced off 15 squares: ") {
			t.Errorf("the step's changes say %q", got)
		}
		// Each square it names asks why.
		b.clickCSS(`#changed a[title="Why is h3 forced on?"]`)
		if got := b.text("#panel-h"); got != "Why is “h3” forced on?" {
			t.Errorf("the changes' h3 opens %q", got)
		}
		b.clickCSS(sq("e2")) // takes e2 back
		if got := b.text("#changed"); !strings.HasPrefix(got, "undo e2 freed 21 squares: ") {
			t.Errorf("taking e2 back says %q", got)
		}
	})

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
