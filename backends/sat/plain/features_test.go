package plain

import (
	"context"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// The baseline decides every feature by the solver: two calls per feature
// not decided, and one for the decisions, and none of its features by
// propagation or witness.
func TestModelBaselineWork(t *testing.T) {
	m, err := uvl.Parse([]byte("features\n\tR\n\t\tmandatory\n\t\t\tA\n\t\toptional\n\t\t\tB\n\t\t\tC\nconstraints\n\tB => !C\n"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := New(Options{}).CompileModel(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m.ID("C")
	d, err := sp.Domains(context.Background(), []configurator.Decision{{Feature: c, Select: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []configurator.FeatureState{configurator.ForcedOn, configurator.ForcedOn, configurator.ForcedOff, configurator.Selected}
	for f, st := range d.States {
		if st != want[f] {
			t.Errorf("%s: %v, want %v", m.Features[f].Name, st, want[f])
		}
	}
	// 1 + 2·3 calls decide; the count finds the one configuration, with
	// no feature open to look for another by.
	if d.Work.SolverCalls != 7+1 || d.Work.BySolver != 3 || d.Work.ByPropagation+d.Work.ByWitness != 0 {
		t.Errorf("work %+v, want 8 solver calls deciding 3 features", d.Work)
	}
	if d.Configurations == nil || d.Configurations.Int64() != 1 || d.AtLeast {
		t.Errorf("count %v, want 1", d.Configurations)
	}
}
