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

// TestBrowserDiagram: a board's diagram on the one page is the board's
// own (while no square is ruled out): the rank view drawn whole, fitted
// and zoomed by buttons and keys, linked to the board both ways, the
// paths of the queens placed highlighted, and the remaining solutions
// alone on request.
func TestBrowserDiagram(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	// The whole 8×8 rank view: 288 nodes, 378 edges, 92 paths.
	b.open("/?model=queens-8&diagram=1")
	ms := b.drawn("the 8×8 rank view", 288)
	if got := eval[int](b, `document.querySelectorAll("#dg-stage [data-edge]").length`); got != 378 {
		t.Errorf("8×8 rank view: %d edges drawn, want 378", got)
	}
	if got := eval[int](b, `document.querySelectorAll("#dg-stage .dg-layer").length`); got != 9 {
		t.Errorf("8×8 rank view: %d layer labels, want 9 (8 ranks and 1)", got)
	}
	if s := b.text("#dg-status"); !strings.Contains(s, "288 nodes, 378 edges") || !strings.Contains(s, "92 solutions") {
		t.Errorf("status %q", s)
	}
	t.Logf("8×8 rank view laid out and drawn in %d ms", ms)

	// Fit puts the whole graph inside the frame; zooming in enlarges it,
	// Fit brings it back.
	inside := `(function () {
		var f = document.getElementById("dg-frame").getBoundingClientRect(), s = document.querySelector("#dg-stage svg").getBoundingClientRect();
		return s.left >= f.left - 2 && s.right <= f.right + 2 && s.top >= f.top - 2 && s.bottom <= f.bottom + 2 && s.width > f.width / 2;
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

	// Hovering an edge lights its square on the board, and says what it
	// does; hovering a square lights its edges.
	b.hover(`#dg-stage .dg-edge[data-cell="c1"] .dg-hit`)
	if got := eval[string](b, `Array.from(document.querySelectorAll("#fgrid button.dg-lit")).map(function (x) { return x.dataset.name; }).join(",")`); got != "c1" {
		t.Errorf("hovering an edge of c1 lights the squares %q, want c1", got)
	}
	if tip := b.text("#dg-tip"); !strings.HasPrefix(tip, "A queen on c1:") {
		t.Errorf("the edge's tooltip says %q", tip)
	}
	b.hover(`#dg-stage .dg-node.dg-root`)
	if tip := b.text("#dg-tip"); !strings.HasPrefix(tip, "rank 1: 92 solutions below this node") {
		t.Errorf("the root's tooltip says %q", tip)
	}
	if got := eval[int](b, `document.querySelectorAll("#fgrid button.dg-lit").length`); got != 8 {
		t.Errorf("hovering the root lights %d squares, want the 8 of rank 1", got)
	}
	b.hover(sq("d4"))
	lit := eval[int](b, `document.querySelectorAll("#dg-stage .dg-lit").length`)
	want := eval[int](b, `document.querySelectorAll('#dg-stage [data-cell="d4"]').length`)
	if lit == 0 || lit != want {
		t.Errorf("hovering d4 lights %d elements of the diagram, want its %d edges", lit, want)
	}
	b.screenshot("diagram-8-ranks.png")

	// With a1 placed, the whole space stays drawn and the 4 paths that
	// hold a1 are highlighted: in rank 1, only the edge of file a.
	b.open("/?model=queens-8&select=a1&diagram=1")
	b.drawn("the 8×8 rank view with a1", 288)
	b.wait("the highlight", `document.getElementById("dg").dataset.highlightedPaths === "4"`)
	onRank1 := eval[string](b, `Array.from(document.querySelectorAll("#dg-stage .dg-edge.dg-on")).map(function (e) { return e.dataset.cell; }).filter(function (c) { return /^[a-h]1$/.test(c); }).join(",")`)
	if onRank1 != "a1" {
		t.Errorf("highlighted edges in rank 1: %q, want a1 alone", onRank1)
	}
	if s := b.text("#dg-status"); !strings.Contains(s, "the 4 of 92 solutions that hold your queens") {
		t.Errorf("status %q", s)
	}
	// Only the remaining solutions: every path holds a1.
	b.do("only the remaining", clickSel("#dg-remaining"))
	b.wait("the remaining solutions", `document.getElementById("dg").dataset.highlightedPaths === undefined && document.getElementById("dg").dataset.nodes !== "288"`)
	if s := b.text("#dg-status"); !strings.Contains(s, "4 solutions left") {
		t.Errorf("status of the remaining solutions %q", s)
	}
	b.screenshot("diagram-8-a1.png")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestBrowserDiagramLarge draws the largest diagrams the viewer takes on
// the test server's boards, the BDD view collapsed and whole, and the
// profile past them; it logs the time to lay out and draw each.
func TestBrowserDiagramLarge(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	b := newBrowser(t, ts.URL)

	b.open("/?model=queens-10&diagram=1")
	ms := b.drawn("the 10×10 rank view", 2426)
	t.Logf("10×10 rank view (2,426 nodes, 3,148 edges) laid out and drawn in %d ms", ms)

	// The 8×8 BDD view, its lo chains collapsed, then whole: the
	// engine's 2,451 nodes and the terminal.
	b.open("/?model=queens-8&diagram=1")
	b.drawn("the 8×8 rank view", 288)
	b.do("the BDD view", clickSel(`[data-dg-view="bdd"]`))
	b.wait("the collapsed BDD view", `document.querySelector('#dg-stage .dg-bdd') && +document.getElementById("dg").dataset.nodes < 2452`)
	collapsed := eval[string](b, `document.getElementById("dg").dataset.nodes`)
	b.screenshot("diagram-8-bdd-collapsed.png")
	b.do("uncollapse", clickSel("#dg-collapse"))
	ms = b.drawn("the whole 8×8 BDD view", 2452)
	t.Logf("8×8 BDD view (2,451 nodes and 1, %s with chains collapsed) laid out and drawn in %d ms", collapsed, ms)
	b.screenshot("diagram-8-bdd.png")

	// Past the cap: the profile of the 9×9 diagram, rank by rank.
	b.open("/?model=queens-9&diagram=1")
	b.drawn("the 9×9 rank view", 972)
	b.do("the BDD view", clickSel(`[data-dg-view="bdd"]`))
	b.wait("the profile", `document.getElementById("dg-profile")`)
	if got := eval[int](b, `document.querySelectorAll("#dg-profile .dg-prow").length`); got != 9 {
		t.Errorf("9×9 profile: %d rows, want 9", got)
	}
	// Rank 1 on top, as in the rank view.
	if got := eval[[]string](b, `Array.from(document.querySelectorAll("#dg-profile .dg-prow > span:first-child"), s => s.textContent)`); len(got) != 9 || got[0] != "rank 1" || got[8] != "rank 9" {
		t.Errorf("9×9 profile rows %q, want rank 1 first and rank 9 last", got)
	}
	if s := b.text("#dg-profile p"); !strings.Contains(s, "9,557 nodes") {
		t.Errorf("9×9 profile says %q", s)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
