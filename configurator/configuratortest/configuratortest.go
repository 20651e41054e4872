// Package configuratortest provides the scaffolding that tests of the
// configurator and of its backends share: models, cells, compiled spaces
// and oracle boards, built from their plain descriptions, failing the test
// at once when a description is wrong.
package configuratortest

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/oracle"
)

// Model returns the N-Queens model of an n×n board with variables in order o.
func Model(t testing.TB, n int, o configurator.Order) *configurator.Model {
	t.Helper()
	m, err := configurator.New(n, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Cell returns the cell named in chess notation by s, such as "a1".
func Cell(t testing.TB, s string) configurator.Cell {
	t.Helper()
	c, err := configurator.ParseCell(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Cells returns the cells listed by s, such as "a1,c5"; "" lists none.
func Cells(t testing.TB, s string) []configurator.Cell {
	t.Helper()
	cs, err := configurator.ParseCells(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// Space returns the space b compiles m into.
func Space(t testing.TB, b configurator.Backend, m *configurator.Model) configurator.Board {
	t.Helper()
	sp, _, err := configurator.Compile(context.Background(), b, m)
	if err != nil {
		t.Fatalf("%v (order %v)", err, m.Order())
	}
	return sp
}

// Board returns the oracle's brute-force reference for an n×n board.
func Board(t testing.TB, n int) *oracle.Board {
	t.Helper()
	b, err := oracle.New(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Log is a log destination that a test reads back, safe for the
// concurrent writes of a server's or a backend's goroutines.
type Log struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is everything written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// WaitFor polls cond until it holds, failing the test, which names what it
// waited for, after a minute: a bound that catches a condition that never
// comes, not a slow machine.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	const patience = time.Minute
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", patience, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
