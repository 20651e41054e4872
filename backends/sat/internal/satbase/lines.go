package satbase

import (
	"slices"

	"github.com/nqueens/configurator/configurator"
)

// Lines are a model's constraints flattened into integer slices for the
// hot paths. Variables are the model's (row-major cells); lines are its
// constraints, in order, without duplicate cells, minus those that
// constrain nothing (an AtMostOne of fewer than two cells). Lines are
// immutable after Flatten.
type Lines struct {
	// Kind is the kind of each line, as the model says.
	Kind []configurator.Kind
	// Units are the variables of one-cell ExactlyOne lines: every solution
	// holds them. They must never be unit clauses of a solver's base
	// problem, which gophersat's Assume would lose: Query.Ask assumes them
	// instead.
	Units []int32
	// Dead is set when an ExactlyOne line has no cell: no solution at all.
	Dead bool
	// Partition is set when every variable is on exactly one ExactlyOne
	// line (the ranks of N-Queens): then every solution has as many
	// queens, no solution holds another's queens and more, and a blocking
	// clause needs only the queens.
	Partition bool

	// Line l holds the variables lineVar[lineStart[l]:lineStart[l+1]];
	// variable v is on the lines varLine[varStart[v]:varStart[v+1]].
	lineStart, lineVar []int32
	varStart, varLine  []int32
}

// Flatten returns the lines of m's constraints.
func Flatten(m *configurator.Model) Lines {
	ls := Lines{lineStart: []int32{0}}
	nv := m.Vars()
	seen := make([]bool, nv)
	var vars []int32
	for _, c := range m.Constraints() {
		vars = vars[:0]
		for _, cell := range c.Cells {
			if v := m.Var(cell); !seen[v] {
				seen[v] = true
				vars = append(vars, int32(v))
			}
		}
		for _, v := range vars {
			seen[v] = false
		}
		exact := c.Kind == configurator.ExactlyOne
		switch {
		case exact && len(vars) == 0:
			ls.Dead = true
			continue
		case exact && len(vars) == 1:
			ls.Units = append(ls.Units, vars[0])
		case !exact && len(vars) < 2:
			continue
		}
		ls.Kind = append(ls.Kind, c.Kind)
		ls.lineVar = append(ls.lineVar, vars...)
		ls.lineStart = append(ls.lineStart, int32(len(ls.lineVar)))
	}
	// The lines of each variable, and how many ExactlyOne lines it is on.
	ls.varStart = make([]int32, nv+1)
	exactOn := make([]int, nv)
	for l, k := range ls.Kind {
		for _, v := range ls.Line(int32(l)) {
			ls.varStart[v+1]++
			if k == configurator.ExactlyOne {
				exactOn[v]++
			}
		}
	}
	for v := range nv {
		ls.varStart[v+1] += ls.varStart[v]
	}
	ls.varLine = make([]int32, len(ls.lineVar))
	next := slices.Clone(ls.varStart[:nv])
	for l := range int32(len(ls.Kind)) {
		for _, v := range ls.Line(l) {
			ls.varLine[next[v]] = l
			next[v]++
		}
	}
	ls.Partition = !slices.ContainsFunc(exactOn, func(k int) bool { return k != 1 })
	return ls
}

// Line returns the variables of line l.
func (ls *Lines) Line(l int32) []int32 { return ls.lineVar[ls.lineStart[l]:ls.lineStart[l+1]] }

// LinesOf returns the lines of variable v, in order.
func (ls *Lines) LinesOf(v int32) []int32 { return ls.varLine[ls.varStart[v]:ls.varStart[v+1]] }

// isSolution reports whether queens (variables, each at most once) is a
// solution of the model: every ExactlyOne line holds exactly one of them
// and every AtMostOne line at most one. count is scratch of one entry per
// line, all zero, and is left all zero.
func (ls *Lines) isSolution(queens []int32, count []int32) bool {
	ok := true
	for _, v := range queens {
		for _, l := range ls.LinesOf(v) {
			count[l]++
			if count[l] > 1 {
				ok = false
			}
		}
	}
	if ok {
		for l, k := range ls.Kind {
			if k == configurator.ExactlyOne && count[l] != 1 {
				ok = false
				break
			}
		}
	}
	for _, v := range queens {
		for _, l := range ls.LinesOf(v) {
			count[l] = 0
		}
	}
	return ok
}
