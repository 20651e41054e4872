package server

import (
	"regexp"
	"strings"
	"testing"
)

// TestComparisonWords: the timing card compares computed answers only, a
// remembered one shown as remembered; says why a backend gives no count;
// says what each term of a solver's work means; and sums the comparison
// up for the board.
func TestComparisonWords(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	ratios := regexp.MustCompile(`<ul class="ratios" id="ratios"[^>]*>(.*?)</ul>`)
	work := regexp.MustCompile(`<dt>BDD</dt><dd>([^<]*)</dd>`)

	// The same board twice: the second time the BDD remembers its answer.
	get(t, ts, "/?n=8&q=a1,e2&backend=both")
	_, body := get(t, ts, "/?n=8&q=a1,e2&backend=both")
	if w := work.FindStringSubmatch(body); w == nil || !strings.HasSuffix(w[1], "none visited (a remembered answer)") {
		t.Fatalf("the BDD's work on a board seen before: %q, want a remembered answer", w)
	}
	if r := ratios.FindStringSubmatch(body); r == nil || r[1] != "<li>SAT against BDD: no ratio (BDD&#39;s answer was remembered, not computed).</li>" {
		t.Errorf("ratios beside a remembered answer: %q", r)
	}
	if strings.Contains(body, "faster than") {
		t.Errorf("a speed ratio against a remembered answer")
	}

	// A new board: both computed, a ratio.
	_, body = get(t, ts, "/?n=8&q=b1,d2&backend=both")
	if w := work.FindStringSubmatch(body); w == nil || strings.Contains(w[1], "remembered") {
		t.Fatalf("the BDD's work on a new board: %q, want nodes visited", w)
	}
	if r := ratios.FindStringSubmatch(body); r == nil || !regexp.MustCompile(`^<li>(BDD|SAT) [0-9.,]+× faster than (BDD|SAT)</li>$|^<li>BDD and SAT about as fast</li>$`).MatchString(r[1]) {
		t.Errorf("ratios of two computed answers: %q", r)
	}
	sum := regexp.MustCompile(`<p class="sum" id="sum">In sum: BDD paid [0-9.]+ (ns|µs|ms|s) once for this board \(its diagram\), SAT [0-9.]+ (ns|µs|ms|s) \(its clauses\); a step takes BDD about [0-9.]+ (ns|µs|ms|s) and SAT about [0-9.]+ (ns|µs|ms|s), so (BDD is ahead after [0-9,]+ steps?|BDD is ahead from the first step|SAT stays ahead here)\.</p>`)
	if !sum.MatchString(body) {
		t.Errorf("no summing up in Both: %s", regexp.MustCompile(`<p class="sum".*?</p>`).FindString(body))
	}
	for _, term := range []string{"solver call", "decision", "conflict", "learned", "by propagation", "by witness", "by solver"} {
		if !strings.Contains(body, "<dt>"+term+"</dt><dd>") {
			t.Errorf("the term %q is not explained", term)
		}
	}
	if strings.Contains(body, `id="no-count"`) {
		t.Errorf("8×8: both backends count, yet a sentence says one does not")
	}

	// SAT gives no count on a board this size: one sentence says why.
	_, body = get(t, ts, "/?n=12&q=a1&backend=sat")
	if !strings.Contains(body, `<p class="no-count" id="no-count">SAT counts only small boards: a solver finds the solutions one at a time, a call each,`) {
		t.Errorf("12×12 SAT: no sentence says why there is no count")
	}
	if strings.Contains(body, `id="sum"`) {
		t.Errorf("12×12 SAT alone: a summing up of a comparison that is not there")
	}

	// The BDD alone: no solver terms. The scaling chart says where its
	// figures come from and how far each backend goes here.
	_, body = get(t, ts, "/?n=8&backend=bdd")
	note := regexp.MustCompile(`BDD was measured at N = [0-9, and]+ \(the lines join those points\) and goes up to 10×10 here; SAT was measured at N = [0-9, and]+ \(the lines join those points\) and goes up to 16×16 here\.</p>`)
	if !note.MatchString(body) {
		t.Errorf("the scaling chart's note does not say where the figures were measured and how far each backend goes here")
	}
	if strings.Contains(body, `id="terms"`) {
		t.Errorf("the BDD alone: the solver's terms explained")
	}
}

// TestSlipWords: the wording of Make room with one reason and of a switch
// that drops queens.
func TestSlipWords(t *testing.T) {
	cfg := testConfig()
	cfg.BDD.MaxN = 12
	_, ts := newTestServer(t, cfg)
	tests := []struct {
		name, path string
		want, not  []string
	}{
		{"Make room with one reason numbers none",
			"/play?n=12&q=a1,c2,e3&backend=sat&room=h12",
			[]string{`<p class="removes-intro">The square is free once the reason below has lost a queen.</p>`, `breaks the reason.</li>`},
			[]string{`breaks reason 1`}},
		{"Make room with several reasons numbers them",
			"/play?n=8&q=a1,b5&backend=bdd&room=d7",
			[]string{`<p class="removes-intro">Each removal breaks reasons listed below; the square is free once every reason has lost a queen.</p>`, `Removing <b>a1</b> breaks reason 2.`},
			nil},
		{"a switch that drops a queen names it",
			"/?n=16&q=a1,n16&backend=sat",
			[]string{`switching shrinks the board to 12×12, keeping a1; the queen on n16 lies beyond it.`},
			[]string{`of your queens lie`}},
		{"a switch that drops queens names them",
			"/?n=16&q=a1,m14,n16&backend=sat",
			[]string{`keeping a1; the queens on m14 and n16 lie beyond it.`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := get(t, ts, tt.path, "HX-Request", "true")
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %q", w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(body, w) {
					t.Errorf("unexpected %q", w)
				}
			}
		})
	}
}

// TestBadAddressFallbacks: an address that makes no sense shows the longest
// start of it that does, in words that say what is wrong.
func TestBadAddressFallbacks(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	tests := []struct {
		name, path string
		status     int
		want       []string
	}{
		{"a queen twice keeps the first", "/?n=8&q=a1,a1", 400,
			[]string{`a1 is listed twice among the queens.`, `data-href="/?n=8&amp;q=a1&amp;backend=bdd"`, `id="cell-a1"`}},
		{"an empty entry keeps the queens before it", "/?n=8&q=a1,,b5", 400,
			[]string{`The list of queens has an empty entry`, `data-href="/?n=8&amp;q=a1&amp;backend=bdd"`}},
		{"queens before a fault that attack keep the longest start some solution holds", "/?n=8&q=a1,b2,zz", 400,
			[]string{`is not a square`, `data-href="/?n=8&amp;q=a1&amp;backend=bdd"`}},
		{"a size past any number is out of range", "/?n=99999999999999999999", 400,
			[]string{`Board size “99999999999999999999” is out of range: pick a size from 1 to 10.`}},
		{"a board beyond the BDD links to the backend that takes it", "/?n=16", 413,
			[]string{`switch to SAT.</p><p class="alt"><a href="/?n=16&amp;backend=sat">Open the 16×16 board on SAT</a></p>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := get(t, ts, tt.path)
			if res.StatusCode != tt.status {
				t.Errorf("status %d, want %d", res.StatusCode, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("missing %q in\n%s", w, excerpt(body))
				}
			}
		})
	}
	// The link of a missing compiled file too.
	ts = missingFileSetup(t, t.TempDir())
	if _, body := get(t, ts, "/?n=10"); !strings.Contains(body, `<p class="alt"><a href="/?n=10&amp;backend=sat">Open the 10×10 board on SAT</a></p>`) {
		t.Errorf("a board without its compiled file: no link to SAT's in\n%s", excerpt(body))
	}
}
