package server

import (
	"context"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestOrderPanelSaysWhatItsButtonDoes: the order panel's button names what
// it will do (compile, load from disk) and its hint what that costs, in
// the backend's own figures (configurator.Cost, the size of the compiled
// file); an order served from its compiled file alone whose file is
// missing is not offered (a compile would only fail): its row says so with
// the command that makes the file, and one sentence says why.
func TestOrderPanelSaysWhatItsButtonDoes(t *testing.T) {
	// 10×10 is served from compiled files alone: rank by rank and file
	// by file have theirs, the two other orders do not.
	dir := t.TempDir()
	b := bdd.New(bdd.Options{Dir: dir})
	for _, o := range []configurator.Order{configurator.RowMajor, configurator.ColMajor} {
		if _, err := b.Compile(context.Background(), configuratortest.Model(t, 10, o)); err != nil {
			t.Fatal(err)
		}
	}
	colFile := b.File(configuratortest.Model(t, 10, configurator.ColMajor))
	if colFile.Path == "" {
		t.Fatal("no file of 10×10 file by file")
	}
	files := missingFileSetup(t, dir)

	heavy := testConfig()
	heavy.BDD.MaxN = 12
	hs, heavyTS := newTestServer(t, heavy)
	cost := hs.engines["bdd"].Backend.Cost(12, configurator.Diagonal) // the costliest of the orders
	if !cost.Heavy {
		t.Fatalf("the BDD's 12×12 compile is not heavy: %+v", cost)
	}
	_, lightTS := newTestServer(t, testConfig())

	command := func(order string) string {
		return "nqueens count -n 10 -order " + order + " -budget 12G -cache-dir " + dir
	}
	for _, c := range []struct {
		name   string
		ts     string
		open   string // the page visited first, which makes its order
		panel  string
		button string // "": none
		hint   string // "": none
		rows   []string
		want   []string // more of the panel, as HTML
	}{
		{name: "light", ts: lightTS.URL, open: "/?n=8", panel: "/orders?n=8",
			button: "Compile the other 3 orders", rows: []string{"2,451", "not compiled yet", "not compiled yet", "not compiled yet"}},
		{name: "heavy", ts: heavyTS.URL, panel: "/orders?n=12",
			button: "Compile 4 orders",
			hint: "Compiling rank by rank, file by file, by diagonal and middle ranks first is heavy: the BDD expects about " +
				bytesize.Format(cost.Bytes) + " each, " + strconv.Itoa(hs.spaces.Slots()) + " at a time, for a while, and stops an order that outgrows its node budget of " +
				bytesize.Format(heavy.BDD.Budget) + ".",
			rows: []string{"not compiled yet", "not compiled yet", "not compiled yet", "not compiled yet"}},
		{name: "files", ts: files.URL, open: "/?n=10", panel: "/orders?n=10",
			button: "Load 1 other order from disk",
			hint:   "Loading file by file reads " + bytesize.Format(colFile.Bytes) + " from disk.",
			rows: []string{"25,945", "not compiled yet",
				"no compiled file: <code>" + command("diag") + "</code>", "no compiled file: <code>" + command("middle") + "</code>"},
			want: []string{`<p class="hint" id="orders-unservable">The BDD serves the 10×10 board in the orders “by diagonal” and “middle ranks first” only from their compiled files, which this server does not have: make one once with the command in its row and restart the server.</p>`}},
		{name: "files, after the button", ts: files.URL, panel: "/orders?n=10&compile=1",
			rows: []string{"25,945", "25,945",
				"no compiled file: <code>" + command("diag") + "</code>", "no compiled file: <code>" + command("middle") + "</code>"},
			want: []string{`id="orders-unservable"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.open != "" {
				if res, body := getURL(t, c.ts+c.open); res != 200 {
					t.Fatalf("GET %s: %d\n%s", c.open, res, excerpt(body))
				}
			}
			res, body := getURL(t, c.ts+c.panel)
			if res != 200 {
				t.Fatalf("GET %s: %d\n%s", c.panel, res, excerpt(body))
			}
			button := regexp.MustCompile(`id="orders-compile"[^>]*>([^<]*)</button>`).FindStringSubmatch(body)
			switch {
			case c.button == "" && button != nil:
				t.Errorf("a button %q; want none", button[1])
			case c.button != "" && (button == nil || html.UnescapeString(button[1]) != c.button):
				t.Errorf("button %v, want %q\n%s", button, c.button, body)
			}
			hint := regexp.MustCompile(`<span class="hint" id="orders-hint">([^<]*)</span>`).FindStringSubmatch(body)
			switch {
			case c.hint == "" && hint != nil:
				t.Errorf("a hint %q; want none", hint[1])
			case c.hint != "" && (hint == nil || html.UnescapeString(hint[1]) != c.hint):
				t.Errorf("hint %v\nwant %q", hint, c.hint)
			}
			var rows []string
			for _, m := range regexp.MustCompile(`<td class="nodes">([^<]*)</td>|<td colspan="3" class="unavailable">(.*?)</td>`).FindAllStringSubmatch(body, -1) {
				rows = append(rows, html.UnescapeString(m[1]+m[2]))
			}
			if strings.Join(rows, "\n") != strings.Join(c.rows, "\n") {
				t.Errorf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(c.rows, "\n"))
			}
			for _, w := range c.want {
				if !strings.Contains(html.UnescapeString(body), html.UnescapeString(w)) {
					t.Errorf("no %s in\n%s", w, body)
				}
			}
			if strings.Contains(body, "restart the server, or switch") {
				t.Errorf("a row says the long sentence of a missing file:\n%s", body)
			}
		})
	}
	// The button loaded file by file from its file, and made no other.
	if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
		t.Fatalf("%s: %v", dir, err)
	} else if m, _ := filepath.Glob(filepath.Join(dir, "queens-10-diag-*")); len(m) != 0 {
		t.Errorf("a file of by diagonal appeared: %v", m)
	}
}

// getURL gets url and returns its status and body.
func getURL(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}
