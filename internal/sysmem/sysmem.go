// Package sysmem reads how much memory the process may use: the limit of
// its memory cgroup (version 2's memory.max, version 1's
// memory.limit_in_bytes, the smallest along the cgroup's path up to the
// root of its hierarchy), or the machine's memory (MemTotal in
// /proc/meminfo), whichever is smaller. The web server sizes its caches,
// its compiles and its largest boards from it, so that a server in a
// container of 3 GiB refuses what does not fit instead of being killed.
//
// Every file is read under a root directory: "/" for the machine's own,
// a directory of fake files in tests.
package sysmem

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Limit is the memory the process may use, and where that figure comes
// from (a file and what it is).
type Limit struct {
	Bytes  int64
	Source string
}

// unlimited is the least value of a cgroup version 1 limit that means no
// limit (the kernel writes the largest multiple of the page size).
const unlimited = 1 << 62

// Read returns the memory the process may use, from the files under root:
// the smallest of the limits of its memory cgroups and of the machine's
// memory. It fails only when it finds neither.
func Read(root string) (Limit, error) {
	best, err := meminfo(root)
	for _, l := range cgroupLimits(root) {
		if err != nil || l.Bytes < best.Bytes {
			best, err = l, nil
		}
	}
	return best, err
}

// meminfo reads the machine's memory, MemTotal of /proc/meminfo.
func meminfo(root string) (Limit, error) {
	name := filepath.Join(root, "proc", "meminfo")
	f, err := os.Open(name)
	if err != nil {
		return Limit{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil || kb <= 0 {
			return Limit{}, fmt.Errorf("%s: MemTotal %q", name, strings.TrimSpace(v))
		}
		return Limit{Bytes: kb << 10, Source: "/proc/meminfo MemTotal"}, nil
	}
	if err := sc.Err(); err != nil {
		return Limit{}, err
	}
	return Limit{}, fmt.Errorf("%s: no MemTotal", name)
}

// mount is a cgroup hierarchy as /proc/self/mountinfo shows it: where it
// is mounted, the cgroup its mount shows at its top, and its version.
type mount struct {
	point, top string
	v2         bool
}

// cgroupLimits returns the memory limits of the process's cgroups, in the
// hierarchies that hold a memory controller: at most one of version 2 and
// one of version 1.
func cgroupLimits(root string) []Limit {
	mounts := cgroupMounts(root)
	paths := cgroupPaths(root)
	var out []Limit
	for _, m := range mounts {
		path, ok := paths[m.v2]
		if !ok {
			continue
		}
		file := "memory.limit_in_bytes"
		if m.v2 {
			file = "memory.max"
		}
		if l, ok := smallestOnPath(root, m, path, file); ok {
			out = append(out, l)
		}
	}
	return out
}

// cgroupMounts lists the mounts of cgroup hierarchies with a memory
// controller: version 2's (which holds every controller it has) and
// version 1's memory hierarchy.
func cgroupMounts(root string) []mount {
	f, err := os.Open(filepath.Join(root, "proc", "self", "mountinfo"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []mount
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root point options [optional...] - type source super-options
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 > len(fields) {
			continue
		}
		fstype, super := fields[sep+1], ""
		if sep+3 < len(fields) {
			super = fields[sep+3]
		}
		m := mount{point: unescape(fields[4]), top: unescape(fields[3])}
		switch {
		case fstype == "cgroup2":
			m.v2 = true
		case fstype == "cgroup" && hasOption(super, "memory"):
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// hasOption reports whether a comma-separated list of options holds opt.
func hasOption(list, opt string) bool {
	for o := range strings.SplitSeq(list, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// unescape undoes mountinfo's octal escapes of spaces and the like.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// cgroupPaths reads the process's cgroups from /proc/self/cgroup: the
// path of its version 2 cgroup (key true) and of its version 1 memory
// cgroup (key false).
func cgroupPaths(root string) map[bool]string {
	b, err := os.ReadFile(filepath.Join(root, "proc", "self", "cgroup"))
	if err != nil {
		return nil
	}
	out := map[bool]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		// hierarchy-ID:controllers:path
		id, rest, ok1 := strings.Cut(line, ":")
		controllers, path, ok2 := strings.Cut(rest, ":")
		switch {
		case !ok1 || !ok2:
		case id == "0" && controllers == "":
			out[true] = path
		case hasOption(controllers, "memory"):
			out[false] = path
		}
	}
	return out
}

// smallestOnPath reads the limit file of cgroup path in mount m, and of
// each cgroup above it up to the mount's top, and returns the smallest
// limit set; ok is false when none is.
func smallestOnPath(root string, m mount, path, file string) (best Limit, ok bool) {
	rel, inside := strings.CutPrefix(path, m.top)
	if !inside || m.top != "/" && rel != "" && !strings.HasPrefix(rel, "/") {
		// The process's cgroup is outside what the mount shows (a
		// container without its own cgroup namespace): the mount's top is
		// the nearest cgroup to read.
		rel = ""
	}
	dir := filepath.Join(root, m.point, rel)
	top := filepath.Join(root, m.point)
	for {
		name := filepath.Join(dir, file)
		if n, err := readLimit(name); err == nil && n > 0 && (!ok || n < best.Bytes) {
			version := "v1"
			if m.v2 {
				version = "v2"
			}
			shown, _ := filepath.Rel(root, name)
			best, ok = Limit{Bytes: n, Source: fmt.Sprintf("cgroup %s /%s", version, filepath.ToSlash(shown))}, true
		}
		if dir == top || !strings.HasPrefix(dir, top) {
			return best, ok
		}
		dir = filepath.Dir(dir)
	}
}

// errNoLimit is readLimit's answer for a limit file that sets none.
var errNoLimit = errors.New("no limit")

// readLimit reads a cgroup memory limit file: a number of bytes, or "max"
// (version 2) or a value past unlimited (version 1) for no limit.
func readLimit(name string) (int64, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, err
	}
	v := strings.TrimSpace(string(b))
	if v == "max" {
		return 0, errNoLimit
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number of bytes", name, v)
	}
	if n >= unlimited {
		return 0, errNoLimit
	}
	return n, nil
}
