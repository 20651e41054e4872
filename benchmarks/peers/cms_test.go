package peers

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestCMSBackbone builds cms_backbone and asks it about a ⇒ b, b ⇒ ¬c
// (and a third variable only in the clauses): nothing forced; under a, b
// on and c off; under a and c, no model.
func TestCMSBackbone(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	exe, err := BuildCMS(t.Context(), dir)
	if err != nil {
		t.Skipf("cms_backbone not built (libcryptominisat5-dev missing?): %v", err)
	}
	cnf := filepath.Join(dir, "imp.cnf")
	if err := os.WriteFile(cnf, []byte("p cnf 3 2\n-1 2 0\n-2 -3 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := RunCMS(t.Context(), exe, cnf, 3, [][]int{{}, {1}, {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got[0].Forced) != 0 || got[0].Unsat || !slices.Equal(got[1].Forced, []int{1, 2, -3}) || !got[2].Unsat {
		t.Errorf("cms_backbone: %+v; want nothing forced, then 1 2 -3, then no model", got)
	}
}
