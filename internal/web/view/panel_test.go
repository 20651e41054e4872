package view

import (
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
)

// Make room's panel says "no smaller set" only of a room proved a fewest
// set; of one the search could not prove it says that a smaller may exist
// and how many queens a fewest set has at least.
func TestRoomPanelAtLeast(t *testing.T) {
	c := configurator.Cell{Row: 6, Col: 3}
	room := []configurator.Cell{{Row: 0, Col: 0}, {Row: 4, Col: 1}, {Row: 2, Col: 2}}
	for _, tt := range []struct {
		least int
		want  string
	}{
		{0, "Removing the queens on a1, b5 and c3 frees d7; no smaller set of your queens does."},
		{2, "Removing the queens on a1, b5 and c3 frees d7. A smaller set may exist: the search stopped at its limit before it knew the fewest, which has at least 2 queens."},
	} {
		ex := &configurator.Explanation{Cell: c, State: configurator.Blocked, Room: room, RoomAtLeast: tt.least,
			Reasons: []configurator.Cause{{Reason: configurator.NoCompletion, Queens: room[:2]}, {Reason: configurator.NoCompletion, Queens: room[2:]}}}
		st := board.State{N: 8, Queens: room}
		r := &Step{State: st, Act: board.Action{Kind: board.Room, Cell: c},
			Runs: []Run{{Answer: configurator.Answer{Explanation: ex, Room: room}}}}
		p := panel(r, &App{})
		if p == nil || p.Text != tt.want {
			t.Errorf("room of 3, at least %d: %+v\nwant %q", tt.least, p, tt.want)
		}
		if tt.least > 0 && strings.Contains(p.Text, "no smaller") {
			t.Errorf("room of 3, at least %d, says there is no smaller", tt.least)
		}
	}
}
