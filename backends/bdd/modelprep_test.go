package bdd

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// TestPreprocess checks what preprocessing makes of small CNF files: the
// features it fixes and merges, the clauses it keeps, and a contradiction
// that only the merging finds.
func TestPreprocess(t *testing.T) {
	for _, tc := range []struct {
		name string
		cnf  string
		// lits is what each feature stands for: a literal of its
		// representative (as DIMACS, features from 1), or "T"/"F".
		lits    []string
		clauses [][]feature.Lit
		unsat   bool
	}{{
		name:    "an equivalence, a duplicate and a subsumed clause",
		cnf:     "p cnf 4 5\n-1 2 0\n-2 1 0\n1 3 0\n3 1 0\n1 3 4 0\n",
		lits:    []string{"1", "1", "3", "4"},
		clauses: [][]feature.Lit{{1, 3}},
	}, {
		name:    "a negated class",
		cnf:     "p cnf 4 3\n1 2 0\n-1 -2 0\n-3 2 4 0\n",
		lits:    []string{"1", "-1", "3", "4"},
		clauses: [][]feature.Lit{{-3, -1, 4}},
	}, {
		name: "a class made one by a unit",
		cnf:  "p cnf 4 5\n-1 2 0\n-2 3 0\n-3 1 0\n2 0\n1 -3 4 0\n",
		lits: []string{"T", "T", "T", "4"},
	}, {
		name:    "merging shortens a clause",
		cnf:     "p cnf 3 3\n-1 2 0\n-2 1 0\n-1 -2 3 0\n",
		lits:    []string{"1", "1", "3"},
		clauses: [][]feature.Lit{{-1, 3}},
	}, {
		name:  "a feature equal to its negation",
		cnf:   "p cnf 3 4\n-1 2 0\n-2 -1 0\n1 3 0\n-3 1 0\n",
		unsat: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dimacs.Parse([]byte(tc.cnf))
			if err != nil {
				t.Fatal(err)
			}
			terms, red, ok := preprocess(len(m.Features), modelTerms(m), true)
			if ok == tc.unsat {
				t.Fatalf("satisfiable %v, want %v", ok, !tc.unsat)
			}
			if !ok {
				return
			}
			var lits []string
			for f := range m.Features {
				switch l, x := red.lit(f); x {
				case 1:
					lits = append(lits, "T")
				case 0:
					lits = append(lits, "F")
				default:
					lits = append(lits, strconv.Itoa(int(l)))
				}
			}
			if !slices.Equal(lits, tc.lits[:len(m.Features)]) {
				t.Errorf("features stand for %v, want %v", lits, tc.lits)
			}
			var clauses [][]feature.Lit // over the features
			for _, tt := range terms {
				var c []feature.Lit
				for _, l := range tt.lits {
					c = append(c, feature.FeatureLit(red.vars[l.Var()-1], l > 0))
				}
				clauses = append(clauses, c)
			}
			if !slices.EqualFunc(clauses, tc.clauses, slices.Equal) {
				t.Errorf("clauses left %v, want %v", clauses, tc.clauses)
			}
		})
	}
}

// TestPreprocessedCompileKeepsTheModel compiles random models with and
// without preprocessing and checks that the two diagrams have the same
// configurations, over every feature, and that the random models do give
// preprocessing features to merge and clauses to drop (so that the
// brute-force tests of every compile exercise them).
// TestAlternativeGroupHints checks that an alternative group lends
// preprocessing its clauses: a core child's siblings are fixed off, the
// two children of a core parent are each other's negation; and that the
// hints are gone from the terms the compile builds, which keep the group
// as one term.
func TestAlternativeGroupHints(t *testing.T) {
	m, err := uvl.Parse([]byte(`features
	R
		alternative
			B
			C
		optional
			P
				alternative
					X
					Y
					Z
			Q
				alternative
					U
					V
					W
constraints
	X
`))
	if err != nil {
		t.Fatal(err)
	}
	terms, red, ok := preprocess(len(m.Features), modelTerms(m), true)
	if !ok {
		t.Fatal("unsatisfiable")
	}
	id := func(name string) int {
		f, ok := m.ID(name)
		if !ok {
			t.Fatalf("no feature %s", name)
		}
		return f
	}
	for _, name := range []string{"Y", "Z"} {
		if _, x := red.lit(id(name)); x != 0 {
			t.Errorf("%s: fixed %d, want 0 (its sibling X is core)", name, x)
		}
	}
	b, _ := red.lit(id("B"))
	if c, _ := red.lit(id("C")); c == 0 || c != -b {
		t.Errorf("C stands for %d, B for %d: want one the other's negation", c, b)
	}
	groups := 0
	for _, tm := range terms {
		if tm.hint {
			t.Errorf("a hint left for the compile: %v", tm.lits)
		}
		if tm.kind == termGroup && len(tm.vars) > 0 {
			groups++
		}
	}
	if groups != 2 {
		t.Errorf("%d group terms over variables left, want 2: B and C's, U, V and W's (X, Y and Z are fixed)", groups)
	}
}

func TestPreprocessedCompileKeepsTheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 33))
	merged, fixed := 0, 0
	for trial := range 80 {
		m := randomModel(t, rng, trial, 12)
		_, red, ok := preprocess(len(m.Features), modelTerms(m), true)
		if ok {
			for f := range m.Features {
				switch l, x := red.lit(f); {
				case x >= 0:
					fixed++
				case l.Var()-1 != f:
					merged++
				}
			}
		}
		plainCfg := defaultCompile
		plainCfg.plain = true
		plain, err := compileModelFrom(t.Context(), m, OrderForce, 0, plainCfg)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := compileModelFrom(t.Context(), m, OrderForce, 0, defaultCompile)
		if err != nil {
			t.Fatal(err)
		}
		ps, qs := spaceOf(m, plain, OrderForce), spaceOf(m, pre, OrderForce)
		if p, q := ps.Configurations(), qs.Configurations(); p.Cmp(q) != 0 || p.Int64() != int64(len(bruteForce(m))) {
			t.Fatalf("trial %d: %v configurations preprocessed, %v not, %d by brute force", trial, q, p, len(bruteForce(m)))
		}
		// Every configuration of one space is one of the other and of the
		// model: walk the assignments of up to 12 features.
		n := len(m.Features)
		ds := make([]configurator.Decision, n)
		config := make([]bool, n)
		for bits := range uint64(1) << n {
			for f := range n {
				config[f] = bits>>f&1 == 1
				ds[f] = configurator.Decision{Feature: f, Select: config[f]}
			}
			p, perr := ps.Consistent(t.Context(), ds)
			q, qerr := qs.Consistent(t.Context(), ds)
			if perr != nil || qerr != nil || p != q || p != m.Valid(config) {
				t.Fatalf("trial %d: %v: consistent %v (%v) preprocessed, %v (%v) not, valid %v", trial, config, q, qerr, p, perr, m.Valid(config))
			}
		}
	}
	if merged == 0 || fixed == 0 {
		t.Errorf("the random models gave %d features to merge and %d to fix; want some of each", merged, fixed)
	}
}
