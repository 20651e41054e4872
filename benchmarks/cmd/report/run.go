package main

import (
	"context"
	"fmt"
	"log"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/benchmarks"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// The sections of the suite, in the order they run.
const (
	secCompile = "compile"
	secBDD     = "bdd"
	secSAT     = "sat"
	secServer  = "server"
)

var allSections = []string{secCompile, secBDD, secSAT, secServer}

// plan is what a run measures and within which bounds.
type plan struct {
	Mode     string
	Sections []string
	Seed     uint64
	Deadline time.Duration // of the whole run

	// Compile: every method from N=4 to its maximum, side by side, then
	// the direct path alone up to DirectMax. A compile shorter than
	// CompileMinTime is repeated for a stable median.
	CompileMax     map[string]int
	DirectMax      int
	CompileMinTime time.Duration
	CompileBudget  int64 // bytes of the bdd Manager

	// Per step: the sizes, the walks and each baseline's budget on one
	// board. BDDBaselineMax is the largest board the restrict-per-cell
	// baseline runs on.
	BDDSizes       []int
	BDDBaselineMax int
	BDDWalk        benchmarks.WalkOptions
	BDDBudget      time.Duration
	BDDEmpty       time.Duration
	SATSizes       []int
	SATWalk        func(n int) benchmarks.WalkOptions
	SATBudget      func(n int) Budget

	// Server: each workload at each number of clients for ServerTime.
	Web        string
	Workloads  []workload
	Clients    []int
	ServerTime time.Duration
}

// Budget bounds a baseline on one board: the steps of the walks, and the
// empty board before them.
type Budget struct {
	Steps, Empty time.Duration
}

// workload is the server's load: analyze requests of one backend on one
// board size.
type workload struct {
	Backend string
	N       int
}

func quickPlan() plan {
	return plan{
		Mode:           "quick",
		Deadline:       15 * time.Minute,
		CompileMax:     map[string]int{benchmarks.Direct: 13, benchmarks.Apply: 12, benchmarks.Rudd: 11},
		DirectMax:      14,
		CompileMinTime: 200 * time.Millisecond,
		CompileBudget:  20 << 30,
		BDDSizes:       []int{6, 7, 8, 9, 10, 11, 12, 13, 14},
		BDDBaselineMax: 12,
		BDDWalk:        benchmarks.WalkOptions{Walks: 4, Steps: 50},
		BDDBudget:      8 * time.Second,
		BDDEmpty:       20 * time.Second,
		SATSizes:       []int{8, 20, 50},
		SATWalk: func(n int) benchmarks.WalkOptions {
			if n >= 50 {
				return benchmarks.WalkOptions{Walks: 2, Steps: 50}
			}
			return benchmarks.WalkOptions{Walks: 4, Steps: 50}
		},
		SATBudget: func(n int) Budget {
			switch {
			case n >= 50:
				return Budget{Steps: 4 * time.Second, Empty: 3 * time.Second}
			case n >= 20:
				return Budget{Steps: 8 * time.Second, Empty: 10 * time.Second}
			}
			return Budget{Steps: 5 * time.Second, Empty: 5 * time.Second}
		},
		Workloads:  []workload{{"bdd", 8}, {"bdd", 12}, {"bdd", 14}, {"sat", 20}},
		Clients:    []int{1, 16, 32, 64},
		ServerTime: 3 * time.Second,
	}
}

func fullPlan() plan {
	p := quickPlan()
	p.Mode = "full"
	p.Deadline = 4 * time.Hour
	p.CompileMax = map[string]int{benchmarks.Direct: 13, benchmarks.Apply: 13, benchmarks.Rudd: 12}
	p.DirectMax = 15
	p.CompileMinTime = time.Second
	p.BDDBaselineMax = 14
	p.BDDBudget = 90 * time.Second
	p.BDDEmpty = 10 * time.Minute
	p.SATSizes = []int{8, 12, 16, 20, 30, 40, 50, 75, 100}
	p.SATWalk = func(int) benchmarks.WalkOptions { return benchmarks.WalkOptions{Walks: 4, Steps: 50} }
	p.SATBudget = func(n int) Budget {
		if n >= 50 {
			return Budget{Steps: 60 * time.Second, Empty: 60 * time.Second}
		}
		if n >= 30 {
			return Budget{Steps: 60 * time.Second, Empty: 2 * time.Minute}
		}
		return Budget{Steps: 60 * time.Second, Empty: 5 * time.Minute}
	}
	p.ServerTime = 10 * time.Second
	return p
}

// Results is everything a run measured; RESULTS.json holds it and the
// report is rendered from it.
type Results struct {
	Mode     string
	Machine  Machine
	Date     time.Time
	Elapsed  time.Duration
	Seed     uint64
	Sections []string

	Compile        []benchmarks.CompileResult
	CompileMinTime time.Duration
	CompileMax     map[string]int
	BDDSteps       []benchmarks.StepResult
	SATSteps       []benchmarks.StepResult
	// BDDBaselineMax is the largest board the restrict-per-cell baseline
	// ran on; SATBudgets the baselines' budget per board.
	BDDBaselineMax      int
	BDDBudget, BDDEmpty time.Duration
	SATBudgets          map[int]Budget
	Server              *ServerResults
	Notes               []string
}

func run(ctx context.Context, p plan) (*Results, error) {
	res := &Results{Mode: p.Mode, Machine: thisMachine(), Date: time.Now().UTC(), Seed: p.Seed, Sections: p.Sections}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	log.Printf("%s suite on %s (%d cores), load %s", p.Mode, res.Machine.CPU, res.Machine.Cores, res.Machine.LoadAvg)
	steps := []struct {
		name string
		run  func(context.Context, plan, *Results) error
	}{
		{secCompile, runCompile},
		{secBDD, runBDDSteps},
		{secSAT, runSATSteps},
		{secServer, runServer},
	}
	for _, s := range steps {
		if !slices.Contains(p.Sections, s.name) {
			continue
		}
		t := time.Now()
		if err := s.run(ctx, p, res); err != nil {
			return res, fmt.Errorf("%s: %w", s.name, err)
		}
		log.Printf("%s done in %v", s.name, time.Since(t).Round(time.Millisecond))
		freeMemory()
	}
	return res, nil
}

// freeMemory returns the heap of a finished measurement to the system, so
// that the next one starts from the same place.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

func runCompile(ctx context.Context, p plan, res *Results) error {
	res.CompileMinTime, res.CompileMax = p.CompileMinTime, p.CompileMax
	largest := max(p.DirectMax, p.CompileMax[benchmarks.Direct])
	failed := map[string]bool{}
	for n := 4; n <= largest; n++ {
		for _, method := range benchmarks.CompileMethods {
			limit := p.CompileMax[method]
			if method == benchmarks.Direct {
				limit = largest
			}
			if n > limit || failed[method] {
				continue
			}
			r, err := benchmarks.Compile(ctx, method, n, p.CompileMinTime, p.CompileBudget)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				failed[method] = true
				res.Notes = append(res.Notes, fmt.Sprintf("Compile with %s stopped at N=%d: %v.", method, n, err))
				log.Printf("compile %s n=%d: %v", method, n, err)
				continue
			}
			log.Printf("compile %-6s n=%-2d %10v  peak heap %s  nodes %d", method, n, r.Time.Round(time.Microsecond), bytesIEC(r.PeakHeap), r.Nodes)
			res.Compile = append(res.Compile, r)
			freeMemory()
		}
	}
	return nil
}

func runBDDSteps(ctx context.Context, p plan, res *Results) error {
	res.BDDBaselineMax, res.BDDBudget, res.BDDEmpty = p.BDDBaselineMax, p.BDDBudget, p.BDDEmpty
	for _, n := range p.BDDSizes {
		model, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			return err
		}
		sp, err := bdd.New(bdd.Options{Budget: p.CompileBudget}).Compile(ctx, model)
		if err != nil {
			return err
		}
		var baselines []benchmarks.NamedBaseline
		if n <= p.BDDBaselineMax {
			b, err := benchmarks.NewRestrictPerCell(sp.(*bdd.Space))
			if err != nil {
				return err
			}
			baselines = append(baselines, benchmarks.NamedBaseline{Name: "restrict-per-cell", Baseline: b})
		}
		walk := p.BDDWalk
		walk.Seed = p.Seed
		opt := benchmarks.StepOptions{Walk: walk, Budget: p.BDDBudget, EmptyBudget: p.BDDEmpty, Parts: bddParts(sp.(*bdd.Space))}
		r, err := benchmarks.CompareSteps(ctx, "bdd", sp, baselines, opt)
		if err != nil {
			return err
		}
		logSteps(r)
		res.BDDSteps = append(res.BDDSteps, r)
		sp, baselines = nil, nil
		freeMemory()
	}
	return nil
}

// bddParts splits the bdd Space's Analyze into the Manager's two
// questions: the valid domains (the configurator's question, which the
// baseline answers too) and the solution count (which it does not). Each
// gets the assignment Analyze builds: the queens true and the cells they
// attack false (model.Attacks, listed once here, as the Space lists them
// at compile time).
func bddParts(sp *bdd.Space) []benchmarks.Part {
	m, root, model := sp.Manager(), sp.Root(), sp.Model()
	attacked := make([][]int, model.Vars())
	for v := range attacked {
		for w := range model.Vars() {
			if model.Attacks(model.Cell(v), model.Cell(w)) {
				attacked[v] = append(attacked[v], model.Level(w))
			}
		}
	}
	assign := func(queens []configurator.Cell) robdd.Assignment {
		a := m.NewAssignment()
		for _, q := range queens {
			for _, l := range attacked[model.Var(q)] {
				a[l] = 0
			}
		}
		for _, q := range queens {
			a[model.Level(model.Var(q))] = 1
		}
		return a
	}
	return []benchmarks.Part{
		{Name: "valid domains", Run: func(_ context.Context, queens []configurator.Cell) error {
			if d, _ := m.ValidDomains(root, assign(queens)); len(d) > 0 && d[0] == 0 {
				return configurator.ErrNoSolution
			}
			return nil
		}},
		{Name: "count", Run: func(_ context.Context, queens []configurator.Cell) error {
			if m.Count(root, assign(queens)).Sign() == 0 {
				return configurator.ErrNoSolution
			}
			return nil
		}},
	}
}

func runSATSteps(ctx context.Context, p plan, res *Results) error {
	res.SATBudgets = map[int]Budget{}
	for _, n := range p.SATSizes {
		model, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			return err
		}
		sp, err := sat.New(sat.Options{MaxN: max(n, sat.DefaultMaxN)}).Compile(ctx, model)
		if err != nil {
			return err
		}
		baselines := []benchmarks.NamedBaseline{
			{Name: "fresh-sat/cnf", Baseline: benchmarks.NewFreshSAT(model, benchmarks.Pairwise)},
			{Name: "fresh-sat/card", Baseline: benchmarks.NewFreshSAT(model, benchmarks.Cardinality)},
		}
		walk := p.SATWalk(n)
		walk.Seed = p.Seed
		res.SATBudgets[n] = p.SATBudget(n)
		r, err := benchmarks.CompareSteps(ctx, "sat", sp, baselines, benchmarks.StepOptions{Walk: walk, Budget: p.SATBudget(n).Steps, EmptyBudget: p.SATBudget(n).Empty})
		if err != nil {
			return err
		}
		logSteps(r)
		res.SATSteps = append(res.SATSteps, r)
		freeMemory()
	}
	return nil
}

func logSteps(r benchmarks.StepResult) {
	log.Printf("%s n=%-3d ours p50 %v p99 %v (%d steps), empty %v", r.Backend, r.N, r.Ours.P50, r.Ours.P99, r.Ours.Count, r.Empty)
	for _, b := range r.Baselines {
		log.Printf("    %-18s p50 %v p99 %v over %d steps (%d estimated), empty %v: x%.1f p50, x%.1f p99",
			b.Name, b.Latency.P50, b.Latency.P99, b.Sampled, b.Estimated, b.Empty, b.RatioP50(), b.RatioP99())
	}
}

// bytesIEC writes a byte count as the rest of the project does
// (bytesize.Format): a binary unit and at most one decimal.
func bytesIEC(b uint64) string { return bytesize.Format(int64(b)) }
