// Package sat is the SAT backend of the configurator. It encodes a model's
// constraints for the gophersat solver (github.com/crillab/gophersat v1.4.0)
// and answers every question about a placement with one incremental solver
// per compiled space, queried under assumptions.
//
// The solver is needed only to refute: any full solution, however it is
// found, witnesses that each of its queens is possible. So the backend first
// propagates the placement through the model's constraints, then looks for
// witnesses with a cheap local search (min-conflicts), multiplies them by
// the board symmetries the model and the placement admit, and calls the
// solver only for the cells still undecided. Every witness, from the search
// or from the solver, is verified against the model's constraints before it
// is believed, so a custom (even faulty) model is honoured exactly.
//
// The encoding uses gophersat's native cardinality constraints and states
// one fact the model implies but does not say: when the ExactlyOne lines
// (ranks) partition the board and as many disjoint AtMostOne lines (files)
// cover it, each of those holds exactly one queen too. Clause learning
// cannot derive this pigeonhole argument quickly; stated, it leaves to unit
// propagation refutations that cost gophersat long searches on large
// boards without it.
//
// # The packages of the SAT side
//
// Two backends, both configurator.Backends, and the packages they share:
//
//   - sat, this package, answers with propagation, local search, symmetries
//     and, for what they leave undecided, the solver.
//   - sat/plain is its honest baseline: gophersat alone on the pairwise CNF,
//     every cell decided by the solver. The web server and the command line
//     offer both, and the cross-checks check both against the BDD and a
//     brute-force oracle.
//   - sat/internal/satbase is the skeleton both fill in, each with an Engine
//     of its own (its encoding and its way of deciding): the limits, the
//     checks of the cells asked about, the pool of a space's solvers, the
//     verification of every solution gophersat returns, the count with
//     blocking clauses (gophersat's own CountModels returns duplicates) and
//     the Work figures.
//   - sat/solverlock holds the process's solver turns, one per core, which
//     every call into gophersat takes first: the backends' and those of the
//     benchmarks' baselines.
//   - sat/internal/fair is the fair semaphore among clients (round robin,
//     each client at most its share of the turns and a bounded queue of its
//     own) under two of the gates below: this package's admission and
//     solverlock's turns.
//
// The solver is third_party/gophersat, gophersat v1.4.0 patched (see its
// PATCHES.md): a Solve is interrupted when its query's context ends, so a
// call past its deadline stops at once and frees its core and its memory,
// separate solvers run in parallel, contradictory assumptions are refuted,
// and a caller may prefer phases. Its Assume drops the unit clauses of the
// base problem, so the backends' problems have none and the cells of
// one-cell lines (a model's unit clauses) travel as assumptions.
//
// # Feature models
//
// Both backends are configurator.ModelCompilers: CompileModel translates a
// feature model (UVL, DIMACS CNF) into CNF, and its space answers under
// the person's decisions with the same gates as a board's. This package
// decides the valid domains by the backbone method that rules out many
// candidates with each configuration found (see featureEngine: propagation,
// the backbone of the empty configuration kept, configurations preferring
// to flip every candidate left, flips and repairs checked against the
// clauses, the solver last), so that a model of thousands of features needs
// a few solver calls per decision; package plain asks the solver once per
// feature and value, the baseline.
//
// # Admission
//
// The SAT side bounds its own work and shares it fairly among the clients
// that configurator.WithClient names in the context (the web server names
// each by its address; the process's own requests, without a client, may
// take every slot and every turn). A request (a caller's sequence of queries: an
// analysis, then an explanation's questions) meets these gates, in order:
//
//  1. The admission of the whole request, in this package only: its spaces
//     are configurator.Admitters, and Admit lets in at most Options.Serve
//     requests at once (by default ServePerTurn per solver turn), at most
//     one per client, through a fair semaphore. The others wait in a queue
//     per client of at most Options.Queue requests, and a slot that frees
//     goes to the next client in turn (round robin), not to the request that
//     came first: a client sending many requests waits behind its own, and
//     however many it sends, other clients' queues stay open. (The server
//     bounds the clients and their connections.) A request makes many
//     solver calls (one per undecided cell, one per queen an explanation
//     tries to drop); admitted whole, they run back to back. Plain's spaces
//     are no Admitters.
//  2. The start of each query (Analyze, Satisfiable, Solve), which each
//     backend sets as satbase.Backend.Begin: this package bounds the query
//     by Options.Timeout, its waits for the solver included; plain lets at
//     most its Options.Queue queries be in progress at once and refuses the
//     next with configurator.ErrBusy.
//  3. A solver turn for each call into gophersat, which each backend takes
//     as satbase.Backend.Turn from package solverlock: one turn per core in
//     the process, shared fairly among clients, a named client holding at
//     most half of them (at least one). This package's calls first wait in
//     its call queue, of at most Options.Queue calls (Options.Serve if more,
//     so that the calls of the requests admitted fit), and its questions for a witness take
//     sliced turns: such a question gives its turn up after
//     solverlock.Quantum whenever another client waits, and goes on at its
//     next turn (gophersat keeps what it learned). So the requests admitted
//     share the cores in slices, a request whose question takes seconds
//     holds a core only while nobody else needs it, and it gives its
//     admission slot back at its first slice given up: long questions never
//     keep another client out of the backend. Plain's calls take whole
//     turns.
//  4. The pool of the space's solvers (satbase), which bounds memory and
//     makes nobody wait: within its first turn a query takes one of the
//     space's idle solvers, or builds one, for its questions, and gives it
//     back when it ends (the count's solvers are its own, thrown away).
//     The pool keeps at most one solver per turn, each dropped when the
//     clauses it learned outgrow a quarter of the space's Cost: the memory
//     the cache does not see is bounded.
//
// A caller that only queries (the command line, the cross-checks, the
// benchmarks) meets gates 2 to 4 alone. A request that ends while it waits
// leaves its queue; one whose deadline passes during a solver call
// interrupts the call. Either way its turn is free again at once.
package sat
