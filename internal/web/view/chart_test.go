package view

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestChartYLabelsFit: a chart's y labels fit whole between the SVG's left
// edge (past the band of the axis's name) and the plot, at every scale of
// the order panel's node counts (16×16 ranks hold tens of millions) and of
// the step times; counts read short ("12.5 M"), and the rendered chart
// names what its axes count.
func TestChartYLabelsFit(t *testing.T) {
	for _, c := range []struct {
		name   string
		y      axis
		ys     []float64
		labels []string // the y ticks', bottom up; nil: not checked
	}{
		{"8×8 ranks", countAxis, []float64{2, 16, 82, 240, 410, 530, 560, 420}, []string{"0", "250", "500", "750", "1 K"}},
		{"12×12 ranks", countAxis, []float64{12, 600, 14_000, 88_000, 120_000, 91_000}, []string{"0", "50 K", "100 K", "150 K", "200 K"}},
		{"15×15 ranks", countAxis, []float64{15, 8000, 2e6, 14e6, 37e6, 22e6, 4e6}, []string{"0", "12.5 M", "25 M", "37.5 M", "50 M"}},
		{"16×16 ranks", countAxis, []float64{16, 9e6, 95e6, 180e6, 60e6}, []string{"0", "50 M", "100 M", "150 M", "200 M"}},
		{"billions", countAxis, []float64{1, 7.3e9}, []string{"0", "2.5 G", "5 G", "7.5 G", "10 G"}},
		{"step times", timeAxis, []float64{900, 4e4, 3e7, 2.2e9}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			xs := make([]float64, len(c.ys))
			for i := range xs {
				xs[i] = float64(i + 1)
			}
			ch := lineChart("test-chart", c.name, []series{{name: "row", xs: xs, ys: c.ys, label: func(x, y float64) string { return "" }}},
				c.y, xs, func(x float64) string { return strconv.Itoa(int(x)) })
			var labels []string
			for _, tk := range ch.YTicks {
				if tk.Label == "" {
					continue
				}
				labels = append(labels, tk.Label)
				// The label ends tickGap left of the plot and must start
				// right of the axis's name.
				if start := ch.Left - tickGap - labelWidth(tk.Label); start < yNameBand {
					t.Errorf("label %q starts at %.1f, inside the axis's name (%d) or past the SVG's edge; plot at %.1f", tk.Label, start, yNameBand, ch.Left)
				}
				if n := len([]rune(tk.Label)); n > 8 {
					t.Errorf("label %q has %d characters, more than a phone's chart shows readably", tk.Label, n)
				}
			}
			if c.labels != nil && !slices.Equal(labels, c.labels) {
				t.Errorf("labels %q, want %q", labels, c.labels)
			}
			if ch.Left > ch.Right/3 {
				t.Errorf("the plot starts at %.1f of %d: the labels take a third of the chart", ch.Left, ch.W)
			}
		})
	}
}

// TestChartNamesItsAxes: the rendered chart writes its axes' names, so
// that a short label ("50 M") says what it counts.
func TestChartNamesItsAxes(t *testing.T) {
	tmpl, err := ParseTemplates()
	if err != nil {
		t.Fatal(err)
	}
	ch := lineChart("rank-chart", "Nodes", []series{{name: "row", xs: []float64{1, 2, 3}, ys: []float64{5e6, 40e6, 9e6}, label: func(x, y float64) string { return "" }}},
		countAxis, []float64{1, 2, 3}, func(x float64) string { return strconv.Itoa(int(x)) })
	ch.XLabel, ch.YLabel = "rank", "nodes"
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "chart", ch); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	for _, want := range []string{">rank</text>", ">nodes</text>", ">37.5 M</text>", ">50 M</text>"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart has no %q:\n%s", want, svg)
		}
	}
	if m := regexp.MustCompile(`>[0-9,]{6,}</text>`).FindString(svg); m != "" {
		t.Errorf("a long count %s on the axis", m)
	}
}
