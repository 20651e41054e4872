package sat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
)

// board is a model's constraints flattened into integer slices for the hot
// paths: propagation, local search, verification and the CNF. Variables
// are the model's (row-major cells), lines are its constraints, minus those
// that constrain nothing (an AtMostOne of fewer than two cells). A board is
// immutable after newBoard.
type board struct {
	n, nv int
	kind  []configurator.Kind // per line, as the model says
	// exact marks the lines that hold exactly one queen in every solution:
	// the ExactlyOne lines and the AtMostOne lines that the others imply
	// (see implyExact). Propagation, the CNF, the symmetries and the forced
	// cells use it; verification and the local search use kind.
	exact []bool
	// Line l holds the variables lineVar[lineStart[l]:lineStart[l+1]],
	// without duplicates.
	lineStart []int32
	lineVar   []int32
	// Variable v is on the lines varLine[varStart[v]:varStart[v+1]].
	varStart []int32
	varLine  []int32
	// dead is set when an ExactlyOne line has no cell: no solution at all.
	dead bool
	// units are the variables of one-cell ExactlyOne lines: every solution
	// holds them. They never enter the solver's base problem, whose unit
	// clauses gophersat's Assume would lose; they are assumed instead.
	units []int32
	// partition is set when every variable is on exactly one ExactlyOne
	// line (the ranks of N-Queens): then every solution has one queen per
	// such line, solutions differ in their queens alone, and a blocking
	// clause needs only the queens.
	partition bool
	// search is the structure the local search needs, nil when the
	// ExactlyOne lines overlap and the search does not apply.
	search *searchBoard
	// syms are the board symmetries, other than the identity, that map the
	// model's constraints onto themselves, as permutations of variables.
	syms [][]int32
}

// searchBoard describes the model for the min-conflicts search: the
// disjoint ExactlyOne lines are groups that each choose one cell, and the
// AtMostOne lines are what the choices may break.
type searchBoard struct {
	groupLine []int32 // group -> its ExactlyOne line
	// Variable v is on the AtMostOne lines amoLine[amoStart[v]:amoStart[v+1]].
	amoStart []int32
	amoLine  []int32
}

func newBoard(m *configurator.Model) *board {
	n := m.N()
	ls := satbase.Flatten(m)
	b := &board{n: n, nv: n * n, kind: ls.Kind, lineStart: ls.Start, lineVar: ls.Var, dead: ls.Dead, units: ls.Units}
	perVar := make([][]int32, b.nv)
	for l := range int32(len(b.kind)) {
		for _, v := range b.line(l) {
			perVar[v] = append(perVar[v], l)
		}
	}
	b.varStart = make([]int32, 1, b.nv+1)
	for _, ls := range perVar {
		b.varLine = append(b.varLine, ls...)
		b.varStart = append(b.varStart, int32(len(b.varLine)))
	}
	b.search, b.partition = b.newSearchBoard()
	b.exact = make([]bool, len(b.kind))
	for l, k := range b.kind {
		b.exact[l] = k == configurator.ExactlyOne
	}
	if b.partition {
		b.implyExact()
	}
	b.syms = b.symmetries()
	return b
}

// implyExact marks AtMostOne lines that must hold exactly one queen. When
// the k ExactlyOne lines partition the board, every solution has k queens;
// if k pairwise disjoint AtMostOne lines also cover the board, each holds at
// most one of those k queens, so each holds exactly one. For N-Queens these
// are the files: "one queen per file" is the pigeonhole argument that clause
// learning cannot find quickly, and stating it turns refutations that took
// gophersat seconds into unit propagation. The lines are picked greedily in
// order; a model whose cover the greedy choice misses only loses the
// speed-up, never correctness.
func (b *board) implyExact() {
	k := len(b.search.groupLine)
	taken := make([]bool, b.nv)
	var lines []int32
	covered := 0
	for l, kind := range b.kind {
		if kind != configurator.AtMostOne {
			continue
		}
		vars := b.line(int32(l))
		if slices.ContainsFunc(vars, func(v int32) bool { return taken[v] }) {
			continue
		}
		for _, v := range vars {
			taken[v] = true
		}
		covered += len(vars)
		lines = append(lines, int32(l))
	}
	if covered != b.nv || len(lines) != k {
		return
	}
	for _, l := range lines {
		b.exact[l] = true
	}
}

// line returns the variables of line l.
func (b *board) line(l int32) []int32 { return b.lineVar[b.lineStart[l]:b.lineStart[l+1]] }

// lines returns the lines of variable v.
func (b *board) lines(v int32) []int32 { return b.varLine[b.varStart[v]:b.varStart[v+1]] }

// newSearchBoard groups the variables by ExactlyOne line, or returns nil
// when two ExactlyOne lines share a variable. partition reports whether the
// groups cover every variable.
func (b *board) newSearchBoard() (sb *searchBoard, partition bool) {
	sb = &searchBoard{amoStart: make([]int32, 1, b.nv+1)}
	covered := make([]bool, b.nv)
	for l, k := range b.kind {
		if k != configurator.ExactlyOne {
			continue
		}
		for _, v := range b.line(int32(l)) {
			if covered[v] {
				return nil, false
			}
			covered[v] = true
		}
		sb.groupLine = append(sb.groupLine, int32(l))
	}
	for v := range int32(b.nv) {
		for _, l := range b.lines(v) {
			if b.kind[l] == configurator.AtMostOne {
				sb.amoLine = append(sb.amoLine, l)
			}
		}
		sb.amoStart = append(sb.amoStart, int32(len(sb.amoLine)))
	}
	return sb, !slices.Contains(covered, false)
}

// transforms are the eight symmetries of the square, as maps of a cell
// (r, c) on an n×n board.
var transforms = [...]func(n, r, c int) (int, int){
	func(n, r, c int) (int, int) { return c, n - 1 - r },         // rotate 90°
	func(n, r, c int) (int, int) { return n - 1 - r, n - 1 - c }, // rotate 180°
	func(n, r, c int) (int, int) { return n - 1 - c, r },         // rotate 270°
	func(n, r, c int) (int, int) { return r, n - 1 - c },         // mirror files
	func(n, r, c int) (int, int) { return n - 1 - r, c },         // mirror ranks
	func(n, r, c int) (int, int) { return c, r },                 // main diagonal
	func(n, r, c int) (int, int) { return n - 1 - c, n - 1 - r }, // anti-diagonal
}

// symmetries returns the non-identity symmetries of the square that map
// every line onto a line that is exact when it is (see board.exact): they
// map the constraints onto constraints with the same solutions, so the
// image of a solution is a solution. Lines that constrain nothing were
// dropped by newBoard; an AtMostOne of one cell has no effect on the
// solutions, so dropping it keeps this exact. For N-Queens, where the files
// are exact like the ranks, all seven qualify.
func (b *board) symmetries() [][]int32 {
	key := func(exact bool, vars []int32) string {
		s := slices.Clone(vars)
		slices.Sort(s)
		var sb strings.Builder
		sb.WriteString(strconv.FormatBool(exact))
		for _, v := range s {
			sb.WriteByte(',')
			sb.WriteString(strconv.Itoa(int(v)))
		}
		return sb.String()
	}
	have := make(map[string]bool, len(b.kind))
	for l, x := range b.exact {
		have[key(x, b.line(int32(l)))] = true
	}
	var syms [][]int32
	img := make([]int32, 0, b.n)
outer:
	for _, t := range transforms {
		perm := make([]int32, b.nv)
		for v := range b.nv {
			r, c := t(b.n, v/b.n, v%b.n)
			perm[v] = int32(r*b.n + c)
		}
		for l, x := range b.exact {
			img = img[:0]
			for _, v := range b.line(int32(l)) {
				img = append(img, perm[v])
			}
			if !have[key(x, img)] {
				continue outer
			}
		}
		syms = append(syms, perm)
	}
	return syms
}

// verify reports whether queens (a list of variables, each at most once)
// is a solution of the model: every ExactlyOne line holds exactly one of
// them and every AtMostOne line at most one. count is scratch of one entry
// per line, all zero, and is left all zero.
func (b *board) verify(queens []int32, count []int32) bool {
	ok := true
	for _, v := range queens {
		for _, l := range b.lines(v) {
			count[l]++
			if count[l] > 1 {
				ok = false
			}
		}
	}
	if ok {
		for l, k := range b.kind {
			if k == configurator.ExactlyOne && count[l] != 1 {
				ok = false
				break
			}
		}
	}
	for _, v := range queens {
		for _, l := range b.lines(v) {
			count[l] = 0
		}
	}
	return ok
}
