package configurator_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// kernel is a small feature model with a chain across the tree: Linux
// needs MMU, which excludes NOMMU.
const kernel = `namespace Kernel
features
	Kernel
		mandatory
			Arch
				alternative
					Linux
					Bare
		optional
			MMU
			NOMMU
			Debug
constraints
	Linux => MMU
	MMU => !NOMMU
`

// modelCompilers are the backends that configure feature models, for the
// session's tests.
var modelCompilers = []configurator.Backend{sat.New(sat.Options{}), plain.New(plain.Options{})}

// featureSpace compiles the UVL text src with b.
func featureSpace(t *testing.T, b configurator.Backend, src string) configurator.Space {
	t.Helper()
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sp, _, err := configurator.CompileFeatureModel(context.Background(), b, m)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// decisions parses "+Linux,-MMU" for model m.
func decisions(t *testing.T, m *feature.Model, s string) []configurator.Decision {
	t.Helper()
	var sel, desel []string
	for _, part := range strings.Split(s, ",") {
		switch {
		case part == "":
		case part[0] == '+':
			sel = append(sel, part[1:])
		default:
			desel = append(desel, part[1:])
		}
	}
	ds, err := configurator.ParseDecisions(m, sel, desel)
	if err != nil {
		t.Fatal(err)
	}
	// ParseDecisions puts the selections first; keep the order of s.
	var out []configurator.Decision
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		f, _ := m.ID(part[1:])
		i := slices.IndexFunc(ds, func(d configurator.Decision) bool { return d.Feature == f })
		out = append(out, ds[i])
	}
	return out
}

// states names the states of the features in the model's order.
func states(d *configurator.Domains) string {
	names := make([]string, len(d.States))
	for f, st := range d.States {
		names[f] = st.String()
	}
	return strings.Join(names, " ")
}

// The session on a feature model: each decision classifies every
// feature; a decision the others exclude is refused with its reason; undo
// takes any decision back.
func TestFeatureSession(t *testing.T) {
	ctx := context.Background()
	for _, b := range modelCompilers {
		t.Run(b.Name(), func(t *testing.T) {
			sp := featureSpace(t, b, kernel)
			m := sp.FeatureModel()
			s, err := configurator.NewFeatureSession(ctx, sp, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Kernel Arch Linux Bare MMU NOMMU Debug
			steps := []struct {
				decide string
				want   string
			}{
				{"", "forced_on forced_on free free free free free"},
				{"+Linux", "forced_on forced_on select forced_off forced_on forced_off free"},
				{"-Debug", "forced_on forced_on select forced_off forced_on forced_off deselect"},
			}
			for _, st := range steps {
				if st.decide != "" {
					if err := s.Decide(ctx, decisions(t, m, st.decide)[0]); err != nil {
						t.Fatal(err)
					}
				}
				if got := states(s.Domains()); got != st.want {
					t.Errorf("after %q: %s, want %s", st.decide, got, st.want)
				}
			}
			nommu, _ := m.ID("NOMMU")
			err = s.Decide(ctx, configurator.Decision{Feature: nommu, Select: true})
			var ex *configurator.Excluded
			if !errors.As(err, &ex) || !errors.Is(err, configurator.ErrExcluded) {
				t.Fatalf("selecting NOMMU under +Linux: %v, want an *Excluded", err)
			}
			want := `cannot select "NOMMU": the decisions force it the other way (+Linux): constraint at 14:2: Linux => MMU; constraint at 15:2: MMU => !NOMMU`
			if err.Error() != want {
				t.Errorf("the refusal says\n%s\nwant\n%s", err, want)
			}
			if err := s.Decide(ctx, decisions(t, m, "-Debug")[0]); !errors.Is(err, configurator.ErrDecided) {
				t.Errorf("deciding Debug twice: %v, want ErrDecided", err)
			}
			if got := configurator.FormatDecisions(m, s.Decisions()); got != "+Linux, -Debug" {
				t.Errorf("the refusals changed the decisions: %s", got)
			}
			linux, _ := m.ID("Linux")
			if err := s.Undo(ctx, linux); err != nil {
				t.Fatal(err)
			}
			if got, want := states(s.Domains()), "forced_on forced_on free free free free deselect"; got != want {
				t.Errorf("after undoing +Linux: %s, want %s", got, want)
			}
			if err := s.Undo(ctx, linux); !errors.Is(err, configurator.ErrUndecided) {
				t.Errorf("undoing +Linux twice: %v, want ErrUndecided", err)
			}
		})
	}
}

// Why? lists every minimal reason, each with the chain of the model's
// parts that carries it, in the model's words; a feature the model alone
// forces says so; make room undoes the fewest decisions.
func TestFeatureExplain(t *testing.T) {
	ctx := context.Background()
	for _, b := range modelCompilers {
		t.Run(b.Name(), func(t *testing.T) {
			sp := featureSpace(t, b, kernel)
			m := sp.FeatureModel()
			s, err := configurator.NewFeatureSession(ctx, sp, decisions(t, m, "+Linux,+MMU"))
			if err != nil {
				t.Fatal(err)
			}
			nommu, _ := m.ID("NOMMU")
			e, err := s.Explain(ctx, nommu)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range e.Reasons {
				line := configurator.FormatDecisions(m, r.Decisions) + ":"
				for _, p := range r.Proof {
					line += " " + p.Text(m) + "."
				}
				got = append(got, line)
			}
			want := []string{
				`+Linux: constraint at 14:2: Linux => MMU: so "MMU" is selected. constraint at 15:2: MMU => !NOMMU: violated.`,
				`+MMU: constraint at 15:2: MMU => !NOMMU: violated.`,
			}
			if !slices.Equal(got, want) || e.More || e.Core || e.State != configurator.ForcedOff {
				t.Errorf("why NOMMU is forced off:\n%s\nmore %v, core %v, %v; want\n%s", strings.Join(got, "\n"), e.More, e.Core, e.State, strings.Join(want, "\n"))
			}
			if got := configurator.FormatDecisions(m, e.Room); got != "+Linux, +MMU" {
				t.Errorf("make room for NOMMU: %s, want both decisions", got)
			}
			room, err := s.MakeRoom(ctx, nommu)
			if err != nil || !slices.Equal(room, e.Room) {
				t.Errorf("MakeRoom = %v, %v; want %v", room, err, e.Room)
			}
			kernelF, _ := m.ID("Kernel")
			e, err = s.Explain(ctx, kernelF)
			if err != nil || !e.Core || len(e.Reasons) != 1 || len(e.Reasons[0].Decisions) != 0 || e.Room != nil {
				t.Errorf("why the root is selected: %+v, %v; want the model alone", e, err)
			} else if want := `"Kernel" is the root: it is always selected: violated`; e.Reasons[0].Proof[0].Text(m) != want {
				t.Errorf("the root's proof: %q, want %q", e.Reasons[0].Proof[0].Text(m), want)
			}
			if _, err := s.MakeRoom(ctx, kernelF); !errors.Is(err, configurator.ErrNoSolution) {
				t.Errorf("make room to deselect the root: %v, want ErrNoSolution", err)
			}
			debug, _ := m.ID("Debug")
			if _, err := s.Explain(ctx, debug); !errors.Is(err, configurator.ErrNotForced) {
				t.Errorf("why Debug (free): %v, want ErrNotForced", err)
			}
		})
	}
}

// Decisions no configuration keeps are refused with a minimal subset of
// them and the parts of the model that refute it; a model with no
// configuration at all says so with the parts that conflict.
func TestFeatureConflicts(t *testing.T) {
	ctx := context.Background()
	for _, b := range modelCompilers {
		t.Run(b.Name(), func(t *testing.T) {
			sp := featureSpace(t, b, kernel)
			m := sp.FeatureModel()
			_, err := configurator.NewFeatureSession(ctx, sp, decisions(t, m, "-Debug,+Linux,+NOMMU"))
			var c *configurator.Conflict
			if !errors.As(err, &c) || !errors.Is(err, configurator.ErrNoSolution) {
				t.Fatalf("conflicting decisions: %v, want a *Conflict", err)
			}
			want := "no configuration keeps +Linux, +NOMMU: constraint at 14:2: Linux => MMU; constraint at 15:2: MMU => !NOMMU"
			if err.Error() != want {
				t.Errorf("the conflict says\n%s\nwant\n%s", err, want)
			}
			dead := featureSpace(t, b, kernel+"\tDebug & !Debug\n")
			_, err = configurator.NewFeatureSession(ctx, dead, nil)
			want = "Kernel has no configuration: constraint at 16:2: Debug & !Debug"
			if !errors.As(err, &c) || err.Error() != want || len(c.Decisions) != 0 {
				t.Errorf("a model without configurations: %v, want %q", err, want)
			}
		})
	}
}

// Complete returns a configuration keeping the decisions; decisions are
// parsed by name, and bad names refused by name.
func TestFeatureCompleteAndParse(t *testing.T) {
	ctx := context.Background()
	sp := featureSpace(t, modelCompilers[0], kernel)
	m := sp.FeatureModel()
	s, err := configurator.NewFeatureSession(ctx, sp, decisions(t, m, "+Bare"))
	if err != nil {
		t.Fatal(err)
	}
	config, err := s.Complete(ctx, rand.New(rand.NewPCG(1, 1)))
	bare, _ := m.ID("Bare")
	if err != nil || !m.Valid(config) || !config[bare] {
		t.Errorf("Complete = %v, %v; want a configuration with Bare", config, err)
	}
	if counts, err := s.Marginals(ctx); counts != nil || err != nil {
		t.Errorf("Marginals on a space that counts none: %v, %v; want nil, nil", counts, err)
	}
	if _, err := configurator.ParseDecisions(m, []string{"Linux", "Nope"}, nil); !errors.Is(err, configurator.ErrUnknownFeature) || !strings.Contains(err.Error(), `"Nope"`) {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := configurator.ParseDecisions(m, []string{"Linux"}, []string{"Linux"}); !errors.Is(err, configurator.ErrDecidedTwice) {
		t.Errorf("a name twice: %v", err)
	}
	if _, err := configurator.NewFeatureSession(ctx, sp, []configurator.Decision{{Feature: 99}}); !errors.Is(err, configurator.ErrUnknownFeature) {
		t.Errorf("a feature out of range: %v", err)
	}
}

// tooLargeToSample is a space whose sampler refuses it, as the BDD
// backend's does a diagram too large for its exact counts.
type tooLargeToSample struct{ configurator.Space }

func (tooLargeToSample) SampleConfiguration(context.Context, []configurator.Decision, *rand.Rand) ([]bool, error) {
	return nil, fmt.Errorf("sample: %w", configurator.ErrTooLarge)
}

// Complete gives a configuration all the same when the sampler refuses a
// space too large to draw from uniformly; Finish(Uniform) says so.
func TestCompleteWhenTheSamplerRefuses(t *testing.T) {
	ctx := context.Background()
	sp := tooLargeToSample{featureSpace(t, modelCompilers[0], kernel)}
	m := sp.FeatureModel()
	s, err := configurator.NewFeatureSession(ctx, sp, decisions(t, m, "+Bare"))
	if err != nil {
		t.Fatal(err)
	}
	bare, _ := m.ID("Bare")
	if config, err := s.Complete(ctx, rand.New(rand.NewPCG(1, 1))); err != nil || !m.Valid(config) || !config[bare] {
		t.Errorf("Complete = %v, %v; want a configuration with Bare", config, err)
	}
	if _, err := s.Finish(ctx, configurator.Uniform, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, configurator.ErrTooLarge) {
		t.Errorf("Finish(Uniform) = %v, want ErrTooLarge", err)
	}
}

// An explanation whose fix undoes sixty of a hundred and twenty decisions
// (each of sixty pairs of selections forces T off alone) answers in
// seconds, not in the whole of its deadline: the fewest decisions to undo
// are one of each pair, found exact.
func TestFeatureExplainManyReasons(t *testing.T) {
	// pairs pairs of decisions, each pair forcing T off: a fewest undoing
	// takes one of every pair. A search of every subset by size never
	// ends within the deadline; a bounded one answers exactly, at once.
	pairs := 60
	if testing.Short() {
		pairs = 24
	}
	var src strings.Builder
	src.WriteString("features\n\tRoot\n\t\toptional\n\t\t\tT\n")
	for i := range pairs {
		fmt.Fprintf(&src, "\t\t\tA%d\n\t\t\tB%d\n", i, i)
	}
	src.WriteString("constraints\n")
	var sel []string
	for i := range pairs {
		fmt.Fprintf(&src, "\tA%d & B%d => !T\n", i, i)
		sel = append(sel, fmt.Sprintf("+A%d", i), fmt.Sprintf("+B%d", i))
	}
	sp := featureSpace(t, sat.New(sat.Options{}), src.String())
	m := sp.FeatureModel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := configurator.NewFeatureSession(ctx, sp, decisions(t, m, strings.Join(sel, ",")))
	if err != nil {
		t.Fatal(err)
	}
	target, _ := m.ID("T")
	e, err := s.Explain(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Room) != pairs || e.RoomAtLeast != 0 || !e.More {
		t.Fatalf("make room: %d decisions, at least %d, more %v; want the %d, exact, and more reasons than listed", len(e.Room), e.RoomAtLeast, e.More, pairs)
	}
	for i, d := range e.Room {
		if name := m.Features[d.Feature].Name; name != fmt.Sprintf("A%d", i) {
			t.Fatalf("make room: undo %s at %d, want A%d: the earliest of each pair", name, i, i)
		}
	}
}
