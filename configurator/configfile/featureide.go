package configfile

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// FeatureIDE's words for a value.
var ideValues = [...]string{Undefined: "undefined", Selected: "selected", Deselected: "unselected"}

// maxDepth is the deepest nesting a FeatureIDE configuration may have; its
// own is two levels.
const maxDepth = 16

func writeFeatureIDE(w io.Writer, m *feature.Model, c *Configuration) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<configuration>\n")
	for f, ft := range m.Features {
		bw.WriteString("\t<feature automatic=\"" + ideValues[c.Automatic[f]] + "\" manual=\"" + ideValues[c.Manual[f]] + "\" name=\"")
		if err := xml.EscapeText(bw, []byte(ft.Name)); err != nil {
			return err
		}
		bw.WriteString("\"/>\n")
	}
	bw.WriteString("</configuration>\n")
	return bw.Flush()
}

// ideValue reads a value attribute.
func ideValue(s string) (Value, bool) {
	if v := slices.Index(ideValues[:], s); v >= 0 {
		return Value(v), true
	}
	return Undefined, s == ""
}

func (r *reader) featureIDE() error {
	src := r.src
	skip := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		skip = len("\uFEFF")
	}
	d := xml.NewDecoder(bytes.NewReader(src[skip:]))
	depth, root := 0, false
	for {
		start := skip + int(d.InputOffset())
		t, err := d.Token()
		if err == io.EOF {
			if !root {
				return r.fail(feature.ErrSyntax, len(src), "expected <configuration>, found the end of the file")
			}
			return nil
		}
		if err != nil {
			var se *xml.SyntaxError
			msg := strings.TrimPrefix(err.Error(), "xml: ")
			if errors.As(err, &se) {
				msg = se.Msg
			}
			return r.fail(feature.ErrSyntax, skip+int(d.InputOffset()), "expected well-formed XML, found an error: %s", msg)
		}
		switch t := t.(type) {
		case xml.Directive:
			return r.fail(feature.ErrUnsupported, start, "expected no document type declaration (entities are not defined here), found <!%s", append(strings.Fields(string(t)), "")[0])
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return r.fail(feature.ErrSyntax, start, "expected elements, found text")
			}
		case xml.EndElement:
			depth--
		case xml.StartElement:
			if depth++; depth > maxDepth {
				return r.fail(feature.ErrLimit, start, "expected at most %d levels of nesting, found more", maxDepth)
			}
			switch {
			case depth == 1 && t.Name.Local != "configuration":
				return r.fail(feature.ErrSyntax, start, "expected <configuration>, found <%s>", t.Name.Local)
			case depth == 1 && root:
				return r.fail(feature.ErrSyntax, start, "expected one root element, found a second")
			case depth == 1:
				root = true
			case depth == 2 && t.Name.Local == "feature":
				if err := r.ideFeature(t, start); err != nil {
					return err
				}
			}
		}
	}
}

// ideFeature reads one <feature>.
func (r *reader) ideFeature(t xml.StartElement, off int) error {
	var name string
	hasName := false
	var manual, automatic Value
	for _, a := range t.Attr {
		switch a.Name.Local {
		case "name":
			name, hasName = a.Value, true
		case "manual", "automatic":
			v, ok := ideValue(a.Value)
			if !ok {
				return r.fail(feature.ErrSyntax, off, "expected %s=\"selected\", \"unselected\" or \"undefined\", found %q", a.Name.Local, a.Value)
			}
			if a.Name.Local == "manual" {
				manual = v
			} else {
				automatic = v
			}
		}
	}
	if !hasName {
		return r.fail(feature.ErrSyntax, off, "expected a name attribute on <feature>, found none")
	}
	return r.set(name, manual, automatic, off)
}
