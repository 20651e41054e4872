// Package words is how the web server says things to people: numbers,
// durations, lists, the names of the variable orders, and user input
// repeated safely inside a message. Every wording helper of the server's
// packages lives here, so that a figure reads the same on every panel
// and in every error.
package words

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/nqueens/configurator/configurator"
)

// MaxQuoted bounds how much of a user's input a message repeats.
const MaxQuoted = 24

// Quote returns user input fit to repeat in a message: valid UTF-8, no
// control characters, no bidi controls or zero-width characters (dropped:
// they could reorder or hide the message's own words), at most MaxQuoted
// characters, between curly quotes. Escaping for HTML or JSON is the
// template's and the encoder's job.
func Quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	for _, r := range s {
		if invisible(r) {
			continue
		}
		if n == MaxQuoted {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) {
			r = '\uFFFD'
		}
		b.WriteRune(r)
		n++
	}
	return "“" + b.String() + "”"
}

// invisible reports whether r is a bidi control (embeddings, overrides,
// isolates, the marks) or a zero-width character: characters that change
// how the text around them reads without showing themselves.
func invisible(r rune) bool {
	switch {
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069', r == '\u200E', r == '\u200F', r == '\u061C':
		return true
	case r >= '\u200B' && r <= '\u200D', r == '\u2060', r == '\uFEFF':
		return true
	}
	return false
}

// Field quotes a field name a request used, as Go would write it (so
// control, bidi and zero-width characters show as escapes), cut to
// MaxQuoted characters.
func Field(name string) string {
	if utf8.RuneCountInString(name) > MaxQuoted {
		name = string([]rune(name)[:MaxQuoted]) + "…"
	}
	return strconv.Quote(name)
}

// Curly puts a label of the page between curly quotes.
func Curly(s string) string { return "“" + s + "”" }

// Sentence turns an error's text into a sentence for people: capitalised,
// ending with a full stop.
func Sentence(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

// UpperFirst capitalises the first letter.
func UpperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// List joins items for a sentence with conj before the last: "a", "a and
// b", "a, b and c".
func List(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Group writes an integer with thousands separators.
func Group(n *big.Int) string {
	s, sign := n.String(), ""
	if n.Sign() < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// Number writes n with thousands separators.
func Number(n int64) string { return Group(big.NewInt(n)) }

// Plural writes a count and its noun: "1 solver call", "12 conflicts".
func Plural(x int64, noun string) string {
	s := Number(x) + " " + noun
	if x != 1 {
		s += "s"
	}
	return s
}

// ShortCount writes a count of up to three significant digits with K
// (thousand), M (million) or G (billion), as an axis's tick labels do, so
// that a label stays readable on a phone.
func ShortCount(v float64) string {
	for _, u := range []struct {
		scale float64
		sym   string
	}{{1e9, " G"}, {1e6, " M"}, {1e3, " K"}} {
		if math.Abs(v) >= u.scale {
			return strconv.FormatFloat(v/u.scale, 'g', 3, 64) + u.sym
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Duration writes a duration with three significant digits and a unit
// people read at a glance: 312 µs, 4.21 ms, 1.50 s.
func Duration(d time.Duration) string {
	f := func(v float64, unit string) string {
		switch {
		case v >= 100:
			return strconv.FormatFloat(v, 'f', 0, 64) + " " + unit
		case v >= 10:
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
		}
		return strconv.FormatFloat(v, 'f', 2, 64) + " " + unit
	}
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(d.Nanoseconds(), 10) + " ns"
	case d < time.Millisecond:
		return f(float64(d)/float64(time.Microsecond), "µs")
	case d < time.Second:
		return f(float64(d)/float64(time.Millisecond), "ms")
	}
	return f(d.Seconds(), "s")
}

// MaybeDuration is a duration, or "–" when none was reported.
func MaybeDuration(d time.Duration) string {
	if d <= 0 {
		return "–"
	}
	return Duration(d)
}

// Since says how long ago start was: to a tenth of a second under ten
// seconds, to the second beyond.
func Since(start time.Time) string {
	d := time.Since(start)
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Seconds says a wait in words: "a second", "3 seconds".
func Seconds(n int) string {
	if n == 1 {
		return "a second"
	}
	return fmt.Sprintf("%d seconds", n)
}

// orderLabels are the variable orders as the page names them.
var orderLabels = map[configurator.Order]string{
	configurator.RowMajor:  "rank by rank",
	configurator.ColMajor:  "file by file",
	configurator.Diagonal:  "by diagonal",
	configurator.MiddleOut: "middle ranks first",
}

// Order names a variable order as the page does: "rank by rank".
func Order(o configurator.Order) string { return orderLabels[o] }
