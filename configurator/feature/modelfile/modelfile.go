// Package modelfile reads a feature model in any format the project reads
// (package uvl, package dimacs), telling the format from the file's name or
// its content when it is not given, so that the command line and the
// server read models alike.
package modelfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// ParseFormat parses a format's name: uvl or dimacs ("cnf" is dimacs too);
// "" is no format (Detect decides).
func ParseFormat(s string) (feature.Format, error) {
	switch strings.ToLower(s) {
	case "":
		return "", nil
	case "uvl":
		return feature.UVL, nil
	case "dimacs", "cnf":
		return feature.DIMACS, nil
	}
	return "", fmt.Errorf("format %q: want uvl or dimacs", s)
}

// Detect tells the format of a model from its file's name (.uvl; .dimacs,
// .cnf) or else from its content: a DIMACS file's first line that is
// neither blank nor a comment is its header "p cnf", and its comments
// start with "c"; anything else is taken for UVL.
func Detect(name string, src []byte) feature.Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".uvl":
		return feature.UVL
	case ".dimacs", ".cnf":
		return feature.DIMACS
	}
	for line := range bytes.Lines(src) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte("p ")) || bytes.HasPrefix(line, []byte("p\t")):
			return feature.DIMACS
		case line[0] == 'c' && (len(line) == 1 || line[1] == ' ' || line[1] == '\t'):
			// A DIMACS comment; UVL has none that starts so.
		default:
			return feature.UVL
		}
	}
	return feature.UVL
}

// Parse reads a model from src in format f (Detect's guess, from name,
// when f is ""). A UVL model read this way cannot import others: Load
// reads those.
func Parse(name string, src []byte, f feature.Format) (*feature.Model, error) {
	if f == "" {
		f = Detect(name, src)
	}
	switch f {
	case feature.UVL:
		return uvl.Parse(src)
	case feature.DIMACS:
		return dimacs.Parse(src)
	}
	return nil, fmt.Errorf("format %q: want uvl or dimacs", f)
}

// Load reads the model in the file at path in format f (Detect's guess
// when f is ""), a UVL model with the models it imports from the files
// beside it. A model without a name of its own (a CNF file's) is named
// after its file, without the extension.
func Load(path string, f feature.Format) (*feature.Model, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if f == "" {
		f = Detect(path, src)
	}
	var m *feature.Model
	if f == feature.UVL {
		m, err = uvl.Load(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	} else {
		m, err = Parse(path, src, f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return m, nil
}
