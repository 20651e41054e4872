package server

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// Why? on a feature whose fewest set to undo is beyond the search's
// bounds to prove (twenty triangles: forty decisions): the answer says
// "at least" plainly, in the API (make_room_at_least, a true lower bound
// on the fewest, which the model's construction knows, beside a set that
// frees the feature) and in the page's words; on three triangles the
// answer is exact and says nothing of the kind.
func TestModelExplainAtLeast(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	for _, k := range []int{3, 20} {
		src, names := featuretest.Triangles(k)
		id := uploadModel(t, ts, fmt.Sprintf("triangles%d.uvl", k), []byte(src))
		fewest := 2 * k
		for _, backend := range modelBackends(s) {
			var e modelExplainResponse
			if !postOK(t, ts, "/api/v1/explain", modelBody(id, names, nil, fmt.Sprintf(`,"feature":"T","backend":%q`, backend)), &e) {
				continue
			}
			where := fmt.Sprintf("%s, %d triangles", backend, k)
			if e.MakeRoom == nil {
				t.Fatalf("%s: no room to make: %+v", where, e)
			}
			undone := len(e.MakeRoom.Select)
			switch {
			case k == 3 && (undone != fewest || e.MakeRoomAtLeast != 0):
				t.Errorf("%s: make room undoes %d, at least %d; want the %d, exact", where, undone, e.MakeRoomAtLeast, fewest)
			case k == 20 && (e.MakeRoomAtLeast < 1 || e.MakeRoomAtLeast > fewest || undone < fewest):
				t.Errorf("%s: make room undoes %d, at least %d; the fewest undoes %d", where, undone, e.MakeRoomAtLeast, fewest)
			}
			// Undoing the room frees T: the analysis of the decisions kept.
			var kept []string
			for _, n := range names {
				if !slices.Contains(e.MakeRoom.Select, n) {
					kept = append(kept, n)
				}
			}
			var a modelAnalyzeResponse
			if postOK(t, ts, "/api/v1/analyze", modelBody(id, kept, nil, fmt.Sprintf(`,"backend":%q`, backend)), &a) && slices.Contains(a.ForcedOff, "T") {
				t.Errorf("%s: undoing the room leaves T forced off", where)
			}

			res, page := get(t, ts, "/?model="+id+"&backend="+backend+"&why=T&select="+strings.Join(names, ","))
			said := strings.Contains(html.UnescapeString(page), fmt.Sprintf("a smaller set may exist, of at least %d decisions", e.MakeRoomAtLeast))
			switch {
			case res.StatusCode != http.StatusOK:
				t.Errorf("%s: the page: %d", where, res.StatusCode)
			case e.MakeRoomAtLeast > 0 && !said:
				t.Errorf("%s: the page does not say the fewest has at least %d decisions", where, e.MakeRoomAtLeast)
			case e.MakeRoomAtLeast == 0 && strings.Contains(page, "room-at-least"):
				t.Errorf("%s: the page says at least of an exact answer", where)
			}
		}
	}
}

// The board's answer says "at least" as the feature models' does: an
// explanation whose room is not proved a fewest gives make_room_at_least,
// and one that is gives none.
func TestExplainResponseAtLeast(t *testing.T) {
	bm, err := configurator.New(8, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	queen := func(r, c int) configurator.Decision {
		return configurator.Decision{Feature: bm.Var(configurator.Cell{Row: r, Col: c}), Select: true}
	}
	for _, least := range []int{0, 2} {
		ex := &configurator.FeatureExplanation{Feature: bm.Var(configurator.Cell{Row: 6, Col: 3}), State: configurator.ForcedOff,
			Reasons: []configurator.FeatureReason{{Decisions: []configurator.Decision{queen(0, 0), queen(4, 1)}}},
			Room:    []configurator.Decision{queen(0, 0), queen(4, 1), queen(2, 2)}, RoomAtLeast: least}
		b, err := json.Marshal(newExplainResponse(bm, ex, 0))
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		got, ok := raw["make_room_at_least"]
		switch {
		case least == 0 && ok:
			t.Errorf("an exact room: make_room_at_least %s", got)
		case least > 0 && string(got) != fmt.Sprint(least):
			t.Errorf("a room not proved: make_room_at_least %q, want %d", got, least)
		case string(raw["make_room"]) != "[[0,0],[4,1],[2,2]]":
			t.Errorf("make_room %s", raw["make_room"])
		}
	}
}
