package robdd

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back the memory of s with huge pages
// (madvise MADV_HUGEPAGE on the whole 2 MiB pages within it), before it is
// written: the queries read a large diagram, and Load its unique table, at
// places far apart, and with 4 KiB pages nearly each read misses the TLB
// as well as the caches. It is only advice: a kernel that declines leaves
// the memory as it was.
func adviseHuge[T any](s []T) {
	const huge = 2 << 20
	var zero T
	size := uintptr(cap(s)) * unsafe.Sizeof(zero)
	if size < 2*huge {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(base)
	from := (start + huge - 1) &^ (huge - 1)
	to := (start + size) &^ (huge - 1)
	if to <= from {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(base, from-start)), to-from)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
