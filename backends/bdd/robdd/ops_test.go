package robdd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// ctx is the context of the tests' operations, which never end it.
var ctx = context.Background()

// table is a truth table over a manager's variables: t[x] is the value of
// the function at the assignment x, whose bit v is variable v.
type table []bool

// restrict is the table of the function with the variables a assigns set
// to their values.
func (tf table) restrict(a Assignment) table {
	out := make(table, len(tf))
	for x := range out {
		y := x
		for l, v := range a {
			switch v {
			case 0:
				y &^= 1 << l
			case 1:
				y |= 1 << l
			}
		}
		out[x] = tf[y]
	}
	return out
}

// exists is the table of the function with level l quantified away.
func (tf table) exists(l int) table {
	out := make(table, len(tf))
	for x := range out {
		out[x] = tf[x&^(1<<l)] || tf[x|1<<l]
	}
	return out
}

// tableOf evaluates the diagram of f at every assignment.
func tableOf(m *Manager, f Node) table {
	t := make(table, 1<<m.Vars())
	for x := range t {
		n := f
		for n > True {
			if x>>m.VarAt(m.Level(n))&1 == 1 {
				n = m.High(n)
			} else {
				n = m.Low(n)
			}
		}
		t[x] = n == True
	}
	return t
}

// fromTable builds the diagram of t by Shannon expansion with MakeNode
// alone, in the Manager's order: an independent route to the canonical
// node.
func fromTable(t *testing.T, m *Manager, tt table) Node {
	t.Helper()
	var build func(level, x int) Node
	build = func(level, x int) Node {
		if level == m.Vars() {
			if tt[x] {
				return True
			}
			return False
		}
		lo := build(level+1, x)
		hi := build(level+1, x|1<<m.VarAt(level))
		n, err := m.MakeNode(level, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return build(0, 0)
}

// formula is a random Boolean formula.
type formula struct {
	op   string // var, const, not, and, or, xor, imp, ite
	v    int    // the variable, or the constant 0/1
	args []*formula
}

func (f *formula) String() string {
	switch f.op {
	case "var":
		return fmt.Sprintf("x%d", f.v)
	case "const":
		return fmt.Sprint(f.v)
	}
	s := f.op + "("
	for i, a := range f.args {
		if i > 0 {
			s += ", "
		}
		s += a.String()
	}
	return s + ")"
}

var formulaOps = []struct {
	op    string
	arity int
}{{"not", 1}, {"and", 2}, {"or", 2}, {"xor", 2}, {"imp", 2}, {"ite", 3}}

// randFormula draws a formula over vars variables of at most the given
// depth. Leaves are mostly variables, so that the functions are varied.
func randFormula(rng *rand.Rand, vars, depth int) *formula {
	if depth == 0 || rng.IntN(4) == 0 {
		if rng.IntN(10) == 0 {
			return &formula{op: "const", v: rng.IntN(2)}
		}
		return &formula{op: "var", v: rng.IntN(vars)}
	}
	o := formulaOps[rng.IntN(len(formulaOps))]
	f := &formula{op: o.op}
	for range o.arity {
		f.args = append(f.args, randFormula(rng, vars, depth-1))
	}
	return f
}

// eval computes the truth table of f over vars variables directly.
func (f *formula) eval(vars int) table {
	t := make(table, 1<<vars)
	var args []table
	for _, a := range f.args {
		args = append(args, a.eval(vars))
	}
	for x := range t {
		switch f.op {
		case "var":
			t[x] = x>>f.v&1 == 1
		case "const":
			t[x] = f.v == 1
		default:
			t[x] = truth(f.op, args, x)
		}
	}
	return t
}

// truth is the Boolean operation op applied to the arguments' values at x.
func truth(op string, args []table, x int) bool {
	switch op {
	case "not":
		return !args[0][x]
	case "and":
		return args[0][x] && args[1][x]
	case "or":
		return args[0][x] || args[1][x]
	case "xor":
		return args[0][x] != args[1][x]
	case "imp":
		return !args[0][x] || args[1][x]
	case "ite":
		if args[0][x] {
			return args[1][x]
		}
		return args[2][x]
	}
	panic(op)
}

// apply runs the Manager operation named op.
func apply(m *Manager, op string, args []Node) (Node, error) {
	switch op {
	case "not":
		return m.Not(ctx, args[0])
	case "and":
		return m.And(ctx, args[0], args[1])
	case "or":
		return m.Or(ctx, args[0], args[1])
	case "xor":
		return m.Xor(ctx, args[0], args[1])
	case "imp":
		return m.Imp(ctx, args[0], args[1])
	case "ite":
		return m.ITE(ctx, args[0], args[1], args[2])
	}
	panic(op)
}

// build makes the diagram of f with the Manager's operations.
func (f *formula) build(m *Manager) (Node, error) {
	switch f.op {
	case "var":
		return m.Var(f.v)
	case "const":
		return Node(f.v), nil
	}
	var args []Node
	for _, a := range f.args {
		n, err := a.build(m)
		if err != nil {
			return False, err
		}
		args = append(args, n)
	}
	return apply(m, f.op, args)
}

func mustBuild(t *testing.T, m *Manager, f *formula) Node {
	t.Helper()
	n, err := f.build(m)
	if err != nil {
		t.Fatalf("build %v: %v", f, err)
	}
	return n
}

// randomBuilt draws a formula over 1 + trial%10 variables and builds it
// in a manager of its own.
func randomBuilt(t *testing.T, rng *rand.Rand, trial int) (*Manager, *formula, Node) {
	t.Helper()
	vars := 1 + trial%10
	m := New(vars, 0)
	f := randFormula(rng, vars, 6)
	return m, f, mustBuild(t, m, f)
}

// randAssignment assigns each level false, true or nothing with equal odds.
func randAssignment(rng *rand.Rand, vars int) Assignment {
	a := make(Assignment, vars)
	for l := range a {
		a[l] = int8(rng.IntN(3)) - 1
	}
	return a
}

// only is the assignment of m that sets the variable at level l to v
// and leaves the others free.
func only(m *Manager, l int, v int8) Assignment {
	a := m.NewAssignment()
	a[l] = v
	return a
}

// agrees reports whether the full assignment x agrees with a.
func agrees(a Assignment, x int) bool {
	for l, v := range a {
		if (v == 0 || v == 1) && x>>l&1 != int(v) {
			return false
		}
	}
	return true
}

func TestOperationsMatchTruthTables(t *testing.T) {
	for _, o := range formulaOps {
		t.Run(o.op, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(o.op))))
			for trial := range 150 {
				vars := 1 + trial%10
				m := New(vars, 0)
				var args []Node
				var tables []table
				for range o.arity {
					f := randFormula(rng, vars, 5)
					args = append(args, mustBuild(t, m, f))
					tables = append(tables, f.eval(vars))
				}
				got, err := apply(m, o.op, args)
				if err != nil {
					t.Fatal(err)
				}
				want := make(table, 1<<vars)
				for x := range want {
					want[x] = truth(o.op, tables, x)
				}
				if !slices.Equal(tableOf(m, got), want) {
					t.Fatalf("trial %d: %s of %v: truth table differs", trial, o.op, args)
				}
				if c := fromTable(t, m, want); c != got {
					t.Fatalf("trial %d: %s gave node %d, the canonical node is %d", trial, o.op, got, c)
				}
			}
		})
	}
}

func TestEqualFunctionsAreEqualNodes(t *testing.T) {
	m := New(6, 0)
	v := func(l int) Node {
		n, err := m.Var(l)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	must := func(n Node, err error) Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	x, y, z := v(0), v(3), v(5)
	nx, ny := must(m.Not(ctx, x)), must(m.Not(ctx, y))
	tests := []struct {
		name string
		a, b Node
	}{
		{"De Morgan", must(m.Not(ctx, must(m.And(ctx, x, y)))), must(m.Or(ctx, nx, ny))},
		{"double negation", must(m.Not(ctx, nx)), x},
		{"NVar is Not Var", must(m.NVar(3)), ny},
		{"xor by and/or", must(m.Xor(ctx, x, y)), must(m.Or(ctx, must(m.And(ctx, x, ny)), must(m.And(ctx, nx, y))))},
		{"implication", must(m.Imp(ctx, x, y)), must(m.Or(ctx, nx, y))},
		{"distributivity", must(m.And(ctx, x, must(m.Or(ctx, y, z)))), must(m.Or(ctx, must(m.And(ctx, x, y)), must(m.And(ctx, x, z))))},
		{"ite is a mux", must(m.ITE(ctx, x, y, z)), must(m.Or(ctx, must(m.And(ctx, x, y)), must(m.And(ctx, nx, z))))},
		{"commutativity", must(m.And(ctx, z, x)), must(m.And(ctx, x, z))},
		{"tautology", must(m.Or(ctx, x, nx)), True},
		{"contradiction", must(m.And(ctx, y, ny)), False},
		{"xor with itself", must(m.Xor(ctx, z, z)), False},
	}
	for _, tt := range tests {
		if tt.a != tt.b {
			t.Errorf("%s: nodes %d and %d", tt.name, tt.a, tt.b)
		}
	}
	// Random formulas: whatever the construction, a function has one node.
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 300 {
		f := randFormula(rng, 6, 6)
		n := mustBuild(t, m, f)
		if c := fromTable(t, m, f.eval(6)); c != n {
			t.Fatalf("trial %d: %v built node %d, its table node %d", trial, f, n, c)
		}
	}
}

func TestRestrictAndExists(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 200 {
		m, f, n := randomBuilt(t, rng, trial)
		vars := m.Vars()
		tf := f.eval(vars)

		a := randAssignment(rng, vars)
		r, err := m.Restrict(ctx, n, a)
		if err != nil {
			t.Fatal(err)
		}
		want := tf.restrict(a)
		if !slices.Equal(tableOf(m, r), want) {
			t.Fatalf("trial %d: Restrict(%v, %v): truth table differs", trial, f, a)
		}
		if c := fromTable(t, m, want); c != r {
			t.Fatalf("trial %d: Restrict gave node %d, the canonical node is %d", trial, r, c)
		}

		var levels []int
		for l := range vars {
			if rng.IntN(3) == 0 {
				levels = append(levels, l)
			}
		}
		e, err := m.Exists(ctx, n, levels...)
		if err != nil {
			t.Fatal(err)
		}
		want = tf
		for _, l := range levels {
			want = want.exists(l)
		}
		if !slices.Equal(tableOf(m, e), want) {
			t.Fatalf("trial %d: Exists(%v, %v): truth table differs", trial, f, levels)
		}
		if c := fromTable(t, m, want); c != e {
			t.Fatalf("trial %d: Exists gave node %d, the canonical node is %d", trial, e, c)
		}
	}
}

func TestRestrictEdgeCases(t *testing.T) {
	m := New(4, 0)
	x1, _ := m.Var(1)
	x3, _ := m.Var(3)
	f, _ := m.And(ctx, x1, x3)
	tests := []struct {
		name string
		a    Assignment
		want Node
	}{
		{"nil assignment", nil, f},
		{"nothing assigned", Assignment{-1, -1, -1, -1}, f},
		{"only levels f skips", Assignment{1, -1, 0, -1}, f},
		{"x1 true", Assignment{-1, 1, -1, -1}, x3},
		{"x1 false", Assignment{-1, 0, -1, -1}, False},
		{"both true", Assignment{-1, 1, -1, 1}, True},
		{"values other than 0 and 1 are free", Assignment{7, 1, 2, -5}, x3},
	}
	for _, tt := range tests {
		got, err := m.Restrict(ctx, f, tt.a)
		if err != nil || got != tt.want {
			t.Errorf("%s: Restrict = %d, %v; want %d", tt.name, got, err, tt.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Restrict with an assignment of the wrong length did not panic")
		}
	}()
	m.Restrict(ctx, f, Assignment{1})
}

func TestVarRejectsLevelsOutsideTheManager(t *testing.T) {
	m := New(3, 0)
	for _, l := range []int{-1, 3} {
		if _, err := m.Var(l); err == nil {
			t.Errorf("Var(%d) on 3 variables: no error", l)
		}
		if _, err := m.Exists(ctx, True, l); err == nil {
			t.Errorf("Exists(True, %d) on 3 variables: no error", l)
		}
	}
}

// parity builds the exclusive or of the variables at the given levels
// (increasing) directly with MakeNode: two nodes a level but the top one.
func parity(m *Manager, levels []int) (Node, error) {
	even, odd := False, True // the parity of the levels below is even / odd
	for i := len(levels) - 1; i >= 0; i-- {
		e, err := m.MakeNode(levels[i], even, odd)
		if err != nil {
			return False, err
		}
		o, err := m.MakeNode(levels[i], odd, even)
		if err != nil {
			return False, err
		}
		even, odd = e, o
	}
	return odd, nil
}

func TestNodeLimitLeavesTheManagerUsable(t *testing.T) {
	// 200 nodes of budget: the parities of the even and of the odd levels
	// of 40 variables fit (40 nodes each), their conjunction (about 160
	// nodes more) does not.
	m := New(40, 200*BytesPerNode)
	if got := m.MaxNodes(); got != 200 {
		t.Fatalf("MaxNodes = %d, want 200", got)
	}
	var evens, odds []int
	for l := 0; l < 40; l += 2 {
		evens, odds = append(evens, l), append(odds, l+1)
	}
	p, err := parity(m, evens)
	if err != nil {
		t.Fatal(err)
	}
	q, err := parity(m, odds)
	if err != nil {
		t.Fatal(err)
	}
	before := m.Size()
	if _, err := m.And(ctx, p, q); !errors.Is(err, ErrNodeLimit) {
		t.Fatalf("and of the parities with 200 nodes: err = %v, want ErrNodeLimit", err)
	}
	if m.Size() != before {
		t.Fatalf("the failed And left %d nodes, there were %d", m.Size(), before)
	}
	// The manager is whole: old diagrams still mean what they meant, and a
	// smaller operation succeeds.
	if got, want := m.SatCount(p).String(), "549755813888"; got != want { // 2^39
		t.Errorf("SatCount(parity) after the failure = %s, want %s", got, want)
	}
	x0, _ := m.Var(0)
	x39, err := m.Var(39)
	if err != nil {
		t.Fatalf("Var(39) after the failure: %v", err)
	}
	n, err := m.And(ctx, x0, x39)
	if err != nil || m.NodeCount(n) != 2 || m.SatCount(n).Int64() != 1<<38 {
		t.Fatalf("x0 and x39 after the failure: node %d, err %v", n, err)
	}
	r, err := m.Xor(ctx, p, x39)
	if err != nil || m.NodeCount(r) != 41 {
		t.Fatalf("parity(evens) xor x39: %d nodes, err %v; want 41", m.NodeCount(r), err)
	}
}

func TestCompactKeepsFunctionsAndCanonicity(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const vars = 8
	m := New(vars, 0)
	var roots []Node
	var tables []table
	for range 30 {
		f := randFormula(rng, vars, 6)
		n := mustBuild(t, m, f)
		if rng.IntN(3) == 0 {
			roots = append(roots, n)
			tables = append(tables, f.eval(vars))
		}
	}
	before := m.Size()
	kept := m.Compact(roots...)
	if m.Size() >= before {
		t.Errorf("Compact kept %d of %d nodes", m.Size(), before)
	}
	for i, r := range kept {
		if !slices.Equal(tableOf(m, r), tables[i]) {
			t.Fatalf("root %d changed its function", i)
		}
		if c := fromTable(t, m, tables[i]); c != r {
			t.Fatalf("root %d: node %d after Compact, canonical %d", i, r, c)
		}
	}
	// Only what the roots reach is left, and children precede parents.
	reached := make(map[Node]bool)
	for _, r := range kept {
		m.reach(r, func(n Node) { reached[n] = true })
	}
	if got, want := m.Size(), len(reached)+2; got != want {
		t.Errorf("Size after Compact = %d, want %d (reachable + terminals)", got, want)
	}
	for i := 2; i < m.Size(); i++ {
		if n := Node(i); m.Low(n) >= n || m.High(n) >= n {
			t.Fatalf("node %d has a child with a larger id", i)
		}
	}
	// The operations work after Compact (the cache was cleared).
	f := randFormula(rng, vars, 6)
	if n := mustBuild(t, m, f); !slices.Equal(tableOf(m, n), f.eval(vars)) {
		t.Fatal("an operation after Compact computed a wrong function")
	}
}

func TestCompactSparesNodesBelowBase(t *testing.T) {
	m := New(6, 0)
	x0, _ := m.Var(0)
	x5, _ := m.Var(5)
	a, _ := m.And(ctx, x0, x5)
	base := m.Size()
	o, _ := m.Or(ctx, x0, x5)
	_, _ = m.Xor(ctx, a, o)
	kept := m.compact(base, []Node{o})
	if tableOf(m, kept[0])[1] != true || m.Size() != base+1 {
		t.Fatalf("compact from base %d: root %d, size %d", base, kept[0], m.Size())
	}
	if n, _ := m.And(ctx, x0, x5); n != a {
		t.Errorf("a node below base moved: And = %d, was %d", n, a)
	}
}

func TestExtract(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := range 100 {
		m, _, n := randomBuilt(t, rng, trial)
		a := randAssignment(rng, m.Vars())
		want, err := m.Restrict(ctx, n, a)
		if err != nil {
			t.Fatal(err)
		}
		dst, r, err := m.Extract(ctx, n, a, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tableOf(dst, r), tableOf(m, want)) {
			t.Fatalf("trial %d: Extract and Restrict differ", trial)
		}
		if dst.NodeCount(r) != m.NodeCount(want) || dst.Size() != dst.NodeCount(r)+2 {
			t.Fatalf("trial %d: Extract made %d nodes for %d reachable, Restrict's diagram has %d", trial, dst.Size()-2, dst.NodeCount(r), m.NodeCount(want))
		}
	}
	m := New(30, 0)
	p, _ := parity(m, []int{0, 5, 10, 15, 20, 25})
	if _, _, err := m.Extract(ctx, p, nil, 10*BytesPerNode); !errors.Is(err, ErrNodeLimit) {
		t.Errorf("Extract of 11 nodes into 10: err = %v, want ErrNodeLimit", err)
	}
}

// FuzzOps runs a little stack machine (machine) whose program is the fuzz
// input: its first byte chooses the number of variables, and each other
// byte pushes a variable or applies an operation to the top of the stack.
// Every result is checked against its truth table and its canonical node.
func FuzzOps(f *testing.F) {
	f.Add([]byte{3, 0, 1, 2, 3})
	f.Add([]byte{9, 0x10, 0x25, 0x81, 0x39, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7})
	f.Add([]byte{5, 0x01, 0x02, 0x03, 0x84, 0x85, 0x96, 0xa7, 0xb8, 0xf9, 0xfa})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) == 0 || len(prog) > 64 {
			return
		}
		mc := newMachine(t, 1+int(prog[0])%10)
		for i, b := range prog[1:] {
			mc.step(i, b)
		}
	})
}

// machine is the stack machine of the fuzz targets: each byte of a program
// pushes a variable or applies an operation to the top of the stack, whose
// items are diagrams of the machine's Manager and their truth tables.
type machine struct {
	t     *testing.T
	m     *Manager
	vars  int
	stack []item
}

type item struct {
	n Node
	t table
}

func newMachine(t *testing.T, vars int) *machine {
	return &machine{t: t, m: New(vars, 0), vars: vars}
}

// step runs byte b, the i-th of the program: its high four bits choose
// the operation, the low four its argument. A variable is pushed while the
// stack has fewer than three items.
func (mc *machine) step(i int, b byte) {
	t, m, vars := mc.t, mc.m, mc.vars
	pop := func() item {
		it := mc.stack[len(mc.stack)-1]
		mc.stack = mc.stack[:len(mc.stack)-1]
		return it
	}
	op := b >> 4
	arg := int(b & 15)
	var n Node
	var want table
	var err error
	switch {
	case op < 4 || len(mc.stack) < 3:
		v := arg % vars
		n, err = m.Var(v)
		want = (&formula{op: "var", v: v}).eval(vars)
	case op < 10:
		o := formulaOps[op-4]
		var args []Node
		var tables []table
		for range o.arity {
			it := pop()
			args, tables = append(args, it.n), append(tables, it.t)
		}
		n, err = apply(m, o.op, args)
		want = make(table, 1<<vars)
		for x := range want {
			want[x] = truth(o.op, tables, x)
		}
	case op < 13:
		it := pop()
		a := m.NewAssignment()
		a[arg%vars] = int8(op - 10) // 0, 1, or 2 = free
		a[(arg*7+3)%vars] = int8(arg & 1)
		n, err = m.Restrict(ctx, it.n, a)
		want = it.t.restrict(a)
	default:
		it := pop()
		v := arg % vars
		n, err = m.Exists(ctx, it.n, v)
		want = it.t.exists(v)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tableOf(m, n), want) {
		t.Fatalf("step %d (byte %#x): truth table differs", i, b)
	}
	if c := fromTable(t, m, want); c != n {
		t.Fatalf("step %d (byte %#x): node %d, canonical node %d", i, b, n, c)
	}
	mc.stack = append(mc.stack, item{n, want})
}

// roots are the nodes of the stack.
func (mc *machine) roots() []Node {
	var roots []Node
	for _, it := range mc.stack {
		roots = append(roots, it.n)
	}
	return roots
}

// tables are the truth tables of the stack.
func (mc *machine) tables() []table {
	var tables []table
	for _, it := range mc.stack {
		tables = append(tables, it.t)
	}
	return tables
}

// renumbered sets the stack's nodes to roots, their new ids.
func (mc *machine) renumbered(roots []Node) {
	for k, r := range roots {
		mc.stack[k].n = r
	}
}

// TestOperationsHonourTheContext checks that an operation whose context
// ends stops with the context's error and drops the nodes it made: the
// conjunction of x_i ⇔ x_{i+12} for i < 12, in the order x0..x23, needs
// 2^12 nodes a level at the middle, and far more than 16384 steps.
func TestOperationsHonourTheContext(t *testing.T) {
	const half = 12
	m := New(2*half, 0)
	equal := func(lo, hi int) Node {
		x, _ := m.Var(lo)
		y, _ := m.Var(hi)
		n, err := m.Xor(ctx, x, y)
		if err != nil {
			t.Fatal(err)
		}
		n, _ = m.Not(ctx, n)
		return n
	}
	and := func(f, g Node) Node {
		n, err := m.And(ctx, f, g)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	left, right := True, True
	for i := range half / 2 {
		left = and(left, equal(i, i+half))
		right = and(right, equal(i+half/2, i+half/2+half))
	}
	size := m.Size()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.And(done, left, right); !errors.Is(err, context.Canceled) {
		t.Fatalf("And under a cancelled context: %v, want context.Canceled", err)
	}
	if m.Size() != size {
		t.Errorf("the cancelled And left %d nodes, want the %d before it", m.Size(), size)
	}
	all, err := m.And(ctx, left, right)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.SatCount(all).Int64(), int64(1)<<half; got != want {
		t.Errorf("the conjunction has %d solutions, want %d", got, want)
	}
}
