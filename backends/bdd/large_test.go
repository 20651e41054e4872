package bdd

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// TestCompileMaxN checks that a backend that compiles boards up to
// CompileMaxN serves a larger one from a file of it and refuses it, saying
// how to make one, when there is none.
func TestCompileMaxN(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	tests := []struct {
		name    string
		opts    Options
		loaded  bool
		refused string // in the error; "" compiles or loads
	}{
		{"no file, no directory", Options{CompileMaxN: 7}, false, "no directory of compiled spaces is set"},
		{"no file in the directory", Options{CompileMaxN: 7, Dir: dir}, false, "nqueens count -n 8 -budget 12G -cache-dir "},
		{"within CompileMaxN: compiled and saved", Options{CompileMaxN: 8, Dir: dir}, false, ""},
		{"beyond it, the file loaded", Options{CompileMaxN: 7, Dir: dir}, true, ""},
		{"no bound", Options{Dir: dir}, true, ""},
	}
	for _, tt := range tests {
		sp, err := New(tt.opts).Compile(ctx, model)
		if tt.refused != "" {
			if !errors.Is(err, configurator.ErrTooLarge) || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("%s: %v, want ErrTooLarge saying %q", tt.name, err, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := sp.(*Space).Source() != ""; got != tt.loaded {
			t.Errorf("%s: loaded %v, want %v", tt.name, got, tt.loaded)
		}
		if an, err := sp.Analyze(ctx, nil); err != nil || an.Solutions.Int64() != 92 {
			t.Errorf("%s: empty board %v, %v; want 92 solutions", tt.name, an, err)
		}
	}
}

// TestLimitsPastCompileMaxN checks that the largest board a backend
// states counts the boards past CompileMaxN only when their file is there.
func TestLimitsPastCompileMaxN(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name  string
		opts  Options
		maxN  int
		bound string
	}{
		{"no directory", Options{MaxN: 9, CompileMaxN: 7}, 7, "none is set"},
		{"no file", Options{MaxN: 9, CompileMaxN: 7, Dir: dir}, 7, "none of 8×8 (nqueens count -n 8 -budget 12G -cache-dir "},
		{"the 8×8 file", Options{MaxN: 9, CompileMaxN: 7, Dir: dir}, 8, "none of 9×9"},
		{"no bound", Options{MaxN: 9, Dir: dir}, 9, ""},
	} {
		if tt.name == "the 8×8 file" {
			compileIn(t, dir, configuratortest.Model(t, 8, configurator.RowMajor))
		}
		l := New(tt.opts).Limits()
		if l.MaxN != tt.maxN || !strings.Contains(l.Bound, tt.bound) || tt.bound == "" && l.Bound != "" {
			t.Errorf("%s: Limits = %d, %q; want %d, saying %q", tt.name, l.MaxN, l.Bound, tt.maxN, tt.bound)
		}
	}
}

// TestPrecomputeInTheBackground checks that on a diagram too large to
// compute the boards of one queen along with the empty board's, they are
// computed in the background after it (all of the first of their images:
// 10 on the 8×8 board), and that Close stops that work.
func TestPrecomputeInTheBackground(t *testing.T) {
	ctx := context.Background()
	kept := func(sp *Space) int {
		n := 0
		sp.memo.ones.Range(func(any, any) bool { n++; return true })
		return n
	}
	sp := compileSpace(t, 8, configurator.RowMajor, Direct)
	sp.memo.eager = false
	if _, err := sp.Analyze(ctx, nil); err != nil {
		t.Fatal(err)
	}
	configuratortest.WaitFor(t, "the 10 boards of one queen and the empty one kept", func() bool { return kept(sp) == 11 })
	// Their answers are those of the sweeps.
	for _, c := range []configurator.Cell{{Row: 0, Col: 0}, {Row: 3, Col: 2}, {Row: 7, Col: 7}} {
		got, err := sp.Analyze(ctx, []configurator.Cell{c})
		want, werr := sp.analyze(ctx, []configurator.Cell{c})
		if err != nil || werr != nil || got.Solutions.Cmp(want.Solutions) != 0 || got.Work.NodesVisited != 0 {
			t.Errorf("queen on %v: %v (%v), want %v from the memo", c, got, err, want)
		}
	}

	// Closed before the empty board's analysis: nothing more is computed.
	sp = compileSpace(t, 8, configurator.RowMajor, Direct)
	sp.memo.eager = false
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Analyze(ctx, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if n := kept(sp); n != 1 {
		t.Errorf("closed space: %d analyses kept, want the empty board's alone", n)
	}
	if err := sp.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestPairsFromTheMemo checks every board of two queens on 7×7 and 8×8,
// twice: the first answers fill the memo of such boards (each through the
// image analyzeImage picks), the second come from it, mapped from the
// image it keeps; both must be the sweep's own answer on the board as
// placed. With -short, 7×7 alone.
func TestPairsFromTheMemo(t *testing.T) {
	ctx := context.Background()
	sizes := []int{7, 8}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		cells := sp.model.Vars()
		for round := range 2 {
			fromMemo := 0
			for a := range cells {
				for b := range cells {
					if a == b {
						continue
					}
					queens := []configurator.Cell{sp.model.Cell(a), sp.model.Cell(b)}
					got, err := sp.Analyze(ctx, queens)
					want, werr := sp.analyze(ctx, queens)
					if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
						t.Fatalf("%d×%d %v, round %d: %v, want %v", n, n, queens, round, err, werr)
					}
					if err != nil {
						continue
					}
					if !slices.Equal(got.Cells, want.Cells) || got.Solutions.Cmp(want.Solutions) != 0 {
						t.Fatalf("%d×%d %v, round %d: %v %v, want %v %v", n, n, queens, round, got.Solutions, got.Cells, want.Solutions, want.Cells)
					}
					if got.Work.NodesVisited == 0 {
						fromMemo++
					}
				}
			}
			if round == 1 && fromMemo == 0 {
				t.Errorf("%d×%d: no answer from the memo in the second round", n, n)
			}
		}
		if c := sp.memo.pairCount.Load(); c == 0 || c > int64(cells*cells/8+cells) {
			t.Errorf("%d×%d: %d boards of two queens kept, want about %d (up to symmetry)", n, n, c, cells*(cells-1)/16)
		}
	}
}

// TestMarginalsKept checks the marginals of the empty board and of every
// board of one queen on 8×8 and 9×9, computed and then from the memo
// (kept by the first image of the queen), against the sweep's own.
func TestMarginalsKept(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{8, 9} {
		sp := compileSpace(t, n, configurator.RowMajor, Direct)
		boards := [][]configurator.Cell{nil}
		for v := range sp.model.Vars() {
			boards = append(boards, []configurator.Cell{sp.model.Cell(v)})
		}
		for round := range 2 {
			for _, queens := range boards {
				got, err := sp.Marginals(ctx, queens)
				want, werr := sp.marginals(ctx, queens)
				if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
					t.Fatalf("%d×%d %v, round %d: %v, want %v", n, n, queens, round, err, werr)
				}
				if !slices.EqualFunc(got, want, func(x, y *big.Int) bool { return x.Cmp(y) == 0 }) {
					t.Fatalf("%d×%d %v, round %d: %v, want %v", n, n, queens, round, got, want)
				}
			}
		}
		kept := 0
		sp.memo.heat.Range(func(any, any) bool { kept++; return true })
		if h := (n + 1) / 2; kept != 1+h*(h+1)/2 {
			t.Errorf("%d×%d: %d marginals kept, want the empty board's and %d of one queen", n, n, kept, h*(h+1)/2)
		}
	}
}

// TestKeptWaitsForTheSameBoard checks that a board of one or two queens
// whose analysis is under way is waited for, not computed twice: a caller
// whose context ends while it waits gets ErrBusy, and one that waits on
// gets the answer once the computation under way is over (here it fails,
// so the waiter computes it itself).
func TestKeptWaitsForTheSameBoard(t *testing.T) {
	for _, board := range []string{"a1", "a1,e2"} {
		sp := compileSpace(t, 8, configurator.RowMajor, Direct)
		queens := cellsOf(t, board)
		entry := inFlight{&sp.memo.ones, 1 + sp.model.Var(queens[0])}
		if len(queens) == 2 {
			_, key := pairKey(sp.model, queens)
			entry = inFlight{&sp.memo.pairs, key}
		}
		want, err := sp.analyze(context.Background(), queens)
		if err != nil {
			t.Fatal(err)
		}
		underWay := make(chan struct{})
		sp.memo.computing.Store(entry, underWay)

		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		if _, err := sp.Analyze(ctx, queens); !errors.Is(err, configurator.ErrBusy) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s while its analysis is under way, out of time: %v, want ErrBusy and the deadline", board, err)
		}
		cancel()
		got := make(chan *configurator.Analysis, 1)
		go func() {
			an, err := sp.Analyze(context.Background(), queens)
			if err != nil {
				t.Error(err)
			}
			got <- an
		}()
		select {
		case <-got:
			t.Fatalf("%s: answered while the analysis was under way", board)
		case <-time.After(50 * time.Millisecond):
		}
		sp.memo.computing.Delete(entry) // the computation under way failed
		close(underWay)
		select {
		case an := <-got:
			if an == nil || an.Solutions.Cmp(want.Solutions) != 0 {
				t.Errorf("%s after waiting: %v, want %v solutions", board, an, want.Solutions)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the waiter never answered", board)
		}
	}
}
