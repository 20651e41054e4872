package view

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/words"
)

// The page's charts are small SVG line charts drawn here and inlined into
// the page (no script, no inline style: the stylesheet colours them by
// class). Every point carries a <title>, so hovering it, or a screen
// reader, gives its value.

// Chart is one chart, laid out in the SVG's user units.
type Chart struct {
	ID, Title string
	W, H      int
	// The plot area.
	Left, Right, Top, Bottom float64
	Series                   []Series
	XTicks, YTicks           []Tick
	XLabel, YLabel           string
	px, py                   func(float64) float64 // data to user units
}

// Series is one line of a chart.
type Series struct {
	Name, Class string
	Points      string // the polyline's "x,y x,y"
	Dots        []Dot
}

// Dot is a point of a line, with its value in words.
type Dot struct {
	X, Y  float64
	Title string
}

// Tick is an axis tick: its place along the axis and its label.
type Tick struct {
	Pos   float64
	Label string
}

// series is the data of a chart's line: ys[i] at xs[i]; a y of 0 or less
// is a value not known, left out.
type series struct {
	name   string
	xs, ys []float64
	label  func(x, y float64) string // a point's value in words
}

// axis says how a chart's y values are scaled and labelled.
type axis struct {
	log   bool
	label func(y float64) string
}

// timeAxis is a logarithmic axis of durations in nanoseconds.
var timeAxis = axis{log: true, label: func(y float64) string { return words.Duration(time.Duration(y)) }}

// lineChart lays out lines over x values from xmin to xmax, labelled by
// xlabel at each of xticks.
func lineChart(id, title string, lines []series, y axis, xticks []float64, xlabel func(x float64) string) *Chart {
	c := &Chart{ID: id, Title: title, W: 360, H: 200, Right: 340, Top: 10, Bottom: 172}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for i, x := range l.xs {
			if l.ys[i] <= 0 {
				continue
			}
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ymin, ymax = math.Min(ymin, l.ys[i]), math.Max(ymax, l.ys[i])
		}
	}
	for _, x := range xticks {
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
	}
	if math.IsInf(ymin, 0) {
		return nil
	}
	if xmax == xmin {
		xmin, xmax = xmin-1, xmax+1
	}
	fy := func(v float64) float64 { return v }
	if y.log {
		fy = math.Log10
		// Whole decades, so that the ticks are 1, 10, 100 of a unit.
		ymin, ymax = math.Pow(10, math.Floor(math.Log10(ymin))), math.Pow(10, math.Ceil(math.Log10(ymax)))
	} else {
		ymin = 0
		ymax = niceCeil(ymax)
	}
	if ymax == ymin {
		ymax = ymin * 10
	}
	c.py = func(v float64) float64 {
		return c.Bottom - (fy(v)-fy(ymin))/(fy(ymax)-fy(ymin))*(c.Bottom-c.Top)
	}
	if y.log {
		for d := ymin; d <= ymax*1.0001; d *= 10 {
			c.YTicks = append(c.YTicks, Tick{Pos: round1(c.py(d)), Label: y.label(d)})
		}
		// A span of many decades keeps every other tick's label.
		if len(c.YTicks) > 6 {
			for i := range c.YTicks {
				if i%2 == 1 {
					c.YTicks[i].Label = ""
				}
			}
		}
	} else {
		for i := 0; i <= 4; i++ {
			v := ymax * float64(i) / 4
			c.YTicks = append(c.YTicks, Tick{Pos: round1(c.py(v)), Label: y.label(v)})
		}
	}
	// The plot starts right of its widest y label and of the band of
	// the axis's name, so that no label is cut at the SVG's edge.
	widest := 0.0
	for _, t := range c.YTicks {
		widest = max(widest, labelWidth(t.Label))
	}
	c.Left = math.Ceil(yNameBand + widest + tickGap)
	c.px = func(x float64) float64 { return c.Left + (x-xmin)/(xmax-xmin)*(c.Right-c.Left) }
	for _, x := range xticks {
		c.XTicks = append(c.XTicks, Tick{Pos: round1(c.px(x)), Label: xlabel(x)})
	}
	for i, l := range lines {
		sv := Series{Name: l.name, Class: fmt.Sprintf("s%d", i)}
		var pts []string
		for j, x := range l.xs {
			if l.ys[j] <= 0 {
				continue
			}
			d := Dot{X: round1(c.px(x)), Y: round1(c.py(l.ys[j])), Title: l.name + ": " + l.label(x, l.ys[j])}
			sv.Dots = append(sv.Dots, d)
			pts = append(pts, ftoa(d.X)+","+ftoa(d.Y))
		}
		sv.Points = strings.Join(pts, " ")
		c.Series = append(c.Series, sv)
	}
	return c
}

// The y axis's room, in the SVG's user units: the band on the left that
// holds the axis's name (written upwards), the gap between a tick's label
// and the plot, and the width of a label's character, about a digit's at
// the stylesheet's 11px (.chart svg), rounded up.
const (
	yNameBand = 16
	tickGap   = 4
	charWidth = 6.5
)

// labelWidth estimates the width of a tick's label.
func labelWidth(s string) float64 { return float64(utf8.RuneCountInString(s)) * charWidth }

// countAxis is a linear axis of counts, labelled short ("40 M", "2.5 K",
// a thousand and a million) so that a label stays readable on a phone;
// the points' titles keep the whole numbers.
var countAxis = axis{label: words.ShortCount}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// round1 rounds a coordinate to a tenth of a unit, enough for a drawing.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// ftoa writes a coordinate.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// sessionChart plots the trail's whole steps per backend, the i-th of
// names being the i-th time of a step, oldest on the left, on a
// logarithmic scale; nil below two steps.
func sessionChart(names []string, steps []board.Step) *Chart {
	if len(steps) < 2 {
		return nil
	}
	var lines []series
	for i, name := range names {
		l := series{name: name, label: func(x, y float64) string {
			return steps[len(steps)-1-int(x)].Label + ", " + words.Duration(time.Duration(y))
		}}
		for j := range steps {
			st := steps[len(steps)-1-j] // oldest first
			var d time.Duration
			if i < len(st.Times) {
				d = st.Times[i]
			}
			l.xs, l.ys = append(l.xs, float64(j)), append(l.ys, float64(d))
		}
		lines = append(lines, l)
	}
	xticks := make([]float64, len(steps))
	for j := range xticks {
		xticks[j] = float64(j)
	}
	c := lineChart("session-chart", "Each backend's whole step, the last few steps, oldest on the left (logarithmic scale)", lines, timeAxis, xticks,
		func(x float64) string { return steps[len(steps)-1-int(x)].Label })
	if c != nil {
		c.YLabel = "step time"
	}
	return c
}

// YMid is the middle of the plot's height, where the y axis's name is.
func (c *Chart) YMid() float64 { return round1((c.Top + c.Bottom) / 2) }
