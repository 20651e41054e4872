//go:build !linux

package hugepage

// Advise does nothing where the system has no madvise advice for huge
// pages.
func Advise[T any]([]T) {}
