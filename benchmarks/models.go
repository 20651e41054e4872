package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks/peers"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// The feature-model benchmark measures the backends on a real model
// through the server's JSON API, as a client sees them: the model
// uploaded (POST /api/v1/models), the empty configuration analysed on
// each backend (the first request compiles the model's space), then
// seeded random walks of decisions, each step one POST /api/v1/analyze
// with every decision so far; and the same decisions replayed on a
// baseline backend within a budget. Every backend measured with the walks
// answers every step, and their forced features are compared.

// ModelOptions bounds MeasureModel.
type ModelOptions struct {
	// Backends answer every step of the walks; the first one's free
	// features are what the walks choose from.
	Backends []string
	// Baseline, when not empty, replays the walks' decisions, the empty
	// configuration first, for at most BaselineBudget.
	Baseline       string
	BaselineBudget time.Duration
	// Walks of at most Steps decisions each, from the empty
	// configuration, seeded by Seed.
	Walks, Steps int
	Seed         uint64
	// Timeout bounds one request.
	Timeout time.Duration
	// CMS, when not empty, is the program peers.BuildCMS built: it finds
	// the backbone of the empty configuration and of every step of the
	// walks from scratch with CryptoMiniSat, within CMSBudget, in a
	// directory of its own (Scratch) where the model's CNF is written.
	CMS       string
	CMSBudget time.Duration
	Scratch   string
}

// ModelPeer is a from-scratch backbone's figures on one model: its time
// on the empty configuration and on the walks' steps it reached within
// its budget (Cut says why it stopped short), its solver calls on the
// empty configuration, and the steps on which its forced features are not
// the first backend's.
type ModelPeer struct {
	Name          string
	Empty         time.Duration
	EmptyCalls    int
	Steps         Latency
	Cut           string `json:",omitempty"`
	Disagreements int
}

// ModelResult is one model's figures.
type ModelResult struct {
	File                  string
	Name, Format          string
	Features, Constraints int
	// Load is the machine's load average (1, 5, 15 minutes) when the
	// model's measurement began.
	Load     string
	Backends []ModelBackend
	Baseline *ModelBackend `json:",omitempty"`
	// CMS is CryptoMiniSat's backbone from scratch on the same questions
	// (ModelOptions.CMS).
	CMS *ModelPeer `json:",omitempty"`
	// Disagreements counts the steps on which the backends measured with
	// the walks named different forced features.
	Disagreements int
}

// ModelBackend is one backend's figures on one model.
type ModelBackend struct {
	Backend string
	// Refused says why the backend did not answer the model (beyond its
	// budget, a backend of boards only); the other figures are then zero.
	Refused string `json:",omitempty"`
	// Compile is the compile of the model's space, as the server
	// reports it; Nodes the decision diagram's size (0 without one).
	Compile time.Duration
	Nodes   int64 `json:",omitempty"`
	// First is the model's first request on the backend, the empty
	// configuration, the space's compile included. Empty is the empty
	// configuration's analysis again, the space compiled: the request's
	// time, and the backend's own (elapsed_ms).
	First               time.Duration
	Empty, EmptyServer  time.Duration
	ForcedOn, ForcedOff int
	Configurations      string `json:",omitempty"`
	AtLeast             bool   `json:",omitempty"`
	// Steps are the per-decision requests of the walks (for a baseline,
	// those it reached within its budget), Server the backend's own times
	// of the same requests, and Domains and Count the parts of those: the
	// valid domains, and the count of the configurations.
	Steps, Server, Domains, Count Latency
	// Cut says why a baseline stopped before the walks' end.
	Cut string `json:",omitempty"`
}

// ModelFiles lists the model files under dir, by path: UVL (.uvl), CNF
// (.dimacs, .cnf) and FeatureIDE or SXFM XML (.xml).
func ModelFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".uvl", ".dimacs", ".cnf", ".xml":
			out = append(out, path)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// modelClient speaks to the server's API.
type modelClient struct {
	base    string
	http    *http.Client
	timeout time.Duration
}

// modelAnswer is the part of an /analyze answer the benchmark reads.
type modelAnswer struct {
	ForcedOn       []string `json:"forced_on"`
	ForcedOff      []string `json:"forced_off"`
	Free           []string `json:"free"`
	Configurations *string  `json:"configurations"`
	AtLeast        bool     `json:"at_least"`
	ElapsedMS      float64  `json:"elapsed_ms"`
	CompileMS      float64  `json:"compile_ms"`
	Work           struct {
		DomainsMS float64 `json:"domains_ms"`
		CountMS   float64 `json:"count_ms"`
		Nodes     int64   `json:"nodes"`
	} `json:"work"`
}

// apiError is an answer other than the one expected.
type apiError struct {
	Status int
	Msg    string
}

func (e *apiError) Error() string { return fmt.Sprintf("status %d: %s", e.Status, e.Msg) }

// call sends one request and decodes its answer into v, timing it.
func (c *modelClient) call(ctx context.Context, method, path, contentType string, body []byte, v any) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", contentType)
	start := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	took := time.Since(start)
	if err != nil {
		return took, err
	}
	if res.StatusCode >= 300 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(b, &e)
		return took, &apiError{Status: res.StatusCode, Msg: e.Error}
	}
	return took, json.Unmarshal(b, v)
}

// decision is one step of a walk.
type decision struct {
	feature string
	sel     bool
}

// analyze asks backend about the decisions on model id.
func (c *modelClient) analyze(ctx context.Context, id, backend string, ds []decision) (*modelAnswer, time.Duration, error) {
	req := struct {
		Model    string   `json:"model"`
		Select   []string `json:"select"`
		Deselect []string `json:"deselect"`
		Backend  string   `json:"backend"`
	}{Model: id, Select: []string{}, Deselect: []string{}, Backend: backend}
	for _, d := range ds {
		if d.sel {
			req.Select = append(req.Select, d.feature)
		} else {
			req.Deselect = append(req.Deselect, d.feature)
		}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, 0, err
	}
	var a modelAnswer
	took, err := c.call(ctx, http.MethodPost, "/api/v1/analyze", "application/json", body, &a)
	if err != nil {
		return nil, took, err
	}
	return &a, took, nil
}

// MeasureModel uploads the model in the file at path to the server at
// base and measures it (see ModelOptions).
func MeasureModel(ctx context.Context, base, path string, opt ModelOptions) (ModelResult, error) {
	res := ModelResult{File: filepath.Base(path), Load: LoadAvg()}
	src, err := os.ReadFile(path)
	if err != nil {
		return res, err
	}
	c := &modelClient{base: base, http: &http.Client{}, timeout: opt.Timeout}
	var info struct {
		Model       string `json:"model"`
		Name        string `json:"name"`
		Format      string `json:"format"`
		Features    int    `json:"features"`
		Constraints int    `json:"constraints"`
	}
	if _, err := c.call(ctx, http.MethodPost, "/api/v1/models?name="+url.QueryEscape(filepath.Base(path)), "application/octet-stream", src, &info); err != nil {
		return res, fmt.Errorf("upload %s: %w", path, err)
	}
	res.Name, res.Format, res.Features, res.Constraints = info.Name, info.Format, info.Features, info.Constraints

	// The empty configuration on every backend: the first request
	// compiles the space, the second is measured.
	answering := []int{}
	for i, b := range opt.Backends {
		mb := ModelBackend{Backend: b}
		if err := emptyConfiguration(ctx, c, info.Model, &mb); err != nil {
			return res, err
		}
		res.Backends = append(res.Backends, mb)
		if mb.Refused == "" {
			answering = append(answering, i)
		}
	}
	if len(answering) == 0 {
		return res, nil
	}

	// The walks: the first backend that answers picks the decisions
	// among its free features; every one answers each step.
	rng := rand.New(rand.NewPCG(opt.Seed, uint64(len(src))))
	var walks [][][]decision   // per walk, the decisions after each step
	var answers []*modelAnswer // the first answering backend's, per step
	steps := make([][]time.Duration, len(opt.Backends))
	server := make([][]time.Duration, len(opt.Backends))
	domains := make([][]time.Duration, len(opt.Backends))
	count := make([][]time.Duration, len(opt.Backends))
	for range opt.Walks {
		var ds []decision
		var walk [][]decision
		a, _, err := c.analyze(ctx, info.Model, opt.Backends[answering[0]], nil)
		if err != nil {
			return res, err
		}
		for range opt.Steps {
			if len(a.Free) == 0 {
				break
			}
			f := a.Free[rng.IntN(len(a.Free))]
			ds = append(ds, decision{feature: f, sel: rng.IntN(2) == 0})
			walk = append(walk, slices.Clone(ds))
			var first *modelAnswer
			for _, i := range answering {
				b, took, err := c.analyze(ctx, info.Model, opt.Backends[i], ds)
				if err != nil {
					return res, fmt.Errorf("%s, %s, step %d: %w", res.File, opt.Backends[i], len(ds), err)
				}
				steps[i] = append(steps[i], took)
				server[i] = append(server[i], msDuration(b.ElapsedMS))
				domains[i] = append(domains[i], msDuration(b.Work.DomainsMS))
				count[i] = append(count[i], msDuration(b.Work.CountMS))
				if first == nil {
					first = b
				} else if !sameForced(first, b) {
					res.Disagreements++
				}
			}
			a = first
			answers = append(answers, first)
		}
		walks = append(walks, walk)
	}
	for _, i := range answering {
		mb := &res.Backends[i]
		mb.Steps, mb.Server, mb.Domains, mb.Count = Summarize(steps[i]), Summarize(server[i]), Summarize(domains[i]), Summarize(count[i])
	}

	if opt.CMS != "" {
		empty, _, err := c.analyze(ctx, info.Model, opt.Backends[answering[0]], nil)
		if err != nil {
			return res, err
		}
		peer, err := cmsBackbones(ctx, path, opt, walks, append([]*modelAnswer{empty}, answers...))
		if err != nil {
			return res, err
		}
		res.CMS = peer
	}
	if opt.Baseline != "" {
		mb, err := replay(ctx, c, info.Model, opt, walks)
		if err != nil {
			return res, err
		}
		res.Baseline = mb
	}
	return res, nil
}

// BuildCMS builds CryptoMiniSat's backbone from scratch
// (peers.BuildCMS) in dir, for ModelOptions.CMS.
func BuildCMS(ctx context.Context, dir string) (string, error) { return peers.BuildCMS(ctx, dir) }

// cmsBackbones asks CryptoMiniSat (ModelOptions.CMS) for the backbone of
// the model at path from scratch under the empty configuration and then
// every step of the walks, in order, within CMSBudget, and compares each
// with the answer the first backend gave (answers, the empty
// configuration's first).
func cmsBackbones(ctx context.Context, path string, opt ModelOptions, walks [][][]decision, answers []*modelAnswer) (*ModelPeer, error) {
	m, err := modelfile.Load(path, "")
	if err != nil {
		return nil, err
	}
	c := m.CNF()
	cnf := filepath.Join(opt.Scratch, "model.cnf")
	var b strings.Builder
	fmt.Fprintf(&b, "p cnf %d %d\n", c.Vars, c.Len())
	for i := range c.Len() {
		for _, l := range c.Clause(i) {
			fmt.Fprintf(&b, "%d ", l)
		}
		b.WriteString("0\n")
	}
	if err := os.WriteFile(cnf, []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	index := make(map[string]int, len(m.Features))
	for f, ft := range m.Features {
		index[ft.Name] = f
	}
	lits := func(ds []decision) ([]int, error) {
		out := make([]int, len(ds))
		for i, d := range ds {
			f, ok := index[d.feature]
			if !ok {
				return nil, fmt.Errorf("%s: no feature %q in the model read here", filepath.Base(path), d.feature)
			}
			out[i] = int(feature.FeatureLit(f, d.sel))
		}
		return out, nil
	}
	questions := [][]int{{}}
	var decided [][]decision
	for _, walk := range walks {
		for _, ds := range walk {
			q, err := lits(ds)
			if err != nil {
				return nil, err
			}
			questions = append(questions, q)
			decided = append(decided, ds)
		}
	}
	bctx, cancel := context.WithTimeout(ctx, opt.CMSBudget)
	defer cancel()
	got, err := peers.RunCMS(bctx, opt.CMS, cnf, len(m.Features), questions)
	if err != nil {
		return nil, err
	}
	peer := &ModelPeer{Name: "cryptominisat5, from scratch"}
	if len(got) == 0 {
		peer.Cut = fmt.Sprintf("the empty configuration took more than the budget of %v", opt.CMSBudget)
		return peer, nil
	}
	peer.Empty, peer.EmptyCalls = got[0].Elapsed, got[0].Calls
	var steps []time.Duration
	for i, a := range got {
		if i > 0 {
			steps = append(steps, a.Elapsed)
		}
		var ds []decision
		if i > 0 {
			ds = decided[i-1]
		}
		if !sameBackbone(m.Features, a, answers[i], ds) {
			peer.Disagreements++
		}
	}
	peer.Steps = Summarize(steps)
	if len(got) < len(questions) {
		peer.Cut = fmt.Sprintf("%d of %d steps within the budget of %v", len(got)-1, len(questions)-1, opt.CMSBudget)
	}
	return peer, nil
}

// sameBackbone reports whether CryptoMiniSat's forced literals, less the
// decisions ds, name the forced features of the answer a.
func sameBackbone(features []feature.Feature, cms peers.CMSAnswer, a *modelAnswer, ds []decision) bool {
	if cms.Unsat {
		return false
	}
	decided := make(map[string]bool, len(ds))
	for _, d := range ds {
		decided[d.feature] = true
	}
	var on, off []string
	for _, l := range cms.Forced {
		name := features[abs(l)-1].Name
		switch {
		case decided[name]:
		case l > 0:
			on = append(on, name)
		default:
			off = append(off, name)
		}
	}
	return sameForced(a, &modelAnswer{ForcedOn: on, ForcedOff: off})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// emptyConfiguration measures the empty configuration on mb's backend,
// or notes why the backend refuses the model.
func emptyConfiguration(ctx context.Context, c *modelClient, id string, mb *ModelBackend) error {
	_, first, err := c.analyze(ctx, id, mb.Backend, nil)
	if err != nil {
		var ae *apiError
		if errors.As(err, &ae) && (ae.Status == http.StatusRequestEntityTooLarge || ae.Status == http.StatusBadRequest) {
			mb.Refused = ae.Msg
			return nil
		}
		return fmt.Errorf("%s, the empty configuration: %w", mb.Backend, err)
	}
	a, took, err := c.analyze(ctx, id, mb.Backend, nil)
	if err != nil {
		return fmt.Errorf("%s, the empty configuration: %w", mb.Backend, err)
	}
	mb.First = first
	mb.Compile, mb.Nodes = msDuration(a.CompileMS), a.Work.Nodes
	mb.Empty, mb.EmptyServer = took, msDuration(a.ElapsedMS)
	mb.ForcedOn, mb.ForcedOff = len(a.ForcedOn), len(a.ForcedOff)
	if a.Configurations != nil {
		mb.Configurations, mb.AtLeast = *a.Configurations, a.AtLeast
	}
	return nil
}

// replay runs the baseline: the empty configuration, then the walks'
// steps in order, until the budget is spent.
func replay(ctx context.Context, c *modelClient, id string, opt ModelOptions, walks [][][]decision) (*ModelBackend, error) {
	mb := &ModelBackend{Backend: opt.Baseline}
	bctx, cancel := context.WithTimeout(ctx, opt.BaselineBudget)
	defer cancel()
	bc := *c
	bc.timeout = min(c.timeout, opt.BaselineBudget)
	if err := emptyConfiguration(bctx, &bc, id, mb); err != nil {
		if bctx.Err() != nil && ctx.Err() == nil {
			mb.Cut = fmt.Sprintf("the empty configuration took more than the budget of %v", opt.BaselineBudget)
			return mb, nil
		}
		return nil, err
	}
	var steps, server, domains, count []time.Duration
	total := 0
	for _, walk := range walks {
		total += len(walk)
	}
	for _, walk := range walks {
		for _, ds := range walk {
			a, took, err := bc.analyze(bctx, id, opt.Baseline, ds)
			if err != nil {
				if bctx.Err() != nil && ctx.Err() == nil {
					mb.Cut = fmt.Sprintf("%d of %d steps within the budget of %v", len(steps), total, opt.BaselineBudget)
					mb.Steps, mb.Server, mb.Domains, mb.Count = Summarize(steps), Summarize(server), Summarize(domains), Summarize(count)
					return mb, nil
				}
				return nil, fmt.Errorf("%s, step %d: %w", opt.Baseline, len(ds), err)
			}
			steps = append(steps, took)
			server = append(server, msDuration(a.ElapsedMS))
			domains = append(domains, msDuration(a.Work.DomainsMS))
			count = append(count, msDuration(a.Work.CountMS))
		}
	}
	mb.Steps, mb.Server, mb.Domains, mb.Count = Summarize(steps), Summarize(server), Summarize(domains), Summarize(count)
	return mb, nil
}

// sameForced reports whether two answers name the same forced features.
func sameForced(a, b *modelAnswer) bool {
	eq := func(x, y []string) bool {
		x, y = slices.Clone(x), slices.Clone(y)
		slices.Sort(x)
		slices.Sort(y)
		return slices.Equal(x, y)
	}
	return eq(a.ForcedOn, b.ForcedOn) && eq(a.ForcedOff, b.ForcedOff)
}

// msDuration is a duration in milliseconds as the API writes it.
func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// LoadAvg is the machine's load average over 1, 5 and 15 minutes, as
// /proc/loadavg says it; empty where there is none.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
