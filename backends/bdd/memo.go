package bdd

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// precomputeNodes is the largest diagram whose boards of one queen the
// first analysis of the empty board computes along with it, so that no
// click of a person waits for them: up to 14×14 in row order (see
// knownNodes), a few dozen boards that each sweep a part of the diagram.
// Larger diagrams, each several times the one before, compute them in the
// background after it (see memo.start).
const precomputeNodes = 16 << 20

// maxPairs bounds the memo of the boards of two queens: the first that
// many distinct boards (up to symmetry) are kept, a few hundred bytes
// each. Every board of two queens of a 16×16 board fits: some 3,000 up to
// symmetry.
const maxPairs = 1 << 14

// precomputeTime bounds the background work of memo.start: swept one by
// one, the boards of two queens of the largest diagrams take many minutes
// of a core.
const precomputeTime = 45 * time.Minute

// memo keeps the answers about the boards of few queens, whose parts are
// the largest of the diagram that clicks ask for, so that a Space sweeps
// each at most once: the analyses of the empty board and of the boards of
// one and two queens, the heat maps (marginals) of the empty board and of
// the boards of one queen, and the node counts of the diagrams restricted
// to one queen. A
// board is kept by the first of its eight images under the board's
// symmetries (see keptImage and pairKey), so a memo computes about an
// eighth of the boards, and answers the others through the symmetry.
//
// The memo owns the lifecycle of those answers. On a diagram of at most
// precomputeNodes nodes (eager) the first analysis of the empty board
// computes the boards of one queen along with it; on a larger one the
// first analysis starts the background work that computes them all (see
// start) until the space is closed (close); precompute fills the memo
// whole, by one search of the board's solutions when it can (keepAll),
// else by a sweep per board. Its answers are saved beside the space's
// compiled file and read back when the space is loaded again (see
// answers.go). A memo is safe for
// concurrent use; an answer being computed is waited for, never computed
// twice at once.
type memo struct {
	model *configurator.Model
	// nodes is the size of the diagram: the Work.Nodes of the analyses
	// read back from a file.
	nodes int
	// solutions is the diagram's count of solutions when the compile or
	// its file gave it (nil otherwise): what keepAll checks its tally
	// against, without a sweep of the whole diagram.
	solutions *big.Int
	// space computes what the memo does not hold.
	space sweeper
	// store is where the memo's file lives (see answers.go); its log
	// receives what the background work and the file do.
	store store
	// eager is set on a diagram of at most precomputeNodes nodes: the
	// boards of one queen are computed along with the empty board's, and
	// not in the background. Tests clear it to exercise the large
	// diagrams' way on small ones.
	eager bool
	// life ends when the space is closed: the background work stops.
	life       context.Context
	stop       context.CancelFunc
	background sync.Once
	// tally is the tally of the answers under way (see keepAll), which
	// the background's precompute and Precompute's, when they overlap,
	// work on together; tallied is set once its answers are kept, or were
	// read back whole. tallyMu guards both.
	tallyMu sync.Mutex
	tally   *keptTally
	tallied atomic.Bool
	// ones keeps the analyses of the empty board (key 0) and of one queen
	// on variable v (key v+1): int to the *configurator.Analysis, or to
	// the error when there is no solution, which no later call would find
	// either. pairs keeps the analyses of the boards of two queens (key
	// pairKey), pairCount of them, as ones does. heat keeps the marginals
	// of the boards of ones, by the same keys: []*big.Int by cell, or the
	// error.
	ones, pairs, heat sync.Map
	pairCount         atomic.Int64
	// saved is how many of those answers the memo's file holds: those
	// read from it, or written to it last; saving is held while it is
	// written.
	saved  atomic.Int64
	saving sync.Mutex
	// computing holds a chan struct{} per entry of ones or pairs being
	// computed, closed when it is done (see memoized).
	computing sync.Map
	// sizes keeps the node counts of the diagrams restricted to one queen
	// on variable v (key v), as Diagram computes them: at most one int a
	// cell. Keyed by the exact placement: a restriction's size is not
	// invariant under the board's symmetries in a fixed variable order.
	sizes sync.Map
}

// sweeper is what a memo computes its answers with: its space's sweeps,
// for the boards it does not hold yet.
type sweeper interface {
	// analyze sweeps a board as placed: how the memo computes a board of
	// none or one queen, already the first of its images.
	analyze(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error)
	// analyzeImage sweeps a board through its image that sweeps least:
	// how the memo computes a board of two queens.
	analyzeImage(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error)
	// marginalsByRank computes the heat map of a board of none or one
	// queen.
	marginalsByRank(ctx context.Context, queens []configurator.Cell) ([]*big.Int, error)
	// analyzeWithHeat computes the analysis and the heat map of a board
	// of one queen at once: how precompute keeps both.
	analyzeWithHeat(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, []*big.Int, error)
	// turn runs f, the work of n goroutines, in its turn on the cores
	// the Backend's heavy work shares.
	turn(n int, f func())
}

// newMemo returns the empty memo of the space of model, a diagram of
// nodes nodes, whose file lives in store.
func newMemo(space sweeper, model *configurator.Model, nodes int, store store) *memo {
	life, stop := context.WithCancel(context.Background())
	return &memo{model: model, nodes: nodes, space: space, store: store,
		eager: nodes <= precomputeNodes, life: life, stop: stop}
}

// analysis answers Analyze for the boards the memo keeps (none, one or two
// queens on the board, two distinct): from the memo when it holds the
// board or one of its images, computed and kept otherwise. It reports
// false, with no error, for the other boards. Answers from the memo are
// copies stamped as remembered. On an eager memo the first analysis of the
// empty board computes the boards of one queen too; on another, the first
// analysis of any board starts the background work (see start).
func (m *memo) analysis(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, bool, error) {
	if !m.eager {
		m.start()
	}
	g, key, mapped, ok := m.keptImage(queens)
	if !ok {
		if len(queens) == 2 && m.model.Contains(queens[0]) && m.model.Contains(queens[1]) && queens[0] != queens[1] {
			an, err := m.pair(ctx, queens)
			return an, true, err
		}
		return nil, false, nil
	}
	start := time.Now()
	e, fresh, err := m.one(ctx, key, mapped)
	if err != nil {
		return nil, true, err
	}
	an, ok := e.(*configurator.Analysis)
	if !ok {
		return nil, true, noSolution(queens)
	}
	if fresh && key == 0 && m.eager {
		if err := m.keepOnes(ctx); err != nil {
			return nil, true, err
		}
	}
	out := g.readThrough(m.model, an)
	if !fresh {
		remembered(out, start)
	}
	return out, true, nil
}

// pair is the analysis of two distinct queens on the board: from the memo
// of such boards (pairs), kept by the first of their eight images, when it
// holds the board or one of its images, computed by the space's
// analyzeImage and kept otherwise. There are few such boards, and their
// parts are the largest that clicks ask for once the boards of none and
// one queen are kept, so a memo keeps them all (up to maxPairs).
func (m *memo) pair(ctx context.Context, queens []configurator.Cell) (*configurator.Analysis, error) {
	g, key := pairKey(m.model, queens)
	start := time.Now()
	var an *configurator.Analysis
	e, fresh, err := m.memoized(ctx, &m.pairs, key, queens, func() (*configurator.Analysis, error) {
		var err error
		if an, err = m.space.analyzeImage(ctx, queens); err != nil {
			return nil, err
		}
		// Kept as the analysis of the key's image: its cell g(c) is c's.
		kept := clone(an)
		for v := range an.Cells {
			kept.Cells[g.variable(m.model, v)] = an.Cells[v]
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
		return remembered(g.readThrough(m.model, e), start), nil
	}
	return nil, fmt.Errorf("memo of pairs holds %T", e)
}

// marginals answers Marginals for the boards of none and one queen, kept
// by the first image of the queen as their analyses are: from the memo, or
// computed by the space's marginalsByRank and kept. It reports false, with
// no error, for the other boards.
func (m *memo) marginals(ctx context.Context, queens []configurator.Cell) ([]*big.Int, bool, error) {
	g, key, mapped, ok := m.keptImage(queens)
	if !ok {
		return nil, false, nil
	}
	e, _ := m.heat.Load(key)
	if e == nil {
		ones, err := m.space.marginalsByRank(ctx, mapped)
		switch {
		case errors.Is(err, configurator.ErrNoSolution):
			e = err
		case err != nil:
			return nil, true, err
		default:
			e = ones
		}
		m.heat.Store(key, e)
	}
	ones, ok := e.([]*big.Int)
	if !ok {
		return nil, true, noSolution(queens)
	}
	out := make([]*big.Int, len(ones))
	for v := range out {
		out[v] = new(big.Int).Set(ones[g.variable(m.model, v)])
	}
	return out, true, nil
}

// size is the kept node count of the diagram restricted to a queen on
// variable v, if Diagram has counted it.
func (m *memo) size(v int) (int, bool) {
	nodes, ok := m.sizes.Load(v)
	if !ok {
		return 0, false
	}
	return nodes.(int), true
}

// keepSize keeps the node count of the diagram restricted to a queen on
// variable v.
func (m *memo) keepSize(v, nodes int) { m.sizes.Store(v, nodes) }

// keptImage reports whether queens is a board whose answers a memo keeps
// in ones and heat (none or one queen on the board) and, if so, its key
// there (0 for the empty board, 1 + the variable of the queen's first
// image under the board's symmetries), that symmetry g and the queens
// mapped through it: the answer for queens is the kept one read through g.
func (m *memo) keptImage(queens []configurator.Cell) (g symmetry, key int, mapped []configurator.Cell, ok bool) {
	n := m.model.N()
	switch {
	case len(queens) == 0:
		return g, 0, nil, true
	case len(queens) == 1 && m.model.Contains(queens[0]):
		g = canonical(queens[0], n)
		q := g.apply(queens[0], n)
		return g, 1 + m.model.Var(q), []configurator.Cell{q}, true
	}
	return g, 0, nil, false
}

// pairKey returns the key of the memo of the boards of two queens for
// queens (two distinct cells on the board): the least pair of variables,
// as min·Vars + max, over the images of the board under its symmetries,
// and the symmetry g that maps queens to that image.
func pairKey(model *configurator.Model, queens []configurator.Cell) (g symmetry, key int) {
	n := model.N()
	key = -1
	for _, h := range symmetries() {
		a, b := model.Var(h.apply(queens[0], n)), model.Var(h.apply(queens[1], n))
		if k := min(a, b)*model.Vars() + max(a, b); key < 0 || k < key {
			g, key = h, k
		}
	}
	return g, key
}

// firstImages lists, row-major, the cells that come first among their
// images under the board's symmetries: the queens of the boards of one
// queen that the memo keeps (see keptImage).
func (m *memo) firstImages() []configurator.Cell {
	var cells []configurator.Cell
	for v := range m.model.Vars() {
		if c := m.model.Cell(v); canonical(c, m.model.N()) == (symmetry{}) {
			cells = append(cells, c)
		}
	}
	return cells
}

// remembered marks an answer taken from a memo: its time is the call's,
// begun at start, and no node was visited.
func remembered(an *configurator.Analysis, start time.Time) *configurator.Analysis {
	an.Elapsed = time.Since(start)
	an.Work.Domains, an.Work.NodesVisited = an.Elapsed, 0
	return an
}

// start runs precompute once, in the background, on one board after
// another, each a sweep of the Backend's work space (so at most one core's
// worth, and queries of people come first in line as they ask), until all
// are kept, the memo is closed or precomputeTime has passed; what it
// computed by then is saved. A click on a board not yet kept computes it
// itself meanwhile.
func (m *memo) start() {
	m.background.Do(func() {
		m.store.log.Info("kept answers computing in the background", "n", m.model.N(), "order", m.model.Order())
		go func() {
			ctx, cancel := context.WithTimeout(m.life, precomputeTime)
			defer cancel()
			start := time.Now()
			if err := m.precompute(ctx, 1); err != nil {
				m.store.log.Info("kept answers left to compute on demand", "n", m.model.N(), "order", m.model.Order(), "err", err)
				return
			}
			m.store.log.Info("kept answers complete", "n", m.model.N(), "order", m.model.Order(), "took", time.Since(start).Round(time.Millisecond))
		}()
	})
}

// close stops the background work; the memo still answers and fills as
// queries ask. It is safe to call more than once.
func (m *memo) close() { m.stop() }

// precompute computes, on up to workers boards at once, the answers the
// memo keeps that it does not hold yet: the analyses of the empty board
// and of the boards of one queen and, unless the memo is eager, the heat
// maps of those boards and the analyses of the boards of two queens, up
// to symmetry. It saves to the memo's file every answer the file lacks,
// those computed before it too, even when ctx ends first.
func (m *memo) precompute(ctx context.Context, workers int) error {
	defer m.save()
	if !m.eager {
		if done, err := m.keepAll(ctx, workers); done || err != nil {
			return err
		}
	}
	if err := m.keepFirst(ctx, workers); err != nil || m.eager {
		return err
	}
	m.save() // the boards of one queen and the heat maps, should the pairs not finish
	return m.keepPairs(ctx, workers)
}

// keepAll keeps every answer precompute computes, those the memo does
// not hold yet, from one tally of the model's solutions (see tally.go)
// instead of a sweep of the diagram per board, when the model is an
// N-Queens model whose diagram counts at most maxTallied solutions; it
// reports false, keeping nothing, when it is not. The tally must find as
// many solutions as the diagram counts: each method checks the other. Up
// to workers goroutines join the tally under way (the background's
// precompute and Precompute's work on one together when they overlap) or
// start it; a single one (the background's, see start) takes its turns on
// the cores the Backend's heavy work shares, a branch of the search at a
// time. A caller whose context ends leaves the branches it added up to
// the next.
func (m *memo) keepAll(ctx context.Context, workers int) (bool, error) {
	if !isQueens(m.model) {
		return false, nil
	}
	k, err := m.joinTally(ctx)
	if k == nil || err != nil {
		return m.tallied.Load(), err
	}
	run := func(_ int, f func()) { f() }
	if workers <= 1 {
		run = m.space.turn
	}
	if err := k.run.work(ctx, workers, run); err != nil {
		return false, err
	}
	if err := m.keepTally(k); err != nil {
		return false, err
	}
	return true, nil
}

// keptTally is a tally of the memo's answers under way (see tallyRun):
// the count it must find, and the boards of one and two queens it adds up.
type keptTally struct {
	run   *tallyRun
	t     *tally
	count *big.Int
	ones  []int
	pairs [][2]int
	start time.Time
}

// joinTally returns the tally under way, or a new one, for keepAll to
// work on; nil when there is nothing to tally: the memo holds every
// answer (m.tallied is then set) or the diagram's count is not one a tally
// serves (none, or more than maxTallied).
func (m *memo) joinTally(ctx context.Context) (*keptTally, error) {
	m.tallyMu.Lock()
	defer m.tallyMu.Unlock()
	if m.tallied.Load() {
		return nil, nil
	}
	if m.tally != nil {
		return m.tally, nil
	}
	count := m.solutions
	if count == nil {
		e, _, err := m.one(ctx, 0, nil)
		if err != nil {
			return nil, err
		}
		whole, ok := e.(*configurator.Analysis)
		if !ok || whole.Solutions == nil {
			return nil, nil
		}
		count = whole.Solutions
	}
	if count.Sign() == 0 || count.Cmp(big.NewInt(maxTallied)) > 0 {
		return nil, nil
	}
	model, V := m.model, m.model.Vars()
	k := &keptTally{count: count, start: time.Now(), pairs: m.keyedPairs()}
	for _, c := range m.firstImages() {
		k.ones = append(k.ones, model.Var(c))
	}
	if m.holds(k.ones, k.pairs) {
		m.tallied.Store(true) // read back from the memo's file
		return nil, nil
	}
	k.t = newTally(V, (V+63)/64, k.ones, k.pairs)
	k.run = newTallyRun(model.N(), k.t)
	m.tally = k
	return k, nil
}

// keepTally keeps the answers of k, a tally done, once: the first of the
// callers that worked on it checks its count against the diagram's and
// keeps them; the others find them kept.
func (m *memo) keepTally(k *keptTally) error {
	m.tallyMu.Lock()
	defer m.tallyMu.Unlock()
	if m.tallied.Load() {
		return nil
	}
	m.tally = nil // a tally that fails is done again by the next caller
	model, V, t := m.model, m.model.Vars(), k.t
	if got := t.all.count[0]; new(big.Int).SetUint64(got).Cmp(k.count) != 0 {
		return fmt.Errorf("kept answers: a search of the rules finds %d solutions where the diagram counts %v", got, k.count)
	}
	m.store.log.Info("kept answers tallied over every solution", "n", model.N(), "order", model.Order(),
		"solutions", k.count, "took", time.Since(k.start).Round(time.Millisecond))
	cells := func(vs ...int) []configurator.Cell {
		q := make([]configurator.Cell, len(vs))
		for i, v := range vs {
			q[i] = model.Cell(v)
		}
		return q
	}
	heat := func(counts []uint64) []*big.Int {
		out := make([]*big.Int, len(counts))
		for v, n := range counts {
			out[v] = new(big.Int).SetUint64(n)
		}
		return out
	}
	m.ones.LoadOrStore(0, t.all.answer(0, nil, model, m.nodes))
	m.heat.LoadOrStore(0, heat(t.marginals))
	for i, v := range k.ones {
		an := t.ones.answer(i, cells(v), model, m.nodes)
		m.ones.LoadOrStore(1+v, an)
		if _, ok := an.(error); ok {
			m.heat.LoadOrStore(1+v, an)
		} else {
			m.heat.LoadOrStore(1+v, heat(t.heat[i*V:(i+1)*V]))
		}
	}
	for i, p := range k.pairs {
		if m.pairCount.Load() >= maxPairs {
			break
		}
		if _, had := m.pairs.LoadOrStore(p[0]*V+p[1], t.pairs.answer(i, cells(p[0], p[1]), model, m.nodes)); !had {
			m.pairCount.Add(1)
		}
	}
	m.tallied.Store(true)
	return nil
}

// keyedPairs lists the boards of two queens the memo keys its pairs by,
// as pairs of variables a < b (key a·Vars + b): those whose key is the
// least of their images' (pairKey) and whose queens do not attack each
// other (the others have no solution, or are answered through their
// image).
func (m *memo) keyedPairs() [][2]int {
	V := m.model.Vars()
	var pairs [][2]int
	for a := range V {
		for b := a + 1; b < V; b++ {
			q := []configurator.Cell{m.model.Cell(a), m.model.Cell(b)}
			if _, key := pairKey(m.model, q); key == a*V+b && !m.model.Attacks(q[0], q[1]) {
				pairs = append(pairs, [2]int{a, b})
			}
		}
	}
	return pairs
}

// holds reports whether the memo keeps every answer keepAll would: those
// of the empty board and of the boards of one queen on the variables
// ones, with their heat maps, and those of the boards of two queens on
// the pairs of variables pairs.
func (m *memo) holds(ones []int, pairs [][2]int) bool {
	kept := func(kind *sync.Map, key int) bool { _, ok := kind.Load(key); return ok }
	if !kept(&m.ones, 0) || !kept(&m.heat, 0) {
		return false
	}
	for _, v := range ones {
		if !kept(&m.ones, 1+v) || !kept(&m.heat, 1+v) {
			return false
		}
	}
	V := m.model.Vars()
	for _, p := range pairs {
		if !kept(&m.pairs, p[0]*V+p[1]) {
			return false
		}
	}
	return true
}

// keepFirst computes and keeps, on up to workers boards at once, the
// analyses of the empty board and of the boards of one queen and, unless
// the memo is eager, their heat maps, those not yet kept.
func (m *memo) keepFirst(ctx context.Context, workers int) error {
	if m.eager {
		return m.keepOnes(ctx)
	}
	if err := m.keepOnesWithHeat(ctx, workers); err != nil {
		return err
	}
	return m.keepHeat(ctx)
}

// save writes the memo's file when the memo holds answers the file does
// not, one save at a time: a save that waited for another finds the file
// up to date, rather than writing it again.
func (m *memo) save() {
	m.saving.Lock()
	defer m.saving.Unlock()
	if m.count() > m.saved.Load() {
		m.write()
	}
}

// count is the number of analyses and heat maps kept.
func (m *memo) count() (n int64) {
	for _, kind := range m.byKind() {
		kind.Range(func(any, any) bool { n++; return true })
	}
	return n
}

// keepHeat computes and keeps the heat maps of the empty board and of the
// boards of one queen, those not yet kept.
func (m *memo) keepHeat(ctx context.Context) error {
	boards := [][]configurator.Cell{nil}
	for _, c := range m.firstImages() {
		boards = append(boards, []configurator.Cell{c})
	}
	for _, q := range boards {
		if _, _, err := m.marginals(ctx, q); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
			return err
		}
	}
	return nil
}

// keepOnes computes and keeps the analyses of the empty board and of the
// boards of one queen that the memo keys by (the first of their images),
// those not yet kept.
func (m *memo) keepOnes(ctx context.Context) error {
	if _, _, err := m.one(ctx, 0, nil); err != nil {
		return err
	}
	for _, c := range m.firstImages() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, _, err := m.one(ctx, 1+m.model.Var(c), []configurator.Cell{c}); err != nil {
			return err
		}
	}
	return nil
}

// keepOnesWithHeat computes and keeps the analyses of the empty board and
// of the boards of one queen that the memo keys by, as keepOnes does, and
// the heat maps of the latter along with them, each board's from one
// gathering of its part (see Space.analyzeWithHeat), on up to workers
// boards at once.
func (m *memo) keepOnesWithHeat(ctx context.Context, workers int) error {
	if _, _, err := m.one(ctx, 0, nil); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	boards := make(chan configurator.Cell)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for c := range boards {
				if err := m.keepOneWithHeat(ctx, c); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, c := range m.firstImages() {
		select {
		case boards <- c:
		case <-ctx.Done():
			break feed
		}
	}
	close(boards)
	wg.Wait()
	return context.Cause(ctx)
}

// keepOneWithHeat computes and keeps the analysis and the heat map of the
// board of one queen on c, the first of its images, those not yet kept.
func (m *memo) keepOneWithHeat(ctx context.Context, c configurator.Cell) error {
	key, queens := 1+m.model.Var(c), []configurator.Cell{c}
	if _, ok := m.heat.Load(key); ok {
		_, _, err := m.one(ctx, key, queens)
		return err
	}
	_, fresh, err := m.memoized(ctx, &m.ones, key, queens, func() (*configurator.Analysis, error) {
		an, ones, err := m.space.analyzeWithHeat(ctx, queens)
		// Kept before the analysis is: whoever waited for it finds both.
		switch {
		case errors.Is(err, configurator.ErrNoSolution):
			m.heat.Store(key, err)
		case err == nil:
			m.heat.Store(key, ones)
		}
		return an, err
	})
	if err != nil || fresh {
		return err
	}
	// The analysis was kept already: the heat map on its own.
	if _, _, err := m.marginals(ctx, queens); err != nil && !errors.Is(err, configurator.ErrNoSolution) {
		return err
	}
	return nil
}

// keepPairs computes and keeps the analyses of the boards of two queens
// that do not attack each other, one per key of the memo, on up to
// workers boards at once.
func (m *memo) keepPairs(ctx context.Context, workers int) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	boards := make(chan []configurator.Cell)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for q := range boards {
				_, err := m.pair(ctx, q)
				if err != nil && !errors.Is(err, configurator.ErrNoSolution) {
					cancel(err)
				}
			}
		})
	}
	vars := m.model.Vars()
feed:
	for _, p := range m.keyedPairs() {
		if _, ok := m.pairs.Load(p[0]*vars + p[1]); ok {
			continue
		}
		select {
		case boards <- []configurator.Cell{m.model.Cell(p[0]), m.model.Cell(p[1])}:
		case <-ctx.Done():
			break feed
		}
	}
	close(boards)
	wg.Wait()
	return context.Cause(ctx)
}

// one returns the entry of key in ones: the analysis of queens, the
// first image of the key's board, or the error that it has no solution,
// computing it with the space's analyze and keeping it when missing
// (fresh).
func (m *memo) one(ctx context.Context, key int, queens []configurator.Cell) (e any, fresh bool, err error) {
	return m.memoized(ctx, &m.ones, key, queens, func() (*configurator.Analysis, error) {
		return m.space.analyze(ctx, queens)
	})
}

// inFlight names an entry of ones or pairs being computed (see
// memo.computing).
type inFlight struct {
	kind *sync.Map
	key  int
}

// memoized returns the entry of key in kind (ones or pairs): the
// analysis of the key's board, or the error that it has no solution,
// computing it with compute and keeping it when missing (fresh). pairs
// keeps at most maxPairs entries; past that, compute's answer is returned
// and not kept. A computation of the same entry in progress (the
// background's, or another click's) is waited for rather than done twice;
// a caller whose context ends while it waits fails as one waiting for work
// space does, with configurator.ErrBusy. queens names the board in that
// error.
func (m *memo) memoized(ctx context.Context, kind *sync.Map, key int, queens []configurator.Cell,
	compute func() (*configurator.Analysis, error)) (e any, fresh bool, err error) {
	for {
		if e, ok := kind.Load(key); ok {
			return e, false, nil
		}
		done := make(chan struct{})
		if other, busy := m.computing.LoadOrStore(inFlight{kind, key}, done); busy {
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
			m.computing.Delete(inFlight{kind, key})
			close(done)
			return nil, false, err
		default:
			e = an
		}
		switch {
		case kind != &m.pairs:
			kind.Store(key, e)
		case m.pairCount.Load() < maxPairs:
			if _, had := kind.LoadOrStore(key, e); !had {
				m.pairCount.Add(1)
			}
		}
		m.computing.Delete(inFlight{kind, key})
		close(done)
		return e, true, nil
	}
}
