// Package robdd is a reduced ordered binary decision diagram engine: nodes
// hash-consed in a unique table, a computed cache, garbage collection by
// compaction, the Boolean operations, dynamic variable reordering
// (sifting), counting, valid domains, marginals, sampling, copies of a
// restriction (Extract), files (Save, Load) and DOT output. It serves the
// BDD/SAT configurator (backends/bdd compiles the
// model with it) and imports only the standard library.
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
//
// The operations (And, Or, ITE, Restrict, ...) share a lossy computed cache
// of 16-byte entries, allocated by the first operation and kept at one entry
// per four bucket heads. The budget charges every node the worst case of all
// three: 16 bytes of store, up to 8 of bucket heads (the table has just
// doubled) and up to 8 of cache, so budget/32 nodes; with the table full,
// a node costs 24 bytes. Growing a slice briefly holds its old copy as well, and
// the smallest tables take about 36 KiB whatever the budget. A diagram made
// a level at a time with a LevelBuilder (a compiler's bulk path) goes into
// a store of exactly its size, and has no unique table until a MakeNode
// needs one: 16 bytes a node for a diagram that is only read.
// Compact (garbage collection by compaction) frees the nodes no root reaches.
//
// The operations that build nodes (And, Restrict, ...) take a
// context.Context, polled every few thousand recursive steps, since a
// conjunction can take exponential time; the read-only queries are linear
// in the diagram and take none.
//
// Variables are numbered once and for all, and sit at the levels of an
// order, the identity at first; a reordering (Reorder, SetOrder, or
// automatic, see Sifting) moves them, swapping adjacent levels in place
// (see reorder.go). What a caller names by variable (Var, Assignment, the
// queries' results) keeps its meaning across it; see VarAt for what is by
// level.
//
// Node ids are topological: a node's children always have smaller ids than
// the node (MakeNode can only refer to nodes that exist, and Compact and a
// reordering renumber the nodes they keep so). The read-only queries rely on it: the diagram of a
// root n lies within the ids 0..n, so they sweep flat slices bottom-up by
// increasing id and top-down by decreasing id, in time linear in n, which
// is the size of the diagram when n was the last node made or the only root
// kept by Compact. Under a partial assignment they gather first the part
// of the diagram the assignment allows, when it is small, and sweep only
// that, in work space proportional to it (see Part).
package robdd

import (
	"errors"
	"fmt"
	"sync"
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
// a terminal and never in a chain). While a reordering runs, a dead node's
// level is deadLevel (see reorder.go).
type node struct {
	level, lo, hi, next uint32
}

// BytesPerNode is what the budget charges a node: its 16 bytes in the
// store, at most two 4-byte bucket heads (the bucket array is a power of
// two at most twice the node limit) and at most half a 16-byte cache entry
// (the cache has a quarter as many entries as the bucket array). A budget
// of BytesPerNode·k bytes holds k nodes, terminals included.
const BytesPerNode = 32

// maxIDs bounds node ids below the operation tags of the computed cache
// (cache.go), which must never be taken for nodes.
const maxIDs = opFirst

// ErrNodeLimit reports that an operation needed more nodes than the
// Manager's budget allows.
var ErrNodeLimit = errors.New("BDD node budget exceeded")

// Manager owns a set of nodes over a fixed number of variables 0..vars-1,
// each at a level of the order (see VarAt). A Manager is not safe for
// concurrent use while it builds; once built, its diagrams may be read
// concurrently by the read-only methods (those documented as such).
type Manager struct {
	vars  int
	nodes []node
	// varAt[l] is the variable at level l and levelOf[v] the level of
	// variable v; both are nil while the order is the identity.
	varAt, levelOf []uint32
	// buckets heads the unique table's chains; its length is a power of
	// two, or 0 while the table is stale (see rehash).
	buckets  []uint32
	maxNodes int

	cache opCache // computed table of the operations; empty until the first
	gen   uint32  // tag of the current Restrict or Exists call in the cache

	// scratch and parts hold *scratch values: per-call work space of the
	// read-only queries, which must not write to the Manager (see
	// scratch).
	scratch, parts sync.Pool

	// held are the roots of Hold, kept up to date by every renumbering;
	// heldFree lists the released slots.
	held     []Node
	heldFree []int32
	// sifting configures reordering; nextAuto is the store size at which
	// an operation reorders automatically (0: never).
	sifting  Sifting
	nextAuto int
}

// New returns a Manager over vars variables whose nodes take at most
// budget bytes (a budget <= 0 means no limit beyond the 32-bit ids).
func New(vars int, budget int64) *Manager {
	maxNodes := int64(maxIDs)
	if budget > 0 && budget/BytesPerNode < maxNodes {
		maxNodes = budget / BytesPerNode
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

// Bytes is the memory the store, the unique table and the operation cache
// hold.
func (m *Manager) Bytes() int64 {
	return int64(cap(m.nodes))*16 + int64(len(m.buckets))*4 + m.cache.bytes()
}

// MaxNodes is the most nodes, terminals included, the budget allows.
func (m *Manager) MaxNodes() int { return m.maxNodes }

// Budget is the bytes the budget allows: BytesPerNode times MaxNodes. A
// builder that keeps work space of its own beside the Manager (a compiler's
// states, say) charges it against the same figure.
func (m *Manager) Budget() int64 { return int64(m.maxNodes) * BytesPerNode }

// Level is the level of n's variable (VarAt gives the variable); terminals
// are at level Vars().
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
	if m.buckets == nil {
		m.rehash(tableSize(len(m.nodes)))
	}
	b := hash(l, lo, hi) & uint32(len(m.buckets)-1)
	if n, ok := m.find(b, l, lo, hi); ok {
		return n, nil
	}
	if len(m.nodes) >= m.maxNodes {
		return False, fmt.Errorf("%d nodes: %w", m.maxNodes, ErrNodeLimit)
	}
	if len(m.nodes) == cap(m.nodes) {
		m.grow()
	}
	id := uint32(len(m.nodes))
	m.nodes = append(m.nodes, node{level: l, lo: uint32(lo), hi: uint32(hi), next: m.buckets[b]})
	m.buckets[b] = id
	if len(m.nodes) > len(m.buckets) {
		m.rehash(2 * len(m.buckets))
	}
	return Node(id), nil
}

// find looks the node (level, lo, hi) up in bucket b of the unique table.
func (m *Manager) find(b, level uint32, lo, hi Node) (Node, bool) {
	for i := m.buckets[b]; i != 0; {
		n := &m.nodes[i]
		if n.level == level && n.lo == uint32(lo) && n.hi == uint32(hi) {
			return Node(i), true
		}
		i = n.next
	}
	return False, false
}

// tableSize is the number of buckets for n nodes: the smallest power of
// two that is at least n and 1024.
func tableSize(n int) int {
	size := 1024
	for size < n {
		size *= 2
	}
	return size
}

// reserveStore makes room in the store for n more nodes at once: its
// capacity grows to Size()+n in one step, instead of the steps of grow
// (each briefly holds two copies). It fails with ErrNodeLimit, and changes
// nothing, when Size()+n exceeds MaxNodes.
func (m *Manager) reserveStore(n int) error {
	if n < 0 || len(m.nodes)+n > m.maxNodes {
		return fmt.Errorf("%d more nodes than the %d of the budget: %w", n, m.maxNodes-len(m.nodes), ErrNodeLimit)
	}
	if len(m.nodes)+n <= cap(m.nodes) {
		return nil
	}
	nodes := make([]node, len(m.nodes), len(m.nodes)+n)
	copy(nodes, m.nodes)
	m.nodes = nodes
	return nil
}

// grow enlarges the store's capacity, never past the node limit, so that
// the budget bounds the capacity and not only the length.
func (m *Manager) grow() {
	c := cap(m.nodes)
	n := 2 * c
	if c >= 1<<20 {
		n = c + c/2
	}
	n = min(n, m.maxNodes)
	nodes := make([]node, len(m.nodes), n)
	copy(nodes, m.nodes)
	m.nodes = nodes
}

// rehash rebuilds the unique table with size buckets (a power of two), and
// resizes the operation cache to match when there is one. A table of nil
// buckets is stale: LevelBuilder.Commit adds nodes without linking them,
// and the next MakeNode (or anything else that needs the table) rebuilds
// it, so that a Manager that is only read never pays for it.
func (m *Manager) rehash(size int) {
	m.cache.resize(size / cacheRatio)
	m.buckets = make([]uint32, size)
	mask := uint32(size - 1)
	for i := 2; i < len(m.nodes); i++ {
		n := &m.nodes[i]
		b := hash(n.level, Node(n.lo), Node(n.hi)) & mask
		n.next = m.buckets[b]
		m.buckets[b] = uint32(i)
	}
}

// Var returns the function "variable v is true".
func (m *Manager) Var(v int) (Node, error) {
	if err := m.checkVar(v); err != nil {
		return False, err
	}
	return m.MakeNode(m.LevelOf(v), False, True)
}

// NVar returns the function "variable v is false".
func (m *Manager) NVar(v int) (Node, error) {
	if err := m.checkVar(v); err != nil {
		return False, err
	}
	return m.MakeNode(m.LevelOf(v), True, False)
}
