package varorder_test

import (
	"fmt"

	"github.com/nqueens/configurator/backends/bdd/varorder"
)

// A chain of clauses a-b, b-c, c-d, and a clause a-e whose e the file put
// last, four levels from a. FORCE's first round gives b a c e d, of the
// same span, so FORCE keeps the start. Sifting moves a, b, c and d
// one at a time, each to its best level, and ends with the chain turned
// over, a beside e: every clause spans one level.
func ExampleSift() {
	const a, b, c, d, e = 0, 1, 2, 3, 4
	h := &varorder.Hypergraph{N: 5, Edges: [][]int32{{a, b}, {b, c}, {c, d}, {a, e}}}
	start := varorder.Identity(h.N)
	forced := varorder.Force(h, start)
	sifted := varorder.Sift(h, forced)
	fmt.Println("start", start, "span", h.Span(start))
	fmt.Println("FORCE", forced, "span", h.Span(forced))
	fmt.Println("Sift ", sifted, "span", h.Span(sifted))
	// Output:
	// start [0 1 2 3 4] span 7
	// FORCE [0 1 2 3 4] span 7
	// Sift  [3 2 1 0 4] span 4
}
