package configfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
)

// A Kconfig file has no place for the difference between a decision and a
// forced value: the writer puts the decisions first, then the forced
// values under a comment line that starts with forcedMark, and the reader
// reads the lines after that comment as forced. A .config written by
// Linux's tools has no such line: every value in it is a decision.

// forcedMark starts the comment line before the forced values.
const forcedMark = "# Forced by these decisions and the model"

// ErrNotKconfig: a model whose feature names are not Kconfig symbols.
var ErrNotKconfig = errors.New("the model's feature names are not Kconfig symbols (letters, digits and _)")

// kconfigName is the line's name of a feature: CONFIG_ and its name, but
// for a name that has the prefix already.
func kconfigName(name string) string {
	if strings.HasPrefix(name, "CONFIG_") {
		return name
	}
	return "CONFIG_" + name
}

func writeKconfig(w io.Writer, m *feature.Model, c *Configuration) error {
	for _, ft := range m.Features {
		if !isSymbol(ft.Name) {
			return fmt.Errorf("feature %q: %w", ft.Name, ErrNotKconfig)
		}
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s: a configuration written by the BDD/SAT configurator\n# Your decisions\n", strings.ReplaceAll(configurator.ModelName(m), "\n", " "))
	line := func(name string, v Value) {
		if v == Selected {
			fmt.Fprintf(bw, "%s=y\n", kconfigName(name))
		} else {
			fmt.Fprintf(bw, "# %s is not set\n", kconfigName(name))
		}
	}
	for f, ft := range m.Features {
		if c.Manual[f] != Undefined {
			line(ft.Name, c.Manual[f])
		}
	}
	bw.WriteString(forcedMark + "\n")
	for f, ft := range m.Features {
		if c.Manual[f] == Undefined && c.Automatic[f] != Undefined {
			line(ft.Name, c.Automatic[f])
		}
	}
	return bw.Flush()
}

// notSet is a line that deselects: # CONFIG_X is not set.
var notSet = regexp.MustCompile(`^#\s*(CONFIG_[A-Za-z0-9_]+) is not set\s*$`)

func (r *reader) kconfig() error {
	forced := false
	off := 0
	for line := range bytes.Lines(r.src) {
		text := strings.TrimRight(string(line), "\r\n")
		if off == 0 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		trimmed := strings.TrimSpace(text)
		switch {
		case trimmed == "":
		case strings.HasPrefix(trimmed, forcedMark):
			forced = true
		case notSet.MatchString(trimmed):
			if err := r.kconfigSet(notSet.FindStringSubmatch(trimmed)[1], Deselected, forced, off); err != nil {
				return err
			}
		case strings.HasPrefix(trimmed, "#"):
		default:
			name, val, ok := strings.Cut(trimmed, "=")
			if !ok || !strings.HasPrefix(name, "CONFIG_") || !isSymbol(name) {
				return r.fail(feature.ErrSyntax, off, "expected CONFIG_NAME=y, # CONFIG_NAME is not set or a comment, found %q", trimmed)
			}
			var v Value
			switch val {
			case "y", "m":
				v = Selected
			case "n":
				v = Deselected
			default:
				return r.fail(feature.ErrUnsupported, off+strings.Index(text, "=")+1, "expected the value y, m or n (a Boolean feature), found %q", val)
			}
			if err := r.kconfigSet(name, v, forced, off); err != nil {
				return err
			}
		}
		off += len(line)
	}
	return nil
}

// kconfigSet gives the feature of a CONFIG_ symbol its value: the feature
// named so, or without the prefix.
func (r *reader) kconfigSet(sym string, v Value, forced bool, off int) error {
	name := sym
	if _, ok := r.m.ID(name); !ok {
		name = strings.TrimPrefix(sym, "CONFIG_")
		if _, ok := r.m.ID(name); !ok {
			name = sym
		}
	}
	if forced {
		return r.set(name, Undefined, v, off)
	}
	return r.set(name, v, Undefined, off)
}
