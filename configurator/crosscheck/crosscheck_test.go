package crosscheck_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/crosscheck"
	"github.com/nqueens/configurator/configurator/feature"
)

var (
	long  = flag.Bool("crosscheck.long", false, "walk longer and more often")
	seed  = flag.Uint64("crosscheck.seed", 7, "seed of the random walks")
	walks = flag.Int("crosscheck.walks", 0, "walks per board size (0: the test's default)")
)

// a000170 is OEIS A000170, the number of solutions of N-Queens, N = 1..12.
var a000170 = []int64{1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// backends are the backends every board is checked with: bdd, sat (with
// the given options) and sat-plain (with the same count cap).
func backends(satOpts sat.Options) []configurator.Backend {
	return []configurator.Backend{bdd.New(bdd.Options{}), sat.New(satOpts), plain.New(plain.Options{CountCap: satOpts.CountCap})}
}

// board returns the n×n board and its feature model.
func board(t testing.TB, n int) (*configurator.Model, *feature.Model) {
	t.Helper()
	b, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	m, err := b.FeatureModel()
	if err != nil {
		t.Fatal(err)
	}
	return b, m
}

// compileBoard compiles the board b with every backend of bs, each space
// answering the board's feature model, named by its backend.
func compileBoard(t testing.TB, b *configurator.Model, bs []configurator.Backend) []crosscheck.FeatureSubject {
	t.Helper()
	var subjects []crosscheck.FeatureSubject
	for _, be := range bs {
		sp, _, err := configurator.Compile(context.Background(), be, b)
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, crosscheck.FeatureSubject{Name: be.Name(), Space: sp})
	}
	return subjects
}

// TestCountsA000170: every backend counts the solutions of the empty board
// as OEIS A000170 says, the SAT backends by blocking-clause enumeration, up
// to N=9 exactly and never above the truth.
func TestCountsA000170(t *testing.T) {
	for n := 1; n <= 9; n++ {
		b, _ := board(t, n)
		var counts []string
		for _, s := range compileBoard(t, b, backends(sat.Options{})) {
			d, err := s.Space.Domains(context.Background(), nil)
			if a000170[n-1] == 0 {
				// No solution: the empty board is refused.
				if !errors.Is(err, configurator.ErrNoSolution) {
					t.Errorf("%s N=%d: %v, want ErrNoSolution", s.Name, n, err)
				}
				counts = append(counts, "0")
				continue
			}
			if err != nil {
				t.Fatalf("%s N=%d: %v", s.Name, n, err)
			}
			if d.Configurations == nil || d.AtLeast || d.Configurations.Cmp(big.NewInt(a000170[n-1])) != 0 {
				t.Errorf("%s N=%d: %v solutions (at least: %v), want %d", s.Name, n, d.Configurations, d.AtLeast, a000170[n-1])
			}
			counts = append(counts, fmt.Sprint(d.Configurations))
		}
		if counts[0] != counts[1] || counts[0] != counts[2] {
			t.Errorf("N=%d: bdd, sat and sat-plain count %v", n, counts)
		}
	}
}

// TestExhaustive checks every placement reachable by legal clicks on boards
// up to 6×6 (4×4 with -short), in depth, with every backend, as the
// boards' feature models.
func TestExhaustive(t *testing.T) {
	// Placements: every subset of every solution, counted as sets.
	want := map[int]int{1: 2, 2: 1, 3: 1, 4: 31, 5: 286, 6: 253}
	hi := 6
	if testing.Short() {
		hi = 4
	}
	for n := 1; n <= hi; n++ {
		start := time.Now()
		b, m := board(t, n)
		rep, err := crosscheck.ExhaustiveModel(context.Background(), m, compileBoard(t, b, backends(sat.Options{})))
		if err != nil {
			t.Fatal(err)
		}
		assertModelAgree(t, rep)
		if rep.Visited != want[n] {
			t.Errorf("N=%d: %d placements checked, want %d", n, rep.Visited, want[n])
		}
		t.Logf("N=%d: %d placements in %v (%s)", n, rep.Visited, time.Since(start).Round(time.Millisecond), times(rep))
	}
}

// times lists the time each subject and the oracle took.
func times(rep *crosscheck.ModelReport) string {
	var b strings.Builder
	for i, name := range rep.Subjects {
		fmt.Fprintf(&b, "%s %v, ", name, rep.Time[i].Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "oracle %v", rep.OracleTime.Round(time.Millisecond))
	return b.String()
}

// TestWalks takes seeded random walks on the boards 7×7 and 8×8, the
// largest whose solutions the feature oracle holds (with -short, two
// walks; with -crosscheck.long, many more and longer).
func TestWalks(t *testing.T) {
	nwalks, steps := 10, 25
	switch {
	case *long:
		nwalks, steps = 200, 60
	case testing.Short():
		nwalks = 2
	}
	if *walks > 0 {
		nwalks = *walks
	}
	for n := 7; n <= 8; n++ {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			b, m := board(t, n)
			start := time.Now()
			rep, err := crosscheck.WalkModel(context.Background(), m, compileBoard(t, b, backends(sat.Options{})), crosscheck.WalkOptions{Walks: nwalks, Steps: steps, Seed: *seed})
			if err != nil {
				t.Fatal(err)
			}
			assertModelAgree(t, rep)
			if rep.Walks != nwalks || rep.Steps != nwalks*steps {
				t.Errorf("%d walks, %d steps; want %d, %d", rep.Walks, rep.Steps, nwalks, nwalks*steps)
			}
			t.Logf("%d walks of %d steps in %v (%s)", rep.Walks, steps, time.Since(start).Round(time.Millisecond), times(rep))
		})
	}
}

// faulty returns the N-Queens model of an n×n board without the line
// named drop: a planted bug in the shared model, which every backend
// compiles faithfully and only the oracle can notice.
func faulty(t testing.TB, n int, drop string) *configurator.Model {
	t.Helper()
	full, _ := board(t, n)
	var cs []configurator.Constraint
	for _, c := range full.Constraints() {
		if c.Name != drop {
			cs = append(cs, c)
		}
	}
	if len(cs) != len(full.Constraints())-1 {
		t.Fatalf("N=%d: no constraint %q", n, drop)
	}
	m, err := configurator.Custom(n, configurator.RowMajor, cs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPlantedFault: a board missing one anti-diagonal, checked as the
// board's feature model, is caught, and the suite names the smallest
// placement that shows it.
func TestPlantedFault(t *testing.T) {
	if testing.Short() {
		t.Skip("two exhaustive checks of 6×6: not with -short")
	}
	tests := []struct {
		n         int
		drop      string
		check     string // of the smallest disagreement
		decisions string
		got, want string
	}{
		// The longest anti-diagonal: queens on it no longer exclude each
		// other, so f1 is free on the empty board where no solution
		// uses it.
		{6, "anti-diagonal f1-a6", "domains", "", "free", "forced_off"},
		// A corner line of two squares: no new solution appears (the
		// domains and counts all agree) and only the kind of a reason
		// shows it: with a queen on b1, a2 is blocked, by the oracle's
		// rule because b1 attacks it, by the faulty model for want of a
		// solution.
		{6, "anti-diagonal b1-a2", "explain", "+b1", "no attack [+b1]", "attack"},
	}
	for _, tt := range tests {
		_, m := board(t, tt.n)
		subjects := compileBoard(t, faulty(t, tt.n, tt.drop), backends(sat.Options{})[:2])
		for i := range subjects {
			subjects[i].Name += " without " + tt.drop
		}
		rep, err := crosscheck.ExhaustiveModel(context.Background(), m, subjects)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := rep.Smallest()
		if !ok {
			t.Errorf("N=%d without %s: no disagreement found", tt.n, tt.drop)
			continue
		}
		t.Logf("N=%d without %s: %d disagreements; smallest: %v", tt.n, tt.drop, rep.Count, d)
		if got := configurator.FormatDecisions(m, d.Decisions); got != tt.decisions || d.Check != tt.check || d.Got != tt.got || d.Want != tt.want {
			t.Errorf("N=%d without %s: smallest disagreement %v, want %s on [%s]: got %s, want %s", tt.n, tt.drop, d, tt.check, tt.decisions, tt.got, tt.want)
		}
		// Both backends compiled the same wrong model, so both disagree.
		for _, s := range subjects {
			if !slices.ContainsFunc(rep.Disagreements, func(d crosscheck.ModelDisagreement) bool { return d.Subject == s.Name }) {
				t.Errorf("no disagreement reported for %s", s.Name)
			}
		}
	}
}

// TestPlantedFaultWalk: random walks catch a planted fault too: the very
// first count, of the empty 8×8 board, counts the placements the missing
// line lets through.
func TestPlantedFaultWalk(t *testing.T) {
	_, m := board(t, 8)
	subjects := compileBoard(t, faulty(t, 8, "anti-diagonal e1-a5"), backends(sat.Options{})[:1])
	rep, err := crosscheck.WalkModel(context.Background(), m, subjects, crosscheck.WalkOptions{Walks: 3, Steps: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d disagreements", rep.Count)
	i := slices.IndexFunc(rep.Disagreements, func(d crosscheck.ModelDisagreement) bool { return d.Check == "count" })
	if i < 0 {
		t.Fatalf("no count disagreement among %d: %v", rep.Count, rep.Disagreements)
	}
	d := rep.Disagreements[i]
	if len(d.Decisions) != 0 || d.Got != "112" || d.Want != "92" || d.Walk != 0 || d.Step != 0 {
		t.Errorf("first count disagreement %v, want the count of the empty board, 112 against 92, at walk 0 step 0", d)
	}
	if !strings.Contains(d.String(), "8-queens, decisions []: count: got 112, want 92") {
		t.Errorf("disagreement reads %q", d)
	}
}

func TestSubjectsMustMatch(t *testing.T) {
	b, _ := board(t, 5)
	_, m := board(t, 4)
	if _, err := crosscheck.ExhaustiveModel(context.Background(), m, compileBoard(t, b, backends(sat.Options{})[:1])); !errors.Is(err, crosscheck.ErrSubjects) {
		t.Errorf("a subject of another board: %v, want ErrSubjects", err)
	}
	if _, err := crosscheck.WalkModel(context.Background(), m, nil, crosscheck.WalkOptions{}); !errors.Is(err, crosscheck.ErrSubjects) {
		t.Errorf("no subjects: %v, want ErrSubjects", err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, m := board(t, 6)
	subjects := compileBoard(t, b, backends(sat.Options{}))
	if _, err := crosscheck.ExhaustiveModel(ctx, m, subjects); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled exhaustive check: %v, want context.Canceled", err)
	}
	if _, err := crosscheck.WalkModel(ctx, m, subjects, crosscheck.WalkOptions{Walks: 1000, Steps: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled walk: %v, want context.Canceled", err)
	}
}
