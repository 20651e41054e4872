package satbase

import (
	"context"
	"fmt"
	"slices"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// coreProblem is a model's CNF with a selector variable per part of the
// model (per Origin of its clauses): each clause of part g gets the
// literal ¬s_g, so that the part holds when s_g is assumed and constrains
// nothing otherwise. A question under the selectors of a set of parts asks
// whether those parts alone admit the decisions.
type coreProblem struct {
	parts   []feature.Origin // part g, in the order of its first clause
	clauses [][]int
	vars    int
	// empty is a part holding an empty clause, or -1: that part alone
	// admits nothing.
	empty int
}

// coreProblem returns the space's, made on first use.
func (sp *FeatureSpace) coreProblem() *coreProblem {
	sp.coresOnce.Do(func() {
		c := sp.CNF
		cp := &coreProblem{empty: -1}
		index := make(map[feature.Origin]int)
		for i := range c.Len() {
			o := c.Origin(i)
			g, ok := index[o]
			if !ok {
				g = len(cp.parts)
				index[o] = g
				cp.parts = append(cp.parts, o)
			}
			cl := c.Clause(i)
			if len(cl) == 0 {
				if cp.empty < 0 {
					cp.empty = g
				}
				continue
			}
			row := make([]int, 0, len(cl)+1)
			for _, l := range cl {
				row = append(row, int(l))
			}
			cp.clauses = append(cp.clauses, append(row, -(c.Vars+1+g)))
		}
		cp.vars = c.Vars + len(cp.parts)
		sp.cores = cp
	})
	return sp.cores
}

// Core returns a minimal set of the model's parts that no configuration
// satisfies together with the decisions, found by QuickXplain (Junker,
// 2004): the parts are halved, and each half kept only as far as the
// other does not conflict alone, so that a core of k parts among n costs
// about 2k·log(n/k) solver calls, each verified minimal by construction.
// Decisions that some configuration keeps give an error.
func (sp *FeatureSpace) Core(ctx context.Context, decisions []configurator.Decision) ([]feature.Origin, error) {
	if err := configurator.CheckDecisions(sp.m, decisions); err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	cp := sp.coreProblem()
	if cp.empty >= 0 {
		return []feature.Origin{cp.parts[cp.empty]}, nil
	}
	var core []int
	err := sp.do(ctx, func(ctx context.Context, q *FeatureQuery) error {
		x := &quickXplain{q: q, cp: cp, lits: Lits(decisions)}
		all := make([]int, len(cp.parts))
		for g := range all {
			all[g] = g
		}
		bad, err := x.conflicts(ctx, all)
		if err != nil {
			return err
		}
		if !bad {
			return fmt.Errorf("a configuration keeps %s", configurator.FormatDecisions(sp.m, decisions))
		}
		core, err = x.explain(ctx, nil, false, all)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("core under %s: %w", configurator.FormatDecisions(sp.m, decisions), err)
	}
	slices.Sort(core)
	out := make([]feature.Origin, len(core))
	for i, g := range core {
		out[i] = cp.parts[g]
	}
	return out, nil
}

// quickXplain is the state of one Core: the solver of the core problem,
// made on its first question, and the decisions' literals.
type quickXplain struct {
	q    *FeatureQuery
	cp   *coreProblem
	s    *solver.Solver
	lits []feature.Lit
}

// conflicts reports whether the parts (indices into cp.parts) admit no
// assignment that keeps the decisions.
func (x *quickXplain) conflicts(ctx context.Context, parts []int) (bool, error) {
	assume := make([]solver.Lit, 0, len(x.lits)+len(parts))
	for _, l := range x.lits {
		assume = append(assume, solver.IntToLit(int32(l)))
	}
	for _, g := range parts {
		assume = append(assume, solver.IntToLit(int32(x.cp.vars-len(x.cp.parts)+1+g)))
	}
	var found bool
	err := x.q.Call(ctx, func() (err error) {
		if x.s == nil {
			x.s = solver.New(solver.ParseSliceNb(x.cp.clauses, x.cp.vars))
		}
		found, err = x.q.work.under(ctx, x.s, assume, nil)
		return err
	})
	return !found, err
}

// explain is QuickXplain's recursion: given background parts that admit
// the decisions (when changed is set, that is asked first: a background
// that conflicts alone needs nothing of c), it returns a minimal subset of
// c that conflicts with the background.
func (x *quickXplain) explain(ctx context.Context, background []int, changed bool, c []int) ([]int, error) {
	if changed {
		bad, err := x.conflicts(ctx, background)
		if err != nil || bad {
			return nil, err
		}
	}
	if len(c) == 1 {
		return c, nil
	}
	c1, c2 := c[:len(c)/2], c[len(c)/2:]
	d2, err := x.explain(ctx, concat(background, c1), true, c2)
	if err != nil {
		return nil, err
	}
	d1, err := x.explain(ctx, concat(background, d2), len(d2) > 0, c1)
	if err != nil {
		return nil, err
	}
	return concat(d1, d2), nil
}

// concat returns a new slice of a's elements and then b's.
func concat(a, b []int) []int {
	return append(slices.Clone(a), b...)
}
