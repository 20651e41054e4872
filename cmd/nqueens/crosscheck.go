package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/crosscheck"
	"github.com/nqueens/configurator/configurator/oracle"
)

func runCrosscheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("crosscheck", "cross-check the backends against a brute-force oracle, on boards or on a -model", stdout)
	sizes := fs.String("n", "4-8", "board sizes: `N` or a range like 4-8")
	walks := fs.Int("walks", 100, "random walks per board size")
	steps := fs.Int("steps", 20, "steps per walk")
	seed := fs.Uint64("seed", 1, "seed of the random walks")
	names := fs.String("backends", "bdd,sat", "comma-separated backends to check (with -model: every one that configures feature models)")
	exhaustive := fs.Int("exhaustive", 6, "also check every reachable placement in depth for boards up to `N`")
	satCap := fs.Int("cap", 0, "sat: stop counting at `K` solutions; its counts are then checked as lower bounds (0 = the backend's default)")
	drop := fs.String("drop", "", "plant a fault: compile a model without the `line` of this name (\"anti-diagonal b1-a2\") and watch the check catch it")
	var mf modelFlags
	mf.register(fs, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	if model, err := mf.active(fs); err != nil || model {
		if err != nil {
			return err
		}
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "backends" })
		if !explicit {
			*names = ""
		}
		return crosscheckModel(ctx, &mf, *names, *satCap, crosscheck.WalkOptions{Walks: *walks, Steps: *steps, Seed: *seed}, stdout)
	}
	lo, hi, err := parseRange(*sizes)
	if err != nil {
		return err
	}
	if *walks < 0 || *steps < 0 {
		return usagef("-walks and -steps must not be negative")
	}
	var backends []configurator.Backend
	for _, name := range strings.Split(*names, ",") {
		b := backendFlags{name: strings.TrimSpace(name), method: "direct", cap: *satCap}
		be, err := b.backend()
		if err != nil {
			return err
		}
		backends = append(backends, be)
	}
	// Every model first, so that a bad -drop fails before any output.
	models := make(map[int]*configurator.Model)
	for n := lo; n <= hi; n++ {
		m, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			return err
		}
		if *drop != "" {
			if m, err = without(m, *drop); err != nil {
				return err
			}
		}
		models[n] = m
	}

	// One row per board size, printed as soon as it is done.
	header := fmt.Sprintf("%3s %10s %6s %7s %13s", "N", "placements", "walks", "steps", "disagreements")
	for _, b := range backends {
		header += fmt.Sprintf(" %10s", b.Name())
	}
	header += fmt.Sprintf(" %10s\n", "oracle")
	if _, err := io.WriteString(stdout, header); err != nil {
		return err
	}
	var smallest *crosscheck.ModelDisagreement
	total := 0
	for n := lo; n <= hi; n++ {
		// The board as the feature model it is, checked against the
		// board oracle; each backend compiles the model of the flags
		// (without -drop's line) and answers it as that model.
		board, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			return err
		}
		fm, err := board.FeatureModel()
		if err != nil {
			return err
		}
		subjects := make([]crosscheck.FeatureSubject, len(backends))
		times := make([]time.Duration, len(backends)) // compilation, then checks
		for i, be := range backends {
			sp, d, err := configurator.Compile(ctx, be, models[n])
			if err != nil {
				return err
			}
			subjects[i], times[i] = crosscheck.FeatureSubject{Name: be.Name(), Space: sp}, d
		}
		var reps []*crosscheck.ModelReport
		if n <= *exhaustive {
			rep, err := crosscheck.ExhaustiveModel(ctx, fm, subjects)
			if err != nil {
				return err
			}
			reps = append(reps, rep)
		}
		rep, err := crosscheck.WalkModel(ctx, fm, subjects, crosscheck.WalkOptions{Walks: *walks, Steps: *steps, Seed: *seed})
		if err != nil {
			return err
		}
		reps = append(reps, rep)

		var placements, nwalks, nsteps, count int
		var oracleTime time.Duration
		for _, r := range reps {
			placements += r.Visited
			nwalks += r.Walks
			nsteps += r.Steps
			count += r.Count
			for i, d := range r.Time {
				times[i] += d
			}
			oracleTime += r.OracleTime
			if d, ok := r.Smallest(); ok && (smallest == nil || len(d.Decisions) < len(smallest.Decisions)) {
				smallest = &d
			}
		}
		total += count
		row := fmt.Sprintf("%3d %10d %6d %7d %13d", n, placements, nwalks, nsteps, count)
		for _, d := range times {
			row += fmt.Sprintf(" %10s", human(d))
		}
		row += fmt.Sprintf(" %10s\n", human(oracleTime))
		if _, err := io.WriteString(stdout, row); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\ntimes per backend: compilation plus every answer checked, with the session logic\n")
	if smallest == nil {
		_, err := fmt.Fprintf(stdout, "no disagreements\n")
		return err
	}
	d := smallest
	fmt.Fprintf(stdout, "smallest reproducing decisions: %s [%s]\n  %v\n  reproduce: %s\n",
		configurator.ModelName(d.Model), configurator.FormatDecisions(d.Model, d.Decisions), d, reproduce(d, *drop))
	return fmt.Errorf("%d disagreements with the oracle", total)
}

// reproduce is the command that shows disagreement d, on a board, again.
func reproduce(d *crosscheck.ModelDisagreement, drop string) string {
	board, _ := configurator.BoardOf(d.Model)
	cmd := fmt.Sprintf("nqueens analyze -model %s", configurator.BoardID(board.N()))
	if d.Feature >= 0 && (d.Check == "explain" || d.Check == "make-room") {
		cmd = fmt.Sprintf("nqueens explain -model %s -feature %s", configurator.BoardID(board.N()), d.Model.Features[d.Feature].Name)
	}
	sel, desel := configurator.DecisionNames(d.Model, d.Decisions)
	if len(sel) > 0 {
		cmd += " -select " + strings.Join(sel, ",")
	}
	if len(desel) > 0 {
		cmd += " -deselect " + strings.Join(desel, ",")
	}
	cmd += " -backend " + d.Subject
	if drop != "" {
		cmd += fmt.Sprintf(" (on the model without %s)", drop)
	}
	return cmd
}

// without returns m less the constraint named name: a planted fault.
func without(m *configurator.Model, name string) (*configurator.Model, error) {
	var cs []configurator.Constraint
	for _, c := range m.Constraints() {
		if c.Name != name {
			cs = append(cs, c)
		}
	}
	if len(cs) == len(m.Constraints()) {
		return nil, usagef("-drop %q: no such line on the %d×%d board (lines are named like \"rank 1\", \"file a\", \"diagonal a1-h8\", \"anti-diagonal b1-a2\")", name, m.N(), m.N())
	}
	return configurator.Custom(m.N(), m.Order(), cs)
}

// maxCrosscheck is the largest board the oracle checks: the largest
// whose squares it holds as the features of a configuration
// (oracle.MaxListed).
var maxCrosscheck = int(math.Sqrt(oracle.MaxListed))

// parseRange parses N or LO-HI, within the oracle's reach.
func parseRange(s string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := lo, error(nil)
	if isRange {
		hi, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, usagef("-n %q: want a board size or a range like 4-10", s)
	case lo < 1 || hi < lo || hi > maxCrosscheck:
		return 0, 0, usagef("-n %q: sizes from 1 to %d (the oracle's limit), low to high", s, maxCrosscheck)
	}
	return lo, hi, nil
}

// crosscheckModel is nqueens crosscheck -model: the backends named (every
// one that configures feature models when names is "") walk the model,
// checked against the oracle on a model of up to oracle.MaxFeatures
// features, and against the first backend on a larger one.
func crosscheckModel(ctx context.Context, mf *modelFlags, names string, cap int, opt crosscheck.WalkOptions, stdout io.Writer) error {
	if opt.Walks < 0 || opt.Steps < 0 {
		return usagef("-walks and -steps must not be negative")
	}
	m, err := mf.load()
	if err != nil {
		return err
	}
	if names == "" {
		names = "bdd,sat,sat-plain"
	}
	var subjects []crosscheck.FeatureSubject
	var skipped []string
	for _, name := range strings.Split(names, ",") {
		b := backendFlags{name: strings.TrimSpace(name), method: "direct", cap: cap}
		be, err := b.backend()
		if err != nil {
			return err
		}
		if _, ok := be.(configurator.ModelCompiler); !ok {
			skipped = append(skipped, be.Name())
			continue
		}
		sp, _, err := configurator.CompileFeatureModel(ctx, be, m)
		if err != nil {
			return err
		}
		subjects = append(subjects, crosscheck.FeatureSubject{Name: be.Name(), Space: sp})
	}
	if len(subjects) == 0 {
		return fmt.Errorf("%s: %w", strings.Join(skipped, ", "), configurator.ErrBoardsOnly)
	}
	byOracle := len(m.Features) <= oracle.MaxFeatures
	if !byOracle && len(subjects) < 2 {
		return usagef("-model: %d features, beyond the oracle's %d: at least two backends are needed to check each other", len(m.Features), oracle.MaxFeatures)
	}
	var rep *crosscheck.ModelReport
	if byOracle {
		rep, err = crosscheck.WalkModel(ctx, m, subjects, opt)
	} else {
		rep, err = crosscheck.CompareModel(ctx, m, subjects, opt)
	}
	if err != nil {
		return err
	}
	reference := "against the oracle"
	if !byOracle {
		reference = "against " + subjects[0].Name
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%-20s %8s %6s %7s %13s", "model", "features", "walks", "steps", "disagreements")
	for _, s := range subjects {
		fmt.Fprintf(&out, " %10s", s.Name)
	}
	if byOracle {
		fmt.Fprintf(&out, " %10s", "oracle")
	}
	fmt.Fprintf(&out, "\n%-20s %8d %6d %7d %13d", m.Name, len(m.Features), rep.Walks, rep.Steps, rep.Count)
	for _, d := range rep.Time {
		fmt.Fprintf(&out, " %10s", human(d))
	}
	if byOracle {
		fmt.Fprintf(&out, " %10s", human(rep.OracleTime))
	}
	fmt.Fprintf(&out, "\n\ntimes per backend: every answer checked, with the session logic; checked %s\n", reference)
	if len(skipped) > 0 {
		fmt.Fprintf(&out, "not checked: %s (N-Queens boards only)\n", strings.Join(skipped, ", "))
	}
	if _, err := io.WriteString(stdout, out.String()); err != nil {
		return err
	}
	d, ok := rep.Smallest()
	if !ok {
		_, err := fmt.Fprintf(stdout, "no disagreements\n")
		return err
	}
	fmt.Fprintf(stdout, "smallest reproducing decisions: [%s]\n  %v\n", configurator.FormatDecisions(m, d.Decisions), d)
	return fmt.Errorf("%d disagreements", rep.Count)
}
