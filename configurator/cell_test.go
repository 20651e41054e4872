package configurator_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
)

func TestCellNotation(t *testing.T) {
	tests := []struct {
		cell configurator.Cell
		name string
	}{
		{configurator.Cell{Row: 0, Col: 0}, "a1"},
		{configurator.Cell{Row: 4, Col: 2}, "c5"},
		{configurator.Cell{Row: 7, Col: 7}, "h8"},
		{configurator.Cell{Row: 0, Col: 25}, "z1"},
		{configurator.Cell{Row: 0, Col: 26}, "aa1"},
		{configurator.Cell{Row: 11, Col: 27}, "ab12"},
		{configurator.Cell{Row: 0, Col: 51}, "az1"},
		{configurator.Cell{Row: 0, Col: 52}, "ba1"},
		{configurator.Cell{Row: 99, Col: 701}, "zz100"},
		{configurator.Cell{Row: 999, Col: 702}, "aaa1000"},
	}
	for _, tt := range tests {
		if got := tt.cell.String(); got != tt.name {
			t.Errorf("%#v.String() = %q, want %q", tt.cell, got, tt.name)
		}
		got, err := configurator.ParseCell(tt.name)
		if err != nil || got != tt.cell {
			t.Errorf("ParseCell(%q) = %v, %v, want %#v", tt.name, got, err, tt.cell)
		}
	}
}

func TestParseCellLenient(t *testing.T) {
	// Case and surrounding space do not matter.
	for _, s := range []string{"C5", " c5", "c5\t", " C5 "} {
		if got, err := configurator.ParseCell(s); err != nil || got != (configurator.Cell{Row: 4, Col: 2}) {
			t.Errorf("ParseCell(%q) = %v, %v, want c5", s, got, err)
		}
	}
}

func TestParseCellErrors(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", "1", "a0", "z0", "1a", "a01", "a1b", "a-1", "a+1", "a 1",
		"é1", "a1.5", "aaaaaaa1", "a1234567", "abcdefghij123", "ą1",
	} {
		if c, err := configurator.ParseCell(s); !errors.Is(err, configurator.ErrNotation) {
			t.Errorf("ParseCell(%q) = %v, %v, want ErrNotation", s, c, err)
		} else if !strings.Contains(err.Error(), "\""+s+"\"") {
			t.Errorf("ParseCell(%q): error %q does not quote the input", s, err)
		}
	}
}

// TestFileName: file letters count in bijective base 26, like spreadsheet
// columns.
func TestFileName(t *testing.T) {
	for col, want := range map[int]string{0: "a", 1: "b", 25: "z", 26: "aa", 27: "ab", 51: "az", 52: "ba", 701: "zz", 702: "aaa", 999: "all"} {
		if got := configurator.FileName(col); got != want {
			t.Errorf("FileName(%d) = %q, want %q", col, got, want)
		}
	}
	// Every column up to MaxN has its own name, and names grow in length
	// only at 26 and 702.
	seen := map[string]bool{}
	for col := range configurator.MaxN {
		name := configurator.FileName(col)
		if seen[name] {
			t.Fatalf("FileName(%d) = %q twice", col, name)
		}
		seen[name] = true
		wantLen := 1
		if col >= 26 {
			wantLen = 2
		}
		if col >= 702 {
			wantLen = 3
		}
		if len(name) != wantLen {
			t.Errorf("FileName(%d) = %q, want %d letters", col, name, wantLen)
		}
		c := configurator.Cell{Row: col, Col: col}
		if back, err := configurator.ParseCell(c.String()); err != nil || back != c {
			t.Errorf("round trip of %#v: %v, %v", c, back, err)
		}
	}
}

func TestCellStringOffBoard(t *testing.T) {
	if got := (configurator.Cell{Row: -1, Col: 2}).String(); got != "(-1,2)" {
		t.Errorf("negative row: %q", got)
	}
}

func TestParseFormatCells(t *testing.T) {
	tests := []struct {
		in    string
		cells []configurator.Cell
		out   string
	}{
		{"", nil, ""},
		{"  ", nil, ""},
		{"a1", []configurator.Cell{{Row: 0, Col: 0}}, "a1"},
		{"a1,c5", []configurator.Cell{{Row: 0, Col: 0}, {Row: 4, Col: 2}}, "a1,c5"},
		{"A1, C5 ,h8", []configurator.Cell{{Row: 0, Col: 0}, {Row: 4, Col: 2}, {Row: 7, Col: 7}}, "a1,c5,h8"},
		{"c5,a1", []configurator.Cell{{Row: 4, Col: 2}, {Row: 0, Col: 0}}, "c5,a1"}, // order kept
		{"a1,a1", []configurator.Cell{{Row: 0, Col: 0}, {Row: 0, Col: 0}}, "a1,a1"}, // duplicates are Model.Check's business
		{"aa27,ab12", []configurator.Cell{{Row: 26, Col: 26}, {Row: 11, Col: 27}}, "aa27,ab12"},
	}
	for _, tt := range tests {
		cells, err := configurator.ParseCells(tt.in)
		if err != nil || !slices.Equal(cells, tt.cells) {
			t.Errorf("ParseCells(%q) = %v, %v, want %v", tt.in, cells, err, tt.cells)
		}
		if got := configurator.FormatCells(cells); got != tt.out {
			t.Errorf("FormatCells(%v) = %q, want %q", cells, got, tt.out)
		}
	}
	for _, in := range []string{"a1,", ",a1", "a1,,c5", "a1;c5", "a1 c5", "a1,x"} {
		if cells, err := configurator.ParseCells(in); !errors.Is(err, configurator.ErrNotation) {
			t.Errorf("ParseCells(%q) = %v, %v, want ErrNotation", in, cells, err)
		}
	}
}

// FuzzParseCell: whatever ParseCell accepts, String gives back in canonical
// form (lower case, no space), and that parses to the same cell.
func FuzzParseCell(f *testing.F) {
	for _, s := range []string{"a1", "C5", "ab12", "z0", "a01", "", "1a", " h8 ", "zzzzzz999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := configurator.ParseCell(s)
		if err != nil {
			if !errors.Is(err, configurator.ErrNotation) {
				t.Fatalf("ParseCell(%q): %v does not wrap ErrNotation", s, err)
			}
			return
		}
		if c.Row < 0 || c.Col < 0 {
			t.Fatalf("ParseCell(%q) = %#v, negative", s, c)
		}
		if got, want := c.String(), strings.ToLower(strings.TrimSpace(s)); got != want {
			t.Fatalf("ParseCell(%q).String() = %q, want %q", s, got, want)
		}
		back, err := configurator.ParseCell(c.String())
		if err != nil || back != c {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}
