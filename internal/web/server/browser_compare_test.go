package server

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/nqueens/configurator/backends/sat/plain"
)

// TestBrowserCompare is the comparison as a person sees it in Both mode
// with the three backends on the one page: the domains and the count
// timed apart per backend, the work, the end-to-end time of a click, the
// session chart, and the order panel.
func TestBrowserCompare(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 12
	cfg.extra = []Engine{{Backend: plain.New(plain.Options{MaxN: 16, CountCap: cfg.SAT.CountCap}), Deadline: cfg.SAT.Deadline,
		Title: "Plain SAT: gophersat alone on the pairwise encoding"}}
	_, ts := newTestServer(t, cfg)
	b := newBrowser(t, ts.URL)
	names := []string{"BDD", "SAT", "SAT-PLAIN"}
	timeRE := regexp.MustCompile(`^[0-9.]+ (ns|µs|ms|s)$|^–$`)
	// cells are a row's times, one per backend.
	cells := func(row string) []string {
		return eval[[]string](b, `[...document.querySelectorAll("#questions tbody tr")].filter(tr => tr.querySelector("th").textContent === "`+row+`").flatMap(tr => [...tr.querySelectorAll("td")].map(td => td.textContent.trim()))`)
	}

	for _, n := range []int{10, 12} {
		t.Run(fmt.Sprintf("%d×%d in Both", n, n), func(t *testing.T) {
			b.t = t
			b.open(fmt.Sprintf("/?model=queens-%d&backend=both", n))
			b.wait("the board", `document.querySelector("#count")`)
			if got := eval[[]string](b, `[...document.querySelectorAll("#questions thead th")].slice(1).map(th => th.textContent)`); strings.Join(got, " ") != strings.Join(names, " ") {
				t.Fatalf("the question table's columns are %q, want %q", got, names)
			}
			for step := range 3 {
				if eval[int](b, `document.querySelectorAll("#fgrid button.free").length`) == 0 {
					t.Fatalf("step %d: no free square to click", step)
				}
				b.clickCSS(`#fgrid button.free`)
			}
			domains, counts, whole := cells("Valid domains"), cells("Count"), cells("Whole step")
			if len(domains) != 3 || len(counts) != 3 || len(whole) != 3 {
				t.Fatalf("domains %q, counts %q, whole steps %q: want one per backend", domains, counts, whole)
			}
			for i, name := range names {
				for _, c := range []string{domains[i], counts[i]} {
					if !timeRE.MatchString(c) {
						t.Errorf("%s's time is %q, want a duration or none", name, c)
					}
				}
				if !regexp.MustCompile(`^[0-9.]+ (ns|µs|ms|s)$`).MatchString(whole[i]) {
					t.Errorf("%s's whole step is %q, want a duration", name, whole[i])
				}
			}
			work := eval[[]string](b, `[...document.querySelectorAll("#work dd")].map(dd => dd.textContent)`)
			if len(work) != 3 || !strings.Contains(work[1], "solver call") || !strings.Contains(work[2], "solver call") {
				t.Errorf("work %q: want the solver calls of SAT and SAT-PLAIN", work)
			}
			if len(work) > 0 && !regexp.MustCompile(`^[0-9,]+ nodes in the diagram; [0-9,]+ visited$`).MatchString(work[0]) {
				t.Errorf("the BDD's work is %q, want its nodes and the nodes visited", work[0])
			}
			b.wait("the end-to-end time", `document.querySelector("#e2e[data-total-ms]")`)
			e2e := b.text("#e2e")
			if !regexp.MustCompile(`^Your last click: [0-9.]+ (µs|ms|s) end to end = [0-9.]+ (µs|ms|s) backends \+ [0-9.]+ (µs|ms|s) rendering \+ .* transfer \+ .* browser`).MatchString(e2e) {
				t.Errorf("end to end: %q", e2e)
			}
			if total := eval[float64](b, `parseFloat(document.querySelector("#e2e").dataset.totalMs)`); total <= 0 || total > 20000 {
				t.Errorf("the click took %g ms end to end", total)
			}
			if got := eval[int](b, `document.querySelectorAll("#session-chart polyline").length`); got != 3 {
				t.Errorf("the session chart has %d lines after three steps, want one per backend", got)
			}
			if got := eval[int](b, `document.querySelectorAll("#session-chart .s1 circle").length`); got != 4 {
				t.Errorf("the session chart's SAT line has %d points, want 4 (the page and three clicks)", got)
			}
			for _, w := range []int64{1280, 375} {
				b.do("width", chromedp.EmulateViewport(w, 900))
				if got := eval[int](b, `document.documentElement.scrollWidth`); got > int(w) {
					t.Errorf("at %d px the page is %d px wide", w, got)
				}
				if got := eval[bool](b, `[...document.querySelectorAll(".timing, .orders")].some(el => el.scrollWidth > el.clientWidth + 1)`); got {
					t.Errorf("at %d px a card scrolls sideways", w)
				}
				b.screenshot(fmt.Sprintf("compare-%dx%d-%dpx.png", n, n, w))
			}
			b.do("desktop", chromedp.EmulateViewport(1280, 900))
		})
	}

	t.Run("the order panel at 8×8", func(t *testing.T) {
		b.t = t
		b.open("/?model=queens-8&backend=both")
		if got := eval[[]string](b, `[...document.querySelectorAll("#order-table td.nodes")].map(td => td.textContent)`); len(got) != 1 || got[0] != "2,451" {
			t.Errorf("before compiling the other orders the panel shows %q, want the compiled order's 2,451", got)
		}
		b.do("compile the other orders", chromedp.Click(chromedp.ID("orders-compile"), chromedp.NodeVisible))
		b.wait("four node counts", `document.querySelectorAll("#order-table td.nodes").length === 4`)
		got := eval[[]string](b, `[...document.querySelectorAll("#order-table td.nodes")].map(td => td.textContent)`)
		if want := []string{"2,451", "2,451", "2,787", "2,648"}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("the order panel shows %q nodes, want %q (rank, file, diagonal, middle)", got, want)
		}
		if got := eval[int](b, `document.querySelectorAll("#rank-chart polyline").length`); got != 4 {
			t.Errorf("the per-rank chart has %d lines, want 4", got)
		}
		if got := b.location(); got != "/?model=queens-8&backend=both" {
			t.Errorf("the order panel's button changed the address to %q", got)
		}
		b.screenshot("compare-orders-8x8.png")
	})

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the console has errors:\n%s", strings.Join(errs, "\n"))
	}
}
