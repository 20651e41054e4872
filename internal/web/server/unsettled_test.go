package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// A SAT deadline that comes before every feature is settled answers with
// what was settled and lists the rest as unsettled, instead of a 503: the
// API's lists are each a subset of the whole answer's (asked again with
// time enough), and the page shows the answer with the features marked
// and says why.
func TestDeadlineAnswersUnsettled(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	ctx := context.Background()
	type lists struct {
		ForcedOn  []string `json:"forced_on"`
		ForcedOff []string `json:"forced_off"`
		Free      []string `json:"free"`
		Unsettled []string `json:"unsettled"`
	}
	analyze := func(id string) (int, lists, string) {
		status, out, err := postJSON(t, ctx, ts, "/api/v1/analyze", fmt.Sprintf(`{"model":%q,"backend":"sat"}`, id))
		if err != nil {
			t.Fatal(err)
		}
		var l lists
		if status == http.StatusOK {
			if err := json.Unmarshal([]byte(out), &l); err != nil {
				t.Fatal(err)
			}
		}
		return status, l, out
	}
	sat := s.engines["sat"]
	whole := sat.Deadline
	for i, deadline := 0, time.Millisecond; deadline < 2*time.Second; i, deadline = i+1, 2*deadline {
		// A model of its own for each deadline, so that the backend
		// remembers no answer of it.
		src := featuretest.LargeModel(rand.New(rand.NewPCG(uint64(i), 35)), 4000, 4000)
		info, _, err := s.models.Add(ctx, fmt.Sprintf("large-%d.uvl", i), []byte(src), "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.featureSpace(ctx, info.ID, "sat"); err != nil {
			t.Fatal(err)
		}
		sat.Deadline = deadline
		s.engines["sat"] = sat
		status, part, out := analyze(info.ID)
		sat.Deadline = whole
		s.engines["sat"] = sat
		if status != http.StatusOK || len(part.Unsettled) == 0 {
			continue // no configuration found yet, or every feature settled
		}
		// The page, at the same deadline before the whole answer is known:
		// the features marked, and a sentence that says why.
		sat.Deadline = deadline
		s.engines["sat"] = sat
		_, html := get(t, ts, "/?model="+info.ID+"&backend=sat")
		sat.Deadline = whole
		s.engines["sat"] = sat
		marked, said := strings.Contains(html, `class="frow unsettled`), strings.Contains(html, `id="unsettled"`)
		if marked != said {
			t.Errorf("the page marks unsettled features: %v; says so: %v", marked, said)
		}
		t.Logf("deadline %v: %d features unsettled; the page's own answer marks some: %v", deadline, len(part.Unsettled), marked)
		_, want, _ := analyze(info.ID)
		if len(want.Unsettled) != 0 {
			t.Fatalf("with %v the answer leaves %d features unsettled", whole, len(want.Unsettled))
		}
		for _, c := range []struct {
			name      string
			got, want []string
		}{{"forced_on", part.ForcedOn, want.ForcedOn}, {"forced_off", part.ForcedOff, want.ForcedOff}, {"free", part.Free, want.Free}} {
			for _, f := range c.got {
				if !slices.Contains(c.want, f) {
					t.Errorf("deadline %v: %s lists %s, which the whole answer does not", deadline, c.name, f)
				}
			}
		}
		if n := len(part.ForcedOn) + len(part.ForcedOff) + len(part.Free) + len(part.Unsettled); n != 4000 {
			t.Errorf("deadline %v: the lists name %d features of 4000: %.300s", deadline, n, out)
		}
		return
	}
	t.Error("no deadline from 1 ms to 1 s gave an answer with unsettled features")
}

// A backend that took longer than its deadline on a step of a model is
// left out of Both's next steps on that model, and every mode says so
// before Both is chosen (the note and the Both switch's title); a model
// it kept up with keeps it.
func TestBothLeavesOutABackendThatMissedItsDeadline(t *testing.T) {
	s, ts := newTestServer(t, modelSetup())
	ctx := context.Background()
	both := s.lineup.Backends("both")
	if len(both) < 3 {
		t.Fatalf("Both runs %v", both)
	}
	slow := both[len(both)-1]
	var ids []string
	for i := range 2 {
		info, _, err := s.models.Add(ctx, fmt.Sprintf("big-%d.uvl", i), []byte(bigModel(10+i)), "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	note := regexp.MustCompile(`<p class="mode-note" id="left-out">([^<]*)</p>`)
	// The slow backend misses its deadline on the first model, in Both.
	e := s.engines[slow]
	deadline := e.Deadline
	e.Deadline = time.Nanosecond
	s.engines[slow] = e
	_, html := get(t, ts, "/?model="+ids[0]+"&backend=both")
	e.Deadline = deadline
	s.engines[slow] = e
	if got := note.FindStringSubmatch(html); got != nil {
		t.Errorf("the first step already leaves a backend out: %q", got[1])
	}
	name := strings.ToUpper(slow)
	for _, c := range []struct {
		path  string
		left  bool
		lists bool // Both's runs list the slow backend
	}{
		{"/?model=" + ids[0] + "&backend=both", true, false},
		{"/?model=" + ids[0] + "&backend=sat", true, false},
		{"/?model=" + ids[1] + "&backend=both", false, true},
	} {
		res, html := get(t, ts, c.path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d", c.path, res.StatusCode)
		}
		got := note.FindStringSubmatch(html)
		switch {
		case c.left && (got == nil || !strings.HasPrefix(got[1], "Both leaves out "+name+": it took longer than its deadline")):
			t.Errorf("%s: the note is %q, want Both leaving out %s", c.path, got, name)
		case !c.left && got != nil:
			t.Errorf("%s: the note is %q, want none", c.path, got[1])
		}
		title := regexp.MustCompile(`title="([^"]*)"[^>]*>Both</a>`).FindStringSubmatch(html)
		if title == nil || strings.Contains(title[1], "leaves out") != c.left {
			t.Errorf("%s: the Both switch's title is %q", c.path, title)
		}
		if strings.Contains(c.path, "both") {
			table := between(html, `id="questions"`, `</table>`)
			if listed := strings.Contains(table, name); listed != c.lists {
				t.Errorf("%s: Both's answers list %s: %v, want %v", c.path, name, listed, c.lists)
			}
		}
	}
}
