package featuretest_test

import (
	"math/rand/v2"
	"testing"

	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// TestLargeModel: the large models read, have the features and constraints
// asked for, and have a configuration (by brute force on small ones).
func TestLargeModel(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 3))
		src := featuretest.LargeModel(rng, 1+int(seed%14), int(seed))
		m, err := uvl.Parse([]byte(src))
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		if len(m.Features) != 1+int(seed%14) || len(m.Constraints) != int(seed) {
			t.Errorf("seed %d: %d features, %d constraints", seed, len(m.Features), len(m.Constraints))
		}
		found := false
		config := make([]bool, len(m.Features))
		for mask := range 1 << len(m.Features) {
			for i := range config {
				config[i] = mask>>i&1 == 1
			}
			if m.Valid(config) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("seed %d: no configuration\n%s", seed, src)
		}
	}
	src := featuretest.LargeModel(rand.New(rand.NewPCG(1, 2)), 20000, 100000)
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Features) != 20000 || len(m.Constraints) != 100000 {
		t.Errorf("%d features, %d constraints", len(m.Features), len(m.Constraints))
	}
}
