// Package bdd is the configurator backend of reduced ordered binary
// decision diagrams: it compiles the N-Queens model, once per board and
// variable order, into the diagram of all its solutions in an engine of
// its own (package robdd), and answers every question about a placement
// by sweeps over that diagram.
//
// Two compilers build the same diagram: CompileDirect, top-down by
// enumerating the states a placement can reach (the fast path), and
// CompileApply, by conjoining the constraints (the construction of the
// literature). The Backend states its own limits: the largest board its
// node budget holds (Limits, from one table of known diagram sizes), what
// a compile costs (Cost), and the work space its queries may hold at once
// (Options.Scratch), which it enforces itself.
package bdd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
	// configurator.ErrTooLarge that says how to make one otherwise. A
	// 16×16 compile takes minutes and 13 GiB and more; its file loads in
	// seconds. 0 compiles every board the budget allows.
	CompileMaxN int
	// Dir is the directory where compiled spaces are kept, one file per
	// model (see DefaultDir); "" keeps none. Compile loads a space from it
	// instead of compiling, and saves every space it compiles; a file it
	// cannot trust is logged, removed and compiled afresh, and disk
	// trouble never fails a compile.
	Dir string
	// Log receives what the store of compiled spaces does: a space loaded
	// and how long it took, saved, or refused and why. nil discards it.
	Log *slog.Logger
}

// Backend is the configurator backend of decision diagrams: it compiles a
// model into the diagram of all its solutions, once, and then answers every
// question by sweeps over that diagram.
type Backend struct {
	opts Options
	work *workspace // shared by the queries of all its spaces
}

// New returns a Backend with the given options.
func New(opts Options) *Backend {
	if opts.Budget <= 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Scratch <= 0 {
		opts.Scratch = DefaultScratch
	}
	// Large queries leave a core to the small ones.
	return &Backend{opts: opts, work: newWorkspace(opts.Scratch, runtime.GOMAXPROCS(0)-1)}
}

// Name is "bdd".
func (b *Backend) Name() string { return "bdd" }

// Occupancy reports the queries on the backend's spaces waiting for work space
// and running, and the work space they hold: Backend is a
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

// Cost estimates an n×n compile from the known diagram sizes: the budget
// its nodes need, the memory the compiled space holds, and heavy from
// 12×12 on (0.3 s and 10 MiB at 12, seconds and hundreds of MiB at 14 on
// the project's 2-core machine; 11×11 and below take milliseconds).
func (b *Backend) Cost(n int, _ configurator.Order) configurator.Cost {
	return configurator.Cost{Bytes: int64(min(compileBytes(max(n, 1)), 1<<62)), Heavy: n >= 12}
}

// Compile builds the diagram of model in a Manager of its own and returns it
// as a *Space: loaded from Options.Dir when a sound file of it is there,
// compiled (and saved there) otherwise.
func (b *Backend) Compile(ctx context.Context, model *configurator.Model) (configurator.Space, error) {
	if b.opts.MaxN > 0 && model.N() > b.opts.MaxN {
		return nil, fmt.Errorf("%d-queens: the BDD backend takes boards up to %d: %w", model.N(), b.opts.MaxN, configurator.ErrTooLarge)
	}
	if need := compileBytes(model.N()); need > float64(b.opts.Budget) {
		return nil, fmt.Errorf("bdd, budget %d bytes: %d-queens needs about %.3g bytes: %w: %w",
			b.opts.Budget, model.N(), need, configurator.ErrTooLarge, robdd.ErrNodeLimit)
	}
	store := b.opts.store()
	m, root, loaded := store.load(model, b.opts.Budget)
	if !loaded && b.fileOnly(model.N()) {
		where := "no directory of compiled spaces is set"
		if b.opts.Dir != "" {
			where = fmt.Sprintf("none of it is in %s (make it once with: %s)", b.opts.Dir, fileCommand(model, b.opts.Dir))
		}
		return nil, fmt.Errorf("%d-queens (%v order): the BDD backend compiles boards up to %d×%d and loads larger ones from compiled files, and %s: %w",
			model.N(), model.Order(), b.opts.CompileMaxN, b.opts.CompileMaxN, where, configurator.ErrTooLarge)
	}
	if !loaded {
		m = robdd.New(model.Vars(), b.opts.Budget)
		var err error
		switch b.opts.Method {
		case Direct:
			root, err = CompileDirect(ctx, m, model)
		case Apply:
			root, err = CompileApply(ctx, m, model)
		default:
			return nil, fmt.Errorf("bdd: %v: %w", b.opts.Method, ErrMethod)
		}
		if errors.Is(err, robdd.ErrNodeLimit) {
			return nil, fmt.Errorf("bdd, budget %d bytes: %w: %w", b.opts.Budget, configurator.ErrTooLarge, err)
		}
		if err != nil {
			return nil, fmt.Errorf("bdd: %w", err)
		}
	}
	// A loaded Manager holds the root's nodes alone (readSpace checks it),
	// and so does a fresh one CompileDirect filled (it makes no node the
	// root does not reach): counting them would walk the diagram (12-15 s
	// at 16×16).
	nodes := m.Size() - 2
	if !loaded {
		if b.opts.Method != Direct {
			nodes = m.NodeCount(root)
		}
		store.save(model, m, root, nodes)
	}
	life, stop := context.WithCancel(context.Background())
	sp := &Space{model: model, m: m, root: root, nodes: nodes, budget: b.opts.Budget, work: b.work,
		// The terminals have ids too.
		draw: drawBytesPerNode * int64(nodes+2),
		life: life, stop: stop, store: store, log: store.log, precomputeMax: precomputeNodes}
	sp.attacks(model)
	sp.profile = sync.OnceValue(func() []int { return sp.rankProfile(m, root) })
	if loaded {
		sp.source = store.path(model)
	}
	sp.readAnswers()
	return sp, nil
}

// Space is a compiled model: the Manager that holds the diagram, which
// nothing writes once Compile returns, and its root. Every query is one or
// two sweeps over the diagram with a partial assignment (the user's queens
// true, and for Analyze, Marginals and Satisfiable the cells they attack
// false), over only the part of the diagram that the assignment allows
// when that part is small (robdd.Part), over the whole diagram otherwise.
// The sweeps hold work space from their Backend's bound for as long as
// they run, by what they use: a query asks for room to gather a small
// part first and for more only when its part is larger (see sweep), so
// that small queries never wait behind large ones (see workspace). The
// analyses of the empty board and of every board of one and two queens,
// the largest parts, are computed once per space and kept, and on the
// largest diagrams saved beside the compiled file (see Precompute). A
// Space is immutable but for that memo, and safe for concurrent use.
//
// Besides configurator.Space it is a configurator.Sampler, Marginaler,
// Diagrammer and Sizer.
type Space struct {
	model  *configurator.Model
	m      *robdd.Manager
	root   robdd.Node
	nodes  int
	budget int64
	// work bounds the work space of the queries; each holds what it uses
	// of it (see sweep and search), a Diagram call draw bytes.
	work *workspace
	draw int64
	// attacked[attackStart[v]:attackStart[v+1]] are the levels of the
	// cells a queen on variable v attacks (model.Attacks).
	attackStart []int32
	attacked    []int32
	// source is the file Compile loaded the diagram from; "" if compiled.
	// store is where the space's file and its kept answers live (see
	// Precompute).
	source string
	store  store
	// life ends when the space is closed: the background work on it (see
	// precomputeLater) stops. log receives what that work does.
	// precomputeMax is precomputeNodes but in tests.
	precomputeMax int
	life          context.Context
	stop          context.CancelFunc
	log           *slog.Logger
	background    sync.Once
	// seen[k] is the largest part gathered so far for an assignment of k
	// variables true (the last entry: of more), where sweep's first grant
	// starts, so that placements like those met before gather once.
	seen [8]atomic.Int64
	// heat memoises the marginals of the boards of none and one queen as
	// shallow does their analyses: []*big.Int by cell, or the error.
	heat sync.Map
	// sizes memoises the node counts of the diagrams restricted to one
	// queen on variable v (key v), as Diagram computes them: at most one
	// int a cell. Keyed by the exact placement: a restriction's size is not
	// invariant under the board's symmetries in a fixed variable order.
	sizes sync.Map
	// pairs memoises the analyses of the boards of two queens, pairCount
	// of them (see analyzePair).
	pairs     sync.Map
	pairCount atomic.Int64
	// shallow memoises the analyses of the empty board (key 0) and of one
	// queen on variable v (key v+1): int to the *configurator.Analysis, or
	// to the error when there is no solution, which no later call would
	// find either. computing holds a chan struct{} per entry of shallow
	// or pairs being computed, closed when it is done (see memoized).
	shallow, computing sync.Map
	// profile is RankProfile, computed once: the diagram never changes,
	// and a walk of a 14×14 diagram (9.6 million nodes, about 0.3 s of a
	// core) on every page that shows the space's size took half the
	// server's CPU under the soak.
	profile func() []int
}

// attacks lists, for every cell, the levels of the cells it attacks.
func (s *Space) attacks(model *configurator.Model) {
	s.attackStart = make([]int32, model.Vars()+1)
	for v := range model.Vars() {
		for w := range model.Vars() {
			if model.Attacks(model.Cell(v), model.Cell(w)) {
				s.attacked = append(s.attacked, int32(model.Level(w)))
			}
		}
		s.attackStart[v+1] = int32(len(s.attacked))
	}
}

// exclude sets false, in a, every cell that a queen of a attacks: no
// solution that holds the queens has a queen there, so the sweeps give the
// same answers, but they no longer follow the many edges into such cells,
// which end in False only further down. A queen attacked by another stays
// true, so the assignment stays unsatisfiable.
func (s *Space) exclude(a robdd.Assignment, queens []configurator.Cell) {
	for _, q := range queens {
		v := s.model.Var(q)
		for _, l := range s.attacked[s.attackStart[v]:s.attackStart[v+1]] {
			if a[l] != 1 {
				a[l] = 0
			}
		}
	}
}

// Model is the model the space was compiled from.
func (s *Space) Model() *configurator.Model { return s.model }

// Manager is the Manager that holds the diagram. Callers must only use its
// read-only methods.
func (s *Space) Manager() *robdd.Manager { return s.m }

// Root is the root of the diagram of all solutions.
func (s *Space) Root() robdd.Node { return s.root }

// Nodes is the size of the diagram, terminals excluded.
func (s *Space) Nodes() int { return s.nodes }

// Bytes is the memory the diagram holds.
func (s *Space) Bytes() int64 { return s.m.Bytes() }

// RankProfile returns, for every rank r of the board, the nodes of the
// diagram labelled by a cell of rank r: the shape of the whole space, which
// shows where a variable order makes it grow. The entries sum to Nodes. The
// first call visits the whole diagram once; the others return a copy of
// what it found.
func (s *Space) RankProfile() []int { return slices.Clone(s.profile()) }

// rankProfile is RankProfile of the diagram root of m, whose levels are
// s's.
func (s *Space) rankProfile(m *robdd.Manager, root robdd.Node) []int {
	profile := make([]int, s.model.N())
	levels := m.LevelSizes
	if m != s.m || m.Size()-2 != s.nodes {
		// Not every node of m is the root's: walk the root's diagram.
		levels = func() []int { return m.LevelProfile(root) }
	}
	for level, k := range levels() {
		profile[s.model.Cell(s.model.VarAt(level)).Row] += k
	}
	return profile
}

// assign turns the user's queens (true) and excluded cells (false) into a
// partial assignment. It rejects cells off the board and queens placed
// twice, as Model.Check does; a cell in both lists makes the assignment
// contradictory, which it reports as false.
func (s *Space) assign(queens, without []configurator.Cell) (robdd.Assignment, bool, error) {
	a := s.m.NewAssignment()
	for _, q := range queens {
		if !s.model.Contains(q) {
			return nil, false, fmt.Errorf("queen %v on a %d×%d board: %w", q, s.model.N(), s.model.N(), configurator.ErrOffBoard)
		}
		l := s.level(q)
		if a[l] == 1 {
			return nil, false, fmt.Errorf("queen %v: %w", q, configurator.ErrDuplicate)
		}
		a[l] = 1
	}
	ok := true
	for _, c := range without {
		if !s.model.Contains(c) {
			return nil, false, fmt.Errorf("cell %v on a %d×%d board: %w", c, s.model.N(), s.model.N(), configurator.ErrOffBoard)
		}
		l := s.level(c)
		if a[l] == 1 {
			ok = false
		}
		a[l] = 0
	}
	return a, ok, nil
}

// beginDrawing assigns queens as assign does, their lines' other cells
// false (fixLines), and waits for the work space of copying the diagram
// restricted to that (robdd.Manager.Extract) and drawing it:
// drawBytesPerNode a node the copy meets, which are the nodes of the part
// of the diagram the assignment allows, counted first by a sweep (see
// sweepPart: in the small lane when the part is small), or s.draw, the
// whole diagram's, when the part is past PartLimit. With none or one
// queen it asks for s.draw at once: the part of one queen is past
// PartLimit on 113 of the 196 cells of 14×14 and a tenth of the diagram
// on the others, and Diagram keeps the counts of one queen. Unless
// it fails, the caller calls release when done.
func (s *Space) beginDrawing(ctx context.Context, queens []configurator.Cell) (a robdd.Assignment, release func(), err error) {
	a, _, err = s.assign(queens, nil)
	if err != nil {
		return nil, nil, err
	}
	s.fixLines(a, queens)
	work := s.draw
	if len(queens) > 1 {
		visited := 0
		ok, err := s.sweepPart(ctx, a, func(p *robdd.Part) { visited = p.Visited() })
		if err != nil {
			return nil, nil, err
		}
		if ok {
			work = min(work, drawBytesPerNode*int64(visited+2))
		}
	}
	release, err = s.work.acquire(ctx, work)
	if err != nil {
		return nil, nil, err
	}
	return a, release, nil
}

func (s *Space) level(c configurator.Cell) int { return s.model.Level(s.model.Var(c)) }

func noSolution(queens []configurator.Cell) error {
	return fmt.Errorf("queens %s: %w", configurator.FormatCells(queens), configurator.ErrNoSolution)
}

// firstGrant is the part, in nodes, a query first asks work space for:
// enough for most placements of a few queens on any board.
const firstGrant = 4096

// grantGrowth is the factor by which a query's grant grows when its part
// does not fit: a part gathered again costs at most 1/15 more in all.
const grantGrowth = 16

// sweep runs do over the part of the diagram that a allows (see
// robdd.Part), holding the work space it uses from the Backend's bound: a
// grant for the largest part met so far for as many queens (at least
// firstGrant nodes, at most what the small lane admits), then sixteen
// times more while the part does not fit (the bytes given back before
// asking again, so that no query holds work space while it waits), and the
// whole diagram's past PartLimit. An assignment of nothing sweeps the whole
// diagram at once.
func (s *Space) sweep(ctx context.Context, a robdd.Assignment, do func(p *robdd.Part)) error {
	if slices.ContainsFunc(a, func(x int8) bool { return x != robdd.Unassigned }) {
		if ok, err := s.sweepPart(ctx, a, do); ok || err != nil {
			return err
		}
	}
	release, err := s.work.acquire(ctx, s.m.WholeBytes(s.root))
	if err != nil {
		return err
	}
	defer release()
	p := s.m.Whole(s.root, a)
	defer p.Release()
	do(p)
	return nil
}

// sweepPart is sweep but for the whole diagram: it reports false, having
// called nothing, when the part that a allows is larger than PartLimit.
func (s *Space) sweepPart(ctx context.Context, a robdd.Assignment, do func(p *robdd.Part)) (bool, error) {
	limit := s.m.PartLimit(s.root)
	queens := 0
	for _, x := range a {
		if x == 1 {
			queens++
		}
	}
	seen := &s.seen[min(queens, len(s.seen)-1)]
	// The hint stays within what the small lane admits (see
	// workspace), so that one large part met once does not send every
	// later query of as many queens to the large lane.
	small := int((s.work.limit/smallQuery - s.m.PartBytes(s.root, 0)) / s.partBytesPerNode())
	first := min(max(firstGrant, min(int(seen.Load()), small)), limit)
	for grant := first; ; grant = min(grantGrowth*grant, limit) {
		release, err := s.work.acquire(ctx, s.m.PartBytes(s.root, grant))
		if err != nil {
			return false, err
		}
		p, ok := s.m.Part(s.root, a, grant)
		if ok {
			if v := int64(p.Visited()); v > seen.Load() {
				seen.Store(v) // a race may keep the smaller: a hint
			}
			do(p)
			p.Release()
			release()
			return true, nil
		}
		release()
		if grant == limit {
			return false, nil
		}
	}
}

// partBytesPerNode is what a gathered part takes a node beyond the marks.
func (s *Space) partBytesPerNode() int64 {
	return max(s.m.PartBytes(s.root, 1)-s.m.PartBytes(s.root, 0), 1)
}

// Analyze classifies every cell by the valid domains of its variable under
// the placement (CVD), and counts the solutions that hold the placement:
// one sweep up the placement's part of the diagram counts, one sweep down
// marks the domains. The count comes from the domains' sweep up at no cost
// of its own, so Work.Domains is the whole step (gathering the part
// included) and Work.Count is zero; Work.NodesVisited is the nodes of the
// part, both sweeps visiting each once.
//
// The analyses of the empty board (a sweep of the whole diagram) and of
// the boards of one queen (a tenth of it, the cells the queen attacks
// excluded) are computed once
// per space and kept; a board of one queen is answered from the one of its
// eight images under the board's symmetries (rotations and reflections,
// which map solutions to solutions) that comes first, so a space computes
// about N²/8 of them, and on diagrams up to 14×14 the first analysis of
// the empty board computes them all (see precomputeNodes), so that no
// later click sweeps the whole diagram. The boards of two queens are kept
// too, as they are met (see analyzePair), and on larger diagrams all of
// them in the background after the first query, with the boards of one
// queen (see Precompute); the others are computed through
// their image whose queens lie highest in the variable order (see
// analyzeImage). Answers from the memo are copies whose Elapsed and
// Work.Domains are the time of the call and whose Work.NodesVisited is 0,
// since no node is visited.
func (s *Space) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	if s.nodes > s.precomputeMax {
		s.precomputeLater()
	}
	g, key, mapped, ok := s.keptImage(queens)
	switch {
	case !ok && len(queens) == 2:
		return s.analyzePair(ctx, queens)
	case !ok:
		return s.analyzeImage(ctx, queens)
	}
	start := time.Now()
	e, fresh, err := s.kept(ctx, key, mapped)
	if err != nil {
		return nil, err
	}
	an, ok := e.(*configurator.Analysis)
	if !ok {
		return nil, noSolution(queens)
	}
	if fresh && key == 0 && s.nodes <= s.precomputeMax {
		if err := s.keepOnes(ctx); err != nil {
			return nil, err
		}
	}
	out := s.readThrough(g, an)
	if !fresh {
		remembered(out, start)
	}
	return out, nil
}

// image is the variable of the image of variable v under g.
func (s *Space) image(g symmetry, v int) int {
	return s.model.Var(g.apply(s.model.Cell(v), s.model.N()))
}

// readThrough returns a copy of an read through g: the analysis of the
// board whose image under g is an's, its cell c being an's g(c).
func (s *Space) readThrough(g symmetry, an *configurator.Analysis) *configurator.Analysis {
	out := clone(an)
	for v := range out.Cells {
		out.Cells[v] = an.Cells[s.image(g, v)]
	}
	return out
}

// remembered marks an answer taken from a memo: its time is the call's,
// begun at start, and no node was visited.
func remembered(an *configurator.Analysis, start time.Time) *configurator.Analysis {
	an.Elapsed = time.Since(start)
	an.Work.Domains, an.Work.NodesVisited = an.Elapsed, 0
	return an
}

// precomputeNodes is the largest diagram whose boards of one queen the
// first analysis of the empty board computes along with it: up to 14×14
// (9.6 million nodes, 28 boards of about a tenth of it each, under a
// second on the project's 2-core machine), so that no click of a person
// waits for them. Larger diagrams compute them in the background after it
// (see precomputeLater).
const precomputeNodes = 16 << 20

// maxPairs bounds the memo of the boards of two queens: the first that
// many distinct boards (up to symmetry) are kept, about 300 bytes each.
// Every board of two queens of a 16×16 board fits: some 3,000 up to
// symmetry.
const maxPairs = 1 << 14

// analyzePair is Analyze of two queens: answered from the memo of such
// boards (pairs), kept by the first of their eight images, when it holds
// the board or one of its images, computed by analyzeImage and kept
// otherwise. These are the largest parts of the diagram that clicks ask
// for once the boards of none and one queen are kept (a tenth of a 14×14
// diagram at worst), and there are few of them, so a space keeps them
// all. Answers from the memo have NodesVisited 0, as those of one queen.
func (s *Space) analyzePair(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	if !s.model.Contains(queens[0]) || !s.model.Contains(queens[1]) || queens[0] == queens[1] {
		return s.analyzeImage(ctx, queens) // refused there, in its words
	}
	g, key := pairKey(s.model, queens)
	start := time.Now()
	var an *configurator.Analysis
	e, fresh, err := s.memoized(ctx, &s.pairs, key, queens, func() (*configurator.Analysis, error) {
		var err error
		if an, err = s.analyzeImage(ctx, queens); err != nil {
			return nil, err
		}
		// Kept as the analysis of the key's image: its cell g(c) is c's.
		kept := clone(an)
		for v := range an.Cells {
			kept.Cells[s.image(g, v)] = an.Cells[v]
		}
		return kept, nil
	})
	switch e := e.(type) {
	case nil:
		return nil, err
	case error:
		return nil, noSolution(queens)
	case *configurator.Analysis:
		if fresh {
			return an, nil
		}
		return remembered(s.readThrough(g, e), start), nil
	}
	return nil, fmt.Errorf("memo of pairs holds %T", e)
}

// pairKey returns the key of the memo of the boards of two queens for
// queens (two distinct cells on the board): the least pair of variables,
// as min·Vars + max, over the images of the board under its symmetries,
// and the symmetry g that maps queens to that image.
func pairKey(model *configurator.Model, queens []configurator.Cell) (g symmetry, key int) {
	n := model.N()
	key = -1
	for i := range 8 {
		h := symmetry{i&1 != 0, i&2 != 0, i&4 != 0}
		a, b := model.Var(h.apply(queens[0], n)), model.Var(h.apply(queens[1], n))
		if k := min(a, b)*model.Vars() + max(a, b); key < 0 || k < key {
			g, key = h, k
		}
	}
	return g, key
}

// analyzeImage analyses a placement of queens through its image under the
// board's symmetry whose queens lie highest in the variable order
// (shallowest): the part of the diagram a placement allows is the smaller
// the sooner its queens cut the paths down, so that a placement of two
// queens in the last ranks, which allows nearly the whole diagram above
// them, is answered through its reflection, whose part is a fraction of
// that. The answer is mapped back cell by cell.
func (s *Space) analyzeImage(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	g := s.shallowest(queens)
	if g == (symmetry{}) {
		return s.analyze(ctx, queens)
	}
	if _, _, err := s.assign(queens, nil); err != nil {
		return nil, err // off the board or twice: said of the queens given
	}
	n := s.model.N()
	mapped := make([]configurator.Cell, len(queens))
	for i, q := range queens {
		mapped[i] = g.apply(q, n)
	}
	an, err := s.analyze(ctx, mapped)
	if errors.Is(err, configurator.ErrNoSolution) {
		return nil, noSolution(queens)
	}
	if err != nil {
		return nil, err
	}
	return s.readThrough(g, an), nil
}

// shallowest returns the symmetry of the board that maps the queens
// highest in the variable order: the deepest of their levels the
// smallest, then the sum of their levels. Queens off the board leave the
// placement as it is.
func (s *Space) shallowest(queens []configurator.Cell) symmetry {
	n := s.model.N()
	var best symmetry
	bestDeepest, bestSum := -1, 0
	for i := range 8 {
		g := symmetry{i&1 != 0, i&2 != 0, i&4 != 0}
		deepest, sum := 0, 0
		for _, q := range queens {
			if !s.model.Contains(q) {
				return symmetry{}
			}
			l := s.level(g.apply(q, n))
			deepest, sum = max(deepest, l), sum+l
		}
		if bestDeepest < 0 || deepest < bestDeepest || deepest == bestDeepest && sum < bestSum {
			best, bestDeepest, bestSum = g, deepest, sum
		}
	}
	return best
}

// precomputeTime bounds the background work of precomputeLater: the
// boards of two queens of a 16×16 diagram take some ten minutes of a core
// on a quiet machine, twice that on a busy one.
const precomputeTime = 45 * time.Minute

// precomputeLater runs Precompute once, in the background, on a diagram
// too large to compute the boards of one queen along with the empty
// board's: one board after another, each a sweep of the Backend's work
// space (so at most one core's worth, and queries of people come first in
// line as they ask), until all are kept, the space is closed or
// precomputeTime has passed; what it computed by then is saved. A click on
// a board not yet kept computes it itself meanwhile.
func (s *Space) precomputeLater() {
	s.background.Do(func() {
		go func() {
			ctx, cancel := context.WithTimeout(s.life, precomputeTime)
			defer cancel()
			start := time.Now()
			if err := s.precompute(ctx, 1); err != nil {
				s.log.Info("kept answers left to compute on demand", "n", s.model.N(), "order", s.model.Order(), "err", err)
				return
			}
			s.log.Info("kept answers complete", "n", s.model.N(), "order", s.model.Order(), "took", time.Since(start).Round(time.Millisecond))
		}()
	})
}

// Close stops the background work on the space (see precomputeLater);
// queries still answer. It is safe to call more than once, and while
// queries run.
func (s *Space) Close() error {
	s.stop()
	return nil
}

// Precompute computes the answers the space keeps that it does not hold
// yet: the analyses of the empty board, of the boards of one queen and, on
// a diagram too large to compute those along with the empty board's
// (15×15 and 16×16 in row order), the heat maps of those boards and the
// analyses of the boards of two queens, up to symmetry (some 36 and 3,300
// boards at 16×16, where a board of two queens takes 0.1-0.5 s and the
// heat map of the empty board 10 s). It uses every core, and saves what it
// computed beside the space's compiled file, so that the space loaded
// again starts with them (see answers.go), even when ctx ends first.
// Queries answer meanwhile, from the memo as it fills. The server runs it
// in the background on the spaces that need it (see precomputeLater);
// benchmarks, to measure a settled space.
func (s *Space) Precompute(ctx context.Context) error {
	return s.precompute(ctx, runtime.GOMAXPROCS(0))
}

// precompute is Precompute on up to workers boards at once.
func (s *Space) precompute(ctx context.Context, workers int) error {
	before := s.keptAnswers()
	defer func() {
		if s.keptAnswers() > before {
			s.writeAnswers()
		}
	}()
	if err := s.keepOnes(ctx); err != nil {
		return err
	}
	if s.nodes <= s.precomputeMax {
		return nil
	}
	if err := s.keepHeat(ctx); err != nil {
		return err
	}
	if s.keptAnswers() > before {
		s.writeAnswers() // the boards of one queen and the heat maps, should the pairs not finish
		before = s.keptAnswers()
	}
	return s.keepPairs(ctx, workers)
}

// keptAnswers is the number of analyses and heat maps kept.
func (s *Space) keptAnswers() (n int64) {
	for _, memo := range s.memos() {
		memo.Range(func(any, any) bool { n++; return true })
	}
	return n
}

// keepHeat computes and keeps the heat maps of the empty board and of the
// boards of one queen (see Marginals), those not yet kept.
func (s *Space) keepHeat(ctx context.Context) error {
	boards := [][]configurator.Cell{nil}
	for _, c := range s.firstImages() {
		boards = append(boards, []configurator.Cell{c})
	}
	for _, q := range boards {
		if _, err := s.Marginals(ctx, q); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
			return err
		}
	}
	return nil
}

// firstImages lists, row-major, the cells that come first among their
// images under the board's symmetries: the queens of the boards of one
// queen that the memos keep (see keptImage).
func (s *Space) firstImages() []configurator.Cell {
	var cells []configurator.Cell
	for v := range s.model.Vars() {
		if c := s.model.Cell(v); canonical(c, s.model.N()) == (symmetry{}) {
			cells = append(cells, c)
		}
	}
	return cells
}

// keepOnes computes and keeps the analyses of the empty board and of the
// boards of one queen that the memo keys by (the first of their images),
// those not yet kept.
func (s *Space) keepOnes(ctx context.Context) error {
	if _, _, err := s.kept(ctx, 0, nil); err != nil {
		return err
	}
	for _, c := range s.firstImages() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, _, err := s.kept(ctx, 1+s.model.Var(c), []configurator.Cell{c}); err != nil {
			return err
		}
	}
	return nil
}

// keepPairs computes and keeps the analyses of the boards of two queens
// that do not attack each other, one per key of the memo, on up to
// workers boards at once.
func (s *Space) keepPairs(ctx context.Context, workers int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	boards := make(chan []configurator.Cell)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for q := range boards {
				_, err := s.analyzePair(ctx, q)
				if err != nil && !errors.Is(err, configurator.ErrNoSolution) {
					cancel(err)
				}
			}
		})
	}
	vars := s.model.Vars()
feed:
	for a := range vars {
		for b := a + 1; b < vars; b++ {
			q := []configurator.Cell{s.model.Cell(a), s.model.Cell(b)}
			key := a*vars + b
			if _, least := pairKey(s.model, q); least != key || s.model.Attacks(q[0], q[1]) {
				continue // another image's key, or no solution
			}
			if _, ok := s.pairs.Load(key); ok {
				continue
			}
			select {
			case boards <- q:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(boards)
	wg.Wait()
	return context.Cause(ctx)
}

// kept returns the memo's entry of key (see Space.shallow): the analysis
// of queens, the first image of the key's board, or the error that it has
// no solution, computing and keeping it when missing (fresh).
func (s *Space) kept(ctx context.Context, key int, queens []configurator.Cell) (e any, fresh bool, err error) {
	return s.memoized(ctx, &s.shallow, key, queens, func() (*configurator.Analysis, error) {
		return s.analyze(ctx, queens)
	})
}

// inFlight names an entry of a memo being computed (Space.computing).
type inFlight struct {
	memo *sync.Map
	key  int
}

// memoized returns the entry of key in memo (Space.shallow or Space.pairs):
// the analysis of the key's board, or the error that it has no solution,
// computing it with compute and keeping it when missing (fresh). The memo
// of pairs keeps at most maxPairs entries; past that, compute's answer is
// returned and not kept. A computation of the same entry in progress (the
// background's, or another click's) is waited for rather than done twice; a
// caller whose context ends while it waits fails as one waiting for work
// space does, with configurator.ErrBusy. queens names the board in that
// error.
func (s *Space) memoized(ctx context.Context, memo *sync.Map, key int, queens []configurator.Cell,
	compute func() (*configurator.Analysis, error)) (e any, fresh bool, err error) {
	for {
		if e, ok := memo.Load(key); ok {
			return e, false, nil
		}
		done := make(chan struct{})
		if other, busy := s.computing.LoadOrStore(inFlight{memo, key}, done); busy {
			select {
			case <-other.(chan struct{}):
				continue // kept now, or that computation failed: look again
			case <-ctx.Done():
				return nil, false, fmt.Errorf("waiting for the analysis of %s under way: %w: %w",
					configurator.FormatCells(queens), configurator.ErrBusy, ctx.Err())
			}
		}
		an, err := compute()
		switch {
		case errors.Is(err, configurator.ErrNoSolution):
			e = err
		case err != nil:
			s.computing.Delete(inFlight{memo, key})
			close(done)
			return nil, false, err
		default:
			e = an
		}
		switch {
		case memo != &s.pairs:
			memo.Store(key, e)
		case s.pairCount.Load() < maxPairs:
			if _, had := memo.LoadOrStore(key, e); !had {
				s.pairCount.Add(1)
			}
		}
		s.computing.Delete(inFlight{memo, key})
		close(done)
		return e, true, nil
	}
}

// symmetry is one of the eight symmetries of the square board: a
// transposition, then reflections of the ranks and of the files. A queen
// attacks the same cells in every image, so each maps the solutions of
// the N-Queens model onto themselves.
type symmetry struct{ transpose, flipRanks, flipFiles bool }

// apply is the image of c on the n×n board.
func (g symmetry) apply(c configurator.Cell, n int) configurator.Cell {
	if g.transpose {
		c.Row, c.Col = c.Col, c.Row
	}
	if g.flipRanks {
		c.Row = n - 1 - c.Row
	}
	if g.flipFiles {
		c.Col = n - 1 - c.Col
	}
	return c
}

// keptImage reports whether queens is a board whose answers a space keeps
// (none or one queen on the board) and, if so, its key in the kept maps (0
// for the empty board, 1 + the variable of the queen's first image under
// the board's symmetries), that symmetry g and the queens mapped through
// it: the answer for queens is the kept one read through g.
func (s *Space) keptImage(queens []configurator.Cell) (g symmetry, key int, mapped []configurator.Cell, ok bool) {
	n := s.model.N()
	switch {
	case len(queens) == 0:
		return g, 0, nil, true
	case len(queens) == 1 && s.model.Contains(queens[0]):
		g = canonical(queens[0], n)
		q := g.apply(queens[0], n)
		return g, 1 + s.model.Var(q), []configurator.Cell{q}, true
	}
	return g, 0, nil, false
}

// canonical returns the symmetry that maps c to the first of its images,
// row-major.
func canonical(c configurator.Cell, n int) symmetry {
	var best symmetry
	first := c
	for i := range 8 {
		g := symmetry{i&1 != 0, i&2 != 0, i&4 != 0}
		if d := g.apply(c, n); d.Row < first.Row || d.Row == first.Row && d.Col < first.Col {
			best, first = g, d
		}
	}
	return best
}

// clone copies an analysis, so that callers never share one.
func clone(an *configurator.Analysis) *configurator.Analysis {
	c := *an
	c.Cells = slices.Clone(an.Cells)
	if an.Solutions != nil {
		c.Solutions = new(big.Int).Set(an.Solutions)
	}
	return &c
}

// analyze is Analyze without the memos and the images.
func (s *Space) analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	start := time.Now()
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, err
	}
	s.exclude(a, queens)
	var dom []robdd.Domain
	var count *big.Int
	visited := 0
	err = s.sweep(ctx, a, func(p *robdd.Part) {
		dom, count = p.ValidDomains()
		visited = p.Visited()
	})
	if err != nil {
		return nil, err
	}
	if len(dom) > 0 && dom[0] == 0 {
		return nil, noSolution(queens)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n := s.model.N()
	an := &configurator.Analysis{N: n, Cells: make([]configurator.State, n*n)}
	for v := range an.Cells {
		l := s.model.Level(v)
		switch {
		case a[l] == 1:
			an.Cells[v] = configurator.Queen
		case dom[l]&robdd.CanBeTrue == 0:
			an.Cells[v] = configurator.Blocked
		case dom[l]&robdd.CanBeFalse == 0:
			an.Cells[v] = configurator.Forced
		default:
			an.Cells[v] = configurator.Free
		}
	}
	an.Solutions = count
	an.Elapsed = time.Since(start)
	an.Work = configurator.Work{Domains: an.Elapsed, Nodes: int64(s.nodes), NodesVisited: int64(visited)}
	return an, nil
}

// Satisfiable reports whether a solution has a queen on every cell of with
// and none on any cell of without: one search for a path of the diagram
// that agrees with both (see search).
func (s *Space) Satisfiable(ctx context.Context, with, without []configurator.Cell) (bool, error) {
	a, ok, err := s.assign(with, without)
	if err != nil || !ok {
		return false, err
	}
	s.exclude(a, with)
	_, found, err := s.search(ctx, a)
	return found, err
}

// Solve returns the queens of a solution that holds queens: the first in
// the diagram's order.
func (s *Space) Solve(ctx context.Context, queens []configurator.Cell) ([]configurator.Cell, error) {
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, err
	}
	x, found, err := s.search(ctx, a)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, noSolution(queens)
	}
	return s.cells(x), nil
}

// search finds the first solution that agrees with a, depth first
// (robdd.Manager.AnySatWithin), holding the work space it uses from the
// Backend's bound as sweep does: room to visit firstGrant nodes, then
// sixteen times more while the search does not end within it (given back
// before asking again), up to the whole diagram's.
func (s *Space) search(ctx context.Context, a robdd.Assignment) (x []bool, found bool, err error) {
	for grant := min(firstGrant, s.nodes); ; grant = min(grantGrowth*grant, s.nodes) {
		release, err := s.work.acquire(ctx, s.m.AnySatBytes(grant))
		if err != nil {
			return nil, false, err
		}
		x, found, done := s.m.AnySatWithin(s.root, a, max(grant, 1))
		release()
		if done || grant >= s.nodes {
			return x, found, nil
		}
	}
}

// Sample returns a solution that holds queens, drawn uniformly at random
// from all such solutions: a count up the placement's part of the diagram
// (the cells the queens attack false, see exclude) and one walk down it.
//
// A board of none or one queen, whose part is the whole diagram or a tenth
// of it, is drawn in two steps instead, with the same distribution: a
// queen on another rank, with the probability of the solutions that hold
// it (the kept marginals of the board, see Marginals), then a solution
// that holds both, drawn as above from a part tens of times smaller. Each
// solution that holds queens has one queen on that rank, so it is drawn
// with probability m/T × 1/m = 1/T.
func (s *Space) Sample(ctx context.Context, queens []configurator.Cell, rng *rand.Rand) ([]configurator.Cell, error) {
	if len(queens) <= 1 {
		if more, ok, err := s.extend(ctx, queens, rng); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return s.Sample(ctx, more, rng)
		}
	}
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, err
	}
	s.exclude(a, queens)
	var x []bool
	ok := false
	if err := s.sweep(ctx, a, func(p *robdd.Part) { x, ok = p.RandomSat(rng) }); err != nil {
		return nil, err
	}
	if !ok {
		return nil, noSolution(queens)
	}
	return s.cells(x), nil
}

// extend adds to queens (none or one) a queen on the first rank they leave
// free, drawn with the probability of the solutions that hold it among
// those that hold queens, from the kept marginals of queens. It reports
// false, with no error, when the draw cannot be made exactly (a board
// without that rank, or counts past int64), leaving Sample to sweep.
func (s *Space) extend(ctx context.Context, queens []configurator.Cell, rng *rand.Rand) ([]configurator.Cell, bool, error) {
	n := s.model.N()
	row := 0
	if len(queens) == 1 && queens[0].Row == 0 {
		row = 1
	}
	if row >= n {
		return nil, false, nil
	}
	ones, err := s.Marginals(ctx, queens)
	if err != nil {
		return nil, false, err
	}
	total := new(big.Int)
	for c := range n {
		total.Add(total, ones[s.model.Var(configurator.Cell{Row: row, Col: c})])
	}
	if !total.IsInt64() || total.Sign() <= 0 {
		return nil, false, nil
	}
	r := rng.Int64N(total.Int64())
	for c := range n {
		cell := configurator.Cell{Row: row, Col: c}
		m := ones[s.model.Var(cell)].Int64()
		if r < m {
			return append(slices.Clone(queens), cell), true, nil
		}
		r -= m
	}
	return nil, false, nil // unreachable: the ranks' counts sum to total
}

// cells lists the cells whose variables are true in x (indexed by level),
// row-major.
func (s *Space) cells(x []bool) []configurator.Cell {
	var cells []configurator.Cell
	for v := range s.model.Vars() {
		if x[s.model.Level(v)] {
			cells = append(cells, s.model.Cell(v))
		}
	}
	return cells
}

// Marginals returns, for every cell (row-major), the number of solutions
// that hold queens and a queen on that cell: one count up and one down the
// placement's part of the diagram.
func (s *Space) Marginals(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error) {
	// The boards of none and one queen sweep the whole diagram or a tenth
	// of it: their marginals are kept, those of one queen by its first image, as their
	// analyses are (see Analyze).
	g, key, mapped, ok := s.keptImage(queens)
	if !ok {
		return s.marginals(ctx, queens)
	}
	e, _ := s.heat.Load(key)
	if e == nil {
		ones, err := s.marginalsByRank(ctx, mapped)
		switch {
		case errors.Is(err, configurator.ErrNoSolution):
			e = err
		case err != nil:
			return nil, err
		default:
			e = ones
		}
		s.heat.Store(key, e)
	}
	ones, ok := e.([]*big.Int)
	if !ok {
		return nil, noSolution(queens)
	}
	out := make([]*big.Int, len(ones))
	for v := range out {
		out[v] = new(big.Int).Set(ones[s.image(g, v)])
	}
	return out, nil
}

// marginalsByRank is marginals of a board of none or one queen, which
// would sweep the whole diagram or a large part of it in the large lane of
// the work space, summed instead over the boards that add a queen on the
// first rank queens leave free (through Marginals: those of one queen are
// kept): every solution holds one queen on that rank, so the sums are
// exact, and the sweeps of two queens are small (14 MiB on average at
// 14×14, 38 at most, where one queen's is 110 and up to the whole
// diagram's 155).
func (s *Space) marginalsByRank(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error) {
	n := s.model.N()
	row := 0
	if len(queens) == 1 && queens[0].Row == 0 {
		row = 1
	}
	if row >= n {
		return s.marginals(ctx, queens)
	}
	var sum []*big.Int
	for c := range n {
		ones, err := s.Marginals(ctx, append(slices.Clone(queens), configurator.Cell{Row: row, Col: c}))
		switch {
		case errors.Is(err, configurator.ErrNoSolution):
			continue
		case err != nil:
			return nil, err
		}
		if sum == nil {
			sum = ones
			continue
		}
		for v, x := range ones {
			sum[v].Add(sum[v], x)
		}
	}
	if sum == nil {
		return nil, noSolution(queens)
	}
	return sum, nil
}

// marginals is Marginals without the memo.
func (s *Space) marginals(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error) {
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, err
	}
	s.exclude(a, queens)
	var ones []*big.Int
	var total *big.Int
	if err := s.sweep(ctx, a, func(p *robdd.Part) { ones, total = p.Marginals() }); err != nil {
		return nil, err
	}
	if total.Sign() == 0 {
		return nil, noSolution(queens)
	}
	out := make([]*big.Int, s.model.Vars())
	for v := range out {
		out[v] = ones[s.model.Level(v)]
	}
	return out, nil
}

// Diagram returns the DOT text of the diagram restricted to queens (their
// cells true, the other cells of their ExactlyOne lines false), with nodes
// named by their cells in chess notation, and its node count. The
// restriction is copied into a Manager of its own, so the shared diagram is
// only read. Above maxNodes it returns the count alone. Without queens the
// restriction is the whole diagram, whose size is known: past maxNodes
// that answer needs no copy (which takes seconds and hundreds of megabytes
// at 14×14), nor any work space. The count of a board of one queen is kept
// (at most one a cell): a later call past maxNodes needs no copy either.
func (s *Space) Diagram(ctx context.Context, queens []configurator.Cell, maxNodes int) (string, int, error) {
	if len(queens) == 0 && s.nodes > maxNodes {
		return "", s.nodes, nil
	}
	one := len(queens) == 1 && s.model.Contains(queens[0])
	if one {
		if v, ok := s.sizes.Load(s.model.Var(queens[0])); ok && v.(int) > maxNodes {
			return "", v.(int), nil
		}
	}
	a, release, err := s.beginDrawing(ctx, queens)
	if err != nil {
		return "", 0, err
	}
	defer release()
	sub, root, err := s.m.Extract(ctx, s.root, a, s.budget)
	if err != nil {
		return "", 0, fmt.Errorf("diagram of %s: %w", configurator.FormatCells(queens), err)
	}
	nodes := sub.NodeCount(root)
	if one {
		s.sizes.Store(s.model.Var(queens[0]), nodes)
	}
	if nodes > maxNodes {
		return "", nodes, nil
	}
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	var b strings.Builder
	name := func(l int) string { return s.model.Cell(s.model.VarAt(l)).String() }
	if err := sub.WriteDOT(&b, root, name); err != nil {
		return "", 0, err
	}
	return b.String(), nodes, nil
}

// knownNodes are the node counts of the N-Queens diagram, row-major,
// terminals excluded, for N = 1..16: BuDDy's canonical counts up to 13, this
// engine's (with OEIS solution counts) for 14 to 16.
var knownNodes = [...]float64{1, 0, 0, 29, 167, 129, 1099, 2451, 9557, 25945, 94822, 435170, 2044394, 9572418, 51889029, 292364273}

// compileBytes is the budget a compile of the n×n board needs in row-major
// order: the budget's charge for every node of the diagram, terminals
// included. The smallest budget that compiles N = 7..13 is exactly that
// (smaller boards need some 23 KB more for the smallest tables);
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
