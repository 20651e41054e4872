package robdd

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// brute is what enumeration of a truth table says about a function under
// a partial assignment.
type brute struct {
	count int
	ones  []int    // per variable: solutions with the variable true
	dom   []Domain // per variable: values taken in some solution
	sols  [][]bool // the solutions, lexicographic by variable, false first
	seen  map[int]bool
}

func bruteForce(tf table, vars int, a Assignment) brute {
	b := brute{ones: make([]int, vars), dom: make([]Domain, vars), seen: make(map[int]bool)}
	for x, v := range tf {
		if !v || a != nil && !agrees(a, x) {
			continue
		}
		b.count++
		b.seen[x] = true
		sol := make([]bool, vars)
		for l := range vars {
			sol[l] = x>>l&1 == 1
			if sol[l] {
				b.ones[l]++
				b.dom[l] |= CanBeTrue
			} else {
				b.dom[l] |= CanBeFalse
			}
		}
		b.sols = append(b.sols, sol)
	}
	slices.SortFunc(b.sols, compareSolutions)
	return b
}

// domains is what ValidDomains must answer under a: the values each
// variable takes in some solution, and an assigned variable's value.
func (b brute) domains(a Assignment) []Domain {
	want := b.dom
	if b.count > 0 {
		for l, v := range a {
			if v == 0 || v == 1 {
				want[l] = Domain(1 << v)
			}
		}
	}
	return want
}

// randomCases are trials random cases (randomCase), drawn from a generator
// seeded with seed, each under perCase random assignments (randAssignment),
// one in nilOneIn of them nil: nothing assigned.
type randomCases struct {
	seed                      uint64
	trials, perCase, nilOneIn int
}

// run calls check on every case under every one of its assignments.
func (rc randomCases) run(t *testing.T, check func(trial int, m *Manager, f Node, tf table, a Assignment)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(rc.seed, rc.seed))
	for trial := range rc.trials {
		m, f, tf := randomCase(t, rng, trial)
		for range rc.perCase {
			a := randAssignment(rng, m.Vars())
			if rng.IntN(rc.nilOneIn) == 0 {
				a = nil
			}
			check(trial, m, f, tf, a)
		}
	}
}

// compareSolutions orders solutions lexicographically by variable, false
// before true.
func compareSolutions(x, y []bool) int {
	for l := range x {
		if x[l] != y[l] {
			if y[l] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// solutionIndex is the table index of a solution.
func solutionIndex(sol []bool) int {
	x := 0
	for l, v := range sol {
		if v {
			x |= 1 << l
		}
	}
	return x
}

// randomCase draws a manager, a formula's diagram and its truth table.
// Every other case uses only a few of the variables, so that the diagram
// has long edges over the others; in every third case the variables are
// then moved to a random order (drawn from a generator of the trial's own,
// so that rng draws the same cases whatever the order), so that the
// queries' answers by variable are checked apart from their sweeps by
// level.
func randomCase(t *testing.T, rng *rand.Rand, trial int) (*Manager, Node, table) {
	t.Helper()
	vars := 1 + trial%10
	m := New(vars, 0)
	f := randFormula(rng, vars, 6)
	if trial%2 == 1 {
		f = sparse(rng, f, vars)
	}
	n := mustBuild(t, m, f)
	if trial%3 == 2 {
		order := rand.New(rand.NewPCG(uint64(trial), 3)).Perm(vars)
		kept, err := m.SetOrder(ctx, order, n)
		if err != nil {
			t.Fatal(err)
		}
		n = kept[0]
	}
	return m, n, f.eval(vars)
}

// sparse renames f's variables onto at most three levels, far apart.
func sparse(rng *rand.Rand, f *formula, vars int) *formula {
	levels := []int{0, vars - 1, rng.IntN(vars)}
	var rename func(f *formula) *formula
	rename = func(f *formula) *formula {
		g := &formula{op: f.op, v: f.v}
		if f.op == "var" {
			g.v = levels[f.v%len(levels)]
		}
		for _, a := range f.args {
			g.args = append(g.args, rename(a))
		}
		return g
	}
	return rename(f)
}

func TestSatCountKnownFunctions(t *testing.T) {
	pow2 := func(k uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), k) }
	tests := []struct {
		name  string
		vars  int
		build func(m *Manager) (Node, error)
		want  *big.Int
	}{
		{"false", 10, func(*Manager) (Node, error) { return False, nil }, big.NewInt(0)},
		{"true over no variables", 0, func(*Manager) (Node, error) { return True, nil }, big.NewInt(1)},
		{"true over 10", 10, func(*Manager) (Node, error) { return True, nil }, big.NewInt(1024)},
		{"true over 100", 100, func(*Manager) (Node, error) { return True, nil }, pow2(100)},
		{"x0 over 100", 100, func(m *Manager) (Node, error) { return m.Var(0) }, pow2(99)},
		{"x99 over 100", 100, func(m *Manager) (Node, error) { return m.Var(99) }, pow2(99)},
		{"x0 and x99 over 100", 100, func(m *Manager) (Node, error) {
			x, _ := m.Var(0)
			y, _ := m.Var(99)
			return m.And(ctx, x, y)
		}, pow2(98)},
		{"x0 or x99 over 64", 64, func(m *Manager) (Node, error) {
			x, _ := m.Var(0)
			y, _ := m.Var(63)
			return m.Or(ctx, x, y)
		}, new(big.Int).Mul(big.NewInt(3), pow2(62))},
		{"x3 and not x7 over 10", 10, func(m *Manager) (Node, error) {
			x, _ := m.Var(3)
			y, _ := m.NVar(7)
			return m.And(ctx, x, y)
		}, big.NewInt(256)},
		{"parity of 100", 100, func(m *Manager) (Node, error) {
			levels := make([]int, 100)
			for i := range levels {
				levels[i] = i
			}
			return parity(m, levels)
		}, pow2(99)},
		{"parity of levels 10..19 of 70", 70, func(m *Manager) (Node, error) {
			return parity(m, []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
		}, pow2(69)},
	}
	for _, tt := range tests {
		m := New(tt.vars, 0)
		f, err := tt.build(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.SatCount(f); got.Cmp(tt.want) != 0 {
			t.Errorf("%s: SatCount = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCountsMatchBruteForce(t *testing.T) {
	randomCases{seed: 6, trials: 300, perCase: 5, nilOneIn: 4}.run(t, func(trial int, m *Manager, f Node, tf table, a Assignment) {
		vars := m.Vars()
		all := bruteForce(tf, vars, nil)
		if got := m.SatCount(f); got.Int64() != int64(all.count) {
			t.Fatalf("trial %d: SatCount = %v, want %d", trial, got, all.count)
		}
		b := bruteForce(tf, vars, a)
		name := fmt.Sprintf("trial %d, assignment %v", trial, a)
		if got := m.Count(f, a); got.Int64() != int64(b.count) {
			t.Fatalf("%s: Count = %v, want %d", name, got, b.count)
		}
		ones, total := m.Marginals(f, a)
		checkMarginals(t, name, ones, total, b)
		// The math/big path must agree on the same cases.
		ones, total = marginalsBig(m, f, a)
		checkMarginals(t, name+" (big)", ones, total, b)
	})
}

// marginalsBig runs Marginals' downward sweep in math/big whatever the
// total.
func marginalsBig(m *Manager, f Node, a Assignment) ([]*big.Int, *big.Int) {
	p := m.part(f, a)
	defer p.Release()
	c := p.countUp(false)
	ones, total := p.marginalsBig(&c)
	return byVar(m, ones), total
}

func checkMarginals(t *testing.T, name string, ones []*big.Int, total *big.Int, b brute) {
	t.Helper()
	if total.Int64() != int64(b.count) {
		t.Fatalf("%s: total %v, want %d", name, total, b.count)
	}
	for l, o := range ones {
		if o.Int64() != int64(b.ones[l]) {
			t.Fatalf("%s: level %d true in %v solutions, want %d", name, l, o, b.ones[l])
		}
	}
}

func TestMarginalsBeyond64Bits(t *testing.T) {
	pow2 := func(k uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), k) }
	times := func(k int64, x *big.Int) *big.Int { return new(big.Int).Mul(big.NewInt(k), x) }
	m := New(100, 0)
	x, _ := m.Var(0)
	y, _ := m.Var(99)
	f, _ := m.Or(ctx, x, y) // 3·2^98 solutions
	tests := []struct {
		name  string
		a     Assignment
		total *big.Int
		ones  map[int]*big.Int
	}{
		{"free", nil, times(3, pow2(98)), map[int]*big.Int{0: pow2(99), 50: times(3, pow2(97)), 99: pow2(99)}},
		{"x50 true", only(m, 50, 1), times(3, pow2(97)), map[int]*big.Int{0: pow2(98), 50: times(3, pow2(97)), 51: times(3, pow2(96)), 99: pow2(98)}},
		{"x99 false", only(m, 99, 0), pow2(98), map[int]*big.Int{0: pow2(98), 1: pow2(97), 99: big.NewInt(0)}},
	}
	for _, tt := range tests {
		ones, total := m.Marginals(f, tt.a)
		if total.Cmp(tt.total) != 0 {
			t.Errorf("%s: total %v, want %v", tt.name, total, tt.total)
		}
		for l, want := range tt.ones {
			if ones[l].Cmp(want) != 0 {
				t.Errorf("%s: level %d true in %v, want %v", tt.name, l, ones[l], want)
			}
		}
		if c := m.Count(f, tt.a); c.Cmp(tt.total) != 0 {
			t.Errorf("%s: Count %v, want %v", tt.name, c, tt.total)
		}
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	tests := []struct {
		x    uint64
		f    int32
		want uint64
	}{
		{0, 100, 0},
		{1, 0, 1},
		{1, 63, 1 << 63},
		{1, 64, sat},
		{3, 63, sat},
		{3, 62, 3 << 62},
		{sat, 0, sat},
		{sat, 1, sat},
	}
	for _, tt := range tests {
		if got := shl(tt.x, tt.f); got != tt.want {
			t.Errorf("shl(%d, %d) = %d, want %d", tt.x, tt.f, got, tt.want)
		}
	}
	if add(sat-1, 1) != sat || add(sat-2, 1) != sat-1 || add(sat, 0) != sat || add(1<<63, 1<<63) != sat {
		t.Error("add does not saturate at math.MaxUint64")
	}
}

// TestCountsOutgrowUint64NodeByNode checks the sweep up beyond 64 bits,
// sparse and dense: when the root's count outgrows them, every node's
// that does is kept exact in math/big; when only nodes the assignment cuts
// off do (x1 ∨ x99 under x0 true), the total is still exact.
func TestCountsOutgrowUint64NodeByNode(t *testing.T) {
	m := New(100, 0)
	x0, _ := m.Var(0)
	x1, _ := m.Var(1)
	x99, _ := m.Var(99)
	h, _ := m.Or(ctx, x1, x99) // over levels 1..99: 3·2^97 solutions
	nx0, _ := m.Not(ctx, x0)
	f, _ := m.And(ctx, nx0, h)
	hCount := new(big.Int).Lsh(big.NewInt(3), 97)
	tests := []struct {
		name  string
		a     Assignment
		total *big.Int
	}{
		{"free", nil, hCount},
		{"x0 true", only(m, 0, 1), big.NewInt(0)},
		{"x1 true", only(m, 1, 1), new(big.Int).Lsh(big.NewInt(1), 98)},
	}
	for _, tt := range tests {
		for _, limit := range []int{0, 1 << 20} {
			p := partWithin(m, f, tt.a, limit)
			c := p.countUp(false)
			if got := c.scaled(p.root(), p.v.free[m.Level(f)]); got.Cmp(tt.total) != 0 {
				t.Errorf("%s, limit %d: total %v, want %v", tt.name, limit, got, tt.total)
			}
			if p.whole && tt.a == nil {
				if got := c.exact(h); got.Cmp(hCount) != 0 {
					t.Errorf("%s, limit %d: x1 ∨ x99 counts %v, want %v", tt.name, limit, got, hCount)
				}
			}
			p.Release()
		}
	}
}

// TestCountOfTheRootAloneDropsNoCountStillRead: a count of the root alone,
// which drops each node's exact count once its last parent has read it,
// equals the count that keeps every node's, on random conjunctions of
// clauses over 150 variables, each over six neighbours (so that the
// diagram stays small), whose counts pass 64 bits at most nodes, under
// random assignments.
func TestCountOfTheRootAloneDropsNoCountStillRead(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(4, 150))
	const vars = 150
	for trial := range 20 {
		m := New(vars, 0)
		f := True
		for range 40 + trial*3 {
			c, base := False, rng.IntN(vars-6)
			for range 3 {
				x, _ := m.Var(base + rng.IntN(6))
				if rng.IntN(2) == 0 {
					x, _ = m.Not(ctx, x)
				}
				c, _ = m.Or(ctx, c, x)
			}
			f, _ = m.And(ctx, f, c)
		}
		for k := range 4 {
			var a Assignment
			if k > 0 {
				a = m.NewAssignment()
				for range k * 5 {
					a[rng.IntN(vars)] = int8(rng.IntN(2))
				}
			}
			p := m.part(f, a)
			all := p.countUp(false)
			root := p.root()
			want := new(big.Int).Set(all.scaled(root, 0))
			saturated := len(all.big)
			once := p.countUp(true)
			got := once.scaled(root, 0)
			p.Release()
			if got.Cmp(want) != 0 {
				t.Fatalf("trial %d, assignment %d: the root alone counts %v, all the nodes %v", trial, k, got, want)
			}
			if k == 0 && saturated == 0 {
				t.Fatalf("trial %d: no count passed 64 bits", trial)
			}
		}
	}
}
