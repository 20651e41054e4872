package bdd

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/nqueens/configurator/backends/bdd/robdd"
)

// diagram is a compiled diagram as its queries read it: the Manager that
// holds it, which nothing writes once it is compiled, its root, its size,
// and the bound of the work space its queries hold (the Backend's, shared
// by all its spaces). A board's Space and a feature model's ModelSpace are
// each one.
type diagram struct {
	m     *robdd.Manager
	root  robdd.Node
	nodes int
	work  *workspace
	// seen[k] is the largest part gathered so far for an assignment of k
	// variables true (the last entry: of more), where sweep's first grant
	// starts, so that assignments like those met before gather once.
	seen [8]atomic.Int64
}

// firstGrant is the part, in nodes, a query first asks work space for:
// enough for most placements of a few queens on any board, and most
// decisions on a feature model.
const firstGrant = 4096

// grantGrowth is the factor by which a query's grant grows when its part
// does not fit: a part gathered again costs at most 1/15 more in all.
const grantGrowth = 16

// sweep runs do over the part of the diagram that a allows (see
// robdd.Part), holding the work space it uses from the Backend's bound: a
// grant for the largest part met so far for as many variables true (at least
// firstGrant nodes, at most what the small lane admits), then sixteen
// times more while the part does not fit (the bytes given back before
// asking again, so that no query holds work space while it waits), and the
// whole diagram's past PartLimit. An assignment of nothing sweeps the whole
// diagram at once.
func (d *diagram) sweep(ctx context.Context, a robdd.Assignment, do func(p *robdd.Part)) error {
	if slices.ContainsFunc(a, func(x int8) bool { return x != robdd.Unassigned }) {
		if ok, err := d.sweepPart(ctx, a, do); ok || err != nil {
			return err
		}
	}
	release, err := d.work.acquire(ctx, d.m.WholeBytes(d.root))
	if err != nil {
		return err
	}
	defer release()
	p := d.m.Whole(d.root, a)
	defer p.Release()
	do(p)
	return nil
}

// turn runs f, the work of n goroutines, in its turn on the cores the
// Backend's heavy work shares (see workspace.turn).
func (d *diagram) turn(n int, f func()) { d.work.turn(n, f) }

// sweepPart is sweep but for the whole diagram: it reports false, having
// called nothing, when the part that a allows is larger than PartLimit.
func (d *diagram) sweepPart(ctx context.Context, a robdd.Assignment, do func(p *robdd.Part)) (bool, error) {
	limit := d.m.PartLimit(d.root)
	trues := 0
	for _, x := range a {
		if x == 1 {
			trues++
		}
	}
	seen := &d.seen[min(trues, len(d.seen)-1)]
	// The hint stays within what the small lane admits (see
	// workspace), so that one large part met once does not send every
	// later query of as many variables true to the large lane.
	small := int((d.work.bound/smallQuery - d.m.PartBytes(d.root, 0)) / d.partBytesPerNode())
	first := min(max(firstGrant, min(int(seen.Load()), small)), limit)
	for grant := first; ; grant = min(grantGrowth*grant, limit) {
		release, err := d.work.acquire(ctx, d.m.PartBytes(d.root, grant))
		if err != nil {
			return false, err
		}
		p, ok := d.m.Part(d.root, a, grant)
		if ok {
			if v := int64(p.Visited()); v > seen.Load() {
				seen.Store(v) // a race may keep the smaller: a hint
			}
			do(p)
			p.Release()
			release()
			return true, nil
		}
		release()
		if grant == limit {
			return false, nil
		}
	}
}

// partBytesPerNode is what a gathered part takes a node beyond the marks.
func (d *diagram) partBytesPerNode() int64 {
	return max(d.m.PartBytes(d.root, 1)-d.m.PartBytes(d.root, 0), 1)
}

// search finds the first solution that agrees with a, depth first
// (robdd.Manager.AnySatWithin), holding the work space it uses from the
// Backend's bound as sweep does: room to visit firstGrant nodes, then
// sixteen times more while the search does not end within it (given back
// before asking again), up to the whole diagram's.
func (d *diagram) search(ctx context.Context, a robdd.Assignment) (x []bool, found bool, err error) {
	for grant := min(firstGrant, d.nodes); ; grant = min(grantGrowth*grant, d.nodes) {
		release, err := d.work.acquire(ctx, d.m.AnySatBytes(grant))
		if err != nil {
			return nil, false, err
		}
		x, found, done := d.m.AnySatWithin(d.root, a, max(grant, 1))
		release()
		if done || grant >= d.nodes {
			return x, found, nil
		}
	}
}
