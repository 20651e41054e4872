package hugepage

import (
	"syscall"
	"unsafe"
)

// Advise asks the kernel to back the memory of s with huge pages (madvise
// MADV_HUGEPAGE on the whole 2 MiB pages within it). It takes effect on
// the pages not yet written, so it is given right after the allocation.
// It is only advice: a kernel that declines leaves the memory as it was,
// and a slice under two huge pages is left alone.
func Advise[T any](s []T) {
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
