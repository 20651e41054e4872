package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/benchmarks"
	"github.com/nqueens/configurator/benchmarks/paint"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// The sections of the suite, in the order they run.
const (
	secCompile = "compile"
	secDisk    = "disk"
	secBDD     = "bdd"
	secSAT     = "sat"
	secServer  = "server"
	secPaint   = "paint"
	secBuDDy   = "buddy"
)

// allSections are the sections of the board suite, which a run measures
// unless told otherwise; extraSections those it measures only when named.
var (
	allSections   = []string{secCompile, secDisk, secBDD, secSAT, secServer, secPaint}
	extraSections = []string{secModels, secBuDDy, secSamples}
)

// plan is what a run measures and within which bounds.
type plan struct {
	Mode     string
	Sections []string
	Seed     uint64
	Deadline time.Duration // of the whole run
	// CacheDir is the run's own directory of compiled spaces, made empty
	// at the start and removed at the end, so that no figure depends on
	// what the user's cache holds.
	CacheDir string
	// Boards, when not empty, keeps every section to these board sizes
	// (-boards): to measure again the rows of one board.
	Boards []int

	// Compile: every method from N=4 to its maximum, side by side, then
	// the direct path alone up to DirectMax. A compile shorter than
	// CompileMinTime is repeated for a stable median. Boards from
	// ChildFrom on are compiled in a child process of their own, through
	// the bdd backend into the run's cache directory, within Child's
	// limits (see compileInChild).
	CompileMax     map[string]int
	DirectMax      int
	CompileMinTime time.Duration
	CompileBudget  int64 // bytes of the bdd Manager
	ChildFrom      int
	Child          func(n int) childLimits

	// Disk: compile into the run's cache directory, then load from it.
	DiskSizes []int

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

	// Server: each workload at each number of clients for ServerTime,
	// and for TargetTime at TargetClients, the runs that the large
	// boards' throughput targets compare.
	Web                    string
	Workloads              []workload
	Clients                []int
	ServerTime, TargetTime time.Duration
	TargetClients          int

	// Models: the real models of ModelsDir through the API, ModelWalks
	// walks of ModelSteps decisions each, the baseline within
	// ModelBaselineBudget per model.
	ModelsDir              string
	ModelWalks, ModelSteps int
	ModelBaselineBudget    time.Duration

	// Paint: each walk PaintRuns times in headless Chromium against the
	// server (Web, or built), which keeps its spaces in CacheDir.
	PaintWalks []paint.Walk
	PaintRuns  int

	// BuDDy: every model file of ModelsDir compiled by the bdd backend
	// within BuDDyBudget bytes and, a CNF file, by BuDDy, each within
	// BuDDyTimeout.
	BuDDyTimeout time.Duration
	BuDDyBudget  int64

	// Samples: every model file of ModelsDir sampled pairwise on the bdd
	// and the sat backend, each within SampleTimeout.
	SampleTimeout time.Duration
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

// budget is the bdd backend's budget for a space of the n×n board that
// the suite loads from its cache directory: the child's for the boards
// compiled in one, so that a load that fell back on compiling (the
// backend compiles a file it cannot load) stays within the child's
// bound; the in-process compile's otherwise.
func (p plan) budget(n int) int64 {
	if p.ChildFrom > 0 && n >= p.ChildFrom {
		return p.Child(n).Budget
	}
	return p.CompileBudget
}

// measures reports whether the plan measures the n×n board.
func (p plan) measures(n int) bool { return len(p.Boards) == 0 || slices.Contains(p.Boards, n) }

func quickPlan() plan {
	return plan{
		Mode:           "quick",
		Deadline:       15 * time.Minute,
		CompileMax:     map[string]int{benchmarks.Direct: 13, benchmarks.Apply: 12, benchmarks.Rudd: 11},
		DirectMax:      14,
		CompileMinTime: 200 * time.Millisecond,
		CompileBudget:  20 << 30,
		ChildFrom:      15,
		Child:          childPlan,
		DiskSizes:      []int{10, 11, 12, 13, 14},
		BDDSizes:       []int{6, 7, 8, 9, 10, 11, 12, 13, 14},
		BDDBaselineMax: 12,
		BDDWalk:        benchmarks.WalkOptions{Walks: 4, Steps: 50},
		BDDBudget:      8 * time.Second,
		BDDEmpty:       30 * time.Second, // restrict-per-cell on the empty 12×12 board takes seconds
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
		Workloads:     []workload{{"bdd", 8}, {"bdd", 12}, {"bdd", 14}, {"sat", 20}},
		Clients:       []int{1, 16, 32, 64},
		ServerTime:    3 * time.Second,
		TargetTime:    10 * time.Second,
		TargetClients: 32,

		ModelWalks:          2,
		ModelSteps:          20,
		ModelBaselineBudget: time.Minute,
		PaintRuns:           3,
		BuDDyTimeout:        120 * time.Second, // BuDDy's on these models in shared/README.md
		// The bdd backend's: what the server gives one compile on a
		// machine of 24 GiB (package sizing).
		BuDDyBudget:   12 << 30,
		SampleTimeout: 5 * time.Minute,
	}
}

// childPlan bounds the compile of the n×n board in a child process: 16×16
// gets the 12 GiB of its target as its budget and is killed at 13 GiB
// resident (the machine has no swap and is shared), smaller boards
// proportionally less; each has 20 minutes.
func childPlan(n int) childLimits {
	budget := int64(12 << 30)
	if n <= 15 {
		budget = 6 << 30
	}
	return childLimits{Budget: budget, MaxRSS: uint64(budget) + 1<<30, Timeout: 20 * time.Minute}
}

func fullPlan() plan {
	p := quickPlan()
	p.Mode = "full"
	p.Deadline = 4 * time.Hour
	p.CompileMax = map[string]int{benchmarks.Direct: 13, benchmarks.Apply: 13, benchmarks.Rudd: 12}
	p.DirectMax = 16
	p.DiskSizes = []int{10, 11, 12, 13, 14, 15, 16}
	p.BDDSizes = append(p.BDDSizes, 15, 16)
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
	p.TargetTime = 30 * time.Second
	p.ModelWalks = 5
	p.ModelBaselineBudget = 10 * time.Minute
	p.PaintRuns = 5
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
	// Boards are the board sizes the run was kept to (-boards); none: all.
	Boards []int `json:",omitempty"`

	Compile        []benchmarks.CompileResult
	CompileMinTime time.Duration
	CompileMax     map[string]int
	// ChildFrom is the smallest board compiled in a child process;
	// Failures the compiles that did not finish, and why.
	ChildFrom int
	Failures  []Failure
	// Disk is each board compiled into a cache directory and loaded back.
	Disk     []benchmarks.DiskResult
	BDDSteps []benchmarks.StepResult
	SATSteps []benchmarks.StepResult
	// BDDBaselineMax is the largest board the restrict-per-cell baseline
	// ran on; SATBudgets the baselines' budget per board.
	BDDBaselineMax      int
	BDDBudget, BDDEmpty time.Duration
	SATBudgets          map[int]Budget
	Server              *ServerResults
	Models              *ModelsResults `json:",omitempty"`
	Paint               *PaintResults  `json:",omitempty"`
	// BuDDy are the real models compiled by the bdd backend and BuDDy.
	BuDDy        []BuDDyRow    `json:",omitempty"`
	BuDDyTimeout time.Duration `json:",omitempty"`
	BuDDyBudget  int64         `json:",omitempty"`
	// Samples are the real models' pairwise samples, each backend's.
	Samples       []SampleRow   `json:",omitempty"`
	SampleTimeout time.Duration `json:",omitempty"`
	Notes         []string
	// Larger is the compile section of the report of the larger boards
	// (LargerDir, `make bench-large`) as a quick run found it, for the
	// node counts it alone measures.
	Larger *LargerRun `json:",omitempty"`
}

// LargerDir is where, below a quick report's directory, `make bench-large`
// writes the report of the larger boards.
const LargerDir = "large"

// LargerRun is the part of another run's results that a report shows
// beside its own: when and how they were measured, and the compiles.
type LargerRun struct {
	Date    time.Time
	Machine Machine
	Compile []benchmarks.CompileResult
}

// Failure is a measurement that did not finish: a compile beyond its
// memory cap or its time, or refused by its budget.
type Failure struct {
	Method string
	N      int
	Err    string
	// PeakRSS is the peak resident memory of the child process that
	// failed, if it ran in one; Elapsed how long it ran.
	PeakRSS uint64
	Elapsed time.Duration
	// NotStarted says the compile was not started, the machine lacking
	// the memory its cap asks: no verdict on the compile itself.
	NotStarted bool `json:",omitempty"`
}

func run(ctx context.Context, p plan) (*Results, error) {
	res := &Results{Mode: p.Mode, Machine: thisMachine(), Date: time.Now().UTC(), Seed: p.Seed, Sections: p.Sections, Boards: p.Boards}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	dir, err := os.MkdirTemp("", "nqueens-bench-spaces-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	p.CacheDir = dir
	log.Printf("%s suite on %s (%d cores), load %s", p.Mode, res.Machine.CPU, res.Machine.Cores, res.Machine.LoadAvg)
	steps := []struct {
		name string
		run  func(context.Context, plan, *Results) error
	}{
		{secCompile, runCompile},
		{secDisk, runDisk},
		{secBDD, runBDDSteps},
		{secSAT, runSATSteps},
		{secServer, runServer},
		{secModels, runModels},
		{secPaint, runPaint},
		{secBuDDy, runBuDDy},
		{secSamples, runSamples},
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
	res.CompileMinTime, res.CompileMax, res.ChildFrom = p.CompileMinTime, p.CompileMax, p.ChildFrom
	largest := max(p.DirectMax, p.CompileMax[benchmarks.Direct])
	failed := map[string]bool{}
	for n := 4; n <= largest; n++ {
		if !p.measures(n) {
			continue
		}
		for _, method := range benchmarks.CompileMethods {
			limit := p.CompileMax[method]
			if method == benchmarks.Direct {
				limit = largest
			}
			if n > limit || failed[method] {
				continue
			}
			if method == benchmarks.Direct && p.ChildFrom > 0 && n >= p.ChildFrom {
				if err := onDisk(ctx, p, res, n); err != nil {
					if ctx.Err() != nil {
						return err
					}
					failed[method] = true
				}
				continue
			}
			r, err := benchmarks.Compile(ctx, method, n, p.CompileMinTime, p.CompileBudget)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				failed[method] = true
				res.Failures = append(res.Failures, Failure{Method: method, N: n, Err: err.Error()})
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

// onDisk makes sure the run's cache directory holds the n×n space: it
// compiles it there (in a child process from p.ChildFrom on) unless the
// run already did, and records the compile in res.Disk and, from a child,
// in res.Compile as the direct path's (the backend's Compile less the
// write of the file). A compile that fails is recorded in res.Failures
// and returned.
func onDisk(ctx context.Context, p plan, res *Results, n int) error {
	if diskAt(res, n) != nil {
		return nil
	}
	if p.ChildFrom > 0 && n >= p.ChildFrom {
		lim := p.Child(n)
		if avail, err := benchmarks.MemInfo("MemAvailable"); err == nil && avail < lim.MaxRSS+2<<30 {
			err := fmt.Errorf("compile %d-queens not started: %s of memory available, the child may take %s and the machine must keep 2 GiB", n, bytesIEC(avail), bytesIEC(lim.MaxRSS))
			res.Failures = append(res.Failures, Failure{Method: benchmarks.Direct, N: n, Err: err.Error(), NotStarted: true})
			log.Print(err)
			return err
		}
		log.Printf("compile direct n=%d in a child process (budget %s, killed at %s resident, %s at most)", n, bytesIEC(uint64(lim.Budget)), bytesIEC(lim.MaxRSS), fmtDur(lim.Timeout))
		c, err := compileInChild(ctx, n, p.CacheDir, lim)
		if err != nil {
			res.Failures = append(res.Failures, Failure{Method: benchmarks.Direct, N: n, Err: err.Error(), PeakRSS: c.PeakRSS, Elapsed: c.Elapsed})
			log.Printf("compile direct n=%d: %v (peak RSS %s)", n, err, bytesIEC(c.PeakRSS))
			return err
		}
		d := c.Disk
		res.Disk = append(res.Disk, d)
		r := benchmarks.CompileResult{Method: benchmarks.Direct, N: n, Time: d.Compile - d.Save, Runs: 1, PeakHeap: d.CompilePeakHeap,
			PeakRSS: c.PeakRSS, Nodes: d.Nodes, Stored: d.Nodes + 2, Solutions: d.Solutions, Child: true}
		res.Compile = append(res.Compile, r)
		log.Printf("compile direct n=%-2d %10v  peak RSS %s  nodes %d  (child; file %s written in %v)", n, r.Time.Round(time.Millisecond), bytesIEC(r.PeakRSS), r.Nodes, bytesIEC(uint64(d.FileBytes)), d.Save.Round(time.Millisecond))
		return nil
	}
	d, err := benchmarks.CompileToDisk(ctx, n, p.CacheDir, p.CompileBudget)
	if err != nil {
		return err
	}
	res.Disk = append(res.Disk, d)
	return nil
}

// room checks, for the boards measured in the suite's process after a
// child compiled them, that the machine has the memory the measurement
// may take and 2 GiB to spare: the machine has no swap.
func room(p plan, n int, need int64) error {
	if p.ChildFrom == 0 || n < p.ChildFrom {
		return nil
	}
	avail, err := benchmarks.MemInfo("MemAvailable")
	if err != nil || avail >= uint64(need)+2<<30 {
		return nil
	}
	return fmt.Errorf("%s of memory available, the %d×%d space may take %s and the machine must keep 2 GiB", bytesIEC(avail), n, n, bytesIEC(uint64(need)))
}

func diskAt(res *Results, n int) *benchmarks.DiskResult {
	for i, d := range res.Disk {
		if d.N == n {
			return &res.Disk[i]
		}
	}
	return nil
}

// runDisk compiles each board into the run's cache directory (unless the
// compile section did) and loads it back with a new backend.
func runDisk(ctx context.Context, p plan, res *Results) error {
	for _, n := range p.DiskSizes {
		if !p.measures(n) {
			continue
		}
		if err := onDisk(ctx, p, res, n); err != nil {
			if ctx.Err() != nil {
				return err
			}
			res.Notes = append(res.Notes, fmt.Sprintf("Disk: N=%d not measured: %v.", n, err))
			continue
		}
		d := diskAt(res, n)
		if err := room(p, n, int64(d.Nodes)*robdd.BytesPerNode); err != nil {
			res.Notes = append(res.Notes, fmt.Sprintf("Disk: the load of N=%d not measured: %v.", n, err))
			continue
		}
		sp, err := benchmarks.LoadFromDisk(ctx, d, p.CacheDir, p.budget(n))
		if err != nil {
			return err
		}
		sp.Close()
		log.Printf("disk n=%-2d compile and save %v (save %v), load %v (x%.1f), file %s, load peak heap %s", n,
			d.Compile.Round(time.Millisecond), d.Save.Round(time.Millisecond), d.Load.Round(time.Millisecond), d.LoadRatio(),
			bytesIEC(uint64(d.FileBytes)), bytesIEC(d.LoadPeakHeap))
		freeMemory()
	}
	return nil
}

func runBDDSteps(ctx context.Context, p plan, res *Results) error {
	res.BDDBaselineMax, res.BDDBudget, res.BDDEmpty = p.BDDBaselineMax, p.BDDBudget, p.BDDEmpty
	for _, n := range p.BDDSizes {
		if !p.measures(n) {
			continue
		}
		model, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			return err
		}
		// From the child process's boards on, the space comes from the
		// run's cache directory, so that the steps follow a load, not a
		// compile of minutes in this process; and the Manager's sweeps are
		// not timed apart, since a sweep of the whole diagram outside the
		// Space's memo takes gigabytes of work space there.
		large := p.ChildFrom > 0 && n >= p.ChildFrom
		var sp *bdd.Space
		if large {
			if err := onDisk(ctx, p, res, n); err != nil {
				res.Notes = append(res.Notes, fmt.Sprintf("BDD per step: N=%d not measured: %v.", n, err))
				continue
			}
			d := *diskAt(res, n) // a copy: the disk section's load is the one reported
			// The diagram as the disk section loaded it, and beside it the
			// work space of a sweep of the whole diagram, which the
			// budget's charge a node bounds.
			need := int64(d.LoadPeakHeap)
			if need == 0 {
				need = int64(d.Nodes) * robdd.BytesPerNode
			}
			if err := room(p, n, need+int64(d.Nodes)*robdd.BytesPerNode); err != nil {
				res.Notes = append(res.Notes, fmt.Sprintf("BDD per step: N=%d not measured: %v.", n, err))
				continue
			}
			if sp, err = benchmarks.LoadFromDisk(ctx, &d, p.CacheDir, p.budget(n)); err != nil {
				return err
			}
		} else {
			s, err := bdd.New(bdd.Options{Budget: p.CompileBudget}).Compile(ctx, model)
			if err != nil {
				return err
			}
			sp = s.(*bdd.Space)
		}
		var baselines []benchmarks.NamedBaseline
		if n <= p.BDDBaselineMax {
			b, err := benchmarks.NewRestrictPerCell(sp)
			if err != nil {
				return err
			}
			baselines = append(baselines, benchmarks.NamedBaseline{Name: "restrict-per-cell", Baseline: b})
		}
		walk := p.BDDWalk
		walk.Seed = p.Seed
		opt := benchmarks.StepOptions{Walk: walk, Budget: p.BDDBudget, EmptyBudget: p.BDDEmpty}
		if !large {
			opt.Parts = bddParts(sp)
		} else {
			// As the server's space is once its background work is done:
			// the answers the space keeps, computed once per compiled file
			// (saved beside it). The walks run before it too.
			opt.Settle = sp.Precompute
		}
		r, err := benchmarks.CompareSteps(ctx, "bdd", sp, baselines, opt)
		sp.Close() // ends the space's background work before the next board
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
		if !p.measures(n) {
			continue
		}
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
