package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/problem"
	"github.com/nqueens/configurator/internal/web/spaces"
	"github.com/nqueens/configurator/internal/web/words"
)

// stillCompiling is the one "still compiling" state of a space, a
// board's or a model's, that the cache is making and a request stopped
// waiting for: what is under way and since when. The pages say it beside
// the backends that answer, and ask again by themselves (note, Error);
// the API answers it as a 503 with Retry-After (problem).
type stillCompiling struct {
	k     spaces.Key
	since time.Time // the compile's start
	stage stage
	// stageSince is when counting or settling began; file the bytes of
	// the compiled file a load reads.
	stageSince time.Time
	file       int64
	err        error // why the request stopped waiting
}

// stage is what the cache is doing to make a space.
type stage uint8

const (
	compiling stage = iota
	loading         // a board's space from its compiled file
	counting        // a fresh board's solutions
	settling        // the answers a fresh board keeps for the first clicks
)

// stillCompiling returns the state of k's compile, false when none runs.
// err is why the request stopped waiting for it.
func (s *Server) stillCompiling(k spaces.Key, err error) (*stillCompiling, bool) {
	since, ok := s.spaces.Compiling(k)
	if !ok {
		return nil, false
	}
	sc := &stillCompiling{k: k, since: since, err: err}
	if k.Model != "" {
		return sc, true
	}
	if t, ok := s.spaces.Counting(k); ok {
		sc.stage, sc.stageSince = counting, t
	} else if t, ok := s.spaces.Settling(k); ok {
		sc.stage, sc.stageSince = settling, t
	} else if f, ok := s.loading(k); ok {
		sc.stage, sc.file = loading, f.Bytes
	}
	return sc, true
}

// what says what is under way, model naming a feature model: "compiling
// this model", "loading the 12×12 board from its compiled file of 3 GiB".
func (e *stillCompiling) what(model string) string {
	if e.k.Model != "" {
		return "compiling " + model
	}
	space := fmt.Sprintf("the %d×%d board", e.k.N, e.k.N)
	switch e.stage {
	case counting:
		return "counting all the solutions of " + space
	case settling:
		return "computing the answers " + space + " keeps for the first clicks"
	case loading:
		return fmt.Sprintf("loading %s from its compiled file of %s", space, bytesize.Format(e.file))
	}
	return "compiling " + space
}

func (e *stillCompiling) Error() string {
	return "still " + e.what("the model") + " (for " + words.Since(e.since) + " so far)"
}

func (e *stillCompiling) Unwrap() error { return e.err }

// note is the page's sentence for a backend that is still making its
// space while instead answers.
func (e *stillCompiling) note(backend, instead string) string {
	b := strings.ToUpper(backend)
	return fmt.Sprintf("%s is still %s (for %s so far): %s answers meanwhile, and the page asks %s again every few seconds, by itself, until it answers.",
		b, e.what("this model"), words.Since(e.since), strings.ToUpper(instead), b)
}

// problem is the API's 503 of the state.
func (e *stillCompiling) problem() *problem.Problem {
	k := e.k
	if k.Model != "" {
		return problem.Retry(5, e.err, "The model is still being compiled with %s (for %s so far); try again in a few seconds.", k.Backend, words.Since(e.since))
	}
	name := strings.ToUpper(k.Backend)
	so := "for " + words.Since(e.since) + " so far"
	switch e.stage {
	case counting:
		return problem.Retry(5, e.err, "The %d×%d %s is made and counting all its solutions (for %s so far); try again in a few seconds.",
			k.N, k.N, name, words.Since(e.stageSince))
	case settling:
		return problem.Retry(5, e.err, "The %d×%d %s is made and computing the answers it keeps for the first clicks (for %s so far); try again in a few seconds.",
			k.N, k.N, name, words.Since(e.stageSince))
	case loading:
		return problem.Retry(5, e.err, "The %d×%d %s is still being loaded from its compiled file (%s, %s); try again in a few seconds.",
			k.N, k.N, name, bytesize.Format(e.file), so)
	}
	return problem.Retry(5, e.err, "The %d×%d %s is still being compiled (%s); try again in a few seconds.", k.N, k.N, name, so)
}
