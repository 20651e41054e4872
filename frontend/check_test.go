package frontend

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// site is a tree laid out as Files: a page that loads a stylesheet, a
// script of its own and a vendored one, plus files.
func site(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{"templates/page.html": {Data: []byte(`<link rel="stylesheet" href="/static/style.css?v={{.Version}}">
<script src="/static/vendor/htmx.min.js?v={{.Version}}" defer></script>
<script src="/static/app.js" defer></script>
<a href="/">home</a> <a href="{{.Href}}">a link</a> <img src="/static/{{.Icon}}">`)}}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestLoaded(t *testing.T) {
	fsys := site(map[string]string{
		// A second template loads a vendored script again, and one more.
		"templates/more.html": `<script src="/static/vendor/htmx.min.js"></script><script src="/static/vendor/panzoom.min.js?v=1"></script>`,
		// Not a template.
		"templates/notes.txt": `<script src="/static/vendor/not-loaded.js"></script>`,
	})
	got, err := loaded(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"static/app.js", "static/style.css", "static/vendor/htmx.min.js", "static/vendor/panzoom.min.js"}
	if !slices.Equal(got, want) {
		t.Errorf("loaded = %q, want %q", got, want)
	}
	if _, err := loaded(fstest.MapFS{"static/app.js": {Data: []byte("x")}}); err == nil {
		t.Error("loaded found files to load without a template")
	}
}

func TestCheck(t *testing.T) {
	complete := map[string]string{"static/style.css": "body{}", "static/vendor/htmx.min.js": "htmx", "static/app.js": "app"}
	without := func(name string) map[string]string {
		m := map[string]string{}
		for k, v := range complete {
			if k != name {
				m[k] = v
			}
		}
		return m
	}
	with := func(name, data string) map[string]string {
		m := without(name)
		m[name] = data
		return m
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string // the error; "" for none
	}{
		{"every file the page loads", complete, ""},
		{"a vendored script missing", without("static/vendor/htmx.min.js"),
			"frontend: static/vendor/htmx.min.js, which the pages load, is missing from the build: restore it with `git checkout -- frontend/static/vendor/htmx.min.js` (`make vendor` copies it from the npm packages pinned in frontend/package-lock.json) and build again"},
		{"a vendored script empty", with("static/vendor/htmx.min.js", ""),
			"frontend: static/vendor/htmx.min.js, which the pages load, is empty in the build: restore it with `git checkout -- frontend/static/vendor/htmx.min.js` (`make vendor` copies it from the npm packages pinned in frontend/package-lock.json) and build again"},
		{"a script of its own missing", without("static/app.js"),
			"frontend: static/app.js, which the pages load, is missing from the build: restore it with `git checkout -- frontend/static/app.js` and build again"},
		{"a directory in the stylesheet's place", map[string]string{"static/style.css/x": "y", "static/vendor/htmx.min.js": "htmx", "static/app.js": "app"},
			"frontend: static/style.css, which the pages load, is empty in the build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(site(tt.files))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Errorf("Check: %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestCheckFiles: the pages this package embeds have every file they load.
func TestCheckFiles(t *testing.T) {
	if err := Check(Files); err != nil {
		t.Fatal(err)
	}
	got, err := loaded(Files)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"static/vendor/htmx.min.js", "static/vendor/panzoom.min.js"} {
		if !slices.Contains(got, f) {
			t.Errorf("the pages do not load %s: %q", f, got)
		}
	}
}
