package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/configurator/oracle"
	"github.com/nqueens/configurator/internal/web/models"
)

// upload posts a model's file to /api/v1/models with the content type
// given ("" sends none) and the query.
func upload(t testing.TB, ts *httptest.Server, query, contentType string, src []byte) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/models"+query, bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return do(t, req)
}

// uploadModel uploads src and returns the model's ID.
func uploadModel(t testing.TB, ts *httptest.Server, name string, src []byte) string {
	t.Helper()
	res, out := upload(t, ts, "?name="+name, "application/octet-stream", src)
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		t.Fatalf("upload %s: %d %s", name, res.StatusCode, out)
	}
	var m modelJSON
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return m.Model
}

// exampleID is the ID of a bundled example.
func exampleID(t testing.TB, name string) (string, *feature.Model) {
	t.Helper()
	ex, ok := examples.Lookup(name)
	if !ok {
		t.Fatalf("no example %s", name)
	}
	m, err := ex.Model()
	if err != nil {
		t.Fatal(err)
	}
	return models.ID(ex.Format, ex.Source), m
}

// modelBody writes a model request.
func modelBody(id string, sel, desel []string, extra string) string {
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return fmt.Sprintf(`{"model":%q,"select":%s,"deselect":%s%s}`, id, j(sel), j(desel), extra)
}

func TestModelUpload(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	ex, _ := examples.Lookup("car")
	res, out := upload(t, ts, "", "application/octet-stream", ex.Source)
	want := fmt.Sprintf(`{"model":%q,"name":"car","format":"uvl","features":32,"constraints":8}`, models.ID(ex.Format, ex.Source))
	if res.StatusCode != http.StatusOK || strings.TrimSpace(out) != want {
		t.Errorf("a bundled example uploaded: %d %s, want 200 %s", res.StatusCode, out, want)
	}
	cnf := []byte("c 1 Fast\nc 2 Cheap\nc 3 Good\np cnf 3 1\n-1 -2 -3 0\n")
	res, out = upload(t, ts, "?name=triangle.cnf", "application/octet-stream", cnf)
	want = fmt.Sprintf(`{"model":%q,"name":"triangle","format":"dimacs","features":3,"constraints":1}`, models.ID(feature.DIMACS, cnf))
	if res.StatusCode != http.StatusCreated || strings.TrimSpace(out) != want {
		t.Errorf("a new CNF file: %d %s, want 201 %s", res.StatusCode, out, want)
	}
	res, out = upload(t, ts, "?format=dimacs", "application/x-dimacs", cnf)
	if res.StatusCode != http.StatusOK || strings.TrimSpace(out) != want {
		t.Errorf("the same file again: %d %s, want 200 %s", res.StatusCode, out, want)
	}

	res, out = get(t, ts, "/api/v1/models")
	var list modelsResponse
	if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("GET /api/v1/models: %d %s", res.StatusCode, out)
	}
	var names, boards []string
	for _, m := range list.Models {
		if m.Board > 0 {
			boards = append(boards, fmt.Sprintf("%s:%d", m.Model, m.Features))
			continue
		}
		names = append(names, fmt.Sprintf("%s:%v", m.Name, *m.Example))
	}
	if got := strings.Join(names, " "); got != "car:true computer:true smarthome:true triangle:false" {
		t.Errorf("GET /api/v1/models lists %s", got)
	}
	if len(boards) != models.MaxBoard || boards[0] != "queens-1:1" || boards[7] != "queens-8:64" {
		t.Errorf("GET /api/v1/models lists the boards %v", boards)
	}
	if list.MaxBytes != models.MaxSize || list.MaxFeatures != testConfig().Models.MaxFeatures {
		t.Errorf("GET /api/v1/models: bounds %d, %d", list.MaxBytes, list.MaxFeatures)
	}
}

// Each bad file gets a 4xx that says what is wrong (where, for a file that
// does not read), and the server goes on serving.
func TestModelUploadRefusals(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	var group strings.Builder
	group.WriteString("features\n\tRoot\n\t\toptional\n")
	for i := range 100000 {
		fmt.Fprintf(&group, "\t\t\tF%d\n", i)
	}
	for _, tc := range []struct {
		name, query, contentType string
		src                      []byte
		status                   int
		want                     string
	}{
		{"truncated", "", "application/octet-stream", []byte("p cnf 3 2\n1 2 0\n-1"), 400, `"error":"The model does not read: 3:3: expected`},
		{"binary", "", "application/octet-stream", []byte("\x00\x01\x02\xff\xfe\x00"), 400, `"line":1,"column":1`},
		{"typed feature", "", "application/octet-stream", []byte("features\n\tRoot\n\t\toptional\n\t\t\tInteger Speed\n"), 422, `"error":"The model does not read: 4:4: `},
		{"arithmetic", "", "application/octet-stream", []byte("features\n\tRoot\n\t\toptional\n\t\t\tA\nconstraints\n\tA + 1 > 2\n"), 422, `"line":6`},
		{"a cycle of imports", "", "application/octet-stream", []byte("namespace Loop\nimports\n\tLoop as L\nfeatures\n\tRoot\n"), 400, `found an import of L`},
		{"100,000 features in one group", "", "application/octet-stream", []byte(group.String()), 413, `expected at most 50000 features, found more: F49999 is feature 50001","line":50003,"column":4`},
		{"a CNF header of a million variables", "", "application/octet-stream", []byte("p cnf 1048576 0\n"), 413, `"line":1,`},
		{"16 MiB and more", "", "application/octet-stream", make([]byte, models.MaxSize+1), 413, `The model's file has 16 MiB; the limit is 16 MiB.`},
		{"empty", "", "application/octet-stream", nil, 400, `The request body is empty`},
		{"a form", "", "application/x-www-form-urlencoded", []byte("features\n\tA\n"), 415, `Content-Type: application/octet-stream`},
		{"text/plain", "", "text/plain", []byte("features\n\tA\n"), 415, `Content-Type: application/octet-stream`},
		{"no content type", "", "", []byte("features\n\tA\n"), 415, `says no Content-Type`},
		{"unknown format", "?format=xml", "application/octet-stream", []byte("features\n\tA\n"), 400, `?format=“xml” is not a format`},
	} {
		res, out := upload(t, ts, tc.query, tc.contentType, tc.src)
		if res.StatusCode != tc.status || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, res.StatusCode, truncate(out, 300), tc.status, tc.want)
		}
	}
	// Still serving: an upload and a question on it.
	id := uploadModel(t, ts, "ok.uvl", []byte("features\n\tRoot\n\t\toptional\n\t\t\tA\n"))
	var a modelAnalyzeResponse
	if postOK(t, ts, "/api/v1/analyze", modelBody(id, nil, nil, ""), &a) && (a.Configurations == nil || *a.Configurations != "2") {
		t.Errorf("after the refusals: %+v", a)
	}
}

// oracleBody writes a model request of the oracle's decisions on m.
func oracleBody(id string, m *feature.Model, ds []oracle.Decision, extra string) string {
	var sel, desel []string
	for _, d := range ds {
		if d.Select {
			sel = append(sel, m.Features[d.Feature].Name)
		} else {
			desel = append(desel, m.Features[d.Feature].Name)
		}
	}
	return modelBody(id, sel, desel, extra)
}

// analyzeModel posts an analysis of decisions on model id.
func analyzeModel(t *testing.T, ts *httptest.Server, id string, m *feature.Model, ds []oracle.Decision, backend string) (int, string) {
	t.Helper()
	res, out := post(t, ts, "/api/v1/analyze", oracleBody(id, m, ds, fmt.Sprintf(`,"backend":%q`, backend)))
	return res.StatusCode, out
}

// modelBackends lists the backends of the test server that configure
// feature models.
func modelBackends(s *Server) []string {
	var out []string
	for _, name := range s.lineup.Names() {
		if _, ok := s.engines[name].Backend.(configurator.ModelCompiler); ok {
			out = append(out, name)
		}
	}
	return out
}

// On a bundled example small enough for the oracle, along seeded random
// decisions, every backend's analysis is the oracle's: each feature once,
// in its state; the count; and for decisions no configuration keeps, a
// 422 with a minimal conflicting subset. With -short, fewer trials.
func TestModelAnalyzeAgainstOracle(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	trials := 40
	if testing.Short() {
		trials = 15
	}
	for _, name := range []string{"computer", "smarthome"} {
		id, m := exampleID(t, name)
		o, err := oracle.NewFeatures(len(m.Features), m.Valid)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(21, uint64(len(name))))
		for _, backend := range modelBackends(s) {
			conflicts := 0
			for trial := range trials {
				var ds []oracle.Decision
				for _, f := range rng.Perm(len(m.Features))[:rng.IntN(5)] {
					ds = append(ds, oracle.Decision{Feature: f, Select: rng.IntN(2) == 0})
				}
				status, out := analyzeModel(t, ts, id, m, ds, backend)
				what := fmt.Sprintf("%s on %s, trial %d (%v)", backend, name, trial, ds)
				if !o.Consistent(ds) {
					conflicts++
					checkConflict(t, what, m, o, ds, status, out)
					continue
				}
				if status != http.StatusOK {
					t.Fatalf("%s: %d %s", what, status, out)
				}
				var a modelAnalyzeResponse
				if err := json.Unmarshal([]byte(out), &a); err != nil {
					t.Fatal(err)
				}
				checkAnalysis(t, what, m, o, ds, &a)
			}
			if conflicts == 0 {
				t.Errorf("%s on %s: no trial had conflicting decisions", backend, name)
			}
		}
	}
}

// checkAnalysis compares an analysis with the oracle's.
func checkAnalysis(t *testing.T, what string, m *feature.Model, o *oracle.Features, ds []oracle.Decision, a *modelAnalyzeResponse) {
	t.Helper()
	want := o.Analyze(ds)
	state := map[string]string{}
	for _, l := range []struct {
		names []string
		state string
	}{{a.Select, "select"}, {a.Deselect, "deselect"}, {a.ForcedOn, "forced_on"}, {a.ForcedOff, "forced_off"}, {a.Free, "free"}} {
		for _, n := range l.names {
			if prev, ok := state[n]; ok {
				t.Errorf("%s: %q is both %s and %s", what, n, prev, l.state)
			}
			state[n] = l.state
		}
	}
	if len(state) != len(m.Features) {
		t.Errorf("%s: %d features named, the model has %d", what, len(state), len(m.Features))
	}
	for f, ft := range m.Features {
		exp := "free"
		switch {
		case slices.Contains(ds, oracle.Decision{Feature: f, Select: true}):
			exp = "select"
		case slices.Contains(ds, oracle.Decision{Feature: f, Select: false}):
			exp = "deselect"
		case !want.Off[f]:
			exp = "forced_on"
		case !want.On[f]:
			exp = "forced_off"
		}
		if state[ft.Name] != exp {
			t.Errorf("%s: %q is %s, the oracle says %s", what, ft.Name, state[ft.Name], exp)
		}
	}
	if a.Configurations == nil || *a.Configurations != fmt.Sprint(want.Configurations) || a.AtLeast {
		t.Errorf("%s: configurations %v (at least %v), the oracle counts %d", what, a.Configurations, a.AtLeast, want.Configurations)
	}
}

// checkConflict checks the 422 of decisions no configuration keeps: a
// subset of them that no configuration keeps, from which dropping any
// one leaves decisions that one does.
func checkConflict(t *testing.T, what string, m *feature.Model, o *oracle.Features, ds []oracle.Decision, status int, out string) {
	t.Helper()
	var c conflictJSON
	if status != http.StatusUnprocessableEntity || json.Unmarshal([]byte(out), &c) != nil || c.Error == "" {
		t.Errorf("%s: %d %s, want a 422 conflict", what, status, out)
		return
	}
	var sub []oracle.Decision
	for _, l := range []struct {
		names []string
		sel   bool
	}{{c.Conflict.Select, true}, {c.Conflict.Deselect, false}} {
		for _, n := range l.names {
			f, ok := m.ID(n)
			d := oracle.Decision{Feature: f, Select: l.sel}
			if !ok || !slices.Contains(ds, d) {
				t.Errorf("%s: the conflict names %q, not a decision", what, n)
				return
			}
			sub = append(sub, d)
		}
	}
	if o.Consistent(sub) {
		t.Errorf("%s: the conflict %v is kept by a configuration", what, c.Conflict)
	}
	for i := range sub {
		if !o.Consistent(slices.Delete(slices.Clone(sub), i, i+1)) {
			t.Errorf("%s: the conflict %v is not minimal", what, c.Conflict)
		}
	}
}

// Why? on a forced feature: every minimal reason (the oracle's), the
// fewest decisions to undo, and the model's words.
func TestModelExplain(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	id, _ := exampleID(t, "car")
	for _, backend := range modelBackends(s) {
		be := fmt.Sprintf(`,"backend":%q`, backend)
		var e modelExplainResponse
		body := modelBody(id, []string{"Adaptive cruise", "Electric"}, nil, `,"feature":"Automatic"`+be)
		if !postOK(t, ts, "/api/v1/explain", body, &e) {
			continue
		}
		reasons, _ := json.Marshal(e.Reasons)
		if e.Feature != "Automatic" || e.State != "forced_on" || e.Core || e.More ||
			string(reasons) != `[{"select":["Adaptive cruise"],"deselect":[],"constraints":["constraint at 49:2: \"Adaptive cruise\" =\u003e \"Cruise control\" \u0026 Automatic"],`+
				`"proof":["constraint at 49:2: \"Adaptive cruise\" =\u003e \"Cruise control\" \u0026 Automatic: violated"]},`+
				`{"select":["Electric"],"deselect":[],"constraints":["constraint at 47:2: Electric =\u003e Automatic"],"proof":["constraint at 47:2: Electric =\u003e Automatic: violated"]}]` {
			t.Errorf("%s: Why is Automatic forced on: %+v, reasons %s", backend, e, reasons)
		}
		if e.MakeRoom == nil || !slices.Equal(e.MakeRoom.Select, []string{"Adaptive cruise", "Electric"}) || len(e.MakeRoom.Deselect) != 0 {
			t.Errorf("%s: make room for Automatic: %+v, want both decisions undone", backend, e.MakeRoom)
		}
		if len(e.Constraints) != 2 {
			t.Errorf("%s: constraints %q, want the two of the reasons", backend, e.Constraints)
		}

		body = modelBody(id, nil, nil, `,"feature":"Body"`+be)
		if postOK(t, ts, "/api/v1/explain", body, &e) && (!e.Core || e.MakeRoom != nil || len(e.Reasons) != 1 || len(e.Reasons[0].Select)+len(e.Reasons[0].Deselect) != 0) {
			t.Errorf("%s: Why is Body (mandatory) forced: %+v", backend, e)
		}
		if !strings.Contains(strings.Join(e.Constraints, "; "), `"Car" needs "Body" (mandatory)`) {
			t.Errorf("%s: Body is forced by %q", backend, e.Constraints)
		}
	}
}

// On the computer example, every reason and the room are the oracle's,
// along 30 random sets of decisions per backend (with -short, 10).
func TestModelExplainAgainstOracle(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	trials := 30
	if testing.Short() {
		trials = 10
	}
	id, m := exampleID(t, "computer")
	o, err := oracle.NewFeatures(len(m.Features), m.Valid)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(22, 1))
	checked := 0
	for _, backend := range modelBackends(s) {
		for range trials {
			var ds []oracle.Decision
			for _, f := range rng.Perm(len(m.Features))[:1+rng.IntN(4)] {
				ds = append(ds, oracle.Decision{Feature: f, Select: rng.IntN(2) == 0})
			}
			if !o.Consistent(ds) {
				continue
			}
			a := o.Analyze(ds)
			for f, ft := range m.Features {
				decided := slices.ContainsFunc(ds, func(d oracle.Decision) bool { return d.Feature == f })
				if decided || a.On[f] && a.Off[f] {
					continue
				}
				other := !a.On[f] // the value no configuration gives f
				want, err := o.MinimalReasons(ds, f, other)
				if err != nil {
					t.Fatal(err)
				}
				var e modelExplainResponse
				body := oracleBody(id, m, ds, fmt.Sprintf(`,"feature":%q,"backend":%q`, ft.Name, backend))
				if !postOK(t, ts, "/api/v1/explain", body, &e) {
					continue
				}
				checked++
				var got [][]int
				for _, r := range e.Reasons {
					var set []int
					for j, d := range ds {
						name := m.Features[d.Feature].Name
						if d.Select && slices.Contains(r.Select, name) || !d.Select && slices.Contains(r.Deselect, name) {
							set = append(set, j)
						}
					}
					got = append(got, set)
				}
				key := func(sets [][]int) string {
					var ss []string
					for _, s := range sets {
						ss = append(ss, fmt.Sprint(s))
					}
					slices.Sort(ss)
					return strings.Join(ss, " ")
				}
				if key(got) != key(want) {
					t.Errorf("%s: %v, Why %q: reasons %v, the oracle's %v", backend, ds, ft.Name, got, want)
				}
				k, ok := o.MinUndo(ds, f, other)
				switch {
				case !ok && (!e.Core || e.MakeRoom != nil):
					t.Errorf("%s: %v, %q is forced by the model alone; core %v, room %v", backend, ds, ft.Name, e.Core, e.MakeRoom)
				case ok && (e.MakeRoom == nil || len(e.MakeRoom.Select)+len(e.MakeRoom.Deselect) != k):
					t.Errorf("%s: %v, room for %q: %v, the oracle's has %d", backend, ds, ft.Name, e.MakeRoom, k)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d explanations checked", checked)
	}
}

// The model requests' refusals.
func TestModelAPIErrors(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	id, _ := exampleID(t, "car")
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"unknown model", "/api/v1/analyze", modelBody(strings.Repeat("0", 24), nil, nil, ""), 404, `There is no model “000000000000000000000000” on this server`},
		{"not an ID", "/api/v1/analyze", modelBody("../../etc/passwd", nil, nil, ""), 404, `There is no model`},
		{"a board past the built-in ones", "/api/v1/analyze", modelBody("queens-99", nil, nil, ""), 404, `There is no board “queens-99”: the built-in boards are queens-1 to queens-32.`},
		{"no model", "/api/v1/analyze", `{"model":""}`, 400, `Say which model`},
		{"null model", "/api/v1/analyze", `{"model":null}`, 400, `Say which model`},
		{"unknown feature", "/api/v1/analyze", modelBody(id, []string{"Jet engine"}, nil, ""), 400, `Feature \"Jet engine\": no such feature`},
		{"decided twice", "/api/v1/analyze", modelBody(id, []string{"Diesel"}, []string{"Diesel"}, ""), 400, `Feature \"Diesel\": feature decided twice`},
		{"unknown field", "/api/v1/analyze", `{"model":"x","queens":[]}`, 400, `Unknown field \"queens\"; the fields are model, select, deselect, backend (and feature for explain).`},
		{"feature is unknown to analyze", "/api/v1/analyze", modelBody(id, nil, nil, `,"feature":"Body"`), 400, `Unknown field \"feature\"`},
		{"select not a list", "/api/v1/analyze", `{"model":"x","select":"Body"}`, 400, `\"select\" must be a list of feature names, not string.`},
		{"unknown backend", "/api/v1/analyze", modelBody(id, nil, nil, `,"backend":"cplex"`), 400, `“cplex” is not a backend`},
		{"no configuration", "/api/v1/analyze", modelBody(id, []string{"Electric", "Tow bar"}, nil, ""), 422,
			`{"error":"No configuration keeps +Electric, +Tow bar: constraint at 52:2: \"Tow bar\" =\u003e !Electric \u0026 !\"Alloy 19\".",` +
				`"conflict":{"select":["Electric","Tow bar"],"deselect":[]},"constraints":["constraint at 52:2: \"Tow bar\" =\u003e !Electric \u0026 !\"Alloy 19\""]}`},
		{"explain without a feature", "/api/v1/explain", modelBody(id, nil, nil, ""), 400, `Say which feature to explain`},
		{"explain an unknown feature", "/api/v1/explain", modelBody(id, nil, nil, `,"feature":"Wings"`), 400, `“Wings” is no feature of the model.`},
		{"explain a free feature", "/api/v1/explain", modelBody(id, nil, nil, `,"feature":"Sunroof"`), 422, `“Sunroof” is free (some configuration selects it and some does not); only a forced feature has a reason to explain.`},
		{"explain a decision", "/api/v1/explain", modelBody(id, []string{"Sunroof"}, nil, `,"feature":"Sunroof"`), 422, `“Sunroof” is selected by you; only a forced feature`},
	} {
		res, out := post(t, ts, tc.path, tc.body)
		if res.StatusCode != tc.status || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, res.StatusCode, out, tc.status, tc.want)
		}
	}
	req, _ := http.NewRequest(http.MethodDelete, ts.URL+"/api/v1/models", nil)
	if res, out := do(t, req); res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD, POST" {
		t.Errorf("DELETE /api/v1/models: %d %s", res.StatusCode, out)
	}
}

// An upload survives a restart of the server on the same directory.
func TestModelKeptAcrossRestart(t *testing.T) {
	cfg := testConfig()
	cfg.Models.Dir = t.TempDir()
	src := []byte("features\n\tShop\n\t\talternative\n\t\t\tOnline\n\t\t\tStore\n")
	_, ts := newTestServer(t, cfg)
	id := uploadModel(t, ts, "shop.uvl", src)
	ts.Close()

	_, ts = newTestServer(t, cfg)
	var a modelAnalyzeResponse
	if postOK(t, ts, "/api/v1/analyze", modelBody(id, []string{"Online"}, nil, ""), &a) &&
		(!slices.Equal(a.ForcedOff, []string{"Store"}) || *a.Configurations != "1") {
		t.Errorf("after a restart: %+v", a)
	}
}

// limited is the SAT backend under another name, refusing the models of
// more than max features as beyond its limits.
type limited struct {
	*sat.Backend
	name string
	max  int
	gate chan struct{} // when not nil, a compile waits for it
}

func (b *limited) Name() string { return b.name }

func (b *limited) CompileModel(ctx context.Context, m *feature.Model) (configurator.Space, error) {
	if b.gate != nil {
		select {
		case <-b.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if len(m.Features) > b.max {
		return nil, fmt.Errorf("%d features, more than %d: %w", len(m.Features), b.max, configurator.ErrTooLarge)
	}
	return b.Backend.CompileModel(ctx, m)
}

// A model beyond a backend's limits is a 413 that names a backend that
// answers it; a compile longer than the request's deadline is a 503 that
// says so, and goes on for the next request.
func TestModelBackendLimits(t *testing.T) {
	cfg := testConfig()
	small := &limited{Backend: sat.New(sat.Options{}), name: "sat-small", max: 25}
	slow := &limited{Backend: sat.New(sat.Options{}), name: "sat-slow", max: 1000, gate: make(chan struct{})}
	cfg.extra = []Engine{{Backend: small, Deadline: time.Minute}, {Backend: slow, Deadline: time.Minute}}
	cfg.Guard.RequestDeadline = 3 * time.Second
	_, ts := newTestServer(t, cfg)
	car, _ := exampleID(t, "car")
	home, _ := exampleID(t, "smarthome")

	res, out := post(t, ts, "/api/v1/analyze", modelBody(car, nil, nil, `,"backend":"sat-small"`))
	if want := `This model is beyond the sat-small backend's limits (compile Car with sat-small: 32 features, more than 25: too large for this backend). The bdd backend answers it: send \"backend\": \"bdd\".`; res.StatusCode != 413 || !strings.Contains(out, want) {
		t.Errorf("beyond the limits: %d %s, want 413 with %s", res.StatusCode, out, want)
	}
	if res, out := post(t, ts, "/api/v1/analyze", modelBody(home, nil, nil, `,"backend":"sat-small"`)); res.StatusCode != 200 {
		t.Errorf("within the limits: %d %s", res.StatusCode, out)
	}

	res, out = post(t, ts, "/api/v1/analyze", modelBody(home, nil, nil, `,"backend":"sat-slow"`))
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "5" || !strings.Contains(out, "The model is still being compiled with sat-slow (for ") {
		t.Errorf("a compile past the request's deadline: %d %s", res.StatusCode, out)
	}
	close(slow.gate)
	var a modelAnalyzeResponse
	if postOK(t, ts, "/api/v1/analyze", modelBody(home, nil, nil, `,"backend":"sat-slow"`), &a) && (a.Configurations == nil || *a.Configurations != "135") {
		t.Errorf("the next request: %+v", a)
	}
}

// TestBoardAsModel: the built-in board queens-N answers the model API on
// every backend, its squares as features; with queens only it answers as
// the board's API does (its blocked squares forced off, its forced ones
// forced on), and a square ruled out restricts it as the board oracle says.
func TestBoardAsModel(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	board := configuratortest.Board(t, 8)
	cells := func(names []string) []configurator.Cell {
		if len(names) == 0 {
			return nil
		}
		return configuratortest.Cells(t, strings.Join(names, ","))
	}
	for _, backend := range []string{"bdd", "sat"} {
		for _, tc := range []struct{ sel, desel []string }{
			{[]string{"a1"}, nil},
			{[]string{"a1"}, []string{"c2"}},
			{[]string{"a1"}, []string{"e2", "f2"}},
			{[]string{"d1", "b4"}, nil},
			{nil, []string{"a1", "b1", "c1"}},
		} {
			body, _ := json.Marshal(map[string]any{"model": "queens-8", "select": tc.sel, "deselect": tc.desel, "backend": backend})
			res, out := post(t, ts, "/api/v1/analyze", string(body))
			var got modelAnalyzeResponse
			if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &got) != nil {
				t.Fatalf("%s %v %v: %d %s", backend, tc.sel, tc.desel, res.StatusCode, out)
			}
			queens, without := cells(tc.sel), cells(tc.desel)
			var wantOn, wantOff []string
			for r := range 8 {
				for c := range 8 {
					cell := configurator.Cell{Row: r, Col: c}
					if slices.Contains(queens, cell) || slices.Contains(without, cell) {
						continue
					}
					oc := oracle.Cell{Row: r, Col: c}
					oq := make([]oracle.Cell, 0, len(queens)+1)
					for _, q := range queens {
						oq = append(oq, oracle.Cell{Row: q.Row, Col: q.Col})
					}
					ow := make([]oracle.Cell, 0, len(without)+1)
					for _, w := range without {
						ow = append(ow, oracle.Cell{Row: w.Row, Col: w.Col})
					}
					switch {
					case !board.Satisfiable(append(oq, oc), ow):
						wantOff = append(wantOff, cell.String())
					case !board.Satisfiable(oq, append(ow, oc)):
						wantOn = append(wantOn, cell.String())
					}
				}
			}
			slices.Sort(wantOn)
			slices.Sort(wantOff)
			gotOn, gotOff := slices.Sorted(slices.Values(got.ForcedOn)), slices.Sorted(slices.Values(got.ForcedOff))
			if !slices.Equal(gotOn, wantOn) || !slices.Equal(gotOff, wantOff) || !slices.Equal(got.Deselect, nonNil(tc.desel)) {
				t.Errorf("%s %v %v: forced on %v off %v deselect %v; want on %v off %v", backend, tc.sel, tc.desel, gotOn, gotOff, got.Deselect, wantOn, wantOff)
			}
			if backend == "bdd" {
				want := 0
				for i := range board.Count() {
					if solutionKeeps(board.Solution(i), queens, without) {
						want++
					}
				}
				if got.Configurations == nil || *got.Configurations != strconv.Itoa(want) {
					t.Errorf("bdd %v %v: %v configurations, want %d", tc.sel, tc.desel, got.Configurations, want)
				}
			}
			// The same body asks for the diagram: the BDD's paths are the
			// solutions left; SAT keeps none.
			res, out = post(t, ts, "/api/v1/diagram", string(body))
			var g diagramResponse
			switch {
			case backend == "sat":
				if res.StatusCode != http.StatusBadRequest || !strings.Contains(out, "keeps no diagram") {
					t.Errorf("sat diagram %v %v: %d %s", tc.sel, tc.desel, res.StatusCode, out)
				}
			case res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &g) != nil:
				t.Errorf("bdd diagram %v %v: %d %s", tc.sel, tc.desel, res.StatusCode, out)
			case got.Configurations == nil || g.Truncated != (g.Solutions == "") || !g.Truncated && g.Solutions != *got.Configurations ||
				g.Model != "queens-8" || g.N != 0 || g.Decisions == nil ||
				!slices.Equal(g.Decisions.Select, got.Select) || !slices.Equal(g.Decisions.Deselect, got.Deselect):
				t.Errorf("bdd diagram %v %v: %q solutions (truncated %v) of %q (n %d) under %+v; analyze says %v under %v %v",
					tc.sel, tc.desel, g.Solutions, g.Truncated, g.Model, g.N, g.Decisions, got.Configurations, got.Select, got.Deselect)
			}
			if len(tc.desel) > 0 {
				continue
			}
			// Queens alone: the board's own API gives the same squares.
			var qs [][2]int
			for _, q := range queens {
				qs = append(qs, [2]int{q.Row, q.Col})
			}
			bb, _ := json.Marshal(map[string]any{"n": 8, "queens": qs, "backend": backend})
			res, out = post(t, ts, "/api/v1/analyze", string(bb))
			var br struct{ Blocked, Forced [][2]int }
			if res.StatusCode != http.StatusOK || json.Unmarshal([]byte(out), &br) != nil {
				t.Fatalf("board %s %v: %d %s", backend, tc.sel, res.StatusCode, out)
			}
			if names := cellNames(br.Blocked); !slices.Equal(names, gotOff) {
				t.Errorf("%s %v: the board blocks %v, the model forces off %v", backend, tc.sel, names, gotOff)
			}
			if names := cellNames(br.Forced); !slices.Equal(names, gotOn) {
				t.Errorf("%s %v: the board forces %v, the model forces on %v", backend, tc.sel, names, gotOn)
			}
		}
	}
}

// solutionKeeps reports whether a solution holds every queen and no
// square ruled out.
func solutionKeeps(sol []oracle.Cell, queens, without []configurator.Cell) bool {
	has := func(c configurator.Cell) bool { return slices.Contains(sol, oracle.Cell{Row: c.Row, Col: c.Col}) }
	return !slices.ContainsFunc(queens, func(c configurator.Cell) bool { return !has(c) }) && !slices.ContainsFunc(without, has)
}

// cellNames names [row, col] pairs in chess notation, sorted.
func cellNames(cells [][2]int) []string {
	out := []string{}
	for _, c := range cells {
		out = append(out, configurator.Cell{Row: c[0], Col: c[1]}.String())
	}
	slices.Sort(out)
	return out
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// TestAnalyzeChanged: the answer says what the last decision did against
// the others, checked against the two analyses with and without it.
func TestAnalyzeChanged(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	analyze := func(sel, desel []string) modelAnalyzeResponse {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"model": "queens-8", "select": sel, "deselect": desel, "backend": "bdd"})
		var got modelAnalyzeResponse
		if !postOK(t, ts, "/api/v1/analyze", string(body), &got) {
			t.FailNow()
		}
		return got
	}
	if got := analyze(nil, nil); got.Changed != nil {
		t.Errorf("no decisions: changed %+v, want null", got.Changed)
	}
	for _, tc := range []struct{ sel, desel, prevSel, prevDesel []string }{
		{[]string{"a1"}, nil, nil, nil},
		{[]string{"a1", "e2"}, nil, []string{"a1"}, nil},
		{[]string{"a1"}, []string{"e2"}, []string{"a1"}, nil},
		{[]string{"a1"}, []string{"e2", "f2"}, []string{"a1"}, []string{"e2"}},
	} {
		got, prev := analyze(tc.sel, tc.desel), analyze(tc.prevSel, tc.prevDesel)
		if got.Changed == nil {
			t.Fatalf("%v %v: no changes", tc.sel, tc.desel)
		}
		was := map[string]string{}
		for _, st := range []struct {
			names []string
			state string
		}{{prev.Select, "select"}, {prev.Deselect, "deselect"}, {prev.ForcedOn, "on"}, {prev.ForcedOff, "off"}, {prev.Free, "free"}} {
			for _, n := range st.names {
				was[n] = st.state
			}
		}
		var wantOn, wantOff, wantFreed []string
		for _, n := range got.ForcedOn {
			if was[n] != "on" {
				wantOn = append(wantOn, n)
			}
		}
		for _, n := range got.ForcedOff {
			if was[n] != "off" {
				wantOff = append(wantOff, n)
			}
		}
		for _, n := range got.Free {
			if was[n] == "on" || was[n] == "off" {
				wantFreed = append(wantFreed, n)
			}
		}
		if !slices.Equal(got.Changed.ForcedOn, nonNil(wantOn)) || !slices.Equal(got.Changed.ForcedOff, nonNil(wantOff)) || !slices.Equal(got.Changed.Freed, nonNil(wantFreed)) {
			t.Errorf("%v %v: changed %+v, want on %v off %v freed %v", tc.sel, tc.desel, got.Changed, wantOn, wantOff, wantFreed)
		}
		if len(got.Changed.ForcedOn)+len(got.Changed.ForcedOff) == 0 {
			t.Errorf("%v %v: the step forced nothing; the case tests nothing", tc.sel, tc.desel)
		}
	}
}

// TestFeatureIDEUpload: a FeatureIDE model uploads, is told from its
// content, and is configured like any other.
func TestFeatureIDEUpload(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	src := `<?xml version="1.0" encoding="UTF-8"?>
<featureModel>
	<struct>
		<and abstract="true" mandatory="true" name="Shop">
			<alt mandatory="true" name="Payment">
				<feature name="Card"/>
				<feature name="Cash"/>
			</alt>
			<feature name="Delivery"/>
		</and>
	</struct>
	<constraints>
		<rule><imp><var>Delivery</var><var>Card</var></imp></rule>
	</constraints>
</featureModel>
`
	res, out := upload(t, ts, "", "application/octet-stream", []byte(src))
	var info modelJSON
	if res.StatusCode != http.StatusCreated || json.Unmarshal([]byte(out), &info) != nil || info.Format != feature.FeatureIDE || info.Features != 5 || info.Constraints != 1 {
		t.Fatalf("upload: %d %s", res.StatusCode, out)
	}
	body, _ := json.Marshal(map[string]any{"model": info.Model, "select": []string{"Delivery"}, "backend": "bdd"})
	var got modelAnalyzeResponse
	if !postOK(t, ts, "/api/v1/analyze", string(body), &got) {
		t.FailNow()
	}
	// Delivery needs Card, which rules out Cash: one configuration.
	if !slices.Equal(got.ForcedOn, []string{"Shop", "Payment", "Card"}) || !slices.Equal(got.ForcedOff, []string{"Cash"}) || got.Configurations == nil || *got.Configurations != "1" {
		t.Errorf("+Delivery: on %v off %v, %v configurations", got.ForcedOn, got.ForcedOff, got.Configurations)
	}
}
