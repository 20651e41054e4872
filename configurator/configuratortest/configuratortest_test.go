package configuratortest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// recorder is a test that records why it failed, and stops the helper
// that failed it as testing.T does.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) {
	r.failure = fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs f on a recorder and returns why f failed it, or "".
func failure(f func(t testing.TB)) string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.failure
}

// refusing is a backend that compiles nothing.
type refusing struct{ configurator.Backend }

func (refusing) Name() string { return "refusing" }

func (refusing) Compile(context.Context, *configurator.Model) (configurator.Board, error) {
	return nil, errors.New("refused")
}

func TestHelpersBuild(t *testing.T) {
	m := configuratortest.Model(t, 5, configurator.ColMajor)
	if m.N() != 5 || m.Order() != configurator.ColMajor {
		t.Errorf("Model(5, ColMajor) = %d, %v", m.N(), m.Order())
	}
	if c := configuratortest.Cell(t, "c5"); c != (configurator.Cell{Row: 4, Col: 2}) {
		t.Errorf("Cell(c5) = %+v", c)
	}
	if got := configurator.FormatCells(configuratortest.Cells(t, "a1,c5")); got != "a1,c5" {
		t.Errorf("Cells(a1,c5) formats as %q", got)
	}
	if cs := configuratortest.Cells(t, ""); cs != nil {
		t.Errorf("Cells(\"\") = %v, want none", cs)
	}
	if sp := configuratortest.Space(t, bdd.New(bdd.Options{}), m); sp.Model() != m {
		t.Errorf("Space compiled another model")
	}
	if b := configuratortest.Board(t, 8); b.Count() != 92 {
		t.Errorf("Board(8) has %d solutions, want 92", b.Count())
	}
}

func TestHelpersFail(t *testing.T) {
	tests := []struct {
		name string
		call func(t testing.TB)
	}{
		{"Model of size 0", func(t testing.TB) { configuratortest.Model(t, 0, configurator.RowMajor) }},
		{"Cell off notation", func(t testing.TB) { configuratortest.Cell(t, "5c") }},
		{"Cells with a bad one", func(t testing.TB) { configuratortest.Cells(t, "a1,zz") }},
		{"Space its backend refuses", func(t testing.TB) {
			configuratortest.Space(t, refusing{}, configuratortest.Model(t, 4, configurator.RowMajor))
		}},
		{"Board of size 0", func(t testing.TB) { configuratortest.Board(t, 0) }},
	}
	for _, tt := range tests {
		if why := failure(tt.call); why == "" {
			t.Errorf("%s: the test did not fail", tt.name)
		}
	}
}
