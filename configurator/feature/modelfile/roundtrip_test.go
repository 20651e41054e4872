package modelfile

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// writable are the formats Write writes.
var writable = []feature.Format{feature.UVL, feature.DIMACS, feature.FeatureIDE}

// sameConfigurations fails t unless back, read from what Write made of m,
// has every feature of m and, on every assignment of m's features, a
// configuration exactly when m has one. Its other features may only be the
// root a model without a tree is given and, from DIMACS, the CNF's
// auxiliary variables (marked generated); on them the check asks whether
// some values extend the assignment, by a search on back's CNF, so that it
// holds whatever encoding the writer chose. m has at most 12 features.
func sameConfigurations(t *testing.T, m, back *feature.Model, what string) {
	t.Helper()
	n := len(m.Features)
	at := make([]int, n) // back's number of each feature of m
	for i, f := range m.Features {
		j, ok := back.ID(f.Name)
		if !ok {
			t.Fatalf("%s: %q is missing", what, f.Name)
		}
		at[i] = j
	}
	extra := 0
	for _, f := range back.Features {
		if _, ok := m.ID(f.Name); !ok {
			extra++
			if !f.Generated && (m.Root >= 0 || back.Root < 0 || f.Name != back.Features[back.Root].Name) {
				t.Fatalf("%s: a feature %q that is neither generated nor a root given to a model without a tree", what, f.Name)
			}
		}
	}
	// back's CNF with m's features first, in m's order, for Extensions.
	c := back.CNF()
	order := make([]int, c.Vars+1) // back's variable -> the search's
	next := n + 1
	for v := 1; v <= c.Vars; v++ {
		order[v] = -1
	}
	for i, j := range at {
		order[j+1] = i + 1
	}
	for v := 1; v <= c.Vars; v++ {
		if order[v] < 0 {
			order[v], next = next, next+1
		}
	}
	cls := make([][]int, c.Len())
	for i := range cls {
		for _, l := range c.Clause(i) {
			v := order[l.Var()]
			if l < 0 {
				v = -v
			}
			cls[i] = append(cls[i], v)
		}
	}
	config, backConfig := make([]bool, n), make([]bool, len(back.Features))
	count := 0
	for bits := range 1 << n {
		for i := range n {
			config[i] = bits>>i&1 == 1
			backConfig[at[i]] = config[i]
		}
		want := m.Valid(config)
		if want {
			count++
		}
		if extra == 0 {
			if got := back.Valid(backConfig); got != want {
				t.Fatalf("%s: configuration %b: valid %v read back, %v before", what, bits, got, want)
			}
		}
		if got := featuretest.Extensions(cls, c.Vars, config, 1) == 1; got != want {
			t.Fatalf("%s: configuration %b: extended %v in the CNF read back, valid %v before", what, bits, got, want)
		}
	}
	t.Logf("%s: %d features (%d more read back), %d configurations", what, n, extra, count)
}

// Random feature models and random CNF files, written in each format and
// read back, keep their features and their configurations.
func TestWriteReadRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	rounds := 150
	if testing.Short() {
		rounds = 30
	}
	for round := range rounds {
		var m *feature.Model
		var src string
		var err error
		if round%3 == 2 {
			src, _ = featuretest.RandomCNF(rng, rng.IntN(9), rng.IntN(12))
			m, err = dimacs.Parse([]byte(src))
		} else {
			src = featuretest.RandomModel(rng, 1+rng.IntN(10)).UVL(rng)
			m, err = uvl.Parse([]byte(src))
		}
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, src)
		}
		for _, f := range writable {
			var out bytes.Buffer
			if err := Write(&out, m, f); err != nil {
				t.Fatalf("round %d: write %s: %v\n%s", round, f, err, src)
			}
			back, err := Parse("", out.Bytes(), "")
			if err != nil {
				t.Fatalf("round %d: read back %s: %v\n%s\nwritten:\n%s", round, f, err, src, out.String())
			}
			if back.Format != f {
				t.Fatalf("round %d: %s read back as %s", round, f, back.Format)
			}
			sameConfigurations(t, m, back, string(f))
			if t.Failed() {
				t.Logf("round %d\n%s\nwritten:\n%s", round, src, out.String())
				return
			}
		}
	}
}
