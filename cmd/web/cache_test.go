package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestMain points the user's cache directory, the default -cache-dir, at a
// directory of the test's own, so that no test writes to the real one.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "web-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestCacheDirFlag(t *testing.T) {
	def := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "nqueens")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, def},
		{[]string{"-cache-dir", "/srv/spaces"}, "/srv/spaces"},
		{[]string{"-cache-dir", "off"}, ""},
		{[]string{"-cache-dir", ""}, ""},
	} {
		o, err := parseFlags(c.args, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if o.BDD.Dir != c.want {
			t.Errorf("%q: the BDD backend keeps its spaces in %q, want %q", c.args, o.BDD.Dir, c.want)
		}
	}
}
