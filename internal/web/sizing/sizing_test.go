package sizing

import (
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
)

// TestFor checks the plans of the machines the server is meant for
// against the BDD backend's costs: a 24 GiB machine serves 16×16 from its
// file and compiles 15×15; a 3 GiB container serves 14×14 and refuses
// 15×15, whose compile alone needs more than it can give; an 8 GB laptop
// compiles 15×15; smaller ones, smaller boards. Every plan's parts add up
// to its soft limit at most, and its peak bound is under the memory.
func TestFor(t *testing.T) {
	b := bdd.New(bdd.Options{})
	cost := func(n int) int64 { return b.Cost(n, configurator.RowMajor).Bytes }
	tests := []struct {
		name              string
		memory            int64
		maxN, compileMaxN int
		slots             int
		models            int64 // a sixteenth of the soft limit, 32 to 256 MiB
	}{
		{"24 GiB", 24 << 30, 16, 15, 2, 256 << 20},
		{"8 GB", 8e9, 15, 15, 2, 256 << 20},
		{"3 GiB", 3 << 30, 14, 14, 2, 128 << 20},
		{"1 GiB", 1 << 30, 14, 14, 1, 1 << 30 / 3 * 2 / 16},
		{"256 MiB", 256 << 20, 12, 12, 1, 32 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := For(tt.memory, 0, cost, 16, 15, 2)
			if p.MaxN != tt.maxN || p.CompileMaxN != tt.compileMaxN || p.Slots != tt.slots {
				t.Errorf("largest boards %d and %d compiled, %d slots; want %d, %d and %d (%+v)",
					p.MaxN, p.CompileMaxN, p.Slots, tt.maxN, tt.compileMaxN, tt.slots, p)
			}
			if cost(p.MaxN) > p.Cache || p.MaxN < 16 && cost(p.MaxN+1) <= p.Cache {
				t.Errorf("the largest board %d×%d is not the largest whose compile fits the cache of %d bytes", p.MaxN, p.MaxN, p.Cache)
			}
			if p.SoftLimit >= p.Peak || p.Peak >= tt.memory {
				t.Errorf("soft limit %d, peak %d, memory %d", p.SoftLimit, p.Peak, tt.memory)
			}
			if tt.memory >= 1<<30 && p.Cache+p.Scratch+p.Models > p.SoftLimit {
				t.Errorf("cache %d, work space %d and models %d past the soft limit %d", p.Cache, p.Scratch, p.Models, p.SoftLimit)
			}
			if p.Models != tt.models {
				t.Errorf("the feature models' store: %d bytes, want %d", p.Models, tt.models)
			}
		})
	}
}

// TestForCacheGiven checks that a cache a flag gives bounds the largest
// boards and the budget in place of the sized one.
func TestForCacheGiven(t *testing.T) {
	b := bdd.New(bdd.Options{})
	cost := func(n int) int64 { return b.Cost(n, configurator.RowMajor).Bytes }
	p := For(24<<30, 1<<30, cost, 16, 15, 2)
	if p.Cache != 1<<30 || p.MaxN != 14 || p.CompileMaxN != 14 || p.SoftLimit != 16<<30 {
		t.Errorf("24 GiB with a cache of 1 GiB: %+v; want the budget 1 GiB, boards up to 14×14, the soft limit 16 GiB", p)
	}
}
