package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/internal/web/models"
)

// GET /api/v1/models lists a page at a time: ?limit= models after ?after=,
// next naming the ?after= of the next page; the pages together are the
// whole list, in its order.
func TestModelListPages(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	for i := range 5 {
		uploadModel(t, ts, fmt.Sprintf("m%d.uvl", i), fmt.Appendf(nil, "features\n\tRoot%d\n", i))
	}
	res, out := get(t, ts, "/api/v1/models?limit=500")
	var all modelsResponse
	if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &all) != nil || all.Next != "" {
		t.Fatalf("the whole list: %d %s", res.StatusCode, out)
	}
	if want := 3 + models.MaxBoard + 5; len(all.Models) != want {
		t.Fatalf("the whole list: %d models, want %d", len(all.Models), want)
	}
	var got []string
	after, pages := "", 0
	for {
		res, out := get(t, ts, "/api/v1/models?limit=7&after="+after)
		var page modelsResponse
		if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &page) != nil || len(page.Models) > 7 {
			t.Fatalf("a page after %q: %d %s", after, res.StatusCode, out)
		}
		for _, m := range page.Models {
			got = append(got, m.Model)
		}
		pages++
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	var want []string
	for _, m := range all.Models {
		want = append(want, m.Model)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || pages != (len(want)+6)/7 {
		t.Errorf("%d pages of 7 hold %v, want %v", pages, got, want)
	}
	res, out = get(t, ts, "/api/v1/models")
	var first modelsResponse
	if json.Unmarshal([]byte(out), &first) != nil || len(first.Models) != min(defaultPage, len(want)) {
		t.Errorf("without ?limit=: %d %s", res.StatusCode, out)
	}
	for _, q := range []string{"?limit=0", "?limit=501", "?limit=x", "?after=000000000000000000000000"} {
		if res, out := get(t, ts, "/api/v1/models"+q); res.StatusCode != http.StatusBadRequest || !strings.Contains(out, "?") {
			t.Errorf("%s: %d %s, want 400", q, res.StatusCode, out)
		}
	}
}

// An upload beyond its client's quota is a 429 that says when to come
// back; a ?name= that cannot name a model a 400; a model removed to make
// room for others a 410 that says so.
func TestModelUploadBounds(t *testing.T) {
	cfg := testConfig()
	cfg.Models.Quota = models.Quota{Models: 2, Window: time.Hour}
	src := func(i int) []byte {
		var b strings.Builder
		fmt.Fprintf(&b, "features\n\tRoot%d\n\t\toptional\n", i)
		for j := range 200 {
			fmt.Fprintf(&b, "\t\t\tF%d\n", j)
		}
		return []byte(b.String())
	}
	cfg.Models.Bytes = 1 // holds one model, the last
	_, ts := newTestServer(t, cfg)
	first := uploadModel(t, ts, "a.uvl", src(1))
	uploadModel(t, ts, "b.uvl", src(2))
	res, out := upload(t, ts, "?name=c.uvl", "application/octet-stream", src(3))
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" || !strings.Contains(out, "3 new models") {
		t.Errorf("a third model in the window of two: %d %q %s, want 429 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"), out)
	}
	res, out = upload(t, ts, "?name="+strings.Repeat("n", 300)+".uvl", "application/octet-stream", src(4))
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(out, "300 bytes") {
		t.Errorf("a name of 300 bytes: %d %s, want 400", res.StatusCode, out)
	}
	res, out = post(t, ts, "/api/v1/analyze", modelBody(first, nil, nil, ""))
	if res.StatusCode != http.StatusGone || !strings.Contains(out, "removed from this server at") || !strings.Contains(out, "Upload its file again") {
		t.Errorf("a model removed to make room: %d %s, want 410 saying so", res.StatusCode, out)
	}
}
