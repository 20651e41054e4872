package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestMain leaves the process without a user cache directory, so that
// -cache-dir defaults to none and no test writes to the real cache.
func TestMain(m *testing.M) {
	os.Setenv("XDG_CACHE_HOME", "")
	os.Setenv("HOME", "")
	os.Exit(m.Run())
}

func TestCacheDirFlag(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	def := filepath.Join(cache, "nqueens")
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
	// Without a cache directory in the environment there is none.
	t.Setenv("XDG_CACHE_HOME", "")
	if o, err := parseFlags(nil, io.Discard); err != nil || o.BDD.Dir != "" {
		t.Errorf("without $XDG_CACHE_HOME and $HOME: -cache-dir %q, %v; want none", o.BDD.Dir, err)
	}
}
