package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestMain leaves the process without a user cache directory, so that
// -cache-dir defaults to none and no test writes to the real cache.
func TestMain(m *testing.M) {
	os.Setenv("XDG_CACHE_HOME", "")
	os.Setenv("HOME", "")
	os.Exit(m.Run())
}

func TestCacheDirFlag(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	def := filepath.Join(cache, "nqueens")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, def},
		{[]string{"-cache-dir", "/srv/spaces"}, "/srv/spaces"},
		{[]string{"-cache-dir", "off"}, ""},
		{[]string{"-cache-dir", ""}, ""},
	} {
		o, err := parseFlags(c.args, io.Discard, machine(24<<30))
		if err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if o.BDD.Dir != c.want {
			t.Errorf("%q: the BDD backend keeps its spaces in %q, want %q", c.args, o.BDD.Dir, c.want)
		}
		models := ""
		if c.want != "" {
			models = filepath.Join(c.want, "models")
		}
		if o.Server.Models.Dir != models {
			t.Errorf("%q: the uploaded models are kept in %q, want %q", c.args, o.Server.Models.Dir, models)
		}
	}
	// Without a cache directory in the environment there is none.
	t.Setenv("XDG_CACHE_HOME", "")
	if o, err := parseFlags(nil, io.Discard, machine(24<<30)); err != nil || o.BDD.Dir != "" {
		t.Errorf("without $XDG_CACHE_HOME and $HOME: -cache-dir %q, %v; want none", o.BDD.Dir, err)
	}
}

// TestRestartLoadsCompiledSpaces: a server started again on the same
// -cache-dir answers from the diagram the first one compiled, loaded from
// disk, and says so in its log.
func TestRestartLoadsCompiledSpaces(t *testing.T) {
	dir := t.TempDir()
	serve := func() (log string, rowLoaded bool) {
		ctx, cancel := context.WithCancel(context.Background())
		var logs configuratortest.Log
		addr, _, exited := startServer(t, ctx, &logs, "-cache-dir", dir, "-bdd-max-n", "10")
		defer stopServer(t, cancel, exited)
		res, err := http.Post("http://"+addr+"/api/v1/analyze", "application/json", strings.NewReader(`{"n":10,"queens":[[0,0]]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		// 64 of the 724 solutions have a queen on a1.
		if res.StatusCode != 200 || !strings.Contains(string(body), `"solutions":"64"`) {
			t.Fatalf("analyze a1 on 10×10: %d %s", res.StatusCode, body)
		}
		// The order panel's figures say a loaded diagram's time is a load.
		res, err = http.Post("http://"+addr+"/api/v1/orders", "application/json", strings.NewReader(`{"n":10}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var orders struct {
			Orders []struct {
				Order  string `json:"order"`
				Loaded bool   `json:"loaded"`
			} `json:"orders"`
		}
		if err := json.NewDecoder(res.Body).Decode(&orders); err != nil || res.StatusCode != 200 {
			t.Fatalf("orders of 10×10: %d %v", res.StatusCode, err)
		}
		for _, o := range orders.Orders {
			if o.Order == "row" {
				rowLoaded = o.Loaded
			}
		}
		return logs.String(), rowLoaded
	}
	first, firstLoaded := serve()
	if firstLoaded {
		t.Errorf("the first server says its freshly compiled row-order diagram was loaded from disk")
	}
	if !strings.Contains(first, `msg="compiled space saved to disk" n=10`) {
		t.Errorf("the first server's log does not say it saved the 10×10 space:\n%s", first)
	}
	second, secondLoaded := serve()
	if !secondLoaded {
		t.Errorf("the restarted server's orders do not say the row-order diagram was loaded from disk")
	}
	if !strings.Contains(second, `msg="compiled space loaded from disk" n=10`) || strings.Contains(second, `saved to disk" n=10`) {
		t.Errorf("the restarted server's log does not say it loaded the 10×10 space:\n%s", second)
	}
}
