package view

import (
	"context"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
)

// site is a page's site over the real backends, the BDD first, then the
// SAT backend and, with plain, the plain SAT baseline.
func site(t *testing.T, withPlain bool) *Site {
	t.Helper()
	backends := []configurator.Backend{bdd.New(bdd.Options{MaxN: 8}), sat.New(sat.Options{MaxN: 8})}
	if withPlain {
		backends = append(backends, plain.New(plain.Options{MaxN: 8}))
	}
	l, err := board.NewLineup(backends...)
	if err != nil {
		t.Fatal(err)
	}
	return &Site{Lineup: l}
}

// TestMissingCapability is the specification of what the page says of a
// heat map or a diagram that the space at hand cannot give: it follows
// from the missing facet, naming the backend that lacks it and those
// known to have it, and the modes that show it (Both only when the
// primary, which answers for Both, has it).
func TestMissingCapability(t *testing.T) {
	tests := []struct {
		name      string
		withPlain bool
		missing   *Missing
		heat      string
		diagram   string
	}{
		{"the BDD has it", false, &Missing{Backend: "sat", Have: []string{"bdd"}},
			"The heat map needs the number of solutions through every square, which only the BDD backend counts. Switch to BDD or Both to see it.",
			"Only the BDD backend has a diagram to draw: the SAT backend keeps clauses, not a diagram. Switch to BDD or Both to see it."},
		{"the plain baseline lacks it too", true, &Missing{Backend: "sat-plain", Have: []string{"bdd"}},
			"The heat map needs the number of solutions through every square, which only the BDD backend counts. Switch to BDD or Both to see it.",
			"Only the BDD backend has a diagram to draw: the SAT-PLAIN backend keeps clauses, not a diagram. Switch to BDD or Both to see it."},
		{"two have it", true, &Missing{Backend: "sat", Have: []string{"bdd", "sat-plain"}},
			"The heat map needs the number of solutions through every square, which only the BDD and SAT-PLAIN backends count. Switch to BDD, SAT-PLAIN or Both to see it.",
			"Only the BDD and SAT-PLAIN backends have a diagram to draw: the SAT backend keeps clauses, not a diagram. Switch to BDD, SAT-PLAIN or Both to see it."},
		{"not the primary", false, &Missing{Backend: "bdd", Have: []string{"sat"}},
			"The heat map needs the number of solutions through every square, which only the SAT backend counts. Switch to SAT to see it.",
			"Only the SAT backend has a diagram to draw: the BDD backend keeps clauses, not a diagram. Switch to SAT to see it."},
		{"none known yet", false, &Missing{Backend: "sat"},
			"The heat map needs the number of solutions through every square, which the SAT backend does not count.",
			"The SAT backend keeps clauses, not a diagram."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := site(t, tt.withPlain)
			if got := heatReason(s, Heat{Missing: tt.missing}); got != tt.heat {
				t.Errorf("heat map:\n got %q\nwant %q", got, tt.heat)
			}
			if got := diagramReason(s, DiagramSize{Missing: tt.missing}); got != tt.diagram {
				t.Errorf("diagram:\n got %q\nwant %q", got, tt.diagram)
			}
		})
	}
	s := site(t, false)
	if got, want := heatReason(s, Heat{Err: context.DeadlineExceeded}),
		"The heat map could not be computed this time: That took longer than the time allowed for one request. Try a smaller board, or try again in a moment."; got != want {
		t.Errorf("a heat map out of time: %q, want %q", got, want)
	}
	if got := heatReason(s, Heat{}); got != "" {
		t.Errorf("a heat map shown has a reason: %q", got)
	}
}
