// Package examples holds the feature models bundled with the configurator,
// written for it: a car (a product of about thirty features with
// cross-tree constraints, in UVL), a computer (alternative and cardinality
// groups, in UVL) and a smart home (DIMACS CNF with FeatureIDE's
// "c <index> <name>" lines). The command line and the web server offer
// them by name, so that a person can try the configurator without a model
// of their own.
package examples

import (
	"embed"
	"fmt"
	"path"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

//go:embed *.uvl *.dimacs
var files embed.FS

// Example is one bundled model.
type Example struct {
	// Name is the file's name without its extension: "car".
	Name string
	// File is the file's name: "car.uvl".
	File   string
	Format feature.Format
	// Source is the file's content; it must not be changed.
	Source []byte
}

// Model parses the example. A model without a name of its own (a CNF
// file's) is named after the example.
func (e Example) Model() (*feature.Model, error) {
	m, err := modelfile.Parse(e.File, e.Source, e.Format)
	if err != nil {
		return nil, fmt.Errorf("example %s: %w", e.File, err)
	}
	if m.Name == "" {
		m.Name = e.Name
	}
	return m, nil
}

// All returns the bundled examples, by file name.
func All() []Example {
	entries, err := files.ReadDir(".")
	if err != nil {
		panic(err) // the embedded directory is always there
	}
	out := make([]Example, 0, len(entries))
	for _, de := range entries {
		src, err := files.ReadFile(de.Name())
		if err != nil {
			panic(err)
		}
		out = append(out, Example{
			Name:   strings.TrimSuffix(de.Name(), path.Ext(de.Name())),
			File:   de.Name(),
			Format: modelfile.Detect(de.Name(), src),
			Source: src,
		})
	}
	return out
}

// Lookup returns the example of the given name ("car") or file name
// ("car.uvl").
func Lookup(name string) (Example, bool) {
	for _, e := range All() {
		if e.Name == name || e.File == name {
			return e, true
		}
	}
	return Example{}, false
}
