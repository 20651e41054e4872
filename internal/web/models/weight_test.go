package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/examples"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// liveHeap is the bytes of the heap's live objects, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// attributed is a UVL model of n features with attributes, groups of
// every kind and constraints of long expressions.
func attributed(n int) []byte {
	var b strings.Builder
	b.WriteString("namespace Attributed\nfeatures\n\tRoot {abstract}\n\t\tor\n")
	for i := range n {
		fmt.Fprintf(&b, "\t\t\t\"Feature number %d\" {cost %d, label 'the %dth', tags ['a', 'b', 3]}\n", i, i, i)
	}
	b.WriteString("constraints\n")
	for i := 2; i < n; i++ {
		fmt.Fprintf(&b, "\t(\"Feature number %d\" & \"Feature number %d\") => !\"Feature number %d\" | \"Feature number %d\"\n", i, i-1, i-2, i-1)
	}
	return []byte(b.String())
}

// Bytes bounds from above what a parsed model holds, measured as the
// live heap it adds; and it is a bound, not a wild guess: within a few
// times what it bounds.
func TestModelBytes(t *testing.T) {
	type source struct {
		name string
		src  []byte
	}
	sources := []source{
		{"header.dimacs", []byte("p cnf 50000 0\n")},
		{"clauses.dimacs", func() []byte {
			var b strings.Builder
			b.WriteString("p cnf 2000 6000\n")
			for i := range 6000 {
				fmt.Fprintf(&b, "%d -%d %d 0\n", i%2000+1, (i+7)%2000+1, (i+13)%2000+1)
			}
			return []byte(b.String())
		}()},
		{"chain.uvl", chain(5000)},
		{"attributed.uvl", attributed(3000)},
	}
	for _, file := range []string{"uvl/automotive01.uvl", "dimacs/busybox-1.18.0.dimacs", "featureide/financialservices-2017-05-22.xml"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "shared", "models", file))
		if err != nil {
			t.Logf("%s: %v (skipped)", file, err)
			continue
		}
		sources = append(sources, source{filepath.Base(file), src})
	}
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) {
			before := liveHeap()
			m, err := modelfile.Parse(s.name, s.src, "")
			if err != nil {
				t.Fatal(err)
			}
			held := liveHeap() - before
			charged := Bytes(m)
			runtime.KeepAlive(m)
			if charged < held {
				t.Errorf("%d features: charged %d bytes, holds %d", len(m.Features), charged, held)
			}
			if charged > 4*held+64<<10 {
				t.Errorf("%d features: charged %d bytes, more than four times the %d it holds", len(m.Features), charged, held)
			}
		})
	}
}

// Many tiny files of many features each (a CNF header alone) stay within
// the store's bound: counted by what each model holds, the store holds a
// few of them, not all; and so does a restart's scan of the directory.
func TestTinyFilesManyFeatures(t *testing.T) {
	uploads := 450
	if testing.Short() {
		uploads = 60
	}
	ctx := context.Background()
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.MaxFeatures = 50000
	cfg.Bytes = 32 << 20
	before := liveHeap()
	s := newStore(t, cfg)
	for i := range uploads {
		src := fmt.Appendf(nil, "c %d\np cnf 50000 0\n", i)
		if _, _, err := s.Add(ctx, "tiny.dimacs", src, feature.DIMACS); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		s.mu.Lock()
		held, n := s.held, s.lru.Len()
		s.mu.Unlock()
		if held > cfg.Bytes || n < 1 || n >= uploads {
			t.Errorf("%s: holds %d models of %d bytes, bound %d", when, n, held, cfg.Bytes)
		}
		// What the models really hold, measured: within the bound, beside
		// what the store holds of every model (its info) and the heap's
		// slack.
		if live := liveHeap() - before; live > cfg.Bytes+8<<20 {
			t.Errorf("%s: the heap grew by %d bytes, bound %d", when, live, cfg.Bytes)
		}
	}
	check("after the uploads")
	s.Close()

	before = liveHeap()
	s = newStore(t, cfg)
	s.work.Wait() // the scan
	if got := len(files(s)) - len(examples.All()); got != uploads {
		t.Errorf("after a restart: %d models listed, want %d", got, uploads)
	}
	check("after a restart")
}
