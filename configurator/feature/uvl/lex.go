package uvl

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/nqueens/configurator/configurator/feature"
)

// kind is a token's class.
type kind uint8

const (
	tEOF     kind = iota
	tNewline      // the end of a logical line
	tIndent       // the next line is indented deeper
	tDedent       // the next line closes one level of indentation
	tName         // a bare name (ID_STRICT of the reference grammar)
	tQuoted       // a name in double quotes; text is without them
	tString       // a string in single quotes; text is without them
	tInt
	tFloat
	tBool
	tCard    // a group cardinality such as [1..3], [2], [0..*]
	tKeyword // a reserved word; text says which
	tOp      // an operator or punctuation; text says which
)

// keyword reports whether s is a reserved word of the reference lexer, one
// that may not be a bare name. (Its language levels Arithmetic and Type are
// read as names, so that a feature may be called type.)
func keyword(s string) bool {
	switch s {
	case "include", "features", "imports", "namespace", "as",
		"constraint", "constraints", "cardinality",
		"String", "Boolean", "Integer", "Real",
		"len", "sum", "avg", "floor", "ceil",
		"or", "alternative", "optional", "mandatory":
		return true
	}
	return false
}

// hyphenKeywords are the minor language levels, the only words with a
// hyphen; string-constraint is the older spelling.
var hyphenKeywords = []string{"group-cardinality", "feature-cardinality", "aggregate-function", "string-constraints", "string-constraint"}

// closers close the brackets that open.
var closers = map[string]string{"(": ")", "[": "]", "{": "}"}

// ops are the operators and punctuation, longest first where one is a
// prefix of another.
var ops = []string{"<=>", "=>", "==", "<=", ">=", "!=", "<", ">", "!", "&", "|", "*", "+", "-", "/", "(", ")", "[", "]", "{", "}", ",", "."}

type token struct {
	kind kind
	text string
	off  int // byte offset in the source
	end  int // byte offset just past it
	line int
	col  int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "the end of the file"
	case tNewline:
		return "the end of the line"
	case tIndent:
		return "a deeper indentation"
	case tDedent:
		return "a shallower indentation"
	case tQuoted:
		return fmt.Sprintf("%q", t.text)
	case tString:
		return fmt.Sprintf("'%s'", t.text)
	case tKeyword:
		return "the keyword " + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

// lexer splits a UVL source into tokens, with the indentation turned into
// tNewline, tIndent and tDedent as the reference grammar's lexers do: a line
// break inside parentheses, brackets or braces is a space, a line holding
// nothing but blanks and comments is skipped, and a tab advances to the next
// multiple of eight columns.
type lexer struct {
	src       string
	file      string
	off       int
	line, col int     // of off; col counts characters from 1
	lineStart int     // offset of the line holding off
	opened    []token // the parentheses, brackets and braces open
	indents   []int
	queue     []token
	head      int
	last      kind // the last token queued
	started   bool
}

func newLexer(src, file string) *lexer {
	lx := &lexer{src: src, file: file, line: 1, col: 1, last: tNewline}
	if strings.HasPrefix(src, "\uFEFF") {
		lx.off = len("\uFEFF")
		lx.lineStart = lx.off
	}
	return lx
}

// errorf stops reading with an error at t.
func (lx *lexer) errorf(kind error, t token, format string, args ...any) {
	feature.Bail(errorAt(lx.src, lx.file, t, kind, format, args...))
}

// errorAt is the error of kind at token t of the file at path, whose
// source is src.
func errorAt(src, path string, t token, kind error, format string, args ...any) *feature.Error {
	return &feature.Error{Pos: feature.Pos{File: path, Line: t.line, Column: t.col},
		Msg: fmt.Sprintf(format, args...), Quote: feature.LineAt(src, t.off), Kind: kind}
}

// next returns the next token.
func (lx *lexer) next() token {
	for lx.head == len(lx.queue) {
		lx.queue, lx.head = lx.queue[:0], 0
		lx.scan()
	}
	t := lx.queue[lx.head]
	lx.head++
	return t
}

func (lx *lexer) push(t token) {
	lx.queue = append(lx.queue, t)
	lx.last = t.kind
}

func (lx *lexer) here(k kind, text string) token {
	return token{kind: k, text: text, off: lx.off, end: lx.off, line: lx.line, col: lx.col}
}

// advance moves past n bytes on one line.
func (lx *lexer) advance(n int) {
	for _, c := range []byte(lx.src[lx.off : lx.off+n]) {
		if c&0xC0 != 0x80 {
			lx.col++
		}
	}
	lx.off += n
}

// newline moves past the line break at off.
func (lx *lexer) newline() {
	if strings.HasPrefix(lx.src[lx.off:], "\r\n") {
		lx.off++
	}
	lx.off++
	lx.line++
	lx.col = 1
	lx.lineStart = lx.off
}

func (lx *lexer) atNewline() bool {
	return lx.off < len(lx.src) && (lx.src[lx.off] == '\n' || lx.src[lx.off] == '\r')
}

// skipBlanks moves past spaces, tabs and comments, and past line breaks
// too when breaks is set.
func (lx *lexer) skipBlanks(breaks bool) {
	for lx.off < len(lx.src) {
		switch c := lx.src[lx.off]; {
		case c == ' ' || c == '\t':
			lx.off++
			lx.col++
		case c == '\n' || c == '\r':
			if !breaks {
				return
			}
			lx.newline()
		case strings.HasPrefix(lx.src[lx.off:], "//"):
			end := strings.IndexAny(lx.src[lx.off:], "\r\n")
			if end < 0 {
				end = len(lx.src) - lx.off
			}
			lx.advance(end)
		case strings.HasPrefix(lx.src[lx.off:], "/*"):
			start := lx.here(tOp, "/*")
			end := strings.Index(lx.src[lx.off+2:], "*/")
			if end < 0 {
				lx.errorf(feature.ErrSyntax, start, "expected */ to close this comment, found the end of the file")
			}
			stop := lx.off + 2 + end + 2
			for lx.off < stop {
				if lx.atNewline() {
					lx.newline()
				} else {
					lx.advance(1)
				}
			}
		default:
			return
		}
	}
}

// indentation returns the width of the line up to off, a tab advancing to
// the next multiple of eight.
func (lx *lexer) indentation() int {
	w := 0
	for _, c := range []byte(lx.src[lx.lineStart:lx.off]) {
		switch {
		case c == '\t':
			w += 8 - w%8
		case c&0xC0 != 0x80:
			w++
		}
	}
	return w
}

// scan queues the next tokens: one token, or the end of a line with the
// indentation that follows it, or the end of the file.
func (lx *lexer) scan() {
	lx.skipBlanks(len(lx.opened) > 0)
	if lx.atNewline() {
		nl := lx.here(tNewline, "")
		lx.skipBlanks(true)
		lx.push(nl)
		if lx.off < len(lx.src) {
			lx.indent()
			return
		}
	}
	if lx.off >= len(lx.src) {
		if n := len(lx.opened); n > 0 {
			o := lx.opened[n-1]
			lx.errorf(feature.ErrSyntax, o, "expected %s to close this %s, found the end of the file", closers[o.text], o.text)
		}
		if lx.last != tNewline {
			lx.push(lx.here(tNewline, ""))
		}
		for range lx.indents {
			lx.push(lx.here(tDedent, ""))
		}
		lx.indents = lx.indents[:0]
		lx.push(lx.here(tEOF, ""))
		return
	}
	if !lx.started {
		lx.indent()
	}
	t := lx.token()
	t.end = lx.off
	lx.push(t)
}

// indent queues the tIndent or tDedent tokens that the indentation of the
// line at off calls for.
func (lx *lexer) indent() {
	lx.started = true
	w, top := lx.indentation(), 0
	if len(lx.indents) > 0 {
		top = lx.indents[len(lx.indents)-1]
	}
	switch {
	case w > top:
		lx.indents = append(lx.indents, w)
		lx.push(lx.here(tIndent, ""))
	case w < top:
		for len(lx.indents) > 0 && lx.indents[len(lx.indents)-1] > w {
			lx.indents = lx.indents[:len(lx.indents)-1]
			lx.push(lx.here(tDedent, ""))
		}
		if top = 0; len(lx.indents) > 0 {
			top = lx.indents[len(lx.indents)-1]
		}
		if top != w {
			lx.errorf(feature.ErrSyntax, lx.here(tIndent, ""),
				"expected this line to be indented as one of the lines that enclose it (%d columns), found %d columns", top, w)
		}
	}
}

func isNameStart(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// nameRune reports whether r may continue a bare name.
func nameRune(r rune) bool {
	return r < utf8.RuneSelf && (isNameStart(byte(r)) || r >= '0' && r <= '9' || strings.ContainsRune("_#%?\\';", r)) ||
		strings.ContainsRune("§äüöß", r)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// token reads the token at off.
func (lx *lexer) token() token {
	s := lx.src[lx.off:]
	t := lx.here(tOp, "")
	c := s[0]
	switch {
	case isNameStart(c):
		for _, kw := range hyphenKeywords {
			if c == kw[0] && strings.HasPrefix(s, kw) {
				t.kind, t.text = tKeyword, kw
				lx.advance(len(kw))
				return t
			}
		}
		n := 1
		for n < len(s) {
			r, size := utf8.DecodeRuneInString(s[n:])
			if !nameRune(r) {
				break
			}
			n += size
		}
		t.kind, t.text = tName, s[:n]
		if n > feature.MaxNameBytes {
			lx.errorf(feature.ErrLimit, t, "expected a name of at most %d bytes, found one of %d", feature.MaxNameBytes, n)
		}
		switch {
		case keyword(t.text):
			t.kind = tKeyword
		case t.text == "true" || t.text == "false":
			t.kind = tBool
		}
		lx.advance(n)
	case c == '"' || c == '\'':
		end := strings.IndexAny(s[1:], "\r\n"+s[:1])
		what := "name"
		if t.kind = tQuoted; c == '\'' {
			t.kind, what = tString, "string"
		}
		switch {
		case end < 0 || s[1+end] != c:
			lx.errorf(feature.ErrSyntax, t, "expected %c to close this quoted %s on its line", c, what)
		case end == 0:
			lx.errorf(feature.ErrSyntax, t, "expected a quoted %s, found an empty one", what)
		case t.kind == tString && !utf8.ValidString(s[1:1+end]):
			lx.errorf(feature.ErrSyntax, t, "expected a quoted %s in UTF-8, found invalid bytes", what)
		case t.kind == tQuoted:
			if at, found, kind := feature.NameFault(s[1 : 1+end]); at >= 0 {
				lx.errorf(kind, token{off: lx.off + 1 + at, line: lx.line, col: lx.col + 1 + utf8.RuneCountInString(s[1:1+at])}, "expected a quoted name, %s", found)
			}
		}
		t.text = s[1 : 1+end]
		lx.advance(end + 2)
	case isDigit(c) || (c == '-' || c == '.') && len(s) > 1 && isDigit(s[1]) || c == '-' && len(s) > 2 && s[1] == '.' && isDigit(s[2]):
		n := 0
		if c == '-' {
			n++
		}
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		t.kind = tInt
		if n+1 < len(s) && s[n] == '.' && isDigit(s[n+1]) {
			t.kind = tFloat
			for n++; n < len(s) && isDigit(s[n]); n++ {
			}
		}
		t.text = s[:n]
		lx.advance(n)
	case c == '[' && cardinality(s) > 0:
		n := cardinality(s)
		t.kind, t.text = tCard, s[:n]
		lx.advance(n)
	default:
		for _, op := range ops {
			if strings.HasPrefix(s, op) {
				t.text = op
				switch op {
				case "(", "[", "{":
					lx.opened = append(lx.opened, t)
				case ")", "]", "}":
					if n := len(lx.opened); n > 0 {
						lx.opened = lx.opened[:n-1]
					}
				}
				lx.advance(len(op))
				return t
			}
		}
		r, _ := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError {
			lx.errorf(feature.ErrSyntax, t, "expected UTF-8 text, found the byte %#x", c)
		}
		lx.errorf(feature.ErrSyntax, t, "expected a name, a keyword or an operator, found %q", r)
	}
	return t
}

// cardinality returns the length of the group cardinality at the start of
// s ([n], [n..m] or [n..*], no blanks), or 0.
func cardinality(s string) int {
	n := 1
	integer := func() bool {
		start := n
		if n < len(s) && s[n] == '-' {
			n++
		}
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		return n > start && isDigit(s[n-1])
	}
	if !integer() {
		return 0
	}
	if strings.HasPrefix(s[n:], "..") {
		n += 2
		if n < len(s) && s[n] == '*' {
			n++
		} else if !integer() {
			return 0
		}
	}
	if n < len(s) && s[n] == ']' {
		return n + 1
	}
	return 0
}
