// Package bdd is a reduced ordered binary decision diagram engine written for
// the N-Queens configurator, and a configurator backend built on it.
//
// A Manager stores nodes in one flat slice indexed by 32-bit Node ids and
// hash-conses them through a chained unique table whose links live in the
// nodes themselves, so that every function has exactly one Node
// (canonicity): two Nodes of one Manager are equal exactly when their
// functions are.
//
// Memory: a node is 16 bytes in the store (level, low, high and the unique
// table link, each 32 bits) plus a 4-byte bucket head per node of capacity,
// so 20 bytes a node before the operation caches. A Manager never grows past
// its budget: an operation that would returns an error that
// errors.Is(err, ErrNodeLimit) recognises, and the Manager stays usable.
package bdd

import (
	"errors"
	"fmt"
)

// Node is a node of a Manager: 0 is the constant false, 1 the constant true,
// and every other id a decision node. Nodes are meaningful only with the
// Manager that made them.
type Node uint32

// The two terminals.
const (
	False Node = 0
	True  Node = 1
)

// node is one decision node. level is the position of its variable in the
// order (terminals sit at level == Manager.vars, below every variable); next
// links nodes that share a unique-table bucket, 0 ending the chain (node 0 is
// a terminal and never in a chain).
type node struct {
	level, lo, hi, next uint32
}

// nodeBytes is what a node costs: its 16 bytes in the store and a 4-byte
// bucket head (the bucket array is kept at most as long as the store's
// capacity).
const nodeBytes = 20

// ErrNodeLimit reports that an operation needed more nodes than the
// Manager's budget allows.
var ErrNodeLimit = errors.New("BDD node budget exceeded")

// Manager owns a set of nodes over a fixed number of variables, identified by
// their level 0..vars-1 (0 at the top). A Manager is not safe for concurrent
// use while it builds; once built, its diagrams may be read concurrently by
// the read-only methods (those documented as such).
type Manager struct {
	vars     int
	nodes    []node
	buckets  []uint32 // heads of the unique table's chains; length a power of two
	maxNodes int
}

// NewManager returns a Manager over vars variables whose nodes take at most
// budget bytes (a budget <= 0 means no limit beyond the 32-bit ids).
func NewManager(vars int, budget int64) *Manager {
	maxNodes := int64(1<<32 - 1)
	if budget > 0 && budget/nodeBytes < maxNodes {
		maxNodes = budget / nodeBytes
	}
	if maxNodes < 2 {
		maxNodes = 2
	}
	m := &Manager{vars: vars, maxNodes: int(maxNodes)}
	m.nodes = make([]node, 2, 1024)
	m.nodes[False] = node{level: uint32(vars)}
	m.nodes[True] = node{level: uint32(vars)}
	m.buckets = make([]uint32, 1024)
	return m
}

// Vars is the number of variables.
func (m *Manager) Vars() int { return m.vars }

// Size is the number of nodes in the store, terminals included.
func (m *Manager) Size() int { return len(m.nodes) }

// Bytes is the memory the store and the unique table hold.
func (m *Manager) Bytes() int64 {
	return int64(cap(m.nodes))*16 + int64(len(m.buckets))*4
}

// Level is the level of n's variable; terminals are at level Vars().
func (m *Manager) Level(n Node) int { return int(m.nodes[n].level) }

// Low is n's child for its variable false.
func (m *Manager) Low(n Node) Node { return Node(m.nodes[n].lo) }

// High is n's child for its variable true.
func (m *Manager) High(n Node) Node { return Node(m.nodes[n].hi) }

// IsTerminal reports whether n is False or True.
func (m *Manager) IsTerminal(n Node) bool { return n <= True }

func hash(level uint32, lo, hi Node) uint32 {
	h := uint64(level)*0x9E3779B97F4A7C15 ^ uint64(lo)*0xC2B2AE3D27D4EB4F ^ uint64(hi)*0x165667B19E3779F9
	return uint32(h ^ h>>29)
}

// MakeNode returns the node testing the variable at level whose children
// are lo (variable false) and hi (variable true), creating it if needed.
// Equal children make no node: the result is the child (reduction). The
// children must lie strictly below level.
func (m *Manager) MakeNode(level int, lo, hi Node) (Node, error) {
	if lo == hi {
		return lo, nil
	}
	l := uint32(level)
	b := hash(l, lo, hi) & uint32(len(m.buckets)-1)
	for i := m.buckets[b]; i != 0; {
		n := &m.nodes[i]
		if n.level == l && n.lo == uint32(lo) && n.hi == uint32(hi) {
			return Node(i), nil
		}
		i = n.next
	}
	if len(m.nodes) >= m.maxNodes {
		return False, fmt.Errorf("%d nodes: %w", m.maxNodes, ErrNodeLimit)
	}
	id := uint32(len(m.nodes))
	m.nodes = append(m.nodes, node{level: l, lo: uint32(lo), hi: uint32(hi), next: m.buckets[b]})
	m.buckets[b] = id
	if len(m.nodes) > len(m.buckets) {
		m.rehash(2 * len(m.buckets))
	}
	return Node(id), nil
}

// rehash rebuilds the unique table with size buckets (a power of two).
func (m *Manager) rehash(size int) {
	m.buckets = make([]uint32, size)
	mask := uint32(size - 1)
	for i := 2; i < len(m.nodes); i++ {
		n := &m.nodes[i]
		b := hash(n.level, Node(n.lo), Node(n.hi)) & mask
		n.next = m.buckets[b]
		m.buckets[b] = uint32(i)
	}
}

// Var returns the function "the variable at level is true".
func (m *Manager) Var(level int) (Node, error) {
	if level < 0 || level >= m.vars {
		return False, fmt.Errorf("variable level %d of %d", level, m.vars)
	}
	return m.MakeNode(level, False, True)
}

// NVar returns the function "the variable at level is false".
func (m *Manager) NVar(level int) (Node, error) {
	if level < 0 || level >= m.vars {
		return False, fmt.Errorf("variable level %d of %d", level, m.vars)
	}
	return m.MakeNode(level, True, False)
}
