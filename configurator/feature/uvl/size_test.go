package uvl_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/nqueens/configurator/configurator/feature/uvl"
)

// bigModel returns a model of about size bytes: features in groups of
// every kind, with attributes, and constraints over them.
func bigModel(size int) []byte {
	var b strings.Builder
	b.WriteString("features\n\tRoot\n")
	kinds := []string{"optional", "or", "alternative", "[1..3]", "mandatory"}
	n := 0
	for i := 0; b.Len() < size*3/4; i++ {
		fmt.Fprintf(&b, "\t\t%s\n", kinds[i%len(kinds)])
		for range 8 {
			fmt.Fprintf(&b, "\t\t\t\"Feature %d\" {abstract, cost %d}\n", n, n)
			n++
		}
	}
	b.WriteString("constraints\n")
	for i := 0; b.Len() < size; i++ {
		a, c, d := i*7%n, i*13%n, i*31%n
		fmt.Fprintf(&b, "\t(\"Feature %d\" | !\"Feature %d\") => \"Feature %d\" <=> !(\"Feature %d\" & \"Feature %d\")\n", a, c, d, a, d)
	}
	return []byte(b.String())
}

// allocated returns the bytes allocated while reading src and translating
// it into CNF.
func allocated(t *testing.T, src []byte) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := uvl.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	m.CNF()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Reading and translating take memory in proportion to the model: four
// times the text, about four times the bytes (the growth of slices and maps
// by doubling allows some slack).
func TestMemoryInProportion(t *testing.T) {
	small, large := allocated(t, bigModel(256<<10)), allocated(t, bigModel(1<<20))
	if ratio := float64(large) / float64(small); ratio < 3 || ratio > 5.5 {
		t.Errorf("256 KiB: %d bytes allocated, 1 MiB: %d (ratio %.2f)", small, large, ratio)
	}
}

// The largest model a reader accepts, in the shapes of bigModel.
func BenchmarkParse(b *testing.B) {
	for _, size := range []int{1 << 20, uvl.MaxSize - 200} {
		src := bigModel(size)
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				m, err := uvl.Parse(src)
				if err != nil {
					b.Fatal(err)
				}
				m.CNF()
			}
		})
	}
}
