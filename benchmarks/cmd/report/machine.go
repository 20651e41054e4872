package main

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/nqueens/configurator/benchmarks"
)

// Machine describes the computer a report was measured on.
type Machine struct {
	CPU     string
	Cores   int
	Memory  uint64 // bytes
	Go      string
	OS      string
	Kernel  string
	LoadAvg string // at the start of the run: other work skews the figures
}

func thisMachine() Machine {
	m := Machine{
		CPU:    "unknown",
		Cores:  runtime.NumCPU(),
		Go:     runtime.Version(),
		OS:     runtime.GOOS + "/" + runtime.GOARCH,
		Kernel: readLine("/proc/sys/kernel/osrelease"),
	}
	if f := strings.Fields(readLine("/proc/loadavg")); len(f) >= 3 {
		m.LoadAvg = strings.Join(f[:3], " ")
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := benchmarks.MemInfo("MemTotal"); err == nil {
		m.Memory = b
	}
	return m
}

func readLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}
