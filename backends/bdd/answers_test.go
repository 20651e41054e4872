package bdd

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/big"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// precomputedIn compiles model with a backend keeping its spaces in dir,
// as a diagram large enough to keep the boards of two queens, and runs
// Precompute on it: dir then holds the space's answers file too.
func precomputedIn(t testing.TB, dir string, model *configurator.Model) *Space {
	t.Helper()
	sp, _ := compileIn(t, dir, model)
	sp.memo.eager = false
	if err := sp.Precompute(context.Background()); err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestAnswersRoundTrip checks that the answers Precompute saves are read
// back by the next Compile of the model, in every order: every board of
// none, one or two queens is then answered from the memo (no node
// visited), exactly as the sweep answers it; and that the same answers
// make the same file.
func TestAnswersRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		n     int
		order configurator.Order
	}{
		{6, configurator.RowMajor}, // 4 solutions: most pairs have none
		{7, configurator.ColMajor},
		{8, configurator.RowMajor},
		{8, configurator.Diagonal},
		{8, configurator.MiddleOut},
	} {
		dir := t.TempDir()
		model := configuratortest.Model(t, tt.n, tt.order)
		first := precomputedIn(t, dir, model)
		path := first.memo.store.answersPath(model)
		saved, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%d×%d %v: no answers file: %v", tt.n, tt.n, tt.order, err)
		}

		sp, log := compileIn(t, dir, model)
		if !strings.Contains(log, "kept answers loaded from disk") {
			t.Errorf("%d×%d %v: log %q, want the answers loaded", tt.n, tt.n, tt.order, log)
		}
		if got, want := sp.memo.count(), first.memo.count(); got != want {
			t.Errorf("%d×%d %v: %d answers loaded, %d saved", tt.n, tt.n, tt.order, got, want)
		}
		sp.memo.write()
		if again, _ := os.ReadFile(path); !bytes.Equal(again, saved) {
			t.Errorf("%d×%d %v: the same answers wrote another file", tt.n, tt.n, tt.order)
		}
		vars := model.Vars()
		// The heat maps, read back, are the sweeps' (none computed: each
		// comes from the file).
		for v := -1; v < vars; v++ {
			var q []configurator.Cell
			if v >= 0 {
				q = []configurator.Cell{model.Cell(v)}
			}
			got, err := sp.Marginals(ctx, q)
			want, werr := sp.marginals(ctx, q)
			if errors.Is(werr, configurator.ErrNoSolution) != errors.Is(err, configurator.ErrNoSolution) ||
				werr == nil && !slices.EqualFunc(got, want, func(a, b *big.Int) bool { return a.Cmp(b) == 0 }) {
				t.Errorf("%d×%d %v, heat map of %v: %v, %v; want %v, %v", tt.n, tt.n, tt.order, q, got, err, want, werr)
			}
		}
		if got, want := sp.memo.count(), first.memo.count(); got != want {
			t.Errorf("%d×%d %v: %d answers kept after the heat maps, %d saved: some were computed again", tt.n, tt.n, tt.order, got, want)
		}
		boards := [][]configurator.Cell{nil}
		for a := range vars {
			boards = append(boards, []configurator.Cell{model.Cell(a)})
			for b := a + 1; b < vars; b++ {
				boards = append(boards, []configurator.Cell{model.Cell(a), model.Cell(b)})
			}
		}
		for _, q := range boards {
			got, err := sp.Analyze(ctx, q)
			want, werr := sp.analyze(ctx, q)
			if errors.Is(werr, configurator.ErrNoSolution) {
				if !errors.Is(err, configurator.ErrNoSolution) {
					t.Errorf("%d×%d %v, queens %v: %v, %v; want no solution", tt.n, tt.n, tt.order, q, got, err)
				}
				continue
			}
			if err != nil || werr != nil {
				t.Fatalf("%d×%d %v, queens %v: %v, %v", tt.n, tt.n, tt.order, q, err, werr)
			}
			if !slices.Equal(got.Cells, want.Cells) || got.Solutions.Cmp(want.Solutions) != 0 || got.Work.Nodes != want.Work.Nodes {
				t.Errorf("%d×%d %v, queens %v: %v cells %v, want %v cells %v",
					tt.n, tt.n, tt.order, q, got.Solutions, got.Cells, want.Solutions, want.Cells)
			}
			if got.Work.NodesVisited != 0 {
				t.Errorf("%d×%d %v, queens %v: %d nodes visited, want an answer from the file", tt.n, tt.n, tt.order, q, got.Work.NodesVisited)
			}
		}
	}
}

// TestDamagedAnswersAreRefused checks that an answers file that is not
// sound, in any of the ways a file goes wrong, is refused, logged and
// removed, and that the space then computes its answers afresh.
func TestDamagedAnswersAreRefused(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	good, err := os.ReadFile(precomputedIn(t, src, model).memo.store.answersPath(model))
	if err != nil {
		t.Fatal(err)
	}
	other := configuratortest.Model(t, 8, configurator.ColMajor)
	foreign, err := os.ReadFile(precomputedIn(t, src, other).memo.store.answersPath(other))
	if err != nil {
		t.Fatal(err)
	}
	// resealed is good with its bytes at off replaced by b and the
	// checksum made right again, so that the field's own check refuses it.
	resealed := func(off int, b ...byte) []byte {
		d := slices.Clone(good)
		copy(d[off:], b)
		end := len(d) - 4
		binary.LittleEndian.PutUint32(d[end:], crc32.Checksum(d[:end], castagnoli))
		return d
	}
	// reencoded is good with its answers changed by change: sealed right,
	// so that the check of the entries' content refuses it.
	reencoded := func(change func(a *answer)) []byte {
		answers, err := decodeAnswers(good, model, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for i := range answers {
			change(&answers[i])
		}
		return encodeAnswers(answers, model)
	}
	first := answersFixed // the first entry: the empty board's
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"truncated", good[:len(good)/2]},
		{"a flipped byte", func() []byte { d := slices.Clone(good); d[len(d)/2] ^= 0x10; return d }()},
		{"another format", resealed(0, []byte("NQSPACE\n")...)},
		{"another version", resealed(8, 2)},
		{"another model", foreign},
		{"more entries than a space keeps", resealed(52, 0xff, 0xff, 0xff, 0x7f)},
		{"a key the memo never keys by", resealed(first+1, 1+8)}, // the board of a2, whose image b1 comes first
		{"an unknown kind", resealed(first, 7)},
		{"a cell state out of range", resealed(first+6+1, 9)},
		{"a queen the key does not hold", resealed(first+6+1, byte(configurator.Queen))},
		{"a heat map whose ranks disagree", reencoded(func(a *answer) {
			if a.kind == kindHeat && a.key == 0 {
				a.heat[0].Add(a.heat[0], big.NewInt(1))
			}
		})},
		{"a heat map whose queen misses solutions", reencoded(func(a *answer) {
			if a.kind == kindHeat && a.key == 1 { // a1: 4 solutions, one of them moved to b1
				a.heat[0].Sub(a.heat[0], big.NewInt(1))
				a.heat[1].Add(a.heat[1], big.NewInt(1))
			}
		})},
		{"the analysis of another board", reencoded(func(a *answer) {
			if a.kind == kindPair && a.an != nil {
				a.an.Cells[0], a.an.Cells[1] = a.an.Cells[1], a.an.Cells[0]
			}
		})},
		{"bytes after the last entry", func() []byte {
			d := append(slices.Clone(good[:len(good)-4]), 0)
			return binary.LittleEndian.AppendUint32(d, crc32.Checksum(d, castagnoli))
		}()},
	} {
		dir := t.TempDir()
		b, log := storeBackend(dir)
		path := b.opts.store().answersPath(model)
		if err := os.WriteFile(path, tt.data, 0o600); err != nil {
			t.Fatal(err)
		}
		sp := configuratortest.Space(t, b, model).(*Space)
		if n := sp.memo.saved.Load(); n != 0 {
			t.Errorf("%s: %d answers kept from the file", tt.name, n)
		}
		if !strings.Contains(log.String(), "kept answers refused") {
			t.Errorf("%s: log %q, want the file refused", tt.name, log.String())
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: the file was left in place", tt.name)
		}
		an, err := sp.Analyze(ctx, []configurator.Cell{{Row: 0, Col: 0}})
		if err != nil || an.Solutions.Int64() != 4 {
			t.Errorf("%s: a queen on a1: %v, %v; want 4 solutions", tt.name, an, err)
		}
	}
}

// TestPrecomputeKeepsEveryPair checks what Precompute keeps on a diagram
// too large to compute the boards of one queen with the empty board's:
// the empty board, the 10 boards of one queen up to symmetry, the heat
// maps of those 11, and every board of two queens that do not attack each
// other, up to symmetry, on 8×8; and that it stops when its context ends,
// computing nothing.
func TestPrecomputeKeepsEveryPair(t *testing.T) {
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	sp := precomputedIn(t, t.TempDir(), model)
	pairs := map[int]bool{}
	for a := range model.Vars() {
		for b := range model.Vars() {
			q := []configurator.Cell{model.Cell(a), model.Cell(b)}
			if a != b && !model.Attacks(q[0], q[1]) {
				_, key := pairKey(model, q)
				pairs[key] = true
			}
		}
	}
	count := func(m *sync.Map) (n int) {
		m.Range(func(any, any) bool { n++; return true })
		return n
	}
	ones, heat := count(&sp.memo.ones), count(&sp.memo.heat)
	if ones != 11 || heat != 11 || sp.memo.pairCount.Load() != int64(len(pairs)) {
		t.Errorf("kept %d boards of none or one queen, %d heat maps and %d boards of two, want 11, 11 and %d",
			ones, heat, sp.memo.pairCount.Load(), len(pairs))
	}

	dir := t.TempDir()
	sp, _ = compileIn(t, dir, model)
	sp.memo.eager = false
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sp.Precompute(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Precompute, context ended: %v, want context.Canceled", err)
	}
	if n := sp.memo.count(); n != 0 {
		t.Errorf("Precompute, context ended: %d answers kept, want none (the compile counted the solutions with the nodes)", n)
	}
}

// TestPrecomputeAgreesWithTheSweeps checks every answer Precompute keeps,
// computed in bulk (a board of one queen's analysis and heat map from one
// gathering, on every core), against the sweep of the board as placed:
// the analysis of the empty board and of every board of one and two
// queens, and the heat maps of the empty board and of every board of one
// queen, on 8×8 to 10×10 in row order and on 8×8 in two other orders;
// each answered from the memo, without visiting a node.
func TestPrecomputeAgreesWithTheSweeps(t *testing.T) {
	ctx := context.Background()
	type board struct {
		n     int
		order configurator.Order
	}
	boardsOf := []board{{8, configurator.RowMajor}, {8, configurator.Diagonal}, {8, configurator.MiddleOut}, {9, configurator.RowMajor}, {10, configurator.RowMajor}}
	if testing.Short() || raceEnabled {
		boardsOf = boardsOf[:4] // 10×10's 9,900 boards of two queens take a minute under the race detector
	}
	for _, bo := range boardsOf {
		n := bo.n
		model := configuratortest.Model(t, n, bo.order)
		sp := precomputedIn(t, t.TempDir(), model)
		boards := [][]configurator.Cell{nil}
		for a := range model.Vars() {
			boards = append(boards, []configurator.Cell{model.Cell(a)})
			for b := range model.Vars() {
				if a != b {
					boards = append(boards, []configurator.Cell{model.Cell(a), model.Cell(b)})
				}
			}
		}
		solved := 0 // boards with a solution: their answers compared cell by cell
		for _, queens := range boards {
			got, err := sp.Analyze(ctx, queens)
			want, werr := sp.analyze(ctx, queens)
			if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
				t.Fatalf("%d×%d %v: %v, want %v", n, n, queens, err, werr)
			}
			if err == nil {
				solved++
				if !slices.Equal(got.Cells, want.Cells) || got.Solutions.Cmp(want.Solutions) != 0 {
					t.Fatalf("%d×%d %v: %v %v, want %v %v", n, n, queens, got.Solutions, got.Cells, want.Solutions, want.Cells)
				}
				if got.Work.NodesVisited != 0 {
					t.Errorf("%d×%d %v: swept %d nodes, want the kept answer", n, n, queens, got.Work.NodesVisited)
				}
			}
			if len(queens) == 2 {
				continue
			}
			heat, err := sp.Marginals(ctx, queens)
			wantHeat, werr := sp.marginals(ctx, queens)
			if (err == nil) != (werr == nil) || !slices.EqualFunc(heat, wantHeat, func(x, y *big.Int) bool { return x.Cmp(y) == 0 }) {
				t.Fatalf("%d×%d %v: heat map %v (%v), want %v (%v)", n, n, queens, heat, err, wantHeat, werr)
			}
		}
		if an, err := sp.Analyze(ctx, nil); err != nil || an.Solutions.Int64() != map[int]int64{8: 92, 9: 352, 10: 724}[n] {
			t.Errorf("%d×%d: empty board %v, %v; want the OEIS count", n, n, an, err)
		}
		if solved < len(boards)/4 {
			t.Errorf("%d×%d: %d of %d boards with solutions, too few to tell", n, n, solved, len(boards))
		}
	}
}
