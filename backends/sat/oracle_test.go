package sat

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/nqueens/configurator/configurator"
)

// oracle is a brute-force enumerator of a model's solutions, written for
// the tests: it reads the constraints directly and shares no code with the
// backend. It walks the cells row-major, puts a queen on a cell or not, and
// prunes when two queens share a line or an ExactlyOne line has passed its
// last cell without a queen.
type oracle struct {
	m         *configurator.Model
	sols      [][]int // each a sorted list of variables
	lineOf    [][]int // variable -> constraints
	lastOf    [][]int // variable -> ExactlyOne constraints whose last cell it is
	constrSet []map[int]bool
}

func newOracle(m *configurator.Model) *oracle {
	o := &oracle{m: m, lineOf: make([][]int, m.Vars()), lastOf: make([][]int, m.Vars())}
	for i, c := range m.Constraints() {
		set := map[int]bool{}
		last := -1
		for _, cell := range c.Cells {
			v := m.Var(cell)
			if !set[v] {
				set[v] = true
				o.lineOf[v] = append(o.lineOf[v], i)
			}
			last = max(last, v)
		}
		o.constrSet = append(o.constrSet, set)
		if c.Kind == configurator.ExactlyOne {
			if last < 0 {
				return o // an empty ExactlyOne line: no solution
			}
			o.lastOf[last] = append(o.lastOf[last], i)
		}
	}
	count := make([]int, len(m.Constraints()))
	var queens []int
	var walk func(v int)
	walk = func(v int) {
		if v == m.Vars() {
			o.sols = append(o.sols, slices.Clone(queens))
			return
		}
		for _, put := range []bool{false, true} {
			if put {
				ok := true
				for _, l := range o.lineOf[v] {
					if count[l] > 0 {
						ok = false
					}
				}
				if !ok {
					continue
				}
				for _, l := range o.lineOf[v] {
					count[l]++
				}
				queens = append(queens, v)
			}
			ok := true
			for _, l := range o.lastOf[v] {
				if count[l] == 0 {
					ok = false
				}
			}
			if ok {
				walk(v + 1)
			}
			if put {
				queens = queens[:len(queens)-1]
				for _, l := range o.lineOf[v] {
					count[l]--
				}
			}
		}
	}
	walk(0)
	return o
}

var oracles sync.Map // N -> *oracle of the N-Queens model

// queensOracle returns the oracle of the N-Queens model of an n×n board,
// built once for all tests.
func queensOracle(m *configurator.Model) *oracle {
	if o, ok := oracles.Load(m.N()); ok {
		return o.(*oracle)
	}
	o := newOracle(m)
	oracles.Store(m.N(), o)
	return o
}

// analyze returns what Analyze must answer for the placement, or nil when
// no solution holds it.
func (o *oracle) analyze(queens []configurator.Cell) *configurator.Analysis {
	n := o.m.N()
	in := make([]int, o.m.Vars())
	total := 0
	for _, s := range o.sols {
		if o.holds(s, queens, nil) {
			total++
			for _, v := range s {
				in[v]++
			}
		}
	}
	if total == 0 {
		return nil
	}
	a := &configurator.Analysis{N: n, Cells: make([]configurator.State, o.m.Vars()), Solutions: big.NewInt(int64(total))}
	for v := range a.Cells {
		switch {
		case in[v] == 0:
			a.Cells[v] = configurator.Blocked
		case in[v] == total:
			a.Cells[v] = configurator.Forced
		default:
			a.Cells[v] = configurator.Free
		}
	}
	for _, q := range queens {
		a.Cells[o.m.Var(q)] = configurator.Queen
	}
	return a
}

// holds reports whether solution s has a queen on every cell of with and
// none on any cell of without.
func (o *oracle) holds(s []int, with, without []configurator.Cell) bool {
	for _, c := range with {
		if _, ok := slices.BinarySearch(s, o.m.Var(c)); !ok {
			return false
		}
	}
	for _, c := range without {
		if _, ok := slices.BinarySearch(s, o.m.Var(c)); ok {
			return false
		}
	}
	return true
}

func (o *oracle) satisfiable(with, without []configurator.Cell) bool {
	for _, s := range o.sols {
		if o.holds(s, with, without) {
			return true
		}
	}
	return false
}

// isSolution reports whether cells is one of the oracle's solutions.
func (o *oracle) isSolution(cells []configurator.Cell) bool {
	vs := make([]int, len(cells))
	for i, c := range cells {
		vs[i] = o.m.Var(c)
	}
	slices.Sort(vs)
	for _, s := range o.sols {
		if slices.Equal(s, vs) {
			return true
		}
	}
	return false
}

// randomCells returns k distinct random cells of an n×n board.
func randomCells(rng *rand.Rand, n, k int) []configurator.Cell {
	var cells []configurator.Cell
	for _, v := range rng.Perm(n * n)[:k] {
		cells = append(cells, configurator.Cell{Row: v / n, Col: v % n})
	}
	return cells
}
