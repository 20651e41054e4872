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
)

var (
	long  = flag.Bool("crosscheck.long", false, "also walk boards up to N=12, longer and more often")
	seed  = flag.Uint64("crosscheck.seed", 7, "seed of the random walks")
	walks = flag.Int("crosscheck.walks", 0, "walks per board size (0: the test's default)")
)

// a000170 is OEIS A000170, the number of solutions of N-Queens, N = 1..12.
var a000170 = []int64{1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// compile compiles the N-Queens model of an n×n board with every backend.
func compile(t testing.TB, n int) []crosscheck.Subject {
	t.Helper()
	m, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
	return compileModel(t, m, sat.Options{})
}

// compileModel compiles m with the bdd backend, the sat backend (with the
// given options) and the sat-plain backend (with the same count cap), named
// bdd, sat and sat-plain.
func compileModel(t testing.TB, m *configurator.Model, satOpts sat.Options) []crosscheck.Subject {
	t.Helper()
	var subjects []crosscheck.Subject
	for _, b := range []configurator.Backend{bdd.New(bdd.Options{}), sat.New(satOpts), plain.New(plain.Options{CountCap: satOpts.CountCap})} {
		sp, _, err := configurator.Compile(context.Background(), b, m)
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, crosscheck.Subject{Name: b.Name(), Space: sp})
	}
	return subjects
}

// assertAgree fails the test with the disagreements of rep, smallest first.
func assertAgree(t *testing.T, rep *crosscheck.Report) {
	t.Helper()
	if rep.Count == 0 {
		return
	}
	d, _ := rep.Smallest()
	t.Errorf("N=%d: %d disagreements; smallest: %v", rep.N, rep.Count, d)
	for _, d := range rep.Disagreements[:min(len(rep.Disagreements), 20)] {
		t.Log(d)
	}
}

// TestCountsA000170: every backend counts the solutions of the empty board
// as OEIS A000170 says, the SAT backends by blocking-clause enumeration, up
// to N=9 exactly and never above the truth.
func TestCountsA000170(t *testing.T) {
	for n := 1; n <= 9; n++ {
		var counts []string
		for _, s := range compile(t, n) {
			a, err := s.Space.Analyze(context.Background(), nil)
			if a000170[n-1] == 0 {
				// No solution: the empty placement is refused.
				if !errors.Is(err, configurator.ErrNoSolution) {
					t.Errorf("%s N=%d: %v, want ErrNoSolution", s.Name, n, err)
				}
				counts = append(counts, "0")
				continue
			}
			if err != nil {
				t.Fatalf("%s N=%d: %v", s.Name, n, err)
			}
			if a.Solutions == nil || a.AtLeast || a.Solutions.Cmp(big.NewInt(a000170[n-1])) != 0 {
				t.Errorf("%s N=%d: %v solutions (at least: %v), want %d", s.Name, n, a.Solutions, a.AtLeast, a000170[n-1])
			}
			counts = append(counts, fmt.Sprint(a.Solutions))
		}
		if counts[0] != counts[1] {
			t.Errorf("N=%d: bdd counts %s, sat %s", n, counts[0], counts[1])
		}
		if counts[0] != counts[2] {
			t.Errorf("N=%d: bdd counts %s, sat-plain %s", n, counts[0], counts[2])
		}
	}
}

// TestExhaustive checks every placement reachable by legal clicks on boards
// up to 6×6 (4×4 with -short), in depth, with every backend.
func TestExhaustive(t *testing.T) {
	// Placements: every subset of every solution, counted as sets.
	want := map[int]int{1: 2, 2: 1, 3: 1, 4: 31, 5: 286, 6: 253}
	hi := 6
	if testing.Short() {
		hi = 4
	}
	for n := 1; n <= hi; n++ {
		start := time.Now()
		rep, err := crosscheck.Exhaustive(context.Background(), compile(t, n))
		if err != nil {
			t.Fatal(err)
		}
		assertAgree(t, rep)
		if rep.Placements != want[n] {
			t.Errorf("N=%d: %d placements checked, want %d", n, rep.Placements, want[n])
		}
		t.Logf("N=%d: %d placements in %v (%s)", n, rep.Placements, time.Since(start).Round(time.Millisecond), times(rep))
	}
}

// times lists the time each subject and the oracle took.
func times(rep *crosscheck.Report) string {
	var b strings.Builder
	for i, name := range rep.Subjects {
		fmt.Fprintf(&b, "%s %v, ", name, rep.Time[i].Round(time.Millisecond))
	}
	fmt.Fprintf(&b, "oracle %v", rep.OracleTime.Round(time.Millisecond))
	return b.String()
}

// TestWalks takes seeded random walks on boards 7×7 to 10×10 (to 12×12
// with -crosscheck.long, and longer; with -short, two walks on 7×7 and
// 8×8).
//
// The SAT backends count solutions one by one (a SAT call each), which on
// sparse boards dominates the time: from N=10 on they run with a cap of
// 100, so their counts there are checked as lower bounds
// (Analysis.AtLeast), and their exact counts up to N=9.
func TestWalks(t *testing.T) {
	hi, nwalks, steps := 10, 10, 25
	switch {
	case *long:
		hi, nwalks, steps = 12, 200, 60
	case testing.Short():
		hi, nwalks = 8, 2
	}
	if *walks > 0 {
		nwalks = *walks
	}
	for n := 7; n <= hi; n++ {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			m, err := configurator.New(n, configurator.RowMajor)
			if err != nil {
				t.Fatal(err)
			}
			var satOpts sat.Options
			if n >= 10 {
				satOpts.CountCap = 100
			}
			start := time.Now()
			rep, err := crosscheck.Walk(context.Background(), compileModel(t, m, satOpts), crosscheck.WalkOptions{Walks: nwalks, Steps: steps, Seed: *seed})
			if err != nil {
				t.Fatal(err)
			}
			assertAgree(t, rep)
			if rep.Walks != nwalks || rep.Steps != nwalks*steps {
				t.Errorf("%d walks, %d steps; want %d, %d", rep.Walks, rep.Steps, nwalks, nwalks*steps)
			}
			t.Logf("%d walks of %d steps in %v (%s)", rep.Walks, steps, time.Since(start).Round(time.Millisecond), times(rep))
		})
	}
}

// faulty returns the N-Queens model of an n×n board without the
// anti-diagonal named drop: a planted bug in the shared model, which both
// backends compile faithfully and only the oracle can notice.
func faulty(t testing.TB, n int, drop string) *configurator.Model {
	t.Helper()
	full, err := configurator.New(n, configurator.RowMajor)
	if err != nil {
		t.Fatal(err)
	}
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

// TestPlantedFault: a model missing one anti-diagonal is caught, and the
// suite names the smallest placement that shows it.
func TestPlantedFault(t *testing.T) {
	if testing.Short() {
		t.Skip("two exhaustive checks of 6×6: not with -short")
	}
	tests := []struct {
		n      int
		drop   string
		check  string // of the smallest disagreement
		queens string
	}{
		// The longest anti-diagonal: queens on it no longer exclude each
		// other, so f1 is free on the empty board where no solution
		// uses it.
		{6, "anti-diagonal f1-a6", "analyze", ""},
		// A corner line of two cells: no new solution appears (the
		// counts all agree) and only the kind of an explanation shows
		// it: with a queen on b1, a2 is blocked, by the oracle's rule
		// because b1 attacks it, by the faulty model for want of a
		// completion.
		{6, "anti-diagonal b1-a2", "explain", "b1"},
	}
	for _, tt := range tests {
		subjects := compileModel(t, faulty(t, tt.n, tt.drop), sat.Options{})
		for i := range subjects {
			subjects[i].Name += " without " + tt.drop
		}
		rep, err := crosscheck.Exhaustive(context.Background(), subjects)
		if err != nil {
			t.Fatal(err)
		}
		d, ok := rep.Smallest()
		if !ok {
			t.Errorf("N=%d without %s: no disagreement found", tt.n, tt.drop)
			continue
		}
		t.Logf("N=%d without %s: %d disagreements; smallest: %v", tt.n, tt.drop, rep.Count, d)
		if got := configurator.FormatCells(d.Queens); got != tt.queens || d.Check != tt.check {
			t.Errorf("N=%d without %s: smallest disagreement %v, want %s on [%s]", tt.n, tt.drop, d, tt.check, tt.queens)
		}
		// Both backends compiled the same wrong model, so both disagree.
		for _, s := range subjects {
			if !slices.ContainsFunc(rep.Disagreements, func(d crosscheck.Disagreement) bool { return d.Subject == s.Name }) {
				t.Errorf("no disagreement reported for %s", s.Name)
			}
		}
	}
}

// TestPlantedFaultWalk: random walks catch the fault too and reduce it to
// a smallest placement.
func TestPlantedFaultWalk(t *testing.T) {
	subjects := compileModel(t, faulty(t, 8, "anti-diagonal e1-a5"), sat.Options{})[:1]
	rep, err := crosscheck.Walk(context.Background(), subjects, crosscheck.WalkOptions{Walks: 3, Steps: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := rep.Smallest()
	if !ok {
		t.Fatal("no disagreement found")
	}
	t.Logf("%d disagreements; smallest: %v", rep.Count, d)
	// The missing line lets 20 more placements count as solutions: the
	// very first analysis, of the empty board, shows it.
	if d.Check != "count" || len(d.Queens) != 0 || d.Got != "112" || d.Want != "92" || d.Walk != 0 || d.Step != 0 {
		t.Errorf("smallest disagreement %v, want the count of the empty board, 112 against 92, at walk 0 step 0", d)
	}
	if !strings.Contains(d.String(), "N=8, queens []: count: got 112, want 92") {
		t.Errorf("disagreement reads %q", d)
	}
}

func TestSubjectsMustMatch(t *testing.T) {
	a, b := compile(t, 4), compile(t, 5)
	if _, err := crosscheck.Exhaustive(context.Background(), []crosscheck.Subject{a[0], b[0]}); err == nil {
		t.Error("subjects of two board sizes accepted")
	}
	if _, err := crosscheck.Walk(context.Background(), nil, crosscheck.WalkOptions{}); err == nil {
		t.Error("no subjects accepted")
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	subjects := compile(t, 8)
	if _, err := crosscheck.Exhaustive(ctx, subjects); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled exhaustive check: %v, want context.Canceled", err)
	}
	if _, err := crosscheck.Walk(ctx, subjects, crosscheck.WalkOptions{Walks: 1000, Steps: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled walk: %v, want context.Canceled", err)
	}
}
