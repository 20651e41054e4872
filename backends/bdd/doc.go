// Package bdd is the configurator backend of reduced ordered binary
// decision diagrams: it compiles the N-Queens model, once per board and
// variable order, into the diagram of all its solutions in an engine of
// its own (package robdd), and answers every question about a placement
// by sweeps over that diagram.
//
// Two compilers build the same diagram: CompileDirect, top-down by
// enumerating the states a placement can reach (the fast path), and
// CompileApply, by conjoining the constraints (the construction of the
// literature). The Backend states its own limits: the largest board its
// node budget holds (Limits, from one table of known diagram sizes), what
// a compile costs (Cost), and the work space its queries may hold at once
// (Options.Scratch), which it enforces itself. It keeps compiled spaces in
// files (Options.Dir) and loads them instead of compiling again.
//
// A Space answers the configurator's queries (Analyze, Satisfiable,
// Solve, Sample, Marginals, Diagram, Graph) over the part of the diagram
// a placement allows, and keeps the answers of the boards of few queens,
// the largest parts, computed once per space and saved beside its file.
//
// The Backend compiles feature models too (CompileModel): the diagram of
// a model's configurations, built from its tree, groups, constraints or
// clauses directly, after preprocessing that fixes the forced features and
// merges the equal ones, over the features left (a ModelSpace answers for
// the others from the ones they equal), from a variable order that a
// heuristic gives (Options.ModelOrder; package varorder). Three compiles
// run side by side, as many at once as there are cores, and the first
// diagram made is kept: one that sifts the diagram once it is
// made, a balanced tree of the terms, and one that sifts as the diagram
// grows. A ModelSpace answers valid domains, counts, sampling and
// marginals under decisions by the same sweeps, and is kept in
// Options.Dir with its order.
package bdd
