package frontend_test

import (
	"fmt"
	"testing/fstest"

	"github.com/nqueens/configurator/frontend"
)

// A build whose page loads a script it does not hold is refused, with
// the way to get the script back.
func ExampleCheck() {
	build := fstest.MapFS{
		"templates/page.html": {Data: []byte(`<script src="/static/vendor/htmx.min.js?v={{.Version}}" defer></script>`)},
	}
	fmt.Println(frontend.Check(build))
	fmt.Println(frontend.Check(frontend.Files))
	// Output:
	// frontend: static/vendor/htmx.min.js, which the pages load, is missing from the build: restore it with `git checkout -- frontend/static/vendor/htmx.min.js` (`make vendor` copies it from the npm packages pinned in frontend/package-lock.json) and build again
	// <nil>
}
