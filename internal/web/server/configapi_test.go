package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/oracle"
)

// readConfig posts a configuration file to /api/v1/configuration/read.
func readConfig(t *testing.T, ts *httptest.Server, query string, src []byte) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/configuration/read"+query, bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	return do(t, req)
}

// Export then import, in every format, on a bundled example and on a
// board (whose square names are Kconfig symbols): the decisions come back
// as they were, in the model's order, whatever the backend, along seeded
// random decisions that some configuration keeps; the file names the
// model; a model whose names are not symbols refuses Kconfig with a 422.
func TestConfigurationRoundTrip(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	id, m := exampleID(t, "computer")
	o, err := oracle.NewFeatures(len(m.Features), m.Valid)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 6 {
		var ds []oracle.Decision
		for _, f := range rng.Perm(len(m.Features))[:1+rng.IntN(5)] {
			if d := (oracle.Decision{Feature: f, Select: rng.IntN(2) == 0}); o.Consistent(append(slices.Clone(ds), d)) {
				ds = append(ds, d)
			}
		}
		slices.SortFunc(ds, func(a, b oracle.Decision) int { return a.Feature - b.Feature })
		var want decisionsJSON
		for _, d := range ds {
			if d.Select {
				want.Select = append(want.Select, m.Features[d.Feature].Name)
			} else {
				want.Deselect = append(want.Deselect, m.Features[d.Feature].Name)
			}
		}
		for _, backend := range modelBackends(s) {
			for _, format := range []string{"featureide", "kconfig", "csv", "json"} {
				what := fmt.Sprintf("trial %d, %s, %s", trial, backend, format)
				res, file := post(t, ts, "/api/v1/configuration?format="+format, oracleBody(id, m, ds, fmt.Sprintf(`,"backend":%q`, backend)))
				if format == "kconfig" {
					if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(file, "not Kconfig symbols") {
						t.Errorf("%s: %d %s, want 422", what, res.StatusCode, file)
					}
					continue
				}
				if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Disposition"), `filename="Computer.`) {
					t.Fatalf("%s: %d %s %s", what, res.StatusCode, res.Header.Get("Content-Disposition"), file)
				}
				res, out := readConfig(t, ts, "?model="+id+"&backend="+backend, []byte(file))
				var got configReadResponse
				if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &got) != nil {
					t.Fatalf("%s: read back %d %s", what, res.StatusCode, out)
				}
				if !slices.Equal(got.Select, nonNil(want.Select)) || !slices.Equal(got.Deselect, nonNil(want.Deselect)) {
					t.Errorf("%s: read back %v / %v, want %v / %v", what, got.Select, got.Deselect, want.Select, want.Deselect)
				}
			}
		}
	}
	for _, format := range []string{"featureide", "kconfig", "csv", "json"} {
		res, file := post(t, ts, "/api/v1/configuration?format="+format, `{"model":"queens-6","select":["b1","d2"],"deselect":["a3"]}`)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("queens-6, %s: %d %s", format, res.StatusCode, file)
		}
		if format == "kconfig" && (!strings.Contains(file, "CONFIG_b1=y\nCONFIG_d2=y\n# CONFIG_a3 is not set\n# Forced by") || !strings.Contains(file, "CONFIG_f3=y")) {
			t.Errorf("queens-6 as Kconfig:\n%s", file)
		}
		res, out := readConfig(t, ts, "?model=queens-6", []byte(file))
		var got configReadResponse
		if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &got) != nil || !slices.Equal(got.Select, []string{"b1", "d2"}) || !slices.Equal(got.Deselect, []string{"a3"}) {
			t.Errorf("queens-6, %s read back: %d %s", format, res.StatusCode, out)
		}
	}
}

// A file the server cannot take is answered with what is wrong: where a
// file does not read, the names the model does not have, a minimal
// conflicting subset of decisions no configuration keeps.
func TestConfigurationReadErrors(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	id, _ := exampleID(t, "car")
	bomb := "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]>\n<configuration><feature name=\"&lol2;\"/></configuration>"
	for _, tc := range []struct {
		query, src string
		status     int
		want       []string
	}{
		{"?model=" + id, bomb, 400, []string{`"line":2`, "no document type declaration"}},
		{"?model=" + id + "&format=featureide", "<configuration>\n<feature name=\"Electric\" manual=\"yes\"/>", 400, []string{`"line":2`, `"column":1`, `found \"yes\"`}},
		{"?model=" + id, `{"select":["Electric","Wings"],"deselect":["Jet engine"]}`, 400, []string{`“Wings”`, `“Jet engine”`}},
		{"?model=" + id, "feature,manual,automatic\nElectric,selected,\nTow bar,selected,\nSunroof,unselected,\n", 422, []string{`"conflict":{"select":["Electric","Tow bar"],"deselect":[]}`}},
		{"?model=" + id + "&format=yaml", "{}", 400, []string{"not a configuration format"}},
		{"", "{}", 400, []string{"?model="}},
		{"?model=000000000000000000000000", "{}", 404, []string{"no model"}},
		{"?model=" + id, "", 400, []string{"empty"}},
	} {
		res, out := readConfig(t, ts, tc.query, []byte(tc.src))
		for _, w := range tc.want {
			if res.StatusCode != tc.status || !strings.Contains(out, w) {
				t.Errorf("%s %q: %d %s, want %d with %s", tc.query, tc.src, res.StatusCode, out, tc.status, w)
			}
		}
	}
	// Sent as a form, or past the size limit.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/configuration/read?model="+id, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if res, out := do(t, req); res.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("sent as a form: %d %s", res.StatusCode, out)
	}
	big := io.MultiReader(strings.NewReader("{\"select\":["), strings.NewReader(strings.Repeat(`"x",`, 5<<20)))
	req, _ = http.NewRequest(http.MethodPost, ts.URL+"/api/v1/configuration/read?model="+id, big)
	req.Header.Set("Content-Type", "application/octet-stream")
	if res, out := do(t, req); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("past the limit: %d %s", res.StatusCode, out)
	}
	for _, tc := range []struct {
		query, body string
		status      int
		want        string
	}{
		{"?format=toml", `{"model":"` + id + `"}`, 400, "not a configuration format"},
		{"", `{"model":"` + id + `"}`, 400, "not a configuration format"},
		{"?format=json", `{"model":"` + id + `","select":["Wings"]}`, 400, "Wings"},
		{"?format=json", `{"model":"` + id + `","select":["Electric","Tow bar"]}`, 422, `"conflict"`},
	} {
		if res, out := post(t, ts, "/api/v1/configuration"+tc.query, tc.body); res.StatusCode != tc.status || !strings.Contains(out, tc.want) {
			t.Errorf("export %s %s: %d %s, want %d with %s", tc.query, tc.body, res.StatusCode, out, tc.status, tc.want)
		}
	}
}

// The page's download: the file of the decisions, named after the model,
// the forced values apart; its mistakes in words.
func TestModelConfigurationDownload(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	res, body := get(t, ts, "/model-configuration?model=queens-4&select=b1&format=kconfig")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Disposition") != `attachment; filename="4-queens.config"` ||
		!strings.HasPrefix(body, "# 4-queens: a configuration written by the BDD/SAT configurator\n# Your decisions\nCONFIG_b1=y\n# Forced by these decisions and the model\n") ||
		!strings.Contains(body, "\nCONFIG_d2=y\nCONFIG_a3=y\n") {
		t.Errorf("queens-4, b1: %d %s\n%s", res.StatusCode, res.Header.Get("Content-Disposition"), body)
	}
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/model-configuration?model=queens-4&select=b1&format=yaml", 400, "not a configuration format"},
		{"/model-configuration?model=queens-4&select=z9&format=csv", 400, "z9"},
		{"/model-configuration?model=queens-4&select=a1,b1&format=csv", 422, "No configuration keeps"},
	} {
		if res, body := get(t, ts, tc.path); res.StatusCode != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.path, res.StatusCode, body, tc.status, tc.want)
		}
	}
}
