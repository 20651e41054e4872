package bdd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

// CompileApply compiles model into m by conjoining its constraints with
// apply operations, the construction of the literature, and returns the
// root of the diagram of its solutions. m must have model.Vars() variables;
// a cell's variable sits at level model.Level(model.Var(cell)).
//
// Every ExactlyOne constraint (the rows) becomes R = OR over its cells c of
// (x_c AND NOT x_d for every cell d that c attacks), and the result is the
// conjunction of the R's. That is exact for every AtMostOne pair with a
// cell in some ExactlyOne constraint: R picks that constraint's only queen
// and forbids whatever it attacks. Pairs of cells that are in no
// ExactlyOne constraint get their AtMostOne constraints conjoined directly,
// so any custom model compiles exactly.
//
// The conjunctions go row by row, in the order of the rows' first levels.
// Between them the nodes this call made and no longer needs are collected
// by compaction when they outnumber the live ones; nodes that existed
// before the call keep their ids, so a Node from an earlier build of the
// same function in m (CompileDirect, say) is the very result. The context
// is polled between and during the conjunctions. On error every node the
// call made is dropped and the error wraps ErrNodeLimit or the context's
// error.
func CompileApply(ctx context.Context, m *robdd.Manager, model *configurator.Model) (robdd.Node, error) {
	n := model.N()
	if m.Vars() != model.Vars() {
		return robdd.False, fmt.Errorf("compile %d-queens (apply): a manager of %d variables for %d", n, m.Vars(), model.Vars())
	}
	base := m.Size()
	b, err := applyBuild(ctx, m, model, base)
	if err != nil {
		m.CompactFrom(base)
		return robdd.False, fmt.Errorf("compile %d-queens (apply): %w", n, err)
	}
	return m.CompactFrom(base, b)[0], nil
}

// conjunct is one constraint to conjoin: its topmost level (for the order)
// and how to build its diagram.
type conjunct struct {
	top   int
	build func(ctx context.Context) (robdd.Node, error)
}

func applyBuild(ctx context.Context, m *robdd.Manager, model *configurator.Model, base int) (robdd.Node, error) {
	level := func(c configurator.Cell) int { return model.Level(model.Var(c)) }
	inExactlyOne := make([]bool, model.Vars())
	for _, c := range model.Constraints() {
		if c.Kind == configurator.ExactlyOne {
			for _, cell := range c.Cells {
				inExactlyOne[model.Var(cell)] = true
			}
		}
	}
	var parts []conjunct
	for _, c := range model.Constraints() {
		switch c.Kind {
		case configurator.ExactlyOne:
			top := model.Vars()
			for _, cell := range c.Cells {
				top = min(top, level(cell))
			}
			parts = append(parts, conjunct{top, func(ctx context.Context) (robdd.Node, error) { return exactlyOneRow(ctx, m, model, c.Cells) }})
		case configurator.AtMostOne:
			var levels []int
			for _, cell := range c.Cells {
				if !inExactlyOne[model.Var(cell)] {
					levels = append(levels, level(cell))
				}
			}
			if len(levels) > 1 {
				slices.Sort(levels)
				parts = append(parts, conjunct{levels[0], func(context.Context) (robdd.Node, error) { return atMostOne(m, levels) }})
			}
		}
	}
	slices.SortStableFunc(parts, func(a, b conjunct) int { return cmp.Compare(a.top, b.top) })

	acc, live := robdd.True, 0
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return robdd.False, err
		}
		next, err := conjoin(ctx, m, acc, p)
		if errors.Is(err, robdd.ErrNodeLimit) && m.Size()-base > live {
			// Garbage may be what fills the store: collect and retry once.
			acc = m.CompactFrom(base, acc)[0]
			live = m.Size() - base
			next, err = conjoin(ctx, m, acc, p)
		}
		if err != nil {
			return robdd.False, err
		}
		acc = next
		if made := m.Size() - base; made > 2*live+1<<16 {
			acc = m.CompactFrom(base, acc)[0]
			live = m.Size() - base
		}
	}
	return acc, nil
}

// conjoin returns acc AND the constraint p.
func conjoin(ctx context.Context, m *robdd.Manager, acc robdd.Node, p conjunct) (robdd.Node, error) {
	r, err := p.build(ctx)
	if err != nil {
		return robdd.False, err
	}
	return m.And(ctx, acc, r)
}

// exactlyOneRow is the disjunction, over the cells of an ExactlyOne
// constraint, of "a queen on the cell and none on a cell it attacks".
func exactlyOneRow(ctx context.Context, m *robdd.Manager, model *configurator.Model, cells []configurator.Cell) (robdd.Node, error) {
	vars := model.Vars()
	r := robdd.False
	var lits []literal
	for _, c := range cells {
		lits = append(lits[:0], literal{model.Level(model.Var(c)), true})
		for v := range vars {
			if d := model.Cell(v); model.Attacks(c, d) {
				lits = append(lits, literal{model.Level(v), false})
			}
		}
		cube, err := cube(m, lits)
		if err != nil {
			return robdd.False, err
		}
		if r, err = m.Or(ctx, r, cube); err != nil {
			return robdd.False, err
		}
	}
	return r, nil
}

// literal is a variable, by level, or its negation.
type literal struct {
	level    int
	positive bool
}

// cube returns the conjunction of lits (distinct levels; sorted in place),
// built directly bottom-up as a chain of nodes.
func cube(m *robdd.Manager, lits []literal) (robdd.Node, error) {
	slices.SortFunc(lits, func(a, b literal) int { return cmp.Compare(b.level, a.level) })
	r := robdd.True
	var err error
	for _, l := range lits {
		if l.positive {
			r, err = m.MakeNode(l.level, robdd.False, r)
		} else {
			r, err = m.MakeNode(l.level, r, robdd.False)
		}
		if err != nil {
			return robdd.False, err
		}
	}
	return r, nil
}

// atMostOne returns "at most one of the variables at these levels (sorted,
// distinct) is true", built directly bottom-up: two nodes a level, one for
// "none above was true" and one for "one was".
func atMostOne(m *robdd.Manager, levels []int) (robdd.Node, error) {
	most, none := robdd.True, robdd.True // at most one below; none below
	for i := len(levels) - 1; i >= 0; i-- {
		var err error
		if most, err = m.MakeNode(levels[i], most, none); err != nil {
			return robdd.False, err
		}
		if none, err = m.MakeNode(levels[i], none, robdd.False); err != nil {
			return robdd.False, err
		}
	}
	return most, nil
}
