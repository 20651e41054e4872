package bdd

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"sync"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/internal/hugepage"
)

// makeNodes makes the nodes of the expanded buckets from the bottom level
// up and returns the root's, root being the state of the full board; it
// counts the solutions of each state along the way, the root's into st.
// At level m, the level's own states branch (a node whose children are
// those of their kids), and the states of the buckets below that were born
// at or above m carry on (a node whose high child is false). Each live
// state has its node and count at the level below in its bucket's slot of
// nodes and counts, which the level's overwrites; the state of bucket V,
// the empty set, if any, is true.
func (d *direct) makeNodes(ctx context.Context, m *robdd.Manager, buckets []bucket, root ref, budget int64, procs int, st *directStats) (robdd.Node, error) {
	V := d.vars
	// live[m] is the number of states alive at level m, and at[L] the
	// index in buckets[L].born of the last birth at or above the level
	// being made.
	live := make([]int, V+2)
	for L := range buckets {
		prev := 0
		for _, bt := range buckets[L].born {
			live[bt.level] += int(bt.n) - prev
			live[L+1] -= int(bt.n) - prev
			prev = int(bt.n)
		}
	}
	widest := 0
	for m := range V {
		if m > 0 {
			live[m] += live[m-1]
		}
		widest = max(widest, live[m])
	}
	at := make([]int, V+1)
	for L := range buckets {
		at[L] = len(buckets[L].born) - 1
	}
	lo, hi, out := make([]robdd.Node, widest), make([]robdd.Node, widest), make([]robdd.Node, widest)
	bufBytes := int64(3 * 4 * widest)
	nodes, counts := make([][]robdd.Node, V+1), make([][]uint64, V+1)
	var stateBytes, kidBytes int64
	for L := range buckets {
		kidBytes += int64(cap(buckets[L].kids)) * 8
	}
	if buckets[V].n > 0 {
		nodes[V], counts[V] = []robdd.Node{robdd.True}, []uint64{1}
		stateBytes += 12
	}
	overflow := make([]uint64, procs) // a carry met, by goroutine
	b := m.NewLevelBuilder()
	if d.share != nil {
		b.SetProcs(procs)
	}
	errs := make([]error, procs)
	st.states = make([]int, V)
	for l := V - 1; l >= 0; l-- {
		st.states[l] = live[l]
		own := &buckets[l]
		n := own.n
		if n > 0 {
			nodes[l], counts[l] = make([]robdd.Node, n), make([]uint64, n)
			hugepage.Advise(nodes[l])
			hugepage.Advise(counts[l])
			stateBytes += 12 * int64(n)
		}
		share := procs
		if n < ctxEvery {
			share = 1 // not worth the goroutines
		}
		clear(errs)
		kids, cnt := own.kids, counts[l]
		d.run(share, func() {
			shareOut(share, n, func(p, from, to int) {
				for start := from; start < to; start += ctxEvery {
					if errs[p] = ctx.Err(); errs[p] != nil {
						return
					}
					for i := start; i < min(start+ctxEvery, to); i++ {
						lo[i], hi[i] = robdd.False, robdd.False
						var c0, c1 uint64
						if r := kids[2*i]; !r.dead() {
							lo[i], c0 = nodes[r.level()][r.index()], counts[r.level()][r.index()]
						}
						if r := kids[2*i+1]; !r.dead() {
							hi[i], c1 = nodes[r.level()][r.index()], counts[r.level()][r.index()]
						}
						var carry uint64
						cnt[i], carry = bits.Add64(c0, c1, 0)
						overflow[p] |= carry
					}
				}
			})
		})
		for _, err := range errs {
			if err != nil {
				return robdd.False, err
			}
		}
		if err := ctx.Err(); err != nil {
			return robdd.False, err
		}
		// The states of the buckets below that carry on through l: those
		// born at or above it.
		j := n
		for L := l + 1; L <= V; L++ {
			born := buckets[L].born
			for at[L] >= 0 && int(born[at[L]].level) > l {
				at[L]--
			}
			a := 0
			if at[L] >= 0 {
				a = int(born[at[L]].n)
			}
			stateBytes -= 12 * int64(len(nodes[L])-a)
			nodes[L], counts[L] = nodes[L][:a], counts[L][:a]
			copy(lo[j:], nodes[L])
			clear(hi[j : j+a])
			j += a
		}
		// The level in one call, which sizes the builder's table once; the
		// memory it adds is checked with the next level's. The nodes the
		// builder holds, 8 bytes each and 16 in the store after Commit,
		// are charged by the Manager's budget, BytesPerNode each, as
		// MakeNode's would be: the check here is for the rest.
		used := kidBytes + stateBytes + bufBytes + b.Bytes() - 8*int64(b.Made()) + m.Bytes()
		if used > budget {
			return robdd.False, fmt.Errorf("%d nodes at level %d, %d bytes: %w", m.Size()+b.Made(), l, used, robdd.ErrNodeLimit)
		}
		st.peak = max(st.peak, used)
		var err error
		d.run(procs, func() { err = b.MakeLevel(l, lo[:j], hi[:j], out[:j]) })
		if err != nil {
			return robdd.False, err
		}
		copy(nodes[l], out[:n])
		j = n
		for L := l + 1; L <= V; L++ {
			j += copy(nodes[L], out[j:])
		}
		kidBytes -= int64(cap(own.kids)) * 8
		own.kids = nil
	}
	node := nodes[root.level()][root.index()]
	if !slices.Contains(overflow, 1) {
		st.solutions = new(big.Int).SetUint64(counts[root.level()][root.index()])
	}
	nodes, counts, lo, hi, out = nil, nil, nil, nil, nil
	// Commit adds a 16-byte node for every 8 bytes the builder holds, 24
	// bytes a node at most, and no unique table: within the BytesPerNode
	// the Manager's budget charges each, which Commit enforces.
	var err error
	d.run(procs, func() { err = b.Commit() })
	if err != nil {
		return robdd.False, err
	}
	return node, nil
}

// shareOut runs f on procs goroutines, each with its range from..to-1 of
// 0..n-1, and waits for them; with one, on the calling goroutine.
func shareOut(procs, n int, f func(p, from, to int)) {
	if procs <= 1 {
		f(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() { f(p, p*n/procs, (p+1)*n/procs) })
	}
	wg.Wait()
}
