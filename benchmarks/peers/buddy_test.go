package peers

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestBuDDyCompilesACNF builds cnf_buddy and compiles an exclusive or of
// two variables and a free third: 4 configurations, a diagram of 3 nodes.
func TestBuDDyCompilesACNF(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	exe, err := BuildBuDDy(t.Context(), dir)
	if err != nil {
		t.Skipf("BuDDy not built (libbdd-dev missing?): %v", err)
	}
	cnf := filepath.Join(dir, "xor.cnf")
	if err := os.WriteFile(cnf, []byte("p cnf 3 2\n1 2 0\n-1 -2 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := RunBuDDy(t.Context(), exe, cnf, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if r.Vars != 3 || r.Clauses != 2 || r.Nodes != 3 || math.Abs(r.CountLog10-math.Log10(4)) > 1e-4 || r.PeakRSS == 0 {
		t.Errorf("BuDDy: %+v; want 3 variables, 2 clauses, 3 nodes, 10^%.4f configurations and a peak", r, math.Log10(4))
	}
}
