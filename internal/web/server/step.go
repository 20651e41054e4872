package server

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/words"
)

// compileProblem words a failed compile.
func (s *Server) compileProblem(ctx context.Context, k spaces.Key, err error) error {
	name := strings.ToUpper(k.Backend)
	var crowded *spaces.Crowded
	var tooBig *spaces.TooBig
	switch {
	case errors.As(err, &tooBig):
		return tooBigProblem(tooBig)
	case errors.Is(err, spaces.ErrNoWork):
		return problem.Retry(5, err, "The %d×%d %s is not compiled yet, and a HEAD request starts no compile: ask with GET.", k.N, k.N, name)
	case errors.Is(err, configurator.ErrTooLarge):
		if p, ok := s.lineup.MissingFile(k.Backend, k.N, k.Order, board.Mode(k.Backend)); ok {
			p.Err = err
			return p
		}
		msg := fmt.Sprintf("The %d×%d board does not fit the %s backend's limits", k.N, k.N, name)
		if budget := s.engines[k.Backend].Budget; budget > 0 {
			msg = fmt.Sprintf("The %d×%d board does not fit the %s backend's node budget of %s", k.N, k.N, name, bytesize.Format(budget))
			if k.Order != configurator.RowMajor {
				msg += fmt.Sprintf(" in the order %s; rank by rank needs the fewest nodes", words.Curly(words.Order(k.Order)))
			}
			if largest := s.spaces.Largest(k.Backend); largest > 0 && largest < k.N {
				msg += fmt.Sprintf("; the largest %s compiled here is %d×%d", name, largest, largest)
			}
			if alt, hi, ok := s.lineup.Alternative(k.N, board.Mode(k.Backend)); ok {
				alt = strings.ToUpper(alt)
				msg += fmt.Sprintf(". The %s backend handles boards up to %d×%d: switch to %s", alt, hi, hi, alt)
			}
		}
		return &problem.Problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", Err: err}
	case ctx.Err() != nil:
		if sc, ok := s.stillCompiling(k, err); ok {
			return sc.problem()
		}
		return problem.Describe(ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		msg := fmt.Sprintf("Compiling the %d×%d board with %s took longer than allowed (%s). Try a smaller board", k.N, k.N, name, s.cfg.Spaces.Deadline)
		if s.spaces.Heavy(k) {
			if alt, _, ok := s.lineup.Alternative(k.N, board.Mode(k.Backend)); ok {
				msg += " or the " + strings.ToUpper(alt) + " backend"
			}
		}
		return problem.Retry(30, err, "%s.", msg)
	case errors.As(err, &crowded):
		return crowdedProblem(crowded)
	}
	return problem.Describe(err)
}

// tooBigProblem is the 413 of a space whose compile needs more memory
// than the server has for compiled spaces, naming the largest board that
// fits.
func tooBigProblem(e *spaces.TooBig) *problem.Problem {
	k := e.Key
	msg := fmt.Sprintf("The %d×%d board needs about %s to compile with %s", k.N, k.N, bytesize.Format(e.Need), strings.ToUpper(k.Backend))
	if k.Order != configurator.RowMajor {
		msg += fmt.Sprintf(" in the order %s", words.Curly(words.Order(k.Order)))
	}
	msg += fmt.Sprintf(", more than this server's memory for compiled spaces (%s)", bytesize.Format(e.Bound))
	if e.Largest > 0 {
		msg += fmt.Sprintf(": boards up to %d×%d fit", e.Largest, e.Largest)
	}
	if k.Order != configurator.RowMajor {
		msg += "; rank by rank needs the fewest nodes"
	}
	return &problem.Problem{Status: http.StatusRequestEntityTooLarge, Message: msg + ".", Err: e}
}

// crowdedProblem is the 503 of a space that fits only by evicting spaces
// other people are using.
func crowdedProblem(e *spaces.Crowded) *problem.Problem {
	return &problem.Problem{
		Status:     http.StatusServiceUnavailable,
		RetryAfter: max(int(e.Retry/time.Second), 1),
		Message: fmt.Sprintf("The %d×%d %s space needs %s, and the server's cache of compiled spaces (%s) has only %s free beside the spaces other people are using. Try a smaller board, or again later.",
			e.Key.N, e.Key.N, e.Key.Backend, bytesize.Format(e.Need), bytesize.Format(e.Bound), bytesize.Format(e.Room)),
		Err: e,
	}
}

// loading reports whether a compile of k is a load: its backend keeps
// compiled spaces in files (configurator.Filer) and has k's, which
// Compile loads instead of compiling (unless the file proves unsound).
func (s *Server) loading(k spaces.Key) (configurator.SpaceFile, bool) {
	f, ok := s.lineup.File(k.Backend, k.N, k.Order)
	return f, ok && f.Path != ""
}

// newRand returns a generator for Complete, seeded afresh per request.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }
