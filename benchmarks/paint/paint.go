// Package paint measures the web page as a person feels it: from a click
// on a square to the new board painted, in headless Chromium against the
// real server. The figure is the page's own (the timing card's "Your last
// click: … end to end", which frontend/static/compare.js measures and
// writes into the card's data-total-ms), so that the benchmark and a
// person at the page read the same number; a performance trace of the
// same clicks says where the time went (script, style, layout, paint, the
// wait for the server) and checks the page's figure against the
// browser's own clock.
//
// A walk is a seeded sequence of clicks on one board: place a queen on a
// free square, or, once the board holds enough queens or has no free
// square left, remove one of them. Each click waits for the page's figure
// and then rests, as a person does between clicks.
package paint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// Walk is one board, or one model, and the clicks made on it.
type Walk struct {
	Name string // "8×8 BDD"
	// Path is the page's address: a model's, a board's included
	// ("/?model=queens-8&backend=bdd"); with Upload, "{id}" in it stands
	// for the uploaded model's ID.
	Path string
	// Upload is a model file the walk uploads first (POST
	// /api/v1/models), "" for none.
	Upload string
	// Clicks is the number of clicks measured; Warm the clicks made
	// first and not measured (the first sweeps of a board, the page's
	// scripts compiled).
	Clicks, Warm int
	// Queens is the most queens the walk places before it removes one.
	Queens int
	// Traced is the number of measured clicks, the first ones, that the
	// performance trace covers.
	Traced int
}

// Options say how to drive the browser.
type Options struct {
	// Chromium is the browser's binary; "" looks up chromium on the path.
	Chromium      string
	Width, Height int64
	Seed          uint64
	// Rest is the pause after each click once its board is painted.
	Rest time.Duration
	// Timeout bounds one click.
	Timeout time.Duration
}

// Result is one walk's clicks.
type Result struct {
	Walk Walk
	// Totals are the page's end-to-end figures of the measured clicks,
	// in order; Server the server's share of each (its Server-Timing
	// "app"), Bytes the size of each answer's HTML.
	Totals, Server []time.Duration
	Bytes          []int
	// Trace is the breakdown of the traced clicks, summed.
	Trace Breakdown
}

// Chromium returns the path of the chromium binary, or an error that
// says how to install it.
func Chromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("chromium is not installed (apt-get install -y chromium)")
}

// Run makes each walk on the server at base in a fresh headless Chromium
// and returns what the page measured.
func Run(ctx context.Context, base string, walks []Walk, opt Options) ([]Result, error) {
	path := opt.Chromium
	if path == "" {
		var err error
		if path, err = Chromium(); err != nil {
			return nil, err
		}
	}
	if opt.Width == 0 {
		opt.Width, opt.Height = 1280, 900
	}
	if opt.Timeout == 0 {
		opt.Timeout = 30 * time.Second
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.WindowSize(int(opt.Width), int(opt.Height)),
	)
	defer cancelAlloc()
	var out []Result
	for i, w := range walks {
		r, err := walk(actx, base, w, opt, opt.Seed+uint64(i))
		if err != nil {
			return out, fmt.Errorf("%s: %w", w.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// walk makes one walk in a tab of its own.
func walk(actx context.Context, base string, w Walk, opt Options, seed uint64) (Result, error) {
	res := Result{Walk: w}
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	open, cancelOpen := context.WithTimeout(ctx, 5*time.Minute) // a board compiled on the way
	defer cancelOpen()
	if err := chromedp.Do(ctx); err != nil { // the first run starts the tab, with no deadline
		return res, err
	}
	path := w.Path
	if w.Upload != "" {
		id, err := upload(open, base, w.Upload)
		if err != nil {
			return res, err
		}
		path = strings.ReplaceAll(path, "{id}", id)
	}
	if err := chromedp.Do(open, chromedp.EmulateViewport(opt.Width, opt.Height), chromedp.Navigate(base+path),
		chromedp.Poll[chromedp.Void](`document.querySelector("#fgrid button[data-name], li.frow") !== null`, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		return res, fmt.Errorf("open %s: %w", path, err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var tr *tracer
	for i := range w.Warm + w.Clicks {
		measured := i >= w.Warm
		if measured && i-w.Warm == 0 && w.Traced > 0 {
			var err error
			if tr, err = startTrace(ctx); err != nil {
				return res, err
			}
		}
		c, err := click(ctx, rng, w, opt)
		if err != nil {
			return res, fmt.Errorf("click %d: %w", i+1, err)
		}
		if measured {
			res.Totals = append(res.Totals, c.total)
			res.Server = append(res.Server, c.server)
			res.Bytes = append(res.Bytes, c.bytes)
		}
		if tr != nil && i-w.Warm+1 == w.Traced {
			if res.Trace, err = tr.stop(ctx); err != nil {
				return res, err
			}
			tr = nil
		}
		if err := chromedp.Do(ctx, chromedp.Sleep(opt.Rest)); err != nil {
			return res, err
		}
	}
	if tr != nil {
		var err error
		if res.Trace, err = tr.stop(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

// clicked is what the page measured of one click.
type clicked struct {
	total, server time.Duration
	bytes         int
}

// squares reads the page: the controls that decide a free square or
// feature and those that take back one of the person's own decisions, each
// as a CSS selector. A model's grid (a board) and a model's list of
// features are each read by what they show.
const squares = `(() => {
	const out = {free: [], mine: []};
	document.querySelectorAll("#fgrid button[data-name]").forEach(b => {
		if (b.classList.contains("free")) { out.free.push("#" + b.id); }
		if (b.classList.contains("queen")) { out.mine.push("#" + b.id); }
	});
	document.querySelectorAll("li.frow").forEach(li => {
		if (li.querySelector(":scope > .fline .act.pick")) { out.free.push("#" + li.id + " > .fline .act.pick"); }
		if (li.classList.contains("select") && li.querySelector(":scope > .fline .act.undo")) { out.mine.push("#" + li.id + " > .fline .act.undo"); }
	});
	return out;
})()`

// aim scrolls a control into view, marks the figure of the last click as
// read, and returns the control's centre.
const aim = `((sel) => {
	const b = document.querySelector(sel);
	b.scrollIntoView({block: "nearest", inline: "nearest"});
	const e = document.getElementById("e2e");
	if (e) { e.removeAttribute("data-total-ms"); }
	const r = b.getBoundingClientRect();
	return [r.left + r.width / 2, r.top + r.height / 2];
})(%q)`

// figure is the page's figure of the last click once written: total,
// the server's time and the answer's bytes.
const figure = `(() => {
	const e = document.getElementById("e2e");
	if (!e || !e.hasAttribute("data-total-ms")) { return null; }
	return [parseFloat(e.dataset.totalMs), parseFloat(e.dataset.serverMs || "0"), parseInt(e.dataset.bytes || "0", 10)];
})()`

// click places a queen on a free square, or removes one of the person's
// queens when the board holds w.Queens of them or has no free square, and
// waits for the page's figure.
func click(ctx context.Context, rng *rand.Rand, w Walk, opt Options) (clicked, error) {
	cctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	board, err := chromedp.Run(cctx, chromedp.Evaluate[struct{ Free, Mine []string }](squares))
	if err != nil {
		return clicked{}, err
	}
	var name string
	switch {
	case len(board.Mine) > 0 && (len(board.Mine) >= w.Queens || len(board.Free) == 0):
		name = board.Mine[rng.IntN(len(board.Mine))]
	case len(board.Free) > 0:
		name = board.Free[rng.IntN(len(board.Free))]
	default:
		return clicked{}, errors.New("the board has no free square and no queen of the walk's")
	}
	xy, err := chromedp.Run(cctx, chromedp.Evaluate[[]float64](fmt.Sprintf(aim, name)))
	if err != nil {
		return clicked{}, err
	}
	if err := chromedp.Do(cctx,
		chromedp.MouseEvent("mouseMoved", xy[0], xy[1]),
		chromedp.MouseClickXY(xy[0], xy[1])); err != nil {
		return clicked{}, err
	}
	fig, err := chromedp.Run(cctx, chromedp.Poll[[]float64](figure, chromedp.WithPollingInterval(10*time.Millisecond)))
	if err != nil {
		return clicked{}, fmt.Errorf("waiting for the page's figure of the click on %s: %w", name, err)
	}
	if len(fig) != 3 {
		return clicked{}, fmt.Errorf("the page's figure of the click on %s: %v", name, fig)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return clicked{total: ms(fig[0]), server: ms(fig[1]), bytes: int(fig[2])}, nil
}

// Quantile is the q-quantile (0 ≤ q ≤ 1) of ds by the nearest rank; 0 for
// none.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// upload sends the model file to the server at base and returns its ID.
func upload(ctx context.Context, base, file string) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/v1/models?name="+filepath.Base(file), strings.NewReader(string(src)))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", file, err)
	}
	defer res.Body.Close()
	var info struct{ Model string }
	if err := json.NewDecoder(res.Body).Decode(&info); err != nil || info.Model == "" {
		return "", fmt.Errorf("upload %s: %s: %v", file, res.Status, err)
	}
	return info.Model, nil
}
