package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The model page's decision diagram in a real browser: opened, it draws
// the configurations left in view with the board's viewer, zooms and
// fits, charts the nodes per level naming the order, stays open (its
// address says diagram=1) and redraws across a decision; in a mode without
// a BDD it says why there is none.
func TestBrowserModelDiagram(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	m, id, o := example(t, "computer")
	b := newBrowser(t, ts.URL)

	b.open("/?model=" + id + "&backend=bdd&select=ARM")
	if eval[bool](b, `document.getElementById("dg").dataset.started !== undefined`) {
		t.Errorf("the diagram is asked for before its panel is opened")
	}
	b.do("open the diagram", clickSel("#diagram-h"))
	// The open panel is in the address, in place of the one shown.
	b.wait("diagram=1 in the address", `location.search.indexOf("diagram=1") >= 0`)
	if q := b.query(); q.Get("select") != "ARM" || q.Get("backend") != "bdd" {
		t.Errorf("the address after opening the diagram: %s", b.location())
	}
	b.drawn("the diagram under ARM", -1)
	want := o.Analyze(oracleDecisions(t, m, []string{"ARM"}, nil)).Configurations
	if s := b.text("#dg-status"); !strings.Contains(s, fmt.Sprintf("%d configurations left", want)) {
		t.Errorf("status %q, want %d configurations left", s, want)
	}
	layers := eval[int](b, `document.querySelectorAll("#dg-stage .dg-layer").length`)
	named := eval[int](b, `Array.from(document.querySelectorAll("#dg-stage .dg-layer title")).filter(function (t) { return document.querySelector('.frow[data-name="' + t.textContent + '"]'); }).length`)
	if layers < 2 || named != layers-1 {
		t.Errorf("%d layers drawn, %d of them named by a feature of the page", layers, named)
	}
	if h := b.text("#dg-levels .dg-profile p"); !strings.Contains(h, "variable order from the force heuristic") {
		t.Errorf("the profile's heading %q does not name the order", h)
	}
	if rows := eval[int](b, `document.querySelectorAll("#dg-levels .dg-prow").length`); rows == 0 {
		t.Errorf("no profile rows")
	}

	// In view: the graph fits its frame, and the frame is on screen;
	// zooming in enlarges it past the frame, Fit brings it back.
	inside := `(function () {
		var f = document.getElementById("dg-frame").getBoundingClientRect(), s = document.querySelector("#dg-stage svg").getBoundingClientRect();
		return s.left >= f.left - 2 && s.right <= f.right + 2 && s.top >= f.top - 2 && s.bottom <= f.bottom + 2 && s.width > 0;
	})()`
	b.wait("the graph fitted in its frame", inside)
	b.do("scroll to the diagram", chromedp.ScrollIntoView(chromedp.ID("dg-frame")))
	if !eval[bool](b, `(function () { var f = document.getElementById("dg-frame").getBoundingClientRect(); return f.top < innerHeight && f.bottom > 0 && f.width > 200; })()`) {
		t.Errorf("the diagram's frame is not in view")
	}
	fitted := b.scale()
	b.do("zoom in", clickSel("#dg-zoom-in"))
	b.wait("the zoom to grow", fmt.Sprintf(`+document.getElementById("dg").dataset.scale > %g`, fitted*1.1))
	b.do("fit", clickSel("#dg-fit"))
	b.wait("the fit", fmt.Sprintf(`Math.abs(+document.getElementById("dg").dataset.scale - %g) < 0.001`, fitted))
	b.hover(`#dg-stage .dg-node.dg-root`)
	if tip := b.text("#dg-tip"); !strings.Contains(tip, fmt.Sprintf("%d configurations below this node", want)) {
		t.Errorf("the root's tooltip says %q", tip)
	}
	b.screenshot("model-diagram-1280.png")
	b.do("375 px", chromedp.EmulateViewport(375, 812, chromedp.EmulateScale(2)))
	b.do("scroll to the diagram", chromedp.ScrollIntoView(chromedp.ID("diagram")))
	b.screenshot("model-diagram-375.png")
	b.do("back to the desktop", chromedp.EmulateViewport(1280, 900))

	// A decision redraws the open panel: fewer configurations.
	b.clickRow("Wireless LAN", "pick")
	b.wait("the panel open after the step", `document.getElementById("diagram").open`)
	b.drawn("the diagram under ARM and Wireless LAN", -1)
	want = o.Analyze(oracleDecisions(t, m, []string{"ARM", "Wireless LAN"}, nil)).Configurations
	b.wait("the new count", fmt.Sprintf(`document.getElementById("dg-status").textContent.indexOf("%d configurations left") >= 0`, want))
	if q := b.query(); q.Get("diagram") != "1" || q.Get("select") != "ARM,Wireless LAN" {
		t.Errorf("the address after the decision: %s", b.location())
	}

	// The address opens the page with the panel open, and closing it
	// takes diagram=1 out of the address.
	addr := b.location()
	b.open(addr)
	if !eval[bool](b, `document.getElementById("diagram").open`) {
		t.Errorf("%s opens with the diagram's panel closed", addr)
	}
	b.drawn("the diagram of the address", -1)
	b.do("close the diagram", clickSel("#diagram-h"))
	b.wait("diagram=1 out of the address", `location.search.indexOf("diagram=") < 0`)
	if eval[bool](b, `document.getElementById("diagram").open`) {
		t.Error("the panel is open after closing it")
	}

	// SAT keeps no diagram: the panel says so.
	b.open("/?model=" + id + "&backend=sat")
	b.do("open the diagram", clickSel("#diagram-h"))
	b.wait("the reason", `document.getElementById("dg-status").textContent.indexOf("keeps no decision diagram") >= 0`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
