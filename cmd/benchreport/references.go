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

// publishedSample is a pairwise (t = 2) sample of a real model that a tool
// drew elsewhere, as its authors published it: the runs made, the size and
// seconds of each that finished, and where (a key of sampleSources).
type publishedSample struct {
	Tool    string
	Runs    int
	Sizes   []int
	Seconds []float64
	Source  string
}

// sampleReference is what was published of one real model's pairwise
// samples: the instance's name there, the tools' samples, and the smallest
// sample known with the lower bound proven for it (0: none published).
type sampleReference struct {
	Instance     string
	Samples      []publishedSample
	Best, Proven int
}

// publishedSamples are the published pairwise samples of the real models,
// by file. The SampLNS study ran each tool five times per instance within
// 900 s; its instances are the same models by their features and, the
// DIMACS files, their clauses.
var publishedSamples = map[string]sampleReference{
	"uvl/berkeleydb.uvl": {Instance: "berkeleyDB1", Best: 15, Proven: 15, Samples: []publishedSample{
		{"YASA (m=1)", 5, []int{21, 25, 25, 25, 25}, []float64{0.259, 0.265, 0.269, 0.259, 0.268}, "samplns"},
		{"YASA (m=10)", 5, []int{20, 20, 19, 21, 21}, []float64{0.395, 0.394, 0.389, 0.372, 0.372}, "samplns"},
		{"IncLing", 5, []int{26, 25, 28, 26, 24}, []float64{0.194, 0.196, 0.219, 0.194, 0.195}, "samplns"},
	}},
	"uvl/axtls.uvl": {Instance: "axTLS", Best: 11, Proven: 10, Samples: []publishedSample{
		{"YASA (m=1)", 5, []int{20, 18, 18, 17, 20}, []float64{0.258, 0.254, 0.252, 0.261, 0.257}, "samplns"},
		{"YASA (m=10)", 5, []int{17, 16, 17, 16, 16}, []float64{0.352, 0.385, 0.386, 0.369, 0.377}, "samplns"},
		{"IncLing", 5, []int{18, 22, 18, 22, 20}, []float64{0.184, 0.174, 0.168, 0.173, 0.170}, "samplns"},
	}},
	"uvl/financialservices-2017-05-22.uvl": {Instance: "fs_2017-05-22", Best: 396, Proven: 396, Samples: []publishedSample{
		{"YASA (m=1)", 5, []int{400, 405, 399, 402, 402}, []float64{1.403, 1.495, 1.513, 1.507, 1.483}, "samplns"},
		{"YASA (m=10)", 5, []int{398, 398, 399, 398, 400}, []float64{11.205, 12.208, 11.148, 12.112, 12.288}, "samplns"},
		{"IncLing", 5, []int{412, 404, 406, 408, 410}, []float64{9.55, 12.092, 9.761, 9.842, 12.12}, "samplns"},
		{"YASA (t=2, 1 iteration)", 1, []int{402}, []float64{12.038}, "krieter"},
	}},
	"dimacs/financialservices-2018-05-09.dimacs": {Instance: "financial_services", Best: 4340, Proven: 4336, Samples: []publishedSample{
		{"YASA (m=1)", 5, []int{4405, 4425, 4423, 4423, 4410}, []float64{25.187, 24.674, 24.143, 25.811, 25.235}, "samplns"},
		{"YASA (m=10)", 5, []int{4396, 4394, 4389, 4384, 4393}, []float64{319.962, 313.577, 309.901, 310.31, 321.884}, "samplns"},
		{"IncLing", 5, []int{4862, 4871, 4887, 4880}, []float64{831.627, 841.333, 873.106, 815.628}, "samplns"},
		{"YASA (t=2, 1 iteration)", 1, []int{4405}, []float64{79.799}, "krieter"},
	}},
	"dimacs/embtoolkit.dimacs": {Instance: "EMBToolkit", Best: 1872, Proven: 1872, Samples: []publishedSample{
		{"YASA (m=1)", 5, []int{1894, 1894, 1908, 1895}, []float64{18.943, 18.604, 19.387, 18.944}, "samplns"},
		{"YASA (m=10)", 5, []int{1886, 1886, 1881, 1883}, []float64{199.327, 180.596, 192.611, 197.839}, "samplns"},
		{"IncLing", 5, []int{2271, 2307, 2270, 2285}, []float64{126.465, 136.257, 121.382, 128.639}, "samplns"},
	}},
}

// sampleSources are where publishedSamples come from.
var sampleSources = map[string]string{
	"samplns": "D. Krupke, A. Moradi, M. Perk, P. Keldenich, G. Gehrke, S. Krieter, T. Thüm, S. P. Fekete, " +
		"\"How Low Can We Go? Minimizing Interaction Samples for Configurable Systems\", ACM TOSEM 34(6), 2025 (arXiv:2501.06788): " +
		"the table of its instances gives the best sample known and the lower bound proven; the runs of the tools (FeatureIDE's YASA with m iterations, IncLing) " +
		"are its artifact's, github.com/tubs-alg/SampLNS, evaluation/2024-03-05/04_compare/OUTPUT/baseline_data.json.xz (another machine)",
	"krieter": "S. Krieter's evaluation of YASA (VaMoS 2020) on the FinancialServices01 versions of the SPLC 2019 sampling challenge, " +
		"FeatureIDE 3.6.3, seed 0: github.com/skrieter/evaluation-phd, YASA/Scalability_Evaluation/FinancialServices01/Sample_Statistics.csv (another machine)",
}
