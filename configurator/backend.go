package configurator

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// Backend is a decision procedure for models: it compiles a board once into
// a Board that then answers every question about placements on it (and, as
// every Space, the decisions on its squares).
type Backend interface {
	// Name is the backend's short name, as users type it: "bdd", "sat".
	Name() string
	// Compile prepares the model. It honours ctx, and a model beyond the
	// backend's limits fails with an error that errors.Is(err, ErrTooLarge)
	// recognises.
	Compile(ctx context.Context, m *Model) (Board, error)
	// Limits states what the backend accepts, so that callers refuse a
	// board at once and never copy the backend's constants.
	Limits() Limits
	// Cost estimates what compiling the n×n board in order o takes. It is
	// cheap and consistent with Limits: a board beyond MaxN may cost
	// anything.
	Cost(n int, o Order) Cost
}

// Limits is what a backend states about the boards it takes.
type Limits struct {
	// MaxN is the largest board Compile accepts in the cheapest order;
	// larger ones fail with ErrTooLarge.
	MaxN int
	// Bound says in words what sets MaxN when it is not simply the
	// configured largest board ("its node budget of 2 GiB holds boards up to
	// 14×14"); "" otherwise. Callers show it to people.
	Bound string
	// Ordered reports whether the variable order changes the compiled
	// space. A backend that ignores the order answers alike for every
	// order, so callers compile one space for all of them.
	Ordered bool
}

// Cost is a backend's estimate of one compile.
type Cost struct {
	// Bytes is the memory the compiled space is expected to hold, for
	// caches bounded in bytes before the space exists.
	Bytes int64
	// Heavy marks a compile that takes seconds and much memory: callers
	// run few of them at once, so that light ones never wait behind them.
	Heavy bool
}

// Admitter is a Space whose queries run best when a caller's sequence of
// queries (an analysis, then an explanation's satisfiability tests) is
// admitted as a whole: Admit waits for the caller's turn, in order, behind
// a bounded queue, and returns the function that ends it. A full queue fails
// at once with ErrBusy; a caller whose ctx ends while waiting leaves the
// queue with ctx's error. Queries made outside Admit still work, each
// queued on its own.
type Admitter interface {
	Admit(ctx context.Context) (done func(), err error)
}

// Admit waits for a turn on sp when sp is an Admitter and returns the
// function that ends it; on any other space it returns at once, unless ctx
// has ended.
func Admit(ctx context.Context, sp Space) (done func(), err error) {
	if a, ok := sp.(Admitter); ok {
		return a.Admit(ctx)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return func() {}, nil
}

// Occupier is a Backend that reports the work it has admitted, for
// operators and soak tests.
type Occupier interface {
	Occupancy() Occupancy
}

// Filer is a Backend that keeps compiled spaces in files: its Compile
// loads a model's space from its file when there is one, and may serve
// some boards from a file alone (those past the largest it compiles).
// Callers ask it to tell people what a compile under way is, a load or a
// compile, and what a missing file takes.
type Filer interface {
	// File reports what the backend holds of m's file. It is cheap (a
	// look at the directory), and says nothing of the file's soundness,
	// which Compile checks.
	File(m *Model) SpaceFile
}

// SpaceFile is what a Filer says of the file of a model's compiled space.
type SpaceFile struct {
	// Path is the file Compile would load the space from, and Bytes its
	// size; "" and 0 when there is none.
	Path  string
	Bytes int64
	// Required: Compile serves the model from its file only, and without
	// one fails with ErrTooLarge.
	Required bool
	// Command is the command line that compiles the model and writes its
	// file where the backend looks; "" when the backend keeps no files.
	Command string
}

// Missing reports whether the model is served from its file alone and
// there is no file: Compile will fail until Command has run.
func (f SpaceFile) Missing() bool { return f.Required && f.Path == "" }

// Occupancy is the work a backend holds at one moment.
type Occupancy struct {
	Waiting int64 `json:"waiting"` // queries or requests waiting for their turn
	Running int64 `json:"running"` // queries or requests running
	Bytes   int64 `json:"bytes"`   // work space held by the running ones
}

// Board is the Space of an N-Queens board that also answers in squares:
// the facet of a board's space (Space's features are its squares, see
// Model.FeatureModel) that the board's own pages, API and benchmarks ask.
// It is immutable and safe for concurrent use: many requests query one
// Board at once.
//
// Every method takes the user's queens, which the caller has checked with
// Model.Check (on the board, no duplicates). A Board's own optional
// capabilities are facets discovered by type assertion, as io.WriterTo is:
// Diagrammer, Grapher, RankProfiler and Finder. The others (Admitter,
// Turner, Sizer, Sourcer, FeatureSampler, FeatureMarginaler, ...) are any
// Space's, a board's squares its features; a Backend's own are Occupier
// and Filer. Callers decide what to offer from these facets
// alone, never from a backend's name.
type Board interface {
	Space
	// Model is the model the space was compiled from.
	Model() *Model
	// Analyze classifies every cell under the placement. A placement that
	// no solution contains gives an error wrapping ErrNoSolution.
	Analyze(ctx context.Context, queens []Cell) (*Analysis, error)
	// Satisfiable reports whether some solution has a queen on every cell
	// of with and none on any cell of without.
	Satisfiable(ctx context.Context, with, without []Cell) (bool, error)
	// Solve returns the queens of one solution that contains all of
	// queens, or an error wrapping ErrNoSolution.
	Solve(ctx context.Context, queens []Cell) ([]Cell, error)
}

// Diagrammer is a Board that can draw itself restricted to a placement.
type Diagrammer interface {
	// Diagram returns the Graphviz DOT text of the diagram restricted to
	// queens (their cells true, the rest of their ranks false) and its node
	// count. Above maxNodes it returns no text, only the count.
	Diagram(ctx context.Context, queens []Cell, maxNodes int) (dot string, nodes int, err error)
}

// Finder is a Board that shows the solution behind Satisfiable: one
// with a queen on every cell of with and none on any cell of without, as
// its queens, nil when there is none. Answering decisions on a board's
// squares (Squares), one such witness settles many squares at once.
type Finder interface {
	Find(ctx context.Context, with, without []Cell) ([]Cell, error)
}

// Sizer is a Space that knows how much memory it holds, for caches bounded
// in bytes.
type Sizer interface {
	Bytes() int64
}

// State is what the configurator shows on a cell.
type State uint8

const (
	// Free: empty, and some remaining solution puts a queen here.
	Free State = iota
	// Blocked: no remaining solution puts a queen here.
	Blocked
	// Queen: the user put a queen here.
	Queen
	// Forced: every remaining solution puts a queen here, and the user has
	// not; the configurator places it.
	Forced
)

var stateNames = [...]string{Free: "free", Blocked: "blocked", Queen: "queen", Forced: "forced"}

func (s State) String() string { return nameIn(stateNames[:], int(s), "State(?)") }

// nameIn returns names[i], or unknown when the table has no name for i.
func nameIn(names []string, i int, unknown string) string {
	if i < len(names) {
		return names[i]
	}
	return unknown
}

// Analysis is the configurator's view of a placement.
type Analysis struct {
	N     int
	Cells []State // row-major: Cells[Row*N+Col]
	// Solutions counts the solutions that hold the placement; nil when the
	// backend does not count. AtLeast marks it as a lower bound (a
	// counting cap was hit).
	Solutions *big.Int
	AtLeast   bool
	// Elapsed is how long the backend took to answer.
	Elapsed time.Duration
	// Work is what the backend did to answer, in its own terms.
	Work Work
}

// Work is what a backend did to answer one analysis, so that people compare
// the techniques by the work behind an answer and not only by its time.
// Each backend fills the fields that mean something for it and leaves the
// others zero. Domains and Count split Elapsed between the two questions of
// a step, so that two backends are compared on the same question.
type Work struct {
	// Domains is the time spent deciding which cells are blocked and
	// which forced; Count the time spent counting solutions (zero when the
	// backend did not count).
	Domains, Count time.Duration

	// A decision diagram's work: the nodes of the compiled diagram and the
	// nodes the step's sweeps visited (counting included).
	Nodes, NodesVisited int64

	// A SAT solver's work: the solver calls of the step and gophersat's
	// totals over them (conflicts, decisions, learned clauses), and how
	// many cells were decided by the backend's own propagation, by a
	// verified witness solution, and by the solver.
	SolverCalls, Conflicts, Decisions, Learned int64
	ByPropagation, ByWitness, BySolver         int
}

// At is the state of cell c.
func (a *Analysis) At(c Cell) State { return a.Cells[c.Row*a.N+c.Col] }

// In lists the cells in state s, row-major.
func (a *Analysis) In(s State) []Cell {
	var cells []Cell
	for i, st := range a.Cells {
		if st == s {
			cells = append(cells, Cell{i / a.N, i % a.N})
		}
	}
	return cells
}

// Errors of the backends and the sessions.
var (
	// ErrNoSolution: no solution holds the queens placed.
	ErrNoSolution = errors.New("no solution holds these queens")
	// ErrTooLarge: the request exceeds a backend's limits (board size,
	// node budget).
	ErrTooLarge = errors.New("too large for this backend")
	// ErrBusy: the backend's queue is full; try again shortly.
	ErrBusy = errors.New("backend busy, try again shortly")
)

// Compile compiles m with b and measures how long that took.
func Compile(ctx context.Context, b Backend, m *Model) (Board, time.Duration, error) {
	start := time.Now()
	sp, err := b.Compile(ctx, m)
	if err != nil {
		return nil, 0, fmt.Errorf("compile %d-queens with %s: %w", m.N(), b.Name(), err)
	}
	return sp, time.Since(start), nil
}
