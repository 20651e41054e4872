package feature

// group adds the clauses of group gi: a mandatory group's children follow
// their parent; otherwise a selected parent has at least lo and every
// configuration at most hi of the children (the children of a deselected
// parent are deselected by their own clauses).
func (b *cnfBuilder) group(m *Model, gi int) {
	g := &m.Groups[gi]
	if g.Kind == GroupMandatory {
		for _, c := range g.Children {
			b.origin = Origin{OriginMandatory, c}
			b.emit(FeatureLit(g.Parent, false), FeatureLit(c, true))
		}
		return
	}
	b.origin = Origin{OriginGroup, gi}
	p := FeatureLit(g.Parent, true)
	lo, hi := g.Bounds()
	n := len(g.Children)
	xs := make([]Lit, n)
	for i, c := range g.Children {
		xs[i] = FeatureLit(c, true)
	}
	if lo > n {
		b.emit(-p)
		return
	}
	if lo == 1 {
		b.emit(append([]Lit{-p}, xs...)...)
		lo = 0
	}
	switch {
	case hi >= n:
	case hi == 0:
		for _, x := range xs {
			b.emit(-x)
		}
	case hi == 1 && n <= b.lim.pairwise:
		for i := range xs {
			for _, y := range xs[i+1:] {
				b.emit(-xs[i], -y)
			}
		}
	case hi == 1:
		// A ladder: s is "one of the children before x is selected".
		s := xs[0]
		for i, x := range xs[1:] {
			b.emit(-s, -x)
			if i < n-2 {
				s = b.or2(s, x)
			}
		}
	default:
		b.count(p, xs, lo, hi)
		return
	}
	if lo > 0 {
		b.count(p, xs, lo, n)
	}
}

// count adds clauses for "p implies at least lo of xs" (lo > 0) and "at
// most hi of xs" (hi < len(xs)): with a sequential counter whose cells say
// "at least j of the first i", or, when that would take more than
// lim.counter cells, with the binary sum of xs compared with the bounds.
func (b *cnfBuilder) count(p Lit, xs []Lit, lo, hi int) {
	n := len(xs)
	k := lo
	if hi < n {
		k = max(k, hi+1)
	}
	if k*n <= b.lim.counter {
		// s[j] is "at least j of the children so far"; s[0] is true.
		s := make([]Lit, k+1)
		s[0] = litTrue
		for j := 1; j <= k; j++ {
			s[j] = litFalse
		}
		for i, x := range xs {
			for j := min(i+1, k); j >= 1; j-- {
				s[j] = b.or2(s[j], b.and2(x, s[j-1]))
			}
		}
		if hi < n {
			b.emit(-s[hi+1])
		}
		if lo > 0 {
			b.emit(-p, s[lo])
		}
		return
	}
	bits := b.sum(xs)
	if hi < n {
		// The sum exceeds hi when, at some bit where hi has 0, the sum has
		// 1 and agrees with hi on every higher bit where hi has 1.
		for i := range bits {
			if hi>>i&1 == 1 {
				continue
			}
			cl := []Lit{-bits[i]}
			for j := i + 1; j < len(bits); j++ {
				if hi>>j&1 == 1 {
					cl = append(cl, -bits[j])
				}
			}
			b.emit(cl...)
		}
	}
	if lo > 0 {
		for i := range bits {
			if lo>>i&1 == 0 {
				continue
			}
			cl := []Lit{-p, bits[i]}
			for j := i + 1; j < len(bits); j++ {
				if lo>>j&1 == 0 {
					cl = append(cl, bits[j])
				}
			}
			b.emit(cl...)
		}
	}
}

// sum returns the bits of the number of true literals among xs, least
// significant first, each a defined variable (or a literal or constant it
// folds to): two halves' sums added by a ripple of full adders.
func (b *cnfBuilder) sum(xs []Lit) []Lit {
	if len(xs) == 1 {
		return []Lit{xs[0]}
	}
	l, r := b.sum(xs[:len(xs)/2]), b.sum(xs[len(xs)/2:])
	out := make([]Lit, 0, max(len(l), len(r))+1)
	carry := litFalse
	for i := 0; i < max(len(l), len(r)); i++ {
		x, y := litFalse, litFalse
		if i < len(l) {
			x = l[i]
		}
		if i < len(r) {
			y = r[i]
		}
		out = append(out, b.xor2(b.xor2(x, y), carry))
		carry = b.majority(x, y, carry)
	}
	if carry != litFalse {
		out = append(out, carry)
	}
	return out
}
