package server

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// A model uploaded while another model's BDD compile runs opens at once
// with its features, answered by a backend that is ready, and the page
// says the BDD is still compiling; left alone, the page switches to the
// BDD by itself when its compile ends, and asks no more.
func TestBrowserUploadWhileCompiling(t *testing.T) {
	cfg := modelSetup()
	cfg.QuickWait = DefaultConfig().QuickWait // what a person waits for a compile
	s, ts := newTestServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The other model: random cross-tree constraints that keep its BDD
	// compiling for longer than the test runs.
	hard, _, err := s.models.Add(ctx, "hard.uvl", []byte(featuretest.LargeModel(rand.New(rand.NewPCG(1, 2)), 1000, 500)), "")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = s.featureSpace(ctx, hard.ID, "bdd") }() // cancelled at the end
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := s.spaces.Compiling(s.modelKey(hard.ID, "bdd")); ok {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the other model's compile did not start")
		}
	}
	// The upload: a model whose BDD takes a second or so to compile, past
	// the page's quick wait, and whose SAT compile is instant.
	b := newBrowser(t, ts.URL)
	path := filepath.Join(t.TempDir(), "mid.uvl")
	write(t, path, featuretest.LargeModel(rand.New(rand.NewPCG(1, 2)), 210, 105))
	b.open("/models")
	start := time.Now()
	b.do("upload mid.uvl", chromedp.SetUploadFiles(chromedp.ID("upload"), []string{path}, chromedp.NodeReady))
	b.waitAcross("the model's page opens with its features", `location.search.indexOf('model=') >= 0 && document.querySelectorAll('.frow').length > 1`)
	t.Logf("the features shown %v after the upload", time.Since(start))
	if _, compiling := s.spaces.Compiling(s.modelKey(hard.ID, "bdd")); !compiling {
		t.Fatal("the other model's compile ended before the upload's page opened")
	}
	if note := b.text("#mode-note"); !strings.HasPrefix(note, "BDD is still compiling this model") {
		t.Errorf("the page's note: %q", note)
	}
	if got := b.text("#questions thead"); !strings.Contains(got, "SAT") || strings.Contains(got, "BDD") {
		t.Errorf("the first answer is from %q, want SAT alone", got)
	}
	// Left alone, the page asks again until the BDD answers.
	b.wait("the BDD's answer, without a click", `!document.getElementById('mode-note') && !document.getElementById('poll') && /BDD/.test(document.querySelector('#questions thead').textContent)`)
	t.Logf("the BDD answered %v after the upload", time.Since(start))
	if got := b.text("#count"); !strings.Contains(got, "configurations") {
		t.Errorf("the BDD's count: %q", got)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
