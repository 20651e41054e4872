// Package modelfile reads a feature model in any format the project reads
// (package uvl, package dimacs, package featureide), telling the format from the file's name or
// its content when it is not given, so that the command line and the
// server read models alike.
package modelfile

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/dimacs"
	"github.com/nqueens/configurator/configurator/feature/featureide"
	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// formats names the formats for messages.
const formats = "uvl, dimacs, featureide or sxfm"

// ParseFormat parses a format's name: uvl, dimacs ("cnf" is dimacs too),
// featureide or sxfm ("splot" too); "" is no format (Detect decides).
func ParseFormat(s string) (feature.Format, error) {
	switch strings.ToLower(s) {
	case "":
		return "", nil
	case "uvl":
		return feature.UVL, nil
	case "dimacs", "cnf":
		return feature.DIMACS, nil
	case "featureide":
		return feature.FeatureIDE, nil
	case "sxfm", "splot":
		return feature.SXFM, nil
	}
	return "", fmt.Errorf("format %q: want %s", s, formats)
}

// Detect tells the format of a model from its file's name (.uvl; .dimacs,
// .cnf) or else from its content: XML is FeatureIDE's unless its root
// element is SPLOT's <feature_model>; a DIMACS file's first line that is
// neither blank nor a comment is its header "p cnf", and its comments
// start with "c"; anything else is taken for UVL. A byte order mark is
// passed over.
func Detect(name string, src []byte) feature.Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".uvl":
		return feature.UVL
	case ".dimacs", ".cnf":
		return feature.DIMACS
	}
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if x := bytes.TrimLeft(src, " \t\r\n"); len(x) > 0 && x[0] == '<' {
		if rootElement(x) == "feature_model" {
			return feature.SXFM
		}
		return feature.FeatureIDE
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

// rootElement returns the name of the first element of the XML in src,
// past its declaration, comments and other markup; "" when there is none.
func rootElement(src []byte) string {
	for {
		i := bytes.IndexByte(src, '<')
		if i < 0 || i+1 == len(src) {
			return ""
		}
		src = src[i+1:]
		end := ">"
		switch {
		case bytes.HasPrefix(src, []byte("!--")):
			end = "-->"
		case src[0] == '?':
			end = "?>"
		case src[0] != '!':
			n := bytes.IndexAny(src, " \t\r\n/>")
			if n < 0 {
				n = len(src)
			}
			return string(src[:n])
		}
		j := bytes.Index(src, []byte(end))
		if j < 0 {
			return ""
		}
		src = src[j+len(end):]
	}
}

// Parse reads a model from src in format f (Detect's guess, from name,
// when f is ""). A UVL model read this way cannot import others: Load
// reads those.
func Parse(name string, src []byte, f feature.Format) (*feature.Model, error) {
	return ParseMax(name, src, f, math.MaxInt)
}

// ParseMax reads a model as Parse does, refusing with feature.ErrLimit a
// model of more than maxFeatures features: a CNF file at its header,
// before anything is built from it (a header of a few bytes may declare a
// million variables); a model in another format, where every feature takes
// some bytes of the text, once read, at the first feature past the bound.
func ParseMax(name string, src []byte, f feature.Format, maxFeatures int) (*feature.Model, error) {
	if f == "" {
		f = Detect(name, src)
	}
	var m *feature.Model
	var err error
	switch f {
	case feature.UVL:
		m, err = uvl.Parse(src)
	case feature.DIMACS:
		return dimacs.ParseMax(src, maxFeatures)
	case feature.FeatureIDE, feature.SXFM:
		m, err = featureide.Parse(src)
	default:
		return nil, fmt.Errorf("format %q: want %s", f, formats)
	}
	if err == nil && len(m.Features) > maxFeatures {
		first := m.Features[maxFeatures]
		return nil, &feature.Error{Pos: first.Pos, Kind: feature.ErrLimit, Quote: feature.LineAt(src, offsetOf(src, first.Pos.Line)),
			Msg: fmt.Sprintf("expected at most %d features, found more: %s is feature %d", maxFeatures, first.Name, maxFeatures+1)}
	}
	return m, err
}

// offsetOf returns where line begins in src.
func offsetOf(src []byte, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexAny(src[off:], "\r\n")
		if i < 0 {
			return len(src)
		}
		off += i + 1
		if src[off-1] == '\r' && off < len(src) && src[off] == '\n' {
			off++
		}
	}
	return off
}

// Write writes m in format f: UVL (uvl.Write), DIMACS (dimacs.Write: its
// CNF, with a `c <index> <name>` line for each feature) or FeatureIDE XML
// (featureide.Write). SXFM is read, not written.
func Write(w io.Writer, m *feature.Model, f feature.Format) error {
	switch f {
	case feature.UVL:
		return uvl.Write(w, m)
	case feature.DIMACS:
		return dimacs.Write(w, m)
	case feature.FeatureIDE:
		return featureide.Write(w, m)
	}
	return fmt.Errorf("format %q: want uvl, dimacs or featureide to write", f)
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
