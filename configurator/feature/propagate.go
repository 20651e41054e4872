package feature

import "slices"

// Propagator is unit propagation over a CNF: literals assumed one after
// another, each clause whose literals but one are false setting that one,
// until nothing more follows or a clause has every literal false (a
// conflict). It keeps the clause that set each variable, so that a
// conflict can be told as the chain of clauses it rests on (Proof), and it
// can take back what it set since a mark (Undo), for probing a literal
// and forgetting it. The explanations of the configurator and the SAT
// backend's valid domains share it. A Propagator is not safe for
// concurrent use.
type Propagator struct {
	cnf *CNF
	// occurs[litIndex(l)] lists the clauses holding literal l.
	occurs [][]int32
	units  []int32 // the clauses of fewer than two literals

	// val[v] is 1 or -1 once variable v is set, reason[v] the clause that
	// set it (-1: assumed), trail the variables in the order they were set,
	// of which trail[:head] have been propagated.
	val      []int8
	reason   []int32
	trail    []int32
	head     int
	conflict int32 // the clause left with every literal false, or -1
	// started reports that the units have been propagated, which set
	// trail[:base].
	started bool
	base    int
}

// litIndex numbers the literals of variables 1..V as 2v and 2v+1.
func litIndex(l Lit) int {
	if l < 0 {
		return 2*l.Var() + 1
	}
	return 2 * l.Var()
}

// NewPropagator returns a propagator of c's clauses, nothing assumed.
func NewPropagator(c *CNF) *Propagator {
	p := &Propagator{cnf: c, occurs: make([][]int32, 2*c.Vars+2),
		val: make([]int8, c.Vars+1), reason: make([]int32, c.Vars+1), conflict: -1}
	count := make([]int32, 2*c.Vars+2)
	for _, l := range c.lits {
		count[litIndex(l)]++
	}
	for i, k := range count {
		p.occurs[i] = make([]int32, 0, k)
	}
	for i := range c.Len() {
		cl := c.Clause(i)
		if len(cl) < 2 {
			p.units = append(p.units, int32(i))
		}
		for _, l := range cl {
			p.occurs[litIndex(l)] = append(p.occurs[litIndex(l)], int32(i))
		}
	}
	return p
}

// Occurrences lists the clauses of the CNF that hold literal l; the slice
// must not be changed.
func (p *Propagator) Occurrences(l Lit) []int32 { return p.occurs[litIndex(l)] }

// Value is the value of literal l: 1 true, -1 false, 0 not set.
func (p *Propagator) Value(l Lit) int8 {
	v := p.val[l.Var()]
	if l < 0 {
		return -v
	}
	return v
}

// Mark is the point Undo goes back to: the variables set so far.
func (p *Propagator) Mark() int { return len(p.trail) }

// Since returns the literals set since mark, in the order they were set.
func (p *Propagator) Since(mark int) []Lit {
	out := make([]Lit, 0, len(p.trail)-mark)
	for _, v := range p.trail[mark:] {
		out = append(out, p.lit(v))
	}
	return out
}

// lit returns the literal of variable v, which is set, that is true.
func (p *Propagator) lit(v int32) Lit {
	if p.val[v] < 0 {
		return -Lit(v)
	}
	return Lit(v)
}

// Undo takes back every variable set since mark, and the conflict if any.
func (p *Propagator) Undo(mark int) {
	for _, v := range p.trail[mark:] {
		p.val[v] = 0
	}
	p.trail = p.trail[:mark]
	p.head = min(p.head, mark)
	p.conflict = -1
	if mark < p.base {
		p.started, p.base = false, 0
	}
}

// Assume sets the literals and propagates; before the first literals (and
// again after an Undo past them), the clauses of fewer than two literals
// and what follows from them. It reports false when that reaches a
// conflict: a clause with every literal false, or a literal assumed whose
// negation is assumed too.
func (p *Propagator) Assume(lits ...Lit) bool {
	if p.conflict >= 0 {
		return false
	}
	if !p.started {
		for _, i := range p.units {
			if p.examine(i) {
				return false
			}
		}
		if !p.propagate() {
			return false
		}
		p.started, p.base = true, len(p.trail)
	}
	for _, l := range lits {
		if !p.set(l, -1) {
			// The clause that made l false has every literal false now;
			// when no clause did, the assumptions contradict each other.
			p.conflict = p.reason[l.Var()]
			if p.conflict < 0 {
				p.conflict = int32(p.cnf.Len())
			}
			return false
		}
	}
	return p.propagate()
}

// propagate examines the clauses that the literals set and not yet
// propagated make false, until nothing more follows or a conflict.
func (p *Propagator) propagate() bool {
	for ; p.head < len(p.trail); p.head++ {
		l := -p.lit(p.trail[p.head]) // the literal made false
		for _, i := range p.occurs[litIndex(l)] {
			if p.examine(i) {
				return false
			}
		}
	}
	return true
}

// set makes l true for reason (a clause, or -1 when assumed), and reports
// false when l is false already.
func (p *Propagator) set(l Lit, reason int32) bool {
	switch p.Value(l) {
	case 1:
		return true
	case -1:
		return false
	}
	v := l.Var()
	p.val[v], p.reason[v] = 1, reason
	if l < 0 {
		p.val[v] = -1
	}
	p.trail = append(p.trail, int32(v))
	return true
}

// examine looks at clause i: when every literal is false it records the
// conflict and reports true; when one is open and the others false it
// sets that one.
func (p *Propagator) examine(i int32) bool {
	open := Lit(0)
	for _, l := range p.cnf.Clause(int(i)) {
		switch p.Value(l) {
		case 1:
			return false
		case 0:
			if open != 0 {
				return false
			}
			open = l
		}
	}
	if open == 0 {
		p.conflict = i
		return true
	}
	p.set(open, i)
	return false
}

// Step is one line of a proof by propagation: clause Clause of the CNF
// set Lit true, or, ending the proof, had every literal false (Lit 0).
type Step struct {
	Clause int
	Lit    Lit
}

// Proof returns the lines the conflict rests on, in the order they were
// derived, and the conflicting clause last: back along the trail, each
// variable the conflict needs that a clause set needs that clause's other
// variables. Assumed literals are the proof's premises and have no line.
// It returns nil when there is no conflict, or when the assumptions
// themselves contradict each other.
func (p *Propagator) Proof() []Step {
	if p.conflict < 0 || int(p.conflict) == p.cnf.Len() {
		return nil
	}
	need := make([]bool, len(p.val))
	for _, l := range p.cnf.Clause(int(p.conflict)) {
		need[l.Var()] = true
	}
	for _, v := range slices.Backward(p.trail) {
		if r := p.reason[v]; need[v] && r >= 0 {
			for _, l := range p.cnf.Clause(int(r)) {
				need[l.Var()] = true
			}
		}
	}
	var out []Step
	for _, v := range p.trail {
		if !need[v] || p.reason[v] < 0 || p.reason[v] == p.conflict {
			continue // a premise, or the negation of one that the conflict's clause set
		}
		out = append(out, Step{Clause: int(p.reason[v]), Lit: p.lit(v)})
	}
	return append(out, Step{Clause: int(p.conflict)})
}
