package sat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/nqueens/configurator/backends/sat/internal/satbase"
	"github.com/nqueens/configurator/configurator"
)

// board is a model's lines (satbase.Lines) with what this backend derives
// from them for its hot paths: propagation, the local search, the
// encoding and the symmetries. A board is immutable after newBoard.
type board struct {
	satbase.Lines
	n, nv int
	// exact marks the lines that hold exactly one queen in every solution:
	// the ExactlyOne lines and the AtMostOne lines that the others imply
	// (see implyExact). Propagation, the encoding, the symmetries and the
	// forced cells use it; the verification of solutions and the local
	// search use Kind.
	exact []bool
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

// newBoard derives the board of an n×n model from its lines.
func newBoard(n int, ls satbase.Lines) *board {
	b := &board{Lines: ls, n: n, nv: n * n}
	b.search = b.newSearchBoard()
	b.exact = make([]bool, len(b.Kind))
	for l, k := range b.Kind {
		b.exact[l] = k == configurator.ExactlyOne
	}
	if b.Partition {
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
// learning cannot find quickly, and stating it leaves to unit propagation
// refutations that would cost gophersat long searches. The lines are picked greedily in
// order; a model whose cover the greedy choice misses only loses the
// speed-up, never correctness.
func (b *board) implyExact() {
	k := len(b.search.groupLine)
	taken := make([]bool, b.nv)
	var lines []int32
	covered := 0
	for l, kind := range b.Kind {
		if kind != configurator.AtMostOne {
			continue
		}
		vars := b.Line(int32(l))
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

// newSearchBoard groups the variables by ExactlyOne line, or returns nil
// when two ExactlyOne lines share a variable.
func (b *board) newSearchBoard() *searchBoard {
	sb := &searchBoard{amoStart: make([]int32, 1, b.nv+1)}
	covered := make([]bool, b.nv)
	for l, k := range b.Kind {
		if k != configurator.ExactlyOne {
			continue
		}
		for _, v := range b.Line(int32(l)) {
			if covered[v] {
				return nil
			}
			covered[v] = true
		}
		sb.groupLine = append(sb.groupLine, int32(l))
	}
	for v := range int32(b.nv) {
		for _, l := range b.LinesOf(v) {
			if b.Kind[l] == configurator.AtMostOne {
				sb.amoLine = append(sb.amoLine, l)
			}
		}
		sb.amoStart = append(sb.amoStart, int32(len(sb.amoLine)))
	}
	return sb
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
	have := make(map[string]bool, len(b.Kind))
	for l, x := range b.exact {
		have[key(x, b.Line(int32(l)))] = true
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
			for _, v := range b.Line(int32(l)) {
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
