package robdd

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkReorderer checks the invariants of a reordering in progress, whose
// external references are roots and the held roots: every live node is on
// the list of its level and in the unique table (under its variable's
// hash), once; its children are live and lie below it; no two live nodes
// are equal (canonicity); the reference counts and sizes are those the
// live nodes and roots give; and the order is a permutation.
func checkReorderer(t *testing.T, r *reorderer, roots []Node) {
	t.Helper()
	m := r.m
	ref := make([]uint32, len(m.nodes))
	onList := make([]bool, len(m.nodes))
	seen := make(map[[3]uint32]uint32)
	live := 0
	for l := range m.vars {
		size := 0
		for id := r.head[l]; id != 0; id = r.lnext[id] {
			if onList[id] {
				t.Fatalf("node %d twice on the lists", id)
			}
			onList[id] = true
			if r.ref[id] == 0 {
				continue // dead, its slot not yet freed
			}
			n := m.nodes[id]
			if n.level != uint32(l) {
				t.Fatalf("node %d of level %d on the list of level %d", id, n.level, l)
			}
			for _, c := range []uint32{n.lo, n.hi} {
				if m.nodes[c].level <= n.level || c > uint32(True) && r.ref[c] == 0 {
					t.Fatalf("node %d at level %d: child %d at level %d, references %d", id, l, c, m.nodes[c].level, r.ref[c])
				}
				ref[c]++
			}
			if n.lo == n.hi {
				t.Fatalf("node %d: equal children %d", id, n.lo)
			}
			key := [3]uint32{n.level, n.lo, n.hi}
			if other, ok := seen[key]; ok {
				t.Fatalf("nodes %d and %d are equal (level %d, %d, %d)", other, id, n.level, n.lo, n.hi)
			}
			seen[key] = id
			if got, ok := r.mk(n.level, n.lo, n.hi); !ok || got != id {
				t.Fatalf("node %d is not found in the unique table (found %d)", id, got)
			}
			size++
		}
		if size != r.size[l] {
			t.Fatalf("level %d: %d live nodes, size says %d", l, size, r.size[l])
		}
		live += size
	}
	if live != r.live {
		t.Fatalf("%d live nodes, live says %d", live, r.live)
	}
	for _, x := range append(slices.Clone(roots), m.held...) {
		ref[x]++
	}
	chained := 0
	for i := 2; i < len(m.nodes); i++ {
		if r.ref[i] > 0 && !onList[i] {
			t.Fatalf("live node %d on no list", i)
		}
		if onList[i] && r.ref[i] > 0 && ref[i] != r.ref[i] {
			t.Fatalf("node %d: %d references, counted %d", i, r.ref[i], ref[i])
		}
		if r.ref[i] == 0 && ref[i] != 0 {
			t.Fatalf("dead node %d is referred to %d times", i, ref[i])
		}
	}
	for _, head := range m.buckets {
		for id := head; id != 0; id = m.nodes[id].next {
			if r.ref[id] == 0 {
				t.Fatalf("dead node %d in the unique table", id)
			}
			chained++
		}
	}
	if chained != live {
		t.Fatalf("%d nodes in the unique table, %d live", chained, live)
	}
	for l, v := range r.varAt {
		if r.levelOf[v] != uint32(l) {
			t.Fatalf("order: variable %d at level %d, levelOf says %d", v, l, r.levelOf[v])
		}
	}
}

// evalDuring evaluates f at the assignment x (bit v: variable v) in the
// middle of a reordering.
func evalDuring(r *reorderer, f Node, x int) bool {
	for f > True {
		n := r.m.nodes[f]
		if x>>r.varAt[n.level]&1 == 1 {
			f = Node(n.hi)
		} else {
			f = Node(n.lo)
		}
	}
	return f == True
}

// checkOrdered checks what a Manager outside a reordering holds once roots
// are its only roots: exactly the nodes they reach, children before
// parents, grouped by level, the deepest first, and each root the
// canonical node of its table.
func checkOrdered(t *testing.T, m *Manager, roots []Node, tables []table) {
	t.Helper()
	reached := make(map[Node]bool)
	for i, r := range roots {
		if !slices.Equal(tableOf(m, r), tables[i]) {
			t.Fatalf("root %d: its function changed", i)
		}
		if c := fromTable(t, m, tables[i]); c != r {
			t.Fatalf("root %d: node %d, canonical node %d", i, r, c)
		}
		m.reach(r, func(n Node) { reached[n] = true })
	}
	for i := 2; i < m.Size(); i++ {
		n := Node(i)
		if m.Low(n) >= n || m.High(n) >= n {
			t.Fatalf("node %d has a child with a larger id", i)
		}
		if i > 2 && m.Level(n) > m.Level(n-1) {
			t.Fatalf("node %d at level %d after node %d at level %d: not grouped deepest first", i, m.Level(n), i-1, m.Level(n-1))
		}
	}
	if got := m.Size() - 2; got > len(reached) {
		t.Fatalf("%d decision nodes, the roots reach %d", got, len(reached))
	}
}

// randomRoots builds count random formulas over vars variables in m and
// returns some of them (sharing nodes, as they were built in one Manager)
// and their tables.
func randomRoots(t *testing.T, rng *rand.Rand, m *Manager, vars, count int) ([]Node, []table) {
	var roots []Node
	var tables []table
	for range count {
		f := randFormula(rng, vars, 5)
		n := mustBuild(t, m, f)
		if rng.IntN(2) == 0 {
			roots = append(roots, n)
			tables = append(tables, f.eval(vars))
		}
	}
	return roots, tables
}

// TestSwapsKeepEveryFunction makes random sequences of adjacent swaps on
// diagrams of many random roots sharing nodes, checking after every swap
// the reorderer's invariants and every root's function by its truth
// table, and after the reordering the renumbered Manager.
func TestSwapsKeepEveryFunction(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	for trial := range 80 {
		vars := 2 + trial%11
		m := New(vars, 0)
		roots, tables := randomRoots(t, rng, m, vars, 16)
		r, kept := m.newReorderer(roots)
		checkReorderer(t, r, kept)
		for s := range 30 {
			i := rng.IntN(vars - 1)
			if err := r.swap(i); err != nil {
				t.Fatal(err)
			}
			checkReorderer(t, r, kept)
			for k, root := range kept {
				for x, want := range tables[k] {
					if evalDuring(r, root, x) != want {
						t.Fatalf("trial %d, swap %d (levels %d, %d): root %d differs at %b", trial, s, i, i+1, k, x)
					}
				}
			}
		}
		kept = r.finish(kept)
		checkOrdered(t, m, kept, tables)
		// The operations work in the new order: the cache was dropped.
		f := randFormula(rng, vars, 6)
		if n := mustBuild(t, m, f); !slices.Equal(tableOf(m, n), f.eval(vars)) || n != fromTable(t, m, f.eval(vars)) {
			t.Fatalf("trial %d: an operation after the swaps computed a wrong function", trial)
		}
	}
}

// pairs builds x1∧y1 ∨ ... ∨ xn∧yn with xi variable i-1 and yi variable
// n+i-1: in the identity order x1..xn y1..yn it has 2^(n+1)-2 decision
// nodes, interleaved (x1 y1 x2 y2 ...) 2n.
func pairs(t testing.TB, m *Manager, n int) Node {
	f := False
	for i := range n {
		x, err := m.Var(i)
		if err != nil {
			t.Fatal(err)
		}
		y, err := m.Var(n + i)
		if err != nil {
			t.Fatal(err)
		}
		xy, err := m.And(ctx, x, y)
		if err == nil {
			f, err = m.Or(ctx, f, xy)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// pairsTable is the truth table of pairs(n).
func pairsTable(n int) table {
	tt := make(table, 1<<(2*n))
	for x := range tt {
		tt[x] = x&(x>>n)&(1<<n-1) != 0
	}
	return tt
}

func TestSiftingReachesTheInterleavedOrder(t *testing.T) {
	for n := 1; n <= 9; n++ {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			m := New(2*n, 0)
			f := pairs(t, m, n)
			if got, want := m.NodeCount(f), 1<<(n+1)-2; got != want {
				t.Fatalf("x1..xn y1..yn: %d nodes, want %d", got, want)
			}
			kept, err := m.Reorder(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			f = kept[0]
			if got, want := m.NodeCount(f), 2*n; got != want {
				t.Fatalf("after sifting: %d nodes in the order %v, want %d", got, m.Order(), want)
			}
			if got, want := m.Size(), 2*n+2; got != want {
				t.Errorf("after sifting the store holds %d nodes, want %d", got, want)
			}
			// Each x is next to its y.
			for i := range n {
				if d := m.LevelOf(i) - m.LevelOf(n+i); d != 1 && d != -1 {
					t.Errorf("x%d at level %d, y%d at %d", i+1, m.LevelOf(i), i+1, m.LevelOf(n+i))
				}
			}
			if n <= 6 {
				checkOrdered(t, m, kept, []table{pairsTable(n)})
			}
		})
	}
}

// queens builds the n-queens constraint with the operations, the cell
// (r, c) as variable r·n+c, and returns its root.
func queens(t testing.TB, m *Manager, n int) Node {
	and := func(f, g Node) Node {
		r, err := m.And(ctx, f, g)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	cell := func(r, c int) Node {
		x, err := m.Var(r*n + c)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	f := True
	for r := range n {
		row := False
		for c := range n {
			// The queen at (r, c) and nothing it attacks.
			q := cell(r, c)
			for r2 := range n {
				for c2 := range n {
					if (r2 != r || c2 != c) && (r2 == r || c2 == c || r2-c2 == r-c || r2+c2 == r+c) {
						nx, _ := m.NVar(r2*n + c2)
						q = and(q, nx)
					}
				}
			}
			var err error
			if row, err = m.Or(ctx, row, q); err != nil {
				t.Fatal(err)
			}
		}
		f = and(f, row)
	}
	return f
}

// TestQueensThroughReordering moves the n-queens diagram to random orders
// and sifts it: the solutions, the valid domains and the marginals stay
// those of the puzzle (OEIS A000170), sifting never leaves more nodes than
// it found, and the row-major order gives back the very diagram it had.
func TestQueensThroughReordering(t *testing.T) {
	tests := []struct {
		n         int
		solutions int64
	}{{4, 2}, {5, 10}, {6, 4}, {7, 40}}
	for _, tt := range tests {
		t.Run(fmt.Sprint("n=", tt.n), func(t *testing.T) {
			vars := tt.n * tt.n
			m := New(vars, 0)
			f := queens(t, m, tt.n)
			f = m.Compact(f)[0]
			size := m.NodeCount(f)
			dom0, _ := m.ValidDomains(f, nil)
			ones0, _ := m.Marginals(f, nil)
			a := m.NewAssignment()
			a[vars/2] = 1 // a queen in the middle row
			cnt0 := m.Count(f, a)
			rng := rand.New(rand.NewPCG(uint64(tt.n), 5))
			for round := range 3 {
				kept, err := m.SetOrder(ctx, rng.Perm(vars), f)
				if err != nil {
					t.Fatal(err)
				}
				before := m.NodeCount(kept[0])
				if kept, err = m.Reorder(ctx, kept[0]); err != nil {
					t.Fatal(err)
				}
				f = kept[0]
				if after := m.NodeCount(f); after > before {
					t.Errorf("round %d: sifting went from %d nodes to %d", round, before, after)
				}
				if got := m.SatCount(f).Int64(); got != tt.solutions {
					t.Fatalf("round %d: %d solutions, want %d", round, got, tt.solutions)
				}
				if dom, _ := m.ValidDomains(f, nil); !slices.Equal(dom, dom0) {
					t.Errorf("round %d: valid domains %v, want %v", round, dom, dom0)
				}
				if ones, _ := m.Marginals(f, nil); !slices.EqualFunc(ones, ones0, func(x, y *big.Int) bool { return x.Cmp(y) == 0 }) {
					t.Errorf("round %d: marginals %v, want %v", round, ones, ones0)
				}
				if c := m.Count(f, a); c.Cmp(cnt0) != 0 {
					t.Errorf("round %d: %v solutions with the queen, want %v", round, c, cnt0)
				}
				if sol, ok := m.AnySat(f, a); !ok || !isQueens(sol, tt.n) || !sol[vars/2] {
					t.Errorf("round %d: AnySat gave %v, %v", round, sol, ok)
				}
			}
			kept, err := m.SetOrder(ctx, m.identity(), f)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.NodeCount(kept[0]); got != size {
				t.Errorf("back in row-major order: %d nodes, want the %d it had", got, size)
			}
		})
	}
}

// identity is the identity order of m's variables.
func (m *Manager) identity() []int {
	order := make([]int, m.vars)
	for i := range order {
		order[i] = i
	}
	return order
}

// isQueens reports whether sol, by cell r·n+c, places n queens that do not
// attack one another.
func isQueens(sol []bool, n int) bool {
	var rows, cols []int
	for v, q := range sol {
		if q {
			rows, cols = append(rows, v/n), append(cols, v%n)
		}
	}
	if len(rows) != n {
		return false
	}
	for i := range rows {
		for j := range i {
			dr, dc := rows[i]-rows[j], cols[i]-cols[j]
			if dr == 0 || dc == 0 || dr == dc || dr == -dc {
				return false
			}
		}
	}
	return true
}

// TestQueriesAfterSifting compares the queries by variable before and after
// sifting random functions from random orders.
func TestQueriesAfterSifting(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	for trial := range 60 {
		vars := 2 + trial%10
		m := New(vars, 0)
		roots, tables := randomRoots(t, rng, m, vars, 8)
		roots = append(roots, True)
		tables = append(tables, slices.Repeat(table{true}, 1<<vars))
		kept, err := m.SetOrder(ctx, rng.Perm(vars), roots...)
		if err != nil {
			t.Fatal(err)
		}
		var as []Assignment
		for range 4 {
			as = append(as, randAssignment(rng, vars))
		}
		type answers struct {
			count   string
			ones    []string
			dom     []Domain
			profile int
		}
		ask := func(roots []Node) []answers {
			var out []answers
			for _, f := range roots {
				for _, a := range as {
					ones, total := m.Marginals(f, a)
					dom, count := m.ValidDomains(f, a)
					if count.Cmp(total) != 0 || count.Cmp(m.Count(f, a)) != 0 {
						t.Fatalf("trial %d: counts disagree: %v, %v, %v", trial, count, total, m.Count(f, a))
					}
					var os []string
					for _, o := range ones {
						os = append(os, o.String())
					}
					out = append(out, answers{count.String(), os, dom, 0})
				}
			}
			return out
		}
		before := ask(kept)
		after, err := m.Reorder(ctx, kept...)
		if err != nil {
			t.Fatal(err)
		}
		if got := ask(after); !slices.EqualFunc(got, before, func(x, y answers) bool {
			return x.count == y.count && slices.Equal(x.ones, y.ones) && slices.Equal(x.dom, y.dom)
		}) {
			t.Fatalf("trial %d: the answers changed with sifting", trial)
		}
		checkOrdered(t, m, after, tables)
		for k, f := range after {
			for _, a := range as {
				b := bruteForce(tables[k], vars, a)
				if c := m.Count(f, a); c.Int64() != int64(b.count) {
					t.Fatalf("trial %d: Count %v, brute force %d", trial, c, b.count)
				}
			}
		}
	}
}

// TestReorderUnderATightBudget checks that a reordering that needs more
// nodes than the budget allows stops with ErrNodeLimit and leaves every
// function as it was, and the Manager usable.
func TestReorderUnderATightBudget(t *testing.T) {
	const n = 6
	tests := []struct {
		name    string
		reorder func(m *Manager, f Node) ([]Node, error)
	}{
		{"sifting in a full store", func(m *Manager, f Node) ([]Node, error) {
			return m.Reorder(ctx, f)
		}},
		{"to the exponential order", func(m *Manager, f Node) ([]Node, error) {
			return m.SetOrder(ctx, m.identity(), f)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The interleaved order, copied into a budget of its nodes:
			// 2n, the terminals and a few to spare.
			built := New(2*n, 0)
			order := make([]int, 0, 2*n)
			for i := range n {
				order = append(order, i, n+i)
			}
			built.setOrder(toUint32(order))
			m, f, err := built.Extract(ctx, pairs(t, built, n), nil, (2*n+2+4)*BytesPerNode)
			if err != nil {
				t.Fatal(err)
			}
			if m.NodeCount(f) != 2*n || !slices.Equal(m.Order(), order) {
				t.Fatalf("interleaved: %d nodes, order %v", m.NodeCount(f), m.Order())
			}
			if tt.name == "sifting in a full store" {
				// The worst order the budget holds: nothing spare.
				kept, err := m.SetOrder(ctx, []int{0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 11, 5}, f)
				if err != nil {
					t.Fatal(err)
				}
				f = kept[0]
				m.maxNodes = m.Size()
			}
			kept, err := tt.reorder(m, f)
			if !errors.Is(err, ErrNodeLimit) {
				t.Fatalf("err = %v, want ErrNodeLimit", err)
			}
			if m.Size() > m.MaxNodes() {
				t.Fatalf("%d nodes in a budget of %d", m.Size(), m.MaxNodes())
			}
			checkOrdered(t, m, kept, []table{pairsTable(n)})
			if got := m.SatCount(kept[0]); got.Cmp(m.Count(kept[0], nil)) != 0 || got.Int64() != int64(countTrue(pairsTable(n))) {
				t.Errorf("SatCount %v after the failure", got)
			}
			g, err := m.And(ctx, kept[0], kept[0])
			if err != nil || g != kept[0] {
				t.Errorf("And after the failure: %d, %v", g, err)
			}
		})
	}
}

func toUint32(order []int) []uint32 {
	out := make([]uint32, len(order))
	for i, v := range order {
		out[i] = uint32(v)
	}
	return out
}

func countTrue(tt table) int {
	n := 0
	for _, v := range tt {
		if v {
			n++
		}
	}
	return n
}

// FuzzSwap runs the stack machine of FuzzOps (over 2 to 12 variables) with
// one more instruction: a byte 0xfk swaps adjacent levels 1+k%4 times, at
// levels drawn from k, in a reordering of the stack's diagrams. After
// every swap the reorderer's invariants and every function on the stack
// are checked, and after the reordering the renumbered Manager, whose
// operations the rest of the program goes on with.
func FuzzSwap(f *testing.F) {
	f.Add([]byte{3, 0x01, 0x12, 0x43, 0xf0, 0x54, 0xf5})
	f.Add([]byte{10, 0x10, 0x25, 0x81, 0x39, 0x92, 0xf3, 0xa3, 0xb4, 0xfe, 0xc5, 0xd6, 0xe7, 0xff})
	f.Add([]byte{11, 0x01, 0x02, 0x03, 0x84, 0x85, 0x96, 0xf1, 0xa7, 0xb8, 0xf9, 0xfa, 0xfb})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) == 0 || len(prog) > 64 {
			return
		}
		mc := newMachine(t, 2+int(prog[0])%11)
		for i, b := range prog[1:] {
			if b>>4 != 0xf {
				mc.step(i, b)
				continue
			}
			k := int(b & 15)
			r, kept := mc.m.newReorderer(mc.roots())
			for s := range 1 + k%4 {
				l := (k + 5*s) % (mc.vars - 1)
				if err := r.swap(l); err != nil {
					t.Fatal(err)
				}
				checkReorderer(t, r, kept)
				for j, root := range kept {
					for x, want := range mc.stack[j].t {
						if evalDuring(r, root, x) != want {
							t.Fatalf("step %d, swap of levels %d, %d: item %d differs at %b", i, l, l+1, j, x)
						}
					}
				}
			}
			mc.renumbered(r.finish(kept))
			checkOrdered(t, mc.m, mc.roots(), mc.tables())
		}
	})
}

// TestFailedSwapChangesNothing makes random swaps in a store with little
// room: a swap that fails with ErrNodeLimit must leave the order, the
// sizes, the invariants and every function as they were.
func TestFailedSwapChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 24))
	failed := 0
	for trial := range 60 {
		vars := 3 + trial%10
		m := New(vars, 0)
		roots, tables := randomRoots(t, rng, m, vars, 12)
		r, kept := m.newReorderer(roots)
		m.maxNodes = len(m.nodes) + trial%4
		for range 30 {
			i := rng.IntN(vars - 1)
			order, live := slices.Clone(r.varAt), r.live
			err := r.swap(i)
			checkReorderer(t, r, kept)
			if err != nil {
				if !errors.Is(err, ErrNodeLimit) {
					t.Fatal(err)
				}
				failed++
				if !slices.Equal(r.varAt, order) || r.live != live {
					t.Fatalf("trial %d: a failed swap of levels %d, %d changed the order (%v, was %v) or the size (%d, was %d)", trial, i, i+1, r.varAt, order, r.live, live)
				}
			}
			if len(m.nodes) > m.maxNodes {
				t.Fatalf("trial %d: %d nodes in a budget of %d", trial, len(m.nodes), m.maxNodes)
			}
			for k, root := range kept {
				for x, want := range tables[k] {
					if evalDuring(r, root, x) != want {
						t.Fatalf("trial %d: root %d differs at %b", trial, k, x)
					}
				}
			}
		}
		checkOrdered(t, m, r.finish(kept), tables)
	}
	if failed < 50 {
		t.Errorf("only %d swaps failed: the test is too lenient", failed)
	}
}

// TestReorderALoadedDiagram sifts a diagram that Load rebuilt, which holds
// no unique table, and one that a LevelBuilder made, whose table is stale.
func TestReorderALoadedDiagram(t *testing.T) {
	const n = 5
	m := New(2*n, 0)
	f := pairs(t, m, n)
	loaded, roots, err := Load(bytes.NewReader(saved(t, m, f)), 0)
	if err != nil {
		t.Fatal(err)
	}
	b := loaded.NewLevelBuilder() // a second copy of x0 ∧ x9, bottom-up
	out := make([]Node, 1)
	if err := b.MakeLevel(2*n-1, []Node{False}, []Node{True}, out); err != nil {
		t.Fatal(err)
	}
	if err := b.MakeLevel(0, []Node{False}, []Node{out[0]}, out); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	kept, err := loaded.Reorder(ctx, roots[0], out[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.NodeCount(kept[0]); got != 2*n {
		t.Errorf("%d nodes after sifting, want %d", got, 2*n)
	}
	corners := make(table, 1<<(2*n))
	for x := range corners {
		corners[x] = x&1 == 1 && x>>(2*n-1)&1 == 1
	}
	checkOrdered(t, loaded, kept, []table{pairsTable(n), corners})
	x0, _ := loaded.Var(0)
	x9, _ := loaded.Var(2*n - 1)
	if and, _ := loaded.And(ctx, x0, x9); and != kept[1] {
		t.Errorf("x0 ∧ x9 is node %d, the builder's copy %d", and, kept[1])
	}
}
