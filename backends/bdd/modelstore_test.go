package bdd

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nqueens/configurator/backends/bdd/robdd"
	"github.com/nqueens/configurator/backends/bdd/varorder"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// reorderedModel returns a model whose compile sifts its order (a UVL
// model whose constraints tie features far apart in the tree), so that its
// file carries an order.
func reorderedModel(t *testing.T) *feature.Model {
	t.Helper()
	src := `features
	Root
		optional
			A
				optional
					A1
					A2
					A3
			B
				optional
					B1
					B2
					B3
constraints
	A1 <=> B1
	A2 <=> B2
	A3 <=> B3
`
	m, err := uvl.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// saveSifted compiles model from the model's order with sifting from the
// smallest diagrams on and saves it in dir as CompileModel would.
func saveSifted(t *testing.T, dir string, model *feature.Model) *ModelSpace {
	t.Helper()
	sp := compileWith(t, model, OrderModel, compileConfigs["sifting"])
	Options{Dir: dir}.store().saveModel(model, OrderModel, sp.m, sp.root)
	return sp
}

// compileModelIn compiles model from the model's order with a backend
// keeping its spaces in dir, and returns the space and what the backend
// logged.
func compileModelIn(t *testing.T, dir string, model *feature.Model) (*ModelSpace, string) {
	t.Helper()
	b, log := storeBackend(dir)
	b.opts.ModelOrder = OrderModel
	sp, err := b.CompileModel(t.Context(), model)
	if err != nil {
		t.Fatal(err)
	}
	return sp.(*ModelSpace), log.String()
}

func TestModelSpaceFileRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	models := []*feature.Model{reorderedModel(t)}
	for trial := range 6 {
		models = append(models, randomModel(t, rng, trial, 10))
	}
	for i, model := range models {
		dir := t.TempDir()
		compiled := saveSifted(t, dir, model)
		loaded, log := compileModelIn(t, dir, model)
		path := Options{Dir: dir}.store().modelPath(model, OrderModel)
		if loaded.Source() != path || !strings.Contains(log, "compiled model loaded from disk") {
			t.Fatalf("model %d: the second compile: source %q, log %q; want it loaded from %s", i, loaded.Source(), log, path)
		}
		if !slices.Equal(loaded.m.Order(), compiled.m.Order()) || loaded.Nodes() != compiled.Nodes() {
			t.Errorf("model %d: loaded in order %v with %d nodes, compiled in %v with %d", i,
				loaded.m.Order(), loaded.Nodes(), compiled.m.Order(), compiled.Nodes())
		}
		checkSpace(t, rng, "loaded", loaded, bruteForce(model))
	}
	// The model with constraints across the tree is sifted, so its file
	// carries the order the compile ended with.
	if sp := saveSifted(t, t.TempDir(), models[0]); slices.Equal(sp.m.Order(), varorder.Identity(sp.vars)) {
		t.Errorf("the compile left the order %v unsifted", sp.m.Order())
	}
}

func TestDamagedModelSpaceFilesAreRefusedAndRecompiled(t *testing.T) {
	model := reorderedModel(t)
	dir := t.TempDir()
	good := saveSifted(t, dir, model)
	path := Options{Dir: dir}.store().modelPath(model, OrderModel)
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	k := int(file[60])
	diagram := modelSpaceFixed + k + 4
	flip := func(off int) []byte {
		b := slices.Clone(file)
		b[off] ^= 0x10
		return b
	}
	set := func(off int, v byte) []byte {
		b := slices.Clone(file)
		b[off] = v
		return resealed(b)
	}
	otherModel := reorderedModel(t)
	otherModel.Constraints = otherModel.Constraints[1:]
	cases := []struct {
		name  string
		file  []byte
		model *feature.Model
		want  error
	}{
		{"empty", nil, model, io.ErrUnexpectedEOF},
		{"cut in the header", file[:30], model, io.ErrUnexpectedEOF},
		{"cut in the nodes", file[:len(file)-20], model, io.ErrUnexpectedEOF},
		{"byte flipped in the magic", flip(2), model, errSpaceFormat},
		{"byte flipped in the digest", flip(20), model, robdd.ErrChecksum},
		{"byte flipped in the order", flip(diagram + 33), model, robdd.ErrFormat},
		{"byte flipped in the nodes", flip(len(file) - 10), model, robdd.ErrFormat},
		{"another version", set(8, modelSpaceVersion+1), model, errSpaceVersion},
		{"another heuristic", set(12, byte(OrderForce)), model, errWrongModel},
		{"another node count", set(52, byte(good.Nodes()+1)), model, errSpaceFormat},
		{"another count", set(modelSpaceFixed+k-1, file[modelSpaceFixed+k-1]+1), model, errSpaceFormat},
		{"bytes after it", append(slices.Clone(file), 0), model, errSpaceFormat},
		{"another model", file, otherModel, errWrongModel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := readModelSpace(bytes.NewReader(c.file), c.model, OrderModel, len(modelReduction(c.model).vars), 0); !errors.Is(err, c.want) {
				t.Fatalf("readModelSpace: %v; want an error wrapping %q", err, c.want)
			}
			dir := t.TempDir()
			p := Options{Dir: dir}.store().modelPath(c.model, OrderModel)
			if err := os.WriteFile(p, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			sp, log := compileModelIn(t, dir, c.model)
			if sp.Source() != "" || !strings.Contains(log, "compiled model refused") || !strings.Contains(log, "compiled model saved to disk") {
				t.Errorf("the log says %q; want the file refused and the space saved afresh", log)
			}
			d, err := sp.Domains(t.Context(), nil)
			if want := int64(len(bruteForce(c.model))); err != nil || d.Configurations.Int64() != want {
				t.Errorf("the recompiled space counts %v, %v; want %d", d, err, want)
			}
		})
	}
}

// TestModelSpaceFileOfABoardIsRefused: a board's space file under a
// model's name is refused by its magic.
func TestModelSpaceFileOfABoardIsRefused(t *testing.T) {
	board := spaceBytes(t, compileSpace(t, 6, configurator.RowMajor, Direct))
	_, _, err := readModelSpace(bytes.NewReader(board), reorderedModel(t), OrderModel, len(modelReduction(reorderedModel(t)).vars), 0)
	if !errors.Is(err, errSpaceFormat) {
		t.Errorf("readModelSpace of a board's file: %v", err)
	}
}
