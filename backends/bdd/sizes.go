package bdd

import (
	"math"

	"github.com/nqueens/configurator/backends/bdd/robdd"
)

// knownNodes are the node counts of the N-Queens diagram, row-major,
// terminals excluded, for N = 1..16: BuDDy's canonical counts up to 13, this
// engine's (with OEIS solution counts) for 14 to 16.
var knownNodes = [...]float64{1, 0, 0, 29, 167, 129, 1099, 2451, 9557, 25945, 94822, 435170, 2044394, 9572418, 51889029, 292364273}

// compileBytes is the budget a compile of the n×n board needs in row-major
// order: the budget's charge for every node of the diagram, terminals
// included. The smallest budget that compiles N = 7..13 is exactly that
// (smaller boards need a little more, for the Manager's smallest tables);
// TestBudgetEstimate keeps it honest.
func compileBytes(n int) float64 {
	return (estimatedNodes(n) + 2) * robdd.BytesPerNode
}

// estimatedNodes estimates the nodes of the n-queens diagram, so that a board
// far beyond the budget is refused at once instead of after minutes of
// compiling: the known count up to 16, and past it the last count grown by
// 5.8x a rank (the ratios of 15 to 14 and of 16 to 15 are 5.4 and 5.6, and
// they grow with N). The budget itself still bounds every compile; this
// only saves the doomed ones.
func estimatedNodes(n int) float64 {
	if n <= len(knownNodes) {
		return knownNodes[n-1]
	}
	return knownNodes[len(knownNodes)-1] * math.Pow(5.8, float64(n-len(knownNodes)))
}
