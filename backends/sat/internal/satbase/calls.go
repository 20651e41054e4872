package satbase

import (
	"context"
	"fmt"

	"github.com/crillab/gophersat/solver"
)

// solvers is what a compiled space, a board's or a feature model's, keeps
// for its solver calls: the backend whose gates they pass, the pool of its
// idle solvers, and how a new one is built.
type solvers struct {
	b     *Backend
	pool  pool
	build func() *solver.Solver
}

// query runs f as one query of a space: it starts it (Backend.Begin),
// runs f under the context Begin gives with the Calls of the query, and
// gives the solver they took back to the pool.
func (sv *solvers) query(ctx context.Context, f func(ctx context.Context, c *Calls) error) error {
	ctx, end, err := sv.b.Begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	c := &Calls{sv: sv}
	defer func() { sv.pool.keep(c.s) }()
	return f(ctx, c)
}

// Calls is the solver work of one query: the space's solver it holds, from
// its first question to gophersat until the query ends, and the work of
// its solver calls. It is not safe for concurrent use.
type Calls struct {
	sv   *solvers
	s    *solver.Solver
	work tally
}

// solver returns the query's solver, taking one from the space's pool (or
// building one) on first use.
func (c *Calls) solver() *solver.Solver {
	if c.s == nil {
		c.s = c.sv.pool.take(c.sv.build)
	}
	return c.s
}

// Call waits for a solver turn (Backend.Turn) and runs f, which calls
// gophersat (through the query's solver, or one of its own), holding it:
// see Run. A caller whose ctx has ended gets its error and f does not run.
func (c *Calls) Call(ctx context.Context, f func() error) error {
	release, err := c.sv.b.Turn(ctx)
	if err != nil {
		return err
	}
	defer release()
	var ferr error
	if err := c.Run(func() { ferr = f() }); err != nil {
		return err
	}
	return ferr
}

// Run runs f, which calls gophersat within a solver turn the caller
// holds, and returns a panic in it as an error wrapping ErrSolver; the
// query's solver, whose state the panic may have broken, is then thrown
// away.
func (c *Calls) Run(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			c.s = nil
			err = fmt.Errorf("%w: gophersat panicked: %v", ErrSolver, p)
		}
	}()
	f()
	return nil
}
