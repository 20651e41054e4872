package words

import (
	"strings"
	"testing"
	"time"
)

// TestQuote is the specification of how messages repeat user input.
func TestQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "zdd", "“zdd”"},
		{"control characters", "a\x00b\nc", "“a\uFFFDb\uFFFDc”"},
		{"invalid UTF-8", "\xff", "“\uFFFD”"},
		{"a right-to-left override", "gpj.\u202eexe", "“gpj.exe”"},
		{"every embedding and override", "\u202a1\u202b2\u202c3\u202d4\u202e5", "“12345”"},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", "“abc”"},
		{"marks", "\u200ea\u200fb\u061cc", "“abc”"},
		{"zero-width characters", "z\u200bd\u200cd\u200d\u2060\ufeff", "“zdd”"},
		{"nothing but invisibles", "\u202e\u200b", "“”"},
		{"cut at MaxQuoted visible characters", strings.Repeat("\u200bx", 30), "“" + strings.Repeat("x", MaxQuoted) + "…”"},
		{"Arabic and Hebrew letters stay", "שלום مرحبا", "“שלום مرحبا”"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.in); got != tt.want {
				t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestFaster is the specification of the ratio's words: the faster
// backend named, the factor readable at any size, never "0.0×".
func TestFaster(t *testing.T) {
	for _, tt := range []struct {
		da, db time.Duration
		want   string
	}{
		{21 * time.Millisecond, 423 * time.Microsecond, "SAT 50× faster than BDD"},
		{2390 * time.Microsecond, 292 * time.Millisecond, "BDD 122× faster than SAT"},
		{1310 * time.Microsecond, 1060 * time.Microsecond, "SAT 1.2× faster than BDD"},
		{time.Millisecond, time.Millisecond, "BDD and SAT about as fast"},
		{time.Millisecond, 1040 * time.Microsecond, "BDD and SAT about as fast"},
		{time.Microsecond, 3 * time.Second, "BDD 3,000,000× faster than SAT"},
		{9990 * time.Microsecond, time.Millisecond, "SAT 10.0× faster than BDD"},
	} {
		if got := Faster("BDD", tt.da, "SAT", tt.db); got != tt.want {
			t.Errorf("Faster(BDD %v, SAT %v) = %q, want %q", tt.da, tt.db, got, tt.want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for n, want := range map[int]string{1: "a second", 2: "2 seconds", 600: "600 seconds"} {
		if got := Seconds(n); got != want {
			t.Errorf("Seconds(%d) = %q, want %q", n, got, want)
		}
	}
}
