package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks"
	"github.com/nqueens/configurator/configurator/feature/featuretest"
	"github.com/nqueens/configurator/internal/launch"
)

// The feature-model section (`make bench-models`): every real model of
// the models directory, and a generated one of the large real ones' shape
// and size (featuretest.LargeModel), measured through the JSON API of the
// real server, on every backend that configures feature models, against
// sat-plain on the same decisions and CryptoMiniSat's backbone from
// scratch on the same questions (benchmarks.MeasureModel).

// secModels is the section of the feature models; it runs only when named.
const secModels = "models"

// modelBackends are the backends the walks measure, the primary first;
// modelBaseline is the baseline that replays their decisions.
var (
	modelBackends = []string{"sat", "bdd"}
	modelBaseline = "sat-plain"
)

// modelServerFlags are the flags the section gives the server beyond its
// address and cache directory: no per-client rate limit, and deadlines
// long enough for the baseline's answers on the largest models (the
// budget of the baseline bounds it instead). Every other setting is the
// server's default.
var modelServerFlags = []string{"-rate", "0", "-sat-deadline", "5m", "-deadline", "6m"}

// modelStepP99 is the interactive bound: CLab's authors cite about 250 ms
// as the response a person perceives as immediate. modelFirst bounds the
// first analysis of a model just opened, its compile included.
const (
	modelStepP99 = 250 * time.Millisecond
	modelFirst   = 2 * time.Second
)

// generatedFeatures and generatedConstraints size the generated model,
// written with featuretest.LargeModel seeded (1, 2) as generatedName.
const (
	generatedFeatures, generatedConstraints = 20000, 20000
	generatedName                           = "generated-20000.uvl"
)

// cmsBudget bounds CryptoMiniSat's backbones on one model;
// modelBDDCompile is the longest the server's BDD compile of a model
// takes before the backend refuses it, for the run's deadline.
const (
	cmsBudget       = 2 * time.Minute
	modelBDDCompile = 2 * time.Minute
)

// ModelsResults is the feature-model section.
type ModelsResults struct {
	Flags          []string
	Walks, Steps   int
	BaselineBudget time.Duration
	// CMS says why CryptoMiniSat's backbones were not run; empty when they
	// were, each within CMSBudget.
	CMS       string `json:",omitempty"`
	CMSBudget time.Duration
	Models    []benchmarks.ModelResult
	// LoadStart and LoadEnd are the load averages when the section began
	// and ended.
	LoadStart, LoadEnd string
}

func runModels(ctx context.Context, p plan, res *Results) error {
	files, err := benchmarks.ModelFiles(p.ModelsDir)
	if err != nil {
		return fmt.Errorf("the models in %s: %w", p.ModelsDir, err)
	}
	if len(files) == 0 {
		return fmt.Errorf("no model files (.uvl, .dimacs, .cnf, .xml) in %s (-models)", p.ModelsDir)
	}
	dir, err := os.MkdirTemp("", "nqueens-bench-models-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	gen := filepath.Join(dir, generatedName)
	src := featuretest.LargeModel(rand.New(rand.NewPCG(1, 2)), generatedFeatures, generatedConstraints)
	if err := os.WriteFile(gen, []byte(src), 0o644); err != nil {
		return err
	}
	files = append(files, gen)
	cms, cmsErr := benchmarks.BuildCMS(ctx, dir)
	bin, done, err := webBinary(ctx, p)
	if err != nil {
		return err
	}
	defer done()
	srv, err := launch.Start(ctx, bin, launch.Options{}, append(slices.Clone(modelServerFlags), "-cache-dir", p.CacheDir)...)
	if err != nil {
		return err
	}
	defer srv.Stop(stopGrace)
	mr := &ModelsResults{Flags: append(slices.Clone(modelServerFlags), "-cache-dir", "<the run's directory>"),
		Walks: p.ModelWalks, Steps: p.ModelSteps, BaselineBudget: p.ModelBaselineBudget, CMSBudget: cmsBudget, LoadStart: benchmarks.LoadAvg()}
	res.Models = mr
	opt := benchmarks.ModelOptions{Backends: modelBackends, Baseline: modelBaseline, BaselineBudget: p.ModelBaselineBudget,
		Walks: p.ModelWalks, Steps: p.ModelSteps, Seed: p.Seed, Timeout: 6 * time.Minute, CMS: cms, CMSBudget: cmsBudget, Scratch: dir}
	if cmsErr != nil {
		mr.CMS = cmsErr.Error()
		res.Notes = append(res.Notes, "Feature models: CryptoMiniSat's backbones not run: "+cmsErr.Error())
	}
	for _, f := range files {
		r, err := benchmarks.MeasureModel(ctx, srv.URL(), f, opt)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			res.Notes = append(res.Notes, fmt.Sprintf("%s: %v", r.File, err))
			log.Printf("model %s: %v\n%s", f, err, srv.Log().Tail)
			continue
		}
		mr.Models = append(mr.Models, r)
		for _, b := range append(slices.Clone(r.Backends), deref(r.Baseline)...) {
			if b.Refused != "" {
				log.Printf("model %-40s %-9s refused: %s", r.File, b.Backend, b.Refused)
				continue
			}
			log.Printf("model %-40s %-9s compile %v first %v empty %v steps p50 %v p99 %v (%d) %s", r.File, b.Backend, b.Compile, b.First, b.Empty, b.Steps.P50, b.Steps.P99, b.Steps.Count, b.Cut)
		}
		if c := r.CMS; c != nil {
			log.Printf("model %-40s %-9s empty %v steps p50 %v p99 %v (%d) %s; %d disagreements", r.File, "cms", c.Empty, c.Steps.P50, c.Steps.P99, c.Steps.Count, c.Cut, c.Disagreements)
		}
	}
	mr.LoadEnd = benchmarks.LoadAvg()
	return srv.Stop(stopGrace)
}

// deref is the baseline's figures as a list: none when there are none.
func deref(b *benchmarks.ModelBackend) []benchmarks.ModelBackend {
	if b == nil {
		return nil
	}
	return []benchmarks.ModelBackend{*b}
}

// modelBackend returns a model's figures of backend, nil when the run did
// not measure it.
func modelBackend(r *benchmarks.ModelResult, backend string) *benchmarks.ModelBackend {
	for i, b := range r.Backends {
		if b.Backend == backend {
			return &r.Backends[i]
		}
	}
	if r.Baseline != nil && r.Baseline.Backend == backend {
		return r.Baseline
	}
	return nil
}

// modelTargets checks the run against the feature models' targets: per
// model, SAT's p99 per decision through the API within the interactive
// bound, and the backends' agreement on the forced features.
func modelTargets(res *Results) []target {
	if res.Models == nil {
		return []target{{Group: modelGroup, Target: fmt.Sprintf("SAT first analysis ≤ %s and valid domains per decision, p99 ≤ %s through the API, on every real model", fmtDur(modelFirst), fmtDur(modelStepP99)),
			Peer: "absolute bound", Status: notMeasured}}
	}
	var ts []target
	for i := range res.Models.Models {
		r := &res.Models.Models[i]
		t := target{Group: modelGroup, Target: fmt.Sprintf("SAT first analysis ≤ %s, per decision p99 ≤ %s through the API: %s (%s features)", fmtDur(modelFirst), fmtDur(modelStepP99), r.File, fmtInt(r.Features)),
			Peer: "absolute bound", Status: notMeasured}
		if s := modelBackend(r, "sat"); s != nil && s.Refused == "" && s.Steps.Count > 0 {
			t.Measured = fmt.Sprintf("first %s; per decision %s (p50 %s, %d decisions; the backend's own p99 %s: valid domains %s, count %s)", fmtDur(s.First), fmtDur(s.Steps.P99), fmtDur(s.Steps.P50), s.Steps.Count,
				fmtDur(s.Server.P99), fmtDur(s.Domains.P99), fmtDur(s.Count.P99))
			t.Status = verdict(s.First <= modelFirst && s.Steps.P99 <= modelStepP99)
			var peers []string
			if b := r.Baseline; b != nil && b.Steps.Count > 0 {
				peers = append(peers, fmt.Sprintf("%s on %d of the decisions: p99 %s, p50 %s (valid domains p99 %s)", b.Backend, b.Steps.Count, fmtDur(b.Steps.P99), fmtDur(b.Steps.P50), fmtDur(b.Domains.P99)))
			}
			if c := r.CMS; c != nil && c.Steps.Count > 0 {
				peers = append(peers, fmt.Sprintf("%s: empty %s, on %d of the decisions p99 %s, p50 %s", c.Name, fmtDur(c.Empty), c.Steps.Count, fmtDur(c.Steps.P99), fmtDur(c.Steps.P50)))
			}
			if len(peers) > 0 {
				t.Peer = "absolute bound; " + strings.Join(peers, "; ")
			}
		}
		ts = append(ts, t)
	}
	both := 0
	disagree := 0
	for _, r := range res.Models.Models {
		answered := 0
		for _, b := range r.Backends {
			if b.Refused == "" {
				answered++
			}
		}
		if answered > 1 {
			both++
			disagree += r.Disagreements
		}
	}
	t := target{Group: modelGroup, Target: "The backends agree on the forced features at every decision of the walks, on every model they both answer",
		Peer: "each other, this run", Status: notMeasured}
	if both > 0 {
		t.Measured = fmt.Sprintf("%d disagreements on %d models", disagree, both)
		t.Status = verdict(disagree == 0)
	} else {
		t.Measured = "no model answered by two backends (" + strings.Join(modelBackends, ", ") + ")"
	}
	return append(ts, t)
}

// modelsSection renders the feature-model section.
func modelsSection(b *strings.Builder, res *Results) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	m := res.Models
	p("## Feature models through the API\n\n")
	p("The real server (cmd/web, built and run as a child process on 127.0.0.1, flags `%s`) and the\n", strings.Join(m.Flags, " "))
	p("real models of the models directory, each uploaded (`POST /api/v1/models`), then asked through\n")
	p("`POST /api/v1/analyze`. *compile* is the compile of the model's space as the server reports it\n")
	p("(`compile_ms`); *empty* the empty configuration's request once compiled. The walks: %d seeded walks\n", m.Walks)
	p("of up to %d decisions each, from the empty configuration: each decision selects or deselects a free\n", m.Steps)
	p("feature of SAT's last answer, and each step is one request with every decision so far (the API keeps\n")
	p("no session), answered by each backend in turn; *per decision* is the request's time at the client\n")
	p("(JSON and HTTP over loopback included), *own* the backend's (`elapsed_ms`), of which *domains* the valid\n")
	p("domains and *count* the count of the configurations (`work`: SAT counts models of up to 200 features,\n")
	p("up to its cap, a solver call per configuration). %s replays the same\n", modelBaseline)
	p("decisions, the empty configuration first, within a budget of %s per model: the straightforward\n", fmtDur(m.BaselineBudget))
	p("backbone, a solver call per feature and value for every question. *first* is the model's first request on\n")
	p("a backend, the empty configuration with the compile of its space and, on SAT, its first solver.\n\n")
	p("*cryptominisat5, from scratch* (`benchmarks/peers/cms/cms_backbone.c`, built from Debian's libcryptominisat5-dev\n")
	p("by the run) answers the same questions, the empty configuration and then every decision of the walks, each\n")
	p("with a new CryptoMiniSat solver of the model's CNF and the decisions as unit clauses: one model, then a call\n")
	p("per feature not yet seen with both values (a model shows every feature it changes free, none makes the\n")
	p("feature forced). Its times are its own, the reading of the file apart, within %s per model; its forced\n", fmtDur(m.CMSBudget))
	p("features are compared with SAT's at every question. %s is generated: `featuretest.LargeModel`,\n", generatedName)
	p("%s features and %s cross-tree constraints, seed (1, 2).\n\n", fmtInt(generatedFeatures), fmtInt(generatedConstraints))
	if m.CMS != "" {
		p("CryptoMiniSat's backbones were not run: %s.\n\n", m.CMS)
	}
	p("Load average (1, 5, 15 min) at the start of the section: %s; at its end: %s; at the start of each\n", m.LoadStart, m.LoadEnd)
	p("model in its row. The machine is shared: the ratios in a row are the figures to quote.\n\n")
	p("| model | features | constraints | backend | compile | first | nodes | forced on/off | configurations | empty | per decision p50 | p99 | own p99 | domains p99 | count p99 | decisions | load |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range m.Models {
		rows := append(slices.Clone(r.Backends), deref(r.Baseline)...)
		for i, x := range rows {
			name, feats, cons, load := "", "", "", ""
			if i == 0 {
				name, feats, cons, load = r.File, fmtInt(r.Features), fmtInt(r.Constraints), r.Load
			}
			if x.Refused != "" || x.Empty == 0 && x.Steps.Count == 0 && x.Cut != "" {
				why := "refused: " + strings.ReplaceAll(x.Refused, "|", "\\|")
				if x.Refused == "" {
					why = x.Cut
				}
				p("| %s | %s | %s | %s | %s |  |  |  |  |  |  |  |  |  |  |  | %s |\n", name, feats, cons, x.Backend, why, load)
				continue
			}
			nodes := ""
			if x.Nodes > 0 {
				nodes = fmtInt(int(x.Nodes))
			}
			count := x.Configurations
			if x.AtLeast {
				count = "≥ " + count
			}
			steps := fmt.Sprint(x.Steps.Count)
			if x.Cut != "" {
				steps += " (" + x.Cut + ")"
			}
			p("| %s | %s | %s | %s | %s | %s | %s | %d / %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, feats, cons, x.Backend, fmtDur(x.Compile), fmtDur(x.First), nodes,
				x.ForcedOn, x.ForcedOff, count, fmtDur(x.Empty), fmtDur(x.Steps.P50), fmtDur(x.Steps.P99), fmtDur(x.Server.P99),
				fmtDur(x.Domains.P99), fmtDur(x.Count.P99), steps, load)
		}
		if c := r.CMS; c != nil {
			steps := fmt.Sprint(c.Steps.Count)
			if c.Cut != "" {
				steps += " (" + c.Cut + ")"
			}
			p("|  |  |  | %s |  |  |  |  |  | %s (%d calls) | %s | %s |  |  |  | %s |  |\n", c.Name, fmtDur(c.Empty), c.EmptyCalls, fmtDur(c.Steps.P50), fmtDur(c.Steps.P99), steps)
		}
	}
	p("\n")
	for _, r := range m.Models {
		if r.Disagreements > 0 {
			p("**%s: the backends disagree on the forced features at %d decisions.**\n\n", r.File, r.Disagreements)
		}
		if c := r.CMS; c != nil && c.Disagreements > 0 {
			p("**%s: CryptoMiniSat's backbone and SAT's forced features differ at %d questions.**\n\n", r.File, c.Disagreements)
		}
	}
}

// modelHeadline is the summary's line of the feature models: SAT's
// slowest p99 per decision over the models, and the baseline's beside it.
func modelHeadline(res *Results) (string, bool) {
	if res.Models == nil || len(res.Models.Models) == 0 {
		return "", false
	}
	var worst *benchmarks.ModelResult
	var worstP99 time.Duration
	measured := 0
	for i := range res.Models.Models {
		r := &res.Models.Models[i]
		if s := modelBackend(r, "sat"); s != nil && s.Steps.Count > 0 {
			measured++
			if s.Steps.P99 >= worstP99 {
				worst, worstP99 = r, s.Steps.P99
			}
		}
	}
	if worst == nil {
		return "", false
	}
	h := fmt.Sprintf("Feature models through the API: SAT's p99 per decision is at most %s over %d models (the slowest: %s, %s features)",
		fmtDur(worstP99), measured, worst.File, fmtInt(worst.Features))
	if b := worst.Baseline; b != nil && b.Steps.Count > 0 {
		h += fmt.Sprintf("; %s on the same model: p99 %s over %d decisions", b.Backend, fmtDur(b.Steps.P99), b.Steps.Count)
	} else if b != nil && b.Cut != "" {
		h += fmt.Sprintf("; %s on the same model: %s", b.Backend, b.Cut)
	}
	return h + ".", true
}
