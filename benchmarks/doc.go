// Package benchmarks measures the configurator's engines against their
// comparisons, each pair in the same run: the BDD compile paths against the
// pure-Go library rudd, the one-pass valid-domain computation against the
// restrict-per-cell approach of the original project reports, the SAT
// backend against a fresh solve for every cell, a compiled space loaded from
// disk against its compile (CompileToDisk, LoadFromDisk), and the web server
// under load.
//
// The package holds the measurements; the Benchmark functions of its tests
// run them under `go test -bench`, and the program cmd/benchreport runs the
// whole suite and writes RESULTS.md with its plots:
//
//	go run ./cmd/benchreport          # quick suite (make bench)
//	go run ./cmd/benchreport -full    # extended ranges (make bench-full)
//
// The baselines are written to be as fast as their approach allows, so that
// every ratio is a lower bound of the approach's cost, not of a careless
// implementation.
package benchmarks
