package main

// The figures below were not measured by the suite: they are references
// from elsewhere (the project's shared notes), shown beside the run's own
// figures and always marked as such.

// buddyReference is BuDDy 2.4 (C, Debian libbdd-dev) compiling the same
// diagram row by row on this kind of machine, measured once for the
// project; the suite does not measure it again. PeakRSS is 0 where it was
// not recorded.
var buddyReference = []struct {
	N       int
	Seconds float64
	PeakRSS uint64
}{
	{8, 0.008, 0}, {10, 0.23, 0}, {11, 1.3, 143e6}, {12, 6.4, 676e6}, {13, 75.5, 5.4e9},
}

// publishedNodes are the node counts of the canonical row-major N-Queens
// ROBDD, terminals excluded, that an independent source gives (BuDDy's
// bdd_nodecount; the function and the order fix the count, whatever the
// construction). No independent count above N=12 has been published; the
// count of N=13 was also taken from BuDDy on this kind of machine for the
// project (buddyNodes13).
var publishedNodes = map[int]int{
	4: 29, 5: 167, 6: 129, 7: 1099, 8: 2451, 9: 9557, 10: 25945, 11: 94822, 12: 435170,
}

const buddyNodes13 = 2044394

// publishedModelNodes are the sizes of monolithic diagrams of the real
// models published elsewhere (publishedModelSource), by file; no times
// were published with them.
var publishedModelNodes = map[string]int{
	"dimacs/busybox-1.18.0.dimacs":               14_890,
	"dimacs/embtoolkit.dimacs":                   7_156,
	"dimacs/financialservices-2018-05-09.dimacs": 73_071,
	"uvl/berkeleydb.uvl":                         725,
}

// publishedModelSource is where publishedModelNodes come from.
const publishedModelSource = "the examples of OBDDimal, a BDD library in Rust, as shared/README.md lists them; " +
	"berkeleydb's counts the terminals; financialservices' is of a model named financialservices01 there, which may be another version"

// publishedElsewhere is what the literature reports for the largest
// boards, on other machines.
const publishedElsewhere = "For scale, published elsewhere (other hardware, about three times faster than this machine; " +
	"not measured here): BuDDy, CUDD and Sylvan reach N=14 or 15 (at N=15, CUDD 2,688 s and Sylvan 1,509 s); " +
	"Adiar, with external memory, reached N=17 in about 48 hours. No BDD package we know of has built N=16 in memory on one machine."

// nodeSource says where the node count of the n×n diagram can be checked
// and whether this run's count agrees.
func nodeSource(n, nodes int) string {
	if want, ok := publishedNodes[n]; ok {
		if nodes == want {
			return "published (BuDDy): agrees"
		}
		return "**differs from the published " + fmtInt(want) + "**"
	}
	if n == 13 {
		if nodes == buddyNodes13 {
			return "this project's; BuDDy run here agrees"
		}
		return "**differs from BuDDy's " + fmtInt(buddyNodes13) + "**"
	}
	return "this project's contribution"
}
