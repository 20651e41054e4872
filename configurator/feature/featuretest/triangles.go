package featuretest

import (
	"fmt"
	"strings"
)

// Triangles is a UVL model in which the feature T is forced off by any two
// of the three features of each of k triangles (A_i, B_i, C_i), and the
// names of those 3k features: selecting them all forces T off, and freeing
// T undoes two of each triangle, 2k decisions at the fewest, by
// construction. It is the known answer of tests of Make room's bounded
// search.
func Triangles(k int) (src string, names []string) {
	var b strings.Builder
	b.WriteString("features\n\tRoot\n\t\toptional\n\t\t\tT\n")
	for i := range k {
		fmt.Fprintf(&b, "\t\t\tA%d\n\t\t\tB%d\n\t\t\tC%d\n", i, i, i)
	}
	b.WriteString("constraints\n")
	for i := range k {
		fmt.Fprintf(&b, "\tA%d & B%d => !T\n\tB%d & C%d => !T\n\tA%d & C%d => !T\n", i, i, i, i, i, i)
		names = append(names, fmt.Sprintf("A%d", i), fmt.Sprintf("B%d", i), fmt.Sprintf("C%d", i))
	}
	return b.String(), names
}
