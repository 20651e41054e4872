package plain_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
)

// BenchmarkValidDomainsEmpty is Analyze of the empty board on a compiled
// space, this backend beside package sat (counting included up to N=10),
// the figures behind DefaultMaxN:
//
//	go test -run '^$' -bench ValidDomainsEmpty ./backends/sat/plain
func BenchmarkValidDomainsEmpty(b *testing.B) {
	for _, n := range []int{8, 12, 16, 20, 24, 32, 36, 40} {
		m, err := configurator.New(n, configurator.RowMajor)
		if err != nil {
			b.Fatal(err)
		}
		for _, be := range []configurator.Backend{plain.New(plain.Options{MaxN: n}), sat.New(sat.Options{})} {
			b.Run(fmt.Sprintf("n=%d/%s", n, be.Name()), func(b *testing.B) {
				sp, err := be.Compile(context.Background(), m)
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if _, err := sp.Analyze(context.Background(), nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
