package featuretest

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// LargeModel writes, in UVL, a feature model of the shape and size of the
// large real ones (Kconfig trees, automotive product lines) that the team
// has not seen: a deep tree of features features, mostly optional, with
// mandatory, or and alternative groups, and constraints cross-tree
// constraints, implications of one to three features' literals to a
// fourth's, most of them between features near each other in the tree,
// some far apart. It always has a configuration: a reference
// configuration is drawn first, from the tree, and every constraint
// implies a literal true there. The same seed gives the same text.
func LargeModel(rng *rand.Rand, features, constraints int) string {
	features = max(features, 1)
	parent := make([]int, features)
	kind := make([]string, features) // the kind of the group a feature heads
	kids := make([][]int, features)
	depth := make([]int, features)
	parent[0] = -1
	for f := 1; f < features; f++ {
		// Near the end of the tree built so far: trees of configurations
		// are bushy, a menu holding a handful of options, and a dozen
		// levels deep at most.
		back := 1 + int(rng.ExpFloat64()*6)
		p := max(f-back, 0)
		for (len(kids[p]) >= 12 || depth[p] >= 11) && p > 0 {
			p = parent[p]
		}
		parent[f], depth[f] = p, depth[p]+1
		kids[p] = append(kids[p], f)
	}
	for f := range features {
		switch r := rng.Float64(); {
		case r < 0.72:
			kind[f] = "optional"
		case r < 0.82:
			kind[f] = "mandatory"
		case r < 0.91:
			kind[f] = "or"
		default:
			kind[f] = "alternative"
		}
	}
	// The reference configuration, top down.
	on := make([]bool, features)
	on[0] = true
	for f := range features {
		if !on[f] || len(kids[f]) == 0 {
			continue
		}
		switch kind[f] {
		case "mandatory":
			for _, k := range kids[f] {
				on[k] = true
			}
		case "optional", "or":
			for _, k := range kids[f] {
				on[k] = rng.IntN(2) == 0
			}
			if kind[f] == "or" {
				on[kids[f][rng.IntN(len(kids[f]))]] = true
			}
		case "alternative":
			on[kids[f][rng.IntN(len(kids[f]))]] = true
		}
	}
	var b strings.Builder
	b.WriteString("features\n")
	// The tree in pre-order, with an explicit stack: a tree of tens of
	// thousands of features may be thousands deep.
	func() {
		type item struct{ f, depth int }
		stack := []item{{0, 0}}
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			fmt.Fprintf(&b, "%sF%d\n", strings.Repeat("\t", 2*it.depth+1), it.f)
			if len(kids[it.f]) == 0 {
				continue
			}
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat("\t", 2*it.depth+2), kind[it.f])
			for i := len(kids[it.f]) - 1; i >= 0; i-- {
				stack = append(stack, item{kids[it.f][i], it.depth + 1})
			}
		}
	}()
	if constraints > 0 {
		b.WriteString("constraints\n")
	}
	lit := func(f int, positive bool) string {
		if positive {
			return fmt.Sprintf("F%d", f)
		}
		return fmt.Sprintf("!F%d", f)
	}
	pick := func(near int) int {
		if rng.IntN(5) == 0 || features < 64 {
			return rng.IntN(features)
		}
		return min(max(near+rng.IntN(129)-64, 0), features-1)
	}
	for range constraints {
		// An implication, as Kconfig's "depends on" and "select" are: one
		// to three features imply a literal near the first, which the
		// reference configuration makes true, so that it holds there.
		a := rng.IntN(features)
		ante := []int{a}
		for n := rng.IntN(3); n > 0; n-- {
			ante = append(ante, pick(a))
		}
		// Mostly a feature to select (on there); now and then one to
		// leave out (off there), which rules out more.
		c := pick(a)
		for try := 0; try < 8 && !on[c] && rng.IntN(10) > 0; try++ {
			c = pick(a)
		}
		parts := make([]string, len(ante))
		for i, f := range ante {
			parts[i] = lit(f, rng.IntN(4) > 0)
		}
		fmt.Fprintf(&b, "\t%s => %s\n", strings.Join(parts, " & "), lit(c, on[c]))
	}
	return b.String()
}
