package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/examples"
)

// rowState matches a feature's row on the model page: its state and name.
var rowState = regexp.MustCompile(`<li class="frow (\w+)[^"]*" id="f-\d+" data-name="([^"]+)"`)

// pageStates reads the features' states from a model page's HTML.
func pageStates(t *testing.T, html string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range rowState.FindAllStringSubmatch(html, -1) {
		out[strings.ReplaceAll(m[2], "&#34;", `"`)] = m[1]
	}
	return out
}

// The page shows every feature in the state the API gives it, for the
// same decisions, on every backend that configures models.
func TestModelPageAgreesWithTheAPI(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	id, _ := exampleID(t, "computer")
	var backends []string
	for _, name := range s.lineup.Names() {
		if _, ok := s.engines[name].Backend.(configurator.ModelCompiler); ok {
			backends = append(backends, name)
		}
	}
	if len(backends) < 2 {
		t.Fatalf("backends that configure models: %q", backends)
	}
	for _, tc := range []struct{ sel, desel []string }{
		{nil, nil},
		{[]string{"ARM"}, nil},
		{[]string{"Thunderbolt", "Graphics"}, []string{"Wireless LAN"}},
		{[]string{"HDD", "NVMe"}, []string{"USB"}},
	} {
		for _, backend := range backends {
			q := fmt.Sprintf("/?model=%s&select=%s&deselect=%s&backend=%s", id, strings.Join(tc.sel, ","), strings.Join(tc.desel, ","), backend)
			res, html := get(t, ts, strings.ReplaceAll(q, " ", "+"))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d", q, res.StatusCode)
			}
			page := pageStates(t, html)
			body, _ := json.Marshal(map[string]any{"model": id, "select": tc.sel, "deselect": tc.desel, "backend": backend})
			status, out, err := postJSON(t, context.Background(), ts, "/api/v1/analyze", string(body))
			if err != nil || status != http.StatusOK {
				t.Fatalf("analyze %s: %d %v %s", body, status, err, out)
			}
			var api map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &api); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, st := range []string{"select", "deselect", "forced_on", "forced_off", "free"} {
				var names []string
				if err := json.Unmarshal(api[st], &names); err != nil {
					t.Fatal(err)
				}
				for _, n := range names {
					want[n] = st
				}
			}
			if len(page) != len(want) {
				t.Errorf("%s: the page shows %d features, the API %d", q, len(page), len(want))
			}
			for n, st := range want {
				if page[n] != st {
					t.Errorf("%s: %q is %s on the page, %s by the API", q, n, page[n], st)
				}
			}
		}
	}
}

// Each step answers as the browser needs it: htmx gets the app and the
// address to push (a decision, Why?) or to put in place of the one shown
// (a subtree opened); a form without JavaScript is sent to the new
// state's address; what cannot be done is a notice that says why.
func TestModelPageSteps(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	id, _ := exampleID(t, "computer")
	base := "/?model=" + id + "&backend=sat"
	for _, tc := range []struct {
		name, query string
		htmx        bool
		status      int
		header      string // HX-Push-Url, HX-Replace-Url, HX-Retarget, or Final (where a redirect lands), and its value
		value       string
		says        string // in the body
	}{
		{"a page", base, false, 200, "", "", `id="ftree"`},
		{"select, htmx", base + "&pick=ARM", true, 200, "HX-Push-Url", "/?model=" + id + "&select=ARM&backend=sat", `class="frow select`},
		{"deselect, htmx", base + "&select=ARM&drop=USB", true, 200, "HX-Push-Url", "/?model=" + id + "&select=ARM&deselect=USB&backend=sat", "−USB"},
		{"decisions in conflict", base + "&select=ARM,x86,HDD", false, 422, "", "", "the configuration without ARM and x86"},
		{"take back, htmx", base + "&select=ARM&deselect=USB&undo=ARM", true, 200, "HX-Push-Url", "/?model=" + id + "&deselect=USB&backend=sat", ""},
		{"select without JavaScript", base + "&pick=ARM", false, 200, "Final", "/?model=" + id + "&select=ARM&backend=sat", ""},
		{"Why?", base + "&select=Thunderbolt&ask=x86", true, 200, "HX-Push-Url", "/?model=" + id + "&select=Thunderbolt&backend=sat&why=x86", "Why is “x86” forced on?"},
		{"Make room", base + "&select=Thunderbolt,Graphics&why=x86&room=x86", true, 200, "HX-Push-Url", "/?model=" + id + "&backend=sat", ""},
		{"open a subtree", base + "&toggle=-Ports", true, 200, "HX-Replace-Url", "/?model=" + id + "&backend=sat&open=-Ports", `aria-label="Open Ports"`},
		{"every child of a subtree", base + "&toggle=*Ports", true, 200, "HX-Replace-Url", "/?model=" + id + "&backend=sat&open=*Ports", `aria-label="Close Ports"`},
		{"the diagram's panel open", base + "&diagram=1", false, 200, "", "", `<details class="card diagram model-diagram" id="diagram" open>`},
		{"a decision the others exclude", base + "&select=ARM&pick=Thunderbolt", true, 422, "HX-Replace-Url", "/?model=" + id + "&select=ARM&backend=sat", "configuration keeps"},
		{"an unknown feature", base + "&pick=Turbo", true, 400, "HX-Retarget", "#notice", "Turbo"},
		{"an unknown model", "/?model=0123456789abcdef01234567", false, 404, "", "", "no such model"},
		{"an unknown backend", "/?model=" + id + "&backend=quantum", false, 400, "", "", `id="ftree"`},
		{"two steps", base + "&pick=ARM&drop=x86", false, 400, "", "", "two steps"},
		{"the models", "/models", false, 200, "", "", "Bundled examples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hs []string
			if tc.htmx {
				hs = []string{"HX-Request", "true"}
			}
			res, body := get(t, ts, strings.ReplaceAll(tc.query, " ", "+"), hs...)
			if res.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %.300s", res.StatusCode, tc.status, body)
			}
			switch {
			case tc.header == "Final":
				// The client follows the 303 of a form sent without
				// JavaScript: the address it lands on.
				if got := res.Request.URL.RequestURI(); got != tc.value {
					t.Errorf("landed on %q, want %q", got, tc.value)
				}
			case tc.header != "" && res.Header.Get(tc.header) != tc.value:
				t.Errorf("%s: %q, want %q", tc.header, res.Header.Get(tc.header), tc.value)
			}
			if !strings.Contains(body, tc.says) {
				t.Errorf("the answer does not say %q: %.600s", tc.says, body)
			}
		})
	}
}

// The bundled examples are on the page that opens models, and the upload
// states its limit before anything is sent.
func TestModelsPage(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	_, body := get(t, ts, "/models")
	for _, name := range []string{"car", "computer", "smarthome"} {
		if id, _ := exampleID(t, name); !strings.Contains(body, `href="/?model=`+id+`"`) {
			t.Errorf("the page does not offer %s", name)
		}
	}
	if !strings.Contains(body, "up to 16 MiB") {
		t.Error("the page does not say the upload's limit")
	}
	if n := strings.Count(body, `class="btn" href="/?model=`); n != len(examples.All())+13 {
		t.Errorf("%d models offered, want the %d bundled and the boards 4×4 to 16×16", n, len(examples.All()))
	}
	for _, want := range []string{`<a class="btn" href="/?model=queens-4" title="16 features">4×4</a>`, `href="/?model=queens-16"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page does not offer %s", want)
		}
	}
}

// A backend that cannot answer a model (one that configures boards only,
// or a diagram past its node budget) is named with its reason, and the
// page keeps working on SAT: in its own mode it falls back and says so;
// in Both the others answer.
func TestModelPageWhenTheBDDCannotAnswer(t *testing.T) {
	cfg := modelSetup()
	// 256 nodes for 411 features: far below what the model's diagram needs,
	// and small enough that the sifting tried before the compile gives up
	// is quick even under the race detector (as is sat-plain's solver call
	// per feature and value in Both).
	cfg.BDD.Budget = 8 << 10
	s, ts := newTestServer(t, cfg)
	info, _, err := s.models.Add(context.Background(), "big.uvl", []byte(bigModel(10)), "")
	if err != nil {
		t.Fatal(err)
	}
	res, html := get(t, ts, "/?model="+info.ID+"&backend=bdd&select=Q_7_3_1")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	note := regexp.MustCompile(`<p class="mode-note" id="mode-note">([^<]*)</p>`).FindStringSubmatch(html)
	if note == nil || !strings.HasPrefix(note[1], "BDD ") || !strings.Contains(note[1], "SAT answers") {
		t.Errorf("the page does not say that SAT answers for the BDD: %q", note)
	}
	if st := pageStates(t, html); st["Q_7_3_1"] != "select" || st["P_7_3"] != "forced_on" || st["G_7"] != "forced_on" {
		t.Errorf("Q_7_3_1 %s, its parent %s, its branch %s", st["Q_7_3_1"], st["P_7_3"], st["G_7"])
	}
	_, html = get(t, ts, "/?model="+info.ID+"&backend=both&select=Q_7_3_1")
	if !strings.Contains(html, "BDD could not answer") || pageStates(t, html)["Q_7_3_1"] != "select" {
		t.Errorf("Both does not name the BDD's failure beside the others' answer")
	}
}

// A backend whose compile of the model outlasts the page's quick wait
// does not hold the page: the backends that are ready answer, and the page
// says which one is still compiling and for how long.
func TestModelPageWhileTheBDDCompiles(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	info, _, err := s.models.Add(context.Background(), "big.uvl", []byte(bigModel(20)), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.featureSpace(context.Background(), info.ID, "sat"); err != nil {
		t.Fatal(err)
	}
	s.cfg.QuickWait = time.Nanosecond // no compile of the BDD is that quick
	res, html := get(t, ts, "/?model="+info.ID+"&backend=bdd&select=Q_7_3_1")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	note := regexp.MustCompile(`<p class="mode-note" id="mode-note">([^<]*)</p>`).FindStringSubmatch(html)
	if note == nil || !strings.HasPrefix(note[1], "BDD is still compiling this model (for ") || !strings.Contains(note[1], "SAT answers meanwhile") {
		t.Errorf("the page does not say that SAT answers while the BDD compiles: %q", note)
	}
	if st := pageStates(t, html); st["Q_7_3_1"] != "select" || st["P_7_3"] != "forced_on" {
		t.Errorf("Q_7_3_1 %s, its parent %s", st["Q_7_3_1"], st["P_7_3"])
	}
	// The page asks again by itself, and its asking is no step of the
	// person's: the steps it carries stay as they were.
	poll := regexp.MustCompile(`<span class="poll" id="poll" data-poll hx-get="([^"]*)"`).FindStringSubmatch(html)
	if poll == nil || !strings.Contains(poll[1], "select=Q_7_3_1") {
		t.Fatalf("the page does not ask again while the BDD compiles: %q", poll)
	}
	trail := regexp.MustCompile(`name="t" value="([^"]*)"`).FindStringSubmatch(html)
	res, again := get(t, ts, strings.ReplaceAll(poll[1], "&amp;", "&")+"&poll=1&t="+url.QueryEscape(trail[1]), "HX-Request", "true")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("poll: status %d", res.StatusCode)
	}
	if got := regexp.MustCompile(`name="t" value="([^"]*)"`).FindStringSubmatch(again); got == nil || got[1] != trail[1] {
		t.Errorf("a poll changed the steps from %q to %q", trail[1], got)
	}
	// Once the compile ends, the page's next asking is answered by the BDD
	// and asks no more.
	if _, err := s.featureSpace(context.Background(), info.ID, "bdd"); err != nil {
		t.Fatal(err)
	}
	_, done := get(t, ts, strings.ReplaceAll(poll[1], "&amp;", "&")+"&poll=1", "HX-Request", "true")
	if strings.Contains(done, `id="poll"`) || strings.Contains(done, `id="mode-note"`) {
		t.Error("the page still asks again after the BDD compiled the model")
	}
	if st := pageStates(t, done); st["Q_7_3_1"] != "select" || st["P_7_3"] != "forced_on" {
		t.Errorf("the BDD's answer: Q_7_3_1 %s, its parent %s", st["Q_7_3_1"], st["P_7_3"])
	}
}

// Feature names that hold commas travel in the address quoted, as the
// lists of names are written (modelstate.SplitNames): a decision on one
// pushes an address that, opened, shows the same configuration as the
// API gives for the same names; taking it back leaves the others.
func TestModelPageNamesWithCommas(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	const src = "features\n\tShop\n\t\toptional\n\t\t\t\"Size, large\"\n\t\t\tColour\n\t\t\t\"a,b,c\"\n\t\t\tPlain\n" +
		"constraints\n\t\"Size, large\" => Colour\n\t\"a,b,c\" | Plain\n"
	info, _, err := s.models.Add(context.Background(), "commas.uvl", []byte(src), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, step string
		from, push string // the state's query before the step, the address pushed
		sel, desel []string
	}{
		{"select", "pick=Size%2C+large", "", "&select=%22Size,+large%22", []string{"Size, large"}, nil},
		{"deselect", "drop=a%2Cb%2Cc", "&select=%22Size,+large%22", "&select=%22Size,+large%22&deselect=%22a,b,c%22", []string{"Size, large"}, []string{"a,b,c"}},
		{"take back", "undo=Size%2C+large", "&select=%22Size,+large%22&deselect=%22a,b,c%22", "&deselect=%22a,b,c%22", nil, []string{"a,b,c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, body := get(t, ts, "/?model="+info.ID+tc.from+"&backend=sat&"+tc.step, "HX-Request", "true")
			want := "/?model=" + info.ID + tc.push + "&backend=sat"
			if res.StatusCode != http.StatusOK || res.Header.Get("HX-Push-Url") != want {
				t.Fatalf("%d, pushed %q, want %q: %.300s", res.StatusCode, res.Header.Get("HX-Push-Url"), want, body)
			}
			res, html := get(t, ts, want)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d", want, res.StatusCode)
			}
			page := pageStates(t, html)
			req, _ := json.Marshal(map[string]any{"model": info.ID, "select": tc.sel, "deselect": tc.desel, "backend": "sat"})
			status, out, err := postJSON(t, context.Background(), ts, "/api/v1/analyze", string(req))
			if err != nil || status != http.StatusOK {
				t.Fatalf("analyze %s: %d %v %s", req, status, err, out)
			}
			var api struct {
				Select, Deselect, Free []string
				ForcedOn               []string `json:"forced_on"`
				ForcedOff              []string `json:"forced_off"`
			}
			if err := json.Unmarshal([]byte(out), &api); err != nil {
				t.Fatal(err)
			}
			n := 0
			for st, names := range map[string][]string{"select": api.Select, "deselect": api.Deselect,
				"forced_on": api.ForcedOn, "forced_off": api.ForcedOff, "free": api.Free} {
				for _, name := range names {
					n++
					if page[name] != st {
						t.Errorf("%q is %s on the page, %s by the API", name, page[name], st)
					}
				}
			}
			if n != 5 || len(page) != 5 {
				t.Errorf("the API names %d features, the page %d: %v", n, len(page), page)
			}
		})
	}
}

// TestModelPageBoard: a built-in board on the model page is drawn as a
// board, a square ruled out crossed; a step says first what it forced,
// each square a link to its Why?, and an undo says what it freed.
func TestModelPageBoard(t *testing.T) {
	_, ts := newTestServer(t, testConfig())
	res, body := get(t, ts, "/?model=queens-8&select=a1&deselect=c2")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("queens-8: %d", res.StatusCode)
	}
	for _, want := range []string{`id="fgrid"`, `aria-label="8 by 8 board"`, `class="cell queen dark" data-name="a1" name="undo" value="a1"`,
		`class="cell ruled light" data-name="c2" name="undo" value="c2"`, `data-name="e2" name="square" value="e2"`, `class="cell blocked light" data-name="b1" name="ask" value="b1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("queens-8 page: no %s", want)
		}
	}
	if strings.Contains(body, `id="changed"`) {
		t.Error("a page opened says what a step changed")
	}
	// A queen on e2 after a1 forces six more and rules out what they attack.
	res, body = get(t, ts, "/?model=queens-8&select=a1&square=e2", "HX-Request", "true")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("square=e2: %d", res.StatusCode)
	}
	changed := between(body, `<p class="changed"`, `</p>`)
	for _, want := range []string{`<b>&#43;e2</b>`, `forced on 6 squares:`, `title="Why is h3 forced on?">h3</a>`, `forced off 15 squares:`, `and 3 more`} {
		if !strings.Contains(changed, want) {
			t.Errorf("after +e2, the step's changes %q lack %s", changed, want)
		}
	}
	// With the control set to rule squares out, the same click deselects.
	res, body = get(t, ts, "/?model=queens-8&select=a1&square=e2&rule=1", "HX-Request", "true")
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("HX-Push-Url"), "deselect=e2") || !strings.Contains(body, `<b>−e2</b>`) {
		t.Errorf("square=e2&rule=1: %d, pushed %q", res.StatusCode, res.Header.Get("HX-Push-Url"))
	}
	// Why? names the line of the board that rules a square out, in the
	// board's words.
	_, body = get(t, ts, "/?model=queens-8&select=a1,e2&why=b5")
	if !strings.Contains(body, "anti-diagonal f1-a6: at most one of f1, e2, d3, c4, b5, a6") || strings.Contains(body, "constraint at") {
		t.Errorf("Why is b5 forced off: %s", between(body, `<h2 id="why-h"`, `</ol>`))
	}
	// Taking a1 back frees what it forced.
	_, body = get(t, ts, "/?model=queens-8&select=a1,e2&undo=e2", "HX-Request", "true")
	if changed := between(body, `<p class="changed"`, `</p>`); !strings.Contains(changed, "freed 21 squares") {
		t.Errorf("after undo e2: %q", changed)
	}
}

// between is the part of s from the first start to the end after it, ""
// when there is none.
func between(s, start, end string) string {
	i := strings.Index(s, start)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		return s[i:]
	}
	return s[i : i+j+len(end)]
}

// TestModelPageWhileEveryBackendCompiles: a model no backend of the mode
// can answer yet is a wait, not a dead end: 200, a notice that says so,
// and the page asking again by itself.
func TestModelPageWhileEveryBackendCompiles(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	s.cfg.QuickWait = time.Nanosecond
	for i, hx := range [][]string{nil, {"HX-Request", "true"}} {
		// A model of its own for each request, new to every backend.
		info, _, err := s.models.Add(context.Background(), "big.uvl", []byte(bigModel(20+i)), "")
		if err != nil {
			t.Fatal(err)
		}
		res, html := get(t, ts, "/?model="+info.ID+"&backend=both", hx...)
		if strings.Contains(html, `id="ftree"`) {
			t.Skip("a backend compiled the model within a nanosecond")
		}
		if res.StatusCode != http.StatusOK || !strings.Contains(html, "Still compiling the model") || !strings.Contains(html, `id="poll"`) {
			t.Errorf("HTMX %v: %d, notice and poll: %s", hx, res.StatusCode, between(html, `<div id="notice"`, `</section>`))
		}
	}
}

// TestModelPageSwitchesArePushed: through htmx, a board size or a backend
// chosen is an entry of the browser's history of its own (Back returns
// to the board before), as a decision is; a subtree opened over the same
// model and backend takes the place of the entry shown.
func TestModelPageSwitchesArePushed(t *testing.T) {
	_, ts := newTestServer(t, modelSetup())
	id, _ := exampleID(t, "computer")
	for _, tc := range []struct {
		name, from, path string
		header, value    string
	}{
		{"another size", "/?model=queens-8&select=a1", "/?model=queens-6", "HX-Push-Url", "/?model=queens-6"},
		{"another backend", "/?model=queens-8&select=a1", "/?model=queens-8&select=a1&backend=sat", "HX-Push-Url", "/?model=queens-8&select=a1&backend=sat"},
		{"the primary again", "/?model=queens-8&select=a1&backend=sat", "/?model=queens-8&select=a1", "HX-Push-Url", "/?model=queens-8&select=a1"},
		{"a subtree opened", "/?model=" + id, "/?model=" + id + "&toggle=-Ports", "HX-Replace-Url", "/?model=" + id + "&open=-Ports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := get(t, ts, tc.path, "HX-Request", "true", "HX-Current-URL", ts.URL+tc.from)
			if res.StatusCode != http.StatusOK || res.Header.Get(tc.header) != tc.value {
				t.Errorf("%d, %s %q, want %q (push %q, replace %q)", res.StatusCode, tc.header, res.Header.Get(tc.header), tc.value,
					res.Header.Get("HX-Push-Url"), res.Header.Get("HX-Replace-Url"))
			}
		})
	}
}
