package feature

import (
	"errors"
	"strings"
	"testing"
)

func TestNameFault(t *testing.T) {
	for _, tc := range []struct {
		name  string
		at    int
		kind  error
		found string
	}{
		{"Air Con", -1, nil, ""},
		{"Größe 日本 \uFFFD", -1, nil, ""}, // U+FFFD written as such is a character like any other
		{strings.Repeat("n", MaxNameBytes), -1, nil, ""},
		{strings.Repeat("n", MaxNameBytes+1), 0, ErrLimit, "found a name of 257 bytes (at most 256)"},
		{"a\x00b", 1, ErrInvalid, "found the control character U+0000"},
		{"ab\n", 2, ErrInvalid, "found the control character U+000A"},
		{"é\u0085", 2, ErrInvalid, "found the control character U+0085"},
		{"ab\xffc", 2, ErrSyntax, "found the byte 0xff, which is not UTF-8"},
		{"\xe6\x97", 0, ErrSyntax, "found the byte 0xe6, which is not UTF-8"}, // a character cut short
		{strings.Repeat("n", 300) + "\x01", 300, ErrInvalid, "found the control character U+0001"},
	} {
		at, found, kind := NameFault(tc.name)
		if at != tc.at || !errors.Is(kind, tc.kind) || kind == nil != (tc.kind == nil) || found != tc.found {
			t.Errorf("NameFault(%q) = %d, %v, %q; want %d, %v, %q", tc.name, at, kind, found, tc.at, tc.kind, tc.found)
		}
	}
}

func TestPosAt(t *testing.T) {
	src := "\uFEFFab\r\ncé\rx\ny"
	for _, tc := range []struct {
		off  int
		want string
		line string
	}{
		{0, "1:1", "ab"}, {3, "1:1", "ab"}, {4, "1:2", "ab"}, {7, "2:1", "cé"}, {9, "2:3", "cé"},
		{11, "3:1", "x"}, {13, "4:1", "y"}, {14, "4:2", "y"},
	} {
		if got := PosAt(src, tc.off).String(); got != tc.want {
			t.Errorf("PosAt(%d) = %s, want %s", tc.off, got, tc.want)
		}
		if got := LineAt(src, tc.off); got != tc.line {
			t.Errorf("LineAt(%d) = %q, want %q", tc.off, got, tc.line)
		}
	}
}
