package robdd

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestWriteDOT(t *testing.T) {
	m := New(2, 0)
	x0, _ := m.Var(0)  // node 2
	n1, _ := m.NVar(1) // node 3
	f, _ := m.And(ctx, x0, n1)
	if f != 4 {
		t.Fatalf("x0 and not x1 is node %d, the test expects 4", f)
	}
	names := func(l int) string { return []string{"a1", `b"1\`}[l] }
	tests := []struct {
		name  string
		f     Node
		names func(int) string
		want  string
	}{
		{"x0 and not x1", f, names, `digraph bdd {
	node [shape=circle];
	n0 [label="0", shape=box];
	n1 [label="1", shape=box];
	{ rank=same; n4 [label="a1"]; }
	{ rank=same; n3 [label="b\"1\\"]; }
	n4 -> n0 [style=dashed];
	n4 -> n3;
	n3 -> n1 [style=dashed];
	n3 -> n0;
}
`},
		{"default names", x0, nil, `digraph bdd {
	node [shape=circle];
	n0 [label="0", shape=box];
	n1 [label="1", shape=box];
	{ rank=same; n2 [label="x0"]; }
	n2 -> n0 [style=dashed];
	n2 -> n1;
}
`},
		{"true", True, nil, `digraph bdd {
	node [shape=circle];
	n1 [label="1", shape=box];
}
`},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := m.WriteDOT(&b, tt.f, tt.names); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, b.String(), tt.want)
		}
	}
}

func TestWriteDOTOneRankPerLevel(t *testing.T) {
	m := New(6, 0)
	p, _ := parity(m, []int{0, 1, 2, 3, 4, 5})
	var b strings.Builder
	if err := m.WriteDOT(&b, p, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if got := strings.Count(out, "rank=same"); got != 6 {
		t.Errorf("%d ranks for 6 levels", got)
	}
	if got := strings.Count(out, "style=dashed"); got != m.NodeCount(p) {
		t.Errorf("%d dashed edges for %d nodes", got, m.NodeCount(p))
	}
	if got := strings.Count(out, "->"); got != 2*m.NodeCount(p) {
		t.Errorf("%d edges for %d nodes", got, m.NodeCount(p))
	}
}

// TestLevelSizes checks that LevelSizes counts every node of the store by
// level, which is LevelProfile of a root that reaches them all, and
// differs from it when some node is unreachable.
func TestLevelSizes(t *testing.T) {
	m := New(4, 0)
	x := make([]Node, 4)
	for l := range x {
		x[l], _ = m.Var(l)
	}
	f, _ := m.And(ctx, x[0], x[1])
	g, _ := m.Or(ctx, f, x[3])
	file := saved(t, m, g)
	loaded, roots, err := Load(bytes.NewReader(file), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := loaded.LevelSizes(), loaded.LevelProfile(roots[0]); !slices.Equal(got, want) {
		t.Errorf("loaded: LevelSizes = %v, LevelProfile = %v", got, want)
	}
	// In m, the variables' own nodes (x2's among them) are not g's.
	if got, want := m.LevelSizes(), m.LevelProfile(g); slices.Equal(got, want) || got[2] != 1 || want[2] != 0 {
		t.Errorf("with unreachable nodes: LevelSizes = %v, LevelProfile = %v", got, want)
	}
}
