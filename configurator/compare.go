package configurator

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Answer is one backend's answer to one step of a session, as Compare
// takes it: the session after the step (nil when the step failed or the
// board has no solution at all), and what Why? or Make room said.
type Answer struct {
	Backend     string
	Session     *Session
	Unsolvable  bool // the empty board has no solution (N = 2, 3)
	Explanation *Explanation
	Room        []Cell
	Err         error
}

// CellDifference is a cell two backends classify differently.
type CellDifference struct {
	Cell   Cell
	States [2]State // the first answer's, then the second's
}

// Disagreement is everything two answers to the same step disagree on:
// cells, and in words anything else (counts, explanations, one backend
// finding no solution).
type Disagreement struct {
	Cells []CellDifference
	Other []string
}

// None reports whether the answers agree.
func (d Disagreement) None() bool { return len(d.Cells) == 0 && len(d.Other) == 0 }

// Compare checks b's answer against a's, the reference. An error of b's
// counts only when it contradicts a (b finds no solution where a does);
// other failures of b (a deadline, a busy queue) are not disagreements.
func Compare(a, b *Answer) Disagreement {
	var d Disagreement
	name := func(x *Answer) string { return strings.ToUpper(x.Backend) }
	if b.Err != nil {
		if a.Err == nil && (errors.Is(b.Err, ErrNoSolution) || errors.Is(b.Err, ErrBlocked)) {
			d.Other = append(d.Other, fmt.Sprintf("%s finds no solution here, %s does: %v", name(b), name(a), b.Err))
		}
		return d
	}
	switch {
	case a.Unsolvable != b.Unsolvable:
		d.Other = append(d.Other, fmt.Sprintf("%s and %s disagree on whether the board has any solution", name(a), name(b)))
		return d
	case a.Session == nil || b.Session == nil:
		return d
	}
	pa, pb := a.Session.Analysis(), b.Session.Analysis()
	for v := range pa.Cells {
		if pa.Cells[v] != pb.Cells[v] {
			c := Cell{Row: v / pa.N, Col: v % pa.N}
			d.Cells = append(d.Cells, CellDifference{Cell: c, States: [2]State{pa.Cells[v], pb.Cells[v]}})
		}
	}
	if pa.Solutions != nil && pb.Solutions != nil {
		switch {
		case !pa.AtLeast && !pb.AtLeast && pa.Solutions.Cmp(pb.Solutions) != 0:
			d.Other = append(d.Other, fmt.Sprintf("%s counts %s solutions, %s counts %s", name(a), pa.Solutions, name(b), pb.Solutions))
		case !pa.AtLeast && pb.AtLeast && pb.Solutions.Cmp(pa.Solutions) > 0:
			d.Other = append(d.Other, fmt.Sprintf("%s counts at least %s solutions, %s only %s", name(b), pb.Solutions, name(a), pa.Solutions))
		case pa.AtLeast && !pb.AtLeast && pa.Solutions.Cmp(pb.Solutions) > 0:
			d.Other = append(d.Other, fmt.Sprintf("%s counts at least %s solutions, %s only %s", name(a), pa.Solutions, name(b), pb.Solutions))
		}
	}
	if ea, eb := a.Explanation, b.Explanation; ea != nil && eb != nil {
		switch {
		case ea.Reason != eb.Reason || !slices.Equal(ea.Because, eb.Because):
			d.Other = append(d.Other, fmt.Sprintf("%s says %q, %s says %q", name(a), ea, name(b), eb))
		case !ea.More && !eb.More && !sameCauses(ea.Reasons, eb.Reasons):
			// Both lists are whole and in one order: they are equal.
			d.Other = append(d.Other, fmt.Sprintf("%s finds %d reasons, %s %d: %s against %s", name(a), len(ea.Reasons), name(b), len(eb.Reasons),
				causeList(ea.Reasons), causeList(eb.Reasons)))
		case len(ea.Room) != len(eb.Room):
			d.Other = append(d.Other, fmt.Sprintf("%s would remove %s, %s would remove %s", name(a), ListCells(ea.Room), name(b), ListCells(eb.Room)))
		}
	}
	if a.Room != nil && b.Room != nil && len(a.Room) != len(b.Room) {
		d.Other = append(d.Other, fmt.Sprintf("%s would remove %s, %s would remove %s", name(a), ListCells(a.Room), name(b), ListCells(b.Room)))
	}
	return d
}

// sameCauses reports whether two lists of reasons name the same sets of
// queens, in the same order.
func sameCauses(a, b []Cause) bool {
	return slices.EqualFunc(a, b, func(x, y Cause) bool { return x.Reason == y.Reason && slices.Equal(x.Queens, y.Queens) })
}

// causeList names reasons for a message: "[b5] [a1]".
func causeList(cs []Cause) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = "[" + FormatCells(c.Queens) + "]"
	}
	return strings.Join(parts, " ")
}
