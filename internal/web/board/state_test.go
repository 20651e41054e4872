package board

import (
	"errors"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/modelstate"
	"github.com/nqueens/configurator/internal/web/problem"
)

// FuzzModelHref feeds arbitrary query strings to the reader of a board's
// own address: it must never panic, refuse only with a 400, 413 or 422
// problem, and every address it gives must be one the model page reads, of
// a board holding no more queens than its size. The timing trail must
// round-trip too.
func FuzzModelHref(f *testing.F) {
	for _, s := range []string{
		"", "n=8", "n=8&q=a1,c5&backend=bdd", "n=12&q=a1&backend=both&order=diag&heat=1&diagram=1",
		"n=eight", "n=0", "n=-1", "n=1000000000000000000", "n=8&q=z99", "n=8&q=a0", "n=8&q=a1,,b2",
		"n=8&q=a1,a1", "backend=zdd", "order=zigzag", "heat=maybe", "n=8&n=9", "q=%ff%fe",
		"n=8&q=a1&place=c5", "n=8&q=a1,c5&remove=a1", "n=8&why=b2&room=b2", "n=8&remove=a1&place=b3",
		"t=%2Ba1_8_31000_95000~open_8_20000_0", "n=4&q=aaaaaaa1", "n=26&q=z26,aa1",
	} {
		f.Add(s)
	}
	lim := &Lineup{names: []string{"bdd", "sat"}, limits: map[string]configurator.Limits{"bdd": {MaxN: 14}, "sat": {MaxN: 32}}}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		href, err := ModelHref(v, lim)
		if err != nil {
			var p *problem.Problem
			if !errors.As(err, &p) || (p.Status != 400 && p.Status != 413 && p.Status != 422) {
				t.Fatalf("%q: refused with %v", raw, err)
			}
		} else {
			u, err := url.Parse(href)
			if err != nil {
				t.Fatalf("%q: the address %q does not parse: %v", raw, href, err)
			}
			st, err := modelstate.Parse(u.Query())
			n, ok := configurator.ParseBoardID(st.Model)
			if err != nil || !ok || n > lim.MaxN("sat") || len(st.Select) > n {
				t.Fatalf("%q: the address %q reads as %+v, %v", raw, href, st, err)
			}
		}
		steps := ParseTrail(v.Get("t"), time.Minute)
		if len(steps) > MaxSteps {
			t.Fatalf("%q: %d steps kept", raw, len(steps))
		}
		for _, st := range steps {
			for _, d := range st.Times {
				if d < 0 || d > time.Minute {
					t.Fatalf("%q: a time of %v kept", raw, d)
				}
			}
		}
		if again := ParseTrail(FormatTrail(steps), time.Minute); !reflect.DeepEqual(again, steps) && len(steps) > 0 {
			t.Fatalf("%q: trail %v round-trips to %v", raw, steps, again)
		}
	})
}

// TestParseTrailBounds checks that a trail keeps only times a request
// could have taken: from 0 to the request deadline.
func TestParseTrailBounds(t *testing.T) {
	const most = 30 * time.Second
	tests := []struct {
		name, trail string
		want        []Step
	}{
		{"a real step", "open_8_1500000_0", []Step{{"open", 8, []time.Duration{1500 * time.Microsecond, 0}}}},
		{"the deadline itself", "+a1_8_30000000000", []Step{{"+a1", 8, []time.Duration{most}}}},
		{"past the deadline", "+a1_8_30000000001", nil},
		{"the forged 9223372037 s", "+a1_8_9223372036854775807", nil},
		{"past int64", "+a1_8_99999999999999999999", nil},
		{"negative", "+a1_8_-1", nil},
		{"one forged time drops its whole step", "+a1_8_1000_9223372036854775807", nil},
		{"a forged step among real ones", "+b3_8_2000~+h8_8_9223372036854775807~open_8_3000",
			[]Step{{"+b3", 8, []time.Duration{2000}}, {"open", 8, []time.Duration{3000}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ParseTrail(tt.trail, most); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseTrail(%q) = %v, want %v", tt.trail, got, tt.want)
			}
		})
	}
}
