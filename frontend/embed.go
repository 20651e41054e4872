// Package frontend holds the web configurator's templates and static files,
// embedded into the binary so that the server needs nothing on disk and no
// request leaves the machine.
//
// The static/vendor folder holds htmx and its server-sent-events extension,
// copied from the npm packages pinned in package-lock.json by `make
// frontend`; it is git-ignored, so a build from a fresh clone must run that
// target first (the web server's tests check that the files are there).
package frontend

import "embed"

// Files is the tree of templates/*.html and static/**.
//
//go:embed templates/*.html static
var Files embed.FS
