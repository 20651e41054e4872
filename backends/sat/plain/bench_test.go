package plain_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/backends/sat/plain"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/configuratortest"
)

// BenchmarkValidDomainsEmpty is Analyze of the empty board on a compiled
// space, this backend beside package sat (counting included up to N=10),
// the figures behind DefaultMaxN:
//
//	go test -run '^$' -bench ValidDomainsEmpty ./backends/sat/plain
func BenchmarkValidDomainsEmpty(b *testing.B) {
	for _, n := range []int{8, 12, 16, 20, 24, 32, 36, 40} {
		m := configuratortest.Model(b, n, configurator.RowMajor)
		for _, be := range []configurator.Backend{plain.New(plain.Options{MaxN: n}), sat.New(sat.Options{})} {
			b.Run(fmt.Sprintf("n=%d/%s", n, be.Name()), func(b *testing.B) {
				sp := configuratortest.Space(b, be, m)
				for b.Loop() {
					if _, err := sp.Analyze(context.Background(), nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
