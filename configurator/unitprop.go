package configurator

import "github.com/nqueens/configurator/configurator/feature"

// unitProp propagates units over a model's CNF: what a few literals imply
// clause by clause, a part of what they imply over the configurations
// (sound, not complete: a literal it finds follows, one it misses may
// too). It is cheap beside a solver's question, and PairwiseSample asks
// it first.
type unitProp struct {
	clauses [][]feature.Lit
	// occurs[index(l)] are the clauses that hold the literal -l, those
	// that l's truth shortens.
	occurs [][]int32
	// value is the current assignment by variable: 1 true, -1 false, 0
	// unassigned; base those of its variables the decisions fix.
	value []int8
	base  []feature.Lit
}

// litIndex numbers the literals of a CNF's variables from 0.
func litIndex(l feature.Lit) int {
	if l < 0 {
		return 2 * (int(-l) - 1)
	}
	return 2*(int(l)-1) + 1
}

// newUnitProp prepares the CNF of m and propagates the decisions, which
// some configuration keeps.
func newUnitProp(m *feature.Model, decisions []Decision) *unitProp {
	cnf := m.CNF()
	u := &unitProp{occurs: make([][]int32, 2*cnf.Vars), value: make([]int8, cnf.Vars+1)}
	for i := range cnf.Len() {
		c := cnf.Clause(i)
		u.clauses = append(u.clauses, c)
		for _, l := range c {
			u.occurs[litIndex(-l)] = append(u.occurs[litIndex(-l)], int32(i))
		}
	}
	var units []feature.Lit
	for _, c := range u.clauses {
		if len(c) == 1 {
			units = append(units, c[0])
		}
	}
	for _, d := range decisions {
		units = append(units, d.Lit())
	}
	u.base, _ = u.propagate(nil, units...)
	return u
}

// lit is l's value under the current assignment.
func (u *unitProp) lit(l feature.Lit) int8 {
	if l < 0 {
		return -u.value[-l]
	}
	return u.value[l]
}

// propagate assigns the literals and what they imply clause by clause,
// appending every literal it assigns to trail, and reports false on a
// conflict (trail then holds what was assigned before it).
func (u *unitProp) propagate(trail []feature.Lit, lits ...feature.Lit) ([]feature.Lit, bool) {
	next := len(trail)
	assign := func(l feature.Lit) bool {
		switch u.lit(l) {
		case 1:
			return true
		case -1:
			return false
		}
		if l < 0 {
			u.value[-l] = -1
		} else {
			u.value[l] = 1
		}
		trail = append(trail, l)
		return true
	}
	for _, l := range lits {
		if !assign(l) {
			return trail, false
		}
	}
	for ; next < len(trail); next++ {
		for _, ci := range u.occurs[litIndex(trail[next])] {
			var free feature.Lit
			open, sat := 0, false
			for _, l := range u.clauses[ci] {
				switch u.lit(l) {
				case 1:
					sat = true
				case 0:
					open++
					free = l
				}
				if sat || open > 1 {
					break
				}
			}
			switch {
			case sat || open > 1:
			case open == 0:
				return trail, false
			default:
				if !assign(free) {
					return trail, false
				}
			}
		}
	}
	return trail, true
}

// undo unassigns the literals of trail from index from on.
func (u *unitProp) undo(trail []feature.Lit, from int) {
	for _, l := range trail[from:] {
		u.value[l.Var()] = 0
	}
}

// implied propagates lits on top of the decisions and returns what they
// imply, lits included, and false on a conflict; the assignment is the
// decisions' again after.
func (u *unitProp) implied(lits ...feature.Lit) ([]feature.Lit, bool) {
	trail, ok := u.propagate(nil, lits...)
	u.undo(trail, 0)
	return trail, ok
}
