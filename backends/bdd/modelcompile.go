package bdd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/feature"
)

// CompileModel compiles a feature model into the diagram of its
// configurations and returns it as a *ModelSpace: loaded from Options.Dir
// when a sound file of it (the same model, the same Options.ModelOrder) is
// there, compiled and saved there otherwise. The compile preprocesses the
// model (preprocess) and builds the diagram over the variables that leaves
// (the space answers over every feature, see bindings), from the order
// Options.ModelOrder gives, three compiles side by side (compileRace). A
// model whose diagram passes the budget fails with an error wrapping
// configurator.ErrTooLarge and robdd.ErrNodeLimit that says so, within
// seconds of passing it; one that ctx ends fails with ctx's error, how
// far it got in words.
func (b *Backend) CompileModel(ctx context.Context, model *feature.Model) (configurator.Space, error) {
	o := b.opts.ModelOrder.resolve()
	store := b.opts.store()
	red := modelReduction(model)
	m, root, loaded := store.loadModel(model, o, len(red.vars), b.opts.Budget)
	if !loaded {
		c, err := raceCompiles(ctx, model, o, b.opts.Budget, compileRace)
		m, root, red = c.m, c.root, c.red
		if errors.Is(err, robdd.ErrNodeLimit) {
			return nil, fmt.Errorf("bdd: the BDD of this model passes %s in this order (%v): the SAT backend answers it: %w: %w",
				bytesize.Format(b.opts.Budget), o, configurator.ErrTooLarge, err)
		}
		if err != nil {
			return nil, fmt.Errorf("bdd: %w", err)
		}
		store.saveModel(model, o, m, root)
	}
	source := ""
	if loaded {
		source = store.modelPath(model, o)
	}
	return &ModelSpace{model: model, diagram: diagram{m: m, root: root, nodes: m.Size() - 2, work: b.work}, bindings: bind(red), order: o, source: source}, nil
}

// termBuilder builds the diagrams of a model's terms in a Manager, at the
// levels its variables have when each is built, over the representatives
// of a reduction: a fixed feature is a constant, a merged one its
// representative's literal.
type termBuilder struct {
	m     *robdd.Manager
	model *feature.Model
	red   *reduction
}

// build returns the diagram of t.
func (b *termBuilder) build(ctx context.Context, t *term) (robdd.Node, error) {
	switch t.kind {
	case termClause:
		return b.clause(t.lits) // over the representatives already
	case termGroup:
		return b.group(ctx, &b.model.Groups[t.index])
	}
	return b.expr(ctx, b.model.Constraints[t.index].Expr)
}

// literal returns the diagram of feature f's literal, or of its value.
func (b *termBuilder) literal(f int, selected bool) (robdd.Node, error) {
	l, x := b.red.substitute(feature.FeatureLit(f, selected))
	switch {
	case x == 1:
		return robdd.True, nil
	case x == 0:
		return robdd.False, nil
	case l > 0:
		return b.m.Var(int(b.red.index[l.Var()-1]))
	}
	return b.m.NVar(int(b.red.index[l.Var()-1]))
}

// clause builds the disjunction of lits as a chain of nodes, the deepest
// literal first: no operation, so no cache and no garbage.
func (b *termBuilder) clause(lits []feature.Lit) (robdd.Node, error) {
	type lit struct {
		level int
		pos   bool
	}
	ls := make([]lit, 0, len(lits))
	for _, l := range lits {
		ls = append(ls, lit{b.m.LevelOf(l.Var() - 1), l > 0})
	}
	slices.SortFunc(ls, func(x, y lit) int {
		if c := cmp.Compare(y.level, x.level); c != 0 {
			return c
		}
		return cmp.Compare(btoi(x.pos), btoi(y.pos))
	})
	r := robdd.False
	for i, l := range ls {
		if i > 0 && ls[i-1].level == l.level {
			if ls[i-1].pos != l.pos {
				return robdd.True, nil // x ∨ ¬x
			}
			continue
		}
		var err error
		if l.pos {
			r, err = b.m.MakeNode(l.level, r, robdd.True)
		} else {
			r, err = b.m.MakeNode(l.level, robdd.True, r)
		}
		if err != nil {
			return robdd.False, err
		}
	}
	return r, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// group builds "a selected parent has between lo and hi of its children":
// the diagram of the count of the children's literals, one level at a
// time from the deepest, each count so far that can still end within the
// bounds a diagram of the literals below, then the implication from the
// parent. A child fixed on counts at once; one fixed off does not count.
func (b *termBuilder) group(ctx context.Context, g *feature.Group) (robdd.Node, error) {
	lo, hi := g.Bounds()
	type child struct {
		level int
		lit   robdd.Node
	}
	var children []child
	for _, c := range g.Children {
		x, err := b.literal(c, true)
		if err != nil {
			return robdd.False, err
		}
		switch x {
		case robdd.True:
			lo, hi = lo-1, hi-1
		case robdd.False:
		default:
			children = append(children, child{b.m.Level(x), x})
		}
	}
	np, err := b.literal(g.Parent, false)
	if err != nil || np == robdd.True {
		return robdd.True, err
	}
	if hi < 0 || lo > len(children) {
		return np, nil
	}
	lo = max(lo, 0)
	slices.SortStableFunc(children, func(x, y child) int { return cmp.Compare(x.level, y.level) })
	n := len(children)
	// next[k] is the diagram of the children below for a count k so far
	// (k = 0..hi+1, hi+1 standing for "past hi").
	next := make([]robdd.Node, hi+2)
	cur := make([]robdd.Node, hi+2)
	for k := range next {
		next[k] = robdd.False
		if k >= lo && k <= hi {
			next[k] = robdd.True
		}
	}
	for i := n - 1; i >= 0; i-- {
		for k := 0; k <= min(i, hi+1); k++ {
			// Past hi, or past what the remaining children can reach:
			// never within the bounds.
			if k == hi+1 || k+n-i < lo {
				cur[k] = robdd.False
				continue
			}
			var err error
			if cur[k], err = b.m.ITE(ctx, children[i].lit, next[min(k+1, hi+1)], next[k]); err != nil {
				return robdd.False, err
			}
		}
		next, cur = cur, next
	}
	return b.m.Or(ctx, np, next[0])
}

// expr builds a constraint's expression by the operations.
func (b *termBuilder) expr(ctx context.Context, e *feature.Expr) (robdd.Node, error) {
	switch e.Op {
	case feature.OpFalse:
		return robdd.False, nil
	case feature.OpTrue:
		return robdd.True, nil
	case feature.OpVar:
		return b.literal(e.Var, true)
	case feature.OpNot:
		x, err := b.expr(ctx, e.Args[0])
		if err != nil {
			return robdd.False, err
		}
		return b.m.Not(ctx, x)
	}
	r, err := b.expr(ctx, e.Args[0])
	if err != nil {
		return robdd.False, err
	}
	for _, a := range e.Args[1:] {
		x, err := b.expr(ctx, a)
		if err != nil {
			return robdd.False, err
		}
		switch e.Op {
		case feature.OpAnd:
			r, err = b.m.And(ctx, r, x)
		case feature.OpOr:
			r, err = b.m.Or(ctx, r, x)
		case feature.OpImplies:
			r, err = b.m.Imp(ctx, r, x)
		case feature.OpIff:
			r, err = b.m.Xor(ctx, r, x)
			if err == nil {
				r, err = b.m.Not(ctx, r)
			}
		default:
			err = fmt.Errorf("operator %d", e.Op)
		}
		if err != nil {
			return robdd.False, err
		}
	}
	return r, nil
}

// schedule is the order in which the compile conjoins the terms.
type schedule uint8

const (
	// bottomUp conjoins the terms whose topmost variable lies deepest
	// first, so that the conjunction so far is over the lower levels
	// only and grows upwards.
	bottomUp schedule = iota
	// topDown conjoins the terms whose deepest variable lies highest
	// first.
	topDown
	// asRead conjoins the terms in the model's order: a CNF file written
	// from a model keeps the clauses of one part of it together.
	asRead
)

// compileConfig is how a model is compiled: the schedule, and when the
// compile collects garbage and sifts. The Backend's is defaultCompile;
// tests and benchmarks try others.
type compileConfig struct {
	schedule schedule
	// tree conjoins the terms, in the schedule's order, as a balanced
	// tree: neighbours pairwise, then the pairs pairwise, and so on;
	// otherwise one by one into one diagram.
	tree bool
	// reorderAt is the live nodes at which the first sifting runs, and
	// every later one at twice what the last left; 0 never sifts.
	reorderAt int
	// sifting bounds each sifting (Groups are set by the compile).
	sifting robdd.Sifting
	// siftAtEnd sifts the diagram once more when every term is conjoined,
	// if it has at most siftAtEnd nodes; 0 never.
	siftAtEnd int
	// groups sifts the children of each group of a feature model as one
	// block.
	groups bool
	// resort sorts the terms left again after each sifting.
	resort bool
	// plain compiles without preprocessing, but for unit propagation.
	plain bool
	// overFeatures runs FORCE over every feature of the model, those that
	// no term mentions keeping their places, and takes the order of the
	// variables of the compile from it: anchors that hold the order near
	// the model's own.
	overFeatures bool
}

// unsiftedCompile is the first of the compiles CompileModel runs (see
// compileRace): the terms bottom up, one by one, from FORCE over every
// feature, without sifting as the diagram grows, and one sifting of the
// diagram made. Sifting is most of a compile's time; over a start order
// that keeps the terms short (varorder.Sift) the diagram stays small
// without it, and grows past the budget soon over one that does not.
var unsiftedCompile = compileConfig{
	schedule:     bottomUp,
	overFeatures: true,
	sifting:      robdd.Sifting{MaxSwaps: 2_000_000},
	siftAtEnd:    1 << 22,
}

// defaultCompile is another: the same, sifting as the diagram grows.
var defaultCompile = compileConfig{
	schedule:  bottomUp,
	reorderAt: 1 << 14,
	// A sifting of thousands of variables over a large diagram is bounded
	// as CUDD bounds its own (siftMaxSwap), so that a model past the
	// budget fails in bounded time rather than sifting on.
	sifting:      robdd.Sifting{MaxSwaps: 2_000_000},
	overFeatures: true,
}

// treeCompile is the third: the terms in the model's order as a
// balanced tree, from FORCE over the variables of the compile, each
// sifting bounded to the variables with the most nodes as CUDD's is.
var treeCompile = compileConfig{
	schedule:  asRead,
	tree:      true,
	reorderAt: 1 << 14,
	sifting:   robdd.Sifting{MaxSwaps: 2_000_000, MaxVars: 300},
}

// compileRace are the compiles CompileModel runs side by side, in the
// order they start: no order and schedule compiles every real model fast,
// and each of those that compile fast compiles fast in one of these and
// slowly or not at all in the others.
var compileRace = []compileConfig{unsiftedCompile, treeCompile, defaultCompile}

// raceDelay is how long after the first compile of a race each later one
// starts: long enough for the models the first compiles fast, short enough
// to leave the later ones a minute or more of two.
const raceDelay = 30 * time.Second

// raceStagger is how long after the one before a compile starts that has
// a core of its own: the first compile, which sifts its diagram at the
// end, makes the diagrams it makes within it.
const raceStagger = time.Second

// modelCompiled is a model's diagram as a compile made it: the Manager that
// holds it alone, its root, and the reduction whose variables it is over.
type modelCompiled struct {
	m    *robdd.Manager
	root robdd.Node
	red  *reduction
}

// raceCompiles compiles model by every compile of cfgs side by side: the
// first as many as the cores raceStagger apart, each later one raceDelay
// after the one before, or later while as many run as the cores (two at
// least); each in a Manager of an equal share of the budget. It returns
// the first diagram made; the others stop then. When every one fails, the
// error says why each did (the budget, ctx).
func raceCompiles(ctx context.Context, model *feature.Model, o ModelOrder, budget int64, cfgs []compileConfig) (modelCompiled, error) {
	type result struct {
		i int
		modelCompiled
		err error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	share := budget / int64(len(cfgs))
	results := make(chan result, len(cfgs))
	cores := runtime.GOMAXPROCS(0)
	slots := make(chan struct{}, max(cores, 2))
	// start[i] closes when compile i may start before its time: every
	// compile before it has failed.
	start := make([]chan struct{}, len(cfgs))
	for i, cfg := range cfgs {
		start[i] = make(chan struct{})
		go func() {
			// As many compiles start within seconds as there are cores,
			// so that the first makes the small diagrams; a later one
			// starts late, so that a model the first compiles in seconds
			// is not slowed down by it on a core they share.
			if i > 0 {
				wait := time.Duration(i) * raceStagger
				if late := i - cores + 1; late > 0 {
					wait = time.Duration(late) * raceDelay
				}
				t := time.NewTimer(wait)
				defer t.Stop()
				select {
				case <-t.C:
				case <-start[i]:
				case <-ctx.Done():
					results <- result{i: i, err: ctx.Err()}
					return
				}
			}
			// No more compiles at once than cores, two at least: a
			// compile that waits for one to end leaves the others theirs.
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				results <- result{i: i, err: ctx.Err()}
				return
			}
			c, err := compileModelFrom(ctx, model, o, share, cfg)
			<-slots
			results <- result{i, c, err}
		}()
	}
	var won *result
	errs := make([]error, len(cfgs))
	for range cfgs {
		r := <-results
		switch {
		case r.err == nil && won == nil:
			won = &r
			cancel() // the others stop
		case r.err != nil:
			errs[r.i] = r.err
			// The first compile not failed yet starts now.
			if k := slices.IndexFunc(errs, func(err error) bool { return err == nil }); k > 0 && won == nil {
				select {
				case <-start[k]:
				default:
					close(start[k])
				}
			}
		}
	}
	if won != nil {
		return won.modelCompiled, nil
	}
	if len(cfgs) == 1 {
		return modelCompiled{}, errs[0]
	}
	// Every compile's error, each within its share of the budget.
	format := make([]string, len(errs))
	args := make([]any, len(errs))
	for i, err := range errs {
		format[i] = fmt.Sprintf("compile %d of %d: %%w", i+1, len(errs))
		args[i] = err
	}
	head := fmt.Sprintf("%d compiles side by side, each within %s: ", len(cfgs), bytesize.Format(share))
	return modelCompiled{}, fmt.Errorf(head+strings.Join(format, "; "), args...)
}

// gcAt is the store size, garbage included, below which the compile does
// not collect garbage.
const gcAt = 1 << 16

// compileModelFrom compiles model into a Manager of the given budget,
// from the order o gives, as cfg says: the Manager, which holds the
// diagram alone, its root and the reduction it is over.
func compileModelFrom(ctx context.Context, model *feature.Model, o ModelOrder, budget int64, cfg compileConfig) (modelCompiled, error) {
	n := len(model.Features)
	terms, red, ok := preprocess(n, modelTerms(model), !cfg.plain)
	if !ok {
		return modelCompiled{m: robdd.New(n, budget), root: robdd.False, red: unreduced(n)}, nil
	}
	var order []int
	var err error
	if cfg.overFeatures {
		order, err = featureOrder(n, red, terms, o)
	} else {
		order, err = startOrder(len(red.vars), terms, o)
	}
	if err != nil {
		return modelCompiled{}, err
	}
	m := robdd.New(len(red.vars), budget)
	if _, err := m.SetOrder(ctx, order); err != nil {
		return modelCompiled{}, fmt.Errorf("bdd: %w", err)
	}
	root, err := compileModel(ctx, m, model, terms, red, cfg)
	if err != nil {
		return modelCompiled{}, err
	}
	return modelCompiled{m, root, red}, nil
}

// compileModel compiles the terms of model, preprocessed into red, into
// m, whose variables are the model's features and whose order is the one
// to start from, and returns the root of their conjunction over the
// representatives; m then holds that diagram alone. A term that takes m
// past its budget is retried once after a sifting; then the compile fails
// with an error wrapping robdd.ErrNodeLimit.
func compileModel(ctx context.Context, m *robdd.Manager, model *feature.Model, terms []term, red *reduction, cfg compileConfig) (robdd.Node, error) {
	b := &termBuilder{m: m, model: model, red: red}
	if cfg.groups {
		cfg.sifting.Groups = siftingGroups(model, red)
	}
	if cfg.reorderAt > 0 || cfg.siftAtEnd > 0 {
		if err := m.SetSifting(cfg.sifting); err != nil {
			return robdd.False, err
		}
	}
	c := &modelCompiler{m: m, b: b, cfg: cfg, nextReorder: cfg.reorderAt, nextGC: gcAt}
	sortTerms(m, terms, cfg.schedule)
	var root robdd.Node
	var err error
	if cfg.tree {
		root, err = c.tree(ctx, terms)
	} else {
		root, err = c.chain(ctx, terms)
	}
	if err != nil {
		nodes := m.Size()
		m.Compact()
		total := len(terms)
		if cfg.tree {
			total = max(total-1, 0)
		}
		why := stopped(err)
		if !c.passed.IsZero() && errors.Is(err, robdd.ErrNodeLimit) {
			why += fmt.Sprintf(" (last passed %v before it gave up)", time.Since(c.passed).Round(time.Millisecond))
		}
		return robdd.False, fmt.Errorf("%s after %d of %d conjunctions, with %d nodes in store: %w", why, c.done, total, nodes, err)
	}
	root = m.Compact(root)[0]
	if cfg.siftAtEnd > 0 && m.Size() <= cfg.siftAtEnd {
		// A sifting stopped early (ctx, the budget) leaves a valid order
		// and root; the caller notices ctx itself.
		r, _ := m.Reorder(ctx, root)
		root = m.Compact(r[0])[0]
	}
	return root, nil
}

// stopped says in words why a compile stopped with err.
func stopped(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "the compile stopped at its deadline"
	case errors.Is(err, context.Canceled):
		return "the compile was cancelled"
	case errors.Is(err, robdd.ErrNodeLimit):
		return "the diagram passed its budget"
	}
	return "the compile failed"
}

// siftingGroups returns the groups of model as blocks of group sifting:
// the variables of the representatives of each group's children, each in
// the first group that has it, blocks of one left out.
func siftingGroups(model *feature.Model, red *reduction) [][]int {
	var groups [][]int
	in := make([]bool, len(red.vars))
	for gi := range model.Groups {
		var g []int
		for _, c := range model.Groups[gi].Children {
			l, x := red.lit(c)
			if x >= 0 {
				continue
			}
			if v := red.index[l.Var()-1]; v >= 0 && !in[v] {
				in[v] = true
				g = append(g, int(v))
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

// sortTerms sorts terms for the schedule by the levels of their variables
// in m.
func sortTerms(m *robdd.Manager, terms []term, s schedule) {
	if s == asRead {
		return
	}
	type key struct{ top, bottom int }
	keys := make([]key, len(terms))
	for i := range terms {
		k := key{m.Vars(), -1}
		for _, v := range terms[i].vars {
			l := m.LevelOf(int(v))
			k.top, k.bottom = min(k.top, l), max(k.bottom, l)
		}
		keys[i] = k
	}
	idx := make([]int, len(terms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ka, kb := keys[a], keys[b]
		switch s {
		case topDown:
			return cmp.Or(cmp.Compare(ka.bottom, kb.bottom), cmp.Compare(ka.top, kb.top))
		}
		return cmp.Or(cmp.Compare(kb.top, ka.top), cmp.Compare(ka.bottom, kb.bottom))
	})
	sorted := make([]term, len(terms))
	for i, j := range idx {
		sorted[i] = terms[j]
	}
	copy(terms, sorted)
}

// modelCompiler is one compile in progress.
type modelCompiler struct {
	m   *robdd.Manager
	b   *termBuilder
	cfg compileConfig
	// nextReorder is the live size at which the next sifting runs, nextGC
	// the store size at which garbage is next collected.
	nextReorder, nextGC int
	// done counts the conjunctions made, and passed is when the diagram
	// last passed the budget, for the error of a compile that stops: a
	// sifting that made room brought it back within the budget before.
	done   int
	passed time.Time
}

// chain conjoins the terms one by one into one diagram.
func (c *modelCompiler) chain(ctx context.Context, terms []term) (robdd.Node, error) {
	acc := c.m.Hold(robdd.True)
	defer acc.Release()
	for i := range terms {
		if err := ctx.Err(); err != nil {
			return robdd.False, err
		}
		r, err := c.conjoin(ctx, acc.Node(), &terms[i])
		if err != nil {
			return robdd.False, err
		}
		c.done = i + 1
		acc.Set(r)
		if r == robdd.False {
			break
		}
		if c.settle(ctx) && c.cfg.resort {
			sortTerms(c.m, terms[i+1:], c.cfg.schedule)
		}
	}
	return acc.Node(), nil
}

// conjoin returns acc ∧ t. When the budget runs out it collects garbage,
// sifts for rescueTime at most and tries once more.
func (c *modelCompiler) conjoin(ctx context.Context, acc robdd.Node, t *term) (robdd.Node, error) {
	r, err := c.and(ctx, acc, t)
	if err == nil || !errors.Is(err, robdd.ErrNodeLimit) {
		return r, err
	}
	c.passed = time.Now()
	h := c.m.Hold(acc)
	defer h.Release()
	c.m.Compact()
	if c.cfg.reorderAt > 0 {
		s := c.cfg.sifting
		if s.MaxTime == 0 || s.MaxTime > rescueTime {
			s.MaxTime = rescueTime
		}
		if err := c.m.SetSifting(s); err != nil {
			return robdd.False, err
		}
		c.reorder(ctx)
		if err := c.m.SetSifting(c.cfg.sifting); err != nil {
			return robdd.False, err
		}
	}
	return c.and(ctx, h.Node(), t)
}

// rescueTime bounds the sifting that tries to make room when a term takes
// the diagram past its budget, so that a compile past its budget stops
// within seconds, whether the sifting made room or not; a sifting of a
// diagram the budget allows takes as long as it needs.
const rescueTime = 2 * time.Second

func (c *modelCompiler) and(ctx context.Context, acc robdd.Node, t *term) (robdd.Node, error) {
	x, err := c.b.build(ctx, t)
	if err != nil {
		return robdd.False, err
	}
	return c.m.And(ctx, acc, x)
}

// settle collects garbage when the store has grown past nextGC or
// nextReorder, and sifts when the live nodes have grown past nextReorder,
// keeping the held roots. It reports whether it sifted.
func (c *modelCompiler) settle(ctx context.Context) bool {
	sift := c.cfg.reorderAt > 0
	if c.m.Size() < c.nextGC && (!sift || c.m.Size() < c.nextReorder) {
		return false
	}
	c.m.Compact()
	live := c.m.Size()
	sifted := false
	if sift && live >= c.nextReorder {
		c.reorder(ctx)
		live = c.m.Size()
		sifted = true
	}
	c.nextGC = max(gcAt, 2*live)
	return sifted
}

// reorder sifts, keeping the held roots, and sets the next sifting due
// when the live nodes have doubled.
func (c *modelCompiler) reorder(ctx context.Context) {
	// A sifting stopped early (ctx) leaves a valid order, and the compile
	// notices ctx itself.
	c.m.Reorder(ctx)
	c.nextReorder = max(c.cfg.reorderAt, 2*c.m.Size())
}

// tree conjoins terms as a balanced tree: neighbours pairwise, then the
// pairs pairwise, and so on.
func (c *modelCompiler) tree(ctx context.Context, terms []term) (robdd.Node, error) {
	roots := make([]robdd.Root, 0, len(terms))
	// release lets go of every root of roots but those of done.
	release := func(roots []robdd.Root) {
		for _, r := range roots {
			r.Release()
		}
	}
	for i := range terms {
		x, err := c.b.build(ctx, &terms[i])
		if err != nil {
			release(roots)
			return robdd.False, err
		}
		roots = append(roots, c.m.Hold(x))
		c.settle(ctx)
	}
	for len(roots) > 1 {
		// Pair i+1 goes into pair i, which moves to k.
		k := 0
		for i := 0; i < len(roots); i += 2 {
			if i+1 < len(roots) {
				r, err := c.m.And(ctx, roots[i].Node(), roots[i+1].Node())
				if err == nil {
					err = ctx.Err()
				}
				if err != nil {
					release(roots[:k])
					release(roots[i:])
					return robdd.False, err
				}
				c.done++
				roots[i].Set(r)
				roots[i+1].Release()
			}
			roots[k] = roots[i]
			k++
			c.settle(ctx)
		}
		roots = roots[:k]
	}
	if len(roots) == 0 {
		return robdd.True, nil
	}
	defer roots[0].Release()
	return roots[0].Node(), nil
}
