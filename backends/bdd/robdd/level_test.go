package robdd

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// buildBoth builds the same levels with a LevelBuilder in a and with
// MakeNode in b, choosing each child among the nodes either has made so
// far (the ids agree, or the test fails), and returns the nodes made. A
// third of the nodes are chains: a high child false, and a low child made
// at the level just before, as the direct compiler makes most. With
// procs > 0 the builder shares out calls of 2 nodes or more among procs
// goroutines, which look through them in parts of about 16 nodes.
func buildBoth(t *testing.T, rng *rand.Rand, a, b *Manager, width, procs int) []Node {
	t.Helper()
	pool := []Node{False, True}
	for i := 2; i < a.Size(); i++ {
		pool = append(pool, Node(i))
	}
	// poolLevel[k] is the level of pool[k]; a child must lie below.
	level := func(n Node) int { return b.Level(n) }
	lb := a.NewLevelBuilder()
	if procs > 0 {
		lb.procs, lb.shareMin, lb.part = procs, 2, 16
	}
	var made, prev []Node // prev: the nodes made at the level before
	for l := a.Vars() - 1; l >= 0; l-- {
		var here []Node
		var below []Node
		for _, n := range pool {
			if level(n) > l {
				below = append(below, n)
			}
		}
		// Each level in one or two calls.
		parts := 1 + rng.IntN(2)
		for range parts {
			n := rng.IntN(width + 1)
			lo, hi, out := make([]Node, n), make([]Node, n), make([]Node, n)
			for i := range n {
				lo[i], hi[i] = below[rng.IntN(len(below))], below[rng.IntN(len(below))]
				if len(prev) > 0 && rng.IntN(3) == 0 {
					lo[i], hi[i] = prev[rng.IntN(len(prev))], False
				}
				if i > 0 && rng.IntN(4) == 0 { // a duplicate
					lo[i], hi[i] = lo[i-1], hi[i-1]
				}
			}
			if err := lb.MakeLevel(l, lo, hi, out); err != nil {
				t.Fatalf("MakeLevel(%d): %v", l, err)
			}
			for i := range n {
				want, err := b.MakeNode(l, lo[i], hi[i])
				if err != nil {
					t.Fatal(err)
				}
				if out[i] != want {
					t.Fatalf("level %d, node (%d, %d): MakeLevel gave %d, MakeNode %d", l, lo[i], hi[i], out[i], want)
				}
				if !slices.Contains(pool, want) {
					pool = append(pool, want)
					made = append(made, want)
					here = append(here, want)
				}
			}
		}
		prev = here
	}
	if got, want := lb.Made(), b.Size()-a.Size(); got != want {
		t.Errorf("Made() = %d, MakeNode made %d", got, want)
	}
	if err := lb.Commit(); err != nil {
		t.Fatal(err)
	}
	return made
}

// storeFile is the file of m's whole store (every node a root).
func storeFile(t *testing.T, m *Manager) []byte {
	t.Helper()
	var roots []Node
	for i := 2; i < m.Size(); i++ {
		roots = append(roots, Node(i))
	}
	return saved(t, m, roots...)
}

// TestLevelBuilderIsMakeNode: a level-by-level build gives the nodes, the
// ids and the store that MakeNode gives for the same calls, into a fresh
// Manager and into one that already holds nodes (which the builder finds
// instead of making them again); afterwards the Manager works as ever.
func TestLevelBuilderIsMakeNode(t *testing.T) {
	for _, tc := range []struct {
		name         string
		vars, width  int
		prefill      int // random nodes made with MakeNode first
		seed1, seed2 uint64
		procs        int // goroutines sharing out each level (0: MakeLevel's choice)
	}{
		{"fresh-narrow", 6, 3, 0, 1, 1, 0},
		{"fresh-wide", 12, 200, 0, 2, 3, 0},
		{"prefilled", 8, 40, 60, 4, 5, 0},
		{"prefilled-wide", 10, 300, 500, 6, 7, 0},
		{"shared-narrow", 6, 3, 0, 8, 9, 2},
		{"shared-wide", 12, 2000, 0, 10, 11, 2},
		{"shared-three", 12, 500, 0, 12, 13, 3},
		{"shared-prefilled", 10, 300, 500, 14, 15, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed1, tc.seed2))
			a, b := New(tc.vars, 0), New(tc.vars, 0)
			for range tc.prefill {
				l := rng.IntN(tc.vars)
				x, y := Node(rng.IntN(a.Size())), Node(rng.IntN(a.Size()))
				if a.Level(x) <= l || a.Level(y) <= l {
					continue
				}
				na, err := a.MakeNode(l, x, y)
				if err != nil {
					t.Fatal(err)
				}
				if nb, _ := b.MakeNode(l, x, y); na != nb {
					t.Fatal("the two managers disagree before the build")
				}
			}
			made := buildBoth(t, rng, a, b, tc.width, tc.procs)
			if len(made) == 0 {
				t.Fatal("the build made no node")
			}
			if tc.prefill == 0 && cap(a.nodes) != max(a.Size(), 1024) {
				t.Errorf("a store of %d nodes has room for %d: Commit sizes it exactly", a.Size(), cap(a.nodes))
			}
			if !bytes.Equal(storeFile(t, a), storeFile(t, b)) {
				t.Fatal("the stores differ")
			}
			// The unique table, stale after Commit, is rebuilt: an
			// existing node is found, a new one is new, and operations
			// agree.
			top := made[len(made)-1]
			if n, err := a.MakeNode(a.Level(top), a.Low(top), a.High(top)); err != nil || n != top {
				t.Errorf("MakeNode of an existing node after Commit: %d, %v; want %d", n, err, top)
			}
			for _, m := range []*Manager{a, b} {
				if _, err := m.Or(ctx, made[0], top); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(storeFile(t, a), storeFile(t, b)) {
				t.Fatal("the stores differ after an Or")
			}
		})
	}
}

// TestLevelBuilderRefusesBadInput: each misuse is an error that leaves the
// Manager as it was, whether a call is made by one goroutine or shared
// out.
func TestLevelBuilderRefusesBadInput(t *testing.T) {
	nodes := func(ns ...Node) []Node { return ns }
	for _, tc := range []struct {
		name  string
		build func(m *Manager, b *LevelBuilder) error
		limit bool // the error is ErrNodeLimit
	}{
		{"lengths differ", func(_ *Manager, b *LevelBuilder) error {
			return b.MakeLevel(3, nodes(False), nodes(True, False), make([]Node, 1))
		}, false},
		{"level out of range", func(_ *Manager, b *LevelBuilder) error {
			return b.MakeLevel(4, nodes(False), nodes(True), make([]Node, 1))
		}, false},
		{"levels going down", func(_ *Manager, b *LevelBuilder) error {
			if err := b.MakeLevel(1, nodes(False), nodes(True), make([]Node, 1)); err != nil {
				return nil
			}
			return b.MakeLevel(2, nodes(False), nodes(True), make([]Node, 1))
		}, false},
		{"child not made", func(_ *Manager, b *LevelBuilder) error {
			return b.MakeLevel(3, nodes(False), nodes(7), make([]Node, 1))
		}, false},
		{"child not below", func(_ *Manager, b *LevelBuilder) error {
			out := make([]Node, 1)
			if err := b.MakeLevel(2, nodes(False), nodes(True), out); err != nil {
				return nil
			}
			return b.MakeLevel(2, nodes(False), out, make([]Node, 1))
		}, false},
		{"over the budget", func(_ *Manager, b *LevelBuilder) error {
			// 4 nodes of budget: two terminals and two nodes.
			out := make([]Node, 1)
			if err := b.MakeLevel(3, nodes(False), nodes(True), out); err != nil {
				return nil
			}
			return b.MakeLevel(2, nodes(False, out[0]), nodes(out[0], False), make([]Node, 2))
		}, true},
		{"manager changed", func(m *Manager, b *LevelBuilder) error {
			if err := b.MakeLevel(3, nodes(False), nodes(True), make([]Node, 1)); err != nil {
				return nil
			}
			if _, err := m.Var(0); err != nil {
				return nil
			}
			return b.Commit()
		}, false},
		{"commit twice", func(_ *Manager, b *LevelBuilder) error {
			if err := b.Commit(); err != nil {
				return nil
			}
			return b.Commit()
		}, false},
	} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/procs=%d", tc.name, procs), func(t *testing.T) {
				m := New(4, 4*BytesPerNode)
				b := m.NewLevelBuilder()
				b.procs, b.shareMin = procs, 1
				before := m.Size()
				err := tc.build(m, b)
				if err == nil {
					t.Fatal("no error")
				}
				if got := errors.Is(err, ErrNodeLimit); got != tc.limit {
					t.Errorf("%v: ErrNodeLimit %v, want %v", err, got, tc.limit)
				}
				if tc.name != "manager changed" && m.Size() != before {
					t.Errorf("%d nodes after the failure, %d before", m.Size(), before)
				}
			})
		}
	}
}
