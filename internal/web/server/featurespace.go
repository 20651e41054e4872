package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// modelKey is the key of backend's space of model id in the one cache:
// a built-in board's (queens-N) is the board's row-major space, the one
// its board's pages use, so that a board asked for as a model and as a
// board is one compiled space; any other model's is keyed by its ID.
func (s *Server) modelKey(id, backend string) spaces.Key {
	if n, ok := models.Board(id); ok {
		return s.spaces.Key(backend, n, configurator.RowMajor)
	}
	return spaces.ModelKey(backend, id)
}

// readModel is how the cache reads the models it compiles: from the
// store, with the bound of what each holds.
func (s *Server) readModel(ctx context.Context, id string) (*feature.Model, int64, error) {
	m, _, err := s.models.Model(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	return m, models.Bytes(m), nil
}

// featureSpace returns backend's space of model id from the one cache,
// waiting for it until ctx ends. A board past the backend's largest is
// refused in the board's words, as the board's API refuses it, and no
// compile is tried.
func (s *Server) featureSpace(ctx context.Context, id, backend string) (*spaces.Space, error) {
	if _, ok := s.engines[backend]; !ok {
		return nil, fmt.Errorf("backend %q: %w", backend, spaces.ErrNoBackend)
	}
	k := s.modelKey(id, backend)
	if k.Model == "" && k.N > s.lineup.MaxN(backend) {
		p := s.lineup.TooLarge(k.N, board.Mode(backend))
		p.Err = configurator.ErrTooLarge
		return nil, p
	}
	e, err := s.space(ctx, k)
	if err != nil && k.Model == "" && errors.Is(err, configurator.ErrTooLarge) {
		// A board's refusal in the board's words (compileProblem): the
		// node budget, the memory for compiled spaces or the compiled
		// file it lacks. The problem still says configurator.ErrTooLarge,
		// which the model page reads to let another backend answer.
		return nil, s.compileProblem(ctx, k, err)
	}
	return e, err
}
