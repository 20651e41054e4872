package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/nqueens/configurator/benchmarks/peakmem"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/configurator/configfile"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// modelFlags are the flags that name a feature model instead of a board:
// its file and format, and, for analyze and explain, the decisions on it.
type modelFlags struct {
	file, format string
	sel, desel   names
	// config is a configuration file whose decisions come first, and
	// configFormat its format ("": told from its content).
	config, configFormat string
}

// register adds -model and -format to fs; decisions adds -select and
// -deselect.
func (mf *modelFlags) register(fs *flagSet, decisions bool) {
	fs.StringVar(&mf.file, "model", "", "configure the feature model in `FILE` (UVL, DIMACS CNF, FeatureIDE XML or SPLOT's SXFM) instead of an N×N board; example:NAME is a bundled example (car, computer, smarthome), queens-N the N×N board as a model (a feature per square)")
	fs.StringVar(&mf.format, "format", "", "-model: the file's format, uvl, dimacs, featureide or sxfm (default: told from its name, else its content)")
	if decisions {
		fs.Var(&mf.sel, "select", "-model: the `features` to select, comma-separated (a name with a comma in double quotes); may be repeated")
		fs.Var(&mf.desel, "deselect", "-model: the `features` to deselect, as -select")
		fs.StringVar(&mf.config, "config", "", "-model: take the decisions of the configuration in `FILE` (FeatureIDE XML, Kconfig, CSV or JSON: what the page and POST /api/v1/configuration write), before -select and -deselect")
		fs.StringVar(&mf.configFormat, "config-format", "", "-config: the file's format, featureide, kconfig, csv or json (default: told from its content)")
	}
}

// active reports whether the command configures a feature model, and
// refuses a command line that names a model and a board at once.
func (mf *modelFlags) active(fs *flagSet) (bool, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if mf.file == "" {
		for _, name := range []string{"format", "select", "deselect", "config", "config-format"} {
			if set[name] {
				return false, usagef("-%s needs -model (see nqueens %s -h)", name, fs.Name())
			}
		}
		return false, nil
	}
	for _, name := range []string{"n", "queens", "cell", "order", "method"} {
		if set[name] {
			return false, usagef("-%s is for boards; -model names a feature model (see nqueens %s -h)", name, fs.Name())
		}
	}
	return true, nil
}

// examplePrefix names a bundled example in -model: example:car.
const examplePrefix = "example:"

// load reads the model the flags name: a file, a bundled example, or a
// board (queens-N).
func (mf *modelFlags) load() (*feature.Model, error) {
	f, err := modelfile.ParseFormat(mf.format)
	if err != nil {
		return nil, usagef("-format: %v", err)
	}
	if n, ok := configurator.ParseBoardID(mf.file); ok {
		// The n×n board as a model, answered by each backend's engine
		// for boards, as the server's queens-N is.
		board, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			return nil, err
		}
		return board.FeatureModel()
	}
	if name, ok := strings.CutPrefix(mf.file, examplePrefix); ok {
		ex, ok := examples.Lookup(name)
		if !ok {
			var names []string
			for _, e := range examples.All() {
				names = append(names, e.Name)
			}
			return nil, usagef("-model: no bundled example %q (there are %s)", name, strings.Join(names, ", "))
		}
		return ex.Model()
	}
	m, err := modelfile.Load(mf.file, f)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("-model: %v", err)
	}
	return m, err
}

// decisions returns the decisions of -config, then of -select and
// -deselect, on m.
func (mf *modelFlags) decisions(m *feature.Model) ([]configurator.Decision, error) {
	var ds []configurator.Decision
	if mf.config != "" {
		src, err := os.ReadFile(mf.config)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, usagef("-config: %v", err)
		}
		if err != nil {
			return nil, err
		}
		f := configfile.Detect(src)
		if mf.configFormat != "" {
			if f, err = configfile.ParseFormat(mf.configFormat); err != nil {
				return nil, usagef("-config-format: %v", err)
			}
		}
		conf, err := configfile.Read(src, m, f)
		if err != nil {
			return nil, fmt.Errorf("-config %s (%s): %w", mf.config, f, err)
		}
		ds = conf.Decisions()
	}
	more, err := configurator.ParseDecisions(m, mf.sel, mf.desel)
	if err != nil {
		return nil, fmt.Errorf("-select, -deselect: %w", err)
	}
	ds = append(ds, more...)
	if err := configurator.CheckDecisions(m, ds); err != nil {
		return nil, fmt.Errorf("-config with -select, -deselect: %w", err)
	}
	return ds, nil
}

// names is a flag of feature names, comma-separated, a name in double
// quotes when it holds a comma; each use of the flag adds to the list.
type names []string

func (n *names) String() string { return strings.Join(*n, ",") }

func (n *names) Set(s string) error {
	r := csv.NewReader(strings.NewReader(s))
	r.TrimLeadingSpace = true
	fields, err := r.Read()
	if err != nil {
		return fmt.Errorf("%q: not a comma-separated list of names", s)
	}
	for _, f := range fields {
		if f = strings.TrimSpace(f); f != "" {
			*n = append(*n, f)
		}
	}
	return nil
}

// compileModel loads the model and compiles it with the backend the flags
// choose.
func compileModel(ctx context.Context, b *backendFlags, mf *modelFlags) (configurator.Space, time.Duration, error) {
	m, err := mf.load()
	if err != nil {
		return nil, 0, err
	}
	be, err := b.backend()
	if err != nil {
		return nil, 0, err
	}
	return configurator.CompileFeatureModel(ctx, be, m)
}

// modelCountResult is the JSON of nqueens count -model. Configurations is
// a decimal string, null when the backend does not count; Nodes is the
// bdd backend's; Error says why the model was not compiled or counted.
type modelCountResult struct {
	Model          string  `json:"model"`
	Format         string  `json:"format"`
	Features       int     `json:"features"`
	Backend        string  `json:"backend"`
	Configurations *string `json:"configurations"`
	AtLeast        bool    `json:"at_least,omitempty"`
	Nodes          *int    `json:"nodes,omitempty"`
	CompileMS      float64 `json:"compile_ms"`
	CountMS        float64 `json:"count_ms"`
	PeakBytes      uint64  `json:"peak_bytes"`
	Error          string  `json:"error,omitempty"`
}

// countModel is nqueens count -model.
func countModel(ctx context.Context, b *backendFlags, mf *modelFlags, asJSON bool, stdout io.Writer) error {
	m, err := mf.load()
	if err != nil {
		return err
	}
	r := modelCountResult{Model: m.Name, Format: string(m.Format), Features: len(m.Features), Backend: b.name}
	fail := func(err error) error {
		if asJSON {
			r.Error = oneLine(err)
			if werr := json.NewEncoder(stdout).Encode(r); werr != nil {
				return werr
			}
		}
		return err
	}
	be, err := b.backend()
	if err != nil {
		return err
	}
	mem := peakmem.Start(peakmem.Mapped, 2*time.Millisecond)
	sp, compile, err := configurator.CompileFeatureModel(ctx, be, m)
	if err != nil {
		mem.Stop()
		return fail(err)
	}
	start := time.Now()
	d, err := sp.Domains(ctx, nil)
	count := time.Since(start)
	r.PeakBytes = mem.Stop()
	if errors.Is(err, configurator.ErrNoSolution) {
		d, err = &configurator.Domains{Configurations: new(big.Int)}, nil // a model without configurations
	}
	if err != nil {
		return fail(fmt.Errorf("count %s: %w", configurator.ModelName(m), err))
	}
	r.CompileMS, r.CountMS, r.AtLeast = millis(compile), millis(count), d.AtLeast
	configurations := "not counted by this backend (sat counts models of up to 200 features)"
	if d.Configurations != nil {
		configurations = d.Configurations.String()
		r.Configurations = &configurations
	}
	if nd, ok := sp.(noder); ok {
		nodes := nd.Nodes()
		r.Nodes = &nodes
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	if r.AtLeast {
		configurations = "at least " + configurations
	}
	lines := [][2]string{
		{"model", m.Name},
		{"format", r.Format},
		{"features", fmt.Sprint(r.Features)},
		{"backend", b.name},
		{"configurations", configurations},
	}
	if r.Nodes != nil {
		lines = append(lines, [2]string{"nodes", fmt.Sprint(*r.Nodes)})
	}
	lines = append(lines,
		[2]string{"compile", human(compile)},
		[2]string{"count", human(count)},
		[2]string{"peak memory", bytesize.Format(int64(r.PeakBytes)) + " (Go runtime, whole process)"},
	)
	var out strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&out, "%-15s %s\n", l[0], l[1])
	}
	_, err = io.WriteString(stdout, out.String())
	return err
}

// openModelSession compiles the model and classifies its features under
// the decisions of the flags.
func openModelSession(ctx context.Context, b *backendFlags, mf *modelFlags) (*configurator.FeatureSession, time.Duration, error) {
	sp, compile, err := compileModel(ctx, b, mf)
	if err != nil {
		return nil, 0, err
	}
	ds, err := mf.decisions(sp.FeatureModel())
	if err != nil {
		return nil, 0, err
	}
	s, err := configurator.NewFeatureSession(ctx, sp, ds)
	if err != nil {
		return nil, 0, err
	}
	return s, compile, nil
}

// featureNames names features, never null in JSON.
func featureNames(m *feature.Model, fs []int) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = m.Features[f].Name
	}
	return out
}

// modelAnalyzeResult is the JSON of nqueens analyze -model: every feature
// once across select, deselect, forced_on, forced_off and free.
type modelAnalyzeResult struct {
	Model          string   `json:"model"`
	Backend        string   `json:"backend"`
	Select         []string `json:"select"`
	Deselect       []string `json:"deselect"`
	ForcedOn       []string `json:"forced_on"`
	ForcedOff      []string `json:"forced_off"`
	Free           []string `json:"free"`
	Configurations *string  `json:"configurations"`
	AtLeast        bool     `json:"at_least"`
	CompileMS      float64  `json:"compile_ms"`
	ElapsedMS      float64  `json:"elapsed_ms"`
}

// listMax is how many names a line of analyze -model shows.
const listMax = 40

// nameList names features for a line: up to listMax, then how many more.
func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) <= listMax {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:listMax], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
}

// analyzeModel is nqueens analyze -model.
func analyzeModel(ctx context.Context, b *backendFlags, mf *modelFlags, asJSON bool, stdout io.Writer) error {
	s, compile, err := openModelSession(ctx, b, mf)
	if err != nil {
		return err
	}
	m, d := s.Model(), s.Domains()
	r := modelAnalyzeResult{
		Model: m.Name, Backend: b.name,
		ForcedOn:  featureNames(m, d.In(configurator.ForcedOn)),
		ForcedOff: featureNames(m, d.In(configurator.ForcedOff)),
		Free:      featureNames(m, d.In(configurator.Open)),
		AtLeast:   d.AtLeast,
		CompileMS: millis(compile), ElapsedMS: millis(d.Elapsed),
	}
	r.Select, r.Deselect = configurator.DecisionNames(m, s.Decisions())
	configurations := "not counted by this backend (sat counts models of up to 200 features)"
	if d.Configurations != nil {
		configurations = d.Configurations.String()
		r.Configurations = &configurations
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	if d.AtLeast {
		configurations = "at least " + configurations
	}
	var out strings.Builder
	for _, l := range [][2]string{
		{"model", fmt.Sprintf("%s (%d features)", m.Name, len(m.Features))},
		{"selected", nameList(r.Select)},
		{"deselected", nameList(r.Deselect)},
		{"forced on", nameList(r.ForcedOn)},
		{"forced off", nameList(r.ForcedOff)},
		{"free", plural(len(r.Free), "feature")},
		{"configurations", configurations},
		{"compile", fmt.Sprintf("%s (%s)", human(compile), b.name)},
		{"step", human(d.Elapsed)},
	} {
		fmt.Fprintf(&out, "%-15s %s\n", l[0], l[1])
	}
	_, err = io.WriteString(stdout, out.String())
	return err
}

// modelReason is one reason in the JSON of nqueens explain -model: its
// decisions, the propagation that proves it and the parts of the model
// that carry it, in the model's words.
type modelReason struct {
	Select      []string `json:"select"`
	Deselect    []string `json:"deselect"`
	Proof       []string `json:"proof"`
	Constraints []string `json:"constraints"`
}

// modelDecisions are decisions in JSON, by name.
type modelDecisions struct {
	Select   []string `json:"select"`
	Deselect []string `json:"deselect"`
}

// modelExplainResult is the JSON of nqueens explain -model. Constraints
// are the parts of the model that carry the reasons, each once.
type modelExplainResult struct {
	Model       string          `json:"model"`
	Backend     string          `json:"backend"`
	Feature     string          `json:"feature"`
	State       string          `json:"state"`
	Reasons     []modelReason   `json:"reasons"`
	More        bool            `json:"more,omitempty"`
	Core        bool            `json:"core"`
	MakeRoom    *modelDecisions `json:"make_room"`
	Constraints []string        `json:"constraints"`
	CompileMS   float64         `json:"compile_ms"`
	ElapsedMS   float64         `json:"elapsed_ms"`
}

// explainModel is nqueens explain -model.
func explainModel(ctx context.Context, b *backendFlags, mf *modelFlags, name string, asJSON bool, stdout io.Writer) error {
	s, compile, err := openModelSession(ctx, b, mf)
	if err != nil {
		return err
	}
	m := s.Model()
	f, ok := m.ID(name)
	if !ok {
		return fmt.Errorf("-feature: feature %q: %w", name, configurator.ErrUnknownFeature)
	}
	e, err := s.Explain(ctx, f)
	if errors.Is(err, configurator.ErrNotForced) {
		return fmt.Errorf("%q is %v: nothing to explain (only forced features have reasons)", name, s.Domains().States[f])
	}
	if err != nil {
		return err
	}
	r := modelExplainResult{
		Model: m.Name, Backend: b.name, Feature: name, State: e.State.String(),
		More: e.More, Core: e.Core, Constraints: []string{},
		CompileMS: millis(compile), ElapsedMS: millis(e.Elapsed),
	}
	if !e.Core {
		r.MakeRoom = &modelDecisions{}
		r.MakeRoom.Select, r.MakeRoom.Deselect = configurator.DecisionNames(m, e.Room)
	}
	for _, reason := range e.Reasons {
		mr := modelReason{Proof: []string{}, Constraints: []string{}}
		mr.Select, mr.Deselect = configurator.DecisionNames(m, reason.Decisions)
		for _, p := range reason.Proof {
			mr.Proof = append(mr.Proof, p.Text(m))
		}
		for _, o := range reason.Constraints {
			mr.Constraints = append(mr.Constraints, m.Describe(o))
		}
		r.Reasons = append(r.Reasons, mr)
	}
	for _, o := range e.Constraints() {
		r.Constraints = append(r.Constraints, m.Describe(o))
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	var out strings.Builder
	state := map[configurator.FeatureState]string{configurator.ForcedOn: "forced on", configurator.ForcedOff: "forced off"}[e.State]
	if e.Core {
		kind := map[configurator.FeatureState]string{configurator.ForcedOn: "a core feature", configurator.ForcedOff: "a dead feature"}[e.State]
		fmt.Fprintf(&out, "%q is %s by the model alone (%s)\n", name, state, kind)
	} else {
		fmt.Fprintf(&out, "%q is %s by your decisions\n", name, state)
	}
	for i, reason := range e.Reasons {
		label := ""
		if i == 0 {
			label = "reasons"
		}
		decided := configurator.FormatDecisions(m, reason.Decisions)
		if decided == "" {
			decided = "the model alone"
		}
		fmt.Fprintf(&out, "%-10s %d. %s\n", label, i+1, decided)
		for _, p := range reason.Proof {
			fmt.Fprintf(&out, "%-10s    %s\n", "", p.Text(m))
		}
		if reason.Proof == nil {
			for _, o := range reason.Constraints {
				fmt.Fprintf(&out, "%-10s    carried by %s\n", "", m.Describe(o))
			}
		}
	}
	if e.More {
		fmt.Fprintf(&out, "%-10s (more may exist: the list stops at %d or at the deadline)\n", "", configurator.MaxReasons)
	}
	if !e.Core {
		fmt.Fprintf(&out, "%-10s undo %s\n", "make room", configurator.FormatDecisions(m, e.Room))
	}
	fmt.Fprintf(&out, "%-10s %s (%s)\n", "compile", human(compile), b.name)
	fmt.Fprintf(&out, "%-10s %s\n", "explain", human(e.Elapsed))
	_, err = io.WriteString(stdout, out.String())
	return err
}

// plural says n things: "1 feature", "2 features".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
