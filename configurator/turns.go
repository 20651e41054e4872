package configurator

import "context"

// Turner is a Space whose backend shares the process's cores among
// clients in turns (the SAT backend's solver turns, one per core, a
// client holding at most its share however many requests it sends). The
// configurator's long searches on such a space (an explanation: its
// reasons and its fewest set to undo) run in the space's lane, and their
// own work between the space's questions (the sets tried and pruned, the
// search for a fewest set) takes the same turns as the questions, in
// slices, so that a search never holds a core another client waits for.
// On a space that is no Turner a search runs as it comes, bounded in
// work alone.
type Turner interface {
	// Lane waits for a place among the long searches the backend runs at
	// once (fewer than its cores, one per client, served in turn) and
	// returns the function that leaves it. A full queue fails at once
	// with ErrBusy; a caller whose ctx ends first gets its error.
	Lane(ctx context.Context) (done func(), err error)
	// Turn waits for a turn of ctx's client (ClientOf) for work that can
	// stop and go on, and returns a context that ends once the turn is
	// wanted by another client (the work then gives the turn back and
	// asks again, with resumed set, behind those asking afresh), and the
	// function that gives the turn back. A caller whose ctx ends first
	// gets its error and no turn.
	Turn(ctx context.Context, resumed bool) (slice context.Context, release func(), err error)
}

// lane enters the lane of t when t is not nil (see Turner.Lane).
func lane(ctx context.Context, t Turner) (done func(), err error) {
	if t == nil {
		return func() {}, ctx.Err()
	}
	return t.Lane(ctx)
}

// turns holds, for one search, the turn of its own work on a Turner: hold
// before work on a core, pause before a question to the space (which
// takes turns of its own: holding one across it could wait on itself)
// and when done. Without a Turner hold only watches ctx; a nil turns
// (a search asked outside run and room) does nothing.
type turns struct {
	ctx     context.Context
	t       Turner
	slice   context.Context // of the turn held; nil when none is
	release func()
}

// turnerOf returns sp as a Turner, or nil when it is none.
func turnerOf(sp Space) Turner {
	t, _ := sp.(Turner)
	return t
}

// hold makes sure a turn is held: it returns at once while the turn held
// is not wanted by another client; a turn wanted is given back and the
// next one waited for behind the others. It fails when ctx ends.
func (tu *turns) hold() error {
	switch {
	case tu == nil:
		return nil
	case tu.t == nil:
		return tu.ctx.Err()
	}
	resumed := false
	if tu.slice != nil {
		if tu.slice.Err() == nil {
			return nil
		}
		tu.pause()
		resumed = true
	}
	if err := tu.ctx.Err(); err != nil {
		return err
	}
	slice, release, err := tu.t.Turn(tu.ctx, resumed)
	if err != nil {
		return err
	}
	tu.slice, tu.release = slice, release
	return nil
}

// pause gives the turn held back, if any.
func (tu *turns) pause() {
	if tu != nil && tu.slice != nil {
		tu.release()
		tu.slice, tu.release = nil, nil
	}
}
