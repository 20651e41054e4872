package view

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nqueens/configurator/configurator/bytesize"
	"github.com/nqueens/configurator/internal/web/board"
	"github.com/nqueens/configurator/internal/web/words"
)

// Compiling shows a compile in progress; the page listens to its progress
// stream and reloads the board when it is done.
type Compiling struct {
	Text    string
	Events  string
	Refresh string
}

// Preparing is what the server knows of a space a page waits for: its
// backend, board and order, whether it is cached by now, whether its
// compile is a load from its saved file (and the file's size), what is
// under way and since when, and the compile time of the last smaller
// board compiled (EarlierN 0: none), which gives a sense of scale.
type Preparing struct {
	Backend  string
	N        int
	Order    string // the order's label, "" for a backend that ignores the order
	Cached   bool
	Loading  bool
	File     int64 // bytes of the file a load reads
	Running  bool  // a compile (or load) is under way, since Started
	Started  time.Time
	Counting bool // the fresh space is counting its empty board, since Counted
	Counted  time.Time
	Settling bool // the fresh space is computing the answers it keeps, since Settled
	Settled  time.Time
	EarlierN int
	Earlier  time.Duration
}

// Progress says what is being compiled, or loaded from its compiled file,
// and for how long; once made, a space's compile counts its empty board's
// solutions, which the text says too.
func Progress(items []Preparing) string {
	var parts []string
	for _, k := range items {
		if k.Cached {
			continue
		}
		space := fmt.Sprintf("the %d×%d %s", k.N, k.N, strings.ToUpper(k.Backend))
		if k.Order != "" {
			space += " (" + k.Order + ")"
		}
		started, running := k.Started, k.Running
		var what string
		if k.Counting {
			what = "counting all the solutions of " + space + ", a sweep of its whole diagram"
			started, running = k.Counted, true
		} else if k.Settling {
			what = "computing the answers " + space + " keeps for the first clicks (the boards of one and two queens), so that none of them waits for a sweep"
			started, running = k.Settled, true
		} else if k.Loading {
			what = "loading " + space + " from its compiled file (" + bytesize.Format(k.File) + ")"
		} else {
			what = "compiling " + space
		}
		if running {
			what += ": " + words.Since(started) + " so far"
		}
		// The last smaller board compiled gives a sense of scale: each
		// size up takes several times longer. A load reads its file at
		// the disk's pace, which the size says.
		if strings.HasPrefix(what, "compiling") && k.EarlierN > 0 {
			what += fmt.Sprintf(" (the %d×%d took %s", k.EarlierN, k.EarlierN, words.Duration(k.Earlier))
			if k.Backend == "bdd" {
				if lo, hi, ok := compileGrowth(k.EarlierN, k.N); ok {
					what += fmt.Sprintf("; expect about %s in all: %.1f–%.1f× as long, from how the benchmark suite's compile times grow with N",
						words.Duration(time.Duration(float64(k.Earlier)*(lo+hi)/2)), lo, hi)
				}
			}
			what += ")"
		}
		parts = append(parts, what)
	}
	if len(parts) == 0 {
		return "Ready; the board is on its way."
	}
	return words.UpperFirst(strings.Join(parts, "; ")) + ". This happens once per board size; the result is cached."
}

// CompilingApp is the app while the board of st is still being compiled:
// the controls work, and a progress stream tells the page when the board
// is ready.
func CompilingApp(site *Site, st board.State, trail string, prep Prep, items []Preparing) *App {
	v := NewApp(site, st, trail, prep)
	v.Compiling = &Compiling{
		Text:    Progress(items),
		Events:  "/events/compile?" + st.Query(),
		Refresh: st.PlayHref(v.Trail, "refresh", "1"),
	}
	return v
}

// compileGrowth is how many times longer a BDD compile of the n×n board
// takes than one of the m×m, from the benchmark suite's compile times: the
// product of the growth of each size up, the last growth measured standing
// for the sizes beyond; lo and hi take the least and the most of the last
// three growths measured for those sizes, so that the estimate is a range.
func compileGrowth(m, n int) (lo, hi float64, ok bool) {
	var r benchResults
	if json.Unmarshal(benchmarksJSON, &r) != nil || m >= n {
		return 0, 0, false
	}
	return growth(r, m, n)
}

func growth(r benchResults, m, n int) (lo, hi float64, ok bool) {
	t := map[int]float64{}
	top := 0
	for _, c := range r.Compile {
		if c.Method == "direct" && c.Time > 0 {
			t[c.N] = float64(c.Time)
			top = max(top, c.N)
		}
	}
	var last []float64 // the growths of the largest sizes measured
	for k := top - 2; k <= top; k++ {
		if t[k-1] > 0 && t[k] > 0 {
			last = append(last, t[k]/t[k-1])
		}
	}
	if len(last) == 0 {
		return 0, 0, false
	}
	lo, hi = 1, 1
	for k := m + 1; k <= n; k++ {
		if t[k-1] > 0 && t[k] > 0 {
			lo *= t[k] / t[k-1]
			hi *= t[k] / t[k-1]
			continue
		}
		lo *= slices.Min(last)
		hi *= slices.Max(last)
	}
	return lo, hi, true
}
