package robdd

import "fmt"

// Reordering swaps adjacent levels in place (Rudell, "Dynamic variable
// ordering for ordered binary decision diagrams", 1993). Swapping levels i
// and i+1, of variables x and y, exchanges the variables and rewrites the
// nodes so that every live node keeps its id and its function:
//
//   - a node f of x whose children both lie below i+1 does not test y: it
//     only moves down, to level i+1, unchanged;
//   - a node g of y moves up to level i, unchanged;
//   - a node f of x with a child at i+1 is f = x ? (y ? f11 : f10) :
//     (y ? f01 : f00); it stays at level i, now of y, and its children
//     become the nodes of x at level i+1 (x ? f10 : f00) and (x ? f11 :
//     f01), found or made. At least one of them is a node (else f's two
//     children were equal), so f is not equal to any node of y that moved
//     up, whose children lie below i+1: the diagram stays canonical.
//
// The nodes of y that no node refers to any more die, and so, in cascade,
// may nodes below. Knowing which needs reference counts, and a swap needs
// the nodes of a level: neither is kept by the Manager outside a
// reordering (it collects garbage by compaction and sweeps by id), so a
// reorderer builds them when it starts, in flat slices indexed by node id
// (ref, the parents and roots of a node; lnext, the next node of its
// level), and drops them when it ends.
//
// While a reordering runs, the unique table hashes a node by its variable
// rather than its level: the nodes that only move keep their variable, so
// they stay in their chains. New nodes are made in the slots of dead ones
// before the store grows, so that the store stays within the budget; a
// swap that needs a node beyond it is undone, and fails with
// ErrNodeLimit. The ids of new nodes are not topological, so a reordering
// ends with a renumbering compaction (finish): the live nodes grouped by
// level, the deepest first, and the unique table rebuilt with its usual
// hash. The operation cache is dropped when a reordering starts (its
// entries would name the ids of slots made anew; its memory goes to ref
// and lnext), and allocated again by the next operation.

// deadLevel is the level of a free slot of the store during a reordering.
const deadLevel = ^uint32(0)

// reorderer is the state of one reordering of a Manager.
type reorderer struct {
	m *Manager
	// ref[i] counts the nodes whose child node i is, and the roots that
	// are i; a node is live while it is positive. A dead node stays on its
	// level's list until a walk of the list frees its slot.
	ref []uint32
	// lnext links the nodes of a level, from head[level], 0 ending the
	// list; it links the free slots, from free, as well.
	lnext []uint32
	head  []uint32
	// size[l] counts the live nodes of level l; live is their sum, the
	// size of the diagram; dead counts the dead nodes still on a list.
	size       []int
	live, dead int
	free       uint32
	// varAt and levelOf are the order, updated by every swap; the
	// Manager's own are set when the reordering ends.
	varAt, levelOf []uint32
	swaps          int
	// Scratch of swap and deref: the nodes of a swap that are rewritten,
	// their children before it, and the cascade of deaths.
	rewrite, kids, stack []uint32
}

// newReorderer starts a reordering of m that keeps roots (and the held
// roots): it collects garbage, so that every node is live, and returns
// the reorderer with the roots' new ids.
func (m *Manager) newReorderer(roots []Node) (*reorderer, []Node) {
	roots = m.compact(2, roots)
	n := len(m.nodes)
	r := &reorderer{
		m:       m,
		ref:     make([]uint32, n, cap(m.nodes)),
		lnext:   make([]uint32, n, cap(m.nodes)),
		head:    make([]uint32, m.vars),
		size:    make([]int, m.vars),
		live:    n - 2,
		varAt:   make([]uint32, m.vars),
		levelOf: make([]uint32, m.vars),
	}
	for l := range m.vars {
		v := m.VarAt(l)
		r.varAt[l], r.levelOf[v] = uint32(v), uint32(l)
	}
	for i := 2; i < n; i++ {
		nd := &m.nodes[i]
		r.ref[nd.lo]++
		r.ref[nd.hi]++
		r.lnext[i] = r.head[nd.level]
		r.head[nd.level] = uint32(i)
		r.size[nd.level]++
	}
	for _, x := range roots {
		r.ref[x]++
	}
	for _, x := range m.held {
		r.ref[x]++
	}
	// The cache's results would outlive the functions of the ids it
	// holds; its memory goes to ref and lnext.
	m.cache = opCache{}
	r.rehash(tableSize(n))
	return r, roots
}

// bucket is the unique-table bucket of a node at level l during the
// reordering.
func (r *reorderer) bucket(l uint32, lo, hi uint32) uint32 {
	return hash(r.varAt[l], Node(lo), Node(hi)) & uint32(len(r.m.buckets)-1)
}

// rehash rebuilds the unique table with size buckets, holding the live
// nodes.
func (r *reorderer) rehash(size int) {
	m := r.m
	m.buckets = make([]uint32, size)
	for i := 2; i < len(m.nodes); i++ {
		if r.ref[i] > 0 {
			r.insert(uint32(i))
		}
	}
}

// insert links node id into its chain.
func (r *reorderer) insert(id uint32) {
	n := &r.m.nodes[id]
	b := r.bucket(n.level, n.lo, n.hi)
	n.next = r.m.buckets[b]
	r.m.buckets[b] = id
}

// unlink takes node id out of its chain.
func (r *reorderer) unlink(id uint32) {
	m := r.m
	n := &m.nodes[id]
	b := r.bucket(n.level, n.lo, n.hi)
	if m.buckets[b] == id {
		m.buckets[b] = n.next
		return
	}
	for p := m.buckets[b]; p != 0; p = m.nodes[p].next {
		if m.nodes[p].next == id {
			m.nodes[p].next = n.next
			return
		}
	}
	panic(fmt.Sprintf("robdd: node %d is not in the unique table", id))
}

// push puts node id on level l's list.
func (r *reorderer) push(l, id uint32) {
	r.lnext[id] = r.head[l]
	r.head[l] = id
}

// release frees the slot of dead node id, which is on no list.
func (r *reorderer) release(id uint32) {
	r.m.nodes[id] = node{level: deadLevel}
	r.lnext[id] = r.free
	r.free = id
	r.dead--
}

// deref drops a reference to node id; a node left without any dies, and
// drops its references to its children.
func (r *reorderer) deref(id uint32) {
	if id <= uint32(True) {
		return
	}
	if r.ref[id]--; r.ref[id] > 0 {
		return
	}
	stack := append(r.stack[:0], id)
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		r.unlink(d)
		nd := r.m.nodes[d]
		r.size[nd.level]--
		r.live--
		r.dead++
		for _, c := range [2]uint32{nd.lo, nd.hi} {
			if c > uint32(True) {
				if r.ref[c]--; r.ref[c] == 0 {
					stack = append(stack, c)
				}
			}
		}
	}
	r.stack = stack
}

// sweepTo walks level l's list once, freeing the slots of its dead nodes
// and, when to is not l, moving the live ones to level to: a swap's one
// pass over the nodes of y. sweepTo(l, l) only sweeps.
func (r *reorderer) sweepTo(l, to uint32) {
	prev := uint32(0)
	for id := r.head[l]; id != 0; {
		next := r.lnext[id]
		if r.ref[id] > 0 {
			if to != l {
				r.m.nodes[id].level = to
			}
			prev = id
		} else {
			if prev == 0 {
				r.head[l] = next
			} else {
				r.lnext[prev] = next
			}
			r.release(id)
		}
		id = next
	}
}

// alloc returns a free slot, or false when the budget has none left. It
// sweeps the lists for the slots of dead nodes when they are worth it.
func (r *reorderer) alloc() (uint32, bool) {
	m := r.m
	if r.free == 0 && len(m.nodes) >= m.maxNodes && r.dead > 0 && r.dead >= len(m.nodes)/64 {
		for l := range r.head {
			r.sweepTo(uint32(l), uint32(l))
		}
	}
	if id := r.free; id != 0 {
		r.free = r.lnext[id]
		return id, true
	}
	if len(m.nodes) >= m.maxNodes {
		return 0, false
	}
	if len(m.nodes) == cap(m.nodes) {
		m.grow()
	}
	id := uint32(len(m.nodes))
	m.nodes = append(m.nodes, node{})
	r.ref = append(r.ref, 0)
	r.lnext = append(r.lnext, 0)
	return id, true
}

// mk returns the node of level l with children lo and hi, found in the
// unique table or made, or false when the budget has no room for it. A
// node made has no reference yet: the caller adds it.
func (r *reorderer) mk(l, lo, hi uint32) (uint32, bool) {
	if lo == hi {
		return lo, true
	}
	m := r.m
	b := r.bucket(l, lo, hi)
	for i := m.buckets[b]; i != 0; {
		n := &m.nodes[i]
		if n.level == l && n.lo == lo && n.hi == hi {
			return i, true
		}
		i = n.next
	}
	id, ok := r.alloc()
	if !ok {
		return 0, false
	}
	m.nodes[id] = node{level: l, lo: lo, hi: hi, next: m.buckets[b]}
	m.buckets[b] = id
	r.ref[id] = 0
	r.ref[lo]++
	r.ref[hi]++
	r.push(l, id)
	r.size[l]++
	r.live++
	return id, true
}

// swap exchanges the variables of levels i and i+1 (see the top of the
// file). When the budget has no room for a node it needs, it undoes what
// it did and fails with ErrNodeLimit: the diagram is then as before.
func (r *reorderer) swap(i int) error {
	m := r.m
	li, lj := uint32(i), uint32(i+1)
	// Room in the table for every node the swap may make (two for each
	// node of x), so that it is not rebuilt midway.
	if most := min(len(m.nodes)+2*r.size[li], m.maxNodes); len(m.buckets) < most {
		r.rehash(tableSize(most))
	}
	// The nodes of x: those to rewrite leave the unique table (their key
	// changes), the others go on the list of level i+1. The dead ones of
	// both levels are freed.
	rewrite := r.rewrite[:0]
	moved, nmoved := uint32(0), 0
	for id := r.head[li]; id != 0; {
		next := r.lnext[id]
		switch n := m.nodes[id]; {
		case r.ref[id] == 0:
			r.release(id)
		case m.nodes[n.lo].level == lj || m.nodes[n.hi].level == lj:
			rewrite = append(rewrite, id)
			r.unlink(id)
		default:
			// No node of x is a child of another, so the rewrite
			// test of the nodes after it still tells y's nodes by
			// their level: the node moves down at once.
			m.nodes[id].level = lj
			r.lnext[id] = moved
			moved = id
			nmoved++
		}
		id = next
	}
	r.rewrite = rewrite
	r.sweepTo(lj, li)
	stayed := r.head[lj]
	r.exchange(i)
	r.head[li], r.size[li] = stayed, r.size[lj]+len(rewrite)
	r.head[lj], r.size[lj] = moved, nmoved
	// The rewritten nodes: their new children first, the old ones
	// dropped once every node is rewritten (so that a failure can undo).
	kids := r.kids[:0]
	for k, f := range rewrite {
		n := m.nodes[f]
		f00, f01 := r.cofactors(n.lo, li)
		f10, f11 := r.cofactors(n.hi, li)
		lo, ok := r.mk(lj, f00, f10)
		if ok {
			r.ref[lo]++
			var hi uint32
			if hi, ok = r.mk(lj, f01, f11); ok {
				r.ref[hi]++
				kids = append(kids, n.lo, n.hi)
				m.nodes[f].lo, m.nodes[f].hi = lo, hi
				r.insert(f)
				continue
			}
			r.deref(lo)
		}
		r.kids = kids
		r.undo(i, rewrite[:k], stayed)
		return fmt.Errorf("swap of levels %d and %d: %d nodes: %w", i, i+1, m.maxNodes, ErrNodeLimit)
	}
	r.kids = kids
	for _, f := range rewrite {
		r.push(li, f)
	}
	for _, c := range kids {
		r.deref(c)
	}
	r.swaps++
	return nil
}

// cofactors returns the children of node n for the variable now at level
// l, the level of the nodes of y during a swap: n's children when n is
// such a node, n twice otherwise.
func (r *reorderer) cofactors(n, l uint32) (uint32, uint32) {
	nd := r.m.nodes[n]
	if nd.level == l {
		return nd.lo, nd.hi
	}
	return n, n
}

// relabel moves the nodes of the list from id on to level l.
func (r *reorderer) relabel(id, l uint32) {
	for ; id != 0; id = r.lnext[id] {
		r.m.nodes[id].level = l
	}
}

// exchange swaps the variables of levels i and i+1 in the order.
func (r *reorderer) exchange(i int) {
	x, y := r.varAt[i], r.varAt[i+1]
	r.varAt[i], r.varAt[i+1] = y, x
	r.levelOf[x], r.levelOf[y] = uint32(i+1), uint32(i)
}

// undo reverts a swap of levels i and i+1 that failed after rewriting
// the nodes done (their old children in kids); stayed starts the list of
// the nodes of y.
func (r *reorderer) undo(i int, done []uint32, stayed uint32) {
	m := r.m
	li, lj := uint32(i), uint32(i+1)
	for k, f := range done {
		r.unlink(f)
		n := &m.nodes[f]
		lo, hi := n.lo, n.hi
		n.lo, n.hi = r.kids[2*k], r.kids[2*k+1]
		r.deref(lo)
		r.deref(hi)
	}
	// The nodes made for the rewrite are dead now; the list of level
	// i+1 holds them and the moved nodes, which it began with.
	r.sweepTo(lj, lj)
	r.relabel(stayed, lj)
	r.relabel(r.head[lj], li)
	r.exchange(i)
	r.size[li], r.size[lj] = r.size[lj]+len(r.rewrite), r.size[li]-len(r.rewrite)
	r.head[li], r.head[lj] = r.head[lj], stayed
	for _, f := range r.rewrite {
		r.insert(f)
		r.push(li, f)
	}
}

// finish ends the reordering: it renumbers the live nodes densely, grouped
// by level, the deepest first (so that children have smaller ids than
// their parents), in place; rebuilds the unique table with its usual hash;
// sets the Manager's order and when the next automatic reordering is due;
// and returns the new ids of roots, updating the held roots. The operation
// cache is allocated again by the next operation.
func (r *reorderer) finish(roots []Node) []Node {
	m := r.m
	// ref becomes the new id of every live node, 0 for a free or dead
	// slot: a walk of the lists, deepest level first.
	next := uint32(2)
	for l := m.vars - 1; l >= 0; l-- {
		for id := r.head[l]; id != 0; id = r.lnext[id] {
			if r.ref[id] > 0 {
				r.ref[id] = next
				next++
			}
		}
	}
	newID := r.ref
	newID[False], newID[True] = uint32(False), uint32(True)
	n := len(m.nodes)
	for i := 2; i < n; i++ {
		if newID[i] != 0 {
			nd := &m.nodes[i]
			nd.lo, nd.hi = newID[nd.lo], newID[nd.hi]
		}
	}
	// Every live node to its new slot, following the cycles of the
	// permutation; lnext marks the nodes moved. A chain ends at a slot
	// whose node has moved already or that holds none.
	moved := r.lnext
	clear(moved)
	for i := 2; i < n; i++ {
		if newID[i] == 0 || moved[i] != 0 {
			continue
		}
		carry, dst := m.nodes[i], newID[i]
		moved[i] = 1
		for newID[dst] != 0 && moved[dst] == 0 {
			m.nodes[dst], carry = carry, m.nodes[dst]
			moved[dst] = 1
			dst = newID[dst]
		}
		m.nodes[dst] = carry
	}
	m.nodes = m.nodes[:next]
	for k, x := range roots {
		roots[k] = Node(newID[x])
	}
	for k, x := range m.held {
		m.held[k] = Node(newID[x])
	}
	m.setOrder(r.varAt)
	r.ref, r.lnext = nil, nil
	m.fit()
	if m.sifting.Auto > 0 {
		m.nextAuto = max(m.sifting.Auto, 2*len(m.nodes))
	}
	return roots
}

// fit shrinks the store when it fills less than a quarter of its
// capacity, and rebuilds the unique table at the size of the store.
func (m *Manager) fit() {
	j := len(m.nodes)
	if j < cap(m.nodes)/4 && cap(m.nodes) > 1024 {
		nodes := make([]node, j, max(2*j, 1024))
		copy(nodes, m.nodes)
		m.nodes = nodes
	}
	size := max(len(m.buckets), tableSize(j)) // a stale table is rebuilt too
	for size > 1024 && size/2 >= j {
		size /= 2
	}
	m.rehash(size)
}
