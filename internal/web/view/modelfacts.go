package view

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/words"
)

// ModelFacts is the panel of a model's facts (configurator.Facts) in
// words: each list of features, its size, and the names (at most
// factsList of them).
type ModelFacts struct {
	Title string
	Lines []FactLine
	Note  string
	Back  string
	Err   string
}

// FactLine is one fact: what it is, how many, and which.
type FactLine struct {
	Label, Count, Names string
}

// factsList is how many names a line of facts shows.
const factsList = 40

// NewModelFacts writes the facts f of m, found by backend in took.
func NewModelFacts(st modelstate.State, m *feature.Model, backend string, f *configurator.Facts, took string) *ModelFacts {
	v := &ModelFacts{Title: "Model facts", Back: st.Href()}
	names := func(fs []int) string {
		out := make([]string, 0, min(len(fs), factsList))
		for _, x := range fs[:min(len(fs), factsList)] {
			out = append(out, m.Features[x].Name)
		}
		s := strings.Join(out, ", ")
		if len(fs) > factsList {
			s += fmt.Sprintf(", and %d more", len(fs)-factsList)
		}
		return s
	}
	plural := func(n int) string { return words.Plural(int64(n), "feature") }
	v.Lines = append(v.Lines,
		FactLine{Label: "Core (in every configuration)", Count: plural(len(f.Core)), Names: names(f.Core)},
		FactLine{Label: "Dead (in none)", Count: plural(len(f.Dead)), Names: names(f.Dead)},
		FactLine{Label: "False-optional (optional in the tree, yet always with their parent)", Count: plural(len(f.FalseOptional)), Names: names(f.FalseOptional)})
	var sets []string
	for i, s := range f.AtomicSets {
		if i == factsList/4 {
			sets = append(sets, fmt.Sprintf("and %d more sets", len(f.AtomicSets)-i))
			break
		}
		sets = append(sets, "{"+names(s)+"}")
	}
	v.Lines = append(v.Lines, FactLine{Label: "Atomic sets (always the same value)", Count: words.Plural(int64(len(f.AtomicSets)), "set"), Names: strings.Join(sets, " ")})
	b := strings.ToUpper(backend)
	if f.Configurations != nil {
		v.Lines = append(v.Lines, FactLine{Label: "Configurations", Count: words.Group(f.Configurations)})
	}
	if f.Selecting != nil && f.Configurations != nil && f.Configurations.Sign() > 0 {
		// The least and the most common of the features that are
		// neither dead nor core: the extremes that say something.
		lo, hi := -1, -1
		for i, k := range f.Selecting {
			if k.Sign() == 0 || k.Cmp(f.Configurations) == 0 {
				continue
			}
			if lo < 0 || k.Cmp(f.Selecting[lo]) < 0 {
				lo = i
			}
			if hi < 0 || k.Cmp(f.Selecting[hi]) > 0 {
				hi = i
			}
		}
		share := func(i int) string {
			r, _ := new(big.Rat).SetFrac(f.Selecting[i], f.Configurations).Float64()
			return fmt.Sprintf("%s %.1f %%", m.Features[i].Name, 100*r)
		}
		if lo >= 0 {
			v.Lines = append(v.Lines, FactLine{Label: "Commonality (each feature's share of them)", Count: "least common " + share(lo) + ", most common " + share(hi)})
		}
	}
	v.Note = fmt.Sprintf("Found by %s in %s.", b, took)
	if f.Configurations == nil {
		v.Note += " " + b + " does not count the configurations of this model: the BDD does, where it compiles it."
	}
	return v
}
