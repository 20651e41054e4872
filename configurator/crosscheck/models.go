// Package crosscheck drives the backends' spaces and a brute-force oracle
// over the same decisions and reports every disagreement between them.
//
// Each space answers through the real session logic
// (configurator.FeatureSession), so a check covers the backend and the
// shared code on top of it: the domains, counts and shares of the
// features, refused decisions, every reason of a forced feature (minimal,
// the list complete, the parts of the model that carry it, on a board an
// attack named as one by the oracle's own rule), make room (a fewest
// undoing), conflicts, completions and consistency. A board is checked
// as the feature model it is (configurator.Model.FeatureModel), against the
// solutions the board oracle finds by its own search.
//
// ExhaustiveModel checks every set of decisions reachable by selections
// on a model with few configurations (a board up to 6×6); WalkModel
// follows seeded random walks on larger ones; CompareModel checks
// backends against each other beyond the oracle's reach. The oracle, not
// the spaces, decides which moves are legal, so a space that disagrees
// does not steer the walk.
package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/oracle"
)

// WalkOptions says how many random walks to take and how long.
type WalkOptions struct {
	Walks, Steps int
	// Seed makes the walks reproducible.
	Seed uint64
}

// MaxKept bounds the disagreements a report lists; its Count counts them
// all.
const MaxKept = 200

// ErrSubjects reports subjects that cannot be checked together: none, or
// compiled from another model, or a model beyond the oracle.
var ErrSubjects = errors.New("crosscheck: bad subjects")

// stop reports whether err ends the whole check (the context is done)
// rather than being an answer to compare.
func stop(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil
}

func ocell(x configurator.Cell) oracle.Cell { return oracle.Cell{Row: x.Row, Col: x.Col} }

// FeatureSubject is a compiled feature model under test and the name it is
// reported by.
type FeatureSubject struct {
	Name  string
	Space configurator.Space
}

// ModelDisagreement is one answer of a subject on a feature model that the
// reference (the oracle, or the first subject in Compare) contradicts.
type ModelDisagreement struct {
	Subject string
	Model   *feature.Model
	// Decisions are the decisions of the session, in the order made.
	Decisions []configurator.Decision
	// Check names the question: domains, count, marginals, decide,
	// undo, explain, make-room, conflict, complete, consistent,
	// configuration.
	Check string
	// Feature is the feature the question was about, -1 for none.
	Feature  int
	Got      string
	Want     string
	Walk     int
	Step     int
	Reported string // the reference's name
}

func (d ModelDisagreement) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, decisions [%s]: %s", d.Subject, configurator.ModelName(d.Model), configurator.FormatDecisions(d.Model, d.Decisions), d.Check)
	if d.Feature >= 0 {
		fmt.Fprintf(&b, " %q", d.Model.Features[d.Feature].Name)
	}
	fmt.Fprintf(&b, ": got %s, want %s", d.Got, d.Want)
	if d.Reported != "" {
		fmt.Fprintf(&b, " (as %s answers)", d.Reported)
	}
	if d.Walk >= 0 {
		fmt.Fprintf(&b, " (walk %d, step %d)", d.Walk, d.Step)
	}
	return b.String()
}

// ModelReport is the outcome of a check of one feature model.
type ModelReport struct {
	Model *feature.Model
	// Subjects names the spaces checked; Time[i] is the time spent in
	// Subjects[i] (its answers and the session logic around them),
	// OracleTime the oracle's.
	Subjects   []string
	Time       []time.Duration
	OracleTime time.Duration
	// Visited is the number of distinct sets of decisions
	// ExhaustiveModel checked in depth; Walks and Steps count the walks
	// and their steps.
	Visited      int
	Walks, Steps int
	// Disagreements lists the first MaxKept disagreements; Count is how
	// many there were.
	Disagreements []ModelDisagreement
	Count         int
}

// Smallest returns the disagreement with the fewest decisions (the first
// found of those), and false when there is none.
func (r *ModelReport) Smallest() (ModelDisagreement, bool) {
	if len(r.Disagreements) == 0 {
		return ModelDisagreement{}, false
	}
	return slices.MinFunc(r.Disagreements, func(a, b ModelDisagreement) int { return len(a.Decisions) - len(b.Decisions) }), true
}

// modelChecker holds what the check of one feature model needs.
type modelChecker struct {
	m        *feature.Model
	board    *configurator.Model // the board m lays out, nil for other models
	cnf      *feature.CNF        // for the parts' clauses, made on first use
	oracle   *oracle.Features
	subjects []FeatureSubject
	rep      *ModelReport
	// found collects the disagreements of the step in progress.
	found      []ModelDisagreement
	walk, step int
}

func newModelChecker(m *feature.Model, subjects []FeatureSubject) (*modelChecker, error) {
	if len(subjects) == 0 {
		return nil, fmt.Errorf("%w: no subjects", ErrSubjects)
	}
	for _, s := range subjects {
		if !sameFeatures(s.Space.FeatureModel(), m) {
			return nil, fmt.Errorf("%w: %s was compiled from another model", ErrSubjects, s.Name)
		}
	}
	rep := &ModelReport{Model: m, Time: make([]time.Duration, len(subjects))}
	for _, s := range subjects {
		rep.Subjects = append(rep.Subjects, s.Name)
	}
	board, _ := configurator.BoardOf(m)
	return &modelChecker{m: m, board: board, subjects: subjects, rep: rep, walk: -1, step: -1}, nil
}

// disagree records a disagreement of subject i under decisions ds.
func (c *modelChecker) disagree(i int, ds []configurator.Decision, check string, f int, got, want string) {
	c.found = append(c.found, ModelDisagreement{
		Subject: c.subjects[i].Name, Model: c.m, Decisions: slices.Clone(ds),
		Check: check, Feature: f, Got: got, Want: want, Walk: c.walk, Step: c.step,
	})
}

// settle moves the disagreements of the step into the report.
func (c *modelChecker) settle() {
	c.rep.Count += len(c.found)
	keep := min(len(c.found), MaxKept-len(c.rep.Disagreements))
	c.rep.Disagreements = append(c.rep.Disagreements, c.found[:keep]...)
	c.found = nil
}

func (c *modelChecker) timed(i int, f func()) {
	start := time.Now()
	f()
	c.rep.Time[i] += time.Since(start)
}

func (c *modelChecker) ask(f func()) {
	start := time.Now()
	f()
	c.rep.OracleTime += time.Since(start)
}

func odecisions(ds []configurator.Decision) []oracle.Decision {
	out := make([]oracle.Decision, len(ds))
	for i, d := range ds {
		out[i] = oracle.Decision{Feature: d.Feature, Select: d.Select}
	}
	return out
}

// truth is the oracle's analysis of ds.
func (c *modelChecker) truth(ds []configurator.Decision) (a *oracle.FeatureAnalysis) {
	c.ask(func() { a = c.oracle.Analyze(odecisions(ds)) })
	return a
}

// wantState is the state the oracle's analysis gives feature f under ds.
func wantState(a *oracle.FeatureAnalysis, ds []configurator.Decision, f int) configurator.FeatureState {
	for _, d := range ds {
		if d.Feature == f {
			if d.Select {
				return configurator.Selected
			}
			return configurator.Deselected
		}
	}
	switch {
	case a.On[f] && a.Off[f]:
		return configurator.Open
	case a.On[f]:
		return configurator.ForcedOn
	}
	return configurator.ForcedOff
}

// sameFeatures reports whether a and b have the same features, by name in
// order: a subject compiled from m, or from a model equal to it (a board's
// space makes its own feature model).
func sameFeatures(a, b *feature.Model) bool {
	return a == b || slices.EqualFunc(a.Features, b.Features, func(x, y feature.Feature) bool { return x.Name == y.Name })
}
