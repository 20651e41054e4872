// Package problem is the web server's error that a person can act on: the
// HTTP status it earns, a message in plain words, a Retry-After hint and
// a command line to show as code. Every layer of the server returns
// problems for what it can foresee; Describe words any other error (the
// configurator's, Echo's, a context's) and hides what it cannot word
// behind a 500, whose cause goes to the log.
package problem

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/words"
)

// Problem is an error a person can act on.
type Problem struct {
	Status     int
	Message    string
	RetryAfter int // seconds; 0 sends no Retry-After header
	// Command is a command line that Message gives a person to run, which
	// the page shows as code; "" when there is none.
	Command string
	// Alt is the address of a board that would serve what was asked (the
	// same size on a backend that takes it), with AltLabel the words of its
	// link; "" when there is none.
	Alt, AltLabel string
	Err           error // the cause, for the log
}

func (p *Problem) Error() string { return p.Message }
func (p *Problem) Unwrap() error { return p.Err }

// New returns a problem with a formatted message.
func New(status int, format string, args ...any) *Problem {
	return &Problem{Status: status, Message: fmt.Sprintf(format, args...)}
}

// Retry is a 503 problem with a Retry-After hint of seconds.
func Retry(seconds int, cause error, format string, args ...any) *Problem {
	return &Problem{Status: http.StatusServiceUnavailable, Message: fmt.Sprintf(format, args...), RetryAfter: seconds, Err: cause}
}

// Describe maps any error to a problem. Known errors of the configurator
// package, of Echo and of contexts get a fitting status and words; anything
// else is a 500 whose message hides the details (they go to the log).
func Describe(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return describeHTTP(he)
	}
	var conflict *configurator.Conflict
	var excluded *configurator.Excluded
	var fe *feature.Error
	switch {
	case errors.As(err, &conflict), errors.As(err, &excluded):
		return &Problem{Status: http.StatusUnprocessableEntity, Message: words.Sentence(err.Error()), Err: err}
	case errors.As(err, &fe):
		return &Problem{Status: ParseStatus(fe), Message: "The model does not read: " + fe.Error(), Err: err}
	}
	for _, k := range known {
		if errors.Is(err, k.err) {
			return &Problem{Status: k.status, Message: k.message, RetryAfter: k.retryAfter, Err: err}
		}
	}
	switch {
	case errors.Is(err, configurator.ErrSize), errors.Is(err, configurator.ErrOffBoard),
		errors.Is(err, configurator.ErrDuplicate), errors.Is(err, configurator.ErrNotation),
		errors.Is(err, configurator.ErrOrder),
		errors.Is(err, configurator.ErrUnknownFeature), errors.Is(err, configurator.ErrDecidedTwice),
		errors.Is(err, configurator.ErrDecided), errors.Is(err, configurator.ErrUndecided):
		return &Problem{Status: http.StatusBadRequest, Message: words.Sentence(err.Error()), Err: err}
	}
	return &Problem{Status: http.StatusInternalServerError, Message: "Something went wrong on our side. The error is logged; please try again.", Err: err}
}

// known words the errors of the configurator package and of contexts that
// say the same whatever they wrap, in the order Describe tries them.
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
	{configurator.ErrNotForced, http.StatusUnprocessableEntity, 0, "That feature is not forced, so there is nothing to explain."},
	{configurator.ErrBoardsOnly, http.StatusBadRequest, 0, "This backend configures N-Queens boards only, not feature models; choose another backend."},
}

// ParseStatus is the status of a model file that does not read: 413
// beyond a reader's bound, 422 for a construct a Boolean model cannot
// express, 400 otherwise.
func ParseStatus(fe *feature.Error) int {
	switch {
	case errors.Is(fe, feature.ErrLimit):
		return http.StatusRequestEntityTooLarge
	case errors.Is(fe, feature.ErrUnsupported):
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadRequest
}

// describeHTTP words the errors Echo and its middleware produce.
func describeHTTP(he *echo.HTTPError) *Problem {
	p := &Problem{Status: he.Code, Err: he}
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
