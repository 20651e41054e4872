package sysmem

import (
	"os"
	"path/filepath"
	"testing"
)

// The machines of the tests: files under a root of their own, as a
// process would find them.
const (
	meminfo24G = "MemTotal:       25165824 kB\nMemFree:        20000000 kB\n"
	mountsV2   = "25 1 0:22 / / rw - ext4 /dev/root rw\n30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
	// Version 1, as on this project's reference machine: every
	// controller a hierarchy of its own, version 2's without memory.
	mountsV1 = "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" +
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
		"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
	// Version 1 in a container without a cgroup namespace: the mount
	// shows the container's cgroup at its top.
	mountsV1Container = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,relatime - cgroup cgroup rw,memory\n"
	unlimitedV1       = "9223372036854771712\n"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		bytes  int64
		source string
	}{
		{"cgroup v2, the limit on a parent", map[string]string{
			"proc/meminfo":        meminfo24G,
			"proc/self/mountinfo": mountsV2,
			"proc/self/cgroup":    "0::/user.slice/app.scope\n",
			"sys/fs/cgroup/user.slice/app.scope/memory.max": "max\n",
			"sys/fs/cgroup/user.slice/memory.max":           "3221225472\n",
			"sys/fs/cgroup/memory.max":                      "max\n",
		}, 3 << 30, "cgroup v2 /sys/fs/cgroup/user.slice/memory.max"},
		{"cgroup v2, the smallest of two", map[string]string{
			"proc/meminfo":                 meminfo24G,
			"proc/self/mountinfo":          mountsV2,
			"proc/self/cgroup":             "0::/a/b\n",
			"sys/fs/cgroup/a/b/memory.max": "4294967296\n",
			"sys/fs/cgroup/a/memory.max":   "3221225472\n",
		}, 3 << 30, "cgroup v2 /sys/fs/cgroup/a/memory.max"},
		{"cgroup v2 in a container with its own namespace", map[string]string{
			"proc/meminfo":             meminfo24G,
			"proc/self/mountinfo":      mountsV2,
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, 2 << 30, "cgroup v2 /sys/fs/cgroup/memory.max"},
		{"cgroup v2 without a limit", map[string]string{
			"proc/meminfo":             meminfo24G,
			"proc/self/mountinfo":      mountsV2,
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "max\n",
		}, 24 << 30, "/proc/meminfo MemTotal"},
		{"cgroup v1", map[string]string{
			"proc/meminfo":        meminfo24G,
			"proc/self/mountinfo": mountsV1,
			"proc/self/cgroup":    "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n",
			"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "3221225472\n",
			"sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":     unlimitedV1,
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                 unlimitedV1,
		}, 3 << 30, "cgroup v1 /sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes"},
		{"cgroup v1 without a limit (the reference machine)", map[string]string{
			"proc/meminfo":        meminfo24G,
			"proc/self/mountinfo": mountsV1,
			"proc/self/cgroup":    "4:memory:/process_api/abc\n0::/\n",
			"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": unlimitedV1,
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                 unlimitedV1,
		}, 24 << 30, "/proc/meminfo MemTotal"},
		{"cgroup v1 in a container without its own namespace", map[string]string{
			"proc/meminfo":        meminfo24G,
			"proc/self/mountinfo": mountsV1Container,
			"proc/self/cgroup":    "4:memory:/docker/abc\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824\n",
		}, 1 << 30, "cgroup v1 /sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"a cgroup limit above the machine's memory", map[string]string{
			"proc/meminfo":             "MemTotal: 8388608 kB\n",
			"proc/self/mountinfo":      mountsV2,
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "17179869184\n",
		}, 8 << 30, "/proc/meminfo MemTotal"},
		{"no meminfo, a cgroup limit", map[string]string{
			"proc/self/mountinfo":      mountsV2,
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "2147483648\n",
		}, 2 << 30, "cgroup v2 /sys/fs/cgroup/memory.max"},
		{"a malformed limit is no limit", map[string]string{
			"proc/meminfo":             meminfo24G,
			"proc/self/mountinfo":      mountsV2,
			"proc/self/cgroup":         "0::/\n",
			"sys/fs/cgroup/memory.max": "lots\n",
		}, 24 << 30, "/proc/meminfo MemTotal"},
		{"meminfo alone", map[string]string{"proc/meminfo": meminfo24G}, 24 << 30, "/proc/meminfo MemTotal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := fakeRoot(t, tt.files)
			got, err := Read(root)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got.Bytes != tt.bytes || got.Source != tt.source {
				t.Errorf("Read = %d bytes from %q, want %d from %q", got.Bytes, got.Source, tt.bytes, tt.source)
			}
		})
	}
	for name, files := range map[string]map[string]string{
		"nothing":           {},
		"malformed meminfo": {"proc/meminfo": "MemTotal: many kB\n"},
	} {
		if got, err := Read(fakeRoot(t, files)); err == nil {
			t.Errorf("%s: Read = %+v, want an error", name, got)
		}
	}
}

// TestReadThisMachine reads the machine's own files: whatever the
// machine, a process may use some memory, and no more than it has.
func TestReadThisMachine(t *testing.T) {
	l, err := Read("/")
	if err != nil {
		t.Skipf("no memory figure on this system: %v", err)
	}
	all, err := meminfo("/")
	if l.Bytes <= 0 || l.Source == "" || err == nil && l.Bytes > all.Bytes {
		t.Errorf("Read(/) = %+v; the machine has %+v", l, all)
	}
}

// fakeRoot writes files (path to contents) under a directory of the test.
func fakeRoot(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
