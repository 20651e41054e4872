package robdd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// sift runs one sifting of m's diagrams of roots as s says, and returns the
// roots' new ids and the swaps it made.
func sift(m *Manager, s Sifting, roots ...Node) ([]Node, int, error) {
	r, kept := m.newReorderer(roots)
	sf := newSifter(ctx, r, s)
	err := sf.sift()
	return r.finish(kept), r.swaps, err
}

// scrambled is the diagram of the n-queens constraint (built in a Manager
// of its own) in a random order drawn from seed.
func scrambled(t *testing.T, n int, seed uint64) (*Manager, Node) {
	t.Helper()
	m := New(n*n, 0)
	f := queens(t, m, n)
	kept, err := m.SetOrder(ctx, rand.New(rand.NewPCG(seed, 1)).Perm(n*n), f)
	if err != nil {
		t.Fatal(err)
	}
	return m, kept[0]
}

// rows are the variables of the n-queens board, a group a row.
func rows(n int) [][]int {
	var groups [][]int
	for r := range n {
		var g []int
		for c := range n {
			g = append(g, r*n+c)
		}
		groups = append(groups, g)
	}
	return groups
}

// TestGroupSifting checks that group sifting keeps every group on adjacent
// levels in the order given and every function intact, and that on the
// 8-queens board in a scrambled order, with the rows as groups, it leaves
// fewer nodes than sifting the variables alone does.
func TestGroupSifting(t *testing.T) {
	const n = 8
	m, f := scrambled(t, n, 8)
	alone, _, err := sift(m, Sifting{}, f)
	if err != nil {
		t.Fatal(err)
	}
	plain := m.NodeCount(alone[0])
	m, f = scrambled(t, n, 8)
	s := Sifting{Groups: rows(n)}
	if err := m.SetSifting(s); err != nil {
		t.Fatal(err)
	}
	kept, err := m.Reorder(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	grouped := m.NodeCount(kept[0])
	if grouped >= plain {
		t.Errorf("8 queens: %d nodes after group sifting by rows, %d after sifting variables", grouped, plain)
	}
	for _, g := range s.Groups {
		for k, v := range g {
			if m.LevelOf(v) != m.LevelOf(g[0])+k {
				t.Fatalf("group %v apart in the order %v", g, m.Order())
			}
		}
	}
	if got := m.SatCount(kept[0]).Int64(); got != 92 {
		t.Errorf("%d solutions of 8 queens after group sifting, want 92", got)
	}
}

// TestSiftingBounds checks the bounds of a sifting: a swap limit (the
// block that moves may go back to its best place past it, at most a swap
// per level), a time limit, and a cancelled context, which stops at once
// with its error; each leaves the functions intact.
func TestSiftingBounds(t *testing.T) {
	const n = 6
	full := func() int {
		m, f := scrambled(t, n, 2)
		_, swaps, err := sift(m, Sifting{}, f)
		if err != nil {
			t.Fatal(err)
		}
		return swaps
	}()
	done, cancel := context.WithCancel(ctx)
	cancel()
	tests := []struct {
		name      string
		ctx       context.Context
		s         Sifting
		err       error
		mostSwaps int
	}{
		{"no bound", ctx, Sifting{}, nil, full},
		{"10 swaps", ctx, Sifting{MaxSwaps: 10}, nil, 10 + n*n},
		{"100 swaps", ctx, Sifting{MaxSwaps: 100}, nil, 100 + n*n},
		{"growth 1", ctx, Sifting{MaxGrowth: 1}, nil, full},
		{"one variable", ctx, Sifting{MaxVars: 1}, nil, 3 * n * n},
		{"a nanosecond", ctx, Sifting{MaxTime: time.Nanosecond}, nil, n * n},
		{"cancelled", done, Sifting{}, context.Canceled, 0},
	}
	for _, tt := range tests {
		m, f := scrambled(t, n, 2)
		before := m.NodeCount(f)
		r, kept := m.newReorderer([]Node{f})
		sf := newSifter(tt.ctx, r, tt.s)
		err := sf.sift()
		swaps := r.swaps
		kept = r.finish(kept)
		if !errors.Is(err, tt.err) || err == nil && tt.err != nil {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.err)
		}
		if swaps > tt.mostSwaps {
			t.Errorf("%s: %d swaps, at most %d expected", tt.name, swaps, tt.mostSwaps)
		}
		if got := m.SatCount(kept[0]).Int64(); got != 4 {
			t.Errorf("%s: %d solutions of 6 queens", tt.name, got)
		}
		if after := m.NodeCount(kept[0]); after > before {
			t.Errorf("%s: %d nodes after sifting, %d before", tt.name, after, before)
		}
	}
}

// TestAutomaticReordering builds x1∧y1 ∨ ... ∨ xn∧yn in the order
// x1..xn y1..yn, exponential, with automatic reordering on: the growth
// makes the operations sift, the held root follows the renumbering, and
// the diagram ends linear. A budget too small for the exponential order
// fails without it and succeeds with it, by the reordering and second run
// of an operation that ran out of room.
func TestAutomaticReordering(t *testing.T) {
	const n = 12
	build := func(t *testing.T, m *Manager) (Node, error) {
		acc := m.Hold(False)
		defer acc.Release()
		for i := range n {
			x, err := m.Var(i)
			if err != nil {
				return False, err
			}
			y, err := m.Var(n + i)
			if err != nil {
				return False, err
			}
			xy, err := m.And(ctx, x, y)
			if err != nil {
				return False, err
			}
			f, err := m.Or(ctx, acc.Node(), xy)
			if err != nil {
				return False, err
			}
			acc.Set(f)
		}
		return acc.Node(), nil
	}
	tests := []struct {
		name   string
		budget int
		s      Sifting
		nodes  int   // of the result; 0: within the budget
		err    error // of the build
	}{
		{"off", 0, Sifting{}, 1<<(n+1) - 2, nil},
		{"at 64 nodes", 0, Sifting{Auto: 64}, 2 * n, nil},
		{"off, 512 nodes", 512, Sifting{}, 0, ErrNodeLimit},
		// Sifted once, when the store is full: the variables that no
		// diagram tested yet stay where sifting left them.
		{"when out of room, 512 nodes", 512, Sifting{Auto: 1 << 30}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(2*n, int64(tt.budget)*BytesPerNode)
			if err := m.SetSifting(tt.s); err != nil {
				t.Fatal(err)
			}
			f, err := build(t, m)
			if !errors.Is(err, tt.err) || err == nil && tt.err != nil {
				t.Fatalf("build: %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			if got := m.NodeCount(f); got != tt.nodes && (tt.nodes != 0 || got > tt.budget) {
				t.Errorf("%d nodes, want %d (budget %d)", got, tt.nodes, tt.budget)
			}
			// Exactly the pairs' solutions: 4^n - 3^n.
			want := int64(1)<<(2*n) - pow(3, n)
			if got := m.SatCount(f).Int64(); got != want {
				t.Errorf("%d solutions, want %d", got, want)
			}
			dom, _ := m.ValidDomains(f, only(m, n, 0)) // y1 false: x1 free
			if dom[0] != CanBeFalse|CanBeTrue || dom[n] != CanBeFalse {
				t.Errorf("domains of x1, y1 under y1 false: %v, %v", dom[0], dom[n])
			}
		})
	}
}

func pow(b, e int64) int64 {
	r := int64(1)
	for range e {
		r *= b
	}
	return r
}

// TestHeldRootsSurviveRenumbering checks that Compact, CompactFrom,
// Reorder and SetOrder keep the held roots and update them, and that a
// released root is collected.
func TestHeldRootsSurviveRenumbering(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	const vars = 8
	m := New(vars, 0)
	fs := []*formula{randFormula(rng, vars, 6), randFormula(rng, vars, 6), randFormula(rng, vars, 6)}
	var held []Root
	for _, f := range fs {
		held = append(held, m.Hold(mustBuild(t, m, f)))
	}
	check := func(step string) {
		t.Helper()
		for i, h := range held {
			if !slices.Equal(tableOf(m, h.Node()), fs[i].eval(vars)) {
				t.Fatalf("%s: held root %d changed its function", step, i)
			}
		}
	}
	mustBuild(t, m, randFormula(rng, vars, 6)) // garbage
	m.Compact()
	check("Compact")
	m.CompactFrom(m.Size() / 2)
	check("CompactFrom")
	if _, err := m.Reorder(ctx); err != nil {
		t.Fatal(err)
	}
	check("Reorder")
	if _, err := m.SetOrder(ctx, rng.Perm(vars)); err != nil {
		t.Fatal(err)
	}
	check("SetOrder")
	size := m.Size()
	held[2].Release()
	fs, held = fs[:2], held[:2]
	m.Compact()
	if m.Size() > size {
		t.Errorf("%d nodes after the release, %d before", m.Size(), size)
	}
	check("Release")
	// A released slot is reused.
	h := m.Hold(True)
	if h.i != 2 || h.Node() != True {
		t.Errorf("Hold after Release: slot %d, node %d", h.i, h.Node())
	}
}

// TestVariablesAfterReordering checks the methods that name variables in a
// Manager whose order is not the identity: Var, NVar, Restrict, Exists,
// Extract, WriteDOT, and the order's accessors.
func TestVariablesAfterReordering(t *testing.T) {
	m := New(3, 0)
	x0, _ := m.Var(0)
	x2, _ := m.NVar(2)
	f, _ := m.And(ctx, x0, x2) // x0 ∧ ¬x2
	kept, err := m.SetOrder(ctx, []int{2, 0, 1}, f)
	if err != nil {
		t.Fatal(err)
	}
	f = kept[0]
	if got := m.Order(); !slices.Equal(got, []int{2, 0, 1}) {
		t.Fatalf("Order = %v", got)
	}
	for v, l := range []int{1, 2, 0} {
		if m.LevelOf(v) != l || m.VarAt(l) != v {
			t.Errorf("variable %d: LevelOf %d, VarAt(%d) = %d", v, m.LevelOf(v), l, m.VarAt(l))
		}
	}
	if m.Level(f) != 0 || m.VarAt(m.Level(f)) != 2 {
		t.Errorf("the root tests the variable at level %d, %d", m.Level(f), m.VarAt(m.Level(f)))
	}
	x1, _ := m.Var(1)
	if m.Level(x1) != 2 || m.High(x1) != True {
		t.Errorf("Var(1) at level %d", m.Level(x1))
	}
	// x0 ∧ ¬x2 with x0 true is ¬x2; with x2 quantified it is x0.
	a := m.NewAssignment()
	a[0] = 1
	if r, err := m.Restrict(ctx, f, a); err != nil || !slices.Equal(tableOf(m, r), table{true, true, true, true, false, false, false, false}) {
		t.Errorf("Restrict(x0 true) = %v, %v", tableOf(m, r), err)
	}
	if e, err := m.Exists(ctx, f, 2); err != nil || !slices.Equal(tableOf(m, e), table{false, true, false, true, false, true, false, true}) {
		t.Errorf("Exists x2 = %v, %v", tableOf(m, e), err)
	}
	if _, err := m.Exists(ctx, f, 3); err == nil {
		t.Error("Exists of variable 3 of 3: no error")
	}
	dst, g, err := m.Extract(ctx, f, nil, 0)
	if err != nil || !slices.Equal(dst.Order(), m.Order()) || !slices.Equal(tableOf(dst, g), tableOf(m, f)) {
		t.Errorf("Extract: order %v, err %v", dst.Order(), err)
	}
	var b strings.Builder
	if err := m.WriteDOT(&b, f, nil); err != nil || !strings.Contains(b.String(), `[label="x2"]; }`) ||
		strings.Index(b.String(), `"x2"`) > strings.Index(b.String(), `"x0"`) {
		t.Errorf("WriteDOT names by variable, the top level first:\n%s", b.String())
	}
	var file bytes.Buffer
	if err := m.Save(&file, f); err != nil {
		t.Errorf("Save of a reordered Manager: %v", err)
	} else if got, roots, err := Load(&file, 0); err != nil || !slices.Equal(got.Order(), m.Order()) || !slices.Equal(tableOf(got, roots[0]), tableOf(m, f)) {
		t.Errorf("Load of a reordered Manager's file: order %v, err %v", got.Order(), err)
	}
	bad := [][]int{{0, 1}, {0, 1, 1}, {0, 1, 3}, {-1, 0, 1}}
	for _, order := range bad {
		if _, err := m.SetOrder(ctx, order, f); err == nil {
			t.Errorf("SetOrder(%v): no error", order)
		}
	}
}

// TestSiftingFewVariables checks that a sifting bounded to k variables
// moves those k alone, the ones whose levels hold the most nodes: the
// order after it is the order before with k variables taken out and put
// back elsewhere.
func TestSiftingFewVariables(t *testing.T) {
	const n = 6
	for _, k := range []int{1, 2, 5} {
		m, f := scrambled(t, n, 3)
		before := m.Order()
		sizes := make([]int, n*n) // nodes at each level
		for id := Node(2); int(id) < m.Size(); id++ {
			sizes[m.Level(id)]++
		}
		levels := make([]int, n*n)
		for l := range levels {
			levels[l] = l
		}
		slices.SortStableFunc(levels, func(a, b int) int { return sizes[b] - sizes[a] })
		heaviest := map[int]bool{}
		for _, l := range levels[:k] {
			heaviest[before[l]] = true
		}
		kept, _, err := sift(m, Sifting{MaxVars: k}, f)
		if err != nil {
			t.Fatal(err)
		}
		others := func(order []int) []int {
			return slices.DeleteFunc(slices.Clone(order), func(v int) bool { return heaviest[v] })
		}
		if !slices.Equal(others(before), others(m.Order())) {
			t.Errorf("%d variables: the order went from %v to %v, moving others than %v", k, before, m.Order(), heaviest)
		}
		if got := m.SatCount(kept[0]).Int64(); got != 4 {
			t.Errorf("%d variables: %d solutions of 6 queens", k, got)
		}
	}
}

func TestSetSiftingRefusesBadSettings(t *testing.T) {
	m := New(4, 0)
	bad := []Sifting{
		{Auto: -1},
		{MaxSwaps: -1},
		{MaxTime: -time.Second},
		{MaxVars: -1},
		{MaxGrowth: 0.5},
		{Groups: [][]int{{}}},
		{Groups: [][]int{{0, 4}}},
		{Groups: [][]int{{0, 1}, {1, 2}}},
	}
	for _, s := range bad {
		if err := m.SetSifting(s); err == nil {
			t.Errorf("SetSifting(%+v): no error", s)
		}
	}
	if err := m.SetSifting(Sifting{MaxGrowth: 1.5, Groups: [][]int{{3, 0}}}); err != nil {
		t.Errorf("a good setting refused: %v", err)
	}
}

// FuzzSift builds diagrams with the stack machine of FuzzOps (over 2 to 12
// variables), moves them to an order drawn from the input, and sifts them
// with bounds drawn from its last four bytes: the swaps (0: none), the
// growth, the room left in the budget (255: no budget), and groups of
// adjacent variables of a size. The sifting must end without error or
// with ErrNodeLimit, within the budget, with every function and count as
// before, the groups together, and, without groups, no more nodes than
// it found.
func FuzzSift(f *testing.F) {
	f.Add([]byte{3, 0x01, 0x12, 0x43, 0x54, 0, 0, 255, 0})
	f.Add([]byte{10, 0x10, 0x25, 0x81, 0x39, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 3, 64, 255, 2})
	f.Add([]byte{11, 0x01, 0x02, 0x03, 0x84, 0x85, 0x96, 0xa7, 0xb8, 0x19, 0x2a, 0x6b, 0, 0, 1, 7})
	f.Add([]byte{12, 0x01, 0x12, 0x23, 0x34, 0x45, 0x56, 0x67, 0x78, 0x89, 0x9a, 0xab, 0x64, 0x65, 0x66, 0, 200, 0, 5})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 5 || len(prog) > 68 {
			return
		}
		bounds := prog[len(prog)-4:]
		vars := 2 + int(prog[0])%11
		mc := newMachine(t, vars)
		for i, b := range prog[1 : len(prog)-4] {
			mc.step(i, b)
		}
		m := mc.m
		rng := rand.New(rand.NewPCG(uint64(bounds[3]), uint64(len(prog))))
		kept, err := m.SetOrder(ctx, rng.Perm(vars), mc.roots()...)
		if err != nil {
			t.Fatal(err)
		}
		mc.renumbered(kept)
		s := Sifting{MaxSwaps: int(bounds[0]), MaxGrowth: 1 + float64(bounds[1])/64}
		if size := 1 + int(bounds[3])%4; size > 1 {
			for v := 0; v+size <= vars; v += size {
				g := make([]int, size)
				for k := range g {
					g[k] = v + size - 1 - k // downwards, against the identity
				}
				s.Groups = append(s.Groups, g)
			}
		}
		if err := m.SetSifting(s); err != nil {
			t.Fatal(err)
		}
		if bounds[2] != 255 {
			m.maxNodes = m.Size() + int(bounds[2])
		}
		var counts []int64
		for _, it := range mc.stack {
			counts = append(counts, m.SatCount(it.n).Int64())
		}
		before := m.Size()
		kept, err = m.Reorder(ctx, mc.roots()...)
		if err != nil && !errors.Is(err, ErrNodeLimit) {
			t.Fatalf("Reorder: %v", err)
		}
		if m.Size() > m.MaxNodes() {
			t.Fatalf("%d nodes in a budget of %d", m.Size(), m.MaxNodes())
		}
		mc.renumbered(kept)
		checkOrdered(t, m, kept, mc.tables())
		for k, it := range mc.stack {
			if got := m.SatCount(it.n).Int64(); got != counts[k] || got != int64(countTrue(it.t)) {
				t.Fatalf("item %d: %d solutions after sifting, %d before", k, got, counts[k])
			}
		}
		if err != nil {
			return
		}
		if s.Groups == nil && m.Size() > before {
			t.Fatalf("sifting went from %d nodes to %d", before, m.Size())
		}
		for _, g := range s.Groups {
			for k, v := range g {
				if m.LevelOf(v) != m.LevelOf(g[0])+k {
					t.Fatalf("group %v apart in the order %v", g, m.Order())
				}
			}
		}
	})
}

// BenchmarkSiftQueens sifts the n-queens diagram from a scrambled order
// (the same for every iteration), and reports the nodes before and after
// and the swaps.
func BenchmarkSiftQueens(b *testing.B) {
	for _, n := range []int{8, 9} {
		built := New(n*n, 0)
		f := queens(b, built, n)
		kept, err := built.SetOrder(ctx, rand.New(rand.NewPCG(uint64(n), 1)).Perm(n*n), f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			var before, after, swaps int
			for b.Loop() {
				m, g, err := built.Extract(ctx, kept[0], nil, 0)
				if err != nil {
					b.Fatal(err)
				}
				before = m.NodeCount(g)
				r, roots := m.newReorderer([]Node{g})
				if err := newSifter(ctx, r, Sifting{}).sift(); err != nil {
					b.Fatal(err)
				}
				swaps = r.swaps
				after = m.NodeCount(r.finish(roots)[0])
			}
			b.ReportMetric(float64(before), "nodes-before")
			b.ReportMetric(float64(after), "nodes-after")
			b.ReportMetric(float64(swaps), "swaps")
		})
	}
}

// TestReorderOfFewVariables reorders Managers of no variable, one and two,
// whose diagrams have nothing to sift.
func TestReorderOfFewVariables(t *testing.T) {
	for vars := range 3 {
		m := New(vars, 0)
		kept, err := m.Reorder(ctx, True, False)
		if err != nil || !slices.Equal(kept, []Node{True, False}) {
			t.Errorf("%d variables: Reorder(True, False) = %v, %v", vars, kept, err)
		}
		if _, err := m.SetOrder(ctx, m.identity()); err != nil || m.Size() != 2 {
			t.Errorf("%d variables: SetOrder: %v, %d nodes", vars, err, m.Size())
		}
	}
}
