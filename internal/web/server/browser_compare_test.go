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
// with the three backends: the domains and the count timed apart per
// backend, a ratio in words, the work, the end-to-end time of a click,
// the session chart, the order panel, and a switch to a backend whose
// limit is below the board.
func TestBrowserCompare(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 12
	cfg.extra = []Engine{{Backend: plain.New(plain.Options{MaxN: 16, CountCap: cfg.SAT.CountCap}), Deadline: cfg.SAT.Deadline,
		Title: "Plain SAT: gophersat alone on the pairwise encoding"}}
	_, ts := newTestServer(t, cfg)
	b := newBrowser(t, ts.URL)
	names := []string{"BDD", "SAT", "SAT-PLAIN"}
	durationRE := regexp.MustCompile(`^[0-9.]+ (ns|µs|ms|s)$`)
	countRE := regexp.MustCompile(`^([0-9,]+ exact|at least [0-9,]+) · ([0-9.]+ (ns|µs|ms|s)|no extra time|–)$|^no count$`)
	ratioRE := regexp.MustCompile(`^[A-Z-]+ ([0-9]\.[0-9]|[0-9,]{2,})× faster than [A-Z-]+$|^[A-Z-]+ and [A-Z-]+ about as fast$`)
	cells := func(row string) []string {
		return eval[[]string](b, `[...document.querySelectorAll("#`+row+` td")].map(td => td.textContent.trim())`)
	}
	// firstFree is the id of a free square, to click.
	firstFree := func() string {
		return eval[string](b, `(document.querySelector("#board-form button.free")||{}).id||""`)
	}

	for _, n := range []int{10, 12} {
		t.Run(fmt.Sprintf("%d×%d in Both", n, n), func(t *testing.T) {
			b.t = t
			b.open(fmt.Sprintf("/?n=%d&backend=both", n))
			b.wait("the board", `document.querySelector("#count")`)
			if got := eval[[]string](b, `[...document.querySelectorAll("#questions thead th")].slice(1).map(th => th.textContent)`); strings.Join(got, " ") != strings.Join(names, " ") {
				t.Fatalf("the question table's columns are %q, want %q", got, names)
			}
			for step := range 3 {
				id := firstFree()
				if id == "" {
					t.Fatalf("step %d: no free square to click", step)
				}
				b.click(id)
			}
			domains, counts := cells("q-domains"), cells("q-count")
			if len(domains) != 3 || len(counts) != 3 {
				t.Fatalf("domains %q, counts %q: want one per backend", domains, counts)
			}
			for i, name := range names {
				if d := domains[i]; !durationRE.MatchString(d) {
					t.Errorf("%s's domains time is %q, want a duration", name, d)
				}
				if !countRE.MatchString(counts[i]) {
					t.Errorf("%s's count is %q, want exact, at least or no count with its time", name, counts[i])
				}
			}
			for _, r := range eval[[]string](b, `[...document.querySelectorAll("#ratios li")].map(li => li.textContent)`) {
				if strings.Contains(r, "0.0×") || !ratioRE.MatchString(r) {
					t.Errorf("ratio %q: want the faster backend named and a factor of at least 1", r)
				}
			}
			work := eval[[]string](b, `[...document.querySelectorAll("#work dd")].map(dd => dd.textContent)`)
			if len(work) != 3 || !strings.Contains(work[1], "solver call") || !strings.Contains(work[2], "solver call") {
				t.Errorf("work %q: want the solver calls of SAT and SAT-PLAIN", work)
			}
			if !regexp.MustCompile(`^[0-9,]+ nodes, [0-9,]+ visited$`).MatchString(work[0]) {
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
		b.open("/?n=8&backend=both")
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
		b.screenshot("compare-orders-8x8.png")
	})

	t.Run("how the backends scale with N", func(t *testing.T) {
		b.t = t
		b.do("open the scaling chart", chromedp.Evaluate[chromedp.Void](`document.getElementById("scaling").open = true`))
		if got := eval[int](b, `document.querySelectorAll("#scaling-chart polyline").length`); got != 4 {
			t.Errorf("the scaling chart has %d lines, want 4 (BDD compile and step, SAT first board and step)", got)
		}
		if got := b.text("#scaling .marker-note"); !regexp.MustCompile(`^from [0-9]+×[0-9]+ the SAT backend answers a first board sooner$`).MatchString(got) {
			t.Errorf("the crossover says %q", got)
		}
		b.do("scroll to it", chromedp.ScrollIntoView(chromedp.ID("scaling")))
		b.screenshot("compare-scaling.png")
	})

	t.Run("SAT: the order menu says why it is off; switching to BDD keeps the queens that fit", func(t *testing.T) {
		b.t = t
		b.open("/?n=16&q=a1,c2&backend=sat")
		if !eval[bool](b, `document.getElementById("order").disabled`) {
			t.Errorf("the order menu is active on SAT")
		}
		if got := b.text("#order-reason"); !strings.Contains(got, "ignores the variable order") {
			t.Errorf("the order menu's reason: %q", got)
		}
		note := b.text("#mode-note")
		if !strings.Contains(note, "switching shrinks the board to 12×12, keeping all your queens") {
			t.Errorf("the note before switching: %q", note)
		}
		b.clickCSS(`.modes a[title^="Binary"]`)
		b.wait("the 12×12 board", `document.querySelector("#count")`)
		if got := b.location(); got != "/?n=12&q=a1,c2&backend=bdd" {
			t.Errorf("after the switch the address is %q", got)
		}
		if got := b.text("#notice p"); got != "BDD goes up to 12×12, so the 16×16 board shrank to 12×12, keeping a1 and c2." {
			t.Errorf("after the switch the notice says %q", got)
		}
	})

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the console has errors:\n%s", strings.Join(errs, "\n"))
	}
}
