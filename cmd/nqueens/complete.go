package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// modelCompleteResult is the JSON of nqueens complete -model: every
// feature once across select and deselect; exact and bound for fewest and
// most (null for uniform).
type modelCompleteResult struct {
	Model     string   `json:"model"`
	Backend   string   `json:"backend"`
	How       string   `json:"how"`
	Select    []string `json:"select"`
	Deselect  []string `json:"deselect"`
	Selected  int      `json:"selected"`
	Exact     *bool    `json:"exact"`
	Bound     *int     `json:"bound"`
	CompileMS float64  `json:"compile_ms"`
	ElapsedMS float64  `json:"elapsed_ms"`
}

func runComplete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("complete", "finish a configuration of a -model from decisions: uniformly at random, or with the fewest or the most features", stdout)
	var b backendFlags
	b.register(fs, false, stderr)
	var mf modelFlags
	mf.register(fs, true)
	howFlag := fs.String("how", "", "uniform (bdd), fewest or most (default: uniform where the backend samples, else fewest)")
	timeout := fs.Duration("timeout", 0, "fewest, most: stop the search after this long and print the best found and the bound reached (0: no limit)")
	seed := fs.Uint64("seed", 0, "uniform: the random generator's seed (0: a random one)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if model, err := mf.active(fs); err != nil || !model {
		if err != nil {
			return err
		}
		return usagef("-model is required: complete finishes a feature model's configuration (see nqueens complete -h)")
	}
	var how configurator.How
	if *howFlag != "" {
		var err error
		if how, err = configurator.ParseHow(*howFlag); err != nil {
			return usagef("-how: %v", err)
		}
	}
	s, compile, err := openModelSession(ctx, &b, &mf)
	if err != nil {
		return err
	}
	if _, ok := s.Space().(configurator.FeatureSampler); *howFlag == "" && !ok {
		how = configurator.Fewest
	}
	rng := rand.New(rand.NewPCG(*seed, *seed))
	if *seed == 0 {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	fctx := ctx
	if *timeout > 0 {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	start := time.Now()
	done, err := s.Finish(fctx, how, rng)
	if err != nil {
		return err
	}
	took := time.Since(start)
	m := s.Model()
	r := modelCompleteResult{Model: m.Name, Backend: b.name, How: how.String(), Select: []string{}, Deselect: []string{},
		Selected: done.Selections(), CompileMS: millis(compile), ElapsedMS: millis(took)}
	for f, on := range done.Selected {
		if on {
			r.Select = append(r.Select, m.Features[f].Name)
		} else {
			r.Deselect = append(r.Deselect, m.Features[f].Name)
		}
	}
	if how != configurator.Uniform {
		r.Exact, r.Bound = &done.Exact, &done.Bound
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	result := fmt.Sprintf("%d of %d features selected", r.Selected, len(m.Features))
	switch {
	case how == configurator.Uniform:
		result += ", drawn uniformly"
	case done.Exact:
		result += fmt.Sprintf(", the %s: exact", how)
	default:
		relation := "no configuration selects fewer than"
		if how == configurator.Most {
			relation = "no configuration selects more than"
		}
		result += fmt.Sprintf(", the %s found in the time given; %s %d", how, relation, done.Bound)
	}
	var out strings.Builder
	for _, l := range [][2]string{
		{"model", fmt.Sprintf("%s (%d features)", m.Name, len(m.Features))},
		{"configuration", result},
		{"selected", nameList(r.Select)},
		{"compile", fmt.Sprintf("%s (%s)", human(compile), b.name)},
		{"complete", human(took)},
	} {
		fmt.Fprintf(&out, "%-15s %s\n", l[0], l[1])
	}
	_, err = io.WriteString(stdout, out.String())
	return err
}
