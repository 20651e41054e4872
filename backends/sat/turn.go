package sat

import (
	"context"
	"errors"
	"fmt"

	"github.com/nqueens/configurator/backends/sat/internal/fair"
	"github.com/nqueens/configurator/backends/sat/solverlock"
	"github.com/nqueens/configurator/configurator"
)

// The configurator's long searches on the backend's spaces (an
// explanation's) run in a lane and take the solver turns: see
// configurator.Turner.
var (
	_ configurator.Turner = (*space)(nil)
	_ configurator.Turner = (*featureSpace)(nil)
)

// Lane waits for a place in the backend's lane of long searches: see
// Backend.lane.
func (sp *space) Lane(ctx context.Context) (func(), error) { return sp.b.lane(ctx) }

// Turn waits for a sliced solver turn for the configurator's own work on
// the space: see Backend.turn.
func (sp *space) Turn(ctx context.Context, resumed bool) (context.Context, func(), error) {
	return sp.b.turn(ctx, resumed)
}

// Lane is space.Lane on a feature model's space.
func (sp *featureSpace) Lane(ctx context.Context) (func(), error) { return sp.b.lane(ctx) }

// Turn is space.Turn on a feature model's space.
func (sp *featureSpace) Turn(ctx context.Context, resumed bool) (context.Context, func(), error) {
	return sp.b.turn(ctx, resumed)
}

// lane waits for one of the places of the configurator's long searches
// (an explanation: hundreds of questions back to back, and the work
// between them): half the solver turns (at least one), one per client,
// served round robin with a queue of Options.Queue per client. So
// however many clients ask for explanations, the other half of the cores
// is left to the quick questions of everyone else, which a search's
// questions would otherwise meet on every core. The request's admission
// slot is given back first (see lend): the lane bounds the search from
// then on, and a request waiting in it keeps nobody else out of the
// backend. A full queue fails at once with an error wrapping
// configurator.ErrBusy.
func (b *Backend) lane(ctx context.Context) (func(), error) {
	b.lend(ctx)
	done, err := b.searches.Acquire(ctx, configurator.ClientOf(ctx))
	switch {
	case errors.Is(err, fair.ErrFull):
		return nil, fmt.Errorf("%d explanations of this client waiting for the SAT solver: %w", b.queue, configurator.ErrBusy)
	case err != nil:
		return nil, fmt.Errorf("waiting for the SAT solver: %w", err)
	}
	return done, nil
}

// turn is a sliced turn of the process's solver turns (solverlock) for
// work that is no solver call but takes a core all the same, shared among
// clients as the solver's questions are: a client holds at most its share
// of the cores however many requests it sends.
func (b *Backend) turn(ctx context.Context, resumed bool) (context.Context, func(), error) {
	return solverlock.AcquireSliced(ctx, resumed)
}
