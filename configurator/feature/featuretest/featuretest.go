// Package featuretest provides what tests of feature models share: the
// folder of real models, random models in UVL and DIMACS text that carry
// their own meaning (an evaluator written apart from package feature), and
// a brute-force count of a CNF's extensions of a configuration.
//
// It does not import package feature, so that feature's own tests can use
// it; what it knows of the formats and of their meaning it knows itself.
package featuretest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ModelsEnv names the environment variable that overrides ModelsDir.
const ModelsEnv = "MODELS_DIR"

// ModelsDir returns the folder of real models: $MODELS_DIR, or else
// ../shared/models beside the module's root. When it is absent the test is
// skipped, loudly (on standard error too, so that a run without -v shows
// it).
func ModelsDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(ModelsEnv)
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			tb.Fatal(err)
		}
		dir = filepath.Join(root, "..", "shared", "models")
	}
	if _, err := os.Stat(dir); err != nil {
		msg := fmt.Sprintf("SKIPPED: the real models are not at %s (%v); set %s to their folder", dir, err, ModelsEnv)
		fmt.Fprintln(os.Stderr, tb.Name()+": "+msg)
		tb.Skip(msg)
	}
	return dir
}

// moduleRoot returns the nearest directory at or above the working
// directory that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("featuretest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Extensions counts, up to limit, the assignments of variables
// len(fixed)+1..vars that extend fixed (fixed[i] is the value of variable
// i+1) to a model of the clauses, each a list of DIMACS literals. It is a
// plain backtracking search with unit propagation, meant for the few
// auxiliary variables of a small model's CNF.
func Extensions(clauses [][]int, vars int, fixed []bool, limit int) int {
	val := make([]int8, vars+1) // 1 true, -1 false, 0 open
	for i, b := range fixed {
		val[i+1] = -1
		if b {
			val[i+1] = 1
		}
	}
	var search func() int
	search = func() int {
		var trail []int
		undo := func() {
			for _, v := range trail {
				val[v] = 0
			}
		}
		for changed := true; changed; {
			changed = false
			for _, c := range clauses {
				open, openLit := 0, 0
				sat := false
				for _, l := range c {
					v, want := l, int8(1)
					if l < 0 {
						v, want = -l, -1
					}
					switch val[v] {
					case want:
						sat = true
					case 0:
						open, openLit = open+1, l
					}
					if sat {
						break
					}
				}
				switch {
				case sat:
				case open == 0:
					undo()
					return 0
				case open == 1:
					v, b := openLit, int8(1)
					if v < 0 {
						v, b = -v, -1
					}
					val[v] = b
					trail = append(trail, v)
					changed = true
				}
			}
		}
		defer undo()
		for v := len(fixed) + 1; v <= vars; v++ {
			if val[v] != 0 {
				continue
			}
			n := 0
			for _, b := range []int8{1, -1} {
				val[v] = b
				n += search()
				val[v] = 0
				if n >= limit {
					break
				}
			}
			return min(n, limit)
		}
		return 1
	}
	return search()
}
