// Package peers builds the N-Queens diagram with other BDD libraries, the
// baselines the benchmarks compare the native engine with.
//
// Only github.com/dalzilio/rudd, a pure-Go port of BuDDy, is here: it is a
// benchmark-only dependency and nothing outside benchmarks/ may import this
// package.
package peers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/dalzilio/rudd"

	"github.com/nqueens/configurator/configurator"
)

// Diagram is a diagram built by rudd.
type Diagram struct {
	b    *rudd.BDD
	root rudd.Node
}

// Solutions is the number of satisfying assignments.
func (d *Diagram) Solutions() *big.Int { return d.b.Satcount(d.root) }

// Nodes is the size of the diagram, terminals excluded.
func (d *Diagram) Nodes() int {
	nodes := 0
	d.b.Allnodes(func(id, _, _, _ int) error {
		if id > 1 {
			nodes++
		}
		return nil
	}, d.root)
	return nodes
}

// Stored is the number of nodes rudd's node table holds, terminals
// included: the diagram's and those no garbage collection has freed yet
// (rudd collects only when its table is full). It is read from rudd's
// statistics, its only report of them, and is 0 when they cannot be read.
func (d *Diagram) Stored() int {
	for _, line := range strings.Split(d.b.Stats(), "\n") {
		var used int
		if _, err := fmt.Sscanf(line, "Used: %d", &used); err == nil {
			return used
		}
	}
	return 0
}

// Rudd compiles model with rudd the way the literature does, row by row:
// every ExactlyOne constraint becomes R = OR over its cells c of (x_c AND
// NOT x_d for every cell d that c attacks), and the diagram is the
// conjunction of the R's in the order of their first levels. At-most-one
// pairs that no ExactlyOne constraint covers are conjoined as NOT (x_a AND
// x_b), so a custom model compiles exactly too. Variables are the model's
// levels, so the diagram is the one the native engine builds.
//
// rudd cannot be interrupted: ctx is checked between two constraints. Nor
// can it be bounded: its default kernel ignores Maxnodesize (8-queens
// compiles under a bound of 1000 nodes), so memory grows as it needs.
func Rudd(ctx context.Context, model *configurator.Model) (*Diagram, error) {
	vars := model.Vars()
	b, err := rudd.New(vars, rudd.Nodesize(1<<16), rudd.Cachesize(1<<16), rudd.Cacheratio(25))
	if err != nil {
		return nil, fmt.Errorf("rudd: %w", err)
	}
	level := func(c configurator.Cell) int { return model.Level(model.Var(c)) }
	// attacked[v] lists the levels of the cells that a queen on v attacks.
	attacked := make([][]int, vars)
	inExactlyOne := make([]bool, vars)
	for _, c := range model.Constraints() {
		for _, a := range c.Cells {
			v := model.Var(a)
			if c.Kind == configurator.ExactlyOne {
				inExactlyOne[v] = true
			}
			for _, d := range c.Cells {
				if a != d && !slices.Contains(attacked[v], level(d)) {
					attacked[v] = append(attacked[v], level(d))
				}
			}
		}
	}
	type conjunct struct {
		top   int
		build func() rudd.Node
	}
	var parts []conjunct
	for _, c := range model.Constraints() {
		switch c.Kind {
		case configurator.ExactlyOne:
			top := vars
			for _, cell := range c.Cells {
				top = min(top, level(cell))
			}
			parts = append(parts, conjunct{top, func() rudd.Node {
				r := b.False()
				for _, cell := range c.Cells {
					q := b.Ithvar(level(cell))
					for _, l := range attacked[model.Var(cell)] {
						q = b.And(q, b.NIthvar(l))
					}
					r = b.Or(r, q)
				}
				return r
			}})
		case configurator.AtMostOne:
			for i, a := range c.Cells {
				for _, d := range c.Cells[i+1:] {
					if inExactlyOne[model.Var(a)] || inExactlyOne[model.Var(d)] {
						continue
					}
					top := min(level(a), level(d))
					parts = append(parts, conjunct{top, func() rudd.Node {
						return b.Not(b.And(b.Ithvar(level(a)), b.Ithvar(level(d))))
					}})
				}
			}
		}
	}
	slices.SortStableFunc(parts, func(x, y conjunct) int { return cmp.Compare(x.top, y.top) })
	acc := b.True()
	for _, p := range parts {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("rudd: %w", err)
		}
		acc = b.And(acc, p.build())
		if b.Errored() {
			return nil, fmt.Errorf("rudd: %w", errors.New(b.Error()))
		}
	}
	return &Diagram{b, acc}, nil
}
