package bdd

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestFileSaysWhatCompileDoes checks Backend.File against Compile itself:
// a board it calls Required fails without its file and loads from it
// when there, and its Path is the file Compile loads (Space.Source).
func TestFileSaysWhatCompileDoes(t *testing.T) {
	dir := t.TempDir()
	// The row-major 6×6 file is there; the column-major one is not.
	compileIn(t, dir, configuratortest.Model(t, 6, configurator.RowMajor))
	budget := int64(compileBytes(7)) // holds 7×7, not 8×8
	tests := []struct {
		name  string
		opts  Options
		n     int
		order configurator.Order
		want  configurator.SpaceFile
	}{
		{"past compile-max-n, file there", Options{Dir: dir, CompileMaxN: 5, MaxN: 7, Budget: budget}, 6, configurator.RowMajor,
			configurator.SpaceFile{Path: "file", Required: true, Command: "nqueens count -n 6 -budget 12G -cache-dir " + dir}},
		{"past compile-max-n, no file of that order", Options{Dir: dir, CompileMaxN: 5, MaxN: 7, Budget: budget}, 6, configurator.ColMajor,
			configurator.SpaceFile{Required: true, Command: "nqueens count -n 6 -order col -budget 12G -cache-dir " + dir}},
		{"past compile-max-n, no file of that size", Options{Dir: dir, CompileMaxN: 5, MaxN: 7, Budget: budget}, 7, configurator.RowMajor,
			configurator.SpaceFile{Required: true, Command: "nqueens count -n 7 -budget 12G -cache-dir " + dir}},
		{"compiled, file there", Options{Dir: dir, CompileMaxN: 6, Budget: budget}, 6, configurator.RowMajor,
			configurator.SpaceFile{Path: "file", Command: "nqueens count -n 6 -budget 12G -cache-dir " + dir}},
		{"no compile-max-n", Options{Dir: dir, Budget: budget}, 7, configurator.RowMajor,
			configurator.SpaceFile{Command: "nqueens count -n 7 -budget 12G -cache-dir " + dir}},
		{"past max-n: refused whatever the files", Options{Dir: dir, CompileMaxN: 4, MaxN: 5, Budget: budget}, 6, configurator.RowMajor,
			configurator.SpaceFile{Path: "file", Command: "nqueens count -n 6 -budget 12G -cache-dir " + dir}},
		{"past the budget: refused whatever the files", Options{Dir: dir, CompileMaxN: 5, Budget: budget}, 8, configurator.RowMajor,
			configurator.SpaceFile{Command: "nqueens count -n 8 -budget 12G -cache-dir " + dir}},
		{"no directory", Options{CompileMaxN: 5, MaxN: 7, Budget: budget}, 6, configurator.RowMajor,
			configurator.SpaceFile{Required: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.opts)
			m := configuratortest.Model(t, tt.n, tt.order)
			got := b.File(m)
			want := tt.want
			if want.Path != "" { // the file compileIn wrote
				want.Path = b.opts.store().path(m)
				fi, err := os.Stat(want.Path)
				if err != nil || filepath.Dir(want.Path) != dir {
					t.Fatalf("the file of %v: %v", m, err)
				}
				want.Bytes = fi.Size()
			}
			if got != want {
				t.Fatalf("File = %+v, want %+v", got, want)
			}
			sp, err := b.Compile(context.Background(), m)
			switch refused := tt.opts.MaxN > 0 && tt.n > tt.opts.MaxN || compileBytes(tt.n) > float64(tt.opts.Budget); {
			case refused || got.Required && got.Path == "":
				if !errors.Is(err, configurator.ErrTooLarge) {
					t.Fatalf("Compile: %v, want ErrTooLarge", err)
				}
			case err != nil:
				t.Fatalf("Compile: %v", err)
			default:
				if src := sp.(*Space).Source(); src != got.Path {
					t.Errorf("Compile loaded %q, File says %q", src, got.Path)
				}
				sp.(*Space).Close()
			}
		})
	}
}

// TestFileCommandWritesTheFile runs what Command says, through the same
// path nqueens count takes (a backend without limits keeping its spaces
// in the directory), and checks that File then finds the file.
func TestFileCommandWritesTheFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b := New(Options{Dir: dir, CompileMaxN: 4, MaxN: 6})
	m := configuratortest.Model(t, 5, configurator.Diagonal)
	before := b.File(m)
	if want := "nqueens count -n 5 -order diag -budget 12G -cache-dir '" + dir + "'"; before.Command != want || before.Path != "" || !before.Required {
		t.Fatalf("File = %+v, want no path, required, command %q", before, want)
	}
	compileIn(t, dir, m) // what the command does
	if after := b.File(m); after.Path == "" || after.Bytes < 64 || after.Command != before.Command {
		t.Fatalf("after the command, File = %+v", after)
	}
}

func TestShellQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/root/.cache/nqueens", "/root/.cache/nqueens"},
		{"/tmp/a b", "'/tmp/a b'"},
		{"/tmp/it's", `'/tmp/it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"", "''"},
	} {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
