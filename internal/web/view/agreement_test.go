package view

import (
	"context"
	"html"
	"strings"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/modelstate"
)

// boardDomains is what a backend answers of the 8×8 board under the
// queens selected: its own session's domains.
func boardDomains(t *testing.T, b configurator.Backend, queens ...string) (*feature.Model, *configurator.Domains) {
	t.Helper()
	ctx := context.Background()
	m, err := configurator.New(8, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := b.Compile(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := configurator.ParseDecisions(sp.FeatureModel(), queens, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := configurator.NewFeatureSession(ctx, sp, ds)
	if err != nil {
		t.Fatal(err)
	}
	return sp.FeatureModel(), s.Domains()
}

// TestModelAgreementAlarm: in Both, backends that answer the same say so
// in a badge; two runs whose domains or counts differ, as a faulty
// backend's would, raise the alarm on the page, naming the squares they
// differ on and the counts; a backend that gives no count, or could not
// answer, is named in the count's note.
func TestModelAgreementAlarm(t *testing.T) {
	bddB, satB := bdd.New(bdd.Options{}), sat.New(sat.Options{CountCap: 1000})
	lineup, err := board.NewLineup(bddB, satB)
	if err != nil {
		t.Fatal(err)
	}
	site := &Site{Lineup: lineup, Version: "test"}
	tmpl, err := ParseTemplates()
	if err != nil {
		t.Fatal(err)
	}
	m, bddA1 := boardDomains(t, bddB, "a1")
	_, satA1 := boardDomains(t, satB, "a1")
	_, satEmpty := boardDomains(t, satB)
	recount := *satA1
	recount.Configurations = satEmpty.Configurations // a1's domains, the empty board's count
	uncounted := *satA1
	uncounted.Configurations = nil // as past the boards SAT counts

	for _, tc := range []struct {
		name    string
		sat     ModelRun
		want    []string
		notWant []string
	}{
		{"the same answers", ModelRun{Backend: "sat", Domains: satA1},
			[]string{`<p class="badge agree" id="agreement" title="BDD and SAT agree on every feature">✓ BDD and SAT agree on every feature</p>`, `<p class="count" id="count">4 configurations</p>`},
			[]string{`class="alarm"`}},
		// SAT answers the empty board instead of a1: 41 squares and a1
		// differ, of which the alarm names the first ten.
		{"other domains", ModelRun{Backend: "sat", Domains: satEmpty},
			[]string{`<div class="alarm" id="agreement" role="alert"><p><strong>BDD and SAT DISAGREE</strong></p>`,
				`<li>a1: BDD says selected by you, SAT says free</li>`, `<li>b1: BDD says forced off, SAT says free</li>`,
				`<li>BDD counts 4 configurations, SAT 92</li>`},
			[]string{`✓`, `feature 0`}},
		{"the same domains, another count", ModelRun{Backend: "sat", Domains: &recount},
			[]string{`<strong>BDD and SAT DISAGREE</strong>`, `<li>BDD counts 4 configurations, SAT 92</li>`},
			[]string{`says free`}},
		{"a backend that does not count", ModelRun{Backend: "sat", Domains: &uncounted},
			[]string{`✓ BDD and SAT agree on every feature`, `<p class="count-note" id="count-note">SAT does not count the configurations of this model.</p>`},
			nil},
		{"a backend that could not answer", ModelRun{Backend: "sat", Err: configurator.ErrTooLarge},
			[]string{`<p class="count-note" id="count-note">SAT could not answer: `},
			[]string{`id="agreement"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := modelstate.State{Model: configurator.BoardID(8), Backend: "both", Select: []string{"a1"}}
			r := &ModelStep{State: st, Model: m, Runs: []ModelRun{{Backend: "bdd", Domains: bddA1}, tc.sat}}
			var b strings.Builder
			if err := tmpl.ExecuteTemplate(&b, "model-app", NewModelApp(site, r)); err != nil {
				t.Fatal(err)
			}
			page := html.UnescapeString(b.String())
			for _, w := range tc.want {
				if !strings.Contains(page, w) {
					t.Errorf("the page lacks %s\n%s", w, between(page, `<div class="status">`, `</div>`))
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(page, w) {
					t.Errorf("the page has %s\n%s", w, between(page, `<div class="status">`, `</div>`))
				}
			}
			if strings.Contains(tc.name, "other domains") {
				if n := strings.Count(between(page, `id="agreement"`, `</ul>`), "<li>"); n != 11 {
					t.Errorf("the alarm lists %d lines, want 10 squares and the counts", n)
				}
			}
		})
	}
}

// between is the part of s from the first start to the end after it, ""
// when there is none.
func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		return s[i:]
	}
	return s[i : i+j+len(end)]
}
