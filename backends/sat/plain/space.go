package plain

import (
	"context"
	"slices"

	"github.com/crillab/gophersat/solver"
	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
)

// fewSolutions and splitLines set how solutions are enumerated (see
// engine.Enumerate): up to fewSolutions with one solver, then again in
// parts split by splitLines lines. A solver slows down as blocking clauses
// pile up, so many solutions are listed faster in parts, each by a fresh
// solver; by three lines, the fresh solvers of the N³ parts cost more than
// they save. Most placements have few solutions, which one solver lists
// faster than the parts would.
const (
	fewSolutions = 128
	splitLines   = 2
)

// engine answers a space's questions with gophersat alone (see the package
// doc). It is immutable after newEngine.
type engine struct {
	lines *satbase.Lines
	n, nv int
	// cnf is the problem every solver of the space starts from.
	cnf [][]int
}

// newEngine returns the engine of m's space, of the lines the skeleton
// flattened: the pairwise CNF.
func newEngine(m *configurator.Model, ls *satbase.Lines) satbase.Engine {
	e := &engine{lines: ls, n: m.N(), nv: m.Vars()}
	e.writeCNF()
	return e
}

// writeCNF writes the pairwise CNF of the lines for gophersat: cell v is
// variable v+1. It has no unit clause (see Lines.Units). The clauses are
// views of one flat slice.
func (e *engine) writeCNF() {
	var lits []int
	ends := []int{0}
	for l, k := range e.lines.Kind {
		vars := e.lines.Line(int32(l))
		if len(vars) < 2 {
			continue // a unit, assumed instead
		}
		if k == configurator.ExactlyOne {
			for _, v := range vars {
				lits = append(lits, int(v)+1)
			}
			ends = append(ends, len(lits))
		}
		for i, u := range vars {
			for _, v := range vars[i+1:] {
				lits = append(lits, -int(u)-1, -int(v)-1)
				ends = append(ends, len(lits))
			}
		}
	}
	e.cnf = make([][]int, len(ends)-1)
	for i := range e.cnf {
		e.cnf[i] = lits[ends[i]:ends[i+1]:ends[i+1]]
	}
}

// Problem returns the pairwise CNF.
func (e *engine) Problem() *solver.Problem { return solver.ParseSliceNb(e.cnf, e.nv) }

// Find asks the space's solver, in one call, for a solution with a queen on
// every variable of with and none on any of without.
func (e *engine) Find(ctx context.Context, q *satbase.Query, with, without []int32) ([]int32, error) {
	var w []int32
	err := q.Call(ctx, func() (err error) {
		w, err = q.Ask(ctx, with, without)
		return err
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Decide classifies every cell under the placement queens, each by the
// solver: a cell is possible when a solution holding the queens has a queen
// on it, blocked when none has, and forced when it is possible and no
// solution holding the queens lacks it. A question is asked only of a cell
// that no solution found so far decides, so every cell is decided by the
// solver.
func (e *engine) Decide(ctx context.Context, q *satbase.Query, queens []int32) (*configurator.Analysis, error) {
	// possible[v]: a solution found has a queen on v; absent[v]: a solution
	// found has none.
	possible := make([]bool, e.nv)
	absent := make([]bool, e.nv)
	witness := func(w []int32) {
		queen := make([]bool, e.nv)
		for _, v := range w {
			queen[v] = true
		}
		for v, x := range queen {
			possible[v] = possible[v] || x
			absent[v] = absent[v] || !x
		}
	}
	w, err := e.Find(ctx, q, queens, nil)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, configurator.ErrNoSolution
	}
	witness(w)
	with := append(slices.Clone(queens), 0)
	for v := range int32(e.nv) {
		if possible[v] {
			continue
		}
		with[len(with)-1] = v
		w, err := e.Find(ctx, q, with, nil)
		if err != nil {
			return nil, err
		}
		if w != nil {
			witness(w)
		}
	}
	for v := range int32(e.nv) {
		if !possible[v] || absent[v] || slices.Contains(queens, v) {
			continue
		}
		w, err := e.Find(ctx, q, queens, []int32{v})
		if err != nil {
			return nil, err
		}
		if w != nil {
			witness(w)
		}
	}
	a := &configurator.Analysis{N: e.n, Cells: make([]configurator.State, e.nv)}
	for v := range e.nv {
		switch {
		case !possible[v]:
			a.Cells[v] = configurator.Blocked
		case !absent[v]:
			a.Cells[v] = configurator.Forced
		}
	}
	for _, v := range queens {
		a.Cells[v] = configurator.Queen
	}
	a.Work.BySolver = e.nv - len(queens)
	return a, nil
}

// Enumerate lists the solutions with a queen on every variable of queens,
// up to limit of them. Most placements have few solutions: one solver
// lists them. Beyond fewSolutions the list starts again, split into parts
// (see enumerateSplit).
func (e *engine) Enumerate(ctx context.Context, q *satbase.Query, queens []int32, limit int) (sols [][]int32, complete bool, err error) {
	sols, complete, err = e.enumerateSplit(ctx, q, queens, 0, min(limit, fewSolutions))
	if err != nil || complete || len(sols) == limit {
		return sols, complete, err
	}
	return e.enumerateSplit(ctx, q, queens, splitLines, limit)
}

// enumerateSplit lists the solutions as Enumerate does, split into parts
// by the cells that hold the queens of the given number of ExactlyOne
// lines free of queens (the longest), each part enumerated by a fresh
// solver (Query.Enumerate).
func (e *engine) enumerateSplit(ctx context.Context, q *satbase.Query, queens []int32, lines, limit int) (sols [][]int32, complete bool, err error) {
	// parts lists the assumptions of each part: queens and one cell of
	// each split line.
	parts := [][]int32{queens}
	used := make([]bool, len(e.lines.Kind))
	for range lines {
		split := int32(-1)
		for l, k := range e.lines.Kind {
			vars := e.lines.Line(int32(l))
			if k == configurator.ExactlyOne && !used[l] && (split < 0 || len(vars) > len(e.lines.Line(split))) && !slices.ContainsFunc(vars, func(v int32) bool { return slices.Contains(queens, v) }) {
				split = int32(l)
			}
		}
		if split < 0 {
			break
		}
		used[split] = true
		var next [][]int32
		for _, p := range parts {
			for _, v := range e.lines.Line(split) {
				next = append(next, append(slices.Clone(p), v))
			}
		}
		parts = next
	}
	for _, part := range parts {
		if sols, complete, err = q.Enumerate(ctx, part, sols, limit); err != nil || !complete {
			return sols, complete, err
		}
	}
	return sols, true, nil
}
