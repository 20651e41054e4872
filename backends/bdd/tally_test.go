package bdd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestKeptAnswersFromTheTally checks that the answers a large diagram's
// memo keeps, which precompute adds up over the solutions in one search
// (keepAll), are those the diagram's own sweeps give, every one of them:
// the analyses of the empty board, of each board of one queen and of each
// board of two queens the memo keys by, and the heat maps of the empty
// board and of the boards of one queen, in every variable order. The
// boards of 1×1 to 4×4 have few or no solutions, and the boards of one
// queen without a solution must be kept as such. The tally is checked
// against the count of a space's file when it has one, else against a
// sweep of the empty board: both ways are taken.
func TestKeptAnswersFromTheTally(t *testing.T) {
	ctx := context.Background()
	sizes := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if testing.Short() {
		sizes = []int{1, 4, 5, 6, 8}
	}
	for _, n := range sizes {
		for _, order := range configurator.Orders() {
			t.Run(fmt.Sprintf("%d×%d/%v", n, n, order), func(t *testing.T) {
				sp := compileSpace(t, n, order, Direct)
				sp.memo.eager = false
				if n%2 == 0 {
					sp.memo.solutions = sp.m.SatCount(sp.root) // as a file gives it
				}
				done, err := sp.memo.keepAll(ctx, 2)
				if n == 2 || n == 3 {
					if done || err != nil {
						t.Errorf("a board without solutions: keepAll %v, %v; want nothing kept and no error", done, err)
					}
					return
				}
				if !done || err != nil {
					t.Fatalf("keepAll: %v, %v", done, err)
				}
				checkKept(t, sp)
			})
		}
	}
}

// checkKept compares every answer sp's memo keeps with the sweep's own,
// and checks that the memo keeps every board it keys by.
func checkKept(t *testing.T, sp *Space) {
	t.Helper()
	ctx := context.Background()
	model, V := sp.model, sp.model.Vars()
	same := func(what string, e any, want *configurator.Analysis, werr error) {
		t.Helper()
		got, ok := e.(*configurator.Analysis)
		switch {
		case werr != nil:
			if err, isErr := e.(error); !isErr || !errors.Is(err, configurator.ErrNoSolution) || !errors.Is(werr, configurator.ErrNoSolution) {
				t.Errorf("%s: kept %v, the sweep says %v", what, e, werr)
			}
		case !ok:
			t.Errorf("%s: kept %v, the sweep counts %v", what, e, want.Solutions)
		case got.Solutions.Cmp(want.Solutions) != 0 || !slices.Equal(got.Cells, want.Cells):
			t.Errorf("%s: kept %v solutions %v, the sweep %v %v", what, got.Solutions, got.Cells, want.Solutions, want.Cells)
		case got.Work.Nodes != int64(sp.nodes):
			t.Errorf("%s: kept with %d nodes, the diagram has %d", what, got.Work.Nodes, sp.nodes)
		}
	}
	sameHeat := func(what string, e any, want []*big.Int, werr error) {
		t.Helper()
		got, ok := e.([]*big.Int)
		switch {
		case werr != nil:
			if err, isErr := e.(error); !isErr || !errors.Is(err, configurator.ErrNoSolution) || !errors.Is(werr, configurator.ErrNoSolution) {
				t.Errorf("%s heat map: kept %v, the sweep says %v", what, e, werr)
			}
		case !ok || !slices.EqualFunc(got, want, func(x, y *big.Int) bool { return x.Cmp(y) == 0 }):
			t.Errorf("%s heat map: kept %v, the sweep %v", what, e, want)
		}
	}
	e, _ := sp.memo.ones.Load(0)
	whole, werr := sp.analyze(ctx, nil)
	same("the empty board", e, whole, werr)
	heat, _ := sp.memo.heat.Load(0)
	want, werr := sp.marginals(ctx, nil)
	sameHeat("the empty board", heat, want, werr)
	ones := sp.memo.firstImages()
	for _, c := range ones {
		q := []configurator.Cell{c}
		e, _ := sp.memo.ones.Load(1 + model.Var(c))
		want, werr := sp.analyze(ctx, q)
		same(c.String(), e, want, werr)
		heat, _ := sp.memo.heat.Load(1 + model.Var(c))
		wantHeat, werr := sp.marginals(ctx, q)
		sameHeat(c.String(), heat, wantHeat, werr)
	}
	pairs := 0
	for a := range V {
		for b := a + 1; b < V; b++ {
			q := []configurator.Cell{model.Cell(a), model.Cell(b)}
			_, key := pairKey(model, q)
			if key != a*V+b || model.Attacks(q[0], q[1]) {
				continue
			}
			pairs++
			e, ok := sp.memo.pairs.Load(key)
			if !ok {
				t.Errorf("%v: not kept", q)
				continue
			}
			want, werr := sp.analyze(ctx, q)
			same(configurator.FormatCells(q), e, want, werr)
		}
	}
	var kept [3]int
	for k, m := range sp.memo.byKind() {
		m.Range(func(any, any) bool { kept[k]++; return true })
	}
	if want := [3]int{kindOne: 1 + len(ones), kindPair: pairs, kindHeat: 1 + len(ones)}; kept != want || sp.memo.pairCount.Load() != int64(pairs) {
		t.Errorf("kept %v analyses of none or one queen, of two and heat maps (%d pairs counted); want %v", kept, sp.memo.pairCount.Load(), want)
	}
}

// TestKeptAnswersAtLargeSize checks the tally's answers on a board whose
// solutions the search enumerates in branches of their own (10×10), as
// TestKeptAnswersFromTheTally does on smaller ones, and that precompute
// takes that way on a large diagram: its answers come with no sweep of a
// board of one or two queens.
func TestKeptAnswersAtLargeSize(t *testing.T) {
	if testing.Short() {
		t.Skip("10×10: every kept board against its sweep; the smaller boards run with -short")
	}
	sp := compileSpace(t, 10, configurator.RowMajor, Direct)
	sp.memo.eager = false
	sp.Close()
	if err := sp.memo.precompute(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	checkKept(t, sp)
	// 10×10 has 724 solutions (OEIS A000170).
	if an, err := sp.Analyze(context.Background(), nil); err != nil || an.Solutions.Int64() != 724 {
		t.Fatalf("the empty board: %v, %v; want 724 solutions", an, err)
	}
}

// TestTallyCountsTheSolutions checks the search itself against known
// counts (OEIS A000170) and against what any tally must hold: each
// solution has n queens, so the marginals add up to n times the count,
// and the count of each board of one queen is its marginal.
func TestTallyCountsTheSolutions(t *testing.T) {
	for _, tc := range []struct {
		n         int
		solutions uint64
	}{{1, 1}, {2, 0}, {3, 0}, {4, 2}, {5, 10}, {6, 4}, {7, 40}, {8, 92}, {11, 2680}, {12, 14200}} {
		V := tc.n * tc.n
		all := make([]int, V)
		for v := range all {
			all[v] = v
		}
		tl := newTally(V, (V+63)/64, all, nil)
		if err := newTallyRun(tc.n, tl).work(context.Background(), 3, func(_ int, f func()) { f() }); err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for v, m := range tl.marginals {
			sum += m
			if tl.ones.count[v] != m {
				t.Errorf("%d×%d: %d solutions hold variable %d, its marginal is %d", tc.n, tc.n, tl.ones.count[v], v, m)
			}
		}
		if got := tl.all.count[0]; got != tc.solutions || sum != uint64(tc.n)*got {
			t.Errorf("%d×%d: %d solutions, marginals adding up to %d; want %d and %d", tc.n, tc.n, got, sum, tc.solutions, uint64(tc.n)*tc.solutions)
		}
	}
}

// TestKeepAllChecksTheDiagram plants a fault: a diagram of a model missing
// the long anti-diagonal, whose memo takes it for the N-Queens board's. The
// search over the rules finds fewer solutions than that diagram counts,
// and keepAll must refuse to keep any of its answers. A custom model's
// memo is not tallied at all.
func TestKeepAllChecksTheDiagram(t *testing.T) {
	ctx := context.Background()
	n := 6
	full := configuratortest.Model(t, n, configurator.RowMajor)
	var cs []configurator.Constraint
	for _, c := range full.Constraints() {
		if c.Name != "anti-diagonal f1-a6" {
			cs = append(cs, c)
		}
	}
	faulty, err := configurator.Custom(n, configurator.RowMajor, cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != len(full.Constraints())-1 {
		t.Fatalf("the anti-diagonal to remove is not among the model's lines")
	}
	sp := configuratortest.Space(t, New(Options{Method: Direct}), faulty).(*Space)
	sp.memo.eager = false
	sp.Close()
	if done, err := sp.memo.keepAll(ctx, 2); done || err != nil {
		t.Errorf("a custom model: keepAll %v, %v; want it left to the sweeps", done, err)
	}
	sp.memo.model = full // the planted fault
	done, err := sp.memo.keepAll(ctx, 2)
	if done || err == nil || !strings.Contains(err.Error(), "finds 4 solutions where the diagram counts") {
		t.Errorf("a diagram that is not the board's: keepAll %v, %v; want the counts' disagreement", done, err)
	}
	if n := sp.memo.pairCount.Load(); n != 0 {
		t.Errorf("%d boards of two queens kept from a tally the diagram disputes", n)
	}
}

// TestOneTallyAtATime: the background's precompute and Precompute's,
// started together, search the solutions once between them (working on
// one tally), find every answer kept, and write the file of kept answers
// once, leaving no temporary file behind.
func TestOneTallyAtATime(t *testing.T) {
	var log bytes.Buffer
	dir := t.TempDir()
	b := New(Options{Method: Direct, Dir: dir, Log: slog.New(slog.NewTextHandler(&log, nil))})
	sp := configuratortest.Space(t, b, configuratortest.Model(t, 9, configurator.RowMajor)).(*Space)
	sp.memo.eager = false
	var wg sync.WaitGroup
	for _, workers := range []int{1, 2, 1, 2} {
		wg.Go(func() {
			if err := sp.memo.precompute(context.Background(), workers); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := strings.Count(log.String(), "kept answers tallied"); n != 1 {
		t.Errorf("four precomputes at once tallied the solutions %d times, want once:\n%s", n, log.String())
	}
	if n := strings.Count(log.String(), "kept answers saved to disk"); n != 1 {
		t.Errorf("four precomputes at once saved the kept answers %d times, want once:\n%s", n, log.String())
	}
	files, err := os.ReadDir(dir)
	if err != nil || len(files) != 2 {
		t.Errorf("the cache directory holds %v (%v), want the space's file and its answers", files, err)
	}
	checkKept(t, sp)
}

// TestNoTallyForKeptAnswers: a space loaded from its file with every
// kept answer read back does not search the solutions again.
func TestNoTallyForKeptAnswers(t *testing.T) {
	dir := t.TempDir()
	model := configuratortest.Model(t, 9, configurator.RowMajor)
	precomputedIn(t, dir, model)
	var log bytes.Buffer
	sp := configuratortest.Space(t, New(Options{Method: Direct, Dir: dir, Log: slog.New(slog.NewTextHandler(&log, nil))}), model).(*Space)
	sp.memo.eager = false
	if sp.Source() == "" || sp.memo.solutions == nil {
		t.Fatalf("the space was not loaded from its file with its count (source %q, count %v)", sp.Source(), sp.memo.solutions)
	}
	if err := sp.Precompute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "kept answers tallied") || strings.Contains(log.String(), "kept answers saved") {
		t.Errorf("a space whose kept answers were read back whole searched or saved them again:\n%s", log.String())
	}
	checkKept(t, sp)
}

// TestTallyGoesOnAfterACancel: a tally whose caller's context ends keeps
// what it added up, and the next caller takes the branches left, each
// once: the answers it keeps are every sweep's.
func TestTallyGoesOnAfterACancel(t *testing.T) {
	sp := compileSpace(t, 10, configurator.RowMajor, Direct)
	sp.memo.eager = false
	sp.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k, err := sp.memo.joinTally(ctx)
	if k == nil || err != nil {
		t.Fatalf("joinTally: %v, %v", k, err)
	}
	branches := 0
	err = k.run.work(ctx, 1, func(_ int, f func()) {
		f()
		if branches++; branches == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || branches != 3 || sp.memo.tallied.Load() {
		t.Fatalf("cancelled after 3 branches: %v after %d, tallied %v", err, branches, sp.memo.tallied.Load())
	}
	if done, err := sp.memo.keepAll(context.Background(), 2); !done || err != nil {
		t.Fatalf("the next keepAll: %v, %v", done, err)
	}
	checkKept(t, sp)
}
