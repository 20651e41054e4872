package hugepage

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// anonHuge is the AnonHugePages of the mapping of this process that
// holds address p, in KiB, from /proc/self/smaps.
func anonHuge(t *testing.T, p uintptr) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(p) >= a && uint64(p) < b
			continue
		}
		if in && fields[0] == "AnonHugePages:" {
			kb, _ := strconv.Atoi(fields[1])
			return kb
		}
	}
	t.Fatalf("no mapping holds %#x", p)
	return 0
}

// TestAdviseGivesHugePages: where the kernel grants huge pages on advice
// (or always), a large slice advised before it is written is backed by
// them.
func TestAdviseGivesHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skip("no transparent huge pages here")
	}
	s := make([]uint64, 16<<20/8) // 16 MiB: at least 7 whole huge pages
	Advise(s)
	for i := range s {
		s[i] = uint64(i)
	}
	if kb := anonHuge(t, uintptr(unsafe.Pointer(&s[len(s)/2]))); kb < 2048 {
		t.Errorf("a 16 MiB slice advised before it was written has %d KiB of huge pages", kb)
	}
}
