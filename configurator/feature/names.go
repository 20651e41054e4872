package feature

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxNameBytes is the longest feature name, in bytes, that a reader
// accepts. A name travels with every answer that mentions its feature (a
// page's rows, an explanation, a listing of models), so a file must not be
// able to make one arbitrarily long.
const MaxNameBytes = 256

// NameFault says what a feature name read from a file may not hold: bytes
// that are not UTF-8 (ErrSyntax), a control character (ErrInvalid; NUL, a
// line break and a tab among them: a name must be shown, selected and
// written back as it is), or more than MaxNameBytes bytes (ErrLimit). It
// returns the byte offset in name of the first fault, a phrase naming it
// ("found ...") and its kind, or -1, "" and nil for a name without fault. An
// empty name is a reader's own concern.
func NameFault(name string) (at int, found string, kind error) {
	for i, r := range name {
		switch {
		case r == utf8.RuneError && !validAt(name, i):
			return i, fmt.Sprintf("found the byte %#x, which is not UTF-8", name[i]), ErrSyntax
		case unicode.IsControl(r):
			return i, fmt.Sprintf("found the control character %U", r), ErrInvalid
		}
	}
	if len(name) > MaxNameBytes {
		return 0, fmt.Sprintf("found a name of %d bytes (at most %d)", len(name), MaxNameBytes), ErrLimit
	}
	return -1, "", nil
}

// validAt reports whether the U+FFFD that a range loop gives at byte i of
// s is written there, not a stand-in for a byte that is not UTF-8.
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}
