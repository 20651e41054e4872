package bdd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// queensSolutions is OEIS A000170: the number of solutions of N-Queens,
// from N = 1.
var queensSolutions = []int64{1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// queensNodes is the size of the canonical diagram of N-Queens in
// row-major order, terminals excluded, as BuDDy's bdd_nodecount reports it.
var queensNodes = map[int]int{
	4: 29, 5: 167, 6: 129, 7: 1099, 8: 2451, 9: 9557, 10: 25945, 11: 94822, 12: 435170,
}

// compiler is CompileDirect or CompileApply.
type compiler func(context.Context, *robdd.Manager, *configurator.Model) (robdd.Node, error)

// compileFresh compiles model with compile into a manager of its own.
func compileFresh(t testing.TB, compile compiler, model *configurator.Model) (*robdd.Manager, robdd.Node) {
	t.Helper()
	m := robdd.New(model.Vars(), 0)
	root, err := compile(context.Background(), m, model)
	if err != nil {
		t.Fatalf("compile %d-queens (%v): %v", model.N(), model.Order(), err)
	}
	return m, root
}

// compileDirectCounted compiles model with the direct compiler into a
// manager of its own and fails the test when the count the compile made
// along with the nodes is not the diagram's (none past 64 bits).
func compileDirectCounted(t testing.TB, model *configurator.Model) (*robdd.Manager, robdd.Node) {
	t.Helper()
	m := robdd.New(model.Vars(), 0)
	root, count, err := compileDirect(context.Background(), m, model, nil)
	if err != nil {
		t.Fatalf("compile %d-queens (%v): %v", model.N(), model.Order(), err)
	}
	switch want := m.SatCount(root); {
	case count == nil && want.BitLen() <= 64, count != nil && count.Cmp(want) != 0:
		t.Errorf("the direct compile counted %v solutions; its diagram has %v", count, want)
	}
	return m, root
}

// compileBoth compiles model with the direct compiler (checking its
// count) and then CompileApply into one manager, fails the test when the
// two paths reach different roots, and returns the manager and the
// direct root.
func compileBoth(t testing.TB, model *configurator.Model) (*robdd.Manager, robdd.Node) {
	t.Helper()
	m, direct := compileDirectCounted(t, model)
	apply, err := CompileApply(context.Background(), m, model)
	if err != nil {
		t.Fatal(err)
	}
	if direct != apply {
		t.Errorf("direct root %d, apply root %d", direct, apply)
	}
	return m, direct
}

// TestCompileDirectCountsSolutionsAndNodes compiles N-Queens for every N
// of queensSolutions (with -short, to 10×10) and checks its count, its
// node count where BuDDy's is known, and that nothing made is garbage.
func TestCompileDirectCountsSolutionsAndNodes(t *testing.T) {
	for i, want := range queensSolutions {
		n := i + 1
		if testing.Short() && n > 10 {
			break
		}
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			m, root := compileDirectCounted(t, configuratortest.Model(t, n, configurator.RowMajor))
			if got := m.SatCount(root); got.Cmp(big.NewInt(want)) != 0 {
				t.Errorf("%d-queens: %v solutions, want %d", n, got, want)
			}
			if want, ok := queensNodes[n]; ok {
				if got := m.NodeCount(root); got != want {
					t.Errorf("%d-queens: %d nodes, want %d", n, got, want)
				}
			}
			// Every node made is part of the result: nothing to collect.
			if got, want := m.Size()-2, m.NodeCount(root); got != want {
				t.Errorf("%d-queens: %d nodes made for a diagram of %d", n, got, want)
			}
		})
	}
}

// TestCompileDirectLargeBoards checks the sizes and counts of the largest
// boards a unit test can afford: 13×13 and 14×14 (14×14 not under the
// race detector, which would slow it past a unit test's time; neither
// with -short). Their
// node counts have no independent source: they are this
// project's, pinned so that a change that alters them is seen.
func TestCompileDirectLargeBoards(t *testing.T) {
	for _, tc := range []struct {
		n         int
		nodes     int
		solutions int64
	}{
		{13, 2044394, 73712},
		{14, 9572418, 365596},
	} {
		if tc.n >= 14 && raceEnabled || testing.Short() {
			t.Logf("%d-queens skipped under the race detector (14×14) and with -short", tc.n)
			continue
		}
		m, root := compileFresh(t, CompileDirect, configuratortest.Model(t, tc.n, configurator.RowMajor))
		if got := m.NodeCount(root); got != tc.nodes {
			t.Errorf("%d-queens: %d nodes, want %d", tc.n, got, tc.nodes)
		}
		if got := m.SatCount(root); got.Cmp(big.NewInt(tc.solutions)) != 0 {
			t.Errorf("%d-queens: %v solutions, want %d", tc.n, got, tc.solutions)
		}
	}
}

// TestCompileDirectEqualsApply checks canonicity across the two paths: in
// one Manager both compilers must return the very same Node, whatever the
// variable order: up to 10×10 in row order and 8×8 in the others (with
// -short, two sizes less).
func TestCompileDirectEqualsApply(t *testing.T) {
	maxN := map[configurator.Order]int{configurator.RowMajor: 10}
	for _, o := range configurator.Orders() {
		last := maxN[o]
		if last == 0 {
			last = 8
		}
		if testing.Short() {
			last -= 2
		}
		for n := 1; n <= last; n++ {
			t.Run(fmt.Sprintf("order=%v/n=%d", o, n), func(t *testing.T) {
				model := configuratortest.Model(t, n, o)
				m, direct := compileBoth(t, model)
				if got, want := m.SatCount(direct), big.NewInt(queensSolutions[n-1]); got.Cmp(want) != 0 {
					t.Errorf("%v solutions, want %v", got, want)
				}
			})
		}
	}
}

// TestCompileDirectCustomModels compiles models other than N-Queens: the
// planted fault of the cross-check (one anti-diagonal missing) and random
// sets of lines, overlapping ExactlyOne lines and empty ones included,
// against CompileApply and a brute-force count of every assignment.
func TestCompileDirectCustomModels(t *testing.T) {
	type tc struct {
		name  string
		model *configurator.Model
	}
	var cases []tc
	for _, n := range []int{5, 6, 8} {
		full := configuratortest.Model(t, n, configurator.RowMajor)
		var cs []configurator.Constraint
		dropped := false
		for _, c := range full.Constraints() {
			if !dropped && c.Kind == configurator.AtMostOne && len(c.Cells) == n && c.Cells[0] == (configurator.Cell{Row: 0, Col: n - 1}) {
				dropped = true // the long anti-diagonal
				continue
			}
			cs = append(cs, c)
		}
		model, err := configurator.Custom(n, configurator.RowMajor, cs)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{fmt.Sprintf("queens-%d-without-anti-diagonal", n), model})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 150 {
		n := 2 + rng.IntN(3)
		var cs []configurator.Constraint
		for range 1 + rng.IntN(7) {
			c := configurator.Constraint{Kind: configurator.Kind(rng.IntN(2))}
			for v := range n * n {
				if rng.IntN(3) == 0 {
					c.Cells = append(c.Cells, configurator.Cell{Row: v / n, Col: v % n})
				}
			}
			cs = append(cs, c)
		}
		order := configurator.Orders()[rng.IntN(len(configurator.Orders()))]
		model, err := configurator.Custom(n, order, cs)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{fmt.Sprintf("random-%d", i), model})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, direct := compileBoth(t, c.model)
			if c.model.Vars() <= 16 {
				if got, want := m.SatCount(direct), bruteCount(c.model); got.Cmp(want) != 0 {
					t.Errorf("%v solutions, brute force %v", got, want)
				}
			}
		})
	}
}

// TestCompileDirectWideStates compiles boards whose states span four words
// and five (16×16 and 17×17 cells: the widest fixed width of the build's
// loops, and past it) with the N-Queens lines cut to the first two ranks,
// the other cells free, against CompileApply and a count of the queen
// pairs the lines allow times every assignment of the free cells.
func TestCompileDirectWideStates(t *testing.T) {
	for _, n := range []int{16, 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var cs []configurator.Constraint
			for _, c := range configuratortest.Model(t, n, configurator.RowMajor).Constraints() {
				cut := configurator.Constraint{Kind: c.Kind, Name: c.Name}
				for _, cell := range c.Cells {
					if cell.Row < 2 {
						cut.Cells = append(cut.Cells, cell)
					}
				}
				if c.Kind == configurator.ExactlyOne && len(cut.Cells) == len(c.Cells) || c.Kind == configurator.AtMostOne && len(cut.Cells) >= 2 {
					cs = append(cs, cut)
				}
			}
			model, err := configurator.Custom(n, configurator.RowMajor, cs)
			if err != nil {
				t.Fatal(err)
			}
			pairs := 0
			for a := range n {
				for b := range n {
					on := func(cell configurator.Cell) bool {
						return cell == (configurator.Cell{Row: 0, Col: a}) || cell == (configurator.Cell{Row: 1, Col: b})
					}
					ok := true
					for _, c := range cs {
						k := 0
						for _, cell := range c.Cells {
							if on(cell) {
								k++
							}
						}
						ok = ok && (k == 1 || c.Kind == configurator.AtMostOne && k == 0)
					}
					if ok {
						pairs++
					}
				}
			}
			want := new(big.Int).Lsh(big.NewInt(int64(pairs)), uint(n*n-2*n))
			m, root := compileBoth(t, model)
			if got := m.SatCount(root); got.Cmp(want) != 0 {
				t.Errorf("%v solutions, want %d pairs × 2^%d = %v", got, pairs, n*n-2*n, want)
			}
		})
	}
}

// FuzzCompileDirect compiles models of up to 4×4 cells whose lines the
// fuzzer chooses (three bytes a line: kind, then a 16-bit mask of cells,
// row-major) and checks the direct path against the apply path and a
// brute-force count.
func FuzzCompileDirect(f *testing.F) {
	f.Add(uint8(3), uint8(0), []byte{0, 0x0f, 0x00, 0, 0xf0, 0x00, 1, 0x11, 0x11, 1, 0x21, 0x84})
	f.Add(uint8(2), uint8(2), []byte{0, 0x07, 0x00, 0, 0x38, 0x00, 0, 0xc0, 0x01, 1, 0x49, 0x00, 1, 0x11, 0x01})
	f.Add(uint8(3), uint8(1), []byte{0, 0x33, 0x00, 0, 0x0f, 0x00, 0, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, size, order uint8, spec []byte) {
		n := 1 + int(size)%4
		var cs []configurator.Constraint
		for i := 0; i+3 <= len(spec) && len(cs) < 12; i += 3 {
			c := configurator.Constraint{Kind: configurator.Kind(spec[i] & 1)}
			mask := uint16(spec[i+1]) | uint16(spec[i+2])<<8
			for v := range n * n {
				if mask&(1<<v) != 0 {
					c.Cells = append(c.Cells, configurator.Cell{Row: v / n, Col: v % n})
				}
			}
			cs = append(cs, c)
		}
		orders := configurator.Orders()
		model, err := configurator.Custom(n, orders[int(order)%len(orders)], cs)
		if err != nil {
			t.Fatal(err)
		}
		m, direct := compileBoth(t, model)
		if got, want := m.SatCount(direct), bruteCount(model); got.Cmp(want) != 0 {
			t.Errorf("%v solutions, brute force %v", got, want)
		}
	})
}

// bruteCount counts the assignments of a model of at most 16 variables
// that satisfy its constraints, by trying them all.
func bruteCount(model *configurator.Model) *big.Int {
	type line struct {
		mask  uint32
		exact bool
	}
	var lines []line
	for _, c := range model.Constraints() {
		var mask uint32
		for _, cell := range c.Cells {
			mask |= 1 << model.Var(cell)
		}
		lines = append(lines, line{mask, c.Kind == configurator.ExactlyOne})
	}
	var count int64
next:
	for x := range uint32(1) << model.Vars() {
		for _, l := range lines {
			k := bits.OnesCount32(x & l.mask)
			if k > 1 || l.exact && k == 0 {
				continue next
			}
		}
		count++
	}
	return big.NewInt(count)
}

// budgetStep checks one compile of a sweep of growing budgets into m: a
// success (recorded in *succeeded) has the want nodes; a failure wraps
// robdd.ErrNodeLimit, comes before every success and leaves only the two
// terminals. It reports whether the compile succeeded.
func budgetStep(t *testing.T, budget int64, m *robdd.Manager, root robdd.Node, err error, want int, succeeded *bool) bool {
	t.Helper()
	switch {
	case err == nil:
		*succeeded = true
		if got := m.NodeCount(root); got != want {
			t.Errorf("budget %d: %d nodes, want %d", budget, got, want)
		}
		return true
	case *succeeded:
		t.Fatalf("budget %d: %v, after a smaller budget succeeded", budget, err)
	case !errors.Is(err, robdd.ErrNodeLimit):
		t.Fatalf("budget %d: %v, want robdd.ErrNodeLimit", budget, err)
	case m.Size() != 2:
		t.Errorf("budget %d: %d nodes left after the failure, want the 2 terminals", budget, m.Size())
	}
	return false
}

// TestCompileDirectNodeBudget sweeps budgets from 1 KiB to 4 MiB: below
// what 10-queens needs the compile fails with ErrNodeLimit, in the state
// expansion or in the node construction, leaving the Manager as it was;
// from some budget on it succeeds, and so does every larger budget. No
// budget makes it take much longer than the compile with room to spare
// (ten times, or a second), however loaded the machine.
func TestCompileDirectNodeBudget(t *testing.T) {
	model := configuratortest.Model(t, 10, configurator.RowMajor)
	start := time.Now()
	if _, err := CompileDirect(context.Background(), robdd.New(model.Vars(), 64<<20), model); err != nil {
		t.Fatal(err)
	}
	bound := max(time.Second, 10*time.Since(start))
	succeeded := false
	for budget := int64(1 << 10); budget <= 4<<20; budget = budget * 5 / 4 {
		m := robdd.New(model.Vars(), budget)
		start := time.Now()
		root, err := CompileDirect(context.Background(), m, model)
		if elapsed := time.Since(start); elapsed > bound {
			t.Errorf("budget %d: %v to answer, want at most %v", budget, elapsed, bound)
		}
		if !budgetStep(t, budget, m, root, err, queensNodes[10], &succeeded) {
			// The Manager is still usable.
			if x, err := m.Var(3); err != nil || m.Level(x) != 3 {
				t.Errorf("budget %d: Var(3) after the failure: %v, %v", budget, x, err)
			}
		}
	}
	if !succeeded {
		t.Error("10-queens failed even with 4 MiB")
	}
}

// TestCompileHonoursTheContext: both paths stop at once on a cancelled
// context and leave nothing but the terminals in the store.
func TestCompileHonoursTheContext(t *testing.T) {
	for _, tt := range []struct {
		name    string
		compile compiler
		n       int
	}{
		{"CompileApply", CompileApply, 8},
		{"CompileDirect", CompileDirect, 10},
	} {
		model := configuratortest.Model(t, tt.n, configurator.RowMajor)
		m := robdd.New(model.Vars(), 0)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := tt.compile(ctx, m, model); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", tt.name, err)
			continue
		}
		if m.Size() != 2 {
			t.Errorf("%s: %d nodes left after the cancelled compile", tt.name, m.Size())
		}
	}
}

// compileShared compiles model with newDirect's knobs set, procs workers
// taking chunk states at a time, into a fresh Manager of the given budget.
func compileShared(ctx context.Context, model *configurator.Model, procs, chunk int, budget int64) (*robdd.Manager, robdd.Node, error) {
	d := newDirect(model)
	d.procs, d.chunk = procs, chunk
	m := robdd.New(model.Vars(), budget)
	root, _, err := d.compile(ctx, m)
	return m, root, err
}

// TestCompileDirectSharesWorkDeterministically: however many workers
// expand the buckets, in chunks of whatever size, the compile gives the
// very diagram of the sequential one, byte for byte once saved.
func TestCompileDirectSharesWorkDeterministically(t *testing.T) {
	type board struct {
		n     int
		order configurator.Order
	}
	boards := []board{{9, configurator.RowMajor}}
	for _, o := range configurator.Orders() {
		boards = append(boards, board{6, o})
	}
	for _, bd := range boards {
		n, o := bd.n, bd.order
		model := configuratortest.Model(t, n, o)
		file := func(procs, chunk int) []byte {
			m, root, err := compileShared(context.Background(), model, procs, chunk, 0)
			if err != nil {
				t.Fatalf("%v %d-queens, %d workers, chunks of %d: %v", o, n, procs, chunk, err)
			}
			var buf bytes.Buffer
			if err := m.Save(&buf, root); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
		want := file(1, 0)
		for _, c := range []struct{ procs, chunk int }{
			{1, 3}, {2, 0}, {2, 1}, {2, 7}, {3, 5}, {8, 64},
		} {
			if got := file(c.procs, c.chunk); !bytes.Equal(got, want) {
				t.Errorf("%v %d-queens, %d workers, chunks of %d: a different diagram from the sequential one", o, n, c.procs, c.chunk)
			}
		}
	}
}

// TestCompileDirectLineMasksChangeNothing: settle and fits find the lines
// to look at from per-cell masks when there are at most 64 lines; the
// line-by-line scans they replace (the path of larger models) must find
// the same states, level by level, and so the same diagram.
func TestCompileDirectLineMasksChangeNothing(t *testing.T) {
	for _, o := range configurator.Orders() {
		for _, n := range []int{7, 9} {
			model := configuratortest.Model(t, n, o)
			build := func(masks bool) ([]int, []byte) {
				d := newDirect(model)
				if !d.masks {
					t.Fatalf("%v %d-queens: no line masks", o, n)
				}
				d.masks = masks
				for k := range d.families {
					d.families[k].masks = masks
				}
				m := robdd.New(model.Vars(), 0)
				root, st, err := d.compile(context.Background(), m)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := m.Save(&buf, root); err != nil {
					t.Fatal(err)
				}
				return st.states, buf.Bytes()
			}
			states, file := build(true)
			scanStates, scanFile := build(false)
			if !slices.Equal(states, scanStates) {
				t.Errorf("%v %d-queens: states per level %v with masks, %v by scans", o, n, states, scanStates)
			}
			if !bytes.Equal(file, scanFile) {
				t.Errorf("%v %d-queens: a different diagram with masks than by scans", o, n)
			}
		}
	}
}

// cancelAfter is a context whose Err reports context.Canceled from its
// calls-th call on: a cancellation at a chosen point of a compile.
type cancelAfter struct {
	context.Context
	calls atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.calls.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCompileDirectStopsMidway cancels a shared compile at points spread
// over the whole build, the expansion and the node construction, and
// sweeps budgets: each stops with the cause, and no node is made.
func TestCompileDirectStopsMidway(t *testing.T) {
	model := configuratortest.Model(t, 8, configurator.RowMajor)
	// How many looks at the context a whole compile takes.
	count := &cancelAfter{Context: context.Background()}
	count.calls.Store(1 << 40)
	if _, _, err := compileShared(count, model, 2, 5, 0); err != nil {
		t.Fatal(err)
	}
	looks := int64(1<<40) - count.calls.Load()
	if looks < 100 {
		t.Fatalf("%d looks at the context in a whole compile", looks)
	}
	for _, at := range []int64{0, 1, looks / 10, looks / 2, looks * 9 / 10, looks - 1} {
		ctx := &cancelAfter{Context: context.Background()}
		ctx.calls.Store(at)
		m, _, err := compileShared(ctx, model, 2, 5, 0)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled at look %d of %d: %v", at, looks, err)
		}
		if m.Size() != 2 {
			t.Errorf("cancelled at look %d of %d: %d nodes left", at, looks, m.Size())
		}
	}
	succeeded := false
	for budget := int64(1 << 10); budget <= 1<<20; budget *= 2 {
		m, root, err := compileShared(context.Background(), model, 2, 5, budget)
		budgetStep(t, budget, m, root, err, queensNodes[8], &succeeded)
	}
	if !succeeded {
		t.Error("8-queens failed even with 1 MiB")
	}
}

// TestCompileDirectIntoAFullManager: compiled into a Manager that already
// holds the diagram (made by CompileApply), CompileDirect finds every node
// and makes none.
func TestCompileDirectIntoAFullManager(t *testing.T) {
	for n := 1; n <= 8; n++ {
		model := configuratortest.Model(t, n, configurator.RowMajor)
		m, apply := compileFresh(t, CompileApply, model)
		apply = m.Compact(apply)[0] // the store holds the diagram alone
		size := m.Size()
		direct, err := CompileDirect(context.Background(), m, model)
		if err != nil {
			t.Fatal(err)
		}
		if direct != apply || m.Size() != size {
			t.Errorf("%d-queens: direct root %d, apply root %d; %d nodes after, %d before", n, direct, apply, m.Size(), size)
		}
	}
}

func TestCompileDirectRejectsWrongManager(t *testing.T) {
	model := configuratortest.Model(t, 4, configurator.RowMajor)
	if _, err := CompileDirect(context.Background(), robdd.New(15, 0), model); err == nil {
		t.Fatal("CompileDirect of 16 variables into a robdd.Manager of 15: no error")
	}
}

// BenchmarkCompileDirect is the quick profile target; benchmarks/ has the
// comparison with the apply path and rudd.
func BenchmarkCompileDirect(b *testing.B) {
	benchCompile(b, CompileDirect, 10, 12)
}

// benchCompile measures compile on the N-Queens boards of the given sizes,
// row-major, each into a fresh manager.
func benchCompile(b *testing.B, compile compiler, sizes ...int) {
	for _, n := range sizes {
		model := configuratortest.Model(b, n, configurator.RowMajor)
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			for b.Loop() {
				m := robdd.New(model.Vars(), 0)
				if _, err := compile(context.Background(), m, model); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCompileDirectTakesTurns: a compile that shares the cores of its
// Backend's heavy work (Options.SpareCore) gives the very diagram of the
// sequential one, however many cores there are to share and however
// small its pieces of work, and does nothing while the other heavy work
// holds every core: it waits for its turns.
func TestCompileDirectTakesTurns(t *testing.T) {
	model := configuratortest.Model(t, 9, configurator.RowMajor)
	save := func(m *robdd.Manager, root robdd.Node) []byte {
		var buf bytes.Buffer
		if err := m.Save(&buf, root); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	m, root, err := compileShared(context.Background(), model, 1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := save(m, root)
	for _, c := range []struct{ heavy, procs, chunk int }{
		{1, 0, 0}, {1, 4, 3}, {2, 0, 0}, {2, 4, 5}, {3, 3, 7},
	} {
		w := newWorkspace(1<<20, c.heavy)
		d := newDirect(model)
		d.procs, d.chunk, d.share = c.procs, c.chunk, w
		// The other heavy work holds every core: the compile waits.
		if err := w.cores.Acquire(context.Background(), int64(c.heavy)); err != nil {
			t.Fatal(err)
		}
		m := robdd.New(model.Vars(), 0)
		done := make(chan error, 1)
		var root robdd.Node
		go func() {
			var err error
			root, _, err = d.compile(context.Background(), m)
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("%+v: the compile ended (%v) while every core was held", c, err)
		case <-time.After(200 * time.Millisecond):
		}
		w.cores.Release(int64(c.heavy))
		if err := <-done; err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if got := m.SatCount(root); got.Cmp(big.NewInt(queensSolutions[9-1])) != 0 {
			t.Errorf("%+v: %v solutions of 9-queens, want %d", c, got, queensSolutions[9-1])
		}
		if !bytes.Equal(save(m, root), want) {
			t.Errorf("%+v: a different diagram from the sequential one", c)
		}
	}
}

// TestCompileDirectCountPastUint64: a board without constraints has 2^(n²)
// solutions; the count the compile makes along with its nodes gives up
// (nil) once it passes 64 bits, and is exact below.
func TestCompileDirectCountPastUint64(t *testing.T) {
	for _, n := range []int{7, 8, 9} {
		model, err := configurator.Custom(n, configurator.RowMajor, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, count, err := compileDirect(context.Background(), robdd.New(model.Vars(), 0), model, nil)
		switch want := new(big.Int).Lsh(big.NewInt(1), uint(n*n)); {
		case err != nil:
			t.Fatal(err)
		case n*n < 64 && (count == nil || count.Cmp(want) != 0):
			t.Errorf("%d×%d without constraints: counted %v, want %v", n, n, count, want)
		case n*n >= 64 && count != nil:
			t.Errorf("%d×%d without constraints: counted %v, want nothing past 64 bits (%v)", n, n, count, want)
		}
	}
}
