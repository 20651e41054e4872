package configurator_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
	"github.com/nqueens/configurator/configurator/oracle"
)

// backends are the backends the package's tests compile boards with.
var backends = []configurator.Backend{bdd.New(bdd.Options{}), sat.New(sat.Options{})}

// oracleCells converts cells to the oracle's.
func oracleCells(cs []configurator.Cell) []oracle.Cell {
	out := make([]oracle.Cell, len(cs))
	for i, c := range cs {
		out[i] = oracle.Cell(c)
	}
	return out
}

// stateOf maps a square's state on the board to its feature's state.
var stateOf = map[configurator.State]configurator.FeatureState{
	configurator.Free:    configurator.Open,
	configurator.Blocked: configurator.ForcedOff,
	configurator.Queen:   configurator.Selected,
	configurator.Forced:  configurator.ForcedOn,
}

// N-Queens is one kind of model: the board as a feature model (a feature
// per square, a constraint per line), configured through the feature
// model's path, agrees with the board's own path on every square and on
// the count, on the empty board and on random placements that some
// solution holds, for every backend of both kinds.
func TestBoardAsFeatureModel(t *testing.T) {
	ctx := context.Background()
	for n := 1; n <= 7; n++ {
		m := configuratortest.Model(t, n, configurator.RowMajor)
		fm, err := m.FeatureModel()
		if err != nil {
			t.Fatal(err)
		}
		if len(fm.Features) != n*n || fm.Features[m.Var(configurator.Cell{Row: 0, Col: n - 1})].Name != configurator.FileName(n-1)+"1" {
			t.Fatalf("N=%d: %d features, the last of rank 1 named %q", n, len(fm.Features), fm.Features[n-1].Name)
		}
		board := configuratortest.Space(t, backends[1], m)
		var spaces []configurator.Space
		for _, b := range modelCompilers {
			sp, _, err := configurator.CompileFeatureModel(ctx, b, fm)
			if err != nil {
				t.Fatal(err)
			}
			spaces = append(spaces, sp)
		}
		o := configuratortest.Board(t, n)
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		placements := [][]configurator.Cell{nil}
		for range 8 {
			if o.Count() == 0 {
				break
			}
			sol := o.Solution(rng.IntN(o.Count()))
			var queens []configurator.Cell
			for _, q := range sol {
				if rng.IntN(3) == 0 {
					queens = append(queens, configurator.Cell{Row: q.Row, Col: q.Col})
				}
			}
			placements = append(placements, queens)
		}
		for _, queens := range placements {
			a, aerr := board.Analyze(ctx, queens)
			ds := make([]configurator.Decision, len(queens))
			for i, q := range queens {
				ds[i] = configurator.Decision{Feature: m.Var(q), Select: true}
			}
			for k, sp := range spaces {
				d, derr := sp.Domains(ctx, ds)
				if (aerr == nil) != (derr == nil) {
					t.Fatalf("N=%d queens %v: the board says %v, %s's model %v", n, queens, aerr, modelCompilers[k].Name(), derr)
				}
				if aerr != nil {
					continue
				}
				want := make([]configurator.FeatureState, n*n)
				for v, st := range a.Cells {
					want[v] = stateOf[st]
				}
				if !slices.Equal(d.States, want) {
					t.Errorf("N=%d queens %v: %s's model\n%v\nthe board\n%v", n, queens, modelCompilers[k].Name(), d.States, want)
				}
				if a.Solutions != nil && d.Configurations != nil && a.Solutions.Cmp(d.Configurations) != 0 {
					t.Errorf("N=%d queens %v: %s's model counts %v, the board %v", n, queens, modelCompilers[k].Name(), d.Configurations, a.Solutions)
				}
				if d.Configurations == nil {
					t.Errorf("N=%d: %s's model does not count %d features", n, modelCompilers[k].Name(), n*n)
				}
			}
		}
		if n == 6 {
			d, _ := spaces[0].Domains(ctx, nil)
			if d.Configurations.Int64() != 4 {
				t.Errorf("6-queens as a feature model: %v configurations, want 4", d.Configurations)
			}
		}
	}
}

// A board's Why? gives the board's own proof a person can check (by
// propagation over its lines, else by cases) for every reason that is not
// an attack, on positions whose reasons need each kind.
func TestBoardFeatureExplainArgument(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		n      int
		queens []configurator.Cell
		cell   configurator.Cell
		cases  bool // the first proof goes by cases
	}{
		{8, []configurator.Cell{{Row: 0, Col: 0}, {Row: 4, Col: 2}}, configurator.Cell{Row: 2, Col: 1}, true},
		{6, []configurator.Cell{{Row: 0, Col: 1}}, configurator.Cell{Row: 1, Col: 4}, true},
		{5, []configurator.Cell{{Row: 0, Col: 0}}, configurator.Cell{Row: 1, Col: 4}, false},
	} {
		m := configuratortest.Model(t, tc.n, configurator.RowMajor)
		board := configuratortest.Space(t, backends[0], m)
		sess, err := configurator.NewFeatureSession(ctx, board, configurator.BoardDecisions(m, tc.queens))
		if err != nil {
			t.Fatal(err)
		}
		got, err := sess.Explain(ctx, m.Var(tc.cell))
		if err != nil {
			t.Fatalf("N=%d %v: Explain: %v", tc.n, tc.cell, err)
		}
		for i, r := range got.Reasons {
			if r.Attack {
				continue // an attack is one line: the model's own words say it
			}
			with := append(configurator.BoardQueens(m, r.Decisions), tc.cell)
			var lines []string
			steps := configurator.Refute(m, with, nil)
			for _, d := range steps {
				lines = append(lines, d.String())
			}
			split := configurator.RefuteByCases(m, with, nil)
			if steps == nil && split != nil {
				lines = split.Lines()
			}
			if i == 0 && (steps == nil) != tc.cases {
				t.Errorf("N=%d %v: the first proof is by cases: %v, want %v", tc.n, tc.cell, steps == nil, tc.cases)
			}
			if !slices.Equal(r.Argument, lines) || len(lines) == 0 {
				t.Errorf("N=%d %v reason %d: the session argues\n%q\nthe board's proof is\n%q", tc.n, tc.cell, i, r.Argument, lines)
			}
		}
	}
}
