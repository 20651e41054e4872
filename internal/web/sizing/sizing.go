// Package sizing derives the web server's memory settings from the memory
// it may use (package sysmem reads it, a flag may state it), so that every
// board the server accepts fits and a board that does not is refused, on a
// laptop as on a large machine, instead of a kernel killing the process.
//
// Of the memory M: the runtime's soft limit (GOMEMLIMIT) is two thirds,
// and the peak resident memory the server is sized to stay within is five
// sixths, leaving the rest to the kernel's buffers of the files it writes.
// Within the soft limit: an eighth (at least 256 MiB) for what no bound
// below charges (requests in flight, connections, the SAT solvers' learned
// clauses, the drawings, the runtime's own); the BDD queries' work space,
// an eighth (from 64 MiB to 1 GiB); the feature models' store (the models
// parsed), a sixteenth (from 32 to 256 MiB); and the rest for the compiled
// spaces of the boards and the feature models and the compiles and loads
// under way, one bound for all. The largest
// board is the largest whose compile (or load) fits that bound, and a
// compile's node budget is the whole bound.
package sizing

import "math"

// Plan is the server's memory settings for a memory.
type Plan struct {
	SoftLimit int64 // the runtime's soft memory limit (GOMEMLIMIT)
	Peak      int64 // the bound of the peak resident memory the rest is sized to
	Scratch   int64 // the BDD queries' work space
	Models    int64 // the feature models parsed
	// Cache bounds the compiled spaces and the compiles and loads under
	// way; it is also the node budget of one BDD compile or load.
	Cache int64
	Slots int // heavy compiles of one board size at once
	// MaxN is the largest BDD board, compiled or loaded from its file;
	// CompileMaxN the largest compiled.
	MaxN, CompileMaxN int
}

// The least work space and allowance for what nothing charges, and the
// most work space worth having.
const (
	minOther   = 256 << 20
	minScratch = 64 << 20
	maxScratch = 1 << 30
	minCache   = 16 << 20
	minModels  = 32 << 20
	maxModels  = 256 << 20
)

// For returns the plan for memory bytes. cache, when positive, is the
// bound of the compiled spaces and compiles under way to use instead of
// the sized one (a flag gave it), from which the budget, the largest
// boards and the slots follow. cost(n) is the memory the compile or the
// load of the n×n board holds at its peak (the BDD backend's estimate,
// configurator.Cost, in row order); maxN and compileMaxN are the largest
// boards wanted, loaded and compiled, when memory allows; cores bounds the
// compile slots.
func For(memory, cache int64, cost func(n int) int64, maxN, compileMaxN, cores int) Plan {
	p := Plan{SoftLimit: memory / 3 * 2, Peak: memory / 6 * 5}
	other := max(p.SoftLimit/8, minOther)
	p.Scratch = min(max(p.SoftLimit/8, minScratch), maxScratch)
	p.Models = min(max(p.SoftLimit/16, minModels), maxModels)
	p.Cache = max(p.SoftLimit-other-p.Scratch-p.Models, minCache)
	if cache > 0 {
		p.Cache = cache
	}
	p.MaxN = 1
	for n := maxN; n > 1; n-- {
		if cost(n) <= p.Cache {
			p.MaxN = n
			break
		}
	}
	p.CompileMaxN = min(compileMaxN, p.MaxN)
	p.Slots = int(min(max(p.Cache/max(cost(p.CompileMaxN), 1), 1), int64(max(cores, 1)), math.MaxInt32))
	return p
}
