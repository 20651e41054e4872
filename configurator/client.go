package configurator

import "context"

// clientKey is the key of the client's identity in a context.
type clientKey struct{}

// WithClient returns a copy of ctx that carries the identity of the client
// the work is done for. The web server puts the client's address there, so
// that backends can share their capacity fairly among clients: one client
// sending many requests waits behind its own, not in front of everyone
// else's.
func WithClient(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, clientKey{}, id)
}

// ClientOf returns the client identity WithClient put in ctx, or "" when
// none was: work the process does for itself (the command line, tests,
// benchmarks).
func ClientOf(ctx context.Context) string {
	id, _ := ctx.Value(clientKey{}).(string)
	return id
}
