//go:build !linux

package robdd

// adviseHuge does nothing where the system has no madvise advice for huge
// pages.
func adviseHuge[T any]([]T) {}
