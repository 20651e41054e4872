package benchmarks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/benchmarks/peers"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// ModelCompile is one compile of a real feature model to a BDD, by the bdd
// backend or by BuDDy: the diagram's size and count, the compile's time
// and the peak resident memory of the process that ran it; or, when the
// compile did not finish, why (Failed).
type ModelCompile struct {
	Features int
	// Nodes is the diagram's size: the bdd backend's is over the features
	// its compile keeps as variables (bdd.ModelSpace.Nodes).
	Nodes int
	// Count is the exact count of configurations (the bdd backend's
	// only), CountLog10 its base-10 logarithm (to four places from
	// BuDDy).
	Count      string `json:",omitempty"`
	CountLog10 float64
	Elapsed    time.Duration
	PeakRSS    uint64
	Failed     string `json:",omitempty"`
	// TooLarge says the compile passed its node budget.
	TooLarge bool `json:",omitempty"`
}

// CompileModelFile compiles the model file at path (UVL or DIMACS) with the
// bdd backend in its default order within budget bytes, and reports the
// diagram (PeakRSS is left to the caller, which runs it in a process of
// its own). A model past the budget is a result with TooLarge set, not an
// error.
func CompileModelFile(ctx context.Context, path string, budget int64) (ModelCompile, error) {
	var r ModelCompile
	m, err := modelfile.Load(path, "")
	if err != nil {
		return r, err
	}
	r.Features = len(m.Features)
	start := time.Now()
	sp, err := bdd.New(bdd.Options{Budget: budget}).CompileModel(ctx, m)
	r.Elapsed = time.Since(start)
	if errors.Is(err, configurator.ErrTooLarge) {
		r.TooLarge, r.Failed = true, err.Error()
		return r, nil
	}
	if err != nil {
		return r, err
	}
	ms := sp.(*bdd.ModelSpace)
	count := ms.Configurations()
	r.Nodes, r.Count, r.CountLog10 = ms.Nodes(), count.String(), log10(count)
	return r, nil
}

// log10 is the base-10 logarithm of a positive x, -1 for zero.
func log10(x *big.Int) float64 {
	if x.Sign() <= 0 {
		return -1
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	if !math.IsInf(f, 0) {
		return math.Log10(f)
	}
	// Past float64: the leading digits and the number of the others.
	s := x.String()
	lead, _ := new(big.Float).SetString(s[:16])
	g, _ := lead.Float64()
	return math.Log10(g) + float64(len(s)-16)
}

// BuildBuDDy builds the BuDDy peer (peers.BuildBuDDy) in dir.
func BuildBuDDy(ctx context.Context, dir string) (string, error) { return peers.BuildBuDDy(ctx, dir) }

// BuDDyModel compiles the CNF file at path with the BuDDy peer built by
// BuildBuDDy, within timeout; a compile that does not finish in it is a
// result with Failed set, not an error.
func BuDDyModel(ctx context.Context, exe, path string, timeout time.Duration) (ModelCompile, error) {
	if _, err := os.Stat(path); err != nil {
		return ModelCompile{}, err
	}
	b, err := peers.RunBuDDy(ctx, exe, path, timeout)
	r := ModelCompile{Features: b.Vars, Nodes: b.Nodes, CountLog10: b.CountLog10, Elapsed: b.Elapsed, PeakRSS: b.PeakRSS}
	if errors.Is(err, peers.ErrBuDDyTimeout) {
		r.Failed, r.Elapsed = fmt.Sprintf("not compiled in %v", timeout), timeout
		return r, nil
	}
	if err != nil {
		r.Failed = err.Error()
	}
	return r, nil
}
