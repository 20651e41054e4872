package frontend

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// The files under static/vendor are files of npm packages, committed so
// that a plain `go build` serves working pages. vendor.json lists each:
// its package, the version package-lock.json pins, its path in the package,
// its path here and its SHA-256. TestVendored holds the files to it, and to
// frontend/node_modules when `npm ci` has made that; after a version bump
// in package.json, `make vendor` (npm ci, then this test with -update)
// copies the files again and rewrites vendor.json.

var update = flag.Bool("update", false, "copy the files vendor.json lists from node_modules into static/vendor and rewrite vendor.json (make vendor)")

// vendored is one entry of vendor.json.
type vendored struct {
	Package string `json:"package"`
	Version string `json:"version"`
	Path    string `json:"path"` // in the package
	File    string `json:"file"` // in Files
	SHA256  string `json:"sha256"`
}

// readManifest parses vendor.json.
func readManifest(b []byte) ([]vendored, error) {
	var m []vendored
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("vendor.json: %w", err)
	}
	return m, nil
}

// lockVersions returns the version package-lock.json pins for each package
// installed at the top of node_modules.
func lockVersions(lock []byte) (map[string]string, error) {
	var l struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(lock, &l); err != nil {
		return nil, fmt.Errorf("package-lock.json: %w", err)
	}
	v := map[string]string{}
	for key, p := range l.Packages {
		if name, ok := strings.CutPrefix(key, "node_modules/"); ok && !strings.Contains(name, "/node_modules/") {
			v[name] = p.Version
		}
	}
	return v, nil
}

// installedVersion is the version of a package in node_modules (modules).
func installedVersion(modules fs.FS, pkg string) (string, error) {
	b, err := fs.ReadFile(modules, path.Join(pkg, "package.json"))
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", fmt.Errorf("node_modules/%s/package.json: %w", pkg, err)
	}
	return p.Version, nil
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkVendored returns what is wrong with the vendored files of site
// (laid out as Files) against the manifest (vendor.json), the lock
// (package-lock.json) and, unless modules is nil, the installed packages
// (node_modules).
func checkVendored(site fs.FS, manifest, lock []byte, modules fs.FS) []error {
	m, err := readManifest(manifest)
	if err != nil {
		return []error{err}
	}
	pinned, err := lockVersions(lock)
	if err != nil {
		return []error{err}
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	// The manifest lists exactly the vendor files the pages load, and
	// static/vendor holds nothing else.
	var pages []string
	all, err := loaded(site)
	if err != nil {
		return []error{err}
	}
	for _, f := range all {
		if strings.HasPrefix(f, "static/vendor/") {
			pages = append(pages, f)
		}
	}
	listed := map[string]bool{}
	for _, v := range m {
		listed[v.File] = true
		if !slices.Contains(pages, v.File) {
			fail("vendor.json lists %s, which no page loads", v.File)
		}
	}
	for _, f := range pages {
		if !listed[f] {
			fail("the pages load %s, which vendor.json does not list (add its package and path, then make vendor)", f)
		}
	}
	present, _ := fs.Glob(site, "static/vendor/*")
	for _, f := range present {
		if !listed[f] {
			fail("%s is not listed in vendor.json", f)
		}
	}

	for _, v := range m {
		what := fmt.Sprintf("%s %s's %s", v.Package, v.Version, v.Path)
		lv, ok := pinned[v.Package]
		switch {
		case !ok:
			fail("vendor.json lists %s, which package-lock.json does not pin", v.Package)
		case lv != v.Version:
			fail("vendor.json has %s %s, package-lock.json pins %s: run make vendor", v.Package, v.Version, lv)
		}
		b, err := fs.ReadFile(site, v.File)
		if err != nil {
			fail("%s (%s) is missing: run make vendor", v.File, what)
			continue
		}
		if got := sum(b); got != v.SHA256 {
			fail("%s has SHA-256 %s, vendor.json says %s (%s): run make vendor", v.File, got, v.SHA256, what)
		}
		if modules == nil || !ok {
			continue
		}
		switch iv, err := installedVersion(modules, v.Package); {
		case err != nil:
			fail("node_modules lacks %s (%v): run npm ci in frontend", v.Package, err)
			continue
		case iv != lv:
			fail("node_modules has %s %s, package-lock.json pins %s: run npm ci in frontend", v.Package, iv, lv)
			continue
		}
		npm, err := fs.ReadFile(modules, path.Join(v.Package, v.Path))
		if err != nil {
			fail("node_modules lacks %s's %s: %v", v.Package, v.Path, err)
			continue
		}
		if !bytes.Equal(b, npm) {
			fail("%s differs from node_modules/%s/%s: run make vendor", v.File, v.Package, v.Path)
		}
	}
	return errs
}

// refresh copies each file the manifest lists from node_modules (modules)
// to its place under dir, and returns the manifest with the versions the
// lock pins and the copies' hashes.
func refresh(dir string, manifest, lock []byte, modules fs.FS) ([]byte, error) {
	m, err := readManifest(manifest)
	if err != nil {
		return nil, err
	}
	pinned, err := lockVersions(lock)
	if err != nil {
		return nil, err
	}
	for i, v := range m {
		lv, ok := pinned[v.Package]
		if !ok {
			return nil, fmt.Errorf("package-lock.json does not pin %s", v.Package)
		}
		if iv, err := installedVersion(modules, v.Package); err != nil || iv != lv {
			return nil, fmt.Errorf("node_modules has %s %q (%v), package-lock.json pins %s: run npm ci in frontend", v.Package, iv, err, lv)
		}
		b, err := fs.ReadFile(modules, path.Join(v.Package, v.Path))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(v.File)), b, 0o644); err != nil {
			return nil, err
		}
		m[i].Version, m[i].SHA256 = lv, sum(b)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	return append(out, '\n'), err
}

// TestVendored holds the committed vendor files to vendor.json, vendor.json
// to package-lock.json, and, when npm ci has installed them, the files to
// the packages' own bytes. With -update it first copies the files from
// node_modules and rewrites vendor.json.
func TestVendored(t *testing.T) {
	manifest, err := os.ReadFile("vendor.json")
	if err != nil {
		t.Fatal(err)
	}
	lock, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var modules fs.FS
	if _, err := os.Stat("node_modules"); err == nil {
		modules = os.DirFS("node_modules")
	}
	if *update {
		if modules == nil {
			t.Fatal("-update copies from node_modules: run npm ci in frontend first (make vendor does)")
		}
		if manifest, err = refresh(".", manifest, lock, modules); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("vendor.json", manifest, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if modules == nil {
		t.Log("no node_modules: the vendored files are checked against vendor.json only (npm ci in frontend, or make test, checks them against the packages)")
	}
	// The files on disk, which go:embed puts in Files when the package is
	// built: after -update, Files in this test binary are the old ones.
	for _, err := range checkVendored(os.DirFS("."), manifest, lock, modules) {
		t.Error(err)
	}
}

// TestCheckVendored gives checkVendored a site, its manifest, lock and
// node_modules, each with one thing wrong, and reads what it says.
func TestCheckVendored(t *testing.T) {
	const (
		page  = `<script src="/static/vendor/a.min.js?v={{.Version}}" defer></script><script src="/static/vendor/b.js?v={{.Version}}" defer></script>`
		a, b  = "a = 1;\n", "b = 2;\n"
		lock1 = `{"packages": {"": {}, "node_modules/a": {"version": "1.0.0"}, "node_modules/@s/b": {"version": "2.0.0"}, "node_modules/@s/b/node_modules/a": {"version": "0.9.0"}}}`
	)
	entry := func(pkg, version, p, file, content string) vendored {
		return vendored{Package: pkg, Version: version, Path: p, File: file, SHA256: sum([]byte(content))}
	}
	good := []vendored{
		entry("a", "1.0.0", "dist/a.min.js", "static/vendor/a.min.js", a),
		entry("@s/b", "2.0.0", "b.js", "static/vendor/b.js", b),
	}
	type world struct {
		site     fstest.MapFS
		manifest []vendored
		lock     string
		modules  fstest.MapFS // nil: not installed
	}
	fresh := func() world {
		return world{
			site: fstest.MapFS{
				"templates/page.html":    {Data: []byte(page)},
				"static/vendor/a.min.js": {Data: []byte(a)},
				"static/vendor/b.js":     {Data: []byte(b)},
			},
			manifest: slices.Clone(good),
			lock:     lock1,
			modules: fstest.MapFS{
				"a/package.json":    {Data: []byte(`{"name": "a", "version": "1.0.0"}`)},
				"a/dist/a.min.js":   {Data: []byte(a)},
				"@s/b/package.json": {Data: []byte(`{"name": "@s/b", "version": "2.0.0"}`)},
				"@s/b/b.js":         {Data: []byte(b)},
			},
		}
	}
	tests := []struct {
		name   string
		change func(w *world)
		want   []string // one error each; none for a sound world
	}{
		{"sound", func(w *world) {}, nil},
		{"sound, node_modules not installed", func(w *world) { w.modules = nil }, nil},
		{"a vendored file edited", func(w *world) { w.site["static/vendor/b.js"] = &fstest.MapFile{Data: []byte("b = 3;\n")} },
			[]string{"static/vendor/b.js has SHA-256 " + sum([]byte("b = 3;\n")) + ", vendor.json says " + sum([]byte(b)) + " (@s/b 2.0.0's b.js): run make vendor",
				"static/vendor/b.js differs from node_modules/@s/b/b.js: run make vendor"}},
		{"a vendored file edited, node_modules not installed", func(w *world) {
			w.site["static/vendor/a.min.js"] = &fstest.MapFile{Data: []byte("a = 0;\n")}
			w.modules = nil
		}, []string{"static/vendor/a.min.js has SHA-256 " + sum([]byte("a = 0;\n"))}},
		{"a vendored file missing", func(w *world) { delete(w.site, "static/vendor/a.min.js") },
			[]string{"static/vendor/a.min.js (a 1.0.0's dist/a.min.js) is missing: run make vendor"}},
		{"the lock moved on, npm ci ran, make vendor did not", func(w *world) {
			w.lock = strings.Replace(lock1, `"1.0.0"`, `"1.1.0"`, 1)
			w.modules["a/package.json"] = &fstest.MapFile{Data: []byte(`{"version": "1.1.0"}`)}
			w.modules["a/dist/a.min.js"] = &fstest.MapFile{Data: []byte("a = 11;\n")}
		}, []string{"vendor.json has a 1.0.0, package-lock.json pins 1.1.0: run make vendor",
			"static/vendor/a.min.js differs from node_modules/a/dist/a.min.js: run make vendor"}},
		{"the lock moved on, node_modules not installed", func(w *world) {
			w.lock = strings.Replace(lock1, `"2.0.0"`, `"2.0.1"`, 1)
			w.modules = nil
		}, []string{"vendor.json has @s/b 2.0.0, package-lock.json pins 2.0.1: run make vendor"}},
		{"the lock moved on, npm ci did not run", func(w *world) { w.lock = strings.Replace(lock1, `"2.0.0"`, `"2.0.1"`, 1) },
			[]string{"vendor.json has @s/b 2.0.0, package-lock.json pins 2.0.1: run make vendor",
				"node_modules has @s/b 2.0.0, package-lock.json pins 2.0.1: run npm ci in frontend"}},
		{"a package dropped from the lock", func(w *world) { w.lock = `{"packages": {"node_modules/a": {"version": "1.0.0"}}}` },
			[]string{"vendor.json lists @s/b, which package-lock.json does not pin"}},
		{"a page loads a script vendor.json does not list", func(w *world) {
			w.site["templates/more.html"] = &fstest.MapFile{Data: []byte(`<script src="/static/vendor/c.js"></script>`)}
			w.site["static/vendor/c.js"] = &fstest.MapFile{Data: []byte("c")}
		}, []string{"the pages load static/vendor/c.js, which vendor.json does not list", "static/vendor/c.js is not listed in vendor.json"}},
		{"vendor.json lists a script no page loads", func(w *world) {
			w.site["templates/page.html"] = &fstest.MapFile{Data: []byte(`<script src="/static/vendor/a.min.js"></script>`)}
		}, []string{"vendor.json lists static/vendor/b.js, which no page loads"}},
		{"node_modules holds other bytes than the packages'", func(w *world) {
			w.modules["@s/b/b.js"] = &fstest.MapFile{Data: []byte("tampered")}
		}, []string{"static/vendor/b.js differs from node_modules/@s/b/b.js: run make vendor"}},
		{"node_modules lacks the file", func(w *world) { delete(w.modules, "a/dist/a.min.js") },
			[]string{"node_modules lacks a's dist/a.min.js"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := fresh()
			tt.change(&w)
			manifest, err := json.Marshal(w.manifest)
			if err != nil {
				t.Fatal(err)
			}
			var modules fs.FS
			if w.modules != nil {
				modules = w.modules
			}
			errs := checkVendored(w.site, manifest, []byte(w.lock), modules)
			if len(errs) != len(tt.want) {
				t.Errorf("%d errors, want %d: %v", len(errs), len(tt.want), errors.Join(errs...))
			}
			for i := 0; i < len(errs) && i < len(tt.want); i++ {
				if !strings.HasPrefix(errs[i].Error(), tt.want[i]) {
					t.Errorf("error %d:\n%v\nwant one starting\n%s", i, errs[i], tt.want[i])
				}
			}
		})
	}
}

// TestRefresh copies a world's packages into a directory and checks that
// the rewritten manifest then holds: the files are the packages' and the
// versions the lock's.
func TestRefresh(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "static", "vendor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "templates", "page.html"), []byte(`<script src="/static/vendor/a.js?v=1"></script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The old manifest: a's old version and a hash of nothing.
	old := []byte(`[{"package": "a", "version": "0.1.0", "path": "dist/a.js", "file": "static/vendor/a.js", "sha256": ""}]`)
	lock := []byte(`{"packages": {"node_modules/a": {"version": "1.2.3"}}}`)
	modules := fstest.MapFS{
		"a/package.json": {Data: []byte(`{"version": "1.2.3"}`)},
		"a/dist/a.js":    {Data: []byte("a = 123;\n")},
	}
	if errs := checkVendored(os.DirFS(dir), old, lock, modules); len(errs) != 2 {
		t.Fatalf("before the refresh: %v; want the version and the missing file", errors.Join(errs...))
	}
	manifest, err := refresh(dir, old, lock, modules)
	if err != nil {
		t.Fatal(err)
	}
	if errs := checkVendored(os.DirFS(dir), manifest, lock, modules); len(errs) > 0 {
		t.Errorf("after the refresh: %v", errors.Join(errs...))
	}
	want := `[
  {
    "package": "a",
    "version": "1.2.3",
    "path": "dist/a.js",
    "file": "static/vendor/a.js",
    "sha256": "` + sum([]byte("a = 123;\n")) + `"
  }
]
`
	if string(manifest) != want {
		t.Errorf("the manifest:\n%s\nwant\n%s", manifest, want)
	}
	// A node_modules older than the lock is refused, not copied.
	modules["a/package.json"] = &fstest.MapFile{Data: []byte(`{"version": "1.2.2"}`)}
	if _, err := refresh(dir, old, lock, modules); err == nil || !strings.Contains(err.Error(), "run npm ci") {
		t.Errorf("refresh from a stale node_modules: %v, want a refusal that says to run npm ci", err)
	}
}
