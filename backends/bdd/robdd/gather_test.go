package robdd

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// layered builds a random diagram level by level, deepest first, as the
// N-Queens compilers do, so that its ids are grouped by level: width
// nodes a level at most, each with children drawn from the levels below.
// It returns the root, the node at level 0.
func layered(t *testing.T, m *Manager, rng *rand.Rand, width int) Node {
	t.Helper()
	below := []Node{False, True}
	for l := m.Vars() - 1; l >= 0; l-- {
		var made []Node
		for range width {
			lo, hi := below[rng.IntN(len(below))], below[rng.IntN(len(below))]
			if lo == hi {
				continue
			}
			n, err := m.MakeNode(l, lo, hi)
			if err != nil {
				t.Fatal(err)
			}
			made = append(made, n)
		}
		if l == 0 {
			if len(made) == 0 {
				return below[len(below)-1]
			}
			return made[len(made)-1]
		}
		below = append(below, made...)
	}
	return False
}

// gatheredEach is the part of f under a as gatherEach, the pass a node at
// a time, gathers it: the reference of gatherLevels.
func gatheredEach(m *Manager, f Node, a Assignment) []node {
	s := new(scratch)
	s.marks.fit(int(f) + 1)
	s.marks.mark(uint32(f))
	terminal := node{level: uint32(m.vars)}
	local, ok := m.gatherEach(f, m.view(a), &s.marks, []node{terminal, terminal}, int(f)+1)
	if !ok {
		panic("gatherEach past a limit it cannot reach")
	}
	s.marks.renumber(local)
	return local
}

// TestGatherByLevels checks that the pass a level at a time gathers the
// same nodes in the same order as the pass a node at a time, on diagrams
// whose ids are grouped by level and on diagrams whose ids are not (built
// by the operations, or grouped until a second root was made above them),
// where it must notice and fall back.
func TestGatherByLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	checked := 0
	defer func() {
		if checked < 500 {
			t.Errorf("%d parts compared, want at least 500", checked)
		}
	}()
	for trial := range 60 {
		vars := 3 + rng.IntN(10)
		m := New(vars, 0)
		var f Node
		kind := "grouped"
		switch trial % 3 {
		case 0:
			f = layered(t, m, rng, 1+rng.IntN(40))
		case 1:
			kind = "built by the operations"
			var err error
			if f, err = randFormula(rng, vars, 4).build(m); err != nil {
				t.Fatal(err)
			}
		case 2:
			kind = "grouped, then a root above"
			g := layered(t, m, rng, 1+rng.IntN(40))
			h := layered(t, m, rng, 1+rng.IntN(10))
			var err error
			if f, err = m.Xor(ctx, g, h); err != nil {
				t.Fatal(err)
			}
		}
		if f <= True {
			continue
		}
		for range 20 {
			a := m.NewAssignment()
			for l := range a {
				if rng.IntN(3) == 0 {
					a[l] = int8(rng.IntN(2))
				}
			}
			if !slices.ContainsFunc(a, func(x int8) bool { return x != Unassigned }) {
				continue
			}
			want := gatheredEach(m, f, a)
			checked++
			p, ok := m.Part(f, a, int(f))
			if !ok {
				t.Fatalf("trial %d (%s): no part of %d nodes within %d", trial, kind, len(want)-2, f)
			}
			if !slices.Equal(p.nodes, want) {
				t.Errorf("trial %d (%s), %v: gathered\n%v\nwant\n%v", trial, kind, a, p.nodes, want)
			}
			p.Release()
			if trial%3 == 0 {
				// The pass a level at a time took this diagram itself.
				s := new(scratch)
				s.marks.fit(int(f) + 1)
				s.marks.mark(uint32(f))
				terminal := node{level: uint32(m.vars)}
				if _, ok, grouped := m.gatherLevels(f, m.view(a), &s.marks, []node{terminal, terminal}, int(f)); !ok || !grouped {
					t.Errorf("trial %d (%s): gatherLevels = %v, grouped %v: want both", trial, kind, ok, grouped)
				}
			}
		}
	}
}

// TestLevelStarts checks the first id of every level of a grouped
// diagram, and that it is found again after the diagram grows.
func TestLevelStarts(t *testing.T) {
	m := New(3, 0)
	// Level 2: ids 2, 3; level 1: id 4; level 0: ids 5, 6.
	n2a, _ := m.MakeNode(2, False, True)
	n2b, _ := m.MakeNode(2, True, False)
	n1, _ := m.MakeNode(1, n2a, n2b)
	m.MakeNode(0, n1, n2a)
	m.MakeNode(0, n2b, n1)
	var mk marks
	// Every id has a level at most the terminals'.
	if got, want := mk.levelStarts(m.nodes), []uint32{5, 4, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("levelStarts = %v, want %v", got, want)
	}
	m.MakeNode(2, n1, True) // id 7 at level 2 (not a valid order, but a level 2 id)
	if got, want := mk.levelStarts(m.nodes), []uint32{5, 4, 2, 2}; mk.ids != 8 || !slices.Equal(got, want) {
		t.Errorf("levelStarts after a node more = %v over %d ids, want %v over 8", got, mk.ids, want)
	}
}

// TestPartsConcurrently gathers parts of one grouped diagram from many
// goroutines at once (run with -race): each must see its own answer.
func TestPartsConcurrently(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2))
	m := New(12, 0)
	f := layered(t, m, rng, 60)
	type query struct {
		a    Assignment
		want []node
	}
	var queries []query
	for range 16 {
		a := m.NewAssignment()
		a[rng.IntN(len(a))] = int8(rng.IntN(2))
		a[rng.IntN(len(a))] = int8(rng.IntN(2))
		queries = append(queries, query{a, gatheredEach(m, f, a)})
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				q := queries[(g+i)%len(queries)]
				p, ok := m.Part(f, q.a, int(f))
				if !ok || !slices.Equal(p.nodes, q.want) {
					t.Errorf("goroutine %d: part of %v differs (%v): %v, want %v", g, q.a, ok, p, q.want)
					return
				}
				p.Release()
			}
		})
	}
	wg.Wait()
}

// TestLargeScratchIsNotPooled checks that a scratch grown past poolBytes
// (by a sweep of a large diagram or Extract's memo) is not kept for the
// next query, where no caller's bound counts it, and that a small one is
// (unless the race detector drops it, as it drops pooled values at random).
func TestLargeScratchIsNotPooled(t *testing.T) {
	m := New(4, 0)
	large := &scratch{local: make([]node, 0, poolBytes/16+1)}
	m.putPartScratch(large)
	m.putScratch(large)
	if s, ok := m.parts.Get().(*scratch); ok && s == large {
		t.Errorf("a part scratch of %d bytes was pooled, want it left to the collector", large.bytes())
	}
	if s, ok := m.scratch.Get().(*scratch); ok && s == large {
		t.Errorf("a scratch of %d bytes was pooled, want it left to the collector", large.bytes())
	}
	small := &scratch{local: make([]node, 0, 1024)}
	m.putPartScratch(small)
	if s, ok := m.parts.Get().(*scratch); ok && s != small {
		t.Errorf("the pool returned another scratch than the small one given back")
	}
}
