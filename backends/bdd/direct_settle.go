package bdd

import (
	"math/bits"
	"slices"
)

// unsatisfied counts the ExactlyOne lines with free cells in s, a state at
// level l: those still waiting for their queen.
func (d *worker[A]) unsatisfied(s []uint64, l int) int {
	W, off := width[A](d.direct), l>>6
	n := 0
	for i := range int(d.active[l]) {
		if meets(s, d.lines[i*W:(i+1)*W], off, d.spans[i]) {
			n++
		}
	}
	return n
}

// settle brings f, a child at level l+1 of a settled state, which lost the
// cells in removed (words from l>>6 on; removed is overwritten), to its
// fixpoint, and reports whether it is alive and which families are tight
// in it. The lines in sat (through a queen just placed at l) are satisfied
// and exempt from the emptiness check; need is the number of unsatisfied
// ExactlyOne lines, for the pigeonhole test; parentTight is the tight
// families of the parent.
//
// The fixpoint removes every cell that all the free cells of an
// unsatisfied ExactlyOne line attack: one of those must hold a queen, so
// such a cell cannot, and removing it leaves the residual function
// unchanged. A family is tight when its lines with free ExactlyOne cells
// are as many as the queens needed: then each of them holds one queen on
// those cells, and they are treated as ExactlyOne lines too. Since the
// parent was settled, only the lines that lost cells need a new look, and
// the lines of a family that was not tight in the parent.
func (d *worker[A]) settle(f, removed []uint64, l int, sat []int32, need int, parentTight uint64) (uint64, bool) {
	W, off := width[A](d.direct), l>>6
	f, removed = f[:W], removed[:W]
	lost := d.lost[:W] // removed since the families' lines were last looked at
	copy(lost[off:], removed[off:])
	full := parentTight // tight families whose lines have all been pruned
	for {
		dirty := d.dirty[:0]
		if d.masks {
			// The lines through the removed cells, but those in sat.
			touched, exempt := d.cellLines.of(removed, off), uint64(0)
			for _, i := range sat {
				exempt |= 1 << i
			}
			for t := touched &^ exempt; t != 0; t &= t - 1 {
				i := bits.TrailingZeros64(t)
				if !meets(f, d.lines[i*W:(i+1)*W], off, d.spans[i]) {
					return 0, false
				}
				dirty = append(dirty, int32(i))
			}
		} else {
			for i := range int(d.active[l]) {
				line := d.lines[i*W : (i+1)*W]
				if !meets(removed, line, off, d.spans[i]) || slices.Contains(sat, int32(i)) {
					continue
				}
				if !meets(f, line, off, d.spans[i]) {
					return 0, false
				}
				dirty = append(dirty, int32(i))
			}
		}
		d.dirty = dirty
		sat = nil
		for j := off; j < W; j++ {
			removed[j] = 0
		}
		changed := false
		for _, i := range dirty {
			line := d.lines[int(i)*W : int(i+1)*W]
			changed = d.prune(f, line, removed, off) || changed
		}
		if changed {
			for j := off; j < W; j++ {
				lost[j] |= removed[j]
			}
			continue
		}
		if !d.pigeon {
			return 0, true
		}
		tight, ok := d.fits(f, l, need)
		if !ok {
			return 0, false
		}
		for k := range d.families {
			if tight&(1<<k) == 0 {
				continue
			}
			fam := &d.families[k]
			if fam.masks {
				// The lines that lost cells, or all of them.
				todo := fam.upto[l]
				if full&(1<<k) != 0 {
					todo &= fam.cellLine.of(lost, off)
				}
				for ; todo != 0; todo &= todo - 1 {
					i := bits.TrailingZeros64(todo)
					changed = d.prune(f, fam.lines[i*W:(i+1)*W], removed, off) || changed
				}
				continue
			}
			for i := 0; i < len(fam.last) && int(fam.last[i]) >= l; i++ {
				line := fam.lines[i*W : (i+1)*W]
				if full&(1<<k) == 0 || meets(lost, line, off, fam.spans[i]) {
					changed = d.prune(f, line, removed, off) || changed
				}
			}
		}
		if !changed {
			return tight, true
		}
		full |= tight
		for j := off; j < W; j++ {
			lost[j] = removed[j]
		}
	}
}

// prune removes from f (words from off) the cells that every free cell of
// line attacks, except those candidates themselves, adds them to removed,
// and reports whether there were any. It stops as soon as the candidates
// seen so far leave nothing to remove, which is the usual case.
func (d *worker[A]) prune(f, line, removed []uint64, off int) bool {
	W := width[A](d.direct)
	f, line, removed, common := f[:W], line[:W], removed[:W], d.common[:W]
	first := true
	for j := off; j < W; j++ {
		for w := f[j] & line[j]; w != 0; w &= w - 1 {
			att := d.attack[(j<<6|bits.TrailingZeros64(w))*W:]
			var left uint64
			if first {
				for k := off; k < W; k++ {
					common[k] = att[k] & f[k] &^ line[k]
					left |= common[k]
				}
				first = false
			} else {
				for k := off; k < W; k++ {
					common[k] &= att[k]
					left |= common[k]
				}
			}
			if left == 0 {
				return false
			}
		}
	}
	if first {
		return false
	}
	for j := off; j < W; j++ {
		f[j] &^= common[j]
		removed[j] |= common[j]
	}
	return true
}

// fits is the pigeonhole test on state f (words from l>>6): the need
// unsatisfied ExactlyOne lines want a queen each on their free cells, which
// hold at most one queen per line of a family, plus one per cell outside
// the family.
func (d *worker[A]) fits(f []uint64, l, need int) (tight uint64, ok bool) {
	W, off := width[A](d.direct), l>>6
	f, g := f[:W], d.free[:W]
	for j := off; j < W; j++ {
		g[j] = f[j] & d.eoCells[j]
	}
	for k := range d.families {
		fam := &d.families[k]
		room := 0
		if fam.masks {
			// The lines met, from the cells on them.
			for j := off; j < W; j++ {
				room += bits.OnesCount64(g[j] &^ fam.cover[j])
			}
			room += bits.OnesCount64(fam.cellLine.of(g, off))
		} else {
			for j := off; j < W; j++ {
				room += bits.OnesCount64(g[j] &^ fam.cover[j])
			}
		}
		for i := 0; !fam.masks && room <= need && i < len(fam.last) && int(fam.last[i]) >= l; i++ {
			if meets(g, fam.lines[i*W:(i+1)*W], off, fam.spans[i]) {
				room++
			}
		}
		if room < need {
			return 0, false
		}
		if room == need && k < 64 {
			tight |= 1 << k
		}
	}
	return tight, true
}
