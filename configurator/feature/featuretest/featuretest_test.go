package featuretest

import (
	"math/rand/v2"
	"testing"
)

func TestExtensions(t *testing.T) {
	// Features 1, 2; auxiliary 3 defined as 1 ∧ 2, auxiliary 4 free unless
	// 1 is selected, when it must be true.
	cnf := [][]int{{-3, 1}, {-3, 2}, {3, -1, -2}, {-1, 4}}
	for _, tc := range []struct {
		fixed []bool
		limit int
		want  int
	}{
		{[]bool{false, false}, 5, 2}, // 3 false, 4 either
		{[]bool{true, false}, 5, 1},  // 3 false, 4 true
		{[]bool{true, true}, 5, 1},   // 3 true, 4 true
		{[]bool{false, true}, 1, 1},  // capped at the limit
	} {
		if got := Extensions(cnf, 4, tc.fixed, tc.limit); got != tc.want {
			t.Errorf("Extensions(%v, limit %d) = %d, want %d", tc.fixed, tc.limit, got, tc.want)
		}
	}
	if got := Extensions([][]int{{1}, {-1}}, 1, nil, 5); got != 0 {
		t.Errorf("a contradiction has %d models", got)
	}
}

// A seed draws the same model, and the model is what its evaluator says:
// the root alone is a configuration exactly when no group of the root
// needs a child and no constraint is violated by it.
func TestRandomModel(t *testing.T) {
	a := RandomModel(rand.New(rand.NewPCG(1, 1)), 9).UVL(rand.New(rand.NewPCG(2, 2)))
	b := RandomModel(rand.New(rand.NewPCG(1, 1)), 9).UVL(rand.New(rand.NewPCG(2, 2)))
	if a != b {
		t.Fatalf("one seed, two models:\n%s\n%s", a, b)
	}
	m := &Model{Names: []string{"r", "a", "b"}, parent: []int{-1, 0, 0},
		groups: []group{{kind: "card", lo: 1, hi: 1, parent: 0, children: []int{1, 2}}}, heads: [][]int{{0}, nil, nil}}
	for config, want := range map[[3]bool]bool{
		{true, false, false}: false, {true, true, false}: true, {true, true, true}: false, {false, true, false}: false,
	} {
		if got := m.Valid(config[:]); got != want {
			t.Errorf("Valid(%v) = %v, want %v", config, got, want)
		}
	}
}

func TestSatisfies(t *testing.T) {
	cnf := [][]int{{1, -2}, {2}}
	if !Satisfies(cnf, []bool{true, true}) || Satisfies(cnf, []bool{false, true}) || Satisfies([][]int{{}}, nil) {
		t.Error("Satisfies disagrees with the clauses")
	}
}
