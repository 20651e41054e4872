package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain leaves the process without a user cache directory, so that
// -cache-dir defaults to none: every other test compiles what it counts,
// and none writes to the real cache. The tests of the cache name their
// directories.
func TestMain(m *testing.M) {
	os.Setenv("XDG_CACHE_HOME", "")
	os.Setenv("HOME", "")
	os.Exit(m.Run())
}

// countJSON runs nqueens count -json with args and decodes its output.
func countJSON(t *testing.T, args ...string) (countResult, string) {
	t.Helper()
	code, out, errOut := runArgs(append([]string{"count", "-json"}, args...)...)
	if code != 0 {
		t.Fatalf("%q: exit %d, stderr %q", args, code, errOut)
	}
	var r countResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%q: %v in %q", args, err, out)
	}
	return r, errOut
}

// cacheFiles lists the compiled spaces in dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.bdd"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestCountLoadsFromTheCache(t *testing.T) {
	for _, c := range []struct {
		n, nodes  int
		order     string
		solutions string
	}{
		{8, 2451, "row", "92"},
		{10, 25945, "row", "724"},
		{9, 0, "diag", "352"},
		{3, 0, "row", "0"},
	} {
		t.Run(fmt.Sprintf("%d-%s", c.n, c.order), func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-n", fmt.Sprint(c.n), "-order", c.order, "-cache-dir", dir}
			first, errOut := countJSON(t, args...)
			files := cacheFiles(t, dir)
			if first.LoadedFrom != "" || len(files) != 1 || errOut != "" {
				t.Fatalf("first run: loaded from %q, files %q, stderr %q; want it compiled and saved in one file", first.LoadedFrom, files, errOut)
			}
			second, errOut := countJSON(t, args...)
			if second.LoadedFrom != files[0] || errOut != "" {
				t.Fatalf("second run: loaded from %q, stderr %q; want %q", second.LoadedFrom, errOut, files[0])
			}
			if *second.Solutions != c.solutions || *first.Solutions != c.solutions || *second.Nodes != *first.Nodes ||
				c.nodes != 0 && *second.Nodes != c.nodes {
				t.Errorf("compiled %s solutions, %d nodes; loaded %s, %d; want %s", *first.Solutions, *first.Nodes, *second.Solutions, *second.Nodes, c.solutions)
			}
			// The text says so on its compile line.
			_, out, _ := runArgs(append([]string{"count"}, args...)...)
			if !strings.Contains(out, "(loaded from "+files[0]+")\n") {
				t.Errorf("text output does not say where the space came from:\n%s", out)
			}
		})
	}
}

func TestCountRefusesADamagedCacheFile(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-n", "8", "-cache-dir", dir}
	countJSON(t, args...)
	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("files %q; want one", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, errOut := countJSON(t, args...)
	if r.LoadedFrom != "" || *r.Solutions != "92" || !strings.Contains(errOut, "compiled space refused") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("after damage: loaded from %q, %s solutions, stderr %q; want a warning and a fresh compile of 92", r.LoadedFrom, *r.Solutions, errOut)
	}
	if r, _ := countJSON(t, args...); r.LoadedFrom != files[0] {
		t.Errorf("the recompiled space was not saved again: loaded from %q", r.LoadedFrom)
	}
}

func TestCacheDirDefaultAndOff(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	def := filepath.Join(cache, "nqueens")
	countJSON(t, "-n", "7", "-cache-dir", "off")
	countJSON(t, "-n", "7", "-cache-dir", "")
	if files := cacheFiles(t, def); len(files) != 0 {
		t.Errorf("-cache-dir off wrote %q", files)
	}
	countJSON(t, "-n", "7")
	if files := cacheFiles(t, def); len(files) != 1 {
		t.Errorf("the default cache directory holds %q; want one file", files)
	}
	// analyze uses it as well.
	if code, _, errOut := runArgs("analyze", "-n", "7", "-queens", "a1"); code != 0 || errOut != "" {
		t.Errorf("analyze with the cache: exit %d, stderr %q", code, errOut)
	}
}

// TestCountKeepsTheAnswers checks that count leaves beside the compiled
// space the answers the space keeps, complete: a second count loads both
// files and has nothing to add, so the answers file stays as it was;
// without a cache directory nothing is written.
func TestCountKeepsTheAnswers(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-n", "8", "-cache-dir", dir}
	first, _ := countJSON(t, args...)
	answers, err := filepath.Glob(filepath.Join(dir, "*.answers"))
	if err != nil || len(answers) != 1 || first.AnswersMS <= 0 {
		t.Fatalf("after a compile: answers files %q (%v), answers_ms %v; want one file and its time", answers, err, first.AnswersMS)
	}
	before, err := os.ReadFile(answers[0])
	if err != nil {
		t.Fatal(err)
	}
	infoBefore, _ := os.Stat(answers[0])
	second, _ := countJSON(t, args...)
	after, err := os.ReadFile(answers[0])
	if err != nil {
		t.Fatal(err)
	}
	infoAfter, _ := os.Stat(answers[0])
	if second.LoadedFrom == "" || string(after) != string(before) || !infoAfter.ModTime().Equal(infoBefore.ModTime()) {
		t.Errorf("the second count (loaded from %q) wrote the answers again: the first count left them incomplete", second.LoadedFrom)
	}
	_, out, _ := runArgs("count", "-n", "8", "-cache-dir", dir)
	if !strings.Contains(out, "\nanswers ") {
		t.Errorf("the text output lacks the line of the kept answers:\n%s", out)
	}
	off := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", off)
	if r, _ := countJSON(t, "-n", "8", "-cache-dir", "off"); r.AnswersMS != 0 {
		t.Errorf("-cache-dir off: answers_ms %v; want 0", r.AnswersMS)
	}
	if files, _ := filepath.Glob(filepath.Join(off, "*", "*.answers")); len(files) != 0 {
		t.Errorf("-cache-dir off wrote %q", files)
	}
}
