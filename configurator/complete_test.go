package configurator_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/nqueens/configurator/configurator"
)

// plainSpace is a space with no facet beyond configurator.Space.
type plainSpace struct{ configurator.Space }

// unproven is an optimizer that proves nothing of its answer: a bound of
// no features (Fewest), of all of them (Most).
type unproven struct{ configurator.Space }

func (u unproven) ExtremeConfiguration(ctx context.Context, ds []configurator.Decision, most bool) ([]bool, int, error) {
	config, _, err := u.Space.(configurator.FeatureOptimizer).ExtremeConfiguration(ctx, ds, most)
	if most {
		return config, len(config), err
	}
	return config, 0, err
}

// TestFinish: on the kernel model (fewest 3: Kernel, Arch, Bare; most 5),
// the ways and their errors, and the bound the domains prove when the
// search does not (Kernel and Arch forced on: at least 2, at most all 7; Bare chosen:
// at least 3, which the configuration found reaches, so exact).
func TestFinish(t *testing.T) {
	ctx := context.Background()
	sp := featureSpace(t, modelCompilers[0], kernel)
	m := sp.FeatureModel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name      string
		sp        configurator.Space
		ds        string
		how       configurator.How
		selected  int
		exact     bool
		bound     int
		wantError error
	}{
		{"fewest", sp, "", configurator.Fewest, 3, true, 3, nil},
		{"most", sp, "", configurator.Most, 5, true, 5, nil},
		{"most under +Linux", sp, "+Linux", configurator.Most, 5, true, 5, nil},
		{"fewest unproven", unproven{sp}, "", configurator.Fewest, 3, false, 2, nil},
		{"fewest unproven, the domains prove it", unproven{sp}, "+Bare", configurator.Fewest, 3, true, 3, nil},
		{"most unproven", unproven{sp}, "", configurator.Most, 5, false, 7, nil},
		{"uniform without a sampler", sp, "", configurator.Uniform, 0, false, 0, configurator.ErrNoSampler},
		{"fewest without an optimizer", plainSpace{sp}, "", configurator.Fewest, 0, false, 0, configurator.ErrNoOptimizer},
		{"no such way", sp, "", configurator.How(7), 0, false, 0, configurator.ErrHow},
	} {
		var ds []configurator.Decision
		if tc.ds != "" {
			ds = decisions(t, m, tc.ds)
		}
		s, err := configurator.NewFeatureSession(ctx, tc.sp, ds)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Finish(ctx, tc.how, rng)
		if tc.wantError != nil {
			if !errors.Is(err, tc.wantError) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.wantError)
			}
			continue
		}
		if err != nil || !m.Valid(c.Selected) || c.Selections() != tc.selected || c.Exact != tc.exact || c.Bound != tc.bound {
			t.Errorf("%s: %+v, %v; want %d selected, exact %v, bound %d", tc.name, c, err, tc.selected, tc.exact, tc.bound)
		}
	}
	for s, want := range map[string]configurator.How{"uniform": configurator.Uniform, "fewest": configurator.Fewest, "most": configurator.Most} {
		if h, err := configurator.ParseHow(s); h != want || err != nil || h.String() != s {
			t.Errorf("ParseHow(%q) = %v, %v", s, h, err)
		}
	}
	if _, err := configurator.ParseHow("best"); !errors.Is(err, configurator.ErrHow) {
		t.Errorf("ParseHow(best): %v", err)
	}
}
