package bdd

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

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
// answers of the boards of none, one and two queens, the largest parts,
// are kept in the space's memo, computed once and on the largest diagrams
// saved beside the compiled file (see memo and Precompute). A Space is
// immutable but for that memo, and safe for concurrent use.
//
// It is a configurator.Board, answering the board's feature model itself
// (see boardfeatures.go), and a configurator.FeatureSampler,
// FeatureMarginaler, FeatureGrapher, Diagrammer, Grapher, RankProfiler,
// Sourcer and Sizer; Sample and Marginals are the same questions in
// squares.
type Space struct {
	model *configurator.Model
	// diagram is the compiled diagram; its queries hold work space from
	// the Backend's bound for what they use (see sweep, search and
	// beginDrawing).
	diagram
	budget int64 // the Manager's, which bounds a drawing's copy too
	// attacked[attackStart[v]:attackStart[v+1]] are the levels of the
	// cells a queen on variable v attacks (model.Attacks).
	attackStart []int32
	attacked    []int32
	// source is the file Compile loaded the diagram from; "" if compiled.
	source string
	// profile is RankProfile, computed once: the diagram never changes,
	// and a page that shows the space's size asks for it every time;
	// levels is the same per level (the feature model's diagram).
	profile, levels func() []int
	// memo keeps the answers of the boards of few queens.
	memo *memo
}

// compiled is a diagram of a model as Compile made or loaded it.
type compiled struct {
	m     *robdd.Manager
	root  robdd.Node
	nodes int
	// solutions is the count of the diagram's solutions when the
	// compile or its file gave it, nil when it is yet to be counted.
	solutions *big.Int
	// source is the file the diagram was loaded from; "" if compiled.
	source string
}

// newSpace returns the space of model's diagram c, whose queries take
// their work space from work and whose kept answers live in store. It
// reads back the answers store keeps for model.
func newSpace(model *configurator.Model, c compiled, budget int64, work *workspace, store store) *Space {
	s := &Space{model: model, diagram: diagram{m: c.m, root: c.root, nodes: c.nodes, work: work}, budget: budget, source: c.source}
	s.attacks(model)
	s.profile = sync.OnceValue(func() []int { return s.rankProfile(c.m, c.root) })
	s.levels = sync.OnceValue(func() []int { return c.m.LevelProfile(c.root) })
	s.memo = newMemo(s, model, c.nodes, store)
	s.memo.solutions = c.solutions
	s.memo.read()
	return s
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

// Source is the file of Options.Dir that Compile loaded the space from, or
// "" when it compiled the space.
func (s *Space) Source() string { return s.source }

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
// sweepPart: in the small lane when the part is small), or drawBytes, the
// whole diagram's, when the part is past PartLimit. With none or one
// queen it asks for the whole diagram's at once: the part of one queen is
// a large share of the diagram, often past PartLimit, and Diagram keeps
// the counts of one queen. It returns the node budget of the copy: the
// nodes the work space granted holds (a copy that needs more fails with
// robdd.ErrNodeLimit rather than pass it). Unless it fails, the caller
// calls release when done.
func (s *Space) beginDrawing(ctx context.Context, queens []configurator.Cell) (a robdd.Assignment, budget int64, release func(), err error) {
	a, _, err = s.assign(queens, nil)
	if err != nil {
		return nil, 0, nil, err
	}
	s.fixLines(a, queens)
	budget, release, err = s.beginDrawingPart(ctx, a, len(queens) > 1, s.budget)
	if err != nil {
		return nil, 0, nil, err
	}
	return a, budget, release, nil
}

// beginDrawingPart holds the work space of a drawing of the diagram
// restricted by a: the whole diagram's, or, when part is set and the part
// that a allows fits PartLimit, that part's. It returns the node budget,
// in bytes, of the restriction's copy (at most limit) and the release of
// the work space.
func (d *diagram) beginDrawingPart(ctx context.Context, a robdd.Assignment, part bool, limit int64) (budget int64, release func(), err error) {
	work := d.drawBytes()
	if part {
		visited := 0
		ok, err := d.sweepPart(ctx, a, func(p *robdd.Part) { visited = p.Visited() })
		if err != nil {
			return 0, nil, err
		}
		if ok {
			work = min(work, drawBytesPerNode*int64(visited+2))
		}
	}
	release, err = d.work.acquire(ctx, work)
	if err != nil {
		return 0, nil, err
	}
	budget = min(limit, d.work.granted(work)/drawBytesPerNode*robdd.BytesPerNode)
	return max(budget, minBudget), release, nil
}

// tooLargeToCopy is the error of a restriction whose copy needs more
// nodes than the work space of a drawing grants.
func tooLargeToCopy(queens []configurator.Cell, budget int64, err error) error {
	return fmt.Errorf("the diagram under %s has more than %d nodes, more than this server copies at once: %w: %w",
		configurator.FormatCells(queens), budget/robdd.BytesPerNode, configurator.ErrTooLarge, err)
}

// drawBytes is the work space of drawing the whole diagram, terminals
// included (they have ids too).
func (d *diagram) drawBytes() int64 { return drawBytesPerNode * int64(d.nodes+2) }

// level is the level of cell c's variable.
func (s *Space) level(c configurator.Cell) int { return s.model.Level(s.model.Var(c)) }

// noSolution is the error of a placement of queens that no solution holds.
func noSolution(queens []configurator.Cell) error {
	return fmt.Errorf("queens %s: %w", configurator.FormatCells(queens), configurator.ErrNoSolution)
}

// Analyze classifies every cell by the valid domains of its variable under
// the placement (CVD), and counts the solutions that hold the placement:
// one sweep up the placement's part of the diagram counts, one sweep down
// marks the domains. The count comes from the domains' sweep up at no cost
// of its own, so Work.Domains is the whole step (gathering the part
// included) and Work.Count is zero; Work.NodesVisited is the nodes of the
// part, both sweeps visiting each once.
//
// The boards of none, one and two queens are answered from the memo (see
// memo.analysis), whose answers are copies whose Elapsed and Work.Domains
// are the time of the call and whose Work.NodesVisited is 0, since no node
// is visited. The others are swept through their image whose queens lie
// highest in the variable order (see analyzeImage).
func (s *Space) Analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	if an, ok, err := s.memo.analysis(ctx, queens); ok || err != nil {
		return an, err
	}
	return s.analyzeImage(ctx, queens)
}

// solutions is the number of solutions, which a space's file records:
// the count of the analysis of the empty board, which the memo keeps for
// the first query (a sweep of the whole diagram, done once), or, should
// ctx end before it is done, a count of its own.
func (s *Space) solutions(ctx context.Context) *big.Int {
	if s.memo.solutions != nil {
		return s.memo.solutions
	}
	if e, _, err := s.memo.one(ctx, 0, nil); err == nil {
		if an, ok := e.(*configurator.Analysis); ok {
			return an.Solutions
		}
		return new(big.Int) // the error that there is no solution
	}
	return s.m.SatCount(s.root)
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
	return g.readThrough(s.model, an), nil
}

// shallowest returns the symmetry of the board that maps the queens
// highest in the variable order: the deepest of their levels the
// smallest, then the sum of their levels. Queens off the board leave the
// placement as it is.
func (s *Space) shallowest(queens []configurator.Cell) symmetry {
	n := s.model.N()
	var best symmetry
	bestDeepest, bestSum := -1, 0
	for _, g := range symmetries() {
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

// analyze is Analyze without the memo and the images: one sweep of the
// placement as given.
func (s *Space) analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	start := time.Now()
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, err
	}
	s.exclude(a, queens)
	return s.analyzeAt(ctx, queens, a, start)
}

// analyzeAt is the analysis of queens placed by the assignment a (which
// may rule out more cells): one sweep of its part of the diagram, begun
// at start.
func (s *Space) analyzeAt(ctx context.Context, queens []configurator.Cell, a robdd.Assignment, start time.Time) (*configurator.Analysis, error) {
	var dom []robdd.Domain
	var count *big.Int
	visited := 0
	err := s.sweep(ctx, a, func(p *robdd.Part) {
		dom, count = p.ValidDomains()
		visited = p.Visited()
	})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.analysisOf(queens, a, dom, count, visited, start)
}

// analysisOf is the analysis of queens, placed by a, from the valid
// domains and the count of a sweep of visited nodes begun at start.
func (s *Space) analysisOf(queens []configurator.Cell, a robdd.Assignment, dom []robdd.Domain, count *big.Int, visited int, start time.Time) (*configurator.Analysis, error) {
	if len(dom) > 0 && dom[0] == 0 {
		return nil, noSolution(queens)
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
// placement's part of the diagram. The boards of none and one queen, which
// would sweep the whole diagram or a large part of it, are answered from
// the memo (see memo.marginals).
func (s *Space) Marginals(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error) {
	if ones, ok, err := s.memo.marginals(ctx, queens); ok || err != nil {
		return ones, err
	}
	return s.marginals(ctx, queens)
}

// marginalsByRank is marginals of a board of none or one queen, which
// would sweep the whole diagram or a large part of it in the large lane of
// the work space, summed instead over the boards that add a queen on the
// first rank queens leave free (through Marginals: those of one queen are
// kept): every solution holds one queen on that rank, so the sums are
// exact, and the parts of two queens are small, a fraction of one queen's,
// and swept in the small lane. The memo fills its heat maps with it.
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

// analyzeWithHeat is analyze and marginals of a board of queens from one
// gathering of its part of the diagram: how the memo computes the answers
// it keeps of a board of one queen when it keeps both.
func (s *Space) analyzeWithHeat(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, []*big.Int, error) {
	start := time.Now()
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, nil, err
	}
	s.exclude(a, queens)
	var dom []robdd.Domain
	var count *big.Int
	var ones []*big.Int
	visited := 0
	err = s.sweep(ctx, a, func(p *robdd.Part) {
		dom, count = p.ValidDomains()
		ones, _ = p.Marginals()
		visited = p.Visited()
	})
	if err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	an, err := s.analysisOf(queens, a, dom, count, visited, start)
	if err != nil {
		return nil, nil, err
	}
	heat := make([]*big.Int, s.model.Vars())
	for v := range heat {
		heat[v] = ones[s.model.Level(v)]
	}
	return an, heat, nil
}

// marginals is Marginals without the memo.
func (s *Space) marginals(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error) {
	a, _, err := s.assign(queens, nil)
	if err != nil {
		return nil, err
	}
	s.exclude(a, queens)
	out, err := s.marginalsAt(ctx, a)
	if err == nil && out == nil {
		err = noSolution(queens)
	}
	return out, err
}

// marginalsAt counts, for every cell (row-major), the solutions the
// assignment a allows with a queen there: one count up and one down its
// part of the diagram. It returns nil, with no error, when a allows none.
func (s *Space) marginalsAt(ctx context.Context, a robdd.Assignment) ([]*big.Int, error) {
	var ones []*big.Int
	var total *big.Int
	if err := s.sweep(ctx, a, func(p *robdd.Part) { ones, total = p.Marginals() }); err != nil {
		return nil, err
	}
	if total.Sign() == 0 {
		return nil, nil
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
// that answer needs no copy of the whole diagram, nor any work space. The
// count of a board of one queen is kept in the memo (at most one a cell):
// a later call past maxNodes needs no copy either.
func (s *Space) Diagram(ctx context.Context, queens []configurator.Cell, maxNodes int) (string, int, error) {
	if len(queens) == 0 && s.nodes > maxNodes {
		return "", s.nodes, nil
	}
	one := len(queens) == 1 && s.model.Contains(queens[0])
	if one {
		if nodes, ok := s.memo.size(s.model.Var(queens[0])); ok && nodes > maxNodes {
			return "", nodes, nil
		}
	}
	a, budget, release, err := s.beginDrawing(ctx, queens)
	if err != nil {
		return "", 0, err
	}
	defer release()
	sub, root, err := s.m.Extract(ctx, s.root, a, budget)
	if errors.Is(err, robdd.ErrNodeLimit) {
		return "", 0, tooLargeToCopy(queens, budget, err)
	}
	if err != nil {
		return "", 0, fmt.Errorf("diagram of %s: %w", configurator.FormatCells(queens), err)
	}
	nodes := sub.NodeCount(root)
	if one {
		s.memo.keepSize(s.model.Var(queens[0]), nodes)
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

// Precompute computes the answers the space keeps that it does not hold
// yet (see memo.precompute) on every core, and saves what it computed
// beside the space's compiled file, so that the space loaded again starts
// with them (see answers.go), even when ctx ends first. Queries answer
// meanwhile, from the memo as it fills. The server has it done in the
// background on the spaces that need it (see memo.start); benchmarks call
// it to measure a settled space.
func (s *Space) Precompute(ctx context.Context) error {
	return s.memo.precompute(ctx, runtime.GOMAXPROCS(0))
}

// Close stops the background work on the space (see memo.start); queries
// still answer. It is safe to call more than once, and while queries run.
func (s *Space) Close() error {
	s.memo.close()
	return nil
}
