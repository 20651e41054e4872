package main

import (
	"bufio"
	"os"
	"os/exec"
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
	// Commit is the repository's HEAD when the run started, with
	// "+changes" when the measured code (backends, configurator, cmd,
	// benchmarks) had uncommitted changes; empty outside a git checkout.
	Commit string
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
	m.Commit = commit()
	return m
}

// commit describes the code measured: HEAD, and whether the measured
// packages differ from it.
func commit() string {
	head, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(head))
	changes, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", "backends", "configurator", "cmd", "benchmarks").Output()
	if err == nil && len(strings.TrimSpace(string(changes))) > 0 {
		c += "+changes"
	}
	return c
}

func readLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}
