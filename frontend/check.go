package frontend

import (
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

// staticRef matches a static file a template loads by a fixed path, in a
// src or href attribute: `src="/static/vendor/htmx.min.js?v={{.Version}}"`
// gives "vendor/htmx.min.js". A path built by a template action is not a
// fixed path and is not matched.
var staticRef = regexp.MustCompile(`(?:src|href)="/static/([A-Za-z0-9._/-]+)[?"]`)

// loaded returns the files, as paths in fsys (laid out as Files), that the
// pages of the templates in fsys load from /static/, sorted and each once.
func loaded(fsys fs.FS) ([]string, error) {
	pages, err := fs.Glob(fsys, "templates/*.html")
	if err != nil {
		return nil, err
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("frontend: no templates/*.html")
	}
	var files []string
	for _, p := range pages {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("frontend: %w", err)
		}
		for _, m := range staticRef.FindAllSubmatch(b, -1) {
			files = append(files, "static/"+string(m[1]))
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// Check reports, as an error that names the file and the command that
// brings it back, the first file the pages load that fsys (laid out as
// Files) lacks or holds empty: each /static/ path in a src or href
// attribute of templates/*.html. A server calls it on Files before it
// serves, so that a build missing a script refuses to start instead of
// serving pages that fail in the browser.
func Check(fsys fs.FS) error {
	files, err := loaded(fsys)
	if err != nil {
		return err
	}
	for _, f := range files {
		info, err := fs.Stat(fsys, f)
		switch {
		case err != nil:
			return fmt.Errorf("frontend: %s, which the pages load, is missing from the build: %s", f, restore(f))
		case !info.Mode().IsRegular() || info.Size() == 0:
			return fmt.Errorf("frontend: %s, which the pages load, is empty in the build: %s", f, restore(f))
		}
	}
	return nil
}

// restore says how to get a file of the build back. The files are
// committed, and embedded when the binary is built, so it is built again.
func restore(f string) string {
	how := fmt.Sprintf("restore it with `git checkout -- frontend/%s`", f)
	if strings.HasPrefix(f, "static/vendor/") {
		how += " (`make vendor` copies it from the npm packages pinned in frontend/package-lock.json)"
	}
	return how + " and build again"
}
