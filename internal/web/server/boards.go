package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// boardSpaces serves the model store's built-in boards (queens-N) from the
// server's one cache of boards, so that a board asked for as a model and
// as a board is one compiled space, with the cache's lanes, progress,
// memory bound and saved files (models.Boards).
type boardSpaces struct{ s *Server }

func (b boardSpaces) key(n int, backend string) spaces.Key {
	return b.s.spaces.Key(backend, n, configurator.RowMajor)
}

func (b boardSpaces) Space(ctx context.Context, n int, backend string) (*models.Space, error) {
	if _, ok := b.s.engines[backend]; !ok {
		return nil, fmt.Errorf("backend %q: %w", backend, models.ErrNoBackend)
	}
	if n > b.s.lineup.MaxN(backend) {
		// Past the backend's largest board, as the board's API refuses
		// it: in the board's words, and no compile is tried.
		p := b.s.lineup.TooLarge(n, board.Mode(backend))
		p.Err = configurator.ErrTooLarge
		return nil, p
	}
	k := b.key(n, backend)
	e, err := b.s.space(ctx, k)
	if err != nil {
		return nil, b.refusal(ctx, k, err)
	}
	return &models.Space{FeatureSpace: configurator.BoardFeatures(e.Space), Backend: backend, Took: e.Took}, nil
}

func (b boardSpaces) Compiling(n int, backend string) (time.Time, bool) {
	return b.s.spaces.Compiling(b.key(n, backend))
}

// refusal words a backend's refusal of a board as the board's API words
// it (compileProblem): the node budget, the memory for compiled spaces or
// the compiled file it lacks. The problem still says
// configurator.ErrTooLarge, which the model page reads to let another
// backend answer. Other errors are left as they are.
func (b boardSpaces) refusal(ctx context.Context, k spaces.Key, err error) error {
	if !errors.Is(err, configurator.ErrTooLarge) {
		return err
	}
	return b.s.compileProblem(ctx, k, err)
}
