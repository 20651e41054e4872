package feature

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature/featuretest"
)

// encodings are the translations a test forces besides the default one:
// every sub-formula of a disjunction defined by a variable, the ladder for
// every at-most-one, the binary adder for every count.
var encodings = []struct {
	name string
	lim  limits
}{
	{"default", defaultLimits},
	{"tseitin", limits{direct: 1, directLits: 1, pairwise: defaultLimits.pairwise, counter: defaultLimits.counter}},
	{"ladder-counter", limits{direct: 2, directLits: 4, pairwise: 0, counter: defaultLimits.counter}},
	{"adder", limits{direct: defaultLimits.direct, directLits: defaultLimits.directLits, pairwise: 0, counter: 0}},
}

func clausesOf(c *CNF) [][]int {
	out := make([][]int, c.Len())
	for i := range out {
		for _, l := range c.Clause(i) {
			out[i] = append(out[i], int(l))
		}
	}
	return out
}

// checkAgainstValid enumerates every configuration of m and checks that
// the CNF has exactly one model extending it when m.Valid says it is one,
// none otherwise. It returns the number of configurations.
func checkAgainstValid(t *testing.T, m *Model, c *CNF) int {
	t.Helper()
	f := len(m.Features)
	cls := clausesOf(c)
	count := 0
	config := make([]bool, f)
	for bits := 0; bits < 1<<f; bits++ {
		for i := range config {
			config[i] = bits>>i&1 == 1
		}
		want := 0
		if m.Valid(config) {
			want = 1
			count++
		}
		if got := featuretest.Extensions(cls, c.Vars, config, 2); got != want {
			t.Fatalf("configuration %0*b: the CNF has %d models extending it, want %d", f, bits, got, want)
		}
	}
	return count
}

// groupModel is root -> optional p, p heading one group of n children.
func groupModel(t *testing.T, kind GroupKind, n, lo, hi int) *Model {
	t.Helper()
	fs := []Feature{{Name: "root", Parent: -1, Group: -1}, {Name: "p", Parent: 0, Group: 0}}
	gs := []Group{{Kind: GroupOptional, Parent: 0, Children: []int{1}}, {Kind: kind, Parent: 1, Min: lo, Max: hi}}
	for i := range n {
		fs = append(fs, Feature{Name: fmt.Sprintf("c%d", i), Parent: 1, Group: 1})
		gs[1].Children = append(gs[1].Children, 2+i)
	}
	m, err := New(Model{Features: fs, Groups: gs, Root: 0})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// binomial returns n choose k.
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := range k {
		r = r * (n - i) / (i + 1)
	}
	return r
}

// Every kind of group, every bound, every encoding: the CNF has one model
// per configuration, and the configurations number 1 (p off) plus the ways
// of choosing between lo and hi children.
func TestGroupEncodings(t *testing.T) {
	for _, enc := range encodings {
		for n := 1; n <= 7; n++ {
			type bounds struct {
				kind   GroupKind
				lo, hi int
			}
			cases := []bounds{{GroupMandatory, 0, 0}, {GroupOptional, 0, 0}, {GroupOr, 0, 0}, {GroupAlternative, 0, 0}}
			for lo := 0; lo <= n+1; lo++ {
				cases = append(cases, bounds{GroupCardinality, lo, -1})
				for hi := lo; hi <= n+1; hi++ {
					cases = append(cases, bounds{GroupCardinality, lo, hi})
				}
			}
			for _, b := range cases {
				m := groupModel(t, b.kind, n, b.lo, b.hi)
				t.Run(fmt.Sprintf("%s/%s[%d..%d]of%d", enc.name, b.kind, b.lo, b.hi, n), func(t *testing.T) {
					got := checkAgainstValid(t, m, m.cnf(enc.lim))
					lo, hi := m.Groups[1].Bounds()
					want := 1
					for k := lo; k <= hi; k++ {
						want += binomial(n, k)
					}
					if got != want {
						t.Fatalf("%d configurations, want %d", got, want)
					}
				})
			}
		}
	}
}

// A group of 100,000 children (with -short, 10,000) takes clauses in
// proportion to its children, counted by the binary adder (an alternative,
// by its ladder, is in the reader's tests).
func TestLargeGroupsStayLinear(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	for _, tc := range []struct {
		kind    GroupKind
		lo, hi  int
		perItem int
	}{
		{GroupCardinality, n / 2, n * 6 / 10, 40},
	} {
		m := groupModel(t, tc.kind, n, tc.lo, tc.hi)
		c := m.CNF()
		if c.Len() > tc.perItem*n || len(c.lits) > 4*tc.perItem*n {
			t.Errorf("%s [%d..%d] of %d: %d clauses, %d literals; want at most %d clauses", tc.kind, tc.lo, tc.hi, n, c.Len(), len(c.lits), tc.perItem*n)
		}
	}
}

// A group too large to enumerate, counted by each encoding: with the parent
// selected and the children fixed, the CNF has a model exactly when the
// count is within the bounds.
func TestLargeGroupCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200
	for _, enc := range encodings {
		for _, b := range [][2]int{{1, 1}, {0, 1}, {3, 7}, {90, 120}, {150, -1}, {0, 0}} {
			m := groupModel(t, GroupCardinality, n, b[0], b[1])
			c := m.cnf(enc.lim)
			cls := clausesOf(c)
			lo, hi := m.Groups[1].Bounds()
			for _, k := range []int{0, 1, 2, lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, rng.IntN(n + 1)} {
				if k < 0 || k > n {
					continue
				}
				config := make([]bool, n+2)
				config[0], config[1] = true, true
				for _, i := range rng.Perm(n)[:k] {
					config[2+i] = true
				}
				want := 0
				if k >= lo && k <= hi {
					want = 1
				}
				if got := featuretest.Extensions(cls, c.Vars, config, 2); got != want {
					t.Errorf("%s [%d..%d] of %d with %d selected: %d models, want %d", enc.name, lo, hi, n, k, got, want)
				}
			}
		}
	}
}

// convert turns a random expression into an Expr.
func convert(e *featuretest.Expr) *Expr {
	args := make([]*Expr, len(e.Args))
	for i, a := range e.Args {
		args[i] = convert(a)
	}
	switch e.Op {
	case "v":
		return Var(e.V)
	case "!":
		return Not(args[0])
	case "&":
		return And(args...)
	case "|":
		return Or(args...)
	case "=>":
		return Implies(args[0], args[1])
	}
	return Iff(args[0], args[1])
}

// Random constraints, with constants among them, translated with and
// without auxiliary variables: one CNF model per configuration.
func TestConstraintEncodings(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const f = 6
	fs := make([]Feature, f)
	for i := range fs {
		fs[i] = Feature{Name: fmt.Sprintf("x%d", i), Parent: -1, Group: -1}
	}
	for round := range 300 {
		var cs []Constraint
		for range 1 + rng.IntN(3) {
			e := convert(featuretest.RandomExpr(rng, f, 4))
			if rng.IntN(5) == 0 {
				e = Or(e, Const(rng.IntN(2) == 0))
			}
			cs = append(cs, Constraint{Expr: e})
		}
		m, err := New(Model{Features: fs, Root: -1, Constraints: cs})
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range encodings {
			t.Run(fmt.Sprintf("%d/%s", round, enc.name), func(t *testing.T) {
				c := m.cnf(enc.lim)
				checkAgainstValid(t, m, c)
				for i := range c.Len() {
					if o := c.Origin(i); o.Kind != OriginConstraint || o.Index < 0 || o.Index >= len(cs) {
						t.Fatalf("clause %d has origin %+v", i, o)
					}
				}
			})
		}
	}
}

// Constants alone: true adds no clause, false the empty clause.
func TestConstants(t *testing.T) {
	fs := []Feature{{Name: "a", Parent: -1, Group: -1}}
	for _, tc := range []struct {
		e       *Expr
		clauses string
	}{
		{Const(true), ""},
		{Const(false), "[]"},
		{Not(Const(true)), "[]"},
		{Or(Var(0), Const(true)), ""},
		{And(Var(0), Const(true)), "[1]"},
		{Implies(Const(false), Var(0)), ""},
		{Iff(Var(0), Const(false)), "[-1]"},
	} {
		m, err := New(Model{Features: fs, Root: -1, Constraints: []Constraint{{Expr: tc.e}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		c := m.CNF()
		for i := range c.Len() {
			got = append(got, fmt.Sprint(c.Clause(i)))
		}
		if s := strings.Join(got, " "); s != tc.clauses {
			t.Errorf("%+v: clauses %q, want %q", tc.e, s, tc.clauses)
		}
	}
}

// A chain of equivalences, whose distribution doubles at each link, stays
// linear with auxiliary variables.
func TestDeepEquivalenceStaysLinear(t *testing.T) {
	const links = 200
	fs := make([]Feature, links+1)
	for i := range fs {
		fs[i] = Feature{Name: fmt.Sprintf("x%d", i), Parent: -1, Group: -1}
	}
	e := Var(0)
	for i := 1; i <= links; i++ {
		e = Iff(e, Var(i))
	}
	m, err := New(Model{Features: fs, Root: -1, Constraints: []Constraint{{Expr: e}}})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.CNF(); c.Len() > 40*links || c.Vars-c.Features > 2*links {
		t.Errorf("%d links: %d clauses, %d auxiliary variables", links, c.Len(), c.Vars-c.Features)
	}
}

// The direct translation is used while it is small: no auxiliary variable.
func TestDirectWhenSmall(t *testing.T) {
	fs := make([]Feature, 4)
	for i := range fs {
		fs[i] = Feature{Name: fmt.Sprintf("x%d", i), Parent: -1, Group: -1}
	}
	// x0 <=> x1 & x2 & x3: four clauses.
	m, err := New(Model{Features: fs, Root: -1, Constraints: []Constraint{{Expr: Iff(Var(0), And(Var(1), Var(2), Var(3)))}}})
	if err != nil {
		t.Fatal(err)
	}
	c := m.CNF()
	var got []string
	for i := range c.Len() {
		got = append(got, fmt.Sprint(c.Clause(i)))
	}
	if want := "[-1 2] [-1 3] [-1 4] [1 -2 -3 -4]"; strings.Join(got, " ") != want || c.Vars != 4 {
		t.Errorf("clauses %v over %d variables, want %s over 4", got, c.Vars, want)
	}
}

func TestOriginsAndDescribe(t *testing.T) {
	fs := []Feature{
		{Name: "Car", Parent: -1, Group: -1},
		{Name: "Engine", Parent: 0, Group: 0},
		{Name: "Electric", Parent: 1, Group: 1},
		{Name: "Petrol", Parent: 1, Group: 1},
		{Name: "Radio", Parent: 0, Group: 2},
	}
	gs := []Group{
		{Kind: GroupMandatory, Parent: 0, Children: []int{1}},
		{Kind: GroupAlternative, Parent: 1, Children: []int{2, 3}, Pos: Pos{Line: 4, Column: 3}},
		{Kind: GroupOptional, Parent: 0, Children: []int{4}},
	}
	cs := []Constraint{{Expr: Implies(Var(2), Not(Var(4))), Text: "Electric => !Radio", Pos: Pos{Line: 9, Column: 2}}}
	m, err := New(Model{Name: "car", Format: UVL, Features: fs, Groups: gs, Root: 0, Constraints: cs})
	if err != nil {
		t.Fatal(err)
	}
	c := m.CNF()
	var got []string
	for i := range c.Len() {
		got = append(got, fmt.Sprintf("%v: %s", c.Clause(i), m.Describe(c.Origin(i))))
	}
	want := []string{
		`[1]: "Car" is the root: it is always selected`,
		`[-2 1]: "Engine" needs its parent "Car"`,
		`[-3 2]: "Electric" needs its parent "Engine"`,
		`[-4 2]: "Petrol" needs its parent "Engine"`,
		`[-5 1]: "Radio" needs its parent "Car"`,
		`[-1 2]: "Car" needs "Engine" (mandatory)`,
		`[-2 3 4]: "Engine" needs exactly one of "Electric", "Petrol" (alternative group, 4:3)`,
		`[-3 -4]: "Engine" needs exactly one of "Electric", "Petrol" (alternative group, 4:3)`,
		`[-3 -5]: constraint at 9:2: Electric => !Radio`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("clauses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := checkAgainstValid(t, m, c); n != 3 {
		t.Errorf("%d configurations, want 3 (petrol with or without radio, electric)", n)
	}
	if id, ok := m.ID("Petrol"); !ok || id != 3 {
		t.Errorf("ID(Petrol) = %d, %v", id, ok)
	}
	if _, ok := m.ID("Diesel"); ok {
		t.Error("ID(Diesel) found")
	}
}

func TestDescribeClause(t *testing.T) {
	fs := []Feature{{Name: "MMU", Parent: -1, Group: -1}, {Name: "NOMMU", Parent: -1, Group: -1}}
	m, err := New(Model{Format: DIMACS, Features: fs, Root: -1, Clauses: []Clause{{Lits: []Lit{-1, -2}, Line: 7}, {Line: 8}}})
	if err != nil {
		t.Fatal(err)
	}
	c := m.CNF()
	for i, want := range []string{"clause at line 7: !MMU | !NOMMU", "clause at line 8: (empty: never satisfied)"} {
		if got := m.Describe(c.Origin(i)); got != want {
			t.Errorf("Describe(%+v) = %q, want %q", c.Origin(i), got, want)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	f := func(name string, parent, group int) Feature { return Feature{Name: name, Parent: parent, Group: group} }
	for _, tc := range []struct {
		name  string
		parts Model
		want  string
	}{
		{"duplicate", Model{Root: -1, Features: []Feature{f("a", -1, -1), f("a", -1, -1)}}, `features 0 and 1 are both named "a"`},
		{"unnamed", Model{Root: -1, Features: []Feature{f("", -1, -1)}}, "feature 0 has no name"},
		{"root out of range", Model{Root: 1, Features: []Feature{f("a", -1, -1)}}, "root 1 out of range"},
		{"parent after", Model{Root: 0, Features: []Feature{f("a", -1, -1), f("b", 2, 0), f("c", 0, 0)},
			Groups: []Group{{Parent: 0, Children: []int{1, 2}}}}, "parent 2 is not a feature listed before it"},
		{"group of another", Model{Root: 0, Features: []Feature{f("a", -1, -1), f("b", 0, 0), f("c", 1, 0)},
			Groups: []Group{{Parent: 0, Children: []int{1, 2}}}}, `"c": group 0 is not a group of its parent`},
		{"child not listed", Model{Root: 0, Features: []Feature{f("a", -1, -1), f("b", 0, 0)},
			Groups: []Group{{Parent: 0}}}, "the groups list 0 children; the tree has 1"},
		{"bad cardinality", Model{Root: 0, Features: []Feature{f("a", -1, -1), f("b", 0, 0)},
			Groups: []Group{{Kind: GroupCardinality, Parent: 0, Children: []int{1}, Min: 2, Max: 1}}}, "cardinality [2..1] is not a range"},
		{"expression", Model{Root: -1, Features: []Feature{f("a", -1, -1)}, Constraints: []Constraint{{Expr: Var(1)}}}, "feature 1 out of range"},
		{"malformed", Model{Root: -1, Features: []Feature{f("a", -1, -1)}, Constraints: []Constraint{{Expr: &Expr{Op: OpAnd}}}}, "operator 4 with 0 operands"},
		{"literal", Model{Root: -1, Features: []Feature{f("a", -1, -1)}, Clauses: []Clause{{Lits: []Lit{2}, Line: 3}}}, "clause 0 (line 3): literal 2 out of range"},
	} {
		_, err := New(tc.parts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// Shapes whose direct translation or whose naive translation work grows
// faster than the constraint: the clauses, literals and auxiliary
// variables stay in proportion to its size.
func TestConstraintShapesStayLinear(t *testing.T) {
	const n = 20_000
	fs := make([]Feature, n)
	for i := range fs {
		fs[i] = Feature{Name: fmt.Sprintf("x%d", i), Parent: -1, Group: -1}
	}
	nest := func(op func(...*Expr) *Expr, width int) *Expr { // op(x, op(x, op(...))) of groups of width
		var e *Expr
		for i := n - width; i >= 0; i -= width {
			args := []*Expr{}
			for j := range width {
				args = append(args, Var(i+j))
			}
			if e != nil {
				args = append(args, e)
			}
			e = op(args...)
		}
		return e
	}
	pairs := func(outer, inner func(...*Expr) *Expr) *Expr { // outer(inner(x0, x1), inner(x2, x3), ...)
		var args []*Expr
		for i := 0; i+1 < n; i += 2 {
			args = append(args, inner(Var(i), Not(Var(i+1))))
		}
		return outer(args...)
	}
	iffs := Var(0)
	for i := 1; i < 500; i++ {
		iffs = Iff(Not(iffs), Var(i))
	}
	for _, tc := range []struct {
		name string
		e    *Expr
		aux  int // at most
	}{
		{"flat or", Or(func() []*Expr {
			var a []*Expr
			for i := range n {
				a = append(a, Var(i))
			}
			return a
		}()...), 0},
		{"nested ors", nest(Or, 10), n / 100},
		{"nested ands", nest(And, 10), 0},
		{"or of ands", pairs(Or, And), n / 2},
		{"and of ors", pairs(And, Or), 0},
		{"negated or of ands", Not(pairs(Or, And)), 0},
		{"chained implications", func() *Expr {
			e := Var(0)
			for i := 1; i < 2000; i++ {
				e = Implies(Var(i), e)
			}
			return e
		}(), 2000 / 50},
		{"chained equivalences", iffs, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Model{Features: fs, Root: -1, Constraints: []Constraint{{Expr: tc.e}}})
			if err != nil {
				t.Fatal(err)
			}
			c := m.CNF()
			if aux := c.Vars - c.Features; aux > tc.aux || len(c.lits) > 8*n {
				t.Errorf("%d clauses, %d literals, %d auxiliary variables (at most %d)", c.Len(), len(c.lits), aux, tc.aux)
			}
		})
	}
}
