package modelstate

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/nqueens/configurator/internal/web/problem"
)

// An address reads into a state and the state writes the same address
// back: one state, one address.
func TestParseQueryRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  State
	}{
		{"model=abc", State{Model: "abc"}},
		{"model=abc&select=A,B&deselect=C", State{Model: "abc", Select: []string{"A", "B"}, Deselect: []string{"C"}}},
		{"model=abc&select=Wireless+LAN,16+GB&backend=both&why=x86", State{Model: "abc", Select: []string{"Wireless LAN", "16 GB"}, Backend: "both", Why: "x86"}},
		{"model=abc&find=ftp&show=forced&open=A,-B&from=200", State{Model: "abc", Find: "ftp", Show: Forced, Open: []string{"A", "-B"}, From: 200}},
		{"model=abc&select=a.b:c/d", State{Model: "abc", Select: []string{"a.b:c/d"}}},
	} {
		v, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Parse(v)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.query, err)
			continue
		}
		if st.Model != tc.want.Model || !slices.Equal(st.Select, tc.want.Select) || !slices.Equal(st.Deselect, tc.want.Deselect) ||
			st.Backend != tc.want.Backend || st.Why != tc.want.Why || st.Find != tc.want.Find || st.Show != tc.want.Show ||
			!slices.Equal(st.Open, tc.want.Open) || st.From != tc.want.From {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.query, st, tc.want)
		}
		if got := st.Query(); got != tc.query {
			t.Errorf("Parse(%q).Query() = %q", tc.query, got)
		}
	}
}

// A malformed address is a 400 that says what is wrong, never a state
// quietly different from the one asked for.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		query  string
		status int
	}{
		{"", http.StatusBadRequest},
		{"model=", http.StatusBadRequest},
		{"model=../../etc", http.StatusBadRequest},
		{"model=abc&model=def", http.StatusBadRequest},
		{"model=abc&select=A&select=B", http.StatusBadRequest},
		{"model=abc&show=everything", http.StatusBadRequest},
		{"model=abc&from=-1", http.StatusBadRequest},
		{"model=abc&from=x", http.StatusBadRequest},
	} {
		v, _ := url.ParseQuery(tc.query)
		_, err := Parse(v)
		var p *problem.Problem
		if !errors.As(err, &p) || p.Status != tc.status || p.Message == "" {
			t.Errorf("Parse(%q) = %v, want a %d problem", tc.query, err, tc.status)
		}
	}
}

func TestParseAction(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  Action
		kept  bool
		err   bool
	}{
		{"model=a", Action{}, false, false},
		{"model=a&pick=X", Action{Pick, "X"}, true, false},
		{"model=a&drop=X", Action{Drop, "X"}, true, false},
		{"model=a&undo=X", Action{Undo, "X"}, true, false},
		{"model=a&room=X", Action{Room, "X"}, true, false},
		{"model=a&ask=X", Action{Ask, "X"}, true, false},
		{"model=a&close=why", Action{Close, "why"}, true, false},
		{"model=a&toggle=-X", Action{Toggle, "-X"}, false, false},
		{"model=a&pick=X&drop=Y", Action{}, false, true},
	} {
		v, _ := url.ParseQuery(tc.query)
		a, err := ParseAction(v)
		if (err != nil) != tc.err || a != tc.want || a.Kept() != tc.kept {
			t.Errorf("ParseAction(%q) = %+v (kept %t), %v; want %+v (kept %t), error %t", tc.query, a, a.Kept(), err, tc.want, tc.kept, tc.err)
		}
	}
}

func TestWithoutAndDecided(t *testing.T) {
	st := State{Model: "m", Select: []string{"A", "B"}, Deselect: []string{"C"}}
	got := st.Without("B", "C")
	if !slices.Equal(got.Select, []string{"A"}) || len(got.Deselect) != 0 {
		t.Errorf("Without(B, C) = %+v", got)
	}
	if !slices.Equal(st.Select, []string{"A", "B"}) {
		t.Errorf("Without changed the state it was called on: %+v", st)
	}
	for name, want := range map[string][2]bool{"A": {true, true}, "C": {true, false}, "D": {false, false}} {
		if d, s := st.Decided(name); d != want[0] || s != want[1] {
			t.Errorf("Decided(%s) = %t, %t; want %v", name, d, s, want)
		}
	}
}
