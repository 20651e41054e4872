package paint

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

// Measure is the name of the User Timing measure the page records for each
// click, from the click to the board painted (frontend/static/compare.js):
// the windows the trace is cut into.
const Measure = "click to paint"

// Breakdown is where the time of clicks went, by Chromium's performance
// trace: the work of the page's main thread inside each click's window,
// by kind, and the rest of the window, which the main thread spent
// waiting (for the server, for the next frame).
type Breakdown struct {
	Clicks int
	// Window is the sum of the clicks' windows, as the trace measured
	// them (the page's own figure checked against the browser's clock).
	Window time.Duration
	// Script is JavaScript (htmx's swap and the page's scripts, the
	// garbage collector), Parse the parsing of the answer's HTML, Style
	// the style recalculation, Layout the layout, Paint painting and
	// compositing on the main thread, Other the rest of its tasks, Idle
	// the window less all of them.
	Script, Parse, Style, Layout, Paint, Other, Idle time.Duration
	// Forced is the layout and style work that a script forced to run
	// synchronously (a read of a geometry after a change), part of
	// Style and Layout.
	Forced time.Duration
	// Painted counts the windows in which the main thread painted after
	// the answer was handled (a Paint or Commit after the XHRLoad): the
	// check that the page's figure reaches the frame showing the board.
	Painted int
}

// Busy is the main thread's work in the windows.
func (b Breakdown) Busy() time.Duration {
	return b.Script + b.Parse + b.Style + b.Layout + b.Paint + b.Other
}

// Per is the breakdown with its durations per click (the counts kept).
func (b Breakdown) Per() Breakdown {
	if b.Clicks == 0 {
		return b
	}
	k := time.Duration(b.Clicks)
	return Breakdown{Clicks: b.Clicks, Window: b.Window / k, Script: b.Script / k, Parse: b.Parse / k, Style: b.Style / k,
		Layout: b.Layout / k, Paint: b.Paint / k, Other: b.Other / k, Idle: b.Idle / k, Forced: b.Forced / k,
		Painted: b.Painted}
}

// String says the breakdown in one line.
func (b Breakdown) String() string {
	r := func(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }
	return fmt.Sprintf("window %s = script %s + parse %s + style %s + layout %s + paint %s + other %s + idle %s (forced layout %s; painted in %d of %d windows)",
		r(b.Window), r(b.Script), r(b.Parse), r(b.Style), r(b.Layout), r(b.Paint), r(b.Other), r(b.Idle), r(b.Forced), b.Painted, b.Clicks)
}

// tracer collects a performance trace of the tab.
type tracer struct {
	mu     sync.Mutex
	events []json.RawMessage
	done   chan struct{}
	stopL  context.CancelFunc
}

// categories are the trace's: the main thread's tasks and the page's
// User Timing measures.
var categories = []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing", "v8.execute"}

func startTrace(ctx context.Context) (*tracer, error) {
	lctx, stop := context.WithCancel(ctx)
	tr := &tracer{done: make(chan struct{}), stopL: stop}
	if err := chromedp.Listen(lctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			tr.mu.Lock()
			for _, v := range e.Value {
				tr.events = append(tr.events, json.RawMessage(slices.Clone([]byte(v))))
			}
			tr.mu.Unlock()
		case *tracing.EventTracingComplete:
			close(tr.done)
		}
	}); err != nil {
		stop()
		return nil, err
	}
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, tracing.Start, tracing.StartParams{
			TransferMode: tracing.StartTransferModeReportEvents,
			TraceConfig:  &tracing.TraceConfig{IncludedCategories: categories},
		})
		return err
	}))
	if err != nil {
		stop()
		return nil, fmt.Errorf("start the trace: %w", err)
	}
	return tr, nil
}

// stop ends the trace and breaks it down.
func (tr *tracer) stop(ctx context.Context) (Breakdown, error) {
	defer tr.stopL()
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, tracing.End, cdp.Empty{})
		return err
	}))
	if err != nil {
		return Breakdown{}, fmt.Errorf("end the trace: %w", err)
	}
	select {
	case <-tr.done:
	case <-time.After(30 * time.Second):
		return Breakdown{}, fmt.Errorf("the trace did not complete")
	case <-ctx.Done():
		return Breakdown{}, ctx.Err()
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var evs []event
	for _, raw := range tr.events {
		var e event
		if json.Unmarshal(raw, &e) == nil {
			evs = append(evs, e)
		}
	}
	return breakdown(evs)
}

// event is a trace event (the Trace Event Format): ts and dur in
// microseconds.
type event struct {
	Name string  `json:"name"`
	Cat  string  `json:"cat"`
	Ph   string  `json:"ph"`
	Pid  int     `json:"pid"`
	Tid  int     `json:"tid"`
	TS   float64 `json:"ts"`
	Dur  float64 `json:"dur"`
	ID   string  `json:"id"`
	ID2  struct {
		Local string `json:"local"`
	} `json:"id2"`
	Args struct {
		Name string `json:"name"`
	} `json:"args"`
}

// kinds maps the main thread's trace events to the breakdown's kinds; an
// event not listed is of its parent's kind, or Other at the top.
var kinds = map[string]string{
	"FunctionCall": "script", "EvaluateScript": "script", "EventDispatch": "script", "TimerFire": "script",
	"FireAnimationFrame": "script", "XHRReadyStateChange": "script", "XHRLoad": "script", "RunMicrotasks": "script",
	"v8.compile": "script", "v8.run": "script", "V8.Execute": "script", "v8.callFunction": "script",
	"MinorGC": "script", "MajorGC": "script", "BlinkGC.AtomicPhase": "script", "V8.GC_SCAVENGER": "script",
	"ParseHTML":        "parse",
	"UpdateLayoutTree": "style", "RecalculateStyles": "style", "ParseAuthorStyleSheet": "style",
	"Layout": "layout", "PrePaint": "layout", "UpdateLayer": "layout", "UpdateLayerTree": "layout", "IntersectionObserverController::computeIntersections": "layout",
	"Paint": "paint", "PaintImage": "paint", "Layerize": "paint", "Commit": "paint", "CompositeLayers": "paint", "PaintSetup": "paint", "RasterTask": "paint",
}

// span is a complete event on the main thread.
type span struct {
	name       string
	start, end float64
}

// breakdown cuts the main thread's work into the windows of the page's
// measures.
func breakdown(evs []event) (Breakdown, error) {
	// The renderer's main thread, and the measures' windows.
	mains := map[[2]int]bool{}
	for _, e := range evs {
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			mains[[2]int{e.Pid, e.Tid}] = true
		}
	}
	type window struct{ start, end float64 }
	var wins []window
	open := map[string]float64{}
	pid := -1
	for _, e := range evs {
		if e.Name != Measure || !slices.Contains(strings.Split(e.Cat, ","), "blink.user_timing") {
			continue
		}
		id := e.ID + e.ID2.Local
		switch e.Ph {
		case "b", "S":
			open[id] = e.TS
			pid = e.Pid
		case "e", "F":
			if s, ok := open[id]; ok {
				wins = append(wins, window{s, e.TS})
				delete(open, id)
			}
		}
	}
	if len(wins) == 0 {
		return Breakdown{}, fmt.Errorf("the trace holds no %q measure: the page did not record its clicks", Measure)
	}
	var spans []span
	for _, e := range evs {
		if e.Pid != pid || !mains[[2]int{e.Pid, e.Tid}] || e.Ph != "X" {
			continue
		}
		spans = append(spans, span{e.Name, e.TS, e.TS + e.Dur})
	}
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.start != b.start:
			return cmpF(a.start, b.start)
		default:
			return cmpF(b.end, a.end) // the enclosing one first
		}
	})
	var b Breakdown
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	for _, w := range wins {
		b.Clicks++
		b.Window += us(w.end - w.start)
		self := selfTimes(spans, w.start, w.end)
		for k, v := range self.byKind {
			switch k {
			case "script":
				b.Script += us(v)
			case "parse":
				b.Parse += us(v)
			case "style":
				b.Style += us(v)
			case "layout":
				b.Layout += us(v)
			case "paint":
				b.Paint += us(v)
			default:
				b.Other += us(v)
			}
		}
		b.Forced += us(self.forced)
		if paintedAfterLoad(spans, w.start, w.end) {
			b.Painted++
		}
	}
	b.Idle = max(0, b.Window-b.Busy())
	return b, nil
}

// selves is the self time of the spans inside a window, by kind, and the
// style and layout run inside a script.
type selves struct {
	byKind map[string]float64
	forced float64
}

// selfTimes sums, by kind, the self time of the spans (sorted by start,
// enclosing first) clipped to [from, to], and the style and layout that
// a script forced: each outermost style or layout span inside a script.
func selfTimes(spans []span, from, to float64) selves {
	out := selves{byKind: map[string]float64{}}
	type frame struct {
		span
		kind   string
		script bool // a script encloses it, or it is one
		forced bool // it is, or lies inside, forced style or layout
	}
	var stack []frame
	clip := func(s span) float64 { return max(0, min(s.end, to)-max(s.start, from)) }
	for _, s := range spans {
		if s.end <= from || s.start >= to {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
			stack = stack[:len(stack)-1]
		}
		f := frame{span: s, kind: kinds[s.name]}
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			if f.kind == "" {
				f.kind = top.kind
			}
			f.script, f.forced = top.script, top.forced
			out.byKind[top.kind] -= clip(s) // the child's time is not its parent's own
		}
		if f.kind == "" {
			f.kind = "other"
		}
		if f.script && !f.forced && (f.kind == "style" || f.kind == "layout") {
			f.forced = true
			out.forced += clip(s)
		}
		f.script = f.script || f.kind == "script"
		out.byKind[f.kind] += clip(s)
		stack = append(stack, f)
	}
	return out
}

// paintedAfterLoad reports whether, inside [from, to], a Paint or Commit
// starts after the last XHRLoad ends: the answer's frame was drawn.
func paintedAfterLoad(spans []span, from, to float64) bool {
	loaded := -1.0
	for _, s := range spans {
		if s.name == "XHRLoad" && s.start >= from && s.end <= to {
			loaded = max(loaded, s.end)
		}
	}
	if loaded < 0 {
		return false
	}
	for _, s := range spans {
		if (s.name == "Paint" || s.name == "Commit") && s.start >= loaded && s.end <= to {
			return true
		}
	}
	return false
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
