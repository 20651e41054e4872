// Package frontend holds the web configurator's templates and static files,
// embedded into the binary so that the server needs nothing on disk and no
// request leaves the machine.
//
// The static/vendor folder holds htmx, its server-sent-events extension and
// Panzoom: files of the npm packages pinned in package-lock.json, committed
// so that `go build`, `go run` and `go install` of a fresh clone serve
// working pages. vendor.json lists each with its package, version, path in
// the package and SHA-256, and the package's tests hold the files to it and
// to package-lock.json; after a version change in package.json, `make
// vendor` copies the files from node_modules again and rewrites vendor.json.
package frontend

import "embed"

// Files is the tree of templates/*.html and static/**.
//
//go:embed templates/*.html static
var Files embed.FS
