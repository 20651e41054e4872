package server

import (
	"context"
	"fmt"
	"time"

	"github.com/nqueens/configurator/configurator"
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
	e, err := b.s.space(ctx, b.key(n, backend))
	if err != nil {
		return nil, err
	}
	return &models.Space{FeatureSpace: configurator.BoardFeatures(e.Space), Backend: backend, Took: e.Took}, nil
}

func (b boardSpaces) Compiling(n int, backend string) (time.Time, bool) {
	return b.s.spaces.Compiling(b.key(n, backend))
}
