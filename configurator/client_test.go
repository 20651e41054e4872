package configurator_test

import (
	"context"
	"testing"

	"github.com/nqueens/configurator/configurator"
)

func TestClient(t *testing.T) {
	bg := context.Background()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"none", bg, ""},
		{"an address", configurator.WithClient(bg, "192.0.2.7"), "192.0.2.7"},
		{"the innermost wins", configurator.WithClient(configurator.WithClient(bg, "192.0.2.7"), "::1"), "::1"},
		{"through a derived context", func() context.Context {
			ctx, cancel := context.WithCancel(configurator.WithClient(bg, "198.51.100.1"))
			t.Cleanup(cancel)
			return ctx
		}(), "198.51.100.1"},
	} {
		if got := configurator.ClientOf(tc.ctx); got != tc.want {
			t.Errorf("%s: ClientOf = %q, want %q", tc.name, got, tc.want)
		}
	}
}
