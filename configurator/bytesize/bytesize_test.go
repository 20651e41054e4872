package bytesize

import (
	"flag"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"65536", 65536, true},
		{"64K", 64 << 10, true},
		{"512m", 512 << 20, true},
		{"2G", 2 << 30, true},
		{"2GiB", 2 << 30, true},
		{" 8gb ", 8 << 30, true},
		{"1T", 1 << 40, true},
		{"", 0, false},
		{"-1", 0, false},
		{"1.5G", 0, false},
		{"12X", 0, false},
		{"99999999999T", 0, false},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{300 << 20, "300 MiB"},
		{3 << 29, "1.5 GiB"},
		{2 << 40, "2 TiB"},
	}
	for _, tt := range tests {
		if got := Format(tt.in); got != tt.want {
			t.Errorf("Format(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFlag(t *testing.T) {
	var s Size = 1 << 30
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&s, "cache", "")
	if err := fs.Parse([]string{"-cache", "512M"}); err != nil || s != 512<<20 || s.String() != "512 MiB" {
		t.Fatalf("-cache 512M: %v, %d %q", err, s, s.String())
	}
	if err := fs.Parse([]string{"-cache", "lots"}); err == nil {
		t.Fatal("-cache lots: no error")
	}
}
