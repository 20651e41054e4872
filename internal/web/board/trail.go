package board

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator"
)

// Step is one click as the timing panel keeps it: what was done, on
// which board size, and how long each backend took (0 = did not run).
// Steps travel with htmx requests in the parameter t, so the panel shows
// the last few steps without the server keeping anything: the trail is
// not part of the shareable address, and a reload starts it afresh.
type Step struct {
	Label string
	N     int
	Times []time.Duration // one per registered backend, in order
}

// MaxSteps is how many steps the trail keeps, and maxTimes how many
// backends' times a step may carry.
const (
	MaxSteps = 6
	maxTimes = 8
)

// ParseTrail reads a timing trail leniently: it is decoration that the
// server wrote itself, so an entry that does not parse is dropped rather
// than refused. Anyone can write an address with a trail, though, so an
// entry with a time no request could have taken (beyond most, the
// request deadline) is dropped too: a forged trail can show only
// plausible timings, never "9223372037 s".
func ParseTrail(s string, most time.Duration) []Step {
	var steps []Step
entries:
	for entry := range strings.SplitSeq(s, "~") {
		if len(steps) == MaxSteps {
			break
		}
		f := strings.Split(entry, "_")
		if len(f) < 3 || len(f) > 2+maxTimes || !ValidLabel(f[0]) {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 || n > configurator.MaxN {
			continue
		}
		st := Step{Label: f[0], N: n}
		for _, t := range f[2:] {
			d, err := strconv.ParseInt(t, 10, 64)
			if err != nil || d < 0 || time.Duration(d) > most {
				continue entries
			}
			st.Times = append(st.Times, time.Duration(d))
		}
		steps = append(steps, st)
	}
	return steps
}

// FormatTrail writes steps for the parameter t, newest first.
func FormatTrail(steps []Step) string {
	parts := make([]string, 0, len(steps))
	for _, s := range steps {
		var b strings.Builder
		fmt.Fprintf(&b, "%s_%d", s.Label, s.N)
		for _, d := range s.Times {
			fmt.Fprintf(&b, "_%d", d.Nanoseconds())
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "~")
}

// ValidLabel reports whether a trail label is one the server could have
// written: short, lower-case letters, digits, spaces and + - , only.
func ValidLabel(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune(" +-,", r)) {
			return false
		}
	}
	return true
}
