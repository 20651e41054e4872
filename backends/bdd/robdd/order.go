package robdd

import (
	"fmt"
	"slices"
)

// Variables and levels. A Manager's variables are numbered 0..Vars()-1
// once and for all; its levels are the positions of the order, 0 at the
// top. A reordering (Reorder, SetOrder) moves variables to other levels
// and leaves their numbers alone, so that everything a caller names by
// variable keeps its meaning across it: the arguments of Var, NVar and
// Exists, an Assignment, and the results of the queries (solutions,
// valid domains, marginals) are indexed by variable. What describes the
// diagram's shape is by level: Level(n), MakeNode and LevelBuilder,
// LevelProfile and LevelSizes. VarAt and LevelOf go from one to the
// other. A new Manager's order is the identity (variable l at level l),
// where variables and levels coincide.

// VarAt is the variable at level l.
func (m *Manager) VarAt(l int) int {
	if m.varAt == nil {
		return l
	}
	return int(m.varAt[l])
}

// LevelOf is the level of variable v.
func (m *Manager) LevelOf(v int) int {
	if m.levelOf == nil {
		return v
	}
	return int(m.levelOf[v])
}

// Order returns the variables from the top level down: Order()[l] is
// VarAt(l).
func (m *Manager) Order() []int {
	order := make([]int, m.vars)
	for l := range order {
		order[l] = m.VarAt(l)
	}
	return order
}

// checkVar returns an error when v is not a variable of m.
func (m *Manager) checkVar(v int) error {
	if v < 0 || v >= m.vars {
		return fmt.Errorf("variable %d of %d", v, m.vars)
	}
	return nil
}

// byLevel returns a indexed by level: a itself while the order is the
// identity (or a is nil), a permuted copy otherwise.
func (m *Manager) byLevel(a Assignment) Assignment {
	if m.varAt == nil || a == nil {
		return a
	}
	out := make(Assignment, len(a))
	for l, v := range m.varAt {
		out[l] = a[v]
	}
	return out
}

// byVar returns s, indexed by level, indexed by variable instead: s itself
// while the order is the identity, a permuted copy otherwise.
func byVar[T any](m *Manager, s []T) []T {
	if m.varAt == nil || s == nil {
		return s
	}
	out := make([]T, len(s))
	for l, v := range m.varAt {
		out[v] = s[l]
	}
	return out
}

// setOrder makes varAt the order (and drops the slices when it is the
// identity, the paths of which pay nothing for the permutation).
func (m *Manager) setOrder(varAt []uint32) {
	identity := true
	for l, v := range varAt {
		if int(v) != l {
			identity = false
			break
		}
	}
	if identity {
		m.varAt, m.levelOf = nil, nil
		return
	}
	m.varAt = slices.Clone(varAt)
	m.levelOf = make([]uint32, len(varAt))
	for l, v := range varAt {
		m.levelOf[v] = uint32(l)
	}
}

// checkOrder returns an error unless order is a permutation of m's
// variables.
func (m *Manager) checkOrder(order []int) error {
	return checkPermutation(m, order)
}

// checkOrder32 is checkOrder of an order as a Manager keeps it.
func (m *Manager) checkOrder32(order []uint32) error {
	return checkPermutation(m, order)
}

func checkPermutation[T int | uint32](m *Manager, order []T) error {
	if len(order) != m.vars {
		return fmt.Errorf("an order of %d variables for a manager of %d", len(order), m.vars)
	}
	seen := make([]bool, m.vars)
	for _, x := range order {
		if x < 0 || int(x) >= m.vars {
			return fmt.Errorf("order: variable %d of %d", x, m.vars)
		}
		if seen[x] {
			return fmt.Errorf("order: variable %d twice", x)
		}
		seen[x] = true
	}
	return nil
}
