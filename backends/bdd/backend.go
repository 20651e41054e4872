package bdd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// Method is how Backend.Compile builds the diagram.
type Method uint8

const (
	// Direct compiles top-down with CompileDirect, the fast path.
	Direct Method = iota
	// Apply conjoins the constraints with CompileApply, the construction
	// of the literature.
	Apply
)

var methodNames = [...]string{Direct: "direct", Apply: "apply"}

// String is the method's name as ParseMethod accepts it.
func (m Method) String() string {
	if int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", uint8(m))
}

// ErrMethod reports a method name ParseMethod does not know.
var ErrMethod = errors.New("unknown compile method (want direct or apply)")

// ParseMethod parses a method name: direct or apply.
func ParseMethod(s string) (Method, error) {
	for m, name := range methodNames {
		if s == name {
			return Method(m), nil
		}
	}
	return 0, fmt.Errorf("method %q: %w", s, ErrMethod)
}

// DefaultBudget is the compile budget, in bytes, of Options{Budget: 0}.
const DefaultBudget int64 = 8 << 30

// Options configure a Backend.
type Options struct {
	// Budget bounds the bytes a compile may use, nodes and work space;
	// 0 means DefaultBudget. A model that needs more fails with an error
	// wrapping both ErrNodeLimit and configurator.ErrTooLarge. It counts
	// live data: the Go heap may briefly hold up to twice as much before
	// the collector runs (GOGC=100), unless the process sets a memory
	// limit.
	Budget int64
	// Method is how the diagram is built; the zero value is Direct.
	Method Method
	// ModelOrder is the heuristic of the variable order a feature model's
	// compile starts from (CompileModel); the zero value is OrderAuto.
	ModelOrder ModelOrder
	// MaxN, when positive, is the largest board accepted whatever the
	// budget allows; 0 leaves the budget alone to bound it.
	MaxN int
	// Scratch bounds the bytes of work space that the queries on all the
	// backend's spaces hold at once (what each will use: tens of bytes a
	// node of the diagram it visits, 64 a node of the diagram to draw
	// one); 0 means DefaultScratch. A query waits for
	// its share, and one whose context ends first fails with an error
	// wrapping configurator.ErrBusy; a query needing more than the whole
	// bound runs alone.
	Scratch int64
	// CompileMaxN, when positive, is the largest board Compile compiles:
	// a larger one (up to MaxN) is served only when Dir holds a sound
	// file of it, and fails with an error wrapping
	// configurator.ErrTooLarge that says how to make one otherwise: the
	// largest compiles take far more time and memory than loading their
	// files. 0 compiles every board the budget allows.
	CompileMaxN int
	// Dir is the directory where compiled spaces are kept, one file per
	// model (see DefaultDir); "" keeps none. Compile loads a space from it
	// instead of compiling, and saves every space it compiles; a file it
	// cannot trust is logged, removed and compiled afresh, and disk
	// trouble never fails a compile.
	Dir string
	// SpareCore keeps a core free of the compiles as the large queries
	// keep one (at least one runs, on a single core): a heavy compile
	// (Cost's Heavy) then shares the cores less one with the large
	// queries and the other heavy compiles, taking its turn piece by
	// piece, so that the small queries of a server never find every core
	// busy with heavy work. The smaller compiles, milliseconds, take no
	// turns: one waiting for a turn after every piece of a large one
	// would take as long as a large query. A program that does one thing
	// at a time leaves it unset, and a compile uses every core.
	SpareCore bool
	// SaveInBackground writes the file of a space that Compile compiled
	// (Dir set) in the background: Compile returns once the diagram is
	// built, and Wait waits for the writes. A program that works on the
	// space at once, as nqueens count computes its kept answers, then
	// does both together; the file appears whole or not at all either
	// way (see store.write).
	SaveInBackground bool
	// Log receives what the store of compiled spaces does: a space loaded
	// and how long it took, saved, or refused and why. nil discards it.
	Log *slog.Logger
}

// Backend is the configurator backend of decision diagrams: it compiles a
// model into the diagram of all its solutions, once, and then answers every
// question by sweeps over that diagram.
type Backend struct {
	opts  Options
	work  *workspace     // shared by the queries of all its spaces
	saves sync.WaitGroup // the writes in the background
}

// New returns a Backend with the given options. It removes from
// Options.Dir the temporary files that writes cut short left there.
func New(opts Options) *Backend {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Scratch <= 0 {
		opts.Scratch = DefaultScratch
	}
	if opts.Dir != "" {
		opts.store().clean()
	}
	// Large queries, and with SpareCore the compiles, leave a core to the
	// small ones.
	return &Backend{opts: opts, work: newWorkspace(opts.Scratch, runtime.GOMAXPROCS(0)-1)}
}

// Wait waits for the files the Backend writes in the background
// (Options.SaveInBackground).
func (b *Backend) Wait() { b.saves.Wait() }

// Name is "bdd".
func (b *Backend) Name() string { return "bdd" }

// Occupancy reports the queries on the backend's spaces waiting for work
// space and running, and the work space they hold: Backend is a
// configurator.Occupier.
func (b *Backend) Occupancy() configurator.Occupancy { return b.work.occupancy() }

// Limits states the largest N-Queens board whose diagram fits the budget
// (in row-major order, the smallest), at most Options.MaxN. The variable
// order changes the diagram.
func (b *Backend) Limits() configurator.Limits {
	top := b.opts.MaxN
	if top <= 0 {
		top = configurator.MaxN
	}
	n := top
	for n > 1 && compileBytes(n) > float64(b.opts.Budget) {
		n--
	}
	l := configurator.Limits{MaxN: n, Ordered: true}
	if n < top {
		l.Bound = fmt.Sprintf("its node budget of %s holds boards up to %d×%d", bytesize.Format(b.opts.Budget), n, n)
	}
	// Past CompileMaxN, the boards whose row-major file is there.
	if c := b.opts.CompileMaxN; c > 0 && n > c {
		k := c
		var missing configurator.SpaceFile
		for k < n {
			model, err := configurator.New(k+1, configurator.RowMajor)
			if err != nil {
				break
			}
			if missing = b.File(model); missing.Path == "" {
				break
			}
			k++
		}
		if k < n {
			where := "none is set"
			if b.opts.Dir != "" {
				where = fmt.Sprintf("it holds none of %d×%d (%s makes it; then restart)", k+1, k+1, missing.Command)
			}
			l.MaxN = k
			l.Bound = fmt.Sprintf("it compiles boards up to %d×%d and serves larger ones from its directory of compiled files, where %s", c, c, where)
		}
	}
	return l
}

// Cost estimates an n×n compile in order o from the known diagram sizes:
// the budget its nodes need, which bounds the memory the compile (or the
// load of its file) holds at its peak and, being twice the space's, the
// memory the compiled space holds; and heavy from 12×12 on, where the
// diagram reaches millions of nodes and each board costs several times
// the one before; the smaller boards compile at once. The column order's
// diagram is the row order's, transposed; the other orders' are larger
// (by a third at 13×13, growing with the board), and estimated at twice
// the row order's. Compile holds every compile to its estimate (see
// compileBudget).
func (b *Backend) Cost(n int, o configurator.Order) configurator.Cost {
	bytes := compileBytes(max(n, 1))
	if o != configurator.RowMajor && o != configurator.ColMajor {
		bytes *= otherOrders
	}
	return configurator.Cost{Bytes: int64(min(bytes, 1<<62)), Heavy: n >= 12}
}

// otherOrders is the factor of Cost for the orders other than row and
// column.
const otherOrders = 2

// minBudget is the least node budget of a compile: the Manager's smallest
// tables, which the smallest boards need beyond their nodes.
const minBudget = 1 << 20

// compileBudget is the node budget of the compile (or the load) of model:
// its Cost, so that a compile never holds more than it is estimated to,
// within Options.Budget.
func (b *Backend) compileBudget(model *configurator.Model) int64 {
	return min(b.opts.Budget, max(b.Cost(model.N(), model.Order()).Bytes, minBudget))
}

// Compile builds the diagram of model in a Manager of its own and returns it
// as a *Space: loaded from Options.Dir when a sound file of it is there,
// compiled (and saved there) otherwise.
func (b *Backend) Compile(ctx context.Context, model *configurator.Model) (configurator.Board, error) {
	if b.opts.MaxN > 0 && model.N() > b.opts.MaxN {
		return nil, fmt.Errorf("%d-queens: the BDD backend takes boards up to %d: %w", model.N(), b.opts.MaxN, configurator.ErrTooLarge)
	}
	if need := compileBytes(model.N()); need > float64(b.opts.Budget) {
		return nil, fmt.Errorf("bdd, budget %d bytes: %d-queens needs about %.3g bytes: %w: %w",
			b.opts.Budget, model.N(), need, configurator.ErrTooLarge, robdd.ErrNodeLimit)
	}
	store := b.opts.store()
	budget := b.compileBudget(model)
	m, root, solutions, loaded := store.load(ctx, model, budget)
	if !loaded && b.fileOnly(model.N()) {
		where := "no directory of compiled spaces is set"
		if b.opts.Dir != "" {
			where = fmt.Sprintf("none of it is in %s (make it once with: %s)", b.opts.Dir, fileCommand(model, b.opts.Dir))
		}
		return nil, fmt.Errorf("%d-queens (%v order): the BDD backend compiles boards up to %d×%d and loads larger ones from compiled files, and %s: %w",
			model.N(), model.Order(), b.opts.CompileMaxN, b.opts.CompileMaxN, where, configurator.ErrTooLarge)
	}
	if !loaded {
		m = robdd.New(model.Vars(), budget)
		var err error
		switch b.opts.Method {
		case Direct:
			var share *workspace
			if b.opts.SpareCore && b.Cost(model.N(), model.Order()).Heavy {
				share = b.work
			}
			root, solutions, err = compileDirect(ctx, m, model, share)
		case Apply:
			root, err = CompileApply(ctx, m, model)
		default:
			return nil, fmt.Errorf("bdd: %v: %w", b.opts.Method, ErrMethod)
		}
		if errors.Is(err, robdd.ErrNodeLimit) {
			return nil, fmt.Errorf("bdd, budget %d bytes: %w: %w", budget, configurator.ErrTooLarge, err)
		}
		if err != nil {
			return nil, fmt.Errorf("bdd: %w", err)
		}
	}
	// A loaded Manager holds the root's nodes alone (readSpace checks it),
	// and so does a fresh one CompileDirect filled (it makes no node the
	// root does not reach): counting them would walk the whole diagram.
	nodes := m.Size() - 2
	if !loaded && b.opts.Method != Direct {
		nodes = m.NodeCount(root)
	}
	source := ""
	if loaded {
		source = store.path(model)
	}
	sp := newSpace(model, compiled{m: m, root: root, nodes: nodes, solutions: solutions, source: source}, budget, b.work, store)
	if !loaded && store.dir != "" {
		solutions := sp.solutions(ctx)
		save := func() { store.save(model, m, root, nodes, solutions) }
		if b.opts.SaveInBackground {
			b.saves.Go(save)
		} else {
			save()
		}
	}
	return sp, nil
}
