package peers

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// The peer must build the diagram the native engine builds: OEIS A000170
// solutions and the canonical row-major node counts (BuDDy's bdd_nodecount).
func TestRuddBuildsTheCanonicalDiagram(t *testing.T) {
	tests := []struct {
		n         int
		solutions int64
		nodes     int
	}{
		{1, 1, 1}, {2, 0, 0}, {3, 0, 0}, {4, 2, 29}, {5, 10, 167}, {6, 4, 129}, {7, 40, 1099}, {8, 92, 2451},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("n=", tt.n), func(t *testing.T) {
			model := configuratortest.Model(t, tt.n, configurator.RowMajor)
			got, err := Rudd(context.Background(), model)
			if err != nil {
				t.Fatal(err)
			}
			if got.Solutions().Cmp(big.NewInt(tt.solutions)) != 0 || got.Nodes() != tt.nodes {
				t.Errorf("%d solutions, %d nodes; want %d, %d", got.Solutions(), got.Nodes(), tt.solutions, tt.nodes)
			}
			// The table holds the diagram, the terminals and garbage.
			if stored := got.Stored(); stored < tt.nodes+2 {
				t.Errorf("%d nodes stored, fewer than the diagram's %d and 2 terminals", stored, tt.nodes)
			}
		})
	}
}

func TestRuddHonoursContext(t *testing.T) {
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Rudd(ctx, model); err == nil {
		t.Error("Rudd with a cancelled context: no error")
	}
}
