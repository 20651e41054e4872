package server

import (
	"regexp"
	"strings"
	"testing"
)

// TestComparisonWords: the one page's comparison of the backends shows
// the times of computed answers only: an answer remembered from a step
// before is shown as remembered, with no time and no work, and its
// backend's time is not counted in the page's own figure; a computed one
// has its times and its work in each backend's own terms.
func TestComparisonWords(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	work := regexp.MustCompile(`<dt>(BDD|SAT)</dt><dd>([^<]*)</dd>`)
	duration := regexp.MustCompile(`^[0-9.]+ (ns|µs|ms|s)$`)
	cells := func(body, row string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<td>([^<]*)</td>`).FindAllStringSubmatch(between(body, `>`+row+`</th>`, `</tr>`), -1) {
			out = append(out, m[1])
		}
		return out
	}

	// A new board: both computed.
	_, body := get(t, ts, "/?model=queens-8&select=a1,e2&backend=both")
	w := work.FindAllStringSubmatch(body, -1)
	if len(w) != 2 || !regexp.MustCompile(`^2,451 nodes in the diagram; [0-9,]+ visited$`).MatchString(w[0][2]) || !strings.Contains(w[1][2], "solver call") {
		t.Fatalf("the backends' work on a new board: %q, want the BDD's nodes visited and SAT's solver calls", w)
	}
	for _, c := range cells(body, "Whole step") {
		if !duration.MatchString(c) {
			t.Errorf("a computed step's time is %q, want a duration", c)
		}
	}
	if ns := regexp.MustCompile(`data-backend-ns="([0-9]+)"`).FindStringSubmatch(body); ns == nil || ns[1] == "0" {
		t.Errorf("the backends' time of a computed step: %q", ns)
	}

	// The same board again: both remember their answers.
	_, body = get(t, ts, "/?model=queens-8&select=a1,e2&backend=both")
	for _, m := range work.FindAllStringSubmatch(body, -1) {
		if m[2] != "none: the answer for these decisions was remembered" {
			t.Errorf("%s's work on a board seen before: %q, want a remembered answer", m[1], m[2])
		}
	}
	for _, row := range []string{"Valid domains", "Count", "Whole step"} {
		if got := cells(body, row); strings.Join(got, " ") != "remembered remembered" {
			t.Errorf("%s beside remembered answers: %q", row, got)
		}
	}
	if !strings.Contains(body, `data-backend-ns="0"`) {
		t.Errorf("remembered answers are counted as the backends' time")
	}
	if n := countIn(body, "compiled in"); n != 2 {
		t.Errorf("%d compile times, want one per backend", n)
	}
}
