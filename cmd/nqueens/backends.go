package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/nqueens/configurator/backends/bdd"
	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/bytesize"
)

// backendFlags are the flags that choose and tune a backend and the model
// it compiles.
type backendFlags struct {
	n      int
	name   string
	order  string
	method string
	budget bytesize.Size
	cap    int
	// modelOrder is the heuristic of a feature model's variable order
	// in the bdd backend (bdd.ParseModelOrder).
	modelOrder string
	// cacheDir is where the bdd backend keeps compiled spaces: a
	// directory, or "" or "off" for none.
	cacheDir string
	// log tells of the compiled spaces kept on disk: a file refused, a
	// directory that cannot be written. Nil discards it.
	log *slog.Logger
	// saveBehind has the bdd backend write a compiled space's file in the
	// background (bdd.Options.SaveInBackground), for wait; made is the
	// backend that backend made.
	saveBehind bool
	made       *bdd.Backend
}

// register adds the flags to fs; full adds the tuning flags that only
// count offers. Warnings of the bdd backend go to stderr.
func (b *backendFlags) register(fs *flagSet, full bool, stderr io.Writer) {
	b.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	fs.IntVar(&b.n, "n", 8, "board size `N` (the board is N×N)")
	fs.StringVar(&b.name, "backend", "bdd", "backend: bdd (decision diagram), sat (gophersat) or sat-plain (gophersat alone, the baseline)")
	fs.StringVar(&b.cacheDir, "cache-dir", bdd.DefaultDir(), "bdd: `directory` of compiled spaces, loaded instead of compiling and written after a compile (\"off\" or empty: none)")
	fs.StringVar(&b.modelOrder, "model-order", "auto", "bdd, -model: the variable order the feature model's diagram starts from: auto, model (the feature tree's pre-order, a CNF file's own) or force (FORCE)")
	b.order, b.method = "row", "direct"
	if full {
		fs.StringVar(&b.order, "order", "row", "variable order of the model: row, col, diag or middle")
		fs.StringVar(&b.method, "method", "direct", "bdd compilation: direct (top-down) or apply (conjoin the constraints)")
		fs.Var(&b.budget, "budget", "bdd memory budget in `BYTES` (suffixes K, M, G: powers of 1024; 0 = the backend's default)")
		fs.IntVar(&b.cap, "cap", 0, "sat, sat-plain: stop counting at `K` solutions (configurations of a -model) and report \"at least K\" (0 = the backend's default)")
	}
}

// model returns the model the flags describe.
func (b *backendFlags) model() (*configurator.Model, error) {
	if b.n < 1 || b.n > configurator.MaxN {
		return nil, usagef("-n %d: the board size must be between 1 and %d", b.n, configurator.MaxN)
	}
	order, err := configurator.ParseOrder(b.order)
	if err != nil {
		return nil, usagef("-order %q: want row, col, diag or middle", b.order)
	}
	return configurator.New(b.n, order)
}

// backend returns the backend the flags describe.
func (b *backendFlags) backend() (configurator.Backend, error) {
	switch b.name {
	case "bdd":
		m, err := bdd.ParseMethod(b.method)
		if err != nil {
			return nil, usagef("-method %q: want direct or apply", b.method)
		}
		if b.budget < 0 {
			return nil, usagef("-budget %d: must not be negative", b.budget)
		}
		mo := bdd.OrderAuto
		if b.modelOrder != "" {
			if mo, err = bdd.ParseModelOrder(b.modelOrder); err != nil {
				return nil, usagef("-model-order %q: want auto, model or force", b.modelOrder)
			}
		}
		dir := b.cacheDir
		if dir == "off" {
			dir = ""
		}
		b.made = bdd.New(bdd.Options{Budget: int64(b.budget), Method: m, ModelOrder: mo, Dir: dir, Log: b.log, SaveInBackground: b.saveBehind})
		return b.made, nil
	case "sat":
		if b.cap < 0 {
			return nil, usagef("-cap %d: must not be negative", b.cap)
		}
		return sat.New(sat.Options{CountCap: b.cap, ModelCountCap: b.cap}), nil
	case "sat-plain":
		if b.cap < 0 {
			return nil, usagef("-cap %d: must not be negative", b.cap)
		}
		return plain.New(plain.Options{CountCap: b.cap, ModelCountCap: b.cap}), nil
	}
	return nil, usagef("-backend %q: want bdd or sat or sat-plain", b.name)
}

// compile builds the model and compiles it, timing the compilation.
func (b *backendFlags) compile(ctx context.Context) (configurator.Board, time.Duration, error) {
	m, err := b.model()
	if err != nil {
		return nil, 0, err
	}
	be, err := b.backend()
	if err != nil {
		return nil, 0, err
	}
	return configurator.Compile(ctx, be, m)
}

// wait waits for the file the bdd backend writes in the background, if
// any, and returns how long that took.
func (b *backendFlags) wait() time.Duration {
	if b.made == nil {
		return 0
	}
	start := time.Now()
	b.made.Wait()
	return time.Since(start)
}

// millis is d in milliseconds, for JSON.
func millis(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

// human formats d for people: three significant figures in ms or s.
func human(d time.Duration) string {
	switch ms := float64(d) / float64(time.Millisecond); {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0f ms", ms)
	default:
		return fmt.Sprintf("%.2f s", ms/1000)
	}
}

// jsonCells gives cells as 0-based [row, col] pairs, never null.
func jsonCells(cells []configurator.Cell) [][2]int {
	out := make([][2]int, len(cells))
	for i, c := range cells {
		out[i] = [2]int{c.Row, c.Col}
	}
	return out
}

// parseQueens parses a -queens list and checks it against the model.
func parseQueens(m *configurator.Model, s string) ([]configurator.Cell, error) {
	queens, err := configurator.ParseCells(s)
	if err != nil {
		return nil, fmt.Errorf("-queens: %w", err)
	}
	if err := m.Check(queens); err != nil {
		return nil, fmt.Errorf("-queens: %w", err)
	}
	return queens, nil
}
