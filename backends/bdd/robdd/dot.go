package robdd

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// NodeCount returns the number of decision nodes that f reaches, terminals
// excluded: the figure BuDDy's bdd_nodecount gives. It only reads the
// Manager and visits only the nodes f reaches.
func (m *Manager) NodeCount(f Node) int {
	count := 0
	m.reach(f, func(Node) { count++ })
	return count
}

// LevelProfile returns, for every level, the number of decision nodes that
// f reaches labelled with that level: the shape of the diagram, whose sum is
// NodeCount(f). It only reads the Manager.
func (m *Manager) LevelProfile(f Node) []int {
	profile := make([]int, m.vars)
	m.reach(f, func(n Node) { profile[m.nodes[n].level]++ })
	return profile
}

// LevelSizes returns, for every level, the number of decision nodes of the
// Manager labelled with that level, reachable or not: LevelProfile of a
// root that reaches every node (a Manager Load rebuilt from a file of one
// root, or one compacted to one root), in one pass over the store in
// order instead of a walk of the diagram, which on a large one reads
// nodes far apart. It only reads the Manager.
func (m *Manager) LevelSizes() []int {
	profile := make([]int, m.vars)
	for _, n := range m.nodes[2:] {
		profile[n.level]++
	}
	return profile
}

// reach calls visit for every decision node f reaches, depth first.
func (m *Manager) reach(f Node, visit func(Node)) {
	if f <= True {
		return
	}
	s := m.getScratch()
	defer m.putScratch(s)
	seen := bitset(s, int(f)+1)
	stack := append(s.stack[:0], f)
	seen[f/64] |= 1 << (f % 64)
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit(n)
		nd := m.nodes[n]
		for _, c := range [2]Node{Node(nd.lo), Node(nd.hi)} {
			if c > True && seen[c/64]&(1<<(c%64)) == 0 {
				seen[c/64] |= 1 << (c % 64)
				stack = append(stack, c)
			}
		}
	}
	s.stack = stack
}

// WriteDOT writes the diagram of f as a Graphviz digraph: one circle per
// decision node labelled with its variable's name, the terminals as boxes
// "0" and "1", high edges solid and low edges dashed, the nodes of a level
// on one rank, the top level first. name gives a variable's label; nil
// means "x" and the variable. It only reads the Manager.
func (m *Manager) WriteDOT(w io.Writer, f Node, name func(v int) string) error {
	if name == nil {
		name = func(v int) string { return fmt.Sprintf("x%d", v) }
	}
	var nodes []Node
	m.reach(f, func(n Node) { nodes = append(nodes, n) })
	slices.Sort(nodes)
	slices.Reverse(nodes) // parents before children
	var terminals [2]bool
	if f <= True {
		terminals[f] = true
	}
	for _, n := range nodes {
		nd := m.nodes[n]
		for _, c := range [2]uint32{nd.lo, nd.hi} {
			if c <= 1 {
				terminals[c] = true
			}
		}
	}
	b := bufio.NewWriter(w)
	fmt.Fprintln(b, "digraph bdd {")
	fmt.Fprintln(b, "\tnode [shape=circle];")
	for t, used := range terminals {
		if used {
			fmt.Fprintf(b, "\tn%d [label=\"%d\", shape=box];\n", t, t)
		}
	}
	// One rank per level, top level first.
	byLevel := make(map[uint32][]Node)
	var levels []uint32
	for _, n := range nodes {
		l := m.nodes[n].level
		if _, ok := byLevel[l]; !ok {
			levels = append(levels, l)
		}
		byLevel[l] = append(byLevel[l], n)
	}
	slices.Sort(levels)
	for _, l := range levels {
		label := dotEscape(name(m.VarAt(int(l))))
		fmt.Fprint(b, "\t{ rank=same;")
		for _, n := range byLevel[l] {
			fmt.Fprintf(b, " n%d [label=\"%s\"];", n, label)
		}
		fmt.Fprintln(b, " }")
	}
	for _, n := range nodes {
		nd := m.nodes[n]
		fmt.Fprintf(b, "\tn%d -> n%d [style=dashed];\n", n, nd.lo)
		fmt.Fprintf(b, "\tn%d -> n%d;\n", n, nd.hi)
	}
	fmt.Fprintln(b, "}")
	return b.Flush()
}

// dotEscape makes s safe inside a double-quoted DOT string.
func dotEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
