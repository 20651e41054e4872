package oracle

import (
	"slices"
	"testing"
)

// A small model in the oracle's own terms: features r (root), a, b, c; r
// is selected, a and b are an alternative under r, c needs a. Its
// configurations: {r,a}, {r,b}, {r,a,c}.
func smallModel(config []bool) bool {
	r, a, b, c := config[0], config[1], config[2], config[3]
	return r && (a != b) && (!c || a)
}

func TestFeatures(t *testing.T) {
	o, err := NewFeatures(4, smallModel)
	if err != nil {
		t.Fatal(err)
	}
	if o.Count() != 3 {
		t.Fatalf("%d configurations, want 3", o.Count())
	}
	if !o.IsConfiguration([]bool{true, true, false, true}) || o.IsConfiguration([]bool{true, false, true, true}) {
		t.Error("IsConfiguration disagrees with the model")
	}
	a := o.Analyze([]Decision{{3, true}}) // c selected: a forced on, b forced off
	if a.Configurations != 1 || !a.On[1] || a.Off[1] || a.On[2] || !a.Off[2] {
		t.Errorf("under +c: %+v, want one configuration, a on, b off", a)
	}
	a = o.Analyze([]Decision{{1, false}, {3, true}})
	if a.Configurations != 0 || slices.Contains(a.On, true) || slices.Contains(a.Off, true) {
		t.Errorf("under -a +c: %+v, want nothing", a)
	}
	// {r,a}, {r,b}: two selected; {r,a,c}: three; under -c only two.
	for _, tt := range []struct {
		ds           []Decision
		fewest, most int
		ok           bool
	}{{nil, 2, 3, true}, {[]Decision{{3, false}}, 2, 2, true}, {[]Decision{{1, false}, {3, true}}, 0, 0, false}} {
		if fewest, most, ok := o.Selections(tt.ds); fewest != tt.fewest || most != tt.most || ok != tt.ok {
			t.Errorf("Selections(%v) = %d, %d, %v; want %d, %d, %v", tt.ds, fewest, most, ok, tt.fewest, tt.most, tt.ok)
		}
	}
	// Under +c and -b: a is forced on by each alone, so two reasons.
	ds := []Decision{{3, true}, {2, false}}
	got, err := o.MinimalReasons(ds, 1, false)
	if err != nil || !slices.EqualFunc(got, [][]int{{0}, {1}}, slices.Equal) {
		t.Errorf("reasons a is forced on: %v, %v; want [0] and [1]", got, err)
	}
	// r is forced by the model alone: the empty set.
	if got, _ := o.MinimalReasons(ds, 0, false); !slices.EqualFunc(got, [][]int{{}}, slices.Equal) {
		t.Errorf("reasons r is forced on: %v, want the empty set", got)
	}
	if k, ok := o.MinUndo(ds, 1, false); !ok || k != 2 {
		t.Errorf("undoings to deselect a: %d, %v; want 2", k, ok)
	}
	if _, ok := o.MinUndo(ds, 0, false); ok {
		t.Error("an undoing deselects the root")
	}
	if _, err := NewFeatures(MaxFeatures+1, smallModel); err == nil {
		t.Error("a model beyond MaxFeatures is enumerated")
	}
}
