package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// home and xdgCache are the environment's, which TestMain clears before
// the tests run.
var home, xdgCache = os.Getenv("HOME"), os.Getenv("XDG_CACHE_HOME")

// TestFreshClone builds this command from a clone of the committed tree
// (no node_modules, nothing git-ignored), as `go build`, `go run` and `go
// install` of a fresh clone do, serves a small board from the binary on a
// loopback port, and checks in chromium that the page's scripts load and
// run: htmx answers a click without reloading the page, and the diagram,
// drawn with Panzoom, zooms. It builds HEAD, not the working tree, without
// the race detector; with -short it skips: under the race detector make
// test runs it with -short, as it would race only its own client side.
func TestFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a clone and drives chromium: not with -short")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("\n\n*** SKIPPING THE FRESH-CLONE BROWSER TEST: chromium is not installed. ***\n" +
			"*** Install it with `apt-get install -y chromium` (make test does it as root). ***\n\n")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout, so there is no commit to clone: %v", err)
	}
	clone := filepath.Join(t.TempDir(), "configurator")
	if out, err := exec.Command("git", "clone", "--quiet", strings.TrimSpace(string(root)), clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "web")
	build := exec.Command("go", "build", "-o", bin, "./cmd/web")
	build.Dir = clone
	build.Env = append(os.Environ(), "HOME="+home, "XDG_CACHE_HOME="+xdgCache) // the Go caches
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/web in a fresh clone: %v\n%s", err, out)
	}

	base := startBinary(t, bin, "-addr", "127.0.0.1:0", "-cache-dir", "off", "-bdd-max-n", "8", "-sat-max-n", "8")

	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		chromedp.Env("HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())) // not the test's directory
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	var mu sync.Mutex
	var console []string
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			mu.Lock()
			console = append(console, fmt.Sprintf("%s: %s", m.Type, m.Text))
			mu.Unlock()
		}
	}()
	dump := func() string {
		mu.Lock()
		defer mu.Unlock()
		return "console:\n" + strings.Join(console, "\n")
	}
	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, dump())
		}
	}
	wait := func(what, cond string) {
		t.Helper()
		do("wait until "+what+" ("+cond+")", chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(20*time.Millisecond)))
	}
	scale := `+document.getElementById("dg").dataset.scale`

	do("open the 6×6 board with its diagram", chromedp.Navigate(base+"/?model=queens-6&diagram=1"))
	// Every script the page names arrived: a missing one is a 404 here
	// before it is an error in a script that needs it.
	wait("the page loaded", `document.readyState === "complete"`)
	missing, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.scripts).filter(function (s) {
		var e = s.src && performance.getEntriesByName(s.src)[0];
		return s.src && !(e && e.responseStatus === 200 && e.encodedBodySize > 0);
	}).map(function (s) { return s.src; })`))
	if err != nil || len(missing) > 0 {
		t.Fatalf("the scripts that did not arrive: %q, %v\n%s", missing, err, dump())
	}
	wait("the diagram drawn", `document.getElementById("dg") && document.getElementById("dg").dataset.scale !== undefined && document.querySelector("#dg-stage svg")`)
	fitted, err := chromedp.Run(ctx, chromedp.Evaluate[float64](scale))
	if err != nil {
		t.Fatalf("read the zoom: %v", err)
	}
	do("zoom in", chromedp.Click(chromedp.ID("dg-zoom-in"), chromedp.NodeVisible))
	wait("the diagram zoomed in", fmt.Sprintf(`%s > %g`, scale, fitted*1.1))

	// htmx swaps in the answer to a click: the page, and what this script
	// left on it, stay.
	do("mark the page", chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`))
	b1 := `#fgrid button[data-name="b1"]`
	do("place a queen on b1", chromedp.Click(chromedp.CSS(b1), chromedp.NodeVisible))
	wait("b1 holds a queen, answered by htmx", `window.notReloaded === true && document.querySelector('`+b1+`').classList.contains("queen")`)

	mu.Lock()
	defer mu.Unlock()
	for _, m := range console {
		if strings.HasPrefix(m, "error:") || strings.HasPrefix(m, "exception:") {
			t.Errorf("console: %s", m)
		}
	}
}

// serving finds the address in the server's log line that says it serves.
var serving = regexp.MustCompile(`msg="serving the configurator" url=(http://\S+)/`)

// startBinary starts the web binary with args, waits until its log says
// where it serves, and returns that base URL; the test's end stops it.
func startBinary(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	logr, logw := io.Pipe()
	cmd.Stderr = logw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logw.Close(); close(exited) }()
	t.Cleanup(func() { cancel(); <-exited })
	found := make(chan string, 1)
	var log strings.Builder
	go func() {
		lines := bufio.NewScanner(logr)
		base := ""
		for lines.Scan() {
			log.WriteString(lines.Text() + "\n")
			if m := serving.FindStringSubmatch(lines.Text()); m != nil {
				base = m[1]
				break
			}
		}
		found <- base
		io.Copy(io.Discard, logr)
	}()
	select {
	case base := <-found:
		if base == "" {
			t.Fatalf("%s exited without serving; its log:\n%s", bin, log.String())
		}
		return base
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not say where it serves in 30 s", bin)
		return ""
	}
}
