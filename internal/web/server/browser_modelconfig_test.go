package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The configuration as a file on the model page in a browser: each
// download holds the decisions (fetched as the link says), and opening
// each file again gives the page those decisions, the forced features
// derived again; a file that names features the model does not have, or
// whose decisions conflict, is refused with what is wrong, the page as it
// was; the samples download as CSV.
func TestBrowserModelConfiguration(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	b := newBrowser(t, ts.URL)
	_, id, _ := example(t, "computer")
	page := "/?model=" + id + "&select=ARM&deselect=HDD"
	dir := t.TempDir()
	for _, f := range []struct{ format, file string }{{"featureide", "c.xml"}, {"csv", "c.csv"}, {"json", "c.json"}} {
		b.open(page)
		if n := eval[int](b, `document.querySelectorAll('#configuration a[download]').length`); n != 3 {
			t.Errorf("%d downloads, want 3 (not Kconfig: the names are not symbols)", n)
		}
		src := eval[string](b, fmt.Sprintf(`(function () { var a = document.querySelector('#configuration a[href$="format=%s"]'); var x = new XMLHttpRequest(); x.open('GET', a.href, false); x.send(); return x.responseText; })()`, f.format))
		if !strings.Contains(src, "ARM") || !strings.Contains(src, "HDD") {
			t.Fatalf("%s: the download is\n%s", f.format, src)
		}
		path := filepath.Join(dir, f.file)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		b.open("/?model=" + id)
		b.do("open "+f.file, chromedp.SetUploadFiles(chromedp.ID("config-file"), []string{path}, chromedp.NodeReady))
		b.waitNavigated("the decisions are the file's", `location.search.indexOf("select=ARM") >= 0 && document.querySelectorAll('#decisions .chip').length === 2`)
		q := b.query()
		if q.Get("select") != "ARM" || q.Get("deselect") != "HDD" {
			t.Errorf("%s opened: the address is %s", f.format, q.Encode())
		}
	}
	for _, tc := range []struct{ file, src, want string }{
		{"unknown.json", `{"select":["ARM","Wings"]}`, "“Wings”"},
		{"conflict.csv", "feature,manual,automatic\nARM,selected,\nx86,selected,\n", "No configuration keeps"},
		{"broken.xml", "<configuration>\n<feature name=\"ARM\" manual=\"on\"/>", `found "on"`},
	} {
		path := filepath.Join(dir, tc.file)
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		b.open("/?model=" + id + "&select=HDD")
		b.do("open "+tc.file, chromedp.SetUploadFiles(chromedp.ID("config-file"), []string{path}, chromedp.NodeReady))
		b.wait("the refusal is shown", `document.querySelector('#config-status .notice')`)
		if got := b.text("#config-status"); !strings.Contains(got, tc.want) || !strings.HasPrefix(got, tc.file+": ") {
			t.Errorf("%s: the page says %q, want %q", tc.file, got, tc.want)
		}
		if b.location() != "/?model="+id+"&select=HDD" {
			t.Errorf("%s: the page moved to %s", tc.file, b.location())
		}
	}
	// The samples download as CSV: a header of the features, a row per
	// configuration, each keeping the decisions.
	b.open(page)
	for _, kind := range []string{"t=2", "uniform=10"} {
		src := eval[string](b, fmt.Sprintf(`(function () { var a = document.querySelector('#samples a[href$="%s"]'); var x = new XMLHttpRequest(); x.open('GET', a.href, false); x.send(); return x.responseText; })()`, kind))
		rows := strings.Split(strings.TrimSpace(src), "\n")
		header := strings.Split(rows[0], ",")
		arm, hdd := slices.Index(header, "ARM"), slices.Index(header, "HDD")
		if header[0] != "configuration" || arm < 0 || hdd < 0 || len(rows) < 2 || kind == "uniform=10" && len(rows) != 11 {
			t.Fatalf("%s: the sample is\n%s", kind, src)
		}
		for _, r := range rows[1:] {
			if cells := strings.Split(r, ","); cells[arm] != "1" || cells[hdd] != "0" {
				t.Errorf("%s: the row %s breaks +ARM, -HDD", kind, r)
			}
		}
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// waitNavigated is wait across a navigation the page starts itself: the
// condition is asked again until it holds, an evaluation that the
// navigation breaks off included.
func (b *browser) waitNavigated(what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`))
		cancel()
		if err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("waiting until %s (%s)\n%s", what, cond, b.dump())
}
