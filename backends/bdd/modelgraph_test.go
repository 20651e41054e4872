package bdd

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator"
)

// graphConfigs lists the configurations a feature graph of sp stands
// for: every path from Root to One, each variable it tests as its edge
// says, those the decisions set as they set them, and every other either
// way, read over the features by sp's bindings, as strings of 0 and 1.
func graphConfigs(sp *ModelSpace, g *configurator.Graph, decisions []configurator.Decision) []string {
	variable := map[string]int{} // a level's name: its diagram variable
	for v, f := range sp.features {
		variable[sp.model.Features[f].Name] = v
	}
	_, vals, _, _ := sp.assign(decisions)
	out := map[int][]configurator.GraphEdge{}
	for _, e := range g.Edges {
		out[e.From] = append(out[e.From], e)
	}
	var configs []string
	path := map[int]bool{}
	var walk func(u int)
	walk = func(u int) {
		if u == g.One {
			x := slices.Clone(vals) // -1 free, 0, 1
			for v, on := range path {
				x[v] = int8(btoi(on))
			}
			for _, full := range expand(x) {
				on := make([]bool, len(full))
				for v := range full {
					on[v] = full[v] == '1'
				}
				configs = append(configs, configString(sp.configuration(on[:sp.vars], x, func(v int) bool { return on[v] })))
			}
			return
		}
		v := variable[g.Layers[g.Nodes[u].Layer]]
		for _, e := range out[u] {
			path[v] = e.Label == "hi"
			walk(e.To)
		}
		delete(path, v)
	}
	walk(g.Root)
	slices.Sort(configs)
	return configs
}

// expand lists the assignments of a partial one, free variables (-1)
// either way, as strings of 0 and 1.
func expand(config []int8) []string {
	out := []string{""}
	for _, x := range config {
		var next []string
		for _, s := range out {
			if x != 1 {
				next = append(next, s+"0")
			}
			if x != 0 {
				next = append(next, s+"1")
			}
		}
		out = next
	}
	return out
}

func configString(c []bool) string {
	var b strings.Builder
	for _, x := range c {
		if x {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// TestFeatureGraphIsTheConfigurations checks, on small random models under
// random decisions, that the paths of the feature graph are exactly the
// configurations that keep the decisions (brute force by
// feature.Model.Valid), that Solutions counts them, that the profiles sum
// to the diagrams' nodes, and that the layers follow DiagramOrder.
func TestFeatureGraphIsTheConfigurations(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 6))
	for trial := range 40 {
		m := randomModel(t, rng, trial, 9)
		configs := bruteForce(m)
		names := make([]string, len(m.Features))
		for f, ft := range m.Features {
			names[f] = ft.Name
		}
		for _, o := range []ModelOrder{OrderModel, OrderForce} {
			sp := compileWith(t, m, o, defaultCompile)
			name := fmt.Sprintf("trial %d, %v order", trial, o)
			order, heuristic := sp.DiagramOrder()
			if heuristic != o.String() {
				t.Errorf("%s: the order is named %q", name, heuristic)
			}
			if sorted := slices.Sorted(slices.Values(order)); !slices.Equal(sorted, slices.Sorted(slices.Values(sp.features))) {
				t.Fatalf("%s: DiagramOrder %v is not a permutation of the diagram's features %v", name, order, sp.features)
			}
			for range 4 {
				var decisions []configurator.Decision
				for _, f := range rng.Perm(len(names))[:rng.IntN(len(names)+1)] {
					decisions = append(decisions, configurator.Decision{Feature: f, Select: rng.IntN(2) == 0})
				}
				var want []string
				for _, c := range configs {
					if keeps(c, decisions) {
						want = append(want, configString(c))
					}
				}
				slices.Sort(want)
				g, err := sp.FeatureGraph(t.Context(), decisions, 1<<20)
				if len(want) == 0 {
					if !errors.Is(err, configurator.ErrNoSolution) {
						t.Errorf("%s, %v: no configuration, yet FeatureGraph answers %v", name, decisions, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s, %v: %v", name, decisions, err)
				}
				if got := graphConfigs(sp, g, decisions); !slices.Equal(got, want) {
					t.Errorf("%s, %v: the paths are %v, the configurations %v", name, decisions, got, want)
				}
				if g.Solutions.Cmp(big.NewInt(int64(len(want)))) != 0 {
					t.Errorf("%s, %v: Solutions %v, configurations %d", name, decisions, g.Solutions, len(want))
				}
				if sum(g.Profile) != g.DiagramNodes || len(g.Nodes) != g.DiagramNodes+1 || len(g.Profile) != sp.vars {
					t.Errorf("%s, %v: profile %v sums to %d, %d nodes drawn, diagram of %d", name, decisions, g.Profile, sum(g.Profile), len(g.Nodes), g.DiagramNodes)
				}
				if sum(g.Whole) != sp.Nodes() {
					t.Errorf("%s: the whole profile %v sums to %d, the diagram has %d nodes", name, g.Whole, sum(g.Whole), sp.Nodes())
				}
				for l, k := range g.Profile {
					label := names[order[l]]
					if k > 0 && !slices.Contains(g.Layers, label) {
						t.Errorf("%s, %v: level %d (%s) holds %d nodes but no layer", name, decisions, l, label, k)
					}
				}
				for i := 1; i+1 < len(g.Layers); i++ {
					if slices.Index(order, slices.Index(names, g.Layers[i-1])) >= slices.Index(order, slices.Index(names, g.Layers[i])) {
						t.Errorf("%s: layers %v out of the diagram's order", name, g.Layers)
					}
				}
				if g.DiagramNodes > 0 {
					tg, err := sp.FeatureGraph(t.Context(), decisions, g.DiagramNodes)
					if err != nil || !tg.Truncated || tg.DiagramNodes != g.DiagramNodes || !slices.Equal(tg.Profile, g.Profile) {
						t.Errorf("%s, %v: at %d nodes the graph is not truncated to its size: %+v, %v", name, decisions, g.DiagramNodes, tg, err)
					}
				}
			}
		}
	}
}
