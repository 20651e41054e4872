package benchmarks

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/crillab/gophersat/solver"

	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// Encoding is how FreshSAT writes the model's constraints for gophersat.
type Encoding uint8

const (
	// Pairwise is the plain CNF: a clause "at least one" per ExactlyOne
	// line and a clause "not both" per pair of cells on a line.
	Pairwise Encoding = iota
	// Cardinality uses gophersat's native cardinality constraints, one
	// "at most one" per line, as the SAT backend does.
	Cardinality
)

func (e Encoding) String() string {
	if e == Cardinality {
		return "card"
	}
	return "cnf"
}

// FreshSAT is the straightforward SAT approach to valid domains: for every
// cell, a fresh solver is built from the model's constraints, the queens
// placed and "a queen on this cell" as unit clauses, and solved; a cell
// that can hold a queen is then solved again with "no queen on this cell"
// to find whether it is forced. Nothing is shared between two solves: no
// assumptions, no learnt clauses, no model reuse. It gives the states the
// SAT backend's Analyze gives, without the solution count.
type FreshSAT struct {
	model   *configurator.Model
	enc     Encoding
	clauses [][]int
	cards   []solver.CardConstr
}

// NewFreshSAT encodes model's constraints once; each solve copies them.
func NewFreshSAT(model *configurator.Model, enc Encoding) *FreshSAT {
	f := &FreshSAT{model: model, enc: enc}
	for _, c := range model.Constraints() {
		lits := make([]int, len(c.Cells))
		for i, cell := range c.Cells {
			lits[i] = model.Var(cell) + 1
		}
		switch enc {
		case Cardinality:
			if len(lits) > 1 {
				f.cards = append(f.cards, solver.AtMost1(lits...))
			}
			if c.Kind == configurator.ExactlyOne {
				f.cards = append(f.cards, solver.AtLeast1(lits...))
			}
		default:
			for i := range lits {
				for _, b := range lits[i+1:] {
					f.clauses = append(f.clauses, []int{-lits[i], -b})
				}
			}
			if c.Kind == configurator.ExactlyOne {
				f.clauses = append(f.clauses, lits)
			}
		}
	}
	return f
}

// solve builds a fresh solver for the constraints and the unit literals
// and reports whether they are satisfiable. The caller holds a gophersat
// turn. A solve that ctx ends is interrupted and returns ctx's error.
func (f *FreshSAT) solve(ctx context.Context, units []int) (bool, error) {
	var pb *solver.Problem
	switch f.enc {
	case Cardinality:
		// Unit constraints given to ParseCardConstrs are set in the
		// model but never propagated into the cardinality constraints
		// (gophersat v1.4.0: the solver then finds "solutions" with two
		// queens on a line), so the units are assumed instead, which
		// propagates them; the base problem has no units for Assume to
		// lose.
		s := solver.New(solver.ParseCardConstrs(f.cards))
		lits := make([]solver.Lit, len(units))
		for i, u := range units {
			lits[i] = solver.IntToLit(int32(u))
		}
		if s.Assume(lits) == solver.Unsat {
			return false, nil
		}
		return solved(ctx, s.SolveContext(ctx))
	default:
		cs := make([][]int, len(f.clauses), len(f.clauses)+len(units))
		copy(cs, f.clauses)
		for _, u := range units {
			cs = append(cs, []int{u})
		}
		pb = solver.ParseSliceNb(cs, f.model.Vars())
	}
	return solved(ctx, solver.New(pb).SolveContext(ctx))
}

// solved reads the status of a solve under ctx: Indet means ctx ended.
func solved(ctx context.Context, st solver.Status) (bool, error) {
	if st == solver.Indet {
		return false, ctx.Err()
	}
	return st == solver.Sat, nil
}

// Analyze computes the states of every cell under queens. When ctx ends
// first, even in the middle of a solve, it returns the step unfinished
// (Done false) and no error. It holds one of the process's gophersat turns
// (package solverlock) throughout, so that no more solvers than cores run
// at once and the time it measures is its own solves'.
func (f *FreshSAT) Analyze(ctx context.Context, queens []configurator.Cell) (BaselineStep, error) {
	if release, err := solverlock.Acquire(ctx); err == nil {
		defer release()
	} // else ctx has ended: analyze counts the queens and calls no solver
	return f.analyze(ctx, queens)
}

// analyze does the work of Analyze, holding the gophersat turn.
func (f *FreshSAT) analyze(ctx context.Context, queens []configurator.Cell) (BaselineStep, error) {
	model := f.model
	step := BaselineStep{CellsTotal: model.Vars()}
	start := time.Now()
	units := make([]int, 0, len(queens)+1)
	for _, q := range queens {
		units = append(units, model.Var(q)+1)
	}
	// solve's only error is ctx's: the step is then unfinished.
	cells, _ := step.decide(ctx, model, queens, func(v int, queen bool) (bool, error) {
		if queen {
			return f.solve(ctx, append(units, v+1))
		}
		return f.solve(ctx, append(units, -(v+1)))
	})
	if cells == nil {
		step.Elapsed = time.Since(start)
		return step, nil
	}
	// With every other cell blocked, the queens are a solution or in none.
	open := slices.ContainsFunc(cells, func(s configurator.State) bool { return s == configurator.Free || s == configurator.Forced })
	if !open {
		ok, err := f.solve(ctx, units)
		if err != nil { // ctx ended: unfinished
			step.Elapsed = time.Since(start)
			return step, nil
		}
		if !ok {
			step.Elapsed = time.Since(start)
			return step, fmt.Errorf("queens %s: %w", configurator.FormatCells(queens), configurator.ErrNoSolution)
		}
	}
	step.Elapsed = time.Since(start)
	step.Cells, step.Done = cells, true
	return step, nil
}
