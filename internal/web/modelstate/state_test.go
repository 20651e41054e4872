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
		{"model=abc&select=%22Size,+large%22,Colour&deselect=%22say+%22%22hi%22%22,+then%22&open=%22*Size,+large%22", State{Model: "abc",
			Select: []string{"Size, large", "Colour"}, Deselect: []string{`say "hi", then`}, Open: []string{"*Size, large"}}},
		{"model=abc&select=A&diagram=1", State{Model: "abc", Select: []string{"A"}, Diagram: true}},
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
			!slices.Equal(st.Open, tc.want.Open) || st.From != tc.want.From || st.Diagram != tc.want.Diagram {
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
		{"model=abc&diagram=yes", http.StatusBadRequest},
		{`model=abc&select="A,B`, http.StatusBadRequest},
		{`model=abc&select="A"B,C`, http.StatusBadRequest},
	} {
		v, _ := url.ParseQuery(tc.query)
		_, err := Parse(v)
		var p *problem.Problem
		if !errors.As(err, &p) || p.Status != tc.status || p.Message == "" {
			t.Errorf("Parse(%q) = %v, want a %d problem", tc.query, err, tc.status)
		}
	}
}

// A list of names reads as it is written, a name with a comma (or a
// leading quote, or spaces around it) between double quotes; whatever a
// list holds, JoinNames writes it so that SplitNames reads it back.
func TestSplitJoinNames(t *testing.T) {
	for _, tc := range []struct {
		list string
		want []string
	}{
		{"", nil},
		{"A,B", []string{"A", "B"}},
		{" A , B,,", []string{"A", "B"}},
		{`"Size, large",Colour`, []string{"Size, large", "Colour"}},
		{`a"b,"""quoted"""`, []string{`a"b`, `"quoted"`}},
		{`"a,b" , "c"`, []string{"a,b", "c"}},
		{`","`, []string{","}},
	} {
		got, err := SplitNames(tc.list)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitNames(%q) = %q, %v; want %q", tc.list, got, err, tc.want)
		}
	}
	for _, names := range [][]string{
		{"A", "B"},
		{"Size, large", `say "hi", then`, `"`, ",", `a"b`, " padded ", "x,"},
	} {
		list := JoinNames(names)
		got, err := SplitNames(list)
		if err != nil || !slices.Equal(got, names) {
			t.Errorf("SplitNames(JoinNames(%q)) = SplitNames(%q) = %q, %v", names, list, got, err)
		}
	}
	if got := JoinNames([]string{"Wireless LAN", "x86"}); got != "Wireless LAN,x86" {
		t.Errorf("plain names are written %q", got)
	}
}

func TestParseOpen(t *testing.T) {
	for in, want := range map[string]Opened{
		"A":  {Feature: "A"},
		"-A": {Feature: "A", Closed: true},
		"*A": {Feature: "A", All: true},
	} {
		if got := ParseOpen(in); got != want {
			t.Errorf("ParseOpen(%q) = %+v, want %+v", in, got, want)
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
		{"model=a&toggle=*X", Action{Toggle, "*X"}, false, false},
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
