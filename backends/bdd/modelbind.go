package bdd

import (
	"math/big"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/configurator"
)

// A ModelSpace's diagram is the one its compile built, over the
// representatives that the preprocessed terms mention (see preprocess),
// not over every feature: a fixed feature is a constant, a merged one is
// its representative's variable or that variable's negation, and a
// representative that no term mentions is a free variable of its own,
// beside the diagram, a factor of 2 in every count. bindings maps every
// feature to one of these, so that the space answers over every feature
// while its sweeps read only the diagram the compile made.

// binding is what one feature stands for: the variable v, or the constant
// false when v is -1, negated when flip is 1.
type binding struct {
	v    int32
	flip int8
}

// bindings binds the features of a model to the variables of its space:
// those of the diagram, 0 to vars-1 (variable i is feature of[i]'s
// representative), then the free ones, vars to vars+free-1.
type bindings struct {
	of   []binding // by feature
	vars int
	free int
	// features[i] is the feature whose own variable is diagram variable
	// i: its representative.
	features []int
}

// bind returns the bindings of red, a reduction of the model's features.
func bind(red *reduction) bindings {
	b := bindings{of: make([]binding, len(red.rep)), vars: len(red.vars), features: red.vars}
	freeOf := make(map[int]int32) // a free representative's variable
	for f := range red.rep {
		l, x := red.lit(f)
		if x >= 0 {
			b.of[f] = binding{v: -1, flip: x}
			continue
		}
		flip := int8(0)
		if l < 0 {
			flip = 1
		}
		r := l.Var() - 1
		v := red.index[r]
		if v < 0 {
			var ok bool
			if v, ok = freeOf[r]; !ok {
				v = int32(b.vars + b.free)
				freeOf[r] = v
				b.free++
			}
		}
		b.of[f] = binding{v: v, flip: flip}
	}
	return b
}

// assign turns decisions, each on a feature in range and none twice,
// into values of the variables, the diagram's then the free ones'
// (robdd.Unassigned for those no decision sets). ok is false when no
// configuration keeps the decisions by their bindings alone: one
// contradicts a fixed feature, or two set one variable apart.
func (b *bindings) assign(decisions []configurator.Decision) (vals robdd.Assignment, ok bool) {
	vals = make(robdd.Assignment, b.vars+b.free)
	for v := range vals {
		vals[v] = robdd.Unassigned
	}
	ok = true
	for _, d := range decisions {
		x := b.of[d.Feature].flip
		if d.Select {
			x ^= 1
		}
		switch v := b.of[d.Feature].v; {
		case v < 0:
			ok = ok && x == 0
		case vals[v] == robdd.Unassigned:
			vals[v] = x
		default:
			ok = ok && vals[v] == x
		}
	}
	return vals, ok
}

// unset is how many free variables vals leaves unassigned: each doubles
// the configurations.
func (b *bindings) unset(vals robdd.Assignment) uint {
	k := uint(0)
	for _, x := range vals[b.vars:] {
		if x == robdd.Unassigned {
			k++
		}
	}
	return k
}

// domains returns every feature's valid domain from the diagram
// variables' (dom, under vals).
func (b *bindings) domains(dom []robdd.Domain, vals robdd.Assignment) []robdd.Domain {
	out := make([]robdd.Domain, len(b.of))
	for f, bd := range b.of {
		var d robdd.Domain
		switch {
		case bd.v < 0:
			d = robdd.CanBeFalse
		case int(bd.v) < b.vars:
			d = dom[bd.v]
		case vals[bd.v] == robdd.Unassigned:
			d = robdd.CanBeFalse | robdd.CanBeTrue
		default:
			d = robdd.CanBeFalse << vals[bd.v]
		}
		if bd.flip == 1 {
			d = (d&robdd.CanBeFalse)<<1 | (d&robdd.CanBeTrue)>>1
		}
		out[f] = d
	}
	return out
}

// configuration returns the features' values from the diagram
// variables' (x) and vals, a free variable v that vals leaves unassigned
// taking choose(v).
func (b *bindings) configuration(x []bool, vals robdd.Assignment, choose func(v int) bool) []bool {
	val := make([]bool, b.vars+b.free)
	copy(val, x)
	for v := b.vars; v < len(val); v++ {
		if vals[v] == robdd.Unassigned {
			val[v] = choose(v)
		} else {
			val[v] = vals[v] == 1
		}
	}
	out := make([]bool, len(b.of))
	for f, bd := range b.of {
		out[f] = bd.flip == 1
		if bd.v >= 0 {
			out[f] = val[bd.v] != out[f]
		}
	}
	return out
}

// marginals returns, for every feature, the configurations that select
// it, from the diagram variables' (ones, total under vals).
func (b *bindings) marginals(ones []*big.Int, total *big.Int, vals robdd.Assignment) []*big.Int {
	k := b.unset(vals)
	all := new(big.Int).Lsh(total, k)
	half := new(big.Int).Rsh(all, 1) // a free variable unassigned
	out := make([]*big.Int, len(b.of))
	for f, bd := range b.of {
		var o *big.Int
		switch {
		case bd.v < 0:
			o = new(big.Int)
		case int(bd.v) < b.vars:
			o = new(big.Int).Lsh(ones[bd.v], k)
		case vals[bd.v] == robdd.Unassigned:
			o = new(big.Int).Set(half)
		default:
			o = new(big.Int).Mul(all, big.NewInt(int64(vals[bd.v])))
		}
		if bd.flip == 1 {
			o.Sub(all, o)
		}
		out[f] = o
	}
	return out
}
