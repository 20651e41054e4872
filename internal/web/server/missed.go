package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/nqueens/configurator/internal/web/words"
)

// missedDeadlines remembers, per model and backend, when a backend last
// took longer than its deadline on a step of the model, so that Both
// leaves that backend out of its next steps on the model (a person who
// wants its answer chooses it alone) and says so before it is chosen. It
// holds at most maxMissed entries and each for missedFor. It is safe for
// concurrent use.
type missedDeadlines struct {
	at recent[missKey, time.Time]
}

type missKey struct{ model, backend string }

const (
	maxMissed = 256
	// missedFor is how long a missed deadline leaves its backend out: a
	// model's hard steps stay hard, but a backend warmed since (its
	// answers remembered) may keep up later.
	missedFor = 10 * time.Minute
)

// note records that backend missed its deadline on a step of model.
func (m *missedDeadlines) note(model, backend string, now time.Time) {
	m.at.put(missKey{model, backend}, now)
}

// leftOut reports which of backends missed their deadline on model within
// missedFor of now, in the order given.
func (m *missedDeadlines) leftOut(model string, backends []string, now time.Time) []string {
	var out []string
	for _, b := range backends {
		if at, ok := m.at.get(missKey{model, b}); ok && now.Sub(at) < missedFor {
			out = append(out, b)
		}
	}
	return out
}

// leftOutNote says which backends Both leaves out on a model, and why;
// "" for none.
func leftOutNote(names []string, deadline func(string) time.Duration) string {
	var b strings.Builder
	for _, n := range names {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "Both leaves out %s: it took longer than its deadline of %s on an earlier step of this model; choose it alone to ask it anyway.",
			strings.ToUpper(n), words.Duration(deadline(n)))
	}
	return b.String()
}
