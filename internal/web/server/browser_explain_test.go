package server

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserExplain: every reason of a blocked square, Make room saying
// which reason each removal breaks, Escape and Back closing the panel
// without undoing a queen, focus back on the square, the panel in view on
// a phone, and clicks made while a step is in flight all applied.
func TestBrowserExplain(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	t.Run("two reasons for d7, then make room", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1,b5&backend=bdd")
		b.click("cell-d7")
		if n := eval[int](b, `document.querySelectorAll("#reasons li.reason").length`); n != 2 {
			t.Fatalf("%d reasons shown for d7, want 2\n%s", n, b.dump())
		}
		want := []string{"Attacked by b5.", "No solution holds queens on a1 and here."}
		for i, w := range want {
			if got := strings.TrimSpace(b.text("#reasons li.reason:nth-child(" + string(rune('1'+i)) + ") .reason-text")); got != w {
				t.Errorf("reason %d = %q, want %q", i+1, got, w)
			}
		}
		b.wantClass("cell-a1", "because", "why d7")
		b.wantClass("cell-b5", "because", "why d7")
		// Hovering a reason marks its queens alone.
		b.do("hover reason 2", chromedp.Evaluate[chromedp.Void](`document.querySelector("#reasons li.reason:nth-child(2)").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`))
		if a1, b5 := b.class("cell-a1"), b.class("cell-b5"); !strings.Contains(a1, "reason-on") || strings.Contains(b5, "reason-on") {
			t.Errorf("hovering reason 2: a1 %q, b5 %q; want a1 marked alone", a1, b5)
		}
		b.clickCSS("#panel .panel-actions a.primary")
		if got := b.text("#panel-h"); got != "Make room on d7" {
			t.Fatalf("panel after Make room: %q", got)
		}
		if got := eval[string](b, `Array.from(document.querySelectorAll("#removes li"), li => li.textContent).join(" ")`); got != "Removing a1 breaks reason 2. Removing b5 breaks reason 1." {
			t.Errorf("removals: %q", got)
		}
		b.screenshot("explain-room.png")
	})

	t.Run("escape closes the panel and focus returns to the square", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		before := b.location()
		b.do("focus c2", chromedp.Focus(chromedp.ID("cell-c2")))
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("enter on c2", chromedp.KeyEvent(kb.Enter))
		b.wait("the panel opens", settled+` && !!document.getElementById("panel")`)
		if got := eval[string](b, `document.activeElement.id`); got != "cell-c2" {
			t.Errorf("after Enter on c2 focus is on %q, want cell-c2", got)
		}
		// One Tab from the square reaches the panel's first action.
		b.do("tab", chromedp.KeyEvent(kb.Tab))
		if got := eval[string](b, `document.activeElement.textContent`); got != "Make room" {
			t.Errorf("one Tab after the square reaches %q, want Make room", got)
		}
		b.do("escape", chromedp.KeyEvent(kb.Escape))
		b.wait("the panel closes", `!document.getElementById("panel")`)
		if got := eval[string](b, `document.activeElement.id`); got != "cell-c2" {
			t.Errorf("after Escape focus is on %q, want cell-c2", got)
		}
		if got := b.location(); got != before {
			t.Errorf("after Escape the address is %q, want %q", got, before)
		}
		if got := b.text("#count"); got != "4 solutions" {
			t.Errorf("after Escape: %q, want the board of a1 (4 solutions)", got)
		}
	})

	t.Run("a closed panel's entry is passed over", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		b.click("cell-c2")
		b.do("escape", chromedp.KeyEvent(kb.Escape))
		b.wait("the panel closes", `!document.getElementById("panel")`)
		b.do("forward onto the closed panel's entry", chromedp.Evaluate[chromedp.Void](`history.forward()`))
		time.Sleep(200 * time.Millisecond)
		b.click("cell-e2")
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("back", chromedp.Evaluate[chromedp.Void](`history.back()`))
		b.wait("a1's board again", settled+` && document.getElementById("count").textContent === "4 solutions"`)
		if got := b.location(); got != "/?n=8&q=a1&backend=bdd" {
			t.Errorf("after Back: address %q", got)
		}
	})

	t.Run("back with a panel open closes the panel", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&backend=bdd")
		b.click("cell-a1")
		b.click("cell-b2")
		if b.text("#panel-h") == "" {
			t.Fatalf("no panel after clicking the blocked b2\n%s", b.dump())
		}
		b.do("back", chromedp.Evaluate[chromedp.Void](`history.back()`))
		b.wait("the panel closes", `!document.getElementById("panel")`)
		time.Sleep(200 * time.Millisecond) // a restore by htmx would have started by now
		b.wait("the board stays", settled)
		if got, loc := b.text("#count"), b.location(); got != "4 solutions" || loc != "/?n=8&q=a1&backend=bdd" {
			t.Errorf("after Back: %q at %q, want a1's board (4 solutions) still there", got, loc)
		}
		// The next Back undoes a1.
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("back again", chromedp.Evaluate[chromedp.Void](`history.back()`))
		b.wait("a1 is undone", `document.getElementById("count") && document.getElementById("count").textContent === "92 solutions"`)
	})

	t.Run("the panel comes into view on a phone", func(t *testing.T) {
		b.t = t
		b.do("375 px", chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2)))
		defer b.do("back to the desktop", chromedp.EmulateViewport(1280, 900))
		b.open("/?n=8&q=a1&backend=bdd")
		b.click("cell-c2")
		b.wait("the panel is in view", `(function () {
			var r = document.getElementById("panel").getBoundingClientRect();
			return r.top >= 0 && r.top < innerHeight - 100;
		})()`)
		b.screenshot("explain-phone.png")
	})

	t.Run("two clicks 50 ms apart are both applied", func(t *testing.T) {
		b.t = t
		// A 20×20 SAT step takes longer than 50 ms here, so the second
		// click comes while the first is in flight; c1 and f2 do not
		// attack each other and some solution holds both.
		b.open("/?n=20&backend=sat")
		b.do("two clicks", chromedp.Evaluate[chromedp.Void](`window.secondInFlight = null;
			document.getElementById("cell-c1").click();
			setTimeout(function () {
				window.secondInFlight = !!document.querySelector(".htmx-request");
				document.getElementById("cell-f2").click();
			}, 50);`))
		b.wait("both queens placed", `location.search.indexOf("q=c1,f2") >= 0 && !document.querySelector(".htmx-request")`)
		b.wantClass("cell-c1", "queen", "after two quick clicks")
		b.wantClass("cell-f2", "queen", "after two quick clicks")
		if !eval[bool](b, `window.secondInFlight === true`) {
			t.Logf("the first step had ended before the second click: the queue was not exercised")
		}
	})

	t.Run("undo, redo and the list of steps", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&backend=bdd")
		b.click("cell-a1")
		b.click("cell-e2")
		steps := func() string {
			return eval[string](b, `Array.from(document.querySelectorAll("#history-steps .step"), s => s.textContent + (s.getAttribute("aria-current") ? "*" : "")).join(" | ")`)
		}
		if got := steps(); got != "8×8, empty | +a1 | +e2*" {
			t.Fatalf("steps %q\n%s", got, b.dump())
		}
		// back runs a move through the history and waits for its board.
		back := func(what, id, count, loc string) {
			b.t.Helper()
			b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
			b.do(what, chromedp.Click(chromedp.ID(id), chromedp.NodeVisible))
			b.wait(what+" shows its board", settled+` && document.getElementById("count").textContent === "`+count+`"`)
			if got := b.location(); got != loc {
				t.Errorf("%s: address %q, want %q", what, got, loc)
			}
		}
		back("undo", "history-undo", "4 solutions", "/?n=8&q=a1&backend=bdd")
		if got := steps(); got != "8×8, empty | +a1* | +e2" {
			t.Errorf("after undo: steps %q", got)
		}
		back("redo", "history-redo", "1 solution: complete it?", "/?n=8&q=a1,e2&backend=bdd")
		b.do("mark the app", chromedp.Evaluate[chromedp.Void](`document.getElementById("app").dataset.stale = "1"`))
		b.do("jump to the first step", chromedp.Click(chromedp.CSS(`#history-steps li:first-child .step`), chromedp.NodeVisible))
		b.wait("the empty board", settled+` && document.getElementById("count").textContent === "92 solutions"`)
		if got := steps(); got != "8×8, empty* | +a1 | +e2" {
			t.Errorf("after the jump: steps %q", got)
		}
		// A new step from an earlier board drops the steps undone.
		b.click("cell-b1")
		if got := steps(); got != "8×8, empty | +b1*" {
			t.Errorf("after a new step: steps %q", got)
		}
	})

	t.Run("queens placed by Complete look different", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		b.click("complete")
		loc := b.location()
		if !strings.HasPrefix(loc, "/?n=8&q=a1,") || !strings.Contains(loc, "&auto=") {
			t.Fatalf("address after Complete %q, want the queens it added in auto", loc)
		}
		if n := eval[int](b, `document.querySelectorAll("button.queen.auto").length`); n != 7 {
			t.Errorf("%d queens marked as placed by Complete, want 7", n)
		}
		b.wantClass("cell-a1", "queen", "after Complete")
		if strings.Contains(b.class("cell-a1"), "auto") {
			t.Errorf("a1, placed by hand, is marked as placed by Complete")
		}
		// Removing one of them keeps the others marked, and the address
		// says so.
		auto := eval[string](b, `document.querySelector("button.queen.auto").dataset.cell`)
		b.click("cell-" + auto)
		if n := eval[int](b, `document.querySelectorAll("button.queen.auto").length`); n != 6 {
			t.Errorf("after removing %s: %d queens marked as placed by Complete, want 6", auto, n)
		}
		if strings.Contains(b.location(), auto+",") || strings.HasSuffix(b.location(), auto) {
			t.Errorf("address %q still names %s", b.location(), auto)
		}
		b.screenshot("explain-complete.png")
	})

	t.Run("newly blocked squares and forced queens are marked", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		b.click("cell-e2") // leaves one solution: every other square decided
		if n := eval[int](b, `document.querySelectorAll("button.news").length`); n == 0 {
			t.Errorf("no square marked as changed after e2")
		}
		if n := eval[int](b, `document.querySelectorAll("button.news-forced.forced").length`); n != 6 {
			t.Errorf("%d forced queens marked as new, want 6", n)
		}
		if got := b.text("#announce"); !strings.Contains(got, "newly blocked") || !strings.Contains(got, "newly forced") {
			t.Errorf("announcement %q says nothing of what changed", got)
		}
	})

	t.Run("hovering a free square previews it", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		before := b.location()
		// e2 with a1 leaves one solution: six queens forced, the rest
		// blocked.
		b.do("hover e2", chromedp.Evaluate[chromedp.Void](`document.getElementById("cell-e2").dispatchEvent(new MouseEvent("mouseover", {bubbles: true}))`))
		b.wait("the preview", `document.getElementById("preview") && document.getElementById("preview").textContent !== ""`)
		if got := b.text("#preview"); !strings.HasPrefix(got, "A queen on e2: 1 solution left, ") || !strings.Contains(got, "forces ") {
			t.Errorf("preview of e2: %q", got)
		}
		if n := eval[int](b, `document.querySelectorAll("button.pv-forced").length`); n != 6 {
			t.Errorf("%d squares previewed as forced, want 6", n)
		}
		if n := eval[int](b, `document.querySelectorAll("button.pv-blocked").length`); n == 0 {
			t.Errorf("no square previewed as blocked")
		}
		b.screenshot("explain-preview.png")
		b.do("leave e2", chromedp.Evaluate[chromedp.Void](`document.getElementById("cell-e2").dispatchEvent(new MouseEvent("mouseout", {bubbles: true, relatedTarget: document.body}))`))
		if n := eval[int](b, `document.querySelectorAll("button.pv-forced, button.pv-blocked, button.pv-at").length`); n != 0 || b.text("#preview") != "" {
			t.Errorf("after leaving e2: %d marks, preview %q", n, b.text("#preview"))
		}
		if got := b.location(); got != before {
			t.Errorf("the preview changed the address to %q", got)
		}
	})

	t.Run("a long press previews a square on a touch screen", func(t *testing.T) {
		b.t = t
		b.open("/?n=8&q=a1&backend=bdd")
		before := b.location()
		b.do("press e2", chromedp.Evaluate[chromedp.Void](`document.getElementById("cell-e2").dispatchEvent(new PointerEvent("pointerdown", {bubbles: true, pointerType: "touch"}))`))
		b.wait("the preview", `document.getElementById("preview") && document.getElementById("preview").textContent.indexOf("A queen on e2") === 0`)
		// The tap that ends the press places no queen.
		b.do("release e2", chromedp.Evaluate[chromedp.Void](`document.getElementById("cell-e2").dispatchEvent(new PointerEvent("pointerup", {bubbles: true, pointerType: "touch"}));
			document.getElementById("cell-e2").click()`))
		time.Sleep(300 * time.Millisecond)
		if got := b.location(); got != before || strings.Contains(b.class("cell-e2"), "queen") {
			t.Errorf("the long press placed a queen: %q, e2 %q", got, b.class("cell-e2"))
		}
	})

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
