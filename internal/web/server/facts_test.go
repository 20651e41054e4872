package server

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/oracle"
)

// On the bundled examples every backend's facts are those of the
// configurations the oracle lists: core and dead features, atomic sets
// (features whose values agree in every configuration, dead ones aside,
// the core one set), false-optional features, the count and each
// feature's share where the backend counts (the BDD), null where not.
func TestModelFactsAPI(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	for _, name := range []string{"computer", "smarthome"} {
		id, m := exampleID(t, name)
		o, err := oracle.NewFeatures(len(m.Features), m.Valid)
		if err != nil {
			t.Fatal(err)
		}
		configs := o.Configurations(nil)
		ones := func(f int) int {
			k := 0
			for _, c := range configs {
				if c[f] {
					k++
				}
			}
			return k
		}
		var core, dead, falseOpt []string
		columns := map[string][]string{}
		var keys []string
		for f, ft := range m.Features {
			switch ones(f) {
			case len(configs):
				core = append(core, ft.Name)
				continue
			case 0:
				dead = append(dead, ft.Name)
				continue
			}
			var key strings.Builder
			for _, c := range configs {
				fmt.Fprint(&key, map[bool]int{false: 0, true: 1}[c[f]])
			}
			if _, ok := columns[key.String()]; !ok {
				keys = append(keys, key.String())
			}
			columns[key.String()] = append(columns[key.String()], ft.Name)
		}
		for f, ft := range m.Features {
			if ft.Parent < 0 || m.Groups[ft.Group].Kind == feature.GroupMandatory || ones(f) == 0 || ones(ft.Parent) == 0 {
				continue
			}
			if !slices.ContainsFunc(configs, func(c []bool) bool { return c[ft.Parent] && !c[f] }) {
				falseOpt = append(falseOpt, ft.Name)
			}
		}
		var sets [][]string
		if len(core) > 1 {
			sets = append(sets, core)
		}
		for _, k := range keys {
			if len(columns[k]) > 1 {
				sets = append(sets, columns[k])
			}
		}
		slices.SortFunc(sets, func(a, b []string) int {
			x, _ := m.ID(a[0])
			y, _ := m.ID(b[0])
			return x - y
		})
		for _, backend := range modelBackends(s) {
			what := name + " on " + backend
			var got factsResponse
			if !postOK(t, ts, "/api/v1/facts", fmt.Sprintf(`{"model":%q,"backend":%q}`, id, backend), &got) {
				continue
			}
			if !slices.Equal(got.Core, nonNil(core)) || !slices.Equal(got.Dead, nonNil(dead)) || !slices.Equal(got.FalseOptional, nonNil(falseOpt)) {
				t.Errorf("%s: core %v, dead %v, false-optional %v; want %v, %v, %v", what, got.Core, got.Dead, got.FalseOptional, core, dead, falseOpt)
			}
			if !slices.EqualFunc(got.AtomicSets, sets, slices.Equal) {
				t.Errorf("%s: atomic sets %v, want %v", what, got.AtomicSets, sets)
			}
			if backend != "bdd" {
				continue
			}
			if got.Configurations == nil || *got.Configurations != strconv.Itoa(len(configs)) || len(got.Commonality) != len(m.Features) {
				t.Fatalf("%s: %v configurations, %d shares; want %d, one per feature", what, got.Configurations, len(got.Commonality), len(configs))
			}
			for f, ft := range m.Features {
				if want := float64(ones(f)) / float64(len(configs)); math.Abs(got.Commonality[ft.Name]-want) > 1e-12 {
					t.Errorf("%s: %q's share %v, want %v", what, ft.Name, got.Commonality[ft.Name], want)
				}
			}
		}
	}
	// Boards: the solutions of 6×6 are four, each its own atomic set.
	var got factsResponse
	if postOK(t, ts, "/api/v1/facts", `{"model":"queens-6","backend":"sat"}`, &got) && (len(got.AtomicSets) != 4 || len(got.Dead) != 12 || got.Commonality != nil) {
		t.Errorf("queens-6 on sat: %+v", got)
	}
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"model":"000000000000000000000000"}`, 404, "no model"},
		{`{"model":"queens-4","select":["a1"]}`, 400, "Unknown field"},
		{`{}`, 400, "Say which model"},
		{`{"model":"queens-2"}`, 422, "no configuration at all"},
	} {
		if res, out := post(t, ts, "/api/v1/facts", tc.body); res.StatusCode != tc.status || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.body, res.StatusCode, out, tc.status, tc.want)
		}
	}
}
