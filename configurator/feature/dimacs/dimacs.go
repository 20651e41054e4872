// Package dimacs reads and writes CNF files in the DIMACS format, as
// feature.Model values whose features are the file's variables.
//
// A file is comment lines (c ...), one header line `p cnf V C`, and C
// clauses, each a list of non-zero literals ending in 0; a clause may span
// lines and a line may hold several. A line starting with % ends the
// clauses (the SATLIB convention). FeatureIDE's exports name the variables
// in comments `c <index> <name>`; a `$` after the index (`c 12$ _X7`) marks
// a variable a translation introduced (feature.Feature.Generated). A
// variable without a name is called x<index>. The header's counts are
// checked against what follows, and capped, so that a crafted header
// cannot make the reader allocate beyond the file's own size.
package dimacs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/nqueens/configurator/configurator/feature"
)

// MaxVariables is the most variables a file may declare.
const MaxVariables = 1 << 20

// MaxSize is the most bytes a file may hold.
const MaxSize = 16 << 20

type reader struct {
	src       []byte
	off       int
	line      int // of off
	lineStart int
	maxVars   int // the most variables a header may declare
}

// failAt stops reading with an error at byte offset off.
func (r *reader) failAt(kind error, off int, format string, args ...any) {
	feature.Bail(feature.ErrorAt(r.src, off, kind, format, args...))
}

// restOfLine returns the line from off on, and moves to the next line.
func (r *reader) restOfLine() string {
	start := r.off
	for r.off < len(r.src) && r.src[r.off] != '\n' && r.src[r.off] != '\r' {
		r.off++
	}
	s := string(r.src[start:r.off])
	r.newline()
	return s
}

// newline moves past the line break at off, if any.
func (r *reader) newline() {
	if r.off >= len(r.src) {
		return
	}
	if r.src[r.off] == '\r' && r.off+1 < len(r.src) && r.src[r.off+1] == '\n' {
		r.off++
	}
	r.off++
	r.line++
	r.lineStart = r.off
}

// lineBegins reports whether only blanks precede off on its line.
func (r *reader) lineBegins() bool {
	return len(bytes.TrimLeft(r.src[r.lineStart:r.off], " \t\v\f")) == 0
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' }

func isSpace(c byte) bool { return isBlank(c) || c == '\n' || c == '\r' }

// nameLine is a comment that names a variable.
type nameLine struct {
	index     int
	name      string
	nameAt    int // where the name begins in its line
	generated bool
	line, off int
}

// Parse reads a CNF file. Its model has no tree, no constraints, and the
// file's clauses as read; its Name is empty.
func Parse(src []byte) (*feature.Model, error) { return ParseMax(src, MaxVariables) }

// ParseMax reads a CNF file as Parse does, refusing with ErrLimit, at its
// header and before anything is built from it, a file that declares more
// than maxVariables variables (MaxVariables at most): a header of a few
// bytes may otherwise ask for a million features.
func ParseMax(src []byte, maxVariables int) (m *feature.Model, err error) {
	defer feature.Rescue(&err)
	r := &reader{src: src, line: 1, maxVars: min(maxVariables, MaxVariables)}
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		r.off, r.lineStart = len("\uFEFF"), len("\uFEFF") // a byte order mark: passed over
	}
	if len(src) > MaxSize {
		r.failAt(feature.ErrLimit, 0, "expected at most %d bytes, found %d", MaxSize, len(src))
	}
	var (
		names      []nameLine
		vars       = -1
		nClauses   int
		clauses    []feature.Clause
		lits       []feature.Lit
		open       = -1 // the clause being read starts at lits[open]
		openLine   int
		headerLine int
	)
	for r.off < len(src) {
		c := src[r.off]
		switch {
		case isBlank(c):
			r.off++
			continue
		case c == '\n' || c == '\r':
			r.newline()
			continue
		case c == 'c' && r.lineBegins():
			n := nameLine{line: r.line, off: r.off}
			at := r.off
			if nameComment(r.restOfLine(), &n) {
				if i, found, kind := feature.NameFault(n.name); i >= 0 {
					r.failAt(kind, at+n.nameAt+i, "expected a variable's name, %s", found)
				}
				names = append(names, n)
			}
			continue
		case c == '%' && vars >= 0 && r.lineBegins():
			r.off = len(src) // the SATLIB end marker: nothing after it counts
			continue
		case c == 'p' && r.lineBegins():
			if vars >= 0 {
				r.failAt(feature.ErrSyntax, r.off, "expected one header line, found a second one (the first on line %d)", headerLine)
			}
			headerLine = r.line
			vars, nClauses = r.header()
			continue
		}
		start := r.off
		if vars < 0 {
			r.failAt(feature.ErrSyntax, start, "expected the header p cnf <variables> <clauses> before the clauses, found %q", word(src[start:]))
		}
		neg := c == '-'
		if neg {
			r.off++
		}
		digits := r.off
		for r.off < len(src) && src[r.off] >= '0' && src[r.off] <= '9' {
			r.off++
		}
		if r.off == digits || r.off < len(src) && !isSpace(src[r.off]) {
			r.failAt(feature.ErrSyntax, start, "expected a literal (a non-zero integer) or 0 to end the clause, found %q", word(src[start:]))
		}
		v, err := strconv.Atoi(string(src[digits:r.off]))
		if err != nil || v > vars {
			r.failAt(feature.ErrInvalid, start, "expected a variable from 1 to %d (the header's count), found %s", vars, src[start:r.off])
		}
		if open < 0 {
			if len(clauses) == nClauses {
				r.failAt(feature.ErrInvalid, start, "expected %d clauses (the header's count), found more", nClauses)
			}
			open, openLine = len(lits), r.line
		}
		switch {
		case v == 0 && neg:
			r.failAt(feature.ErrSyntax, start, "expected a literal (a non-zero integer) or 0 to end the clause, found -0")
		case v == 0:
			clauses = append(clauses, feature.Clause{Lits: lits[open:], Line: openLine})
			open = -1
		case neg:
			lits = append(lits, -feature.Lit(v))
		default:
			lits = append(lits, feature.Lit(v))
		}
	}
	switch {
	case vars < 0:
		r.failAt(feature.ErrSyntax, r.off, "expected the header p cnf <variables> <clauses>, found the end of the file")
	case open >= 0:
		r.failAt(feature.ErrSyntax, r.off, "expected 0 to end the clause begun on line %d, found the end of the file", openLine)
	case len(clauses) != nClauses:
		r.failAt(feature.ErrInvalid, r.off, "expected %d clauses (the header's count), found %d", nClauses, len(clauses))
	}
	// The literals went into one slice that moved as it grew: point every
	// clause into its final array.
	at := 0
	for i := range clauses {
		n := len(clauses[i].Lits)
		clauses[i].Lits = lits[at : at+n : at+n]
		at += n
	}
	return feature.New(feature.Model{Format: feature.DIMACS, Root: -1, Features: r.features(vars, names), Clauses: clauses})
}

// features returns the variables as features, named by the name comments
// or else x<index>.
func (r *reader) features(vars int, names []nameLine) []feature.Feature {
	fs := make([]feature.Feature, vars)
	taken := make(map[string]int, len(names))
	for _, n := range names {
		switch {
		case n.index < 1 || n.index > vars:
			r.failAt(feature.ErrInvalid, n.off, "expected a variable from 1 to %d (the header's count) to name, found %d", vars, n.index)
		case fs[n.index-1].Name != "":
			r.failAt(feature.ErrInvalid, n.off, "expected one name for variable %d, found a second one, %s", n.index, n.name)
		}
		if other, dup := taken[n.name]; dup {
			r.failAt(feature.ErrInvalid, n.off, "expected each name once, found %s for variables %d and %d", n.name, other, n.index)
		}
		taken[n.name] = n.index
		fs[n.index-1] = feature.Feature{Name: n.name, Generated: n.generated, Pos: feature.Pos{Line: n.line, Column: 1}}
	}
	for i := range fs {
		fs[i].Parent, fs[i].Group = -1, -1
		if fs[i].Name == "" {
			name := "x" + strconv.Itoa(i+1)
			for taken[name] != 0 {
				name += "_"
			}
			taken[name] = i + 1
			fs[i].Name = name
		}
	}
	return fs
}

// word returns the word at the start of s, for messages.
func word(s []byte) string {
	n := 0
	for n < len(s) && n < 40 && !isSpace(s[n]) {
		n++
	}
	return string(s[:max(n, min(1, len(s)))])
}

// header reads the line `p cnf V C` at off.
func (r *reader) header() (vars, clauses int) {
	start := r.off
	line := r.restOfLine()
	f := strings.Fields(line)
	if len(f) != 4 || f[0] != "p" || f[1] != "cnf" {
		r.failAt(feature.ErrSyntax, start, "expected the header p cnf <variables> <clauses>, found %q", strings.TrimSpace(line))
	}
	num := func(s, what string, limit int) int {
		n, err := strconv.Atoi(s)
		switch {
		case s != "" && strings.Trim(s, "0123456789") == "" && (err != nil || n > limit):
			r.failAt(feature.ErrLimit, start, "expected at most %d %s, found %s", limit, what, s)
		case err != nil || n < 0:
			r.failAt(feature.ErrSyntax, start, "expected the number of %s in the header, found %q", what, s)
		}
		return n
	}
	vars = num(f[2], "variables", r.maxVars)
	// A clause takes at least two bytes (its 0 and a blank), so a header
	// may not promise more clauses than the file can hold.
	clauses = num(f[3], "clauses", (len(r.src)+1)/2)
	return vars, clauses
}

// nameComment reads the comment `c <index> <name>` or `c <index>$ <name>`
// into n and reports whether it is one.
func nameComment(line string, n *nameLine) bool {
	rest, ok := strings.CutPrefix(line, "c")
	if !ok || rest == "" || !isBlank(rest[0]) {
		return false
	}
	rest = strings.TrimLeft(rest, " \t\v\f")
	end := strings.IndexFunc(rest, func(r rune) bool { return r < 0x80 && isBlank(byte(r)) })
	if end < 0 {
		return false
	}
	idx := rest[:end]
	if n.generated = strings.HasSuffix(idx, "$"); n.generated {
		idx = idx[:len(idx)-1]
	}
	if idx == "" || strings.Trim(idx, "0123456789") != "" {
		return false
	}
	i, err := strconv.Atoi(idx)
	n.index, n.name = i, strings.TrimSpace(rest[end:])
	n.nameAt = len(line) - len(strings.TrimLeftFunc(rest[end:], unicode.IsSpace))
	if err != nil {
		n.index = -1 // out of range, reported as such
	}
	return n.name != ""
}

// Write writes the model's CNF (Model.CNF) as a DIMACS file: a comment
// `c <index> <name>` for each feature (`c <index>$ <name>` for a generated
// one; none for a feature named as Parse names a variable the file leaves
// unnamed, x<index>), one `c <index>$ aux<index>` for each auxiliary
// variable, the header, and one clause a line. A name read back loses the blanks at its
// ends; one that NameFault refuses (a line break, say) is refused here too.
func Write(w io.Writer, m *feature.Model) error {
	for i, f := range m.Features {
		if at, found, _ := feature.NameFault(f.Name); at >= 0 {
			return fmt.Errorf("dimacs: the name of feature %d, %q: %s", i, f.Name, found)
		}
	}
	c := m.CNF()
	bw := bufio.NewWriter(w)
	for i, f := range m.Features {
		mark := ""
		switch {
		case f.Generated:
			mark = "$"
		case f.Name == "x"+strconv.Itoa(i+1):
			continue // the name Parse gives a variable the file leaves unnamed
		}
		fmt.Fprintf(bw, "c %d%s %s\n", i+1, mark, f.Name)
	}
	for v := c.Features + 1; v <= c.Vars; v++ {
		fmt.Fprintf(bw, "c %d$ %s\n", v, m.FreeName("aux"+strconv.Itoa(v)))
	}
	fmt.Fprintf(bw, "p cnf %d %d\n", c.Vars, c.Len())
	buf := make([]byte, 0, 64)
	for i := 0; i < c.Len(); i++ {
		buf = buf[:0]
		for _, l := range c.Clause(i) {
			buf = strconv.AppendInt(buf, int64(l), 10)
			buf = append(buf, ' ')
		}
		buf = append(buf, '0', '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
