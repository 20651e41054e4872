package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
)

// problem is an error a person can act on: the HTTP status it earns and a
// message in plain words. Handlers return problems for everything they can
// foresee; describe turns any other error into one.
type problem struct {
	Status     int
	Message    string
	RetryAfter int // seconds; 0 sends no Retry-After header
	// Command is a command line that Message gives a person to run, which
	// the page shows as code; "" when there is none.
	Command string
	err     error // the cause, for the log
}

func (p *problem) Error() string { return p.Message }
func (p *problem) Unwrap() error { return p.err }

// problemf returns a problem with a formatted message.
func problemf(status int, format string, args ...any) *problem {
	return &problem{Status: status, Message: fmt.Sprintf(format, args...)}
}

// retryable is a 503 problem with a Retry-After hint.
func retryable(seconds int, cause error, format string, args ...any) *problem {
	return &problem{Status: http.StatusServiceUnavailable, Message: fmt.Sprintf(format, args...), RetryAfter: seconds, err: cause}
}

// describe maps any error to a problem. Known errors of the configurator
// package, of Echo and of contexts get a fitting status and words; anything
// else is a 500 whose message hides the details (they go to the log).
func describe(err error) *problem {
	var p *problem
	if errors.As(err, &p) {
		return p
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return describeHTTP(he)
	}
	var inf *configurator.Infeasible
	var ref *configurator.Refusal
	switch {
	case errors.As(err, &ref) && ref.Why != nil:
		return &problem{Status: http.StatusUnprocessableEntity, err: err, Message: fmt.Sprintf("%v is blocked: %s.", ref.Cell, ref.Why)}
	case errors.As(err, &ref):
		return &problem{Status: http.StatusUnprocessableEntity, err: err,
			Message: fmt.Sprintf("%v is blocked: no remaining solution has a queen there.", ref.Cell)}
	case errors.As(err, &inf) && inf.Attack != nil:
		return &problem{Status: http.StatusUnprocessableEntity, err: err,
			Message: fmt.Sprintf("No solution holds these queens: %v and %v attack each other.", inf.Attack[0], inf.Attack[1])}
	case errors.As(err, &inf):
		return &problem{Status: http.StatusUnprocessableEntity, err: err,
			Message: fmt.Sprintf("No solution holds queens on %s together: there is no way to fill the remaining ranks.", configurator.ListCells(inf.Queens))}
	}
	for _, k := range known {
		if errors.Is(err, k.err) {
			return &problem{Status: k.status, Message: k.message, RetryAfter: k.retryAfter, err: err}
		}
	}
	switch {
	case errors.Is(err, configurator.ErrSize), errors.Is(err, configurator.ErrOffBoard),
		errors.Is(err, configurator.ErrDuplicate), errors.Is(err, configurator.ErrNotation),
		errors.Is(err, configurator.ErrOrder):
		return &problem{Status: http.StatusBadRequest, Message: sentence(err), err: err}
	}
	return &problem{Status: http.StatusInternalServerError, Message: "Something went wrong on our side. The error is logged; please try again.", err: err}
}

// known words the errors of the configurator package and of contexts that
// say the same whatever they wrap, in the order describe tries them.
var known = []struct {
	err        error
	status     int
	retryAfter int // seconds, for a 503
	message    string
}{
	{configurator.ErrBusy, http.StatusServiceUnavailable, 2, "The server is busy with other requests right now. Please try again in a moment."},
	{context.DeadlineExceeded, http.StatusServiceUnavailable, 5, "That took longer than the time allowed for one request. Try a smaller board, or try again in a moment."},
	{context.Canceled, http.StatusServiceUnavailable, 1, "The request was cancelled before it finished."},
	{configurator.ErrTooLarge, http.StatusRequestEntityTooLarge, 0, "That board is too large for this backend."},
	{configurator.ErrNoSolution, http.StatusUnprocessableEntity, 0, "No solution holds these queens together."},
	{configurator.ErrBlocked, http.StatusUnprocessableEntity, 0, "That square is blocked: no remaining solution has a queen there."},
	{configurator.ErrOccupied, http.StatusUnprocessableEntity, 0, "That square already holds your queen."},
	{configurator.ErrNoQueen, http.StatusUnprocessableEntity, 0, "There is no queen of yours on that square."},
	{configurator.ErrNotExplained, http.StatusUnprocessableEntity, 0, "That square is neither blocked nor forced, so there is nothing to explain."},
}

// describeHTTP words the errors Echo and its middleware produce.
func describeHTTP(he *echo.HTTPError) *problem {
	p := &problem{Status: he.Code, err: he}
	switch he.Code {
	case http.StatusNotFound:
		p.Message = "There is nothing at this address."
	case http.StatusMethodNotAllowed:
		p.Message = "This address does not accept that method."
	case http.StatusRequestEntityTooLarge:
		p.Message = "The request body is too large."
	case http.StatusTooManyRequests:
		p.Message = "Too many requests from your address; please slow down and try again in a second."
		p.RetryAfter = 1
	case http.StatusServiceUnavailable:
		p.Message = "The server could not answer in time; please try again in a moment."
		p.RetryAfter = 5
	default:
		if he.Code >= 500 {
			p.Message = "Something went wrong on our side. The error is logged; please try again."
		} else {
			p.Message = http.StatusText(he.Code) + "."
		}
	}
	return p
}

// sentence turns an error's text into a sentence for people: capitalised,
// ending with a full stop.
func sentence(err error) string {
	s := err.Error()
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

// maxQuoted bounds how much of a user's input a message repeats.
const maxQuoted = 24

// quote returns user input fit to repeat in a message: valid UTF-8, no
// control characters, no bidi controls or zero-width characters (dropped:
// they could reorder or hide the message's own words), at most maxQuoted
// characters, between curly quotes. Escaping for HTML or JSON is the
// template's and the encoder's job.
func quote(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	for _, r := range s {
		if invisible(r) {
			continue
		}
		if n == maxQuoted {
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
