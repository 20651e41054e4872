package benchmarks

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// resetPeakRSS resets the process's peak resident set size (VmHWM) to its
// current size, which Linux allows by writing 5 to /proc/self/clear_refs.
// It reports whether that worked.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS is the process's peak resident set size in bytes, 0 when unknown.
func peakRSS() uint64 {
	v, _ := ProcStatus("self", "VmHWM")
	return v
}

// MemInfo reads a field of /proc/meminfo (MemTotal, MemAvailable, ...) in
// bytes.
func MemInfo(field string) (uint64, error) {
	return kBField("/proc/meminfo", field)
}

// ProcStatus reads a memory field of /proc/<pid>/status (VmHWM, VmRSS, ...)
// in bytes; pid "self" is this process.
func ProcStatus(pid, field string) (uint64, error) {
	return kBField("/proc/"+pid+"/status", field)
}

// kBField reads a "Name:   123 kB" line of a /proc file, in bytes.
func kBField(path, field string) (uint64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			break
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			break
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("%s: no %s in kB", path, field)
}
