package bdd

import "github.com/nqueens/configurator/configurator"

var _ configurator.Analyzer = (*Space)(nil)

// AnalysisFirst marks a Space as a configurator.Analyzer: its analysis of
// a placement classifies every cell in one sweep up and one down the
// placement's part of the diagram, and is kept for boards of few queens,
// where a search for one solution (Solve, Satisfiable) may visit most of
// the diagram before it finds that there is none. So the analyses that
// Explain asks for cost a fraction of one search each.
func (s *Space) AnalysisFirst() {}
