package server

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The diagram viewer in a real browser: what it draws, its zoom and fit,
// the hover that links the diagram and the board both ways, and the
// placement's paths.

// drawn waits until the viewer has drawn a graph of the given node count
// (or any, for -1) and it is on screen, and returns the milliseconds from
// the answer's arrival to the paint: the layout, the SVG, the page's
// layout and the paint.
func (b *browser) drawn(what string, nodes int) int {
	b.t.Helper()
	cond := `document.getElementById("dg") && document.getElementById("dg").dataset.paintedMs !== undefined && document.querySelector("#dg-stage svg")`
	if nodes >= 0 {
		cond += fmt.Sprintf(` && document.getElementById("dg").dataset.nodes === "%d"`, nodes)
	}
	b.wait(what, cond)
	ms, err := strconv.Atoi(eval[string](b, `document.getElementById("dg").dataset.paintedMs`))
	if err != nil {
		b.t.Fatal(err)
	}
	return ms
}

// scale is the viewer's zoom.
func (b *browser) scale() float64 {
	b.t.Helper()
	f, err := strconv.ParseFloat(eval[string](b, `document.getElementById("dg").dataset.scale`), 64)
	if err != nil {
		b.t.Fatal(err)
	}
	return f
}

// hover sends the mouse over the first element matching sel, as a
// pointer entering it would.
func (b *browser) hover(sel string) {
	b.t.Helper()
	ok := eval[bool](b, fmt.Sprintf(`(function () {
		var el = document.querySelector(%q);
		if (!el) { return false; }
		var r = el.getBoundingClientRect();
		el.dispatchEvent(new MouseEvent("mouseover", {bubbles: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2}));
		return true;
	})()`, sel))
	if !ok {
		b.t.Fatalf("nothing to hover at %s\n%s", sel, b.dump())
	}
}

// clickSel clicks the first visible element matching a CSS selector: a
// control of the viewer, which changes the page without a request of
// htmx.
func clickSel(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)
}

// TestBrowserDiagram: a board's decision diagram on the one page, drawn
// whole, fitted and zoomed by buttons and keys, and linked to the board
// both ways: a node or an edge pointed at lights its square and says what
// it does, a square pointed at lights its nodes.
func TestBrowserDiagram(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	b.open("/?model=queens-6&diagram=1")
	ms := b.drawn("the 6×6 diagram", -1)
	nodes := eval[string](b, `document.getElementById("dg").dataset.nodes`)
	if s := b.text("#dg-status"); !strings.Contains(s, nodes+" nodes, ") || !strings.Contains(s, "4 configurations left") {
		t.Errorf("status %q, want its %s nodes and 4 configurations", s, nodes)
	}
	// One layer a square, from a1 on, and the terminal.
	if got := eval[[]string](b, `Array.from(document.querySelectorAll("#dg-stage .dg-layer title"), t => t.textContent)`); len(got) < 2 || got[0] != "a1" {
		t.Errorf("layers %q, want the squares in the diagram's order from a1", got)
	}
	t.Logf("6×6 diagram (%s nodes) laid out and drawn in %d ms", nodes, ms)

	// Fit puts the whole graph inside the frame; zooming in enlarges it,
	// Fit brings it back.
	inside := `(function () {
		var f = document.getElementById("dg-frame").getBoundingClientRect(), s = document.querySelector("#dg-stage svg").getBoundingClientRect();
		return s.left >= f.left - 2 && s.right <= f.right + 2 && s.top >= f.top - 2 && s.bottom <= f.bottom + 2 && s.width > 0;
	})()`
	b.wait("the graph fitted in its frame", inside)
	fitted := b.scale()
	b.do("zoom in", clickSel("#dg-zoom-in"))
	b.wait("the zoom to grow", fmt.Sprintf(`+document.getElementById("dg").dataset.scale > %g`, fitted*1.1))
	b.wait("the zoomed graph to overflow its frame", "!"+inside)
	// The keyboard: 0 fits, + zooms in.
	b.do("focus the frame", chromedp.Focus(chromedp.ID("dg-frame")), chromedp.KeyEvent("0"))
	b.wait("the fit by key", fmt.Sprintf(`Math.abs(+document.getElementById("dg").dataset.scale - %g) < 0.001`, fitted))
	b.do("zoom in by key", chromedp.KeyEvent("+"))
	b.wait("the zoom by key", fmt.Sprintf(`+document.getElementById("dg").dataset.scale > %g`, fitted*1.1))
	b.do("fit", clickSel("#dg-fit"))
	b.wait("the fit", fmt.Sprintf(`Math.abs(+document.getElementById("dg").dataset.scale - %g) < 0.001`, fitted))
	b.wait("the graph fitted in its frame again", inside)

	// The root is a1's question: it lights a1 on the board and says how
	// many configurations lie below it.
	b.hover(`#dg-stage .dg-node.dg-root`)
	if tip := b.text("#dg-tip"); !strings.HasPrefix(tip, "a1: 4 configurations below this node") {
		t.Errorf("the root's tooltip says %q", tip)
	}
	if got := eval[string](b, `Array.from(document.querySelectorAll("#fgrid button.dg-lit"), x => x.dataset.name).join(",")`); got != "a1" {
		t.Errorf("pointing at the root lights the squares %q, want a1", got)
	}
	b.hover(`#dg-stage [data-edge]`)
	if tip := b.text("#dg-tip"); !strings.HasPrefix(tip, "Select a1.") && !strings.HasPrefix(tip, "Deselect a1.") {
		t.Errorf("an edge of the root says %q", tip)
	}
	// A square lights the nodes that ask about it.
	b.hover(sq("d4"))
	if lit := eval[int](b, `document.querySelectorAll("#dg-stage .dg-node.dg-lit").length`); lit == 0 {
		t.Errorf("pointing at d4 lights no node of the diagram")
	}
	b.hover(`#dg-stage .dg-node.dg-lit`)
	if tip := b.text("#dg-tip"); !strings.HasPrefix(tip, "d4: ") {
		t.Errorf("a node d4 lit says %q, want d4's question", tip)
	}
	b.screenshot("diagram-6.png")

	// With b1 placed, one configuration is left, and the diagram is
	// drawn again for it.
	b.open("/?model=queens-6&select=b1&diagram=1")
	b.drawn("the diagram under b1", -1)
	if s := b.text("#dg-status"); !strings.Contains(s, "1 configuration left") && !strings.Contains(s, "1 configurations left") {
		t.Errorf("status under b1 %q", s)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserDiagramLarge: past the nodes the server draws, a board's
// diagram is its profile, a row per level of squares, rank 1 on top, that
// says the whole diagram's nodes.
func TestBrowserDiagramLarge(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)
	for _, tt := range []struct {
		n            int
		nodes, first string
		rows         int
	}{
		{8, "2,451 nodes", "a1", 64},
		{9, "9,557 nodes", "a1 … b1", 0},
	} {
		b.open(fmt.Sprintf("/?model=queens-%d&diagram=1", tt.n))
		b.wait("the profile", `document.querySelector("#dg-profile .dg-prow")`)
		if s := b.text("#dg-profile p"); !strings.Contains(s, tt.nodes+", more than the 300 this server draws") {
			t.Errorf("%d×%d: the profile says %q", tt.n, tt.n, s)
		}
		rows := eval[[]string](b, `Array.from(document.querySelectorAll("#dg-profile .dg-prow > span:first-child"), s => s.textContent)`)
		if len(rows) == 0 || rows[0] != tt.first || tt.rows > 0 && len(rows) != tt.rows {
			t.Errorf("%d×%d: profile rows %q, want %s first", tt.n, tt.n, rows, tt.first)
		}
	}
	b.screenshot("diagram-9-profile.png")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
