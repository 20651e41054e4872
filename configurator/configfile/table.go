package configfile

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/nqueens/configurator/configurator/feature"
)

// csvHeader is a CSV file's first row.
var csvHeader = []string{"feature", "manual", "automatic"}

func writeCSV(w io.Writer, m *feature.Model, c *Configuration) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	word := func(v Value) string {
		if v == Undefined {
			return ""
		}
		return ideValues[v]
	}
	for f, ft := range m.Features {
		if err := cw.Write([]string{ft.Name, word(c.Manual[f]), word(c.Automatic[f])}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// lineOffset is the byte offset where line (from 1) of src begins.
func lineOffset(src []byte, line int) int {
	off := 0
	for l := 1; l < line && off < len(src); l++ {
		i := bytes.IndexByte(src[off:], '\n')
		if i < 0 {
			return len(src)
		}
		off += i + 1
	}
	return off
}

// failLine is fail at a line and column, for a reader that counts them.
func (r *reader) failLine(kind error, line, col int, format string, args ...any) *feature.Error {
	return &feature.Error{Pos: feature.Pos{Line: line, Column: col}, Msg: fmt.Sprintf(format, args...), Quote: feature.LineAt(r.src, lineOffset(r.src, line)), Kind: kind}
}

func (r *reader) csv() error {
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(r.src, []byte("\uFEFF"))))
	cr.FieldsPerRecord = len(csvHeader)
	cr.ReuseRecord = true
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if err == io.EOF {
			if row == 0 {
				return r.fail(feature.ErrSyntax, 0, "expected the header %s, found an empty file", strings.Join(csvHeader, ","))
			}
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return r.failLine(feature.ErrSyntax, pe.Line, pe.Column, "expected %d comma-separated fields (feature,manual,automatic), found an error: %v", len(csvHeader), pe.Err)
			}
			return err
		}
		line, _ := cr.FieldPos(0)
		if row == 0 {
			for i, h := range csvHeader {
				if !strings.EqualFold(strings.TrimSpace(rec[i]), h) {
					return r.failLine(feature.ErrSyntax, line, 1, "expected the header %s, found %s", strings.Join(csvHeader, ","), strings.Join(rec, ","))
				}
			}
			continue
		}
		var vals [2]Value
		for i := range vals {
			word := strings.TrimSpace(rec[i+1])
			v, ok := ideValue(word)
			if !ok {
				l, col := cr.FieldPos(i + 1)
				return r.failLine(feature.ErrSyntax, l, col, "expected %s to be selected, unselected or empty, found %q", csvHeader[i+1], word)
			}
			vals[i] = v
		}
		if err := r.set(rec[0], vals[0], vals[1], lineOffset(r.src, line)); err != nil {
			return err
		}
	}
}

// jsonFile is the JSON format: the decisions, and the values they force.
type jsonFile struct {
	Model     string   `json:"model"`
	Select    []string `json:"select"`
	Deselect  []string `json:"deselect"`
	ForcedOn  []string `json:"forced_on"`
	ForcedOff []string `json:"forced_off"`
}

func writeJSON(w io.Writer, m *feature.Model, c *Configuration) error {
	out := jsonFile{Model: m.Name, Select: []string{}, Deselect: []string{}, ForcedOn: []string{}, ForcedOff: []string{}}
	for f, ft := range m.Features {
		switch {
		case c.Manual[f] == Selected:
			out.Select = append(out.Select, ft.Name)
		case c.Manual[f] == Deselected:
			out.Deselect = append(out.Deselect, ft.Name)
		case c.Automatic[f] == Selected:
			out.ForcedOn = append(out.ForcedOn, ft.Name)
		case c.Automatic[f] == Deselected:
			out.ForcedOff = append(out.ForcedOff, ft.Name)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func (r *reader) json() error {
	var in jsonFile
	d := json.NewDecoder(bytes.NewReader(r.src))
	d.DisallowUnknownFields()
	if err := d.Decode(&in); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		off := int(d.InputOffset())
		switch {
		case errors.As(err, &se):
			off = int(se.Offset)
		case errors.As(err, &te):
			off = int(te.Offset)
		}
		return r.fail(feature.ErrSyntax, off, "expected a JSON object of select, deselect, forced_on and forced_off (lists of names), found an error: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := d.Token(); err != io.EOF {
		return r.fail(feature.ErrSyntax, int(d.InputOffset()), "expected one JSON object, found more")
	}
	for _, list := range []struct {
		names             []string
		manual, automatic Value
	}{{in.Select, Selected, Undefined}, {in.Deselect, Deselected, Undefined}, {in.ForcedOn, Undefined, Selected}, {in.ForcedOff, Undefined, Deselected}} {
		for _, name := range list.names {
			off := bytes.Index(r.src, []byte(fmt.Sprintf("%q", name)))
			if err := r.set(name, list.manual, list.automatic, max(off, 0)); err != nil {
				return err
			}
		}
	}
	return nil
}
