// Package configfile reads and writes a configuration of a feature model
// in the files configurators exchange: FeatureIDE's configuration XML,
// Kconfig's .config lines, CSV and JSON. A file keeps the person's
// decisions (manual) apart from the values the decisions and the model
// force (automatic), so that reading it back gives the decisions, never
// the forced values as decisions of their own.
//
// Every reader refuses a file that does not read with a *feature.Error at
// its line and column, and names the features the model does not have in
// an *UnknownError; a reader never drops a decision.
package configfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// Format is a configuration file's format.
type Format string

// The formats.
const (
	// FeatureIDE is FeatureIDE's configuration XML: <configuration> of
	// <feature automatic="…" manual="…" name="…"/>.
	FeatureIDE Format = "featureide"
	// Kconfig is Linux's .config: CONFIG_X=y, # CONFIG_X is not set.
	Kconfig Format = "kconfig"
	// CSV is one row per feature: feature,manual,automatic.
	CSV Format = "csv"
	// JSON is {"model","select","deselect","forced_on","forced_off"}.
	JSON Format = "json"
)

// Formats are the formats, in the order the page offers them.
var Formats = []Format{FeatureIDE, Kconfig, CSV, JSON}

// ErrFormat: a format's name that is none of Formats.
var ErrFormat = errors.New("not a configuration format (want featureide, kconfig, csv or json)")

// ParseFormat returns the format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, string(f)) {
			return f, nil
		}
	}
	return "", fmt.Errorf("%q: %w", s, ErrFormat)
}

// Detect tells a configuration file's format from its content: XML, a
// JSON object, the CSV header, or else Kconfig lines.
func Detect(src []byte) Format {
	t := bytes.TrimSpace(bytes.TrimPrefix(src, []byte("\uFEFF")))
	switch {
	case bytes.HasPrefix(t, []byte("<")):
		return FeatureIDE
	case bytes.HasPrefix(t, []byte("{")):
		return JSON
	case len(t) >= len("feature,") && strings.EqualFold(string(t[:len("feature,")]), "feature,"):
		return CSV
	}
	return Kconfig
}

// MediaType is the format's media type, for a download.
func (f Format) MediaType() string {
	switch f {
	case FeatureIDE:
		return "application/xml; charset=utf-8"
	case CSV:
		return "text/csv; charset=utf-8"
	case JSON:
		return "application/json; charset=utf-8"
	}
	return "text/plain; charset=utf-8"
}

// Ext is the usual ending of a file of the format.
func (f Format) Ext() string {
	switch f {
	case FeatureIDE:
		return ".xml"
	case Kconfig:
		return ".config"
	}
	return "." + string(f)
}

// Value is a feature's value in a configuration.
type Value int8

const (
	// Undefined: no value (a feature nobody decided, free).
	Undefined Value = iota
	// Selected: the feature is in the configuration.
	Selected
	// Deselected: the feature is not.
	Deselected
)

// Configuration is a configuration as a file holds it: for every feature
// of its model, the person's value (Manual) and the forced one
// (Automatic); a feature has at most one of them defined.
type Configuration struct {
	Manual, Automatic []Value
}

// New is the configuration of decisions on m under the domains they have
// (nil: no forced values known).
func New(m *feature.Model, decisions []configurator.Decision, d *configurator.Domains) *Configuration {
	c := &Configuration{Manual: make([]Value, len(m.Features)), Automatic: make([]Value, len(m.Features))}
	for _, dc := range decisions {
		c.Manual[dc.Feature] = value(dc.Select)
	}
	if d != nil {
		for f, st := range d.States {
			switch st {
			case configurator.ForcedOn:
				c.Automatic[f] = Selected
			case configurator.ForcedOff:
				c.Automatic[f] = Deselected
			}
		}
	}
	return c
}

func value(selected bool) Value {
	if selected {
		return Selected
	}
	return Deselected
}

// Decisions are the manual values as decisions, in the model's order.
func (c *Configuration) Decisions() []configurator.Decision {
	var ds []configurator.Decision
	for f, v := range c.Manual {
		if v != Undefined {
			ds = append(ds, configurator.Decision{Feature: f, Select: v == Selected})
		}
	}
	return ds
}

// UnknownError is a file that names features its model does not have.
type UnknownError struct {
	// Names are the names, each once, in the order the file has them
	// (at most maxUnknown).
	Names []string
	// More counts the names beyond them.
	More int
}

// maxUnknown is how many unknown names an UnknownError lists.
const maxUnknown = 20

func (e *UnknownError) Error() string {
	quoted := make([]string, len(e.Names))
	for i, n := range e.Names {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	msg := "no such feature in the model: " + strings.Join(quoted, ", ")
	if e.More > 0 {
		msg += fmt.Sprintf(" and %d more", e.More)
	}
	return msg
}

// Unwrap makes an UnknownError a configurator.ErrUnknownFeature.
func (e *UnknownError) Unwrap() error { return configurator.ErrUnknownFeature }

// Write writes c, a configuration of m, in format f.
func Write(w io.Writer, m *feature.Model, c *Configuration, f Format) error {
	switch f {
	case FeatureIDE:
		return writeFeatureIDE(w, m, c)
	case Kconfig:
		return writeKconfig(w, m, c)
	case CSV:
		return writeCSV(w, m, c)
	case JSON:
		return writeJSON(w, m, c)
	}
	return fmt.Errorf("write %q: %w", f, ErrFormat)
}

// Read reads a configuration of m from src, a file in format f.
func Read(src []byte, m *feature.Model, f Format) (*Configuration, error) {
	r := &reader{m: m, src: src, c: New(m, nil, nil), seen: make(map[int]bool), unknownSeen: make(map[string]bool)}
	var err error
	switch f {
	case FeatureIDE:
		err = r.featureIDE()
	case Kconfig:
		err = r.kconfig()
	case CSV:
		err = r.csv()
	case JSON:
		err = r.json()
	default:
		return nil, fmt.Errorf("read %q: %w", f, ErrFormat)
	}
	if err != nil {
		return nil, err
	}
	if r.unknown != nil {
		return nil, r.unknown
	}
	return r.c, nil
}

// reader is the state of a Read: the configuration so far, the features
// already given a value, the unknown names met.
type reader struct {
	m           *feature.Model
	src         []byte
	c           *Configuration
	seen        map[int]bool
	unknown     *UnknownError
	unknownSeen map[string]bool
}

// set gives the feature named name its manual (or automatic) value, read
// at byte offset off: an unknown name is kept for the UnknownError, a
// feature given a value twice is an error.
func (r *reader) set(name string, manual, automatic Value, off int) error {
	f, ok := r.m.ID(name)
	if !ok {
		if !r.unknownSeen[name] {
			r.unknownSeen[name] = true
			if r.unknown == nil {
				r.unknown = &UnknownError{}
			}
			if len(r.unknown.Names) < maxUnknown {
				r.unknown.Names = append(r.unknown.Names, name)
			} else {
				r.unknown.More++
			}
		}
		return nil
	}
	if r.seen[f] {
		return r.fail(feature.ErrInvalid, off, "expected each feature once, found %q again", name)
	}
	r.seen[f] = true
	r.c.Manual[f], r.c.Automatic[f] = manual, automatic
	return nil
}

// fail is the error at byte offset off of the file.
func (r *reader) fail(kind error, off int, format string, args ...any) *feature.Error {
	return feature.ErrorAt(r.src, off, kind, format, args...)
}

// Fits reports whether a configuration of m can be written in format f:
// any can, but Kconfig needs feature names that are Kconfig symbols.
func (f Format) Fits(m *feature.Model) bool {
	return f != Kconfig || !slices.ContainsFunc(m.Features, func(ft feature.Feature) bool { return !isSymbol(ft.Name) })
}

// isSymbol reports whether name is a Kconfig symbol's: letters, digits
// and _, at least one.
func isSymbol(name string) bool {
	return name != "" && !strings.ContainsFunc(name, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')
	})
}
