package configurator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
)

// questions is a Space that counts the questions asked of it, as an
// Analyzer (analyses) or not (Solve and Satisfiable).
type questions struct {
	configurator.Space
	analyses, searches int
}

func (q *questions) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	q.analyses++
	return q.Space.Analyze(ctx, queens)
}

func (q *questions) Satisfiable(ctx context.Context, with, without []configurator.Cell) (bool, error) {
	q.searches++
	return q.Space.Satisfiable(ctx, with, without)
}

func (q *questions) Solve(ctx context.Context, queens []configurator.Cell) ([]configurator.Cell, error) {
	q.searches++
	return q.Space.Solve(ctx, queens)
}

// analyzer is questions as a configurator.Analyzer.
type analyzer struct{ *questions }

func (analyzer) AnalysisFirst() {}

// TestReasonsByAnalysis: Explain and Why give the same reasons, proofs,
// room and More whether a set of queens is asked about by an analysis (an
// Analyzer, as the BDD backend is) or by one search, on every blocked and
// forced square of seeded walks on 7×7 to 11×11; an Analyzer is asked no
// search, and no set is asked about twice in one Explain (at most 2^k sets
// of k queens). With -short, 7×7 and 8×8 only.
func TestReasonsByAnalysis(t *testing.T) {
	if _, ok := configurator.Space(&bdd.Space{}).(configurator.Analyzer); !ok {
		t.Fatal("a BDD space is no Analyzer")
	}
	ctx := context.Background()
	b := bdd.New(bdd.Options{})
	for _, tt := range []struct {
		n, queens int
	}{
		{7, 3}, {8, 4}, {9, 5}, {10, 5}, {11, 6},
	} {
		if testing.Short() && tt.n > 8 {
			break
		}
		sp := space(t, b, tt.n)
		rng := rand.New(rand.NewPCG(uint64(tt.n), 17))
		s, err := configurator.NewSession(ctx, sp, nil)
		if err != nil {
			t.Fatal(err)
		}
		for len(s.Queens()) < tt.queens {
			free := s.Analysis().In(configurator.Free)
			if len(free) == 0 {
				break
			}
			if err := s.Place(ctx, free[rng.IntN(len(free))]); err != nil {
				t.Fatal(err)
			}
		}
		byQuestion, byAnalysis := &questions{Space: sp}, &questions{Space: sp}
		qs, err := configurator.NewSession(ctx, byQuestion, s.Queens())
		if err != nil {
			t.Fatal(err)
		}
		as, err := configurator.NewSession(ctx, analyzer{byAnalysis}, s.Queens())
		if err != nil {
			t.Fatal(err)
		}
		cells := append(s.Analysis().In(configurator.Blocked), s.Analysis().In(configurator.Forced)...)
		if len(cells) == 0 {
			t.Fatalf("N=%d [%s]: nothing to explain", tt.n, configurator.FormatCells(s.Queens()))
		}
		for _, c := range cells {
			byAnalysis.analyses, byAnalysis.searches = 0, 0
			want, err := qs.Explain(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := as.Explain(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := fmt.Sprint(got.Reasons, got.Room, got.More), fmt.Sprint(want.Reasons, want.Room, want.More); g != w {
				t.Errorf("N=%d [%s] explain %v: by analysis %s, by search %s", tt.n, configurator.FormatCells(s.Queens()), c, g, w)
			}
			if byAnalysis.searches != 0 || byAnalysis.analyses > 1<<len(s.Queens()) {
				t.Errorf("N=%d explain %v: %d searches, %d analyses of %d sets", tt.n, c, byAnalysis.searches, byAnalysis.analyses, 1<<len(s.Queens()))
			}
			wantWhy, err := qs.Why(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			gotWhy, err := as.Why(ctx, c)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := fmt.Sprint(gotWhy.Reasons, gotWhy.More), fmt.Sprint(wantWhy.Reasons, wantWhy.More); g != w {
				t.Errorf("N=%d [%s] why %v: by analysis %s, by search %s", tt.n, configurator.FormatCells(s.Queens()), c, g, w)
			}
		}
		if byQuestion.searches == 0 {
			t.Errorf("N=%d: the space that is no Analyzer was asked no search", tt.n)
		}
	}
}

func TestChanged(t *testing.T) {
	const (
		o   = configurator.Open
		sel = configurator.Selected
		des = configurator.Deselected
		on  = configurator.ForcedOn
		off = configurator.ForcedOff
	)
	for _, tc := range []struct {
		name          string
		before, after []configurator.FeatureState
		want          configurator.Changes
	}{
		{"a decision forces others", []configurator.FeatureState{o, o, o, o}, []configurator.FeatureState{sel, on, off, o},
			configurator.Changes{ForcedOn: []int{1}, ForcedOff: []int{2}}},
		{"an undo frees them", []configurator.FeatureState{sel, on, off, o}, []configurator.FeatureState{o, o, o, o},
			configurator.Changes{Freed: []int{1, 2}}},
		{"forced the other way", []configurator.FeatureState{on, off}, []configurator.FeatureState{off, on},
			configurator.Changes{ForcedOn: []int{1}, ForcedOff: []int{0}}},
		{"decided features are the step", []configurator.FeatureState{on, o, des}, []configurator.FeatureState{sel, des, o},
			configurator.Changes{}},
		{"nothing changed", []configurator.FeatureState{on, o}, []configurator.FeatureState{on, o}, configurator.Changes{}},
	} {
		got := configurator.Changed(&configurator.Domains{States: tc.before}, &configurator.Domains{States: tc.after})
		if !reflect.DeepEqual(got, tc.want) || got.Empty() != tc.want.Empty() {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
