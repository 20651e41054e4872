package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/oracle"
)

// POST /api/v1/sample on a bundled example: on every backend the pairwise
// sample's configurations keep the decisions and cover every valid pair
// of the features they leave free (the oracle's list judges both), every
// feature once in each; uniform draws on the BDD, a 422 on SAT; bad
// requests are refused with what is wrong.
func TestModelSampleAPI(t *testing.T) {
	s, ts := newTestServer(t, testConfig())
	id, m := exampleID(t, "computer")
	o, err := oracle.NewFeatures(len(m.Features), m.Valid)
	if err != nil {
		t.Fatal(err)
	}
	ds := oracleDecisions(t, m, []string{"ARM"}, []string{"HDD"})
	keep := o.Configurations(ds)
	a := o.Analyze(ds)
	for _, backend := range modelBackends(s) {
		var got sampleResponse
		if !postOK(t, ts, "/api/v1/sample", fmt.Sprintf(`{"model":%q,"select":["ARM"],"deselect":["HDD"],"backend":%q,"t":2}`, id, backend), &got) {
			continue
		}
		configs := make([][]bool, len(got.Configurations))
		for i, c := range got.Configurations {
			configs[i] = configOf(t, backend, m, c.Select, c.Deselect)
			if !o.IsConfiguration(configs[i]) || !configs[i][ds[0].Feature] || configs[i][ds[1].Feature] {
				t.Fatalf("%s: configuration %d is none of the model, or breaks the decisions", backend, i)
			}
		}
		valid := 0
		for x := range m.Features {
			for y := x + 1; y < len(m.Features); y++ {
				if !(a.On[x] && a.Off[x] && a.On[y] && a.Off[y]) || x == ds[0].Feature || y == ds[0].Feature || x == ds[1].Feature || y == ds[1].Feature {
					continue
				}
				for v := range 4 {
					va, vb := v&2 != 0, v&1 != 0
					takes := func(c []bool) bool { return c[x] == va && c[y] == vb }
					ok := false
					for _, c := range keep {
						ok = ok || takes(c)
					}
					if !ok {
						continue
					}
					valid++
					covered := false
					for _, c := range configs {
						covered = covered || takes(c)
					}
					if !covered {
						t.Errorf("%s: the valid pair %s=%v, %s=%v is not covered", backend, m.Features[x].Name, va, m.Features[y].Name, vb)
					}
				}
			}
		}
		if got.Size != len(configs) || *got.Pairs != valid || *got.Covered != valid || *got.Coverage != 1 || !*got.Complete || *got.T != 2 {
			t.Errorf("%s: size %d, pairs %d, covered %d, coverage %v, complete %v; want %d pairs, all covered", backend, got.Size, *got.Pairs, *got.Covered, *got.Coverage, *got.Complete, valid)
		}
	}
	var u sampleResponse
	if postOK(t, ts, "/api/v1/sample", fmt.Sprintf(`{"model":%q,"select":["ARM"],"uniform":7}`, id), &u) {
		for _, c := range u.Configurations {
			if config := configOf(t, "uniform", m, c.Select, c.Deselect); !o.IsConfiguration(config) || !config[ds[0].Feature] {
				t.Errorf("uniform: a draw that is no configuration keeping ARM")
			}
		}
		if u.Size != 7 || u.Pairs != nil || u.Coverage != nil {
			t.Errorf("uniform: %d configurations, pairs %v, coverage %v", u.Size, u.Pairs, u.Coverage)
		}
	}
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{fmt.Sprintf(`{"model":%q,"uniform":3,"backend":"sat"}`, id), 422, "does not draw configurations uniformly"},
		{fmt.Sprintf(`{"model":%q}`, id), 400, "Say which sample"},
		{fmt.Sprintf(`{"model":%q,"t":2,"uniform":3}`, id), 400, "Say which sample"},
		{fmt.Sprintf(`{"model":%q,"t":3}`, id), 400, "pairs only"},
		{fmt.Sprintf(`{"model":%q,"uniform":100000}`, id), 400, "from 1 to"},
		{fmt.Sprintf(`{"model":%q,"t":2,"select":["x86","ARM"]}`, id), 422, `"conflict"`},
		{`{"model":"000000000000000000000000","t":2}`, 404, "no model"},
	} {
		if res, out := post(t, ts, "/api/v1/sample", tc.body); res.StatusCode != tc.status || !strings.Contains(out, tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.body, res.StatusCode, out, tc.status, tc.want)
		}
	}
}
