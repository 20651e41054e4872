package benchmarks

import "testing"

func TestProcStatus(t *testing.T) {
	rss, err := ProcStatus("self", "VmRSS")
	if err != nil || rss < 1<<20 {
		t.Errorf("VmRSS of the test = %d, %v", rss, err)
	}
	if _, err := ProcStatus("self", "NoSuchField"); err == nil {
		t.Error("a missing field: no error")
	}
	if total, err := MemInfo("MemTotal"); err != nil || total < 256<<20 {
		t.Errorf("MemTotal = %d, %v", total, err)
	}
}
