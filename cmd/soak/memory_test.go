package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/internal/launch"
)

// TestSizedToThreeGiB starts the server binary as if on a machine of
// 3 GiB (-memory 3G, every other flag but the cache directory its
// default): its log says what it sized and from what, 14×14 is compiled
// and served, 15×15 is refused by the BDD in words that say what fits, and its
// peak resident memory stays under its bound, and under 3 GiB.
func TestSizedToThreeGiB(t *testing.T) {
	needServer(t)
	var log configuratortest.Log
	ctx := context.Background()
	p, err := launch.Start(ctx, webBinary, launch.Options{Debug: true, Log: &log}, "-memory", "3G", "-cache-dir", "off")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	for _, want := range []string{
		`msg=memory bytes="3 GiB" from=-memory peak_bound="2.5 GiB"`,
		`msg=sized setting=-mem-limit value="2 GiB" from="3 GiB of memory (-memory)"`,
		`msg=sized setting=-cache value="1.4 GiB" from="3 GiB of memory (-memory)"`,
		`msg=sized setting=-bdd-max-n value=14 from="the largest whose compile or load fits -bdd-budget"`,
		`msg=sized setting=-bdd-compile-max-n value=14`,
		`msg=sized setting=-bdd-budget value="1.4 GiB"`,
		`msg=sized setting=-bdd-scratch value="256 MiB"`,
		`msg=sized setting=-compile-slots`,
		`msg=sized setting="feature models in memory" value="128 MiB" from="3 GiB of memory (-memory)"`,
		`bdd_max_n=14`,
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the start log lacks %q:\n%s", want, log.String())
		}
	}
	client := &http.Client{Timeout: 5 * time.Minute}
	ask := func(method, path, body string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, method, p.URL()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	// The compile may outlast a request's deadline on a busy machine:
	// asked again, the request joins it.
	status, body := 0, ""
	for end := time.Now().Add(5 * time.Minute); time.Now().Before(end); {
		if status, body = ask(http.MethodPost, "/api/v1/analyze", `{"n":14,"queens":[[0,0]]}`); status != http.StatusServiceUnavailable {
			break
		}
	}
	if status != 200 || !strings.Contains(body, `"solutions":"`) {
		t.Errorf("14×14: %d %.300s", status, body)
	}
	// The one page lets SAT answer 15×15 and says why the BDD does not;
	// the BDD's diagram of it is refused.
	for _, tt := range []struct {
		path   string
		status int
	}{{"/?model=queens-15", http.StatusOK}, {"/model-diagram?model=queens-15", http.StatusRequestEntityTooLarge}} {
		if status, body := ask(http.MethodGet, tt.path, ""); status != tt.status || !strings.Contains(body, "holds boards up to 14×14") {
			t.Errorf("GET %s: %d %.300s; want %d with words that name 14×14", tt.path, status, body, tt.status)
		}
	}
	if status, body := ask(http.MethodPost, "/api/v1/analyze", `{"n":15}`); status != http.StatusRequestEntityTooLarge ||
		!strings.Contains(body, `its node budget of 1.4 GiB holds boards up to 14×14`) {
		t.Errorf("15×15: %d %s; want a 413 that says what fits and why", status, body)
	}
	st, err := p.Stats(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	peak, err := p.PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak resident memory %s, bound %s", bytesize.Format(int64(peak)), bytesize.Format(st.MemoryBound))
	if st.MemoryBound != 2560<<20 || int64(peak) > st.MemoryBound {
		t.Errorf("peak resident memory %s; the bound reported is %s, want 2.5 GiB and the peak within it", bytesize.Format(int64(peak)), bytesize.Format(st.MemoryBound))
	}
	if err := p.Stop(30 * time.Second); err != nil {
		t.Error(err)
	}
}
