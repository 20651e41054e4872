package main

import "fmt"

// bddNodes is the size of the N-Queens BDD in row-major order, terminals
// excluded, for N = 0..14 (the canonical ROBDD: BuDDy's counts to 13, and
// 9,572,418 measured here at 14). Row-major is the smallest of the orders
// the page offers (measured to 12×12: col equals it, middle and diag are
// 4 to 27 % larger), so it is a floor for all of them.
var bddNodes = [...]int64{0, 1, 0, 0, 29, 167, 129, 1099, 2451, 9557, 25945, 94822, 435170, 2044394, 9572418}

// bddCompileBytesPerNode is the budget the BDD backend's direct compiler
// needs per node of the finished diagram, terminals included: 16 bytes a
// node, and as much again at its peak. The smallest budget that compiles
// N = 7..13 is exactly 32 bytes times the nodes and the two terminals
// (small boards need a floor of about 23 KB more); TestBDDBudgetEstimate
// keeps this honest.
const bddCompileBytesPerNode = 32

// bddNeed estimates the node budget the BDD of an n×n board needs. Past
// the table it grows by the table's last ratio (about 4.7 a size).
func bddNeed(n int) int64 {
	if n < len(bddNodes) {
		return bddCompileBytesPerNode * (bddNodes[n] + 2)
	}
	need := float64(bddCompileBytesPerNode * (bddNodes[len(bddNodes)-1] + 2))
	ratio := float64(bddNodes[len(bddNodes)-1]) / float64(bddNodes[len(bddNodes)-2])
	for range n - (len(bddNodes) - 1) {
		need *= ratio
		if need > 1<<62 {
			return 1 << 62
		}
	}
	return int64(need)
}

// bddFits returns the largest board, at most maxN, whose BDD fits the
// budget, and a sentence saying so when the budget, not maxN, is the
// bound. A board beyond it would fail only after compiling for as long as
// the budget lasts (seconds to minutes), so the server refuses it at once.
func bddFits(maxN int, budget int64) (n int, why string) {
	n = maxN
	for n > 1 && bddNeed(n) > budget {
		n--
	}
	if n == maxN {
		return n, ""
	}
	return n, fmt.Sprintf("its node budget of %s holds boards up to %d×%d", formatBytes(budget), n, n)
}
