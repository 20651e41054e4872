package feature

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of Error, for errors.Is.
var (
	// ErrSyntax: the text does not follow the format's grammar.
	ErrSyntax = errors.New("syntax error")
	// ErrUnsupported: a construct of the format that a Boolean model cannot
	// express (typed features, arithmetic, feature cardinalities), refused
	// rather than dropped.
	ErrUnsupported = errors.New("not a Boolean construct")
	// ErrInvalid: well formed, but meaningless: an unknown or twice-declared
	// feature, a cycle of imports, a literal beyond the header's variables.
	ErrInvalid = errors.New("invalid model")
	// ErrLimit: beyond a reader's bounds (size, nesting depth, variables).
	ErrLimit = errors.New("beyond a limit")
)

// Error is a reader's complaint about a place in a model's source. Its
// message reads "line:column: what was expected, what was found" (with the
// file in front for a file other than the one the reader was handed).
type Error struct {
	Pos
	// Msg says what was expected and what was found instead.
	Msg string
	// Quote is the source line at Pos, for showing under the message.
	Quote string
	// Kind is ErrSyntax, ErrUnsupported, ErrInvalid or ErrLimit.
	Kind error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Pos, e.Msg) }

// Unwrap returns the error's kind.
func (e *Error) Unwrap() error { return e.Kind }

// ErrorAt returns the Error of the given kind at byte offset off of src,
// placed by PosAt and quoted by LineAt.
func ErrorAt[S ~string | ~[]byte](src S, off int, kind error, format string, args ...any) *Error {
	return &Error{Pos: PosAt(src, off), Msg: fmt.Sprintf(format, args...), Quote: LineAt(src, off), Kind: kind}
}

// bailout carries a reader's error from Bail up to Rescue.
type bailout struct{ err *Error }

// Bail stops a reader with err, unwinding every function between it and
// the one that defers Rescue; a reader that descends through many
// functions stops so, rather than return the error from each.
func Bail(err *Error) { panic(bailout{err}) }

// Rescue, deferred, turns a Bail into the error its function returns (its
// other results are left as they are); any other panic goes on.
func Rescue(err *error) {
	if x := recover(); x != nil {
		b, ok := x.(bailout)
		if !ok {
			panic(x)
		}
		*err = b.err
	}
}

// PosAt returns the line and column (in characters) of byte offset off in
// src, a line break being \n, \r\n or a lone \r, and a byte order mark at
// the start of src no character of the first line.
func PosAt[S ~string | ~[]byte](src S, off int) Pos {
	off = min(max(off, 0), len(src))
	line, start := 1, 0
	if bom(src) {
		start = min(3, off)
	}
	for i := 0; i < off; i++ {
		if c := src[i]; c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			line, start = line+1, i+1
		}
	}
	col := 1
	for i := start; i < off; i++ {
		if src[i]&0xC0 != 0x80 {
			col++
		}
	}
	return Pos{Line: line, Column: col}
}

// LineAt returns the line of src that holds byte offset off, without its
// line break (nor a byte order mark at the start of src), cut after 200
// bytes and made valid UTF-8, for Error.Quote.
func LineAt[S ~string | ~[]byte](src S, off int) string {
	off = min(max(off, 0), len(src))
	if bom(src) {
		off = max(off, 3)
	}
	start := off
	for start > 0 && src[start-1] != '\n' && src[start-1] != '\r' {
		start--
	}
	if start == 0 && bom(src) {
		start = 3
	}
	end := off
	for end < len(src) && src[end] != '\n' && src[end] != '\r' {
		end++
	}
	const maxQuote = 200
	if end-start > maxQuote {
		end = start + maxQuote
	}
	return strings.ToValidUTF8(string(src[start:end]), "\uFFFD")
}

// bom reports whether src begins with a byte order mark.
func bom[S ~string | ~[]byte](src S) bool {
	return len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF
}
