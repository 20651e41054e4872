package bdd

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// randomAssignment assigns each level of m, with probability p, a random
// value: a partial assignment of any kind, not only the placements the
// configurator makes.
func randomAssignment(rng *rand.Rand, m *robdd.Manager, p float64) robdd.Assignment {
	a := m.NewAssignment()
	for l := range a {
		if rng.Float64() < p {
			a[l] = int8(rng.IntN(2))
		}
	}
	return a
}

// TestPartsAnswerAsTheWhole checks the gathered sweeps against the sweeps
// of the whole diagram on the N-Queens diagrams up to 10×10 in every
// order, under random partial assignments (sparse and dense, satisfiable
// or not): the same valid domains, counts and marginals, a sample that
// satisfies the assignment, and never more nodes visited than the
// diagram has. With -short, up to 8×8.
func TestPartsAnswerAsTheWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	top := 10
	if testing.Short() {
		top = 8
	}
	for n := 1; n <= top; n++ {
		for _, o := range configurator.Orders() {
			sp := compileSpace(t, n, o, Direct)
			m, root := sp.m, sp.root
			for trial := range 40 {
				a := randomAssignment(rng, m, []float64{0.02, 0.1, 0.3, 0.8}[trial%4])
				name := fmt.Sprintf("%d×%d %v, assignment %v", n, n, o, a)
				p, ok := m.Part(root, a, int(root))
				if !ok {
					if slices.ContainsFunc(a, func(x int8) bool { return x != robdd.Unassigned }) {
						t.Fatalf("%s: no part within the whole diagram", name)
					}
					continue
				}
				whole := m.Whole(root, a)
				if p.Visited() > sp.nodes {
					t.Errorf("%s: the part has %d nodes, the diagram %d", name, p.Visited(), sp.nodes)
				}
				dom, count := p.ValidDomains()
				wantDom, wantCount := whole.ValidDomains()
				if !slices.Equal(dom, wantDom) || count.Cmp(wantCount) != 0 {
					t.Fatalf("%s: part gives domains %v and %v solutions, the whole %v and %v", name, dom, count, wantDom, wantCount)
				}
				if c := p.Count(); c.Cmp(wantCount) != 0 {
					t.Fatalf("%s: part counts %v, the whole %v", name, c, wantCount)
				}
				ones, total := p.Marginals()
				wantOnes, wantTotal := whole.Marginals()
				if total.Cmp(wantTotal) != 0 || !slices.EqualFunc(ones, wantOnes, func(x, y *big.Int) bool { return x.Cmp(y) == 0 }) {
					t.Fatalf("%s: part marginals %v of %v, the whole %v of %v", name, ones, total, wantOnes, wantTotal)
				}
				x, ok := p.RandomSat(rng)
				if ok != (count.Sign() > 0) {
					t.Fatalf("%s: sample found %v with %v solutions", name, ok, count)
				}
				if ok && !agrees(x, a) {
					t.Fatalf("%s: sample %v disagrees with the assignment", name, x)
				}
				p.Release()
				whole.Release()
			}
		}
	}
}

// agrees reports whether x takes every value a assigns.
func agrees(x []bool, a robdd.Assignment) bool {
	for l, v := range a {
		if v != robdd.Unassigned && x[l] != (v == 1) {
			return false
		}
	}
	return true
}

// TestPartWorkSpaceFollowsWhatItVisits checks that a query's work space
// is what its part needs and not what the diagram holds: on a 10×10
// diagram (25,945 nodes), the first query after the pools are emptied
// allocates, for its part of a few queens, no more than robdd.PartBytes
// of the nodes it visited and 8 KiB for its answer and view, a small
// fraction of the whole diagram's work space.
func TestPartWorkSpaceFollowsWhatItVisits(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool drops a share of the scratch areas, so allocations are not what queries hold")
	}
	sp := compileSpace(t, 10, configurator.RowMajor, Direct)
	ctx := context.Background()
	// Placements of 2 to 4 queens, each the last one's and the free cell
	// of its analysis that leaves most free.
	var tests []struct {
		queens []configurator.Cell
		most   float64 // of the whole diagram's work space
	}
	queens := cellsOf(t, "a1")
	for _, most := range []float64{0.25, 0.1, 0.05} {
		an, err := sp.analyze(ctx, queens)
		if err != nil {
			t.Fatal(err)
		}
		// The free cell after which most cells stay free.
		var next []configurator.Cell
		open := -1
		for _, c := range an.In(configurator.Free) {
			q := append(slices.Clone(queens), c)
			if an, err := sp.analyze(ctx, q); err == nil && len(an.In(configurator.Free)) > open {
				next, open = q, len(an.In(configurator.Free))
			}
		}
		queens = next
		tests = append(tests, struct {
			queens []configurator.Cell
			most   float64
		}{queens, most})
	}
	for _, tt := range tests {
		queens := tt.queens
		name := configurator.FormatCells(queens)
		var before, after runtime.MemStats
		runtime.GC() // twice: the pools keep their victims one cycle
		runtime.GC()
		runtime.ReadMemStats(&before)
		an, err := sp.analyze(ctx, queens)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		visited := int(an.Work.NodesVisited)
		alloc := int64(after.TotalAlloc - before.TotalAlloc)
		// The answer, the query's view and its headers: cells,
		// domains, the assignment, the free levels, the scratch.
		const answer = 8 << 10
		t.Logf("%s: %d of %d nodes visited, %d bytes allocated, PartBytes %d, the whole diagram's %d",
			name, visited, sp.nodes, alloc, sp.m.PartBytes(sp.root, visited), sp.m.WholeBytes(sp.root))
		if want := sp.m.PartBytes(sp.root, visited) + answer; alloc > want {
			t.Errorf("%s: %d bytes allocated for %d nodes visited, want at most %d", name, alloc, visited, want)
		}
		if whole := sp.m.WholeBytes(sp.root); float64(alloc) > tt.most*float64(whole) {
			t.Errorf("%s: %d bytes allocated, more than %.0f%% of the whole diagram's %d", name, alloc, 100*tt.most, whole)
		}
	}
}

// cellsOf parses cells in chess notation.
func cellsOf(t *testing.T, s string) []configurator.Cell { return configuratortest.Cells(t, s) }

// TestAnalyzeWork checks the work reported behind each analysis, along a
// seeded random walk on 10×10 (queens added and removed): the diagram's
// nodes, more than none visited and never more than the diagram, a board
// with fewer queens visiting at least as many nodes as one that holds
// them and more, and the domains' time within the step's. The empty board
// and the boards of one queen are computed once, the latter with the
// former: asked again, they visit nothing and answer the same.
func TestAnalyzeWork(t *testing.T) {
	sp := compileSpace(t, 10, configurator.RowMajor, Direct)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(4, 2))
	var queens []configurator.Cell
	visited := map[string]int64{} // by placement
	for step := range 200 {
		an, err := sp.analyze(ctx, queens)
		if err != nil {
			t.Fatalf("step %d, %v: %v", step, queens, err)
		}
		w := an.Work
		name := fmt.Sprintf("step %d, %s", step, configurator.FormatCells(queens))
		if w.Nodes != 25945 || w.NodesVisited <= 0 || w.NodesVisited > w.Nodes {
			t.Fatalf("%s: %d of %d nodes visited, want from 1 to 25,945", name, w.NodesVisited, w.Nodes)
		}
		if w.Domains <= 0 || w.Domains > an.Elapsed || w.Count != 0 {
			t.Errorf("%s: domains %v, count %v of %v: want the step's time in domains, the count free", name, w.Domains, w.Count, an.Elapsed)
		}
		visited[configurator.FormatCells(sorted(queens))] = w.NodesVisited
		// Every placement with one queen fewer visits at least as many.
		for i := range queens {
			fewer := slices.Delete(slices.Clone(queens), i, i+1)
			if v, ok := visited[configurator.FormatCells(sorted(fewer))]; ok && v < w.NodesVisited {
				t.Errorf("%s visits %d nodes, but without %v only %d", name, w.NodesVisited, queens[i], v)
			}
		}
		open := an.In(configurator.Free)
		if len(queens) > 0 && (len(open) == 0 || rng.IntN(3) == 0) {
			i := rng.IntN(len(queens))
			queens = slices.Delete(queens, i, i+1)
			continue
		}
		if len(open) > 0 {
			queens = append(queens, open[rng.IntN(len(open))])
		}
	}

	// The empty board is computed at its first analysis, with the boards
	// of one queen: e5 is then kept already.
	for _, tt := range []struct {
		q        string
		computed bool
	}{{"", true}, {"e5", false}} {
		q := tt.q
		queens := cellsOf(t, q)
		first, err := sp.Analyze(ctx, queens)
		if err != nil {
			t.Fatal(err)
		}
		again, err := sp.Analyze(ctx, queens)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(first.Cells, again.Cells) || first.Solutions.Cmp(again.Solutions) != 0 {
			t.Errorf("%q asked again answers otherwise", q)
		}
		if (first.Work.NodesVisited > 0) != tt.computed || again.Work.NodesVisited != 0 {
			t.Errorf("%q: %d nodes visited, then %d asked again; want some only when computed (%v), then none", q, first.Work.NodesVisited, again.Work.NodesVisited, tt.computed)
		}
		again.Cells[1] = configurator.Forced // callers never share an answer
		if third, _ := sp.Analyze(ctx, queens); third.Cells[1] != first.Cells[1] {
			t.Errorf("%q: an answer changed by a caller is the next caller's", q)
		}
	}
}

// TestOneQueenBySymmetry checks the memo of the boards of one queen, each
// answered from the first of its images under the board's symmetries:
// every cell of the board, in every order, answers as its own analysis
// does, and only the cells first among their images are computed, all of
// them by the first analysis of the empty board.
func TestOneQueenBySymmetry(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{1, 4, 7, 8, 9} {
		for _, o := range configurator.Orders() {
			sp := compileSpace(t, n, o, Direct)
			for v := range sp.model.Vars() {
				c := sp.model.Cell(v)
				got, err := sp.Analyze(ctx, []configurator.Cell{c})
				want, werr := sp.analyze(ctx, []configurator.Cell{c})
				if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
					t.Fatalf("%d×%d %v, queen on %v: %v, want %v", n, n, o, c, err, werr)
				}
				if err != nil {
					continue
				}
				if !slices.Equal(got.Cells, want.Cells) || got.Solutions.Cmp(want.Solutions) != 0 {
					t.Fatalf("%d×%d %v, queen on %v: %v solutions %v, want %v %v", n, n, o, c, got.Solutions, got.Cells, want.Solutions, want.Cells)
				}
			}
			computed := 0
			sp.memo.ones.Range(func(any, any) bool { computed++; return true })
			if _, err := sp.Analyze(ctx, nil); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatal(err)
			}
			after := 0
			sp.memo.ones.Range(func(any, any) bool { after++; return true })
			if after != computed+1 {
				t.Errorf("%d×%d %v: the empty board's analysis computed %d boards more, want itself alone", n, n, o, after-computed-1)
			}
			// The cells of the triangle a1, the files up to the middle,
			// the ranks up to the file: ⌈n/2⌉·(⌈n/2⌉+1)/2.
			h := (n + 1) / 2
			if want := h * (h + 1) / 2; computed != want {
				t.Errorf("%d×%d %v: %d boards of one queen computed, want %d", n, n, o, computed, want)
			}
			// A fresh space computes them with the empty board's.
			sp = compileSpace(t, n, o, Direct)
			if _, err := sp.Analyze(ctx, nil); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatal(err)
			}
			kept := 0
			sp.memo.ones.Range(func(any, any) bool { kept++; return true })
			if want := 1 + h*(h+1)/2; kept != want {
				t.Errorf("%d×%d %v: the empty board's first analysis kept %d boards, want %d", n, n, o, kept, want)
			}
		}
	}
}

// sorted returns the cells in row-major order.
func sorted(cells []configurator.Cell) []configurator.Cell {
	c := slices.Clone(cells)
	slices.SortFunc(c, func(a, b configurator.Cell) int { return (a.Row-b.Row)*64 + a.Col - b.Col })
	return c
}

// TestSmallQueriesPassLargeOnes checks fair admission: while large queries
// fill the large lane of the work space (sweeps of the whole 12×12 diagram
// for its heat map and drawings of its restrictions, eight clients at
// once, their bound sized so that they queue), analyses of 8×8 placements
// are answered about as fast as the same analyses alone, for a second. A
// queue behind the large queries would hold every small one for a large
// one's time; admitted at once, a small one waits at most for a core. The
// bound is ten times the same analyses alone in this run, at p50 and p90,
// so that the machine's load, which slows both, does not decide, and never
// under 50 ms: on a shared 2-core machine the operating system alone may
// hold a thread for tens of milliseconds. A 12×12 diagram stands in for
// 14×14: the lanes do not depend on the size, and a 14×14 compile is too
// heavy for a unit test.
func TestSmallQueriesPassLargeOnes(t *testing.T) {
	sp12 := compileSpace(t, 12, configurator.RowMajor, Direct)
	sp8 := compileSpace(t, 8, configurator.RowMajor, Direct)
	// analyses times 8×8 analyses, at least 100 and for a second.
	analyses := func() []time.Duration {
		rng := rand.New(rand.NewPCG(8, 8))
		var times []time.Duration
		begin := time.Now()
		for k := 0; k < 100 || time.Since(begin) < time.Second; k++ {
			queens := []configurator.Cell{{Row: 0, Col: rng.IntN(8)}, {Row: 3 + rng.IntN(5), Col: rng.IntN(8)}}
			start := time.Now()
			_, err := sp8.Analyze(context.Background(), queens)
			if err != nil && !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatalf("8×8 %v: %v", queens, err)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		return times
	}
	alone := analyses()
	// One backend's bound over both, its large lane room for two whole
	// 12×12 sweeps.
	ws := newWorkspace(smallShare*2*sp12.m.WholeBytes(sp12.root)/(smallShare-1), 1)
	sp12.work, sp8.work = ws, ws
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var large atomic.Int64
	for i := range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				var err error
				if i%2 == 0 {
					// The sweep itself: Marginals answers the empty
					// board's heat map from the memo once it is kept.
					_, err = sp12.marginals(ctx, nil)
				} else {
					_, _, err = sp12.Diagram(ctx, cellsOf(t, "a1"), 100)
				}
				if err != nil && !errors.Is(err, context.Canceled) {
					t.Errorf("a large query: %v", err)
				}
				large.Add(1)
			}
		})
	}
	// Four clients sweep the whole diagram, and the lane holds two: two
	// of them wait while the small queries run.
	configuratortest.WaitFor(t, "large queries waiting", func() bool { return ws.occupancy().Waiting >= 2 })
	times := analyses()
	l := ws.occupancy()
	stop()
	wg.Wait()
	q := func(times []time.Duration, p int) time.Duration { return times[len(times)*p/100] }
	t.Logf("%d 8×8 analyses beside %d large queries (%d waiting at the end): p50 %v, p90 %v, p99 %v, slowest %v; alone p50 %v, p90 %v",
		len(times), large.Load(), l.Waiting, q(times, 50), q(times, 90), q(times, 99), times[len(times)-1], q(alone, 50), q(alone, 90))
	for _, p := range []int{50, 90} {
		if got, bound := q(times, p), max(10*q(alone, p), 50*time.Millisecond); got >= bound {
			t.Errorf("8×8 analyses took %v at p%d beside the large queries, want < %v (ten times alone, at least 50 ms)", got, p, bound)
		}
	}
	if large.Load() == 0 {
		t.Error("no large query ran")
	}
}
