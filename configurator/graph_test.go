package configurator_test

import (
	"errors"
	"testing"

	"github.com/nqueens/configurator/configurator"
)

func TestParseGraphView(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want configurator.GraphView
		err  bool
	}{
		{"ranks", configurator.RankView, false},
		{"bdd", configurator.ReducedView, false},
		{"Ranks", 0, true},
		{"", 0, true},
	} {
		got, err := configurator.ParseGraphView(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseGraphView(%q) = %v, %v", tt.in, got, err)
		}
		if err == nil && got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
		if tt.err && !errors.Is(err, configurator.ErrGraphView) {
			t.Errorf("ParseGraphView(%q): %v, want ErrGraphView", tt.in, err)
		}
	}
}
