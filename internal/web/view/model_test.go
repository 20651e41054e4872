package view

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/uvl"
	"github.com/nqueens/configurator/internal/web/modelstate"
)

// wideModel is a UVL model of a root with branches optional children,
// each with kids optional children, each with grandkids.
func wideModel(t *testing.T, branches, kids, grandkids int) *feature.Model {
	t.Helper()
	var b strings.Builder
	b.WriteString("features\n\tR\n\t\toptional\n")
	for i := range branches {
		fmt.Fprintf(&b, "\t\t\tB%d\n\t\t\t\toptional\n", i)
		for j := range kids {
			fmt.Fprintf(&b, "\t\t\t\t\tK%d_%d\n", i, j)
			if grandkids > 0 {
				b.WriteString("\t\t\t\t\t\talternative\n")
				for k := range grandkids {
					fmt.Fprintf(&b, "\t\t\t\t\t\t\tG%d_%d_%d\n", i, j, k)
				}
			}
		}
	}
	m, err := uvl.Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// domainsOf returns domains with every feature free but those selected.
func domainsOf(m *feature.Model, sel ...string) *configurator.Domains {
	d := &configurator.Domains{States: make([]configurator.FeatureState, len(m.Features))}
	for _, n := range sel {
		f, _ := m.ID(n)
		d.States[f] = configurator.Selected
	}
	return d
}

// shown lists the names of the rows laid out, depth first.
func shown(rows []*FeatureRow) []string {
	var out []string
	var walk func(r *FeatureRow)
	walk = func(r *FeatureRow) {
		out = append(out, r.Name)
		for _, g := range r.Groups {
			for _, c := range g.Rows {
				walk(c)
			}
		}
	}
	for _, r := range rows {
		walk(r)
	}
	return out
}

// The tree opens level after level while the rows fit in treeRows, opens
// the path to every decision and to the feature asked about, and opens or
// closes what the person toggled; a flat list pages.
func TestFeatureRows(t *testing.T) {
	big := wideModel(t, 20, 10, 5) // 1 + 20 + 200 + 1000 features
	for _, tc := range []struct {
		name    string
		st      modelstate.State
		sel     []string
		rows    int      // rows laid out
		has     []string // among them
		hasNot  []string
		closed  string // a row shown closed, with how many it hides
		hidden  string
		note    bool
		says    string // in the note
		flat    bool
		pageEnd bool // a link to the next page
	}{
		{name: "levels that fit", rows: 1 + 20 + 200, has: []string{"R", "B0", "K19_9"}, hasNot: []string{"G0_0_0"}, closed: "K3_4", hidden: "5 features"},
		{name: "the path to a decision", sel: []string{"G7_3_2"}, rows: 1 + 20 + 200 + 5, has: []string{"G7_3_0", "G7_3_2"}, hasNot: []string{"G7_4_0"}},
		{name: "the path to Why?", st: modelstate.State{Why: "G1_1_1"}, rows: 221 + 5, has: []string{"G1_1_4"}},
		{name: "opened by the person", st: modelstate.State{Open: []string{"K0_0", "K0_1"}}, rows: 221 + 10, has: []string{"G0_1_4"}},
		{name: "closed by the person", st: modelstate.State{Open: []string{"-B5"}}, rows: 221 - 10, hasNot: []string{"K5_0"}, closed: "B5", hidden: "60 features"},
		{name: "a search", st: modelstate.State{Find: "g7_3_"}, rows: 5, has: []string{"G7_3_4"}, flat: true, note: true, says: "5 features match"},
		{name: "a filter", st: modelstate.State{Show: modelstate.Mine}, sel: []string{"B2", "K2_2"}, rows: 2, has: []string{"B2", "K2_2"}, flat: true, note: true, says: "2 decided features."},
		{name: "a long list pages", st: modelstate.State{Find: "G"}, rows: pageRows, flat: true, note: true, pageEnd: true},
		{name: "its last page", st: modelstate.State{Find: "G", From: 1000 - 1}, rows: pageRows, flat: true, note: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLister(tc.st, big, domainsOf(big, tc.sel...), nil)
			var rows []*FeatureRow
			var note string
			var next *Link
			if l.tree() {
				rows, note = l.treeRows()
			} else {
				rows, note, _, next = l.flatRows()
				if tc.pageEnd != (next != nil) {
					t.Errorf("next page %v, want one: %t", next, tc.pageEnd)
				}
				if tc.pageEnd && !strings.Contains(next.Href, fmt.Sprintf("from=%d", pageRows)) {
					t.Errorf("the next page is %s", next.Href)
				}
			}
			if l.tree() == tc.flat {
				t.Errorf("tree %t, want %t", l.tree(), !tc.flat)
			}
			names := shown(rows)
			if len(names) != tc.rows {
				t.Errorf("%d rows, want %d", len(names), tc.rows)
			}
			for _, n := range tc.has {
				if !contains(names, n) {
					t.Errorf("%s is not shown", n)
				}
			}
			for _, n := range tc.hasNot {
				if contains(names, n) {
					t.Errorf("%s is shown", n)
				}
			}
			if (note != "") != tc.note || !strings.Contains(note, tc.says) {
				t.Errorf("note %q", note)
			}
			if tc.closed != "" {
				r := find(rows, tc.closed)
				if r == nil || r.Open || !r.Kids || r.Hidden != tc.hidden {
					t.Errorf("%s: %+v, want closed, hiding %s", tc.closed, r, tc.hidden)
				}
			}
		})
	}
}

// A wide group lists its first groupRows children and the ones on the
// way to a decision, and says how many more it holds; asked for all of
// them, a tree of more rows than a page ever lists stops at maxRows and
// says so; a CNF file has no tree.
func TestFeatureRowsBounded(t *testing.T) {
	m := wideModel(t, 1, 3000, 0) // a branch of 3,000 children
	for _, tc := range []struct {
		name   string
		st     modelstate.State
		sel    []string
		rows   int
		more   string // what B0's group says it does not list
		moreAt int    // the listed row its button stands before
		note   bool
	}{
		{name: "opened", st: modelstate.State{Open: []string{"B0"}}, rows: 2 + groupRows, more: "2,975 more features", moreAt: groupRows},
		{name: "a decision further on", sel: []string{"K0_2999"}, rows: 2 + groupRows + 1, more: "2,974 more features", moreAt: groupRows},
		{name: "every child asked for", st: modelstate.State{Open: []string{"*B0"}}, rows: maxRows, more: "2,502 more features", moreAt: maxRows - 2, note: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLister(tc.st, m, domainsOf(m, tc.sel...), nil)
			rows, note := l.treeRows()
			names := shown(rows)
			if len(names) != tc.rows || (note != "") != tc.note {
				t.Errorf("%d rows, note %q; want %d, a note: %t", len(names), note, tc.rows, tc.note)
			}
			for _, s := range tc.sel {
				if !contains(names, s) {
					t.Errorf("the decision %s is not listed", s)
				}
			}
			b0 := find(rows, "B0")
			if b0 == nil || len(b0.Groups) != 1 || b0.Groups[0].More != tc.more || b0.Groups[0].Parent != "B0" {
				t.Fatalf("B0: %+v; want its group to say %q", b0, tc.more)
			}
			// The button stands where the first child not listed would.
			if g := b0.Groups[0]; g.MoreAt != tc.moreAt {
				t.Errorf("the button stands before row %d, want %d", g.MoreAt, tc.moreAt)
			}
		})
	}
	cnf, err := dimacs.Parse([]byte("p cnf 3 1\n1 2 3 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l := newLister(modelstate.State{}, cnf, domainsOf(cnf), nil); l.tree() {
		t.Error("a CNF file is laid out as a tree")
	}
}

func contains(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}

func find(rows []*FeatureRow, name string) *FeatureRow {
	for _, r := range rows {
		if r.Name == name {
			return r
		}
		for _, g := range r.Groups {
			if f := find(g.Rows, name); f != nil {
				return f
			}
		}
	}
	return nil
}

func TestCount(t *testing.T) {
	for _, tc := range []struct{ n, want string }{
		{"0", "0"},
		{"92", "92"},
		{"123456789012345", "123,456,789,012,345"},
		{"1234567890123456", "about 1.23 × 10¹⁵"},
		{"9996000000000000", "about 1.00 × 10¹⁶"},
		{"290849944863956420152562726317266272782886301369", "about 2.91 × 10⁴⁷"},
	} {
		n, _ := new(big.Int).SetString(tc.n, 10)
		if got := count(n); got != tc.want {
			t.Errorf("count(%s) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestModelTimingBooksEveryBackend: each backend's time is booked to it,
// a backend that failed past its deadline included, so that nothing of
// theirs is counted as the rest of the server.
func TestModelTimingBooksEveryBackend(t *testing.T) {
	d := &configurator.Domains{States: []configurator.FeatureState{configurator.Open}, Work: configurator.Work{Domains: 3 * time.Millisecond}}
	r := &ModelStep{Runs: []ModelRun{
		{Backend: "bdd", Domains: d, Took: 4 * time.Millisecond},
		{Backend: "sat", Err: context.DeadlineExceeded, Took: 10 * time.Second},
	}}
	tm := modelTiming(r)
	if tm.Backend != int64(10*time.Second+4*time.Millisecond) {
		t.Errorf("the backends' time %v, want 10.004s", time.Duration(tm.Backend))
	}
	if got := tm.Rows[2].Cells; len(got) != 2 || got[0] != "4.00 ms" || got[1] != "10.0 s" {
		t.Errorf("whole step %q", got)
	}
}
