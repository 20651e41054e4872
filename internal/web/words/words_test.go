package words

import (
	"strings"
	"testing"
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

func TestSeconds(t *testing.T) {
	for n, want := range map[int]string{1: "a second", 2: "2 seconds", 600: "600 seconds"} {
		if got := Seconds(n); got != want {
			t.Errorf("Seconds(%d) = %q, want %q", n, got, want)
		}
	}
}
